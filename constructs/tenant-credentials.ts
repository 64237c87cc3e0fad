import { DataKubernetesSecretV1 } from '@cdktf/provider-kubernetes/lib/data-kubernetes-secret-v1';
import { SecretV1 } from '@cdktf/provider-kubernetes/lib/secret-v1';
import type { ITerraformDependable } from 'cdktf';
import { Construct } from 'constructs';

export interface TenantCredentialsProps {
  /** The management stack's CAPMOX credentials Secret of the instance. */
  readonly source: { readonly name: string; readonly namespace: string };
  /** The copy in the tenant namespace that the tenant's ProxmoxCluster refers to. */
  readonly target: { readonly name: string; readonly namespace: string };
  /** Labels of the copy (CAPMOX's secret-type label among them). */
  readonly labels: Record<string, string>;
  /** Created after these (the tenant namespace). @default none */
  readonly dependsOn?: ITerraformDependable[];
}

/**
 * A tenant's copy of an instance's CAPMOX credentials. CAPMOX makes the ProxmoxCluster an owner
 * of the Secret it uses, and owner references only resolve within one namespace, so the Secret
 * must sit next to the ProxmoxCluster. The values are read from the management cluster at apply
 * time; they live in Terraform state (as in the management stack's), never in the synthesized files.
 */
export class TenantCredentials extends Construct {
  readonly secret: SecretV1;

  constructor(scope: Construct, id: string, props: TenantCredentialsProps) {
    super(scope, id);
    const source = new DataKubernetesSecretV1(this, 'source', {
      metadata: { name: props.source.name, namespace: props.source.namespace },
    });
    this.secret = new SecretV1(this, 'copy', {
      metadata: { name: props.target.name, namespace: props.target.namespace, labels: props.labels },
      data: source.getStringMapAttribute('data'),
      type: 'Opaque',
      dependsOn: props.dependsOn,
    });
  }
}
