/**
 * Each tenant's CAPI Clusters per instance, from the placement plan alone, for the placement report
 * and the review: with `capmox.multiInstance: secondary-clusters` a tenant on several instances is
 * its primary Cluster (control plane, workers on the first instance of its plan in description
 * order) and one secondary Cluster per other instance. The tenant stack's `clusters` output says
 * the same (index.ts); a test keeps the two equal. The review's section on them is in
 * modules/review/secondary-clusters.ts (arrows run one way: review reads tenants, never back).
 */
import type { Lab } from '../config/schema';
import type { PlacementPlan } from '../placement/types';
import { clusterName } from './names';
import { secondaryClusterName } from './secondary';

export interface TenantClusterRow {
  tenant: string;
  cluster: string;
  /** The instance whose machines the Cluster holds. */
  instance: string;
  role: 'primary' | 'secondary';
}

/** Every tenant's Clusters, by tenant name, then primary first and secondaries in description order. */
export function tenantClusters(lab: Lab, plan: PlacementPlan): TenantClusterRow[] {
  const order = lab.proxmox.instances.map((i) => i.name);
  const rows: TenantClusterRow[] = [];
  for (const t of plan.tenants) {
    const used = new Set(t.pools.flatMap((p) => p.placements.map((x) => x.instance)));
    const instances = order.filter((i) => used.has(i));
    if (instances.length === 0) continue;
    const secondaries = lab.capmox.multiInstance === 'secondary-clusters' ? instances.slice(1) : [];
    rows.push({
      tenant: t.name,
      cluster: clusterName(t),
      instance: secondaries.length > 0 || instances.length === 1 ? instances[0] : instances.join(', '),
      role: 'primary',
    });
    for (const i of secondaries) rows.push({ tenant: t.name, cluster: secondaryClusterName(t, i), instance: i, role: 'secondary' });
  }
  return rows;
}

/** The markdown section of the placement report (secondary-clusters mode). */
export function renderClustersMarkdown(lab: Lab, plan: PlacementPlan): string {
  const rows = tenantClusters(lab, plan);
  return [
    '## CAPI Clusters per instance (capmox.multiInstance: secondary-clusters)',
    '',
    '| tenant | cluster | instance | role |',
    '|---|---|---|---|',
    ...rows.map(
      (r) => `| ${r.tenant} | ${r.cluster} | ${r.instance} | ${r.role === 'primary' ? 'primary (control plane)' : 'secondary (workers join the primary)'} |`,
    ),
    '',
  ].join('\n');
}
