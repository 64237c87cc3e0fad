import { KubernetesManifest } from './providers/kubernetes-manifest';
import type { ITerraformDependable } from 'cdktf';
import { Construct } from 'constructs';
import type { KubernetesObject } from '../modules/tenants/manifest';

export interface CniHelmChartProxyProps {
  /**
   * The CAAPH HelmChartProxy, rendered (`TenantRendering.cniProxy`): it selects the Clusters
   * labelled `pvekaas.lab/cni: <flavour>` in its own namespace only, the tenant's.
   */
  readonly proxy: KubernetesObject;
  /** Created after these (the namespace). @default none */
  readonly dependsOn?: ITerraformDependable[];
}

/** A CAAPH HelmChartProxy installing one CNI flavour into the selected tenant clusters. */
export class CniHelmChartProxy extends Construct {
  readonly manifest: KubernetesManifest;

  constructor(scope: Construct, id: string, props: CniHelmChartProxyProps) {
    super(scope, id);
    this.manifest = new KubernetesManifest(this, 'proxy', { manifest: props.proxy, dependsOn: props.dependsOn });
  }
}
