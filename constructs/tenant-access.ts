import { KubernetesManifest } from './providers/kubernetes-manifest';
import type { ITerraformDependable } from 'cdktf';
import { Construct } from 'constructs';
import type { KubernetesObject } from '../modules/tenants/manifest';

export interface TenantAccessProps {
  /** The Role (see modules/tenants/rbac.ts). */
  readonly role: KubernetesObject;
  /** The RoleBinding of the tenant's groups. @default none: the Role stays unbound */
  readonly roleBinding?: KubernetesObject;
  /** Created after these (the tenant namespace). @default none */
  readonly dependsOn?: ITerraformDependable[];
}

/** What the tenant's groups may do in their namespace of the management cluster. */
export class TenantAccess extends Construct {
  readonly role: KubernetesManifest;
  readonly roleBinding?: KubernetesManifest;

  constructor(scope: Construct, id: string, props: TenantAccessProps) {
    super(scope, id);
    this.role = new KubernetesManifest(this, 'role', { manifest: props.role, dependsOn: props.dependsOn });
    if (props.roleBinding) {
      this.roleBinding = new KubernetesManifest(this, 'role-binding', { manifest: props.roleBinding, dependsOn: [...(props.dependsOn ?? []), this.role] });
    }
  }
}
