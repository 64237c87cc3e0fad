/** Sentences a reviewer can check against the plan: why these instances, why this HA verdict. */
import { machinesAtLeast, machinesAtMost } from '../config/scale';
import { compareNames } from './plan';
import type { PoolPlan, TenantPlan } from './types';

const machines = (n: number) => `${n} machine${n === 1 ? '' : 's'}`;

function machinesOf(pool: PoolPlan): number {
  return pool.placements.reduce((n, p) => n + machinesAtLeast(p.scale), 0);
}

/** Machines of a pool per instance (sorted by instance name): replicas, and max when autoscaled. */
function perInstance(pool: PoolPlan): { instance: string; replicas: number; max: number; nodes: number }[] {
  const totals = new Map<string, { instance: string; replicas: number; max: number; nodes: number }>();
  for (const p of pool.placements) {
    const entry = totals.get(p.instance) ?? { instance: p.instance, replicas: 0, max: 0, nodes: 0 };
    entry.replicas += machinesAtLeast(p.scale);
    entry.max += machinesAtMost(p.scale);
    entry.nodes += 1;
    totals.set(p.instance, entry);
  }
  return [...totals.values()].sort((a, b) => compareNames(a.instance, b.instance));
}

/** The HA verdicts of a tenant with the reason for each, e.g. "no: pool gpu has its only machine on pmox-fra-2". */
export function explainHa(tenant: TenantPlan): { node: string; instance: string } {
  const withMachines = tenant.pools.filter((p) => machinesOf(p) > 0);
  if (withMachines.length === 0) {
    const empty = 'yes: no pool has machines to lose (autoscaled pools with min 0)';
    return { node: empty, instance: empty };
  }
  let node: string | undefined;
  let instance: string | undefined;
  for (const pool of withMachines) {
    const total = machinesOf(pool);
    const all = total === 1 ? 'its only machine' : `all ${machines(total)}`;
    const onOneNode = pool.placements.find((p) => machinesAtLeast(p.scale) === total);
    if (node === undefined && onOneNode) node = `no: pool ${pool.name} has ${all} on ${onOneNode.node} (${onOneNode.instance})`;
    const onOneInstance = perInstance(pool).find((i) => i.replicas === total);
    if (instance === undefined && onOneInstance) instance = `no: pool ${pool.name} has ${all} on ${onOneInstance.instance}`;
  }
  return {
    node: node ?? 'yes: every pool with machines has them on at least two nodes',
    instance: instance ?? 'yes: every pool with machines has them on at least two instances',
  };
}

/**
 * Why the tenant's machines are where they are: the plan's reason (mode, ranking, capacity,
 * pinning), then each pool's split over instances and nodes.
 */
export function explainTenant(tenant: TenantPlan): string {
  const sentences = [tenant.reason];
  for (const pool of tenant.pools) {
    const split = perInstance(pool);
    const scale = pool.scale;
    const autoscaled = scale.kind === 'autoscaled';
    const parts = split.map((i) =>
      autoscaled
        ? `${i.replicas}..${i.max} on ${i.instance} (${i.nodes} node${i.nodes === 1 ? '' : 's'})`
        : `${i.replicas} on ${i.instance} (${i.nodes} node${i.nodes === 1 ? '' : 's'})`,
    );
    const total = scale.kind === 'autoscaled' ? `autoscaled ${scale.min}..${scale.max} machines` : machines(scale.replicas);
    sentences.push(`Pool ${pool.name}: ${total}, ${parts.length > 0 ? parts.join(' and ') : 'nowhere'}.`);
  }
  return sentences.join(' ');
}
