/**
 * Pinned charts the tenant stacks install: the CNI of each tenant cluster (through CAAPH
 * HelmChartProxies) and each tenant's cluster-autoscaler (a Helm release in the management cluster).
 * The tables below are the one place these versions are written. Why each one:
 *
 * - cilium: the version the Kamaji guide installs through CAAPH (OpenStack provider guide); pinned in
 *   toolchain.json `charts.cilium`, since the lab twin renders that very chart from Cilium's Go module.
 * - tigera-operator (Calico): the newest chart that still bundles its CRDs (from v3.32 they are a
 *   separate chart, which CAAPH would have to install first).
 * - cluster-autoscaler chart: appVersion 1.35.0; the image follows the tenant's Kubernetes minor,
 *   as the autoscaler project asks (`autoscalerImageTags`).
 */

import toolchain from './toolchain.json';

export type CniFlavour = 'cilium' | 'calico';

export interface TenantChartPin {
  readonly chart: string;
  readonly repository: string;
  readonly version: string;
  /** Namespace of the release in the tenant cluster (CNI) or the management cluster (autoscaler). */
  readonly namespace?: string;
}

export const cniCharts: Readonly<Record<CniFlavour, TenantChartPin>> = {
  cilium: { chart: 'cilium', repository: 'https://helm.cilium.io', version: toolchain.charts.cilium.version, namespace: 'kube-system' },
  calico: { chart: 'tigera-operator', repository: 'https://docs.tigera.io/calico/charts', version: 'v3.31.7', namespace: 'tigera-operator' },
};

export const autoscalerChart: TenantChartPin = {
  chart: 'cluster-autoscaler',
  repository: 'https://kubernetes.github.io/autoscaler',
  version: '9.59.0',
};

export const AUTOSCALER_IMAGE_REPOSITORY = 'registry.k8s.io/autoscaling/cluster-autoscaler';

/**
 * cluster-autoscaler image per Kubernetes minor of the tenant: the newest patch of each minor that
 * upstream's release notes show (`autoscalerTagEvidence` says how each tag is known). A minor
 * missing here fails the synth of a tenant with autoscaled pools, naming this table.
 *
 * Why the newest patch: 1.33.0 cannot scale a CAPI node group to 0 (its merge patch with
 * `omitempty` drops `replicas: 0`; kubernetes/autoscaler#8412, backported to 1.33.1), and the
 * clusterapi provider's fixes for CAPI's v1beta2 API went into patch releases.
 */
export const autoscalerImageTags: Readonly<Record<string, string>> = {
  '1.30': 'v1.30.7',
  '1.31': 'v1.31.5',
  '1.32': 'v1.32.7',
  '1.33': 'v1.33.6',
  '1.34': 'v1.34.5',
  '1.35': 'v1.35.2',
  '1.36': 'v1.36.1',
};

/**
 * Minors whose pinned autoscaler cannot scale a Cluster API node group down to 0: the fix
 * (kubernetes/autoscaler#8412, `clusterapi_unstructured.go` SetSize sending `replicas` as a pointer so
 * a merge patch keeps 0) is in 1.33.1 and later, never backported to 1.32 and older (read from the
 * tags cluster-autoscaler-1.30.7, -1.31.5, -1.32.7). A pool with `autoscaling.min: 0` on these minors
 * would stay at 1 machine for ever; the description check refuses it.
 */
export const autoscalerWithoutScaleToZero: ReadonlySet<string> = new Set(['1.30', '1.31', '1.32']);

/** How each pinned autoscaler tag is known: from upstream release notes, or not verified here. */
export const autoscalerTagEvidence: Readonly<Record<string, { verified: boolean; source: string }>> = {
  '1.30': {
    verified: true,
    source:
      'tag cluster-autoscaler-1.30.7 (2025-10-29), the last of the series in kubernetes/autoscaler; has the clusterapi apiGroup fix for CAPI v1beta2 (#8452, first in 1.30.6); not #8412 (scale to 0)',
  },
  '1.31': {
    verified: true,
    source:
      'tag cluster-autoscaler-1.31.5 (2025-10-08), the last of the series in kubernetes/autoscaler; has the clusterapi apiGroup fix (#8453, first in 1.31.4); not #8412 (scale to 0)',
  },
  '1.32': {
    verified: true,
    source:
      'tag cluster-autoscaler-1.32.7 (2026-02-13), the last of the series in kubernetes/autoscaler; has the clusterapi apiGroup fix (#8454, first in 1.32.3); not #8412 (scale to 0)',
  },
  '1.33': { verified: true, source: 'release cluster-autoscaler-1.33.6 (2026-07-23), kubernetes/autoscaler releases; has #8412 (scale to 0)' },
  '1.34': { verified: true, source: 'release cluster-autoscaler-1.34.5 (2026-07-23), kubernetes/autoscaler releases' },
  '1.35': { verified: true, source: 'release cluster-autoscaler-1.35.2 (2026-07-23), kubernetes/autoscaler releases' },
  '1.36': {
    verified: true,
    source:
      'release cluster-autoscaler-1.36.1 (2026-07-23), kubernetes/autoscaler releases; tag read (cloudprovider/clusterapi diffed against -1.35.2: paused node groups, template taints)',
  },
};
