/**
 * The Cluster API providers the CAPI operator installs, and what pvekaas knows about their
 * releases: the contract each release series implements (copied from the provider's clusterctl
 * `metadata.yaml`; test/versions checks the copy against the CRD tree that scripts/toolchain lays
 * out from the pinned modules) and the CAPI minor each release is built against (from its go.mod).
 * These are facts about releases, keyed by release: a bump to a release not listed here is refused
 * (contract unknown) or warned about (build unknown) by the version guard until it is added.
 */
import { crdDirOf, type VersionKey } from './pins';

/** A Cluster API contract version, as written in metadata.yaml. */
export type CapiContract = 'v1beta1' | 'v1beta2';

/** One row of a provider's metadata.yaml: a release series and the contract it implements. */
export interface ReleaseSeries {
  readonly major: number;
  readonly minor: number;
  readonly contract: CapiContract;
}

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
  /** From the provider's metadata.yaml (file path relative to the CRD tree, scripts/lib/crd-tree.ts `crdsDir`). */
  readonly releaseSeries: readonly ReleaseSeries[];
  readonly metadataFile: string;
  /** CAPI minor each known release is built against (its go.mod `sigs.k8s.io/cluster-api`). */
  readonly builtAgainst: Readonly<Record<string, string>>;
  /** Why a known build skew is harmless: release → core CAPI minor → why. */
  readonly knownSkew?: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** CRDs of the pinned version, relative to the CRD tree. */
  readonly crdDir?: string;
}

const series = (major: number, contracts: Record<number, CapiContract>): ReleaseSeries[] =>
  Object.entries(contracts).map(([minor, contract]) => ({ major, minor: Number(minor), contract }));

/**
 * Where the core's release series are read from: the pinned CAPI metadata.yaml (v1.13's lists series
 * 1.13 and every older one; the previous lane's v1.12 file predates 1.13).
 */
const capiMetadataDir = crdDirOf('clusterApi');

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
    releaseSeries: series(1, { ...range(0, 10, 'v1beta1'), 11: 'v1beta2', 12: 'v1beta2', 13: 'v1beta2' }),
    metadataFile: `${capiMetadataDir}/metadata.yaml`,
    builtAgainst: {},
    crdDir: crdDirOf('clusterApi'),
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
    releaseSeries: series(1, { ...range(0, 10, 'v1beta1'), 11: 'v1beta2', 12: 'v1beta2', 13: 'v1beta2' }),
    metadataFile: `${capiMetadataDir}/metadata.yaml`,
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
    metadataFile: `${crdDirOf('kamajiProvider')}/metadata.yaml`,
    builtAgainst: { 'v0.16.0': '1.10', 'v0.17.0': '1.10', 'v0.18.0': '1.11', 'v0.19.0': '1.11', 'v0.20.0': '1.13' },
    knownSkew: {
      'v0.20.0': {
        '1.12':
          'known and contract-compatible: Kamaji provider v0.20.0 is built on CAPI 1.13.2 while the core is 1.12 (the previous CAPI lane); both implement contract v1beta2. ' +
          'No Kamaji provider release is built on CAPI 1.12 (v0.19.0, the last v1beta1-contract release, is built on 1.11), and v0.20.0 is the first to serve KamajiControlPlane v1alpha2',
      },
    },
    crdDir: crdDirOf('kamajiProvider'),
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
    metadataFile: `${crdDirOf('proxmoxProvider')}/metadata.yaml`,
    builtAgainst: { 'v0.9.0': '1.12' },
    knownSkew: {
      'v0.9.0': {
        '1.13':
          'known and contract-compatible: CAPMOX v0.9.0 is built on CAPI 1.12 (its go.mod) while the core is 1.13; both implement contract v1beta2. ' +
          'The lab twin runs exactly this: core and kubeadm bootstrap 1.13 beside CAPMOX v0.9.0 built on 1.12 (every twin suite; it does not compile against the graph of CAPI 1.13), and a running lab moved from 1.12 to 1.13 (test/twin/capi-upgrade.test.ts)',
      },
    },
    crdDir: crdDirOf('proxmoxProvider'),
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
    metadataFile: `${crdDirOf('inClusterIpam')}/metadata.yaml`,
    builtAgainst: { 'v1.1.0': '1.11' },
    knownSkew: {
      'v1.1.0': {
        '1.12':
          'known and contract-compatible: in-cluster IPAM v1.1.0 is built on CAPI 1.11.2 while the core is 1.12; both implement contract v1beta2, ' +
          'and CAPMOX v0.9.0 is built and tested against exactly this release on CAPI 1.12',
        '1.13':
          'known and contract-compatible: in-cluster IPAM v1.1.0 is built on CAPI 1.11.2 while the core is 1.13; both implement contract v1beta2. ' +
          'CAPMOX v0.9.0 is tested upstream with this release on CAPI 1.12; the lab twin runs it built on CAPI 1.12 (it does not compile against the graph of 1.13) beside core 1.13 (every twin suite)',
      },
    },
    crdDir: crdDirOf('inClusterIpam'),
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
    metadataFile: `${crdDirOf('helmAddon')}/metadata.yaml`,
    builtAgainst: { 'v0.6.2': '1.12', 'v0.6.3': '1.13', 'v0.6.4': '1.13' },
    knownSkew: {
      'v0.6.2': {
        '1.13':
          'contract-compatible, not run for real: CAAPH v0.6.2 is built on CAPI 1.12 while the core is 1.13; both implement contract v1beta2. ' +
          'The lab twin plays CAAPH (twin/caaph.ts), so this pair is not one a real CAAPH ran here; CAAPH v0.6.3 and later are built on 1.13',
      },
    },
    crdDir: crdDirOf('helmAddon'),
  },
];

export function majorMinor(version: string): { major: number; minor: number } | undefined {
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
