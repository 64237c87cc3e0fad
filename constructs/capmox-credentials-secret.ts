/**
 * The CAPMOX credentials of one tenant on one Proxmox instance, in CAPMOX's namespace (the
 * management plane's, never a tenant's), named `capmoxTenantCredentialsSecretName(instance,
 * tenant)`: keys `url`, `token` and `secret` — that tenant's own token, whose VM privileges cover
 * its pool only, and nothing of another tenant. The tenant stack copies it into its namespace
 * (constructs/tenant-credentials.ts) as the Secret its ProxmoxCluster's `credentialsRef` points
 * at; it reads it with a data source, whose whole `data` lands in the tenant stack's state, so one
 * Secret per tenant keeps every other tenant's token out of that state. The values are cdktf
 * tokens (cross-stack references to the instance stack's outputs), so the synthesized files hold
 * references, never a token secret itself.
 */
import type { ITerraformDependable } from 'cdktf';
import { Construct } from 'constructs';
import type { KubernetesProvider } from '@cdktf/provider-kubernetes/lib/provider';
import { SecretV1 } from '@cdktf/provider-kubernetes/lib/secret-v1';
import { CAPMOX_CREDENTIALS_NAMESPACE, CAPMOX_SECRET_TYPE_LABEL, capmoxTenantCredentialsSecretName } from '../modules/versions/layout';

export interface CapmoxCredentialsSecretProps {
  readonly provider: KubernetesProvider;
  /** The instance name from the lab description. */
  readonly instance: string;
  /** The tenant whose token this is. */
  readonly tenant: string;
  /** Proxmox API URL. */
  readonly url: string;
  /** The tenant's token id (e.g. capmox@pve!tenant-a) and secret (sensitive; cross-stack references). */
  readonly token: string;
  readonly secret: string;
  /** @default CAPMOX's namespace (`CAPMOX_CREDENTIALS_NAMESPACE`) */
  readonly namespace?: string;
  /** @default none */
  readonly dependsOn?: ITerraformDependable[];
}

export class CapmoxCredentialsSecret extends Construct {
  readonly name: string;
  readonly namespace: string;

  constructor(scope: Construct, id: string, props: CapmoxCredentialsSecretProps) {
    super(scope, id);
    this.name = capmoxTenantCredentialsSecretName(props.instance, props.tenant);
    this.namespace = props.namespace ?? CAPMOX_CREDENTIALS_NAMESPACE;
    new SecretV1(this, 'secret', {
      provider: props.provider,
      metadata: {
        name: this.name,
        namespace: this.namespace,
        labels: {
          ...CAPMOX_SECRET_TYPE_LABEL,
          'app.kubernetes.io/managed-by': 'pvekaas',
          'pvekaas.dev/instance': props.instance,
          'pvekaas.dev/tenant': props.tenant,
        },
      },
      type: 'Opaque',
      // CAPMOX's keys (url, token, secret), as the tenant's copy holds them.
      data: { url: props.url, token: props.token, secret: props.secret },
      dependsOn: props.dependsOn,
    });
  }
}
