/**
 * Placement: which instance and node every machine of every tenant goes to, decided at synth time.
 *
 * Tenants are placed one after another in name order, each pool taking capacity from the nodes
 * it lands on, so the capacity decisions are reproducible whatever the order of the description.
 * Choices between instances use the rendezvous ranking of (tenant, instance); choices between
 * the nodes of an instance use the ranking of (tenant/pool, instance/node). Machines are placed as
 * counts per slot (see spread.ts), so planning 100k machines costs about what planning 100 does.
 */
import { problemCount, ProblemError, type Problem } from '../config/problems';
import type { Lab, PlacementMode, Tenant } from '../config/schema';
import { checkFailover } from './failover';
import { hasSurge, planSurge, previousLab } from './surge';
import { haConditions, haVerdict } from './ha';
import {
  compareNames,
  demandOf,
  placeMultiInstanceTenant,
  placeSingleInstance,
  placeWhole,
  Placer,
  toPoolPlan,
  type InstanceModel,
  type PoolDraft,
} from './placer';
import type { NodeUsage, PlacementPlan, TenantPlan } from './types';

// The pieces live in their own files; every name importers used from here is still exported here.
export { compareNames } from './placer';
export { haConditions, haVerdict } from './ha';
export { cloneSourceNodes } from './failover';

/** The first line of the placement problems, when no file is known. */
export function placementTitle(problems: number): string {
  return `the lab does not fit its Proxmox instances: ${problemCount(problems)}`;
}

/**
 * Plans every machine of the lab onto an instance and node. Throws a `ProblemError` naming every
 * tenant and pool that does not fit (at its path in the description); a pool that does not fit is
 * left out while the rest is still planned, so one run reports every shortage.
 */
export function planPlacement(lab: Lab): PlacementPlan {
  const { plan, problems } = planPlacementPartial(lab);
  if (problems.length > 0) throw new ProblemError(problems, { title: placementTitle(problems.length) });
  return plan;
}

/**
 * Plans what fits and names what does not, without throwing: pools that do not fit are left
 * out of `plan` and described in `problems` (the what-if uses this to say which machines have
 * nowhere to go).
 */
export function planPlacementPartial(lab: Lab): { plan: PlacementPlan; problems: Problem[] } {
  const result = planOnce(lab);
  if (lab.tenants.some((t) => t.pools.some((p) => p.failover === true))) checkFailover(lab, result.plan, result.problems, planOnce);
  if (hasSurge(lab)) {
    // The new plan is the one the retire step keeps; the previous lab's plan says where the retiring machines are.
    const before = planOnce(previousLab(lab));
    if (before.problems.length > 0) {
      result.problems.push(
        ...lab.tenants
          .map((t, i) => [t, i] as const)
          .filter(([t]) => t.previous)
          .map(([t, i]) => ({
            path: ['tenants', i, 'previous'],
            message: `tenant ${t.name}: the lab as previous describes it does not place (${before.problems.map((p) => p.message).join('; ')}), so it is not what runs now`,
            fix: 'make previous the tenant as it was last deployed (its kubernetesVersion and pools), or remove previous',
            rule: 'placement.previous-does-not-place',
          })),
      );
    } else {
      const surge = planSurge(lab, result.plan, before.plan);
      result.problems.push(...surge.problems);
      if (surge.surge.length > 0) result.plan.surge = surge.surge;
    }
  }
  return result;
}

function planOnce(lab: Lab): { plan: PlacementPlan; problems: Problem[] } {
  const placer = new Placer(lab);
  const tenants = [...lab.tenants].sort((a, b) => compareNames(a.name, b.name));
  const tenantPlans = tenants.map((tenant) => planTenant(placer, tenant));

  const nodes: NodeUsage[] = placer.nodeName.map((name, node) => ({
    instance: placer.nodeInstance[node].name,
    node: name,
    cpu: { capacity: placer.capCpu[node], planned: placer.capCpu[node] - placer.freeCpu[node] },
    memoryMiB: { capacity: placer.capMem[node], planned: placer.capMem[node] - placer.freeMem[node] },
    tenants: placer.nodeTenants[node],
  }));
  return { plan: { tenants: tenantPlans, nodes, warnings: placer.warnings }, problems: placer.problems };
}

function planTenant(placer: Placer, tenant: Tenant): TenantPlan {
  const mode: PlacementMode = tenant.placement.mode;
  const pools = [...tenant.pools].sort((a, b) => compareNames(a.name, b.name));
  const drafts: PoolDraft[] = [];
  const notes: string[] = [];
  let ranking: InstanceModel[] | undefined;

  // Pinned pools first: they have no alternative, the others can still go elsewhere.
  for (const pool of pools.filter((p) => p.instance !== undefined)) {
    const instance = placer.instanceByName.get(pool.instance as string);
    const demand = demandOf(tenant, pool);
    if (!instance) {
      placer.problem(
        'pool.unknown-instance',
        tenant.name,
        pool.name,
        `tenant ${tenant.name}, pool ${pool.name}: pinned to unknown instance ${pool.instance}`,
        'pin it to one of proxmox.instances, or unpin it',
      );
      continue;
    }
    const draft = placeWhole(placer, instance, demand, `pinned to ${instance.name}`, 'pin it elsewhere or unpin it');
    if (draft) drafts.push(draft);
    notes.push(`Pool ${pool.name} is pinned to ${instance.name}.`);
  }

  const free = pools.filter((p) => p.instance === undefined).map((pool) => demandOf(tenant, pool));
  const machines = free.reduce((n, d) => n + d.count, 0);
  const countsMax = free.some((d) => d.autoscaled) ? ' (autoscaled pools counted at their max)' : '';
  let reason: string;
  if (mode === 'Default') {
    const home = placer.defaultInstance;
    // With every pool pinned, nothing goes to the default instance: placement.instances changes nothing either way.
    if (tenant.placement.instances !== undefined && free.length > 0) {
      placer.warnings.push(
        `tenant ${tenant.name}: placement.instances is ignored in Default mode, every machine of an unpinned pool goes to the default instance ${home.name}; ` +
          `use mode SingleInstance or MultiInstance to choose among instances`,
      );
    }
    for (const demand of free) {
      const draft = placeWhole(
        placer,
        home,
        demand,
        'Default mode places every machine on the default instance',
        'choose mode SingleInstance or MultiInstance to use other instances',
      );
      if (draft) drafts.push(draft);
    }
    reason = `Default mode: every machine on the default instance ${home.name} (the first in proxmox.instances).`;
  } else {
    ranking = placer.rankInstances(tenant.name, eligibleInstances(placer, tenant));
    const order = ranking.map((i) => i.name).join(' > ');
    if (free.length === 0) {
      reason = `${mode}: every pool is pinned, so the instance ranking (${order}) is not used.`;
    } else if (mode === 'SingleInstance') {
      reason = placeSingleInstance(placer, tenant, ranking, free, drafts, machines, countsMax);
    } else {
      reason = placeMultiInstanceTenant(placer, tenant, ranking, free, drafts);
    }
  }

  placer.recordTenant(tenant.name, drafts);
  const poolPlans = drafts.map(toPoolPlan).sort((a, b) => compareNames(a.name, b.name));
  const instances = [...new Set(poolPlans.flatMap((p) => p.placements.map((x) => x.instance)))].sort(compareNames);
  const plan: TenantPlan = {
    name: tenant.name,
    mode,
    instances,
    reason: [reason, ...notes].join(' '),
    kubernetesVersion: tenant.kubernetesVersion,
    ha: haVerdict(poolPlans),
    haConditions: haConditions(poolPlans),
    pools: poolPlans,
  };
  if (ranking !== undefined) plan.ranking = ranking.map((i) => i.name);
  if (tenant.quota)
    plan.quota = {
      cpu: tenant.quota.cpu,
      memoryMiB: tenant.quota.memoryMiB,
      ...(tenant.quota.diskGiB !== undefined ? { diskGiB: tenant.quota.diskGiB } : {}),
    };
  const volumeStorages = [...new Set((tenant.storage?.classes ?? []).map((c) => c.storage))].sort(compareNames);
  if (volumeStorages.length > 0) plan.volumeStorages = volumeStorages;
  return plan;
}

function eligibleInstances(placer: Placer, tenant: Tenant): InstanceModel[] {
  const names = tenant.placement.instances;
  if (names === undefined) return placer.instances;
  const eligible: InstanceModel[] = [];
  for (const name of new Set(names)) {
    const instance = placer.instanceByName.get(name);
    if (instance) eligible.push(instance);
    else
      placer.problem(
        'tenant.unknown-instance',
        tenant.name,
        undefined,
        `tenant ${tenant.name}: placement.instances names unknown instance ${name}`,
        'name only instances of proxmox.instances',
        ['placement', 'instances'],
      );
  }
  return eligible;
}
