/**
 * The capacity ledger: who holds what. Per tenant and instance the vCPUs and memory its machines
 * reserve (autoscaled pools at their max, as placement reserves them), per instance the totals,
 * and per node the headroom left. Derived from the plan only, so it always adds up to it.
 */
import { machinesAtMost } from '../config/scale';
import { compareNames } from './plan';
import type { PlacementPlan } from './types';

export interface LedgerEntry {
  tenant: string;
  instance: string;
  /** Machines at max (fixed pools: replicas). */
  machines: number;
  cpu: number;
  memoryMiB: number;
  /** GiB of machine disks at max (pool size.diskGiB × machines). */
  diskGiB: number;
  /** The tenant's volume storages on this instance (each the tenant's alone: its size bounds the volumes). */
  volumeStorages?: string[];
  /** The tenant's quota, when it has one (applies to the tenant as a whole, over all instances). */
  quota?: { cpu: number; memoryMiB: number; diskGiB?: number };
}

export interface NodeHeadroom {
  instance: string;
  node: string;
  /** `free` is what is left after the plan and, during a surge, the retiring machines (`surge`). */
  cpu: { capacity: number; planned: number; free: number; surge?: number };
  memoryMiB: { capacity: number; planned: number; free: number; surge?: number };
}

export interface CapacityLedger {
  /** Sorted by tenant, then instance. */
  tenants: LedgerEntry[];
  /** Per instance (description order): the sums of its entries, and its capacity after the reserve. */
  instances: { instance: string; cpu: { capacity: number; reserved: number }; memoryMiB: { capacity: number; reserved: number } }[];
  /** In the plan's node order. */
  nodes: NodeHeadroom[];
}

/** Builds the ledger from the plan (quotas come with the tenants' plans). */
export function capacityLedger(plan: PlacementPlan): CapacityLedger {
  const quotas = new Map(plan.tenants.filter((t) => t.quota).map((t) => [t.name, t.quota!]));
  const storages = new Map(plan.tenants.filter((t) => t.volumeStorages).map((t) => [t.name, t.volumeStorages!]));
  const entries = new Map<string, LedgerEntry>();
  for (const tenant of plan.tenants) {
    for (const pool of tenant.pools) {
      for (const p of pool.placements) {
        const key = `${tenant.name}\u0000${p.instance}`;
        let entry = entries.get(key);
        if (!entry) {
          entry = { tenant: tenant.name, instance: p.instance, machines: 0, cpu: 0, memoryMiB: 0, diskGiB: 0 };
          // Rule storage.unknown-storage: every instance the tenant runs on lists its storages.
          const volumeStorages = storages.get(tenant.name);
          if (volumeStorages) entry.volumeStorages = [...volumeStorages];
          const quota = quotas.get(tenant.name);
          if (quota) entry.quota = { ...quota };
          entries.set(key, entry);
        }
        const machines = machinesAtMost(p.scale);
        entry.machines += machines;
        entry.cpu += machines * pool.size.cpu;
        entry.memoryMiB += machines * pool.size.memoryMiB;
        entry.diskGiB += machines * pool.size.diskGiB;
      }
    }
  }
  const tenants = [...entries.values()].sort((a, b) => compareNames(a.tenant, b.tenant) || compareNames(a.instance, b.instance));
  const instanceOrder = [...new Set(plan.nodes.map((n) => n.instance))];
  const instances = instanceOrder.map((instance) => {
    const nodes = plan.nodes.filter((n) => n.instance === instance);
    const mine = tenants.filter((t) => t.instance === instance);
    return {
      instance,
      cpu: { capacity: nodes.reduce((s, n) => s + n.cpu.capacity, 0), reserved: mine.reduce((s, t) => s + t.cpu, 0) },
      memoryMiB: { capacity: nodes.reduce((s, n) => s + n.memoryMiB.capacity, 0), reserved: mine.reduce((s, t) => s + t.memoryMiB, 0) },
    };
  });
  // Surge, then retire: the retiring machines hold their node's capacity until the retire step (surge.ts).
  const surgeOn = (n: { instance: string; node: string }) => {
    const here = (plan.surge ?? []).filter((s) => s.instance === n.instance && s.node === n.node);
    return here.length === 0 ? undefined : { cpu: here.reduce((x, s) => x + s.cpu, 0), memoryMiB: here.reduce((x, s) => x + s.memoryMiB, 0) };
  };
  const nodes = plan.nodes.map((n) => {
    const surge = surgeOn(n);
    return {
      instance: n.instance,
      node: n.node,
      cpu: {
        capacity: n.cpu.capacity,
        planned: n.cpu.planned,
        free: n.cpu.capacity - n.cpu.planned - (surge?.cpu ?? 0),
        ...(surge ? { surge: surge.cpu } : {}),
      },
      memoryMiB: {
        capacity: n.memoryMiB.capacity,
        planned: n.memoryMiB.planned,
        free: n.memoryMiB.capacity - n.memoryMiB.planned - (surge?.memoryMiB ?? 0),
        ...(surge ? { surge: surge.memoryMiB } : {}),
      },
    };
  });
  return { tenants, instances, nodes };
}
