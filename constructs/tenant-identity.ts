import { KubernetesManifest } from './providers/kubernetes-manifest';
import type { ITerraformDependable } from 'cdktf';
import { Construct } from 'constructs';
import type { TenantIdentityRendering } from '../modules/tenants/identity';

export interface TenantIdentityProps {
  /** The tenant's identity objects (modules/tenants/identity.ts). */
  readonly identity: TenantIdentityRendering;
  /** Created after these (the tenant namespace). @default none */
  readonly dependsOn?: ITerraformDependable[];
}

/**
 * Login through the lab's identity provider: the tenant API server's AuthenticationConfiguration
 * (the Cluster depends on it: its control plane mounts it), and the ClusterRoleBindings of the
 * tenant's groups with the ClusterResourceSet that applies them inside the tenant cluster.
 */
export class TenantIdentity extends Construct {
  readonly authentication: KubernetesManifest;
  readonly access: KubernetesManifest;
  readonly resourceSet: KubernetesManifest;

  constructor(scope: Construct, id: string, props: TenantIdentityProps) {
    super(scope, id);
    const { identity } = props;
    this.authentication = new KubernetesManifest(this, 'authentication', { manifest: identity.authentication, dependsOn: props.dependsOn });
    this.access = new KubernetesManifest(this, 'access', { manifest: identity.access, dependsOn: props.dependsOn });
    this.resourceSet = new KubernetesManifest(this, 'resource-set', { manifest: identity.resourceSet, dependsOn: [...(props.dependsOn ?? []), this.access] });
  }
}
