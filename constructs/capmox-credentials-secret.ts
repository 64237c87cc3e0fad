/**
 * The CAPMOX credentials of one Proxmox instance as the Secret a ProxmoxCluster's `credentialsRef`
 * points at: keys url, token, secret, labelled `platform.ionos.com/secret-type: proxmox-credentials`,
 * named `capmoxCredentialsSecretName(instance)` in CAPMOX's namespace. The values are cdktf tokens
 * (cross-stack references to the instance stack's outputs), so the synthesized files hold
 * references, never the token secret itself.
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
  /** Token id, e.g. capmox@pve!capi. */
  readonly token: string;
  /** Token secret (sensitive; a cross-stack reference). */
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
      data: { url: props.url, token: props.token, secret: props.secret },
      dependsOn: props.dependsOn,
    });
  }
}
