/**
 * The pins: every version pvekaas installs or builds, read from the one table
 * (./toolchain.json, `components` for the management plane) and everything derived from it —
 * the CRD directories, the controllers' modules, the defaults of `management.versions`. A patch
 * bump is one line of the table (plus the CRDs it fetches); test/versions fails when a pinned
 * version is written a second time anywhere that neither derives it nor is a listed exception.
 *
 * Why each management-plane version (the table holds the numbers):
 * - clusterApi: the 1.12 patch the lab twin runs for real, the newest the Go module proxy serves
 *   (the patch CAPMOX's go.mod names, and the next one, are not served); CAPMOX requires CAPI 1.12,
 *   and the CRDs of 1.12.8-1.12.11 are byte-identical.
 * - kamajiProvider: the first release serving KamajiControlPlane v1alpha2 (contract v1beta2); built on CAPI 1.13.
 * - proxmoxProvider (CAPMOX, API v1alpha2), inClusterIpam: what CAPMOX is built and tested with.
 * - helmAddon: the last CAAPH release built on CAPI 1.12 (later ones moved to 1.13).
 * - clusterApiOperator: built on CAPI 1.12, accepts v1beta1 and v1beta2 providers.
 * - certManager: the newest release the Go module proxy serves (its chart and values.schema.json are in
 *   the module); 1.18, which the Kamaji docs install, is past its end of life (modules/versions/support.ts).
 * - kamajiChart + kamajiImage: Kamaji OSS publishes no versioned chart (its only version says
 *   "latest", the one pin allowed to); the edge image is the pin. kamajiImageDigest: NOT RECORDED,
 *   see `KAMAJI_DIGEST_NOTE`.
 * - kamajiEtcd (with its etcd image): the newest kamaji-etcd chart, installed as its own release so it
 *   is pinned independently of whatever the Kamaji chart bundles.
 * - metallb: the release whose CRDs come from its Go module (L2 only, FRR off).
 * - localpvProvisioner: OpenEBS LocalPV hostpath, the CSI for the datastore volumes (docs/management.md).
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
  /** The second Cluster API lane: core and kubeadm bootstrap of the next CAPI minor (`capiNextLane`). */
  readonly capiNext?: { readonly module: string; readonly version: string; readonly controllers: readonly string[]; readonly crds: string } & Record<
    string,
    unknown
  >;
}

/** One directory of the CRD tree, as scripts/toolchain lays it out. */
export type CrdSource = { readonly module: string; readonly version: string; readonly paths: readonly string[] } | { readonly committed: string };

const table = toolchain as unknown as ToolchainTable;

function row(t: ToolchainTable, name: string): ComponentPin {
  const r = t.components[name];
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
  // The second CAPI lane: its controllers' package, webhooks and role at the paths of the controllers
  // section, in the lane's module; its CRDs at the paths of its crds entry, beside the pinned ones.
  let capiNext: Record<string, unknown> | undefined;
  if (t.capiNext) {
    const n = t.capiNext;
    const fail = (m: string): never => {
      throw new Error(`modules/versions/toolchain.json: capiNext: ${m}`);
    };
    const entry = t.crds[n.crds];
    if (entry === undefined || typeof entry === 'string' || entry.committed || row(t, entry.component).module !== n.module)
      fail(`crds.${n.crds} is not the CRDs of ${n.module}`);
    const pick = (o: Readonly<Record<string, string>>, what: string) =>
      Object.fromEntries(n.controllers.map((name) => [name, o[name] ?? fail(`controllers.${what} has no ${name}`)]));
    const at = (spec: string) => {
      const [name, path] = spec.split(':');
      if (row(t, name).module !== n.module) fail(`${spec} is not a file of ${n.module}`);
      return `${n.module}@${n.version}/${path}`;
    };
    capiNext = {
      ...n,
      binaries: pick(t.controllers.binaries as Record<string, string>, 'binaries'),
      webhooks: mapValues(pick(t.controllers.webhooks, 'webhooks'), at),
      rbac: mapValues(pick(t.controllers.rbac, 'rbac'), at),
      crdDir: `${n.crds}/${n.version}`,
      cache: `capi-next-${n.module.split('/').pop()}-${n.version}`,
    };
    crds[`${n.crds}/${n.version}`] = { module: n.module, version: n.version, paths: (entry as { paths?: readonly string[] }).paths ?? [] };
  }
  return {
    ...t,
    ...(capiNext ? { capiNext } : {}),
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

/** The second Cluster API lane as scripts/toolchain lays it out (toolchain.json `capiNext`). */
export interface CapiNextLane {
  readonly module: string;
  readonly version: string;
  /** The controllers of the lane (capi-manager, kubeadm-bootstrap-manager). */
  readonly controllers: readonly string[];
  /** Its CRD directory in the CRD tree, beside the pinned one (`cluster-api/<version>`). */
  readonly crdDir: string;
  /** Its binaries, webhooks and roles: `.toolchain/controllers/<cache>/{bin,webhooks,rbac}`. */
  readonly cache: string;
}

/** The second CAPI lane, or undefined when the table has none. */
export function capiNextLane(t: ToolchainTable = table): CapiNextLane | undefined {
  const n = resolveToolchain(t).capiNext as CapiNextLane | undefined;
  return n ? { module: n.module, version: n.version, controllers: n.controllers, crdDir: n.crdDir, cache: n.cache } : undefined;
}

/**
 * The CRD directories a lab with these versions installs: the pinned ones, except that a lab on the
 * second CAPI lane's version takes that release's CRDs (the lane's directory) instead of the pinned
 * CAPI ones. Any other override keeps the pinned CRDs (the guard warns about it).
 */
export function crdDirsFor(versions: Pick<ManagementVersions, 'clusterApi'>): string[] {
  const lane = capiNextLane();
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
