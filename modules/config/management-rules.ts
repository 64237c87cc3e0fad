/**
 * Rules about `management:` that relate several fields or need the version table: the version
 * guard's errors (contract mismatches, `latest`, malformed pins; `versionGuard` in
 * modules/management) at the path of the override that caused them, and mirror settings that only make sense together. Version warnings (build skew,
 * missing digest) are not problems; the management stack reports them at synth.
 */
import { versionGuard } from '../versions/lab-guard';
import { resolveVersions } from '../versions/guard';
import type { VersionKey } from '../versions/pins';
import { describeTenantRange, outsideTenantRange, tenantKubernetesRange, type TenantRange } from '../versions/tenant-range';
import { autoscalerImageTags } from '../versions/cni';
import { seriesOf } from '../versions/support';
import type { Problem } from './problems';
import type { Lab } from './schema';
import { runRules, type LabRule } from './rule';

const QUANTITY = /^(\d+)(Mi|Gi|Ti)$/;
const MiB: Record<string, number> = { Mi: 1, Gi: 1024, Ti: 1024 * 1024 };

/** Size in MiB of a quantity such as `10Gi`. */
export function quantityMiB(quantity: string): number | undefined {
  const m = QUANTITY.exec(quantity);
  return m ? Number(m[1]) * MiB[m[2]] : undefined;
}

/** The minors of `range` a tenant may run: with autoscaled pools, only those pvekaas pins a cluster-autoscaler for. */
export function acceptedTenantMinors(range: TenantRange, autoscaled: boolean): string[] {
  if (range.oldest === undefined || range.newest === undefined) return [];
  const [major, low] = range.oldest.minor.split('.').map(Number);
  const high = Number(range.newest.minor.split('.')[1]);
  const minors: string[] = [];
  for (let m = low; m <= high; m++) minors.push(`${major}.${m}`);
  return minors.filter((m) => !autoscaled || autoscalerImageTags[m] !== undefined);
}

/** `1.30 to 1.36` for a run of minors, else the list. */
function describeMinors(minors: string[]): string {
  const n = minors.map((m) => Number(m.split('.')[1]));
  const contiguous = n.every((x, i) => i === 0 || x === n[i - 1] + 1);
  return minors.length === 1 ? minors[0] : contiguous ? `${minors[0]} to ${minors[minors.length - 1]}` : minors.join(', ');
}

export const MANAGEMENT_RULES: readonly LabRule[] = [
  {
    id: 'versions.guard',
    cause: true,
    refuses: 'version overrides (management.versions, capmox) that break a provider contract, use latest, or are malformed (versionGuard, modules/management)',
    fix: 'pin a version of the supported range (docs/management.md, "Versions, and why"), or remove the override',
    check: (lab) => versionGuard(lab).problems,
  },
  {
    id: 'versions.tenant-kubernetes',
    cause: true,
    refuses:
      'a tenant Kubernetes minor (kubernetesVersion, previous.kubernetesVersion) newer than the pinned Kamaji accepts, outside the workload-cluster range of the pinned CAPI core (modules/versions/tenant-range.ts), or, for a tenant with autoscaled pools, one pvekaas pins no cluster-autoscaler for (end of life is a warning, not this rule)',
    fix: 'choose a version inside the range the error names (docs/tenants.md, "Kubernetes versions")',
    check: (lab) => {
      const versions = resolveVersions((lab.management.versions ?? {}) as Partial<Record<VersionKey, string>>);
      const range = tenantKubernetesRange(versions);
      const problems: Problem[] = [];
      lab.tenants.forEach((tenant, i) => {
        const autoscaled = [...tenant.pools, ...(tenant.previous?.pools ?? [])].some((p) => p.autoscaling !== undefined);
        // Only what is accepted: the minors of the range that also have a pinned autoscaler when the tenant needs one.
        const accepted = acceptedTenantMinors(range, autoscaled);
        const run = `run a Kubernetes minor from ${accepted.length > 0 ? describeMinors(accepted) : describeTenantRange(range)}`;
        const check = (version: string | undefined, path: (string | number)[], what: string) => {
          if (version === undefined) return;
          const why = outsideTenantRange(range, version);
          const minor = seriesOf(version);
          if (why === undefined) {
            if (!autoscaled || minor === undefined || autoscalerImageTags[minor] !== undefined) return;
            problems.push({
              path,
              message:
                `tenant ${tenant.name}: ${what} ${version}: the tenant has autoscaled pools, and pvekaas pins no cluster-autoscaler for Kubernetes ${minor} ` +
                "(the autoscaler must match the cluster's minor; pinned: " +
                `${Object.keys(autoscalerImageTags).join(', ')})`,
              value: version,
              fix: `${run} (docs/tenants.md, "Kubernetes versions"), or give the autoscaled pools a fixed replicas count`,
            });
            return;
          }
          problems.push({
            path,
            message: `tenant ${tenant.name}: ${what} ${version}: ${why}`,
            value: version,
            fix: `${run} (Kamaji ${versions.kamajiImage} with CAPI ${versions.clusterApi}${autoscaled ? ' and the pinned cluster-autoscalers' : ''}; docs/tenants.md, "Kubernetes versions")`,
          });
        };
        check(tenant.kubernetesVersion, ['tenants', i, 'kubernetesVersion'], 'kubernetesVersion');
        if (tenant.previous?.kubernetesVersion !== tenant.kubernetesVersion) {
          check(tenant.previous?.kubernetesVersion, ['tenants', i, 'previous', 'kubernetesVersion'], 'previous.kubernetesVersion');
        }
      });
      return problems;
    },
  },
  {
    id: 'management.vlan-without-interfaces',
    refuses: 'loadBalancer.vlan without loadBalancer.interfaces (MetalLB would announce the VIPs on every interface)',
    fix: "list the management nodes' interfaces on that VLAN, e.g. interfaces: [eth0.4]",
    check: (lab) => {
      const lb = lab.management.loadBalancer;
      if (lb.vlan === undefined || lb.interfaces.length > 0) return [];
      return [
        {
          path: ['management', 'loadBalancer', 'interfaces'],
          message: `loadBalancer.vlan is ${lb.vlan} but no interfaces are listed: MetalLB would answer for the tenant VIPs on every interface of every node, not on VLAN ${lb.vlan}`,
          value: lb.interfaces,
          fix: `list the management nodes' interfaces on VLAN ${lb.vlan}, e.g. interfaces: [eth0.${lb.vlan}] (the L2Advertisement announces the VIPs there only)`,
        },
      ];
    },
  },
  {
    id: 'management.mirror-providers-without-images',
    refuses: 'mirror.providers without mirror.images (the provider images would still come from public registries)',
    fix: 'set mirror.images too',
    check: (lab) => {
      const mirror = lab.management.mirror;
      if (!mirror?.providers || mirror.images) return [];
      return [
        {
          path: ['management', 'mirror', 'providers'],
          message: 'provider components come from the mirror but their images would still come from public registries',
          value: mirror.providers,
          fix: 'set mirror.images too (the registry prefix the provider images are copied to)',
        },
      ];
    },
  },
  {
    id: 'management.local-path-without-chart-mirror',
    refuses: 'datastore.csi local-path without mirror.charts (Rancher publishes no Helm repository for its chart)',
    fix: 'push the chart of the pinned release to your chart mirror and set mirror.charts, or choose csi: openebs-localpv or existing',
    check: (lab) => {
      const m = lab.management;
      if (m.datastore.csi !== 'local-path' || m.mirror?.charts) return [];
      return [
        {
          path: ['management', 'datastore', 'csi'],
          message:
            'local-path-provisioner has no Helm repository upstream (its chart ships in the release, deploy/chart/local-path-provisioner): Helm would have nowhere to install it from',
          value: m.datastore.csi,
          fix: 'package that chart at the pinned release and push it to your chart mirror, then set management.mirror.charts (docs/management.md, "Datastore storage"); or choose csi: openebs-localpv or existing',
        },
      ];
    },
  },
  {
    id: 'management.datastore-too-small',
    refuses: 'a datastore volume smaller than 1Gi',
    fix: 'use at least 1Gi (8Gi or more for real use)',
    check: (lab) => {
      const size = quantityMiB(lab.management.datastore.size);
      if (size === undefined || size >= 1024) return [];
      return [
        {
          path: ['management', 'datastore', 'size'],
          message: `a ${lab.management.datastore.size} volume is too small for the datastore that holds every tenant`,
          value: lab.management.datastore.size,
          fix: 'use at least 1Gi (8Gi or more for real use)',
        },
      ];
    },
  },
];

/** The problems of the management rules alone. */
export function checkManagement(lab: Lab): Problem[] {
  return runRules(lab, MANAGEMENT_RULES);
}
