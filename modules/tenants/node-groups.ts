/**
 * The contract between the placement plan and the tenant topology: the plan's node groups, each a
 * pool's machines on one node of one instance with the plan's own scale (`NodeGroupScale`,
 * modules/placement/types.ts): **either** fixed (`replicas`) **or** autoscaled (`min`, `max`).
 * Every machine deployment renders exactly one node group (test/tenants/topology-contract.test.ts
 * checks the rendered Cluster against the plan).
 */
import type { NodeGroupScale, PoolPlan, TenantPlan } from '../placement/types';

export type { NodeGroupScale } from '../placement/types';

export interface NodeGroup {
  readonly pool: string;
  readonly instance: string;
  /** The Proxmox nodes its machines may go to (today always one: see machine-deployments.ts). */
  readonly nodes: readonly string[];
  readonly size: PoolPlan['size'];
  readonly scale: NodeGroupScale;
}

/** The node groups of a tenant's plan, in plan order (pool, then instance and node). */
export function nodeGroups(plan: TenantPlan): NodeGroup[] {
  const groups: NodeGroup[] = [];
  for (const pool of plan.pools) {
    for (const p of pool.placements) groups.push({ pool: pool.name, instance: p.instance, nodes: [p.node], size: pool.size, scale: p.scale });
  }
  return groups;
}
