import { KubernetesManifest } from './providers/kubernetes-manifest';
import type { ITerraformDependable } from 'cdktf';
import { Construct } from 'constructs';
import { cniHelmChartProxy, type ChartMirror } from '../modules/tenants/cni';
import type { CniFlavour } from '../modules/versions/cni';

export interface CniHelmChartProxyProps {
  /** Which CNI: the proxy selects the Clusters labelled `pvekaas.lab/cni: <flavour>`. */
  readonly flavour: CniFlavour;
  /** Namespace of the proxy; it selects Clusters of this namespace only (CAAPH). */
  readonly namespace: string;
  /** Chart mirror replacing the upstream repository. @default the upstream repository */
  readonly mirror?: ChartMirror;
  /** Created after these (the namespace). @default none */
  readonly dependsOn?: ITerraformDependable[];
}

/** A CAAPH HelmChartProxy installing one CNI flavour into the selected tenant clusters. */
export class CniHelmChartProxy extends Construct {
  readonly manifest: KubernetesManifest;

  constructor(scope: Construct, id: string, props: CniHelmChartProxyProps) {
    super(scope, id);
    this.manifest = new KubernetesManifest(this, 'proxy', {
      manifest: cniHelmChartProxy(props.flavour, props.namespace, props.mirror),
      dependsOn: props.dependsOn,
    });
  }
}
