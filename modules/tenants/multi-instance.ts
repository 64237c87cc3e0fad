/**
 * Released CAPMOX (v0.9) binds a Cluster to one Proxmox API: the ProxmoxCluster's credentialsRef.
 * A tenant whose machines the plan puts on several instances cannot be rendered for it; with
 * `capmox.multiInstance: proposal` it is rendered for a CAPMOX implementing its open multi-instance
 * pull requests #887-#889 instead (ProxmoxCluster spec.availabilityZones, CAPI failure domains).
 */
import type { Problem } from '../config/problems';
import type { Lab, Tenant } from '../config/schema';
import { machinesAtMost } from '../placement/scale';
import type { TenantPlan } from '../placement/types';

/** Instances that hold machines (or reserved autoscaling capacity) of the tenant, with what each holds. */
function machinesPerInstance(plan: TenantPlan): Map<string, string[]> {
  const per = new Map<string, string[]>();
  for (const pool of plan.pools) {
    const counts = new Map<string, number>();
    for (const p of pool.placements) counts.set(p.instance, (counts.get(p.instance) ?? 0) + machinesAtMost(p.scale));
    for (const [instance, n] of counts)
      per.set(instance, [...(per.get(instance) ?? []), `${n} of pool ${pool.name}${pool.scale.kind === 'autoscaled' ? ' (at max)' : ''}`]);
  }
  return per;
}

export function checkMultiInstance(lab: Lab, tenant: Tenant, plan: TenantPlan, index: number): Problem[] {
  const per = machinesPerInstance(plan);
  if (per.size <= 1 || lab.capmox.multiInstance !== 'refuse') return [];
  const order = lab.proxmox.instances.map((i) => i.name);
  const instances = [...per.keys()].sort((a, b) => order.indexOf(a) - order.indexOf(b));
  const pinned = tenant.pools.map((p, pi) => ({ p, pi })).filter(({ p }) => p.instance !== undefined);
  const cause =
    tenant.placement.mode === 'MultiInstance'
      ? `its placement mode is MultiInstance`
      : pinned.length > 0
        ? `pool${pinned.length > 1 ? 's' : ''} ${pinned.map(({ p }) => `${p.name} (instance: ${p.instance})`).join(', ')} ${pinned.length > 1 ? 'are' : 'is'} pinned to another instance than the rest`
        : `its placement spans them`;
  const path =
    tenant.placement.mode !== 'MultiInstance' && pinned.length > 0 ? ['tenants', index, 'pools', pinned[0].pi, 'instance'] : ['tenants', index, 'placement'];
  return [
    {
      path,
      message:
        `tenant ${tenant.name} puts machines on ${instances.length} Proxmox instances (${instances.map((i) => `${i}: ${(per.get(i) ?? []).join(', ')}`).join('; ')}) because ${cause}, ` +
        `but released CAPMOX (v0.9) binds a Cluster to one Proxmox API through its ProxmoxCluster's credentialsRef, so one tenant cluster cannot have machines on ${instances.join(' and ')}`,
      fix:
        `keep the tenant on one instance (placement mode Default or SingleInstance, no pool pinned elsewhere), ` +
        `or set capmox.multiInstance: secondary-clusters to render it on released CAPMOX with one secondary CAPI Cluster per extra instance (not yet proven against the real controllers), ` +
        `or capmox.multiInstance: proposal to render it for a CAPMOX that implements its open multi-instance pull requests #887-#889 (availabilityZones; no release does yet); ` +
        `the placement report (npm run placement) still shows the plan`,
      rule: 'tenant.multi-instance-refused',
    },
  ];
}
