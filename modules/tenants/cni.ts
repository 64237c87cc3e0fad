/**
 * The tenant clusters' CNI, installed by CAAPH: one HelmChartProxy per CNI flavour, selecting the
 * Clusters labelled with that flavour. Values are Go templates CAAPH renders per Cluster, so the
 * pod CIDR and the API endpoint come from the Cluster itself.
 *
 * A HelmChartProxy selects Clusters in its own namespace only (CAAPH's clusterSelector), so the
 * proxy for a tenant's flavour lives in the tenant's namespace next to its Cluster.
 */
import { cniCharts, type CniFlavour } from '../versions/cni';
import { API, type KubernetesObject } from './manifest';
import { LABEL_CNI } from './names';

export interface ChartMirror {
  /** OCI or HTTP chart repository replacing every chart repository. */
  readonly charts?: string;
}

/**
 * Kamaji's controller manager allocates node pod CIDRs from the Cluster's pod CIDR, so Cilium uses
 * them (`ipam.mode: kubernetes`). Kamaji runs kube-proxy, so no kube-proxy replacement; the agent
 * still talks to the VIP directly, not through a Service that needs a running CNI.
 */
const CILIUM_VALUES = `ipam:
  mode: kubernetes
kubeProxyReplacement: false
k8sServiceHost: "{{ .Cluster.spec.controlPlaneEndpoint.host }}"
k8sServicePort: "{{ .Cluster.spec.controlPlaneEndpoint.port }}"
operator:
  replicas: 1
`;

/**
 * Calico's IP pools are the Cluster's pod CIDRs (they must lie inside the range Kamaji's
 * controller manager allocates from), VXLAN without BGP. The aggregated Calico API server is left
 * out: the tenant's API server would reach it only through Konnectivity, and nothing here needs it.
 */
const CALICO_VALUES = `installation:
  cni:
    type: Calico
  calicoNetwork:
    bgp: Disabled
    ipPools:
{{- range .Cluster.spec.clusterNetwork.pods.cidrBlocks }}
    - cidr: {{ . }}
      encapsulation: VXLAN
{{- end }}
apiServer:
  enabled: false
kubernetesServiceEndpoint:
  host: "{{ .Cluster.spec.controlPlaneEndpoint.host }}"
  port: "{{ .Cluster.spec.controlPlaneEndpoint.port }}"
`;

export const CNI_VALUES_TEMPLATES: Readonly<Record<CniFlavour, string>> = { cilium: CILIUM_VALUES, calico: CALICO_VALUES };

export function cniHelmChartProxy(flavour: CniFlavour, namespace: string, mirror?: ChartMirror): KubernetesObject {
  const pin = cniCharts[flavour];
  return {
    apiVersion: API.addons,
    kind: 'HelmChartProxy',
    metadata: { name: `cni-${flavour}`, namespace },
    spec: {
      clusterSelector: { matchLabels: { [LABEL_CNI]: flavour } },
      repoURL: mirror?.charts ? mirror.charts.replace(/\/+$/, '') : pin.repository,
      chartName: pin.chart,
      version: pin.version,
      releaseName: flavour,
      namespace: pin.namespace,
      valuesTemplate: CNI_VALUES_TEMPLATES[flavour],
      options: {
        install: { createNamespace: true },
        // No wait: CAAPH installs the CNI as soon as the control plane is initialized, before any
        // worker exists (autoscaled pools may have none for long), and the operator Deployment of
        // either chart cannot be Ready without a node. Waiting would fail the release after the
        // timeout and make CAAPH retry; the CNI's pods start when the first node joins.
        wait: false,
        timeout: '10m',
      },
    },
  };
}
