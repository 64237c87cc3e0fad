/**
 * Pinned charts the tenant stacks install: the CNI of each tenant cluster (through CAAPH
 * HelmChartProxies) and each tenant's cluster-autoscaler (a Helm release in the management cluster).
 *
 * - cilium 1.18.4: the version the Kamaji guide installs through CAAPH (OpenStack provider guide).
 * - tigera-operator v3.31.7: newest Calico chart that still bundles its CRDs (from v3.32 they are a
 *   separate chart, which CAAPH would have to install first).
 * - cluster-autoscaler chart 9.59.0 (appVersion 1.35.0); the image follows the tenant's Kubernetes
 *   minor, as the autoscaler project asks (`autoscalerImageTags`).
 */

export type CniFlavour = 'cilium' | 'calico';

export interface TenantChartPin {
  readonly chart: string;
  readonly repository: string;
  readonly version: string;
  /** Namespace of the release in the tenant cluster (CNI) or the management cluster (autoscaler). */
  readonly namespace?: string;
}

export const cniCharts: Readonly<Record<CniFlavour, TenantChartPin>> = {
  cilium: { chart: 'cilium', repository: 'https://helm.cilium.io', version: '1.18.4', namespace: 'kube-system' },
  calico: { chart: 'tigera-operator', repository: 'https://docs.tigera.io/calico/charts', version: 'v3.31.7', namespace: 'tigera-operator' },
};

export const autoscalerChart: TenantChartPin = {
  chart: 'cluster-autoscaler',
  repository: 'https://kubernetes.github.io/autoscaler',
  version: '9.59.0',
};

export const AUTOSCALER_IMAGE_REPOSITORY = 'registry.k8s.io/autoscaling/cluster-autoscaler';

/**
 * cluster-autoscaler image per Kubernetes minor of the tenant. A minor missing here fails the
 * synth of a tenant with autoscaled pools, naming this table.
 */
export const autoscalerImageTags: Readonly<Record<string, string>> = {
  '1.30': 'v1.30.3',
  '1.31': 'v1.31.0',
  '1.32': 'v1.32.0',
  '1.33': 'v1.33.0',
  '1.34': 'v1.34.0',
  '1.35': 'v1.35.0',
};
