/**
 * The placement plan: for every tenant and pool, which instance and node each machine goes to.
 * This is the contract between the placement module, the stacks that render it and the tools
 * that read `placement.json`. `placement.json` is its JSON form (render-json.ts, whose field names
 * stay: a scale is written as `replicas`, `min`, `max`, `autoscaling` as always). Add fields
 * freely; never rename one.
 */
import type { Scale } from '../config/scale';
import type { PlacementMode } from '../config/schema';

/**
 * How many machines a pool or one of its node groups has: fixed (`replicas`) or autoscaled (`min`,
 * `max`), never one number that means something else by kind. Read it with `machinesAtMost`,
 * `machinesAtLeast` and `fixedReplicas` (modules/placement): the one place that does.
 */
export type NodeGroupScale = Scale;

/** Machines of one pool on one node of one instance: a node group. */
export interface NodePlacement {
  instance: string;
  node: string;
  /** Fixed pools: its machines. Autoscaled pools: the autoscaler's bounds for this node group (capacity is reserved for `max`). */
  scale: NodeGroupScale;
}

export interface PoolPlan {
  name: string;
  /** Fixed pools: total machines. Autoscaled pools: the pool's autoscaling bounds. */
  scale: NodeGroupScale;
  size: { cpu: number; memoryMiB: number; diskGiB: number };
  /** Set when the pool is pinned to an instance. */
  pinned?: string;
  /** Sorted by instance, then node. Nodes with no machine (and max 0) are left out. */
  placements: NodePlacement[];
  /**
   * Pools with `failover: true` only: for each node holding machines of the pool, where re-synth
   * with that node at zero capacity puts them (checked at synth: every machine has room).
   */
  failover?: NodeFailover[];
}

/** What re-synth does with a failover pool's machines when one node is lost. */
export interface NodeFailover {
  lost: NodeRef;
  /** The pool's machines on the lost node (autoscaled: its max there, the capacity reserved). */
  machines: number;
  /** Nodes where the re-planned pool has more machines (autoscaled: max) than today, and how many more. */
  to: { instance: string; node: string; replicas: number }[];
}

export interface TenantPlan {
  name: string;
  mode: PlacementMode;
  /** Instances that hold at least one machine (or reserved capacity) of the tenant, sorted. */
  instances: string[];
  /** Why these instances, in a sentence a reviewer can check. */
  reason: string;
  /**
   * SingleInstance and MultiInstance only: the eligible instances in the tenant's rendezvous
   * order (best first). SingleInstance takes the first that holds the whole tenant; MultiInstance
   * gives the extra machine of an uneven split to the earlier ones.
   */
  ranking?: string[];
  /** The tenant's Kubernetes version, as in the description (so placement.json records what was planned). */
  kubernetesVersion: string;
  /** The tenant's quota from the description, when it has one (the ledger compares with it). */
  quota?: { cpu: number; memoryMiB: number; diskGiB?: number };
  /**
   * The Proxmox storages the tenant's persistent volumes go on (its storage classes', sorted), when
   * it has any: each is the tenant's alone, so its size is the tenant's volume quota.
   */
  volumeStorages?: string[];
  ha: { survivesNodeLoss: boolean; survivesInstanceLoss: boolean };
  /** The same verdicts as conditions, with the reason and the pools, nodes and instances behind each. */
  haConditions: HaCondition[];
  pools: PoolPlan[];
}

/** What makes an HA condition false: a pool whose every machine sits on one node (or instance). */
export interface HaCause {
  pool: string;
  instance: string;
  /** Set for SurvivesNodeLoss: the one node holding the pool's machines. */
  node?: string;
  /** The pool's machines there (autoscaled pools: min). */
  machines: number;
}

/**
 * One HA verdict as a Kubernetes-style condition. `status` matches the boolean in `ha`;
 * `reason` is one of: EveryPoolSpread (true), NoMachines (true: nothing to lose),
 * PoolOnOneNode / PoolOnOneInstance (false, `causes` names each such pool).
 */
export interface HaCondition {
  type: 'SurvivesNodeLoss' | 'SurvivesInstanceLoss';
  status: 'True' | 'False';
  reason: 'EveryPoolSpread' | 'NoMachines' | 'PoolOnOneNode' | 'PoolOnOneInstance';
  message: string;
  causes: HaCause[];
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
  /** Sorted by tenant name (code-unit order, the same on every platform). */
  tenants: TenantPlan[];
  /** Sorted by instance (in description order), then node name. */
  nodes: NodeUsage[];
  warnings: string[];
  /**
   * Surge, then retire (`tenants[].previous`, modules/placement/surge.ts): the previous node groups
   * kept beside the new ones until the retire step, on top of `nodes[].planned`. Absent when no
   * tenant has `previous`.
   */
  surge?: SurgeReservation[];
}
/** A retiring node group: a tenant's previous machines of one pool on one node, kept until the retire step. */
export interface SurgeReservation {
  tenant: string;
  pool: string;
  instance: string;
  node: string;
  /** The Kubernetes version they keep. */
  version: string;
  /** Machines at max (fixed pools: replicas). */
  machines: number;
  /** What they hold of the node beyond the plan (held: what the old machines exceed the new plan's there by). */
  cpu: number;
  memoryMiB: number;
  /** A staged surge's held-back node group (`previous.stage.hold`): its old machines stand where the plan counts its new ones. */
  held?: true;
}

/** Where a machine sits: one node of one instance. */
export interface NodeRef {
  instance: string;
  node: string;
}

/** Machines of one pool that leave one node for another between two plans. */
export interface MachineMove {
  tenant: string;
  pool: string;
  from: NodeRef;
  to: NodeRef;
  replicas: number;
}

/** Machines of one pool that appear on (added) or disappear from (removed) one node. */
export interface MachineChange {
  tenant: string;
  pool: string;
  instance: string;
  node: string;
  replicas: number;
}

/** An autoscaled pool's node group whose bounds change (max is the capacity reserved for it). */
export interface BoundsChange {
  tenant: string;
  pool: string;
  instance: string;
  node: string;
  before: { min: number; max: number };
  after: { min: number; max: number };
}

/** A tenant that appears, disappears or changes the instances it uses. `null`: absent on that side. */
export interface TenantChange {
  name: string;
  before: string[] | null;
  after: string[] | null;
}

/** A pool whose machine size changes: every one of its machines is replaced. */
export interface PoolResize {
  tenant: string;
  pool: string;
  before: { cpu: number; memoryMiB: number; diskGiB: number };
  after: { cpu: number; memoryMiB: number; diskGiB: number };
}

/**
 * What changes between two plans. Machines of a pool are interchangeable, so on each pool the
 * machines that leave nodes are paired with those that arrive elsewhere (a move); what is left
 * over is added or removed. Counts are `replicas` (for autoscaled pools: `min`); changes of the
 * autoscaler bounds are listed in `bounds`.
 */
export interface PlacementDiff {
  tenants: TenantChange[];
  moved: MachineMove[];
  added: MachineChange[];
  removed: MachineChange[];
  bounds: BoundsChange[];
  resized: PoolResize[];
}
