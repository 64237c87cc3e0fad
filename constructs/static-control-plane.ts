import { KubernetesManifest } from './providers/kubernetes-manifest';
import type { ITerraformDependable } from 'cdktf';
import { Construct } from 'constructs';
import type { KubernetesProvider } from '@cdktf/provider-kubernetes/lib/provider';
import type { KubernetesObject } from '../modules/tenants/manifest';

export interface StaticControlPlaneProps {
  readonly provider: KubernetesProvider;
  /** The CRD and the ClusterRole, rendered (`ManagementPlaneRendering.staticControlPlane`, modules/rendering). */
  readonly crd: KubernetesObject;
  readonly clusterRole: KubernetesObject;
  /** After the CAPI core provider is installed (its manager aggregates the ClusterRole). @default none */
  readonly dependsOn?: ITerraformDependable[];
}

/**
 * pvekaas's static control plane CRD and the ClusterRole that lets the CAPI core manager read and
 * own its objects (modules/tenants/static-control-plane.ts): what a MultiInstance tenant's
 * secondary Clusters refer to as their control plane (capmox.multiInstance: secondary-clusters).
 */
export class StaticControlPlane extends Construct {
  readonly crd: KubernetesManifest;

  constructor(scope: Construct, id: string, props: StaticControlPlaneProps) {
    super(scope, id);
    this.crd = new KubernetesManifest(this, 'crd', { provider: props.provider, manifest: props.crd, dependsOn: props.dependsOn });
    new KubernetesManifest(this, 'cluster-role', { provider: props.provider, manifest: props.clusterRole, dependsOn: props.dependsOn });
  }
}
