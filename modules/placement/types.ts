/**
 * The placement plan: for every tenant and pool, which instance and node each machine goes to.
 * This is the contract between the placement module, the stacks that render it and the tools
 * that read `placement.json`. Add fields freely; never rename one.
 */
import type { PlacementMode } from '../config/schema';

/** Machines of one pool on one node of one instance. */
export interface NodePlacement {
  instance: string;
  node: string;
  /** Fixed pools: the machine count. Autoscaled pools: equals `min`. */
  replicas: number;
  /** Autoscaled pools only: the autoscaler's lower bound for this node group. */
  min?: number;
  /** Autoscaled pools only: the autoscaler's upper bound (capacity is reserved for it). */
  max?: number;
}

export interface PoolPlan {
  name: string;
  /** Fixed pools: total machines. Autoscaled pools: total min. */
  replicas: number;
  autoscaling?: { min: number; max: number };
  size: { cpu: number; memoryMiB: number; diskGiB: number };
  /** Set when the pool is pinned to an instance. */
  pinned?: string;
  /** Sorted by instance, then node. Nodes with no machine (and max 0) are left out. */
  placements: NodePlacement[];
}

export interface TenantPlan {
  name: string;
  mode: PlacementMode;
  /** Instances that hold at least one machine (or reserved capacity) of the tenant, sorted. */
  instances: string[];
  /** Why these instances, in a sentence a reviewer can check. */
  reason: string;
  ha: { survivesNodeLoss: boolean; survivesInstanceLoss: boolean };
  pools: PoolPlan[];
}

export interface NodeUsage {
  instance: string;
  node: string;
  cpu: { capacity: number; planned: number };
  memoryMiB: { capacity: number; planned: number };
  /** Planned cpu and memory per tenant on this node, for reports and the picture. */
  tenants: { name: string; cpu: number; memoryMiB: number }[];
}

export interface PlacementPlan {
  /** Sorted by tenant name. */
  tenants: TenantPlan[];
  /** Sorted by instance (in description order), then node name. */
  nodes: NodeUsage[];
  warnings: string[];
}
