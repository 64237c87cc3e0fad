/**
 * What the management plane installs from the pins: the Helm charts and every container image, by
 * what pulls it (the tags follow the pins; the few fixed tags say why).
 */
import { crdComponents, type ManagementVersions, type VersionKey } from './pins';
import { capiProviders, type CapiProvider } from './providers';

/** A Helm chart pvekaas installs, and where it comes from upstream. */
export interface HelmChartPin {
  readonly chart: string;
  /** Its upstream Helm repository; none: the chart is installed from the lab's `mirror.charts` only. */
  readonly repository?: string;
  readonly versionKey: VersionKey;
}

export const helmCharts = {
  certManager: { chart: 'cert-manager', repository: 'https://charts.jetstack.io', versionKey: 'certManager' },
  clusterApiOperator: { chart: 'cluster-api-operator', repository: 'https://kubernetes-sigs.github.io/cluster-api-operator', versionKey: 'clusterApiOperator' },
  kamaji: { chart: 'kamaji', repository: 'https://clastix.github.io/charts', versionKey: 'kamajiChart' },
  kamajiEtcd: { chart: 'kamaji-etcd', repository: 'https://clastix.github.io/charts', versionKey: 'kamajiEtcd' },
  metallb: { chart: 'metallb', repository: 'https://metallb.github.io/metallb', versionKey: 'metallb' },
  localpvProvisioner: { chart: 'localpv-provisioner', repository: 'https://openebs.github.io/dynamic-localpv-provisioner', versionKey: 'localpvProvisioner' },
  // Rancher publishes no Helm repository for it (rancher/local-path-provisioner issue 89, open): the chart ships in
  // the release's deploy/chart, and a lab serves it from mirror.charts (rule management.local-path-without-chart-mirror).
  localPathProvisioner: { chart: 'local-path-provisioner', versionKey: 'localPathProvisioner' },
} as const satisfies Record<string, HelmChartPin>;
export type ChartId = keyof typeof helmCharts;

/** Every CRD directory the pinned management plane installs, relative to the CRD tree (toolchain.json `crds`). */
export function pinnedCrdDirs(): string[] {
  return [...new Set(crdComponents().map((c) => c.dir))].sort();
}

/** A container image: repository including its registry host, tag, and optional digest. */
export interface ImagePin {
  readonly repository: string;
  readonly tag: string;
  readonly digest?: string;
}

/** `repository:tag[@digest]`. */
export function imageRef(image: ImagePin): string {
  return `${image.repository}:${image.tag}${image.digest ? `@${image.digest}` : ''}`;
}

/**
 * Every image the management plane pulls, by what pulls it. Helm charts pin their own images by
 * chart version; these are set explicitly anyway so the values say what runs and the mirror can
 * rewrite each one.
 */
export function managementImages(v: ManagementVersions) {
  const providerImage = (p: CapiProvider): ImagePin => ({ repository: p.managerImage, tag: v[p.versionKey] as string });
  return {
    certManager: {
      controller: { repository: 'quay.io/jetstack/cert-manager-controller', tag: v.certManager },
      webhook: { repository: 'quay.io/jetstack/cert-manager-webhook', tag: v.certManager },
      cainjector: { repository: 'quay.io/jetstack/cert-manager-cainjector', tag: v.certManager },
      acmesolver: { repository: 'quay.io/jetstack/cert-manager-acmesolver', tag: v.certManager },
      startupapicheck: { repository: 'quay.io/jetstack/cert-manager-startupapicheck', tag: v.certManager },
    },
    clusterApiOperator: {
      manager: { repository: 'registry.k8s.io/capi-operator/cluster-api-operator', tag: `v${v.clusterApiOperator}` },
    },
    capiProviders: Object.fromEntries(capiProviders.map((p) => [p.kind, providerImage(p)])) as Record<CapiProvider['kind'], ImagePin>,
    kamaji: {
      controller: { repository: 'docker.io/clastix/kamaji', tag: v.kamajiImage, digest: v.kamajiImageDigest },
    },
    kamajiEtcd: {
      etcd: { repository: 'quay.io/coreos/etcd', tag: v.etcd },
      // The chart's setup Job needs a shell; v3.5.6 is the last etcd image with one (kamaji-etcd values.yaml).
      setupEtcdctl: { repository: 'quay.io/coreos/etcd', tag: 'v3.5.6' },
      setupKubectl: { repository: 'docker.io/clastix/kubectl', tag: 'v1.35' },
    },
    metallb: {
      controller: { repository: 'quay.io/metallb/controller', tag: `v${v.metallb}` },
      speaker: { repository: 'quay.io/metallb/speaker', tag: `v${v.metallb}` },
    },
    localpvProvisioner: {
      provisioner: { repository: 'docker.io/openebs/provisioner-localpv', tag: v.localpvProvisioner },
      helper: { repository: 'docker.io/openebs/linux-utils', tag: '4.1.0' },
    },
    localPathProvisioner: {
      provisioner: { repository: 'docker.io/rancher/local-path-provisioner', tag: `v${v.localPathProvisioner}` },
      // The chart's values.yaml at the pinned release names busybox:latest, a tag that moves; pinned here to a release instead.
      helper: { repository: 'docker.io/library/busybox', tag: '1.37.0' },
    },
    tools: {
      kubectl: { repository: 'registry.k8s.io/kubectl', tag: v.kubectl },
      rclone: { repository: 'docker.io/rclone/rclone', tag: v.rclone },
    },
  } satisfies Record<string, Record<string, ImagePin>>;
}
export type ManagementImages = ReturnType<typeof managementImages>;

/** Every image of `managementImages`, flattened and sorted (what a mirror must hold). */
export function imageInventory(v: ManagementVersions): ImagePin[] {
  const all = Object.values(managementImages(v)).flatMap((group) => Object.values(group as Record<string, ImagePin>));
  const seen = new Map<string, ImagePin>();
  for (const image of all) seen.set(imageRef(image), image);
  return [...seen.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([, image]) => image);
}
