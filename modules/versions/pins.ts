/**
 * The pins: every version pvekaas installs or builds, read from the one table
 * (./toolchain.json, `components` for the management plane) and everything derived from it —
 * the CRD directories, the controllers' modules, the defaults of `management.versions`. A patch
 * bump is one line of the table (plus the CRDs it fetches); test/versions fails when a pinned
 * version is written a second time anywhere that neither derives it nor is a listed exception.
 *
 * Why each management-plane version (the table holds the numbers):
 * - clusterApi: the newest 1.13 patch the Go module proxy serves. 1.12 reaches its end of life with
 *   the release of 1.15 (scheduled 2026-12-08), when 1.13 enters maintenance (./support.ts, the
 *   release calendar); 1.14 is served only as a module this environment does not approve
 *   (sigs.k8s.io/cluster-api/api 1.14). The lab twin builds its core and kubeadm bootstrap alone
 *   (toolchain.json capiCore): the pinned CAPMOX and in-cluster IPAM do not compile against its graph
 *   (controller-runtime 0.23), so they are built with the previous minor, as released.
 * - capiPrevious (toolchain.json, not a `management.versions` default): the newest 1.12 patch the
 *   proxy serves (the patch CAPMOX's go.mod names, and the next one, are not), the former default,
 *   kept as the "from" side of the move (docs/management.md) and as the CAPI of the providers' graph.
 * - kamajiProvider: the first release serving KamajiControlPlane v1alpha2 (contract v1beta2); built on CAPI 1.13.
 * - proxmoxProvider (CAPMOX, API v1alpha2), inClusterIpam: what CAPMOX is built and tested with
 *   (its go.mod: CAPI 1.12 and this IPAM release); contract v1beta2 like CAPI 1.13.
 * - helmAddon: the last CAAPH release built on CAPI 1.12 (later ones are built on 1.13, the default
 *   now; not moved with it: its CRDs are committed at this release and the twin plays its source).
 * - clusterApiOperator: built on CAPI 1.12, accepts v1beta1 and v1beta2 providers at any CAPI minor.
 * - certManager: the newest release the Go module proxy serves (its chart and values.schema.json are in
 *   the module); 1.18, which the Kamaji docs install, is past its end of life (modules/versions/support.ts).
 * - kamajiChart + kamajiImage: Kamaji OSS publishes no versioned chart (its only version says
 *   "latest", the one pin allowed to); the edge image is the pin. kamajiImageDigest: NOT RECORDED,
 *   see `KAMAJI_DIGEST_NOTE`.
 * - kamajiEtcd (with its etcd image): the newest kamaji-etcd chart, installed as its own release so it
 *   is pinned independently of whatever the Kamaji chart bundles.
 * - metallb: the release whose CRDs come from its Go module (L2 only, FRR off).
 * - localPathProvisioner: Rancher local-path-provisioner, the default CSI for the datastore volumes
 *   (`datastore.csi: local-path`): the newest release the Go module proxy serves (v0.0.34 and v0.0.35
 *   are refused), whose module carries its chart (toolchain.json `charts`), rendered in the kube tier.
 * - localpvProvisioner: OpenEBS LocalPV hostpath (`datastore.csi: openebs-localpv`), kept for labs
 *   deployed with it; its chart's module is not served, so the kube tier does not render it (docs/management.md).
 * - kubectl (provider readiness Job), rclone (datastore backup upload).
 */
import toolchain from './toolchain.json';

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
  'localPathProvisioner',
  'kubectl',
  'rclone',
] as const;
export type VersionKey = (typeof versionKeys)[number];
/** A management-plane component of the table (every version key but the digest). */
export type ComponentKey = Exclude<VersionKey, 'kamajiImageDigest'>;

/** The effective versions of one lab: the pins with the lab's overrides applied. */
export type ManagementVersions = { readonly [K in ComponentKey]: string } & {
  /** `sha256:<64 hex>` of the Kamaji image; undefined when no digest is recorded. */
  readonly kamajiImageDigest?: string;
};

/** One row of the table. */
export interface ComponentPin {
  readonly version: string;
  /** The Go module its CRDs or controller come from. */
  readonly module?: string;
}

/** toolchain.json as written: components by name, the sections that refer to them. */
export interface ToolchainTable {
  readonly components: Readonly<Record<string, ComponentPin | string>>;
  readonly providers: Readonly<Record<string, { readonly version: string; readonly moduleVersion?: string } & Record<string, unknown>>>;
  readonly kubernetes: {
    readonly version: string;
    readonly staging: readonly string[];
    readonly godebug?: readonly string[];
    /** The other minors a tenant control plane runs in the lab twin, each at its pinned patch (toolchain.json `kubernetes.tenantMinors`). */
    readonly tenantMinors?: readonly { readonly version: string; readonly staging: readonly string[]; readonly godebug?: readonly string[] }[];
  } & Record<string, unknown>;
  readonly controllers: {
    readonly modules: readonly string[];
    readonly webhooks: Readonly<Record<string, string>>;
    readonly rbac: Readonly<Record<string, string>>;
  } & Record<string, unknown>;
  readonly crds: Readonly<Record<string, { readonly component: string; readonly paths?: readonly string[]; readonly committed?: boolean } | string>>;
  /** The previous Cluster API minor (`capiPreviousLane`): its version, module and CRDs; the providers' graph is built with it. */
  readonly capiPrevious?: { readonly module: string; readonly version: string; readonly crds: string } & Record<string, unknown>;
  /** Core and kubeadm bootstrap of the default Cluster API, built alone (`capiCoreBuild`). */
  readonly capiCore?: { readonly component: string; readonly controllers: readonly string[] } & Record<string, unknown>;
}

/** One directory of the CRD tree, as scripts/toolchain lays it out. */
export type CrdSource = { readonly module: string; readonly version: string; readonly paths: readonly string[] } | { readonly committed: string };

const table = toolchain as unknown as ToolchainTable;

/** A row: a component, or `capiPrevious` (the previous CAPI minor, which the providers' graph is built with). */
function row(t: ToolchainTable, name: string): ComponentPin {
  const r = name === 'capiPrevious' ? t.capiPrevious : t.components[name];
  if (r === undefined || typeof r === 'string')
    throw new Error(`modules/versions/toolchain.json: no component ${name} (components lists ${Object.keys(t.components).join(', ')})`);
  return r;
}

/** A component's Go module version: its version with a leading `v`. */
function moduleVersionOf(t: ToolchainTable, name: string): string {
  const { version } = row(t, name);
  return version.startsWith('v') ? version : `v${version}`;
}

/** `component:path` of the table → `module@version/path`. */
function inModule(t: ToolchainTable, spec: string): string {
  const [name, path] = spec.split(':');
  return `${row(t, name).module}@${moduleVersionOf(t, name)}/${path}`;
}

/** `v0.<minor>.<patch>`: the staging modules' version of a k8s.io/kubernetes release. */
const stagingOf = (version: string) => `v0.${version.split('.').slice(1).join('.')}`;

const mapValues = <T, U>(o: Readonly<Record<string, T>>, f: (v: T) => U): Record<string, U> => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, f(v)]));

/**
 * The table with every derived value written out — what scripts/toolchain's resolver prints
 * (`scripts/toolchain pins`; test/versions checks the two agree): controllers' modules and files as
 * module@version, CRD directories `<name>/<tag>`, staging and plugin module versions.
 */
export function resolveToolchain(t: ToolchainTable = table) {
  const crds: Record<string, CrdSource> = {};
  for (const [name, entry] of Object.entries(t.crds)) {
    if (typeof entry === 'string') continue; // a "//" comment
    if (entry.committed) crds[`${name}/${row(t, entry.component).version}`] = { committed: `crds/${name}/${row(t, entry.component).version}` };
    else
      crds[`${name}/${moduleVersionOf(t, entry.component)}`] = {
        module: row(t, entry.component).module!,
        version: moduleVersionOf(t, entry.component),
        paths: entry.paths ?? [],
      };
  }
  const fail = (m: string): never => {
    throw new Error(`modules/versions/toolchain.json: ${m}`);
  };
  // The previous CAPI minor: its CRDs at the paths of its crds entry, beside the pinned ones.
  let capiPrevious: Record<string, unknown> | undefined;
  if (t.capiPrevious) {
    const n = t.capiPrevious;
    const entry = t.crds[n.crds];
    if (entry === undefined || typeof entry === 'string' || entry.committed || row(t, entry.component).module !== n.module)
      fail(`capiPrevious: crds.${n.crds} is not the CRDs of ${n.module}`);
    capiPrevious = { ...n, crdDir: `${n.crds}/${n.version}` };
    crds[`${n.crds}/${n.version}`] = { module: n.module, version: n.version, paths: (entry as { paths?: readonly string[] }).paths ?? [] };
  }
  // The default core: its controllers' package, webhooks and role at the paths of the controllers
  // section, in its component's module at the pinned version.
  let capiCore: Record<string, unknown> | undefined;
  if (t.capiCore) {
    const n = t.capiCore;
    const module = row(t, n.component).module!;
    const version = moduleVersionOf(t, n.component);
    const pick = (o: Readonly<Record<string, string>>, what: string) =>
      Object.fromEntries(n.controllers.map((name) => [name, o[name] ?? fail(`capiCore: controllers.${what} has no ${name}`)]));
    const at = (spec: string) => {
      const [name, path] = spec.split(':');
      if (row(t, name).module !== module) fail(`capiCore: ${spec} is not a file of ${module}`);
      return `${module}@${version}/${path}`;
    };
    capiCore = {
      ...n,
      module,
      version,
      binaries: pick(t.controllers.binaries as Record<string, string>, 'binaries'),
      webhooks: mapValues(pick(t.controllers.webhooks, 'webhooks'), at),
      rbac: mapValues(pick(t.controllers.rbac, 'rbac'), at),
      cache: `capi-core-${module.split('/').pop()}-${version}`,
    };
  }
  return {
    ...t,
    ...(capiPrevious ? { capiPrevious } : {}),
    ...(capiCore ? { capiCore } : {}),
    providers: mapValues(t.providers, (p) => ({ ...p, moduleVersion: p.moduleVersion ?? `v${p.version}` })),
    kubernetes: {
      ...t.kubernetes,
      stagingVersion: stagingOf(t.kubernetes.version),
      // Every minor a tenant control plane may run, keyed by its pinned patch (scripts/toolchain builds kube-<version>).
      minors: Object.fromEntries(
        [t.kubernetes, ...(t.kubernetes.tenantMinors ?? [])].map((m) => [
          m.version,
          { version: m.version, staging: m.staging, stagingVersion: stagingOf(m.version), godebug: m.godebug ?? [] },
        ]),
      ),
    },
    controllers: {
      ...t.controllers,
      modules: Object.fromEntries(t.controllers.modules.map((name) => [row(t, name).module!, moduleVersionOf(t, name)])),
      webhooks: mapValues(t.controllers.webhooks, (spec) => inModule(t, spec)),
      rbac: mapValues(t.controllers.rbac, (spec) => inModule(t, spec)),
    },
    crds,
  };
}

/** The pinned defaults of `management.versions`, one per row of the table's components. */
export const pinnedVersions: ManagementVersions = {
  ...(Object.fromEntries(versionKeys.filter((k) => k !== 'kamajiImageDigest').map((k) => [k, row(table, k).version])) as { [K in ComponentKey]: string }),
  kamajiImageDigest: undefined,
};

/** The CRD directory (relative to the CRD tree) of a component, when the tree holds its CRDs. */
export function crdDirOf(component: ComponentKey): string | undefined {
  for (const [name, entry] of Object.entries(table.crds)) {
    if (typeof entry === 'string' || entry.component !== component) continue;
    return `${name}/${entry.committed ? row(table, component).version : moduleVersionOf(table, component)}`;
  }
  return undefined;
}

/** Which component each CRD directory of the tree belongs to. */
export function crdComponents(): { component: ComponentKey; dir: string }[] {
  return Object.values(table.crds)
    .filter((e): e is { component: string } => typeof e !== 'string')
    .map((e) => ({ component: e.component as ComponentKey, dir: crdDirOf(e.component as ComponentKey)! }));
}

/** The previous Cluster API minor (toolchain.json `capiPrevious`): the "from" side of the move to the default. */
export interface CapiPreviousLane {
  readonly module: string;
  readonly version: string;
  /** Its CRD directory in the CRD tree, beside the pinned one (`cluster-api/<version>`). */
  readonly crdDir: string;
}

/** The previous CAPI minor, or undefined when the table has none. Its core and kubeadm bootstrap are the controllers section's build. */
export function capiPreviousLane(t: ToolchainTable = table): CapiPreviousLane | undefined {
  const n = resolveToolchain(t).capiPrevious as CapiPreviousLane | undefined;
  return n ? { module: n.module, version: n.version, crdDir: n.crdDir } : undefined;
}

/** A build of CAPI controllers apart from the controllers section's: the default core (toolchain.json `capiCore`). */
export interface CapiCoreBuild {
  readonly module: string;
  readonly version: string;
  /** Its controllers (capi-manager, kubeadm-bootstrap-manager). */
  readonly controllers: readonly string[];
  /** Its binaries, webhooks and roles: `.toolchain/controllers/<cache>/{bin,webhooks,rbac}`. */
  readonly cache: string;
}

/** The default core's own build, or undefined when the table has none. */
export function capiCoreBuild(t: ToolchainTable = table): CapiCoreBuild | undefined {
  const n = resolveToolchain(t).capiCore as CapiCoreBuild | undefined;
  return n ? { module: n.module, version: n.version, controllers: n.controllers, cache: n.cache } : undefined;
}

/**
 * The CRD directories a lab with these versions installs: the pinned ones, except that a lab on the
 * previous CAPI lane's version takes that release's CRDs (the lane's directory) instead of the pinned
 * CAPI ones. Any other override keeps the pinned CRDs (the guard warns about it).
 */
export function crdDirsFor(versions: Pick<ManagementVersions, 'clusterApi'>): string[] {
  const lane = capiPreviousLane();
  const dirs = crdComponents().map((c) => (c.component === 'clusterApi' && lane && versions.clusterApi === lane.version ? lane.crdDir : c.dir));
  return [...new Set(dirs)].sort();
}

/** The controllers the lab twin builds: module → version (toolchain.json `controllers.modules`, resolved). */
export function controllerModules(): Record<string, string> {
  return resolveToolchain().controllers.modules;
}

/**
 * Why `kamajiImageDigest` is empty: the digest of the pinned Kamaji edge image could not be read
 * from a registry while pinning (no registry access), and no published source records it. Until
 * it is filled in, the image is pinned by its edge tag only and every synth warns.
 */
export const KAMAJI_DIGEST_NOTE = 'the Kamaji image is pinned by tag only: no digest is recorded for it';

/** The Kamaji chart's only published version; the one pin allowed to say "latest". */
export const KAMAJI_CHART_LATEST = '0.0.0+latest';
