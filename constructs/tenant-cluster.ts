import { KubernetesManifest } from './providers/kubernetes-manifest';
import type { ITerraformDependable } from 'cdktf';
import { Construct } from 'constructs';
import type { KubernetesObject } from '../modules/tenants/manifest';

export interface TenantClusterProps {
  /** The CAPI Cluster (modules/tenants/cluster.ts). */
  readonly cluster: KubernetesObject;
  /** What must exist first and be deleted last: namespace, credentials, CNI proxy. @default none */
  readonly dependsOn?: ITerraformDependable[];
  /**
   * How long Terraform waits for the control plane on create, and for CAPI to remove the VMs and
   * the control plane on destroy.
   * @default { create: '30m', update: '30m', delete: '60m' }
   */
  readonly timeouts?: { create?: string; update?: string; delete?: string };
}

/**
 * A tenant's CAPI Cluster. Apply waits until its control plane is initialized, so that what
 * depends on it (the autoscaler mounting `<tenant>-kubeconfig`) finds the kubeconfig Secret.
 */
export class TenantCluster extends Construct {
  readonly manifest: KubernetesManifest;

  constructor(scope: Construct, id: string, props: TenantClusterProps) {
    super(scope, id);
    this.manifest = new KubernetesManifest(this, 'cluster', {
      manifest: props.cluster,
      fieldManager: { name: 'pvekaas' },
      wait: { condition: [{ type: 'ControlPlaneInitialized', status: 'True' }] },
      timeouts: { create: '30m', update: '30m', delete: '60m', ...props.timeouts },
      dependsOn: props.dependsOn,
    });
  }
}
