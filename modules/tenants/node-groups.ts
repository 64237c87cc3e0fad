/**
 * The contract between the placement plan and the tenant topology: the plan's node groups, each a
 * pool's machines on one node of one instance, **either** fixed (`replicas`) **or** autoscaled
 * (`min`, `max`) — never one field that means "replicas" for one kind and "min" for the other, as
 * the plan's `NodePlacement.replicas` does. Every machine deployment renders exactly one node group
 * (test/tenants/topology-contract.test.ts checks the rendered Cluster against the plan).
 */
import type { PoolPlan, TenantPlan } from '../placement/types';

export type NodeGroupScale =
  { readonly kind: 'fixed'; readonly replicas: number } | { readonly kind: 'autoscaled'; readonly min: number; readonly max: number };

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
    for (const p of pool.placements) {
      const scale: NodeGroupScale = pool.autoscaling
        ? { kind: 'autoscaled', min: p.min ?? p.replicas, max: p.max ?? p.replicas }
        : { kind: 'fixed', replicas: p.replicas };
      groups.push({ pool: pool.name, instance: p.instance, nodes: [p.node], size: pool.size, scale });
    }
  }
  return groups;
}

/** The most machines a node group can have: its replicas, or its max. */
export function maxOf(scale: NodeGroupScale): number {
  return scale.kind === 'fixed' ? scale.replicas : scale.max;
}
