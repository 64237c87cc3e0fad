/** What changes between two placement plans, per tenant, pool, instance and node. */
import { machinesAtLeast, machinesAtMost } from '../config/scale';
import { compareNames } from './plan';
import type { BoundsChange, MachineChange, MachineMove, PlacementDiff, PlacementPlan, PoolPlan, TenantChange, TenantPlan } from './types';

interface NodeCounts {
  instance: string;
  node: string;
  before: { replicas: number; min: number; max: number };
  after: { replicas: number; min: number; max: number };
}

const none = () => ({ replicas: 0, min: 0, max: 0 });

function countsByNode(before: PoolPlan | undefined, after: PoolPlan | undefined): NodeCounts[] {
  const byNode = new Map<string, NodeCounts>();
  const add = (pool: PoolPlan | undefined, side: 'before' | 'after') => {
    for (const p of pool?.placements ?? []) {
      const key = `${p.instance}\u0000${p.node}`;
      let entry = byNode.get(key);
      if (!entry) byNode.set(key, (entry = { instance: p.instance, node: p.node, before: none(), after: none() }));
      // `replicas`: what the diff counts (autoscaled: min); `min`/`max`: the bounds (fixed: both its replicas).
      entry[side] = { replicas: machinesAtLeast(p.scale), min: machinesAtLeast(p.scale), max: machinesAtMost(p.scale) };
    }
  };
  add(before, 'before');
  add(after, 'after');
  return [...byNode.values()].sort((a, b) => compareNames(a.instance, b.instance) || compareNames(a.node, b.node));
}

function sameList(a: string[] | null, b: string[] | null): boolean {
  return a === b || (a !== null && b !== null && a.length === b.length && a.every((x, i) => x === b[i]));
}

/**
 * Compares two plans. Machines of a pool are interchangeable: on each pool, machines leaving
 * nodes are paired with machines arriving on others as moves (first within an instance, then
 * across instances, in instance and node order); what remains is added or removed.
 */
export function diffPlacement(before: PlacementPlan, after: PlacementPlan): PlacementDiff {
  const diff: PlacementDiff = { tenants: [], moved: [], added: [], removed: [], bounds: [], resized: [] };
  const beforeTenants = new Map(before.tenants.map((t) => [t.name, t]));
  const afterTenants = new Map(after.tenants.map((t) => [t.name, t]));
  const names = [...new Set([...beforeTenants.keys(), ...afterTenants.keys()])].sort(compareNames);
  for (const name of names) {
    const was = beforeTenants.get(name);
    const is = afterTenants.get(name);
    const change: TenantChange = { name, before: was?.instances ?? null, after: is?.instances ?? null };
    if (!sameList(change.before, change.after)) diff.tenants.push(change);
    diffTenant(name, was, is, diff);
  }
  return diff;
}

function diffTenant(tenant: string, was: TenantPlan | undefined, is: TenantPlan | undefined, diff: PlacementDiff): void {
  const beforePools = new Map((was?.pools ?? []).map((p) => [p.name, p]));
  const afterPools = new Map((is?.pools ?? []).map((p) => [p.name, p]));
  const names = [...new Set([...beforePools.keys(), ...afterPools.keys()])].sort(compareNames);
  for (const pool of names) {
    const b = beforePools.get(pool);
    const a = afterPools.get(pool);
    if (b && a && (b.size.cpu !== a.size.cpu || b.size.memoryMiB !== a.size.memoryMiB || b.size.diskGiB !== a.size.diskGiB)) {
      diff.resized.push({ tenant, pool, before: { ...b.size }, after: { ...a.size } });
    }
    const nodes = countsByNode(b, a);
    if (b && a && (b.scale.kind === 'autoscaled' || a.scale.kind === 'autoscaled')) {
      for (const n of nodes) {
        if (n.before.min !== n.after.min || n.before.max !== n.after.max) {
          const bounds: BoundsChange = {
            tenant,
            pool,
            instance: n.instance,
            node: n.node,
            before: { min: n.before.min, max: n.before.max },
            after: { min: n.after.min, max: n.after.max },
          };
          diff.bounds.push(bounds);
        }
      }
    }
    pairMoves(tenant, pool, nodes, diff);
  }
}

function pairMoves(tenant: string, pool: string, nodes: NodeCounts[], diff: PlacementDiff): void {
  const leaving = nodes.filter((n) => n.after.replicas < n.before.replicas).map((n) => ({ n, left: n.before.replicas - n.after.replicas }));
  const arriving = nodes.filter((n) => n.after.replicas > n.before.replicas).map((n) => ({ n, left: n.after.replicas - n.before.replicas }));
  const moves: MachineMove[] = [];
  for (const sameInstance of [true, false]) {
    for (const from of leaving) {
      for (const to of arriving) {
        if (from.left === 0) break;
        if (to.left === 0 || (sameInstance && to.n.instance !== from.n.instance)) continue;
        const replicas = Math.min(from.left, to.left);
        from.left -= replicas;
        to.left -= replicas;
        moves.push({ tenant, pool, from: { instance: from.n.instance, node: from.n.node }, to: { instance: to.n.instance, node: to.n.node }, replicas });
      }
    }
  }
  const order = (m: MachineMove) => [m.from.instance, m.from.node, m.to.instance, m.to.node];
  moves.sort((x, y) => {
    const a = order(x);
    const b = order(y);
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return compareNames(a[i], b[i]);
    return 0;
  });
  diff.moved.push(...moves);
  const change = (side: { n: NodeCounts; left: number }): MachineChange => ({
    tenant,
    pool,
    instance: side.n.instance,
    node: side.n.node,
    replicas: side.left,
  });
  diff.removed.push(...leaving.filter((s) => s.left > 0).map(change));
  diff.added.push(...arriving.filter((s) => s.left > 0).map(change));
}

/** True when the two plans place every machine the same way. */
export function isEmptyDiff(diff: PlacementDiff): boolean {
  return Object.values(diff).every((list: unknown[]) => list.length === 0);
}
