/**
 * The CAPMOX credentials of one Proxmox instance, in CAPMOX's namespace (the management plane's,
 * never a tenant's), named `capmoxCredentialsSecretName(instance)`: key `url`, and per tenant with
 * machines on the instance `<tenant>.token` and `<tenant>.secret` — each tenant's own token, whose
 * VM privileges cover that tenant's pool only. Each tenant stack copies its own pair into its
 * namespace (constructs/tenant-credentials.ts) as the Secret its ProxmoxCluster's `credentialsRef`
 * points at. The values are cdktf tokens (cross-stack references to the instance stack's
 * outputs), so the synthesized files hold references, never a token secret itself.
 */
import type { ITerraformDependable } from 'cdktf';
import { Construct } from 'constructs';
import type { KubernetesProvider } from '@cdktf/provider-kubernetes/lib/provider';
import { SecretV1 } from '@cdktf/provider-kubernetes/lib/secret-v1';
import { CAPMOX_CREDENTIALS_NAMESPACE, CAPMOX_SECRET_TYPE_LABEL, capmoxCredentialsSecretName } from '../modules/versions/layout';

export interface CapmoxCredentialsSecretProps {
  readonly provider: KubernetesProvider;
  /** The instance name from the lab description. */
  readonly instance: string;
  /** Proxmox API URL. */
  readonly url: string;
  /** Per tenant: its token id (e.g. capmox@pve!tenant-a) and secret (sensitive; cross-stack references). */
  readonly tenants: Readonly<Record<string, { readonly token: string; readonly secret: string }>>;
  /** @default CAPMOX's namespace (`CAPMOX_CREDENTIALS_NAMESPACE`) */
  readonly namespace?: string;
  /** @default none */
  readonly dependsOn?: ITerraformDependable[];
}

/** The Secret's keys: `url`, then `<tenant>.token` and `<tenant>.secret` per tenant, by name. */
export function capmoxCredentialsData(url: string, tenants: CapmoxCredentialsSecretProps['tenants']): Record<string, string> {
  const data: Record<string, string> = { url };
  for (const tenant of Object.keys(tenants).sort()) {
    data[tenantCredentialKey(tenant, 'token')] = tenants[tenant].token;
    data[tenantCredentialKey(tenant, 'secret')] = tenants[tenant].secret;
  }
  return data;
}

/** The key of a tenant's token id or secret in the instance's credentials Secret. */
export function tenantCredentialKey(tenant: string, what: 'token' | 'secret'): string {
  return `${tenant}.${what}`;
}

export class CapmoxCredentialsSecret extends Construct {
  readonly name: string;
  readonly namespace: string;

  constructor(scope: Construct, id: string, props: CapmoxCredentialsSecretProps) {
    super(scope, id);
    this.name = capmoxCredentialsSecretName(props.instance);
    this.namespace = props.namespace ?? CAPMOX_CREDENTIALS_NAMESPACE;
    new SecretV1(this, 'secret', {
      provider: props.provider,
      metadata: {
        name: this.name,
        namespace: this.namespace,
        labels: { ...CAPMOX_SECRET_TYPE_LABEL, 'app.kubernetes.io/managed-by': 'pvekaas', 'pvekaas.dev/instance': props.instance },
      },
      type: 'Opaque',
      data: capmoxCredentialsData(props.url, props.tenants),
      dependsOn: props.dependsOn,
    });
  }
}
