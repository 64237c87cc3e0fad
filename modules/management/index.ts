/**
 * Everything the management plane becomes, as plain data: the pure half of the `management` and
 * `management-config` stacks, beside the tenant rendering (modules/tenants). `renderManagement`
 * resolves the versions, runs the version guard (errors are refused, warnings returned), and
 * computes every release's values, namespace and image; the stacks only wire the result into
 * resources and their dependencies. Pure: no cdktf, no I/O.
 */
import { ProblemError, type Problem } from '../config/problems';
import type { Lab, Management } from '../config/schema';
import {
  capiSupportFinding,
  componentSupport,
  describeSupport,
  imageRef,
  kubernetesSupport,
  managementImages,
  resolveVersions,
  seriesOf,
  supportOf,
  supportedKubernetesMinors,
  type ManagementVersions,
  type VersionKey,
} from '../versions';
import { pinnedVersions } from '../versions/pins';
import { versionGuard } from '../versions/lab-guard';
import { outsideTenantRange, tenantKubernetesRange } from '../versions/tenant-range';
import { KAMAJI_ETCD_FULLNAME, managementNamespaces, providerNamespaces } from '../versions/layout';
import { autoscalerImageTags, autoscalerWithoutScaleToZero } from '../versions/cni';
import { mirroredImage, type Mirror } from '../versions/mirror';
import { capmoxGlobalCredentials } from './capmox-global-credentials';
import {
  capiOperatorValues,
  capiProviderResources,
  certManagerValues,
  kamajiEtcdValues,
  kamajiValues,
  localPathValues,
  localpvValues,
  metallbValues,
  type ManagementSettings,
} from './chart-values';

/** Pod Security admission labels for namespaces whose pods need host access (MetalLB speaker, the LocalPV and local-path helper pods' hostPath). */
const PRIVILEGED = {
  'pod-security.kubernetes.io/enforce': 'privileged',
  'pod-security.kubernetes.io/audit': 'privileged',
  'pod-security.kubernetes.io/warn': 'privileged',
};

/**
 * End-of-life warnings on `today` (`YYYY-MM-DD`, passed in by the command): each tenant whose
 * Kubernetes minor is past its end of life or reaches it within 30 days, and each management-plane
 * component with a published support window likewise (modules/versions/support.ts has the dates and
 * their sources). Warnings only: a lab past a date still synthesizes the same bytes.
 */
export function supportWarnings(lab: Pick<Lab, 'management' | 'tenants'>, today: string): Problem[] {
  const warnings: Problem[] = [];
  // Supported on the day and runnable by the lab's Kamaji and CAPI (a newer minor is refused, not a fix).
  const range = tenantKubernetesRange(resolveVersions((lab.management.versions ?? {}) as Partial<Record<VersionKey, string>>));
  const supported = supportedKubernetesMinors(today).filter((minor) => outsideTenantRange(range, `v${minor}.0`) === undefined);
  lab.tenants.forEach((tenant, i) => {
    const finding = supportOf(kubernetesSupport, tenant.kubernetesVersion, today);
    if (finding === undefined) return;
    warnings.push({
      path: ['tenants', i, 'kubernetesVersion'],
      message: `tenant ${tenant.name}: ${describeSupport('Kubernetes', finding)} (as of ${today})`,
      value: tenant.kubernetesVersion,
      fix: `upgrade one minor at a time (npm run upgrade-plan) to a supported minor: ${supported.join(', ')}`,
      severity: 'warning',
    });
  });
  // A pool that may scale to 0 on a minor whose autoscaler cannot (modules/versions/cni.ts).
  lab.tenants.forEach((tenant, i) => {
    const minor = seriesOf(tenant.kubernetesVersion);
    if (minor === undefined || !autoscalerWithoutScaleToZero.has(minor)) return;
    tenant.pools.forEach((pool, j) => {
      if (pool.autoscaling?.min !== 0) return;
      warnings.push({
        path: ['tenants', i, 'pools', j, 'autoscaling', 'min'],
        message: `tenant ${tenant.name}, pool ${pool.name}: the cluster-autoscaler for Kubernetes ${minor} (${autoscalerImageTags[minor]}) cannot scale a Cluster API node group to 0 (kubernetes/autoscaler#8412, fixed in 1.33.1, not backported): the pool keeps at least one machine`,
        value: 0,
        fix: 'upgrade the tenant to Kubernetes 1.33 or later (npm run upgrade-plan), or set autoscaling.min to 1 to say what it will do',
        severity: 'warning',
      });
    });
  });
  const overrides = lab.management.versions as Partial<Record<VersionKey, string>>;
  const versions = resolveVersions(overrides);
  for (const key of Object.keys(componentSupport) as (keyof typeof componentSupport)[]) {
    const version = versions[key];
    if (version === undefined) continue;
    const finding = supportOf(componentSupport[key], version, today);
    if (finding === undefined) continue;
    if (overrides[key] !== undefined) {
      warnings.push({
        path: ['management', 'versions', key],
        message: `${key} ${version}: ${describeSupport(key, finding)} (as of ${today})`,
        value: version,
        fix: `pin a supported ${key} release in management.versions.${key}, or remove the override to take pvekaas's pin`,
        severity: 'warning',
      });
      continue;
    }
    warnings.push({
      path: ['management', 'versions', key],
      message: `its pinned ${key} ${version}: ${describeSupport(key, finding)} (as of ${today})`,
      fix: `a newer pvekaas pins a newer ${key}; nothing in the lab description causes it`,
      severity: 'warning',
      origin: 'pvekaas',
    });
  }
  const capi = capiSupportWarning(versions.clusterApi, overrides.clusterApi !== undefined, today);
  if (capi) warnings.push(capi);
  return warnings;
}

/** Where the operator's move of a running lab to pvekaas's Cluster API is written. */
export const CAPI_MOVE_DOC = 'docs/management.md, "Moving from Cluster API 1.12 to 1.13"';

/**
 * The Cluster API phase of the lab's core on `today` from the release calendar
 * (modules/versions/support.ts `capiSupportFinding`): end of life, within SOON_DAYS of it, or
 * maintenance mode, said as a warning with the move as its fix; nothing in standard support. A
 * warning, not a refusal: the release still runs, and a lab on it must stay deployable to move.
 */
export function capiSupportWarning(version: string, overridden: boolean, today: string): Problem | undefined {
  const finding = capiSupportFinding(version, today);
  if (finding === undefined) return undefined;
  const pinned = pinnedVersions.clusterApi;
  if (!overridden)
    return {
      path: ['management', 'versions', 'clusterApi'],
      message: `its pinned clusterApi ${version}: ${finding.message} (as of ${today})`,
      fix: 'a newer pvekaas pins a newer Cluster API; nothing in the lab description causes it',
      severity: 'warning',
      origin: 'pvekaas',
    };
  // The move names pvekaas's default only when it is a newer minor that is not itself past its end.
  const minor = (v: string) => Number(seriesOf(v)?.split('.')[1] ?? -1);
  const newer = minor(pinned) > minor(version) && capiSupportFinding(pinned, today)?.phase !== 'end-of-life';
  const move = newer
    ? `move to pvekaas's default ${pinned}: remove management.versions.clusterApi (or set it to ${pinned}) and deploy the management stack, then the rest as written in ${CAPI_MOVE_DOC}`
    : version === pinned
      ? "it is pvekaas's default; a newer pvekaas pins a newer Cluster API"
      : "remove the management.versions.clusterApi override to take pvekaas's pin";
  return {
    path: ['management', 'versions', 'clusterApi'],
    message: `clusterApi ${version}: ${finding.message} (as of ${today})`,
    value: version,
    fix: finding.phase === 'maintenance' ? `plan the move: ${move}` : move,
    severity: 'warning',
  };
}

export interface NamespaceRendering {
  readonly name: string;
  readonly labels: Record<string, string>;
}

export interface ReleaseRendering {
  readonly values: Record<string, unknown>;
}

/** The `management` stack, as data. */
export interface ManagementRendering {
  /** The effective versions (pins + the lab's overrides). */
  readonly versions: ManagementVersions;
  /** The version guard's warnings (the stack adds them as synth annotations). */
  readonly warnings: Problem[];
  /** How Terraform reaches the management cluster. */
  readonly access: Management['kubernetes'];
  readonly mirror?: Mirror;
  /** The namespaces of the management components; `storage` only with the OpenEBS LocalPV CSI, `localPath` only with local-path. */
  readonly namespaces: {
    readonly certManager: NamespaceRendering;
    readonly capiOperator: NamespaceRendering;
    readonly kamaji: NamespaceRendering;
    readonly metallb: NamespaceRendering;
    readonly storage?: NamespaceRendering;
    readonly localPath?: NamespaceRendering;
  };
  /** One namespace per Cluster API provider, by provider kind. */
  readonly providerNamespaces: Record<keyof typeof providerNamespaces, NamespaceRendering>;
  /** The values of each Helm release; `localpvProvisioner` only with the OpenEBS LocalPV CSI, `localPathProvisioner` only with local-path. */
  readonly values: {
    readonly certManager: Record<string, unknown>;
    readonly localpvProvisioner?: Record<string, unknown>;
    readonly localPathProvisioner?: Record<string, unknown>;
    readonly metallb: Record<string, unknown>;
    readonly kamaji: Record<string, unknown>;
    readonly kamajiEtcd: Record<string, unknown>;
    readonly clusterApiOperator: Record<string, unknown>;
  };
  /** The Job that waits for the operator's providers: the providers it awaits and its kubectl image. */
  readonly providersReady: {
    readonly namespace: string;
    readonly kubectlImage: string;
    readonly providers: { resource: string; name: string; namespace: string; version: string }[];
  };
  /** capmox.multiInstance secondary-clusters: the static control plane's CRD and RBAC are installed. */
  readonly staticControlPlane: boolean;
  /** The kamaji-etcd backup CronJob, when the lab asks for one. */
  readonly backup?: {
    readonly namespace: string;
    readonly etcdName: string;
    readonly clusterDomain: string;
    readonly target: NonNullable<Management['datastore']['backup']>;
    readonly etcdImage: string;
    readonly rcloneImage: string;
  };
}

function namespace(name: string, labels: Record<string, string> = {}): NamespaceRendering {
  return { name, labels: { 'app.kubernetes.io/managed-by': 'pvekaas', ...labels } };
}

/**
 * The management plane of a lab. Throws one `ProblemError` when the version guard refuses the
 * versions, or when CAPMOX would be installed with global credentials (which override every
 * tenant's credentialsRef).
 */
export function renderManagement(lab: Pick<Lab, 'management' | 'capmox'>): ManagementRendering {
  const management = lab.management;
  const guard = versionGuard(lab);
  if (guard.problems.length > 0) throw new ProblemError(guard.problems, { title: 'management: the version guard refuses this combination' });
  const { versions } = guard;
  const settings: ManagementSettings = { management, versions };
  const mirror = management.mirror;
  const providers = capiProviderResources(settings);
  // Every tenant's ProxmoxCluster (and secondary Cluster) uses its instance's credentialsRef, which
  // CAPMOX ignores once it has global credentials: never install it with any.
  const globalCredentials = capmoxGlobalCredentials(providers);
  if (globalCredentials.length > 0) {
    throw new ProblemError(
      globalCredentials.map((message) => ({
        path: ['management'],
        message,
        fix: 'give CAPMOX no configSecret and no PROXMOX_* variables',
        rule: 'management.capmox-global-credentials',
      })),
      { title: 'management: CAPMOX must run without global credentials' },
    );
  }
  const localpv = management.datastore.csi === 'openebs-localpv';
  const localPath = management.datastore.csi === 'local-path';
  const images = managementImages(versions);
  const backup = management.datastore.backup;
  return {
    versions,
    warnings: guard.warnings,
    access: management.kubernetes,
    ...(mirror ? { mirror } : {}),
    namespaces: {
      certManager: namespace(managementNamespaces.certManager),
      capiOperator: namespace(managementNamespaces.capiOperator),
      kamaji: namespace(managementNamespaces.kamaji),
      metallb: namespace(managementNamespaces.metallb, PRIVILEGED),
      ...(localpv ? { storage: namespace(managementNamespaces.storage, PRIVILEGED) } : {}),
      ...(localPath ? { localPath: namespace(managementNamespaces.localPath, PRIVILEGED) } : {}),
    },
    providerNamespaces: Object.fromEntries(Object.entries(providerNamespaces).map(([kind, name]) => [kind, namespace(name)])) as Record<
      keyof typeof providerNamespaces,
      NamespaceRendering
    >,
    values: {
      certManager: certManagerValues(settings),
      ...(localpv ? { localpvProvisioner: localpvValues(settings) } : {}),
      ...(localPath ? { localPathProvisioner: localPathValues(settings) } : {}),
      metallb: metallbValues(settings),
      kamaji: kamajiValues(settings),
      kamajiEtcd: kamajiEtcdValues(settings),
      clusterApiOperator: capiOperatorValues(settings),
    },
    providersReady: {
      namespace: managementNamespaces.capiOperator,
      kubectlImage: imageRef(mirroredImage(images.tools.kubectl, mirror)),
      providers: providers.map((r) => ({
        resource: `${r.kind.toLowerCase()}s`,
        name: r.metadata.name,
        namespace: r.metadata.namespace!,
        version: String(r.spec?.version),
      })),
    },
    staticControlPlane: lab.capmox.multiInstance === 'secondary-clusters',
    ...(backup
      ? {
          backup: {
            namespace: managementNamespaces.kamaji,
            etcdName: KAMAJI_ETCD_FULLNAME,
            clusterDomain: management.clusterDomain,
            target: backup,
            etcdImage: imageRef(mirroredImage(images.kamajiEtcd.etcd, mirror)),
            rcloneImage: imageRef(mirroredImage(images.tools.rclone, mirror)),
          },
        }
      : {}),
  };
}
