/**
 * Every version pvekaas installs on the management cluster, pinned in one place, and the guard
 * that refuses a combination Cluster API would not run.
 *
 * For each Cluster API provider the table records the contract each release series implements
 * (copied from the provider's clusterctl `metadata.yaml`; test/versions checks the copy against
 * the CRD tree that scripts/toolchain lays out from the pinned modules) and the CAPI minor each release is built against (from its
 * go.mod). `checkVersions` refuses providers whose contract differs from the core's, naming both
 * sides, and warns when a provider is built against another CAPI minor than the core.
 *
 * Overrides come from `management.versions` in the lab description (`resolveVersions`); they go
 * through the same guard. No pin is ever `latest` — with one documented exception: the Kamaji
 * chart, whose only published version is `0.0.0+latest` (the image is pinned instead).
 *
 * Engine and Terraform provider pins live in ./toolchain.json (scripts/toolchain reads it).
 */

/** A Cluster API contract version, as written in metadata.yaml. */
export type CapiContract = 'v1beta1' | 'v1beta2';

/** One row of a provider's metadata.yaml: a release series and the contract it implements. */
export interface ReleaseSeries {
  readonly major: number;
  readonly minor: number;
  readonly contract: CapiContract;
}

/** The keys of `management.versions`: every pin an operator may override. */
export const versionKeys = [
  'clusterApi',
  'kamajiProvider',
  'proxmoxProvider',
  'inClusterIpam',
  'helmAddon',
  'clusterApiOperator',
  'certManager',
  'kamajiChart',
  'kamajiImage',
  'kamajiImageDigest',
  'kamajiEtcd',
  'etcd',
  'metallb',
  'localpvProvisioner',
  'kubectl',
  'rclone',
] as const;
export type VersionKey = (typeof versionKeys)[number];

/** The effective versions of one lab: the pins below with the lab's overrides applied. */
export type ManagementVersions = { readonly [K in Exclude<VersionKey, 'kamajiImageDigest'>]: string } & {
  /** `sha256:<64 hex>` of the Kamaji image; undefined when no digest is recorded. */
  readonly kamajiImageDigest?: string;
};

/**
 * The pinned defaults. Why each one:
 * - clusterApi v1.12.10: the 1.12 patch the lab twin runs for real (the newest the Go module proxy
 *   serves; v1.12.9, which CAPMOX v0.9.0's go.mod names, and v1.12.11 are not served). CAPMOX v0.9.0
 *   requires CAPI 1.12; the CRDs of 1.12.8-1.12.11 are byte-identical.
 * - kamajiProvider v0.20.0: first release serving KamajiControlPlane v1alpha2 (contract v1beta2); built on CAPI 1.13.
 * - proxmoxProvider v0.9.0 (CAPMOX, API v1alpha2), inClusterIpam v1.1.0 (what CAPMOX v0.9.0 is built and tested with).
 * - helmAddon v0.6.2: last CAAPH release built on CAPI 1.12 (v0.6.3+ moved to 1.13).
 * - clusterApiOperator 0.28.0: built on CAPI 1.12.10, accepts v1beta1 and v1beta2 providers.
 * - certManager v1.18.3: the version the Kamaji docs install.
 * - kamajiChart 0.0.0+latest + kamajiImage 26.8.2-edge: Kamaji OSS publishes no versioned chart; the
 *   edge image is the pin. kamajiImageDigest: NOT RECORDED — see `KAMAJI_DIGEST_NOTE`.
 * - kamajiEtcd 0.17.0 (etcd v3.6.12): newest kamaji-etcd chart; installed as its own release so it is
 *   pinned independently of whatever the Kamaji chart bundles.
 * - metallb 0.15.3: the MetalLB release whose CRDs come from go.universe.tf/metallb@v0.15.3 (L2 only, FRR off).
 * - localpvProvisioner 4.1.1: OpenEBS LocalPV hostpath, the CSI for the datastore volumes (see docs/management.md).
 * - kubectl v1.34.3 (provider readiness Job), rclone 1.75.0 (datastore backup upload).
 */
export const pinnedVersions: ManagementVersions = {
  clusterApi: 'v1.12.10',
  kamajiProvider: 'v0.20.0',
  proxmoxProvider: 'v0.9.0',
  inClusterIpam: 'v1.1.0',
  helmAddon: 'v0.6.2',
  clusterApiOperator: '0.28.0',
  certManager: 'v1.18.3',
  kamajiChart: '0.0.0+latest',
  kamajiImage: '26.8.2-edge',
  kamajiImageDigest: undefined,
  kamajiEtcd: '0.17.0',
  etcd: 'v3.6.12',
  metallb: '0.15.3',
  localpvProvisioner: '4.1.1',
  kubectl: 'v1.34.3',
  rclone: '1.75.0',
};

/**
 * Why `kamajiImageDigest` is empty: the digest of `clastix/kamaji:26.8.2-edge` could not be read
 * from a registry while pinning (no registry access), and no published source records it. Until
 * it is filled in, the image is pinned by its edge tag only and every synth warns.
 */
export const KAMAJI_DIGEST_NOTE =
  'the Kamaji image is pinned by tag only: no digest is recorded for it. Read it with ' +
  '`crane digest docker.io/clastix/kamaji:<tag>` (or `docker buildx imagetools inspect`) and set ' +
  'management.versions.kamajiImageDigest, or record it in modules/versions pinnedVersions';

/** The Kamaji chart's only published version; the one pin allowed to say "latest". */
export const KAMAJI_CHART_LATEST = '0.0.0+latest';

/** A Cluster API provider the CAPI operator installs. */
export interface CapiProvider {
  /** Key in the cluster-api-operator chart values (and in `capiProviders`). */
  readonly kind: 'core' | 'bootstrap' | 'controlPlane' | 'infrastructure' | 'ipam' | 'addon';
  /** The operator's custom resource kind for it. */
  readonly operatorKind: 'CoreProvider' | 'BootstrapProvider' | 'ControlPlaneProvider' | 'InfrastructureProvider' | 'IPAMProvider' | 'AddonProvider';
  /** clusterctl provider name (the operator resolves it through clusterctl's built-in registry). */
  readonly name: string;
  /** The type part of clusterctl's provider label and of the OCI component file names. */
  readonly clusterctlType: 'core' | 'bootstrap' | 'control-plane' | 'infrastructure' | 'ipam' | 'addon';
  readonly title: string;
  readonly repository: string;
  /** Which `management.versions` key sets its version. */
  readonly versionKey: VersionKey;
  /** The release asset the operator fetches. */
  readonly componentsFile: string;
  /** Its controller image, without tag (the tag is the provider version). */
  readonly managerImage: string;
  /** From the provider's metadata.yaml (file path relative to the CRD tree, modules/crds `crdsDir`). */
  readonly releaseSeries: readonly ReleaseSeries[];
  readonly metadataFile: string;
  /** CAPI minor each known release is built against (its go.mod `sigs.k8s.io/cluster-api`). */
  readonly builtAgainst: Readonly<Record<string, string>>;
  /** Why a known build skew against core 1.12 is harmless. */
  readonly knownSkew?: Readonly<Record<string, string>>;
  /** CRDs of the pinned version, relative to the CRD tree. */
  readonly crdDir?: string;
}

const series = (major: number, contracts: Record<number, CapiContract>): ReleaseSeries[] =>
  Object.entries(contracts).map(([minor, contract]) => ({ major, minor: Number(minor), contract }));

const range = (from: number, to: number, contract: CapiContract): Record<number, CapiContract> =>
  Object.fromEntries(Array.from({ length: to - from + 1 }, (_, i) => [from + i, contract]));

/** The providers, core first; the order is also the order of the operator chart values. */
export const capiProviders: readonly CapiProvider[] = [
  {
    kind: 'core',
    operatorKind: 'CoreProvider',
    name: 'cluster-api',
    clusterctlType: 'core',
    title: 'Cluster API core',
    repository: 'https://github.com/kubernetes-sigs/cluster-api',
    versionKey: 'clusterApi',
    componentsFile: 'core-components.yaml',
    managerImage: 'registry.k8s.io/cluster-api/cluster-api-controller',
    releaseSeries: series(1, { ...range(0, 10, 'v1beta1'), 11: 'v1beta2', 12: 'v1beta2' }),
    metadataFile: 'cluster-api/v1.12.10/metadata.yaml',
    builtAgainst: {},
    crdDir: 'cluster-api/v1.12.10',
  },
  {
    kind: 'bootstrap',
    operatorKind: 'BootstrapProvider',
    name: 'kubeadm',
    clusterctlType: 'bootstrap',
    title: 'kubeadm bootstrap',
    repository: 'https://github.com/kubernetes-sigs/cluster-api',
    versionKey: 'clusterApi',
    componentsFile: 'bootstrap-components.yaml',
    managerImage: 'registry.k8s.io/cluster-api/kubeadm-bootstrap-controller',
    releaseSeries: series(1, { ...range(0, 10, 'v1beta1'), 11: 'v1beta2', 12: 'v1beta2' }),
    metadataFile: 'cluster-api/v1.12.10/metadata.yaml',
    builtAgainst: {},
  },
  {
    kind: 'controlPlane',
    operatorKind: 'ControlPlaneProvider',
    name: 'kamaji',
    clusterctlType: 'control-plane',
    title: 'Kamaji control plane',
    repository: 'https://github.com/clastix/cluster-api-control-plane-provider-kamaji',
    versionKey: 'kamajiProvider',
    componentsFile: 'control-plane-components.yaml',
    managerImage: 'docker.io/clastix/cluster-api-control-plane-provider-kamaji',
    releaseSeries: series(0, { ...range(1, 19, 'v1beta1'), 20: 'v1beta2' }),
    metadataFile: 'cluster-api-control-plane-provider-kamaji/v0.20.0/metadata.yaml',
    builtAgainst: { 'v0.16.0': '1.10', 'v0.17.0': '1.10', 'v0.18.0': '1.11', 'v0.19.0': '1.11', 'v0.20.0': '1.13' },
    knownSkew: {
      'v0.20.0':
        'known and contract-compatible: Kamaji provider v0.20.0 is built on CAPI 1.13.2 while the core is 1.12; both implement contract v1beta2. ' +
        'No Kamaji provider release is built on CAPI 1.12 (v0.19.0, the last v1beta1-contract release, is built on 1.11), and v0.20.0 is the first to serve KamajiControlPlane v1alpha2',
    },
    crdDir: 'cluster-api-control-plane-provider-kamaji/v0.20.0',
  },
  {
    kind: 'infrastructure',
    operatorKind: 'InfrastructureProvider',
    name: 'proxmox',
    clusterctlType: 'infrastructure',
    title: 'Proxmox infrastructure (CAPMOX)',
    repository: 'https://github.com/ionos-cloud/cluster-api-provider-proxmox',
    versionKey: 'proxmoxProvider',
    componentsFile: 'infrastructure-components.yaml',
    managerImage: 'ghcr.io/ionos-cloud/cluster-api-provider-proxmox',
    releaseSeries: series(0, { ...range(1, 7, 'v1beta1'), 8: 'v1beta2', 9: 'v1beta2' }),
    metadataFile: 'cluster-api-provider-proxmox/v0.9.0/metadata.yaml',
    builtAgainst: { 'v0.9.0': '1.12' },
    crdDir: 'cluster-api-provider-proxmox/v0.9.0',
  },
  {
    kind: 'ipam',
    operatorKind: 'IPAMProvider',
    name: 'in-cluster',
    clusterctlType: 'ipam',
    title: 'in-cluster IPAM',
    repository: 'https://github.com/kubernetes-sigs/cluster-api-ipam-provider-in-cluster',
    versionKey: 'inClusterIpam',
    componentsFile: 'ipam-components.yaml',
    managerImage: 'registry.k8s.io/capi-ipam-ic/cluster-api-ipam-in-cluster-controller',
    releaseSeries: [...series(0, { 1: 'v1beta1' }), ...series(1, { 0: 'v1beta1', 1: 'v1beta2' })],
    metadataFile: 'cluster-api-ipam-provider-in-cluster/v1.1.0/metadata.yaml',
    builtAgainst: { 'v1.1.0': '1.11' },
    knownSkew: {
      'v1.1.0':
        'known and contract-compatible: in-cluster IPAM v1.1.0 is built on CAPI 1.11.2 while the core is 1.12; both implement contract v1beta2, ' +
        'and CAPMOX v0.9.0 is built and tested against exactly this release on CAPI 1.12',
    },
    crdDir: 'cluster-api-ipam-provider-in-cluster/v1.1.0',
  },
  {
    kind: 'addon',
    operatorKind: 'AddonProvider',
    name: 'helm',
    clusterctlType: 'addon',
    title: 'Helm add-on (CAAPH)',
    repository: 'https://github.com/kubernetes-sigs/cluster-api-addon-provider-helm',
    versionKey: 'helmAddon',
    componentsFile: 'addon-components.yaml',
    managerImage: 'registry.k8s.io/cluster-api-helm/cluster-api-helm-controller',
    releaseSeries: series(0, { ...range(1, 4, 'v1beta1'), 5: 'v1beta2', 6: 'v1beta2' }),
    metadataFile: 'cluster-api-addon-provider-helm/v0.6.2/metadata.yaml',
    builtAgainst: { 'v0.6.2': '1.12', 'v0.6.3': '1.13', 'v0.6.4': '1.13' },
    crdDir: 'cluster-api-addon-provider-helm/v0.6.2',
  },
];

/** A Helm chart pvekaas installs, and where it comes from upstream. */
export interface HelmChartPin {
  readonly chart: string;
  readonly repository: string;
  readonly versionKey: VersionKey;
}

export const helmCharts = {
  certManager: { chart: 'cert-manager', repository: 'https://charts.jetstack.io', versionKey: 'certManager' },
  clusterApiOperator: { chart: 'cluster-api-operator', repository: 'https://kubernetes-sigs.github.io/cluster-api-operator', versionKey: 'clusterApiOperator' },
  kamaji: { chart: 'kamaji', repository: 'https://clastix.github.io/charts', versionKey: 'kamajiChart' },
  kamajiEtcd: { chart: 'kamaji-etcd', repository: 'https://clastix.github.io/charts', versionKey: 'kamajiEtcd' },
  metallb: { chart: 'metallb', repository: 'https://metallb.github.io/metallb', versionKey: 'metallb' },
  localpvProvisioner: { chart: 'localpv-provisioner', repository: 'https://openebs.github.io/dynamic-localpv-provisioner', versionKey: 'localpvProvisioner' },
} as const satisfies Record<string, HelmChartPin>;
export type ChartId = keyof typeof helmCharts;

/** CRDs (relative to the CRD tree) of the pinned non-provider components. */
export const componentCrdDirs = {
  clusterApiOperator: 'cluster-api-operator/v0.28.0',
  kamaji: 'kamaji/26.8.2-edge',
  metallb: 'metallb/v0.15.3',
} as const;

/** Every CRD directory the pinned management plane installs, relative to the CRD tree. */
export function pinnedCrdDirs(): string[] {
  const dirs = [...capiProviders.map((p) => p.crdDir).filter((d): d is string => d !== undefined), ...Object.values(componentCrdDirs)];
  return [...new Set(dirs)].sort();
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

/** The pins with a lab's `management.versions` applied. */
export function resolveVersions(overrides: Partial<Record<VersionKey, string>> = {}): ManagementVersions {
  const merged: Record<string, string | undefined> = { ...pinnedVersions };
  for (const key of versionKeys) {
    const value = overrides[key];
    if (value !== undefined) merged[key] = value;
  }
  // A recorded digest belongs to the pinned tag; a different tag without its own digest has none.
  if (overrides.kamajiImage !== undefined && overrides.kamajiImage !== pinnedVersions.kamajiImage && overrides.kamajiImageDigest === undefined) {
    merged.kamajiImageDigest = undefined;
  }
  return merged as unknown as ManagementVersions;
}

/** A finding of the version guard, against one `management.versions` key. */
export interface VersionFinding {
  readonly severity: 'error' | 'warning';
  readonly key: VersionKey;
  readonly message: string;
  readonly fix?: string;
}

const SEMVER_V = /^v\d+\.\d+\.\d+$/;
const SEMVER = /^\d+\.\d+\.\d+$/;
const formats: Record<VersionKey, { pattern: RegExp; example: string }> = {
  clusterApi: { pattern: SEMVER_V, example: 'v1.12.10' },
  kamajiProvider: { pattern: SEMVER_V, example: 'v0.20.0' },
  proxmoxProvider: { pattern: SEMVER_V, example: 'v0.9.0' },
  inClusterIpam: { pattern: SEMVER_V, example: 'v1.1.0' },
  helmAddon: { pattern: SEMVER_V, example: 'v0.6.2' },
  clusterApiOperator: { pattern: SEMVER, example: '0.28.0' },
  certManager: { pattern: SEMVER_V, example: 'v1.18.3' },
  kamajiChart: { pattern: /^\d+\.\d+\.\d+(\+[0-9A-Za-z.-]+)?$/, example: '0.0.0+latest' },
  kamajiImage: { pattern: /^(\d{2}\.\d{1,2}\.\d+-edge|edge-\d{2}\.\d{1,2}\.\d+)$/, example: '26.8.2-edge' },
  kamajiImageDigest: { pattern: /^sha256:[a-f0-9]{64}$/, example: 'sha256:<64 hex digits>' },
  kamajiEtcd: { pattern: SEMVER, example: '0.17.0' },
  etcd: { pattern: /^v3\.\d+\.\d+$/, example: 'v3.6.12' },
  metallb: { pattern: SEMVER, example: '0.15.3' },
  localpvProvisioner: { pattern: SEMVER, example: '4.1.1' },
  kubectl: { pattern: SEMVER_V, example: 'v1.34.3' },
  rclone: { pattern: SEMVER, example: '1.75.0' },
};

function majorMinor(version: string): { major: number; minor: number } | undefined {
  const m = /^v?(\d+)\.(\d+)\./.exec(version);
  return m ? { major: Number(m[1]), minor: Number(m[2]) } : undefined;
}

/** The contract a provider release implements, from its release series; undefined when unknown. */
export function contractOf(provider: CapiProvider, version: string): CapiContract | undefined {
  const mm = majorMinor(version);
  if (!mm) return undefined;
  return provider.releaseSeries.find((s) => s.major === mm.major && s.minor === mm.minor)?.contract;
}

/** The CAPI minor (e.g. "1.12") a provider release is built against; undefined when unknown. */
export function capiMinorOf(provider: CapiProvider, version: string): string | undefined {
  if (provider.repository === capiProviders[0].repository) {
    const mm = majorMinor(version);
    return mm ? `${mm.major}.${mm.minor}` : undefined;
  }
  return provider.builtAgainst[version];
}

function knownSeries(provider: CapiProvider): string {
  return provider.releaseSeries.map((s) => `${s.major}.${s.minor}`).join(', ');
}

/**
 * The version guard. Errors: a pin that says `latest` (except the Kamaji chart's only version), a
 * malformed version, a provider release whose contract is unknown or differs from the core's.
 * Warnings: a provider built against another CAPI minor than the core, a missing Kamaji digest,
 * an override whose CRDs pvekaas has not validated against.
 */
/** A provider release whose series its metadata.yaml does not list: its contract is unknown. */
function unknownContract(provider: (typeof capiProviders)[number], version: string): VersionFinding {
  return {
    severity: 'error',
    key: provider.versionKey,
    message: `cannot tell which CAPI contract ${provider.name} ${version} implements: its release series is not in ${provider.metadataFile} (known: ${knownSeries(provider)})`,
    fix: `add the metadata.yaml of ${provider.name} ${version} to the CRD tree (modules/versions/toolchain.json, key crds) and its release series to modules/versions, or use ${pinnedVersions[provider.versionKey]}`,
  };
}

export function checkVersions(versions: ManagementVersions): VersionFinding[] {
  const findings: VersionFinding[] = [];
  for (const key of versionKeys) {
    const value = versions[key];
    if (value === undefined) continue;
    if (/latest/i.test(value) && !(key === 'kamajiChart' && value === KAMAJI_CHART_LATEST)) {
      findings.push({
        severity: 'error',
        key,
        message: `${key} is "${value}": pins are never "latest" (the same description must install the same software every time)`,
        fix: `pin an exact version such as ${formats[key].example}`,
      });
      continue;
    }
    if (!formats[key].pattern.test(value)) {
      findings.push({ severity: 'error', key, message: `${key} "${value}" is not a version pvekaas can pin`, fix: `write it like ${formats[key].example}` });
    }
  }

  const core = capiProviders[0];
  const coreVersion = versions[core.versionKey] as string;
  const coreContract = contractOf(core, coreVersion);
  const coreMinor = capiMinorOf(core, coreVersion);
  if (coreContract === undefined) findings.push(unknownContract(core, coreVersion));
  for (const provider of capiProviders.slice(1)) {
    const version = versions[provider.versionKey] as string;
    const contract = contractOf(provider, version);
    if (contract === undefined) {
      findings.push(unknownContract(provider, version));
    } else if (coreContract !== undefined && contract !== coreContract) {
      const matching = provider.releaseSeries.filter((s) => s.contract === coreContract).map((s) => `${s.major}.${s.minor}`);
      findings.push({
        severity: 'error',
        key: provider.versionKey,
        message: `${provider.title} ${provider.name} ${version} implements CAPI contract ${contract}, but core ${core.name} ${coreVersion} implements ${coreContract}`,
        fix: matching.length > 0 ? `use a ${provider.name} release of series ${matching.join(', ')} (contract ${coreContract})` : `no known ${provider.name} release implements ${coreContract}; change the core version instead`,
      });
    }
    if (coreMinor === undefined || provider.kind === 'bootstrap') continue;
    const built = capiMinorOf(provider, version);
    if (built === undefined) {
      findings.push({
        severity: 'warning',
        key: provider.versionKey,
        message: `cannot tell which CAPI minor ${provider.name} ${version} is built against (not in modules/versions); the contract check passed, but check its go.mod against core ${coreMinor}`,
      });
    } else if (built !== coreMinor) {
      const known = provider.knownSkew?.[version];
      findings.push({
        severity: 'warning',
        key: provider.versionKey,
        message: known ?? `${provider.title} ${provider.name} ${version} is built against CAPI ${built} while core ${core.name} ${coreVersion} is ${coreMinor}; the contracts match, but this combination is not one pvekaas has checked`,
      });
    }
  }

  if (versions.kamajiImageDigest === undefined) {
    findings.push({ severity: 'warning', key: 'kamajiImageDigest', message: KAMAJI_DIGEST_NOTE });
  }
  const validatedAgainst: [VersionKey, string][] = [
    ['clusterApi', 'cluster-api v1.12.10'],
    ['kamajiProvider', 'the Kamaji provider v0.20.0'],
    ['proxmoxProvider', 'CAPMOX v0.9.0'],
    ['inClusterIpam', 'in-cluster IPAM v1.1.0'],
    ['helmAddon', 'CAAPH v0.6.2'],
    ['clusterApiOperator', 'cluster-api-operator v0.28.0'],
    ['kamajiImage', 'Kamaji 26.8.2-edge'],
    ['metallb', 'MetalLB v0.15.3'],
  ];
  for (const [key, crds] of validatedAgainst) {
    if (versions[key] !== pinnedVersions[key]) {
      findings.push({
        severity: 'warning',
        key,
        message: `${key} is overridden to ${versions[key]}; the manifests pvekaas renders are validated against the CRDs of ${crds} only`,
      });
    }
  }
  return findings;
}
