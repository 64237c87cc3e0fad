/**
 * The HA verdicts of a tenant's placement: whether it survives the loss of a node or an instance,
 * as booleans (`haVerdict`) and as conditions naming the pools that do not (`haConditions`).
 */
import { machinesAtLeast, machinesAtMost } from '../config/scale';
import type { HaCause, HaCondition, NodePlacement, PoolPlan, TenantPlan } from './types';

/** The machines a placement holds at most (the autoscaling max, else its replicas). */
export const capacityOf = (p: NodePlacement) => machinesAtMost(p.scale);

/** The machines a placement holds whatever the autoscaler does (the autoscaling min, else its replicas). */
const floorOf = (p: NodePlacement) => machinesAtLeast(p.scale);

/**
 * A tenant survives the loss of a node (an instance) when every pool that has machines keeps at
 * least one after losing any one node (instance). Autoscaled pools count their `min`: the
 * machines that exist whatever the autoscaler does; a pool with none has nothing to lose.
 */
export function haVerdict(pools: PoolPlan[]): TenantPlan['ha'] {
  let survivesNodeLoss = true;
  let survivesInstanceLoss = true;
  for (const pool of pools) {
    const total = pool.placements.reduce((n, p) => n + floorOf(p), 0);
    if (total === 0) continue;
    const perInstance = new Map<string, number>();
    for (const p of pool.placements) {
      if (floorOf(p) === total) survivesNodeLoss = false;
      perInstance.set(p.instance, (perInstance.get(p.instance) ?? 0) + floorOf(p));
    }
    for (const machines of perInstance.values()) if (machines === total) survivesInstanceLoss = false;
  }
  return { survivesNodeLoss, survivesInstanceLoss };
}

/**
 * The HA verdicts as conditions with their causes: every pool (with machines) that has all of
 * them on one node, or on one instance. Same rules as `haVerdict`, whose booleans they match.
 */
export function haConditions(pools: PoolPlan[]): HaCondition[] {
  const onOneNode: HaCause[] = [];
  const onOneInstance: HaCause[] = [];
  let withMachines = 0;
  for (const pool of pools) {
    const total = pool.placements.reduce((n, p) => n + floorOf(p), 0);
    if (total === 0) continue;
    withMachines++;
    const node = pool.placements.find((p) => floorOf(p) === total);
    if (node) onOneNode.push({ pool: pool.name, instance: node.instance, node: node.node, machines: total });
    const perInstance = new Map<string, number>();
    for (const p of pool.placements) perInstance.set(p.instance, (perInstance.get(p.instance) ?? 0) + floorOf(p));
    for (const [instance, machines] of perInstance) if (machines === total) onOneInstance.push({ pool: pool.name, instance, machines });
  }
  const what = (c: HaCause) => `pool ${c.pool} has ${c.machines === 1 ? 'its only machine' : `all ${c.machines} machines`}`;
  const condition = (
    type: HaCondition['type'],
    causes: HaCause[],
    where: (c: HaCause) => string,
    falseReason: HaCondition['reason'],
    spread: string,
  ): HaCondition => {
    if (withMachines === 0)
      return { type, status: 'True', reason: 'NoMachines', message: 'no pool has machines to lose (autoscaled pools with min 0)', causes: [] };
    if (causes.length === 0)
      return { type, status: 'True', reason: 'EveryPoolSpread', message: `every pool with machines has them on at least two ${spread}`, causes: [] };
    return { type, status: 'False', reason: falseReason, message: causes.map((c) => `${what(c)} on ${where(c)}`).join('; '), causes };
  };
  const nodeLoss = condition('SurvivesNodeLoss', onOneNode, (c) => `${c.node} (${c.instance})`, 'PoolOnOneNode', 'nodes');
  const refilled = pools
    .filter((p) => p.failover !== undefined && p.failover.length > 0 && p.failover.length === p.placements.filter((x) => capacityOf(x) > 0).length)
    .map((p) => p.name);
  if (refilled.length > 0) {
    nodeLoss.message +=
      `; pool${refilled.length === 1 ? '' : 's'} ${refilled.join(', ')} (failover) ${refilled.length === 1 ? 'gets' : 'get'} every lost machine back ` +
      `on the surviving nodes once the node is marked down and the tenant stack is synthesized and applied again`;
  }
  return [nodeLoss, condition('SurvivesInstanceLoss', onOneInstance, (c) => c.instance, 'PoolOnOneInstance', 'instances')];
}
