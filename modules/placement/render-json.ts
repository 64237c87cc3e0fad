/**
 * The JSON form of a plan (and optionally a diff): the contract other tools read. Every object is
 * rebuilt with a fixed key order so the bytes depend only on the plan's content, never on how
 * its objects were built.
 */
import { machinesAtLeast, type Scale } from '../config/scale';
import { capacityLedger } from './ledger';
import type { NodePlacement, NodeUsage, PlacementDiff, PlacementPlan, PoolPlan, TenantPlan } from './types';

/** A node group's scale as placement.json has always written it: `replicas` (autoscaled: its min), then `min` and `max` when autoscaled. */
function placementJson(p: NodePlacement) {
  const scale = p.scale;
  return {
    instance: p.instance,
    node: p.node,
    replicas: machinesAtLeast(scale),
    ...(scale.kind === 'autoscaled' ? { min: scale.min, max: scale.max } : {}),
  };
}

function poolJson(pool: PoolPlan) {
  return {
    name: pool.name,
    replicas: machinesAtLeast(pool.scale),
    ...(pool.scale.kind === 'autoscaled' ? { autoscaling: { min: pool.scale.min, max: pool.scale.max } } : {}),
    size: { cpu: pool.size.cpu, memoryMiB: pool.size.memoryMiB, diskGiB: pool.size.diskGiB },
    ...(pool.pinned !== undefined ? { pinned: pool.pinned } : {}),
    placements: pool.placements.map(placementJson),
    ...(pool.failover !== undefined
      ? {
          failover: pool.failover.map((f) => ({
            lost: { instance: f.lost.instance, node: f.lost.node },
            machines: f.machines,
            to: f.to.map((t) => ({ instance: t.instance, node: t.node, replicas: t.replicas })),
          })),
        }
      : {}),
  };
}

function quotaJson(q: { cpu: number; memoryMiB: number; diskGiB?: number }) {
  return { cpu: q.cpu, memoryMiB: q.memoryMiB, ...(q.diskGiB !== undefined ? { diskGiB: q.diskGiB } : {}) };
}

function tenantJson(tenant: TenantPlan) {
  return {
    name: tenant.name,
    mode: tenant.mode,
    kubernetesVersion: tenant.kubernetesVersion,
    ha: { survivesNodeLoss: tenant.ha.survivesNodeLoss, survivesInstanceLoss: tenant.ha.survivesInstanceLoss },
    haConditions: tenant.haConditions.map((c) => ({
      type: c.type,
      status: c.status,
      reason: c.reason,
      message: c.message,
      causes: c.causes.map((k) => ({ pool: k.pool, instance: k.instance, ...(k.node !== undefined ? { node: k.node } : {}), machines: k.machines })),
    })),
    instances: [...tenant.instances],
    ...(tenant.ranking ? { ranking: [...tenant.ranking] } : {}),
    reason: tenant.reason,
    ...(tenant.quota ? { quota: quotaJson(tenant.quota) } : {}),
    ...(tenant.volumeStorages ? { volumeStorages: [...tenant.volumeStorages] } : {}),
    pools: tenant.pools.map(poolJson),
  };
}

function nodeJson(node: NodeUsage) {
  return {
    instance: node.instance,
    node: node.node,
    cpu: { capacity: node.cpu.capacity, planned: node.cpu.planned },
    memoryMiB: { capacity: node.memoryMiB.capacity, planned: node.memoryMiB.planned },
    tenants: node.tenants.map((t) => ({ name: t.name, cpu: t.cpu, memoryMiB: t.memoryMiB })),
  };
}

const ref = (r: { instance: string; node: string }) => ({ instance: r.instance, node: r.node });
const size = (s: { cpu: number; memoryMiB: number; diskGiB: number }) => ({ cpu: s.cpu, memoryMiB: s.memoryMiB, diskGiB: s.diskGiB });

function diffJson(diff: PlacementDiff) {
  const change = (c: PlacementDiff['added'][number]) => ({ tenant: c.tenant, pool: c.pool, instance: c.instance, node: c.node, replicas: c.replicas });
  return {
    tenants: diff.tenants.map((t) => ({ name: t.name, before: t.before && [...t.before], after: t.after && [...t.after] })),
    moved: diff.moved.map((m) => ({ tenant: m.tenant, pool: m.pool, from: ref(m.from), to: ref(m.to), replicas: m.replicas })),
    added: diff.added.map(change),
    removed: diff.removed.map(change),
    bounds: diff.bounds.map((b) => ({
      tenant: b.tenant,
      pool: b.pool,
      instance: b.instance,
      node: b.node,
      before: { min: b.before.min, max: b.before.max },
      after: { min: b.after.min, max: b.after.max },
    })),
    resized: diff.resized.map((r) => ({ tenant: r.tenant, pool: r.pool, before: size(r.before), after: size(r.after) })),
  };
}

/** The capacity ledger, with fixed key order. */
export function ledgerJson(plan: PlacementPlan) {
  const ledger = capacityLedger(plan);
  const pair = (x: { capacity: number; reserved: number }) => ({ capacity: x.capacity, reserved: x.reserved });
  const room = (x: { capacity: number; planned: number; free: number; surge?: number }) => ({
    capacity: x.capacity,
    planned: x.planned,
    ...(x.surge !== undefined ? { surge: x.surge } : {}),
    free: x.free,
  });
  return {
    tenants: ledger.tenants.map((t) => ({
      tenant: t.tenant,
      instance: t.instance,
      machines: t.machines,
      cpu: t.cpu,
      memoryMiB: t.memoryMiB,
      diskGiB: t.diskGiB,
      ...(t.volumeStorages ? { volumeStorages: [...t.volumeStorages] } : {}),
      ...(t.quota ? { quota: quotaJson(t.quota) } : {}),
    })),
    instances: ledger.instances.map((i) => ({ instance: i.instance, cpu: pair(i.cpu), memoryMiB: pair(i.memoryMiB) })),
    nodes: ledger.nodes.map((n) => ({ instance: n.instance, node: n.node, cpu: room(n.cpu), memoryMiB: room(n.memoryMiB) })),
  };
}

/**
 * The plan as JSON, 2-space indented with a trailing newline; `diff` adds a "diff" key; `extra.vips`
 * a "vips" key (synth's placement.json: every tenant's control-plane VIP and why, the next synth's
 * memory — modules/tenants/vip.ts).
 */
export function renderJson(plan: PlacementPlan, diff?: PlacementDiff, extra: { vips?: readonly Record<string, unknown>[] } = {}): string {
  const document = {
    tenants: plan.tenants.map(tenantJson),
    nodes: plan.nodes.map(nodeJson),
    ledger: ledgerJson(plan),
    warnings: [...plan.warnings],
    ...(plan.surge
      ? {
          surge: plan.surge.map((r) => ({
            tenant: r.tenant,
            pool: r.pool,
            instance: r.instance,
            node: r.node,
            version: r.version,
            machines: r.machines,
            cpu: r.cpu,
            memoryMiB: r.memoryMiB,
            ...(r.held ? { held: true } : {}),
          })),
        }
      : {}),
    ...(diff ? { diff: diffJson(diff) } : {}),
    ...(extra.vips ? { vips: extra.vips } : {}),
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}

/** A node group as placement.json writes it. */
interface NodeGroupJson {
  instance: string;
  node: string;
  replicas: number;
  min?: number;
  max?: number;
}

/** A pool as placement.json writes it. */
type PoolJson = Omit<PoolPlan, 'scale' | 'placements'> & { replicas: number; autoscaling?: { min: number; max: number }; placements: NodeGroupJson[] };

type PlanJson = Omit<PlacementPlan, 'tenants'> & { tenants: (Omit<TenantPlan, 'pools'> & { pools: PoolJson[] })[] };

function nodeGroupFromJson({ replicas, min, max, ...p }: NodeGroupJson, pool: PoolJson): NodePlacement {
  if (!pool.autoscaling) return { ...p, scale: { kind: 'fixed', replicas } };
  if (min === undefined || max === undefined) throw new Error(`placement.json: pool ${pool.name} is autoscaled, its node group on ${p.node} has no min or max`);
  return { ...p, scale: { kind: 'autoscaled', min, max } };
}

/**
 * The plan back from `placement.json` (what `renderJson` wrote): every pool's and node group's
 * scale typed again (a pool with `autoscaling` is autoscaled, and so is each of its node groups);
 * every other field as written. The document's extra keys (`ledger`, `diff`, `vips`) stay on the
 * object, untyped.
 */
export function planFromJson(text: string): PlacementPlan {
  const document = JSON.parse(text) as PlanJson;
  return {
    ...document,
    tenants: document.tenants.map((tenant) => ({
      ...tenant,
      pools: tenant.pools.map((pool) => {
        const { replicas, autoscaling, placements, ...rest } = pool;
        const scale: Scale = autoscaling ? { kind: 'autoscaled', min: autoscaling.min, max: autoscaling.max } : { kind: 'fixed', replicas };
        return { ...rest, scale, placements: placements.map((p) => nodeGroupFromJson(p, pool)) };
      }),
    })),
  };
}
