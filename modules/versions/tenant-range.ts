/**
 * The Kubernetes minors a tenant may run with the management plane a lab pins: the newest its Kamaji
 * accepts, and the workload-cluster range of its Cluster API core. A tenant outside that range is
 * refused at validate and synth (rule `versions.tenant-kubernetes`, modules/config/management-rules.ts);
 * whether the minor is still supported upstream (its end of life) is a warning, not a refusal
 * (./support.ts). These are facts keyed by release, each read from the release's source:
 *
 * - Kamaji: `internal/upgrade/kubeadm_version.go` of each Kamaji release, `KubeadmVersion`; its
 *   TenantControlPlane webhook (`internal/webhook/handlers/tcp_version.go`) refuses a control plane
 *   of a newer minor, on create and on upgrade. 26.8.2-edge: github.com/clastix/kamaji at
 *   ddbabd87ed0e8d7c319414383e153c46f21733a9 (crds/README.md), `KubeadmVersion = "v1.36.0"`; the
 *   lab twin plays the same webhook (twin/kamaji-rules.ts reads this table).
 * - Cluster API: the "Core provider" support table of `docs/book/src/reference/versions.md`
 *   ("Kubernetes versions support"; workload cluster column), read in sigs.k8s.io/cluster-api
 *   v1.13.6 (the newest table: v1.12.10's own stops at 1.35, since 1.36 came out after it): CAPI
 *   1.12 supports workload clusters of Kubernetes 1.29 ("only workload") to 1.36, 1.35 from
 *   v1.12.1 and 1.36 from v1.12.8; CAPI 1.13 supports 1.30 to 1.36, 1.36 from v1.13.1. The
 *   kubeadm bootstrap provider follows the same table (same page, "Kubeadm Bootstrap provider").
 */
import { majorMinor } from './providers';

/** A Kubernetes minor, `1.<minor>`. */
type Minor = string;

/** The workload-cluster minors one CAPI minor supports: `oldest`..`newest`, some only from a patch (`since`). */
export interface CapiWorkloadRange {
  readonly oldest: Minor;
  readonly newest: Minor;
  /** Kubernetes minor → the first CAPI patch of this minor that supports it (`✓ >= v1.12.8`). */
  readonly since: Readonly<Record<Minor, string>>;
}

/** By CAPI minor (`1.12`): CAPI's docs/book/src/reference/versions.md at v1.13.6 (above). */
export const capiWorkloadRanges: Readonly<Record<string, CapiWorkloadRange>> = {
  '1.12': { oldest: '1.29', newest: '1.36', since: { '1.35': 'v1.12.1', '1.36': 'v1.12.8' } },
  '1.13': { oldest: '1.30', newest: '1.36', since: { '1.36': 'v1.13.1' } },
};

/** By Kamaji image tag: its `KubeadmVersion` (internal/upgrade/kubeadm_version.go), the newest tenant minor it accepts. */
export const kamajiKubeadmVersions: Readonly<Record<string, string>> = {
  '26.8.2-edge': 'v1.36.0',
};

const parts = (minor: Minor): [number, number] => minor.split('.').map(Number) as [number, number];
const cmpMinor = (a: Minor, b: Minor): number => {
  const [am, an] = parts(a);
  const [bm, bn] = parts(b);
  return am - bm || an - bn;
};
const cmpPatch = (a: string, b: string): number => {
  const pa = a.replace(/^v/, '').split('.').map(Number);
  const pb = b.replace(/^v/, '').split('.').map(Number);
  return pa[0] - pb[0] || pa[1] - pb[1] || pa[2] - pb[2];
};
const minorOf = (version: string): Minor | undefined => {
  const mm = majorMinor(version);
  return mm ? `${mm.major}.${mm.minor}` : undefined;
};

/** One bound of the tenant range and who sets it. */
export interface RangeBound {
  readonly minor: Minor;
  /** `Kamaji 26.8.2-edge (KubeadmVersion v1.36.0)`, `CAPI v1.12.10`. */
  readonly by: string;
}

/**
 * The tenant minors the pinned (or overridden) Kamaji image and CAPI core support together, each
 * bound with who sets it; `unknown` lists the releases this table does not know (no bound from them).
 */
export interface TenantRange {
  readonly oldest?: RangeBound;
  readonly newest?: RangeBound;
  readonly unknown: string[];
}

export function tenantKubernetesRange(versions: { readonly clusterApi: string; readonly kamajiImage: string }): TenantRange {
  const unknown: string[] = [];
  const newest: RangeBound[] = [];
  let oldest: RangeBound | undefined;
  const kubeadm = kamajiKubeadmVersions[versions.kamajiImage];
  if (kubeadm === undefined) unknown.push(`Kamaji ${versions.kamajiImage}`);
  else newest.push({ minor: minorOf(kubeadm)!, by: `Kamaji ${versions.kamajiImage} (its KubeadmVersion is ${kubeadm})` });
  const capiMinor = minorOf(versions.clusterApi);
  const capi = capiMinor === undefined ? undefined : capiWorkloadRanges[capiMinor];
  if (capi === undefined) unknown.push(`CAPI ${versions.clusterApi}`);
  else {
    oldest = { minor: capi.oldest, by: `CAPI ${versions.clusterApi}` };
    // The newest minor this patch supports: a minor supported only from a later patch is not.
    let top = capi.newest;
    while (capi.since[top] !== undefined && cmpPatch(versions.clusterApi, capi.since[top]) < 0) {
      const [major, minor] = parts(top);
      top = `${major}.${minor - 1}`;
    }
    const later = top === capi.newest ? '' : ` (${capi.newest} only from ${capi.since[capi.newest]})`;
    newest.push({ minor: top, by: `CAPI ${versions.clusterApi}${later}` });
  }
  newest.sort((a, b) => cmpMinor(a.minor, b.minor));
  return { oldest, newest: newest[0], unknown };
}

/** Why `version` is outside `range`, or undefined when it is inside (or the version cannot be read). */
export function outsideTenantRange(range: TenantRange, version: string): string | undefined {
  const minor = minorOf(version);
  if (minor === undefined) return undefined;
  if (range.newest !== undefined && cmpMinor(minor, range.newest.minor) > 0) {
    return `Kubernetes ${minor} is newer than ${range.newest.by} supports (at most ${range.newest.minor})`;
  }
  if (range.oldest !== undefined && cmpMinor(minor, range.oldest.minor) < 0) {
    return `Kubernetes ${minor} is older than ${range.oldest.by} supports for a workload cluster (at least ${range.oldest.minor})`;
  }
  return undefined;
}

/** `1.29 to 1.36`, for a fix text. */
export function describeTenantRange(range: TenantRange): string {
  return `${range.oldest?.minor ?? '(no lower bound known)'} to ${range.newest?.minor ?? '(no upper bound known)'}`;
}
