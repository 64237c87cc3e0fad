/**
 * The placer: the instances and nodes of the lab as flat arrays of capacity, and the placement of
 * one pool (or one tenant's pools) on them. `plan.ts` runs it tenant by tenant; this file holds the
 * models, the demand and draft of a pool, and the three ways a tenant's pools are placed: whole on
 * one instance (pinned pools, Default mode), SingleInstance and MultiInstance.
 */
import type { Problem } from '../config/problems';
import { machinesAtLeast, machinesAtMost, poolScale, type Scale } from '../config/scale';
import type { Lab, Pool, Tenant } from '../config/schema';
import { fnv1a, rendezvousWeight } from './hash';
import { fairShare, spreadCount } from './spread';
import type { NodePlacement, NodeUsage, PoolPlan } from './types';

/** Code-unit order: the same on every platform and locale, unlike localeCompare. */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export interface InstanceModel {
  name: string;
  hash: number;
  /** Index in proxmox.instances. */
  position: number;
  /** Its nodes are the global node indices first..end-1, sorted by node name. */
  first: number;
  end: number;
}

/** One pool of one tenant, as demand: `count` machines reserve capacity (max for autoscaled), `min` of them always there. */
export interface PoolDemand {
  tenant: string;
  pool: Pool;
  key: number;
  /** The pool's scale, as the description asks. */
  scale: Scale;
  count: number;
  min: number;
  autoscaled: boolean;
}

export interface PoolDraft {
  demand: PoolDemand;
  placements: NodePlacement[];
  /** Global node index of each placement. */
  nodes: number[];
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export class Placer {
  readonly instances: InstanceModel[];
  readonly instanceByName = new Map<string, InstanceModel>();
  readonly defaultInstance: InstanceModel;
  readonly nodeName: string[] = [];
  readonly nodeHash: number[] = [];
  readonly nodeInstance: InstanceModel[] = [];
  readonly capCpu: number[] = [];
  readonly capMem: number[] = [];
  readonly freeCpu: Float64Array;
  readonly freeMem: Float64Array;
  readonly nodeTenants: NodeUsage['tenants'][] = [];
  readonly warnings: string[] = [];
  readonly problems: Problem[] = [];
  private readonly tenants: readonly Tenant[];

  /**
   * Records a problem of a tenant at its path in the description: the pool when there is one,
   * else `at` under the tenant (e.g. its placement.instances), else the tenant.
   */
  problem(rule: string, tenant: string, pool: string | undefined, message: string, fix: string, at: string[] = []): void {
    const ti = this.tenants.findIndex((t) => t.name === tenant);
    const pi = pool !== undefined && ti >= 0 ? this.tenants[ti].pools.findIndex((p) => p.name === pool) : -1;
    const path = ti < 0 ? [] : pi >= 0 ? ['tenants', ti, 'pools', pi] : ['tenants', ti, ...at];
    this.problems.push({ path, message, fix, rule });
  }

  // Scratch space reused by every pool, so the hot path allocates only what it returns.
  private readonly slotCaps: Float64Array;
  private readonly slotMax: Float64Array;
  private readonly slotMin: Float64Array;
  private readonly weights: Float64Array;
  private readonly order: Int32Array;
  readonly identity: Int32Array;
  readonly instanceCaps: Float64Array;
  readonly instanceMax: Float64Array;
  readonly instanceMin: Float64Array;
  private readonly tenantCpu: Float64Array;
  private readonly tenantMem: Float64Array;

  constructor(lab: Lab) {
    const { reserve } = lab.proxmox;
    this.tenants = lab.tenants;
    this.instances = lab.proxmox.instances.map((instance, position) => {
      const model: InstanceModel = { name: instance.name, hash: fnv1a(instance.name), position, first: this.nodeName.length, end: 0 };
      for (const node of [...instance.nodes].sort((a, b) => compareNames(a.name, b.name))) {
        this.nodeName.push(node.name);
        this.nodeHash.push(fnv1a(`${instance.name}/${node.name}`));
        this.nodeInstance.push(model);
        this.capCpu.push(node.down ? 0 : Math.max(0, node.cpu - reserve.cpu));
        this.capMem.push(node.down ? 0 : Math.max(0, node.memoryMiB - reserve.memoryMiB));
        this.nodeTenants.push([]);
        if (node.down) {
          this.warnings.push(`node ${node.name} of ${instance.name} is down: nothing is planned on it until down: true is removed`);
        } else if (node.cpu <= reserve.cpu || node.memoryMiB <= reserve.memoryMiB) {
          this.warnings.push(
            `node ${node.name} of ${instance.name} has ${node.cpu} cpu and ${node.memoryMiB} MiB, not more than the reserve ` +
              `(${reserve.cpu} cpu, ${reserve.memoryMiB} MiB): no machine can be planned on it`,
          );
        }
      }
      model.end = this.nodeName.length;
      this.instanceByName.set(model.name, model);
      return model;
    });
    this.defaultInstance = this.instances[0];
    const nodes = this.nodeName.length;
    this.freeCpu = Float64Array.from(this.capCpu);
    this.freeMem = Float64Array.from(this.capMem);
    this.tenantCpu = new Float64Array(nodes);
    this.tenantMem = new Float64Array(nodes);
    const widest = Math.max(this.instances.length, ...this.instances.map((i) => i.end - i.first));
    this.slotCaps = new Float64Array(widest);
    this.slotMax = new Float64Array(widest);
    this.slotMin = new Float64Array(widest);
    this.weights = new Float64Array(widest);
    this.order = new Int32Array(widest);
    this.identity = Int32Array.from({ length: widest }, (_, i) => i);
    this.instanceCaps = new Float64Array(this.instances.length);
    this.instanceMax = new Float64Array(this.instances.length);
    this.instanceMin = new Float64Array(this.instances.length);
  }

  /** How many more machines of this size the node can take. */
  private nodeRoom(node: number, cpu: number, memoryMiB: number): number {
    return Math.min(Math.floor(this.freeCpu[node] / cpu), Math.floor(this.freeMem[node] / memoryMiB));
  }

  instanceRoom(instance: InstanceModel, cpu: number, memoryMiB: number): number {
    let room = 0;
    for (let node = instance.first; node < instance.end; node++) room += this.nodeRoom(node, cpu, memoryMiB);
    return room;
  }

  /** The eligible instances in the tenant's rendezvous order, best first (ties by name). */
  rankInstances(tenantName: string, eligible: InstanceModel[]): InstanceModel[] {
    const key = fnv1a(tenantName);
    return eligible
      .map((instance) => ({ instance, weight: rendezvousWeight(key, instance.hash) }))
      .sort((a, b) => b.weight - a.weight || compareNames(a.instance.name, b.instance.name))
      .map((r) => r.instance);
  }

  /** The instance's nodes (local indices) in the pool's rendezvous order, into `this.order`. */
  private rankNodes(instance: InstanceModel, poolKey: number): Int32Array {
    const { weights, order } = this;
    const count = instance.end - instance.first;
    for (let i = 0; i < count; i++) {
      weights[i] = rendezvousWeight(poolKey, this.nodeHash[instance.first + i]);
      order[i] = i;
    }
    // Insertion sort: an instance has a handful of nodes; ties go to the node sorted first by name.
    for (let i = 1; i < count; i++) {
      const slot = order[i];
      const weight = weights[slot];
      let j = i - 1;
      while (j >= 0 && (weights[order[j]] < weight || (weights[order[j]] === weight && order[j] > slot))) {
        order[j + 1] = order[j];
        j--;
      }
      order[j + 1] = slot;
    }
    return order;
  }

  /**
   * Places `count` machines (autoscaled: `min` of them guaranteed) of a pool on one instance's
   * nodes. The caller has checked that the instance has room for `count`.
   */
  placeOnInstance(instance: InstanceModel, demand: PoolDemand, count: number, min: number, draft: PoolDraft): void {
    const { cpu, memoryMiB } = demand.pool.size;
    const { slotCaps, slotMax, slotMin } = this;
    const nodes = instance.end - instance.first;
    for (let i = 0; i < nodes; i++) slotCaps[i] = this.nodeRoom(instance.first + i, cpu, memoryMiB);
    let ranked: Int32Array | undefined;
    const rankedNodes = () => (ranked ??= this.rankNodes(instance, demand.key));
    spreadCount(count, slotCaps, nodes, rankedNodes, slotMax);
    if (demand.autoscaled) spreadCount(min, slotMax, nodes, rankedNodes, slotMin);
    let most = 0;
    for (let i = 0; i < nodes; i++) {
      const placed = slotMax[i];
      if (placed > most) most = placed;
      if (placed === 0) continue;
      const node = instance.first + i;
      this.freeCpu[node] -= placed * cpu;
      this.freeMem[node] -= placed * memoryMiB;
      draft.nodes.push(node);
      draft.placements.push(
        demand.autoscaled
          ? { instance: instance.name, node: this.nodeName[node], scale: { kind: 'autoscaled', min: slotMin[i], max: placed } }
          : { instance: instance.name, node: this.nodeName[node], scale: { kind: 'fixed', replicas: placed } },
      );
    }
    this.warnUneven(instance, demand, nodes, most);
  }

  /** Nodes that could hold the pool when empty but got two fewer than another were full. */
  private warnUneven(instance: InstanceModel, demand: PoolDemand, nodes: number, most: number): void {
    const { cpu, memoryMiB } = demand.pool.size;
    const full: string[] = [];
    for (let i = 0; i < nodes; i++) {
      const node = instance.first + i;
      if (this.slotMax[i] < most - 1 && this.capCpu[node] >= cpu && this.capMem[node] >= memoryMiB) full.push(this.nodeName[node]);
    }
    if (full.length === 0) return;
    const counts: string[] = [];
    for (let i = 0; i < nodes; i++) counts.push(`${this.nodeName[instance.first + i]}: ${this.slotMax[i]}`);
    this.warnings.push(
      `tenant ${demand.tenant}, pool ${demand.pool.name}: spread unevenly over the nodes of ${instance.name} ` +
        `(${counts.join(', ')}${demand.autoscaled ? ', autoscaling max' : ''}) ` +
        `because ${full.join(', ')} ${full.length === 1 ? 'has' : 'have'} no room for more`,
    );
  }

  /** Why `demand` does not fit on `tried`: room, need, free capacity and the shortage. */
  shortage(tried: InstanceModel[], demand: PoolDemand): string {
    const { cpu, memoryMiB } = demand.pool.size;
    let freeCpu = 0;
    let freeMem = 0;
    let room = 0;
    for (const instance of tried) {
      room += this.instanceRoom(instance, cpu, memoryMiB);
      for (let node = instance.first; node < instance.end; node++) {
        freeCpu += this.freeCpu[node];
        freeMem += this.freeMem[node];
      }
    }
    let mostCpu = 0;
    let mostMem = 0;
    let oneFits = false;
    for (const instance of tried) {
      for (let node = instance.first; node < instance.end; node++) {
        mostCpu = Math.max(mostCpu, this.capCpu[node]);
        mostMem = Math.max(mostMem, this.capMem[node]);
        if (this.capCpu[node] >= cpu && this.capMem[node] >= memoryMiB) oneFits = true;
      }
    }
    if (!oneFits) {
      return (
        `one machine of ${cpu} cpu and ${memoryMiB} MiB is larger than any node of ${tried.map((i) => i.name).join(', ')} ` +
        `(the nodes offer at most ${mostCpu} cpu and at most ${mostMem} MiB after the reserve)`
      );
    }
    const needCpu = demand.count * cpu;
    const needMem = demand.count * memoryMiB;
    const shortCpu = needCpu - freeCpu;
    const shortMem = needMem - freeMem;
    const short =
      shortCpu > 0 && shortMem > 0
        ? `short of ${shortCpu} cpu and ${shortMem} MiB memory`
        : shortCpu > 0
          ? `short of ${shortCpu} cpu`
          : shortMem > 0
            ? `short of ${shortMem} MiB memory`
            : `enough cpu and memory in total, but split over the nodes so that none has room for another whole machine`;
    const what = demand.autoscaled ? `autoscaling max ${demand.count}` : plural(demand.count, 'machine');
    return (
      `${what} of ${cpu} cpu and ${memoryMiB} MiB need ${needCpu} cpu and ${needMem} MiB; ` +
      `${tried.map((i) => i.name).join(', ')} ${tried.length === 1 ? 'has' : 'have'} ${freeCpu} cpu and ${freeMem} MiB free ` +
      `after the reserve and earlier placements, room for ${room}: ${short}`
    );
  }

  /** Moves the tenant's usage of each node it landed on into that node's tenant list. */
  recordTenant(tenant: string, drafts: PoolDraft[]): void {
    const touched: number[] = [];
    for (const draft of drafts) {
      const { cpu, memoryMiB } = draft.demand.pool.size;
      draft.placements.forEach((placement, p) => {
        const node = draft.nodes[p];
        const machines = machinesAtMost(placement.scale);
        if (this.tenantCpu[node] === 0 && this.tenantMem[node] === 0) touched.push(node);
        this.tenantCpu[node] += machines * cpu;
        this.tenantMem[node] += machines * memoryMiB;
      });
    }
    for (const node of touched.sort((a, b) => a - b)) {
      this.nodeTenants[node].push({ name: tenant, cpu: this.tenantCpu[node], memoryMiB: this.tenantMem[node] });
      this.tenantCpu[node] = 0;
      this.tenantMem[node] = 0;
    }
  }

  /**
   * Instance-level split of a pool over ranked instances (see `spreadCount`), into `instanceMax`
   * and `instanceMin` by rank; valid until the next call.
   */
  splitOverInstances(ranking: InstanceModel[], demand: PoolDemand): number {
    const { cpu, memoryMiB } = demand.pool.size;
    const { instanceCaps, instanceMax, instanceMin } = this;
    ranking.forEach((instance, j) => (instanceCaps[j] = this.instanceRoom(instance, cpu, memoryMiB)));
    const byRank = () => this.identity;
    const placed = spreadCount(demand.count, instanceCaps, ranking.length, byRank, instanceMax);
    if (demand.autoscaled && placed === demand.count) spreadCount(demand.min, instanceMax, ranking.length, byRank, instanceMin);
    return placed;
  }

  saveInstance(instance: InstanceModel): { cpu: Float64Array; mem: Float64Array } {
    return { cpu: this.freeCpu.slice(instance.first, instance.end), mem: this.freeMem.slice(instance.first, instance.end) };
  }

  restoreInstance(instance: InstanceModel, saved: { cpu: Float64Array; mem: Float64Array }): void {
    this.freeCpu.set(saved.cpu, instance.first);
    this.freeMem.set(saved.mem, instance.first);
  }
}

export function demandOf(tenant: Tenant, pool: Pool): PoolDemand {
  const scale = poolScale(pool);
  return {
    tenant: tenant.name,
    pool,
    key: fnv1a(`${tenant.name}/${pool.name}`),
    scale,
    count: machinesAtMost(scale),
    min: machinesAtLeast(scale),
    autoscaled: scale.kind === 'autoscaled',
  };
}

function newDraft(demand: PoolDemand): PoolDraft {
  return { demand, placements: [], nodes: [] };
}

/** Places a pool on one instance, or records the problem; `why` says why only that instance, `fix` the way out. */
export function placeWhole(placer: Placer, instance: InstanceModel, demand: PoolDemand, why: string, fix: string): PoolDraft | undefined {
  const { cpu, memoryMiB } = demand.pool.size;
  if (placer.instanceRoom(instance, cpu, memoryMiB) < demand.count) {
    placer.problem(
      'placement.no-room-on-instance',
      demand.tenant,
      demand.pool.name,
      `tenant ${demand.tenant}, pool ${demand.pool.name} (${why}): does not fit on ${instance.name}: ${placer.shortage([instance], demand)}`,
      `add nodes or capacity to ${instance.name}, make the pool smaller, or ${fix}`,
    );
    return undefined;
  }
  const draft = newDraft(demand);
  placer.placeOnInstance(instance, demand, demand.count, demand.min, draft);
  return draft;
}

export function placeSingleInstance(
  placer: Placer,
  tenant: Tenant,
  ranking: InstanceModel[],
  free: PoolDemand[],
  drafts: PoolDraft[],
  machines: number,
  countsMax: string,
): string {
  const order = ranking.map((i) => i.name).join(' > ');
  const refusals: string[] = [];
  for (const instance of ranking) {
    const saved = placer.saveInstance(instance);
    const warningsBefore = placer.warnings.length;
    const tried: PoolDraft[] = [];
    let refusal: string | undefined;
    for (const demand of free) {
      const { cpu, memoryMiB } = demand.pool.size;
      if (placer.instanceRoom(instance, cpu, memoryMiB) < demand.count) {
        refusal = `${instance.name}, pool ${demand.pool.name}: ${placer.shortage([instance], demand)}`;
        break;
      }
      const draft = newDraft(demand);
      placer.placeOnInstance(instance, demand, demand.count, demand.min, draft);
      tried.push(draft);
    }
    if (refusal === undefined) {
      drafts.push(...tried);
      if (refusals.length > 0) {
        placer.warnings.push(
          `tenant ${tenant.name}: placed on ${instance.name}, not on its better-ranked ${ranking
            .slice(0, refusals.length)
            .map((i) => i.name)
            .join(', ')}, for lack of room (it moves there once room is made): ${refusals.join('; ')}`,
        );
      }
      const passed =
        refusals.length > 0
          ? `; ${ranking
              .slice(0, refusals.length)
              .map((i) => i.name)
              .join(', ')} lacked room`
          : '';
      return (
        `SingleInstance: the rendezvous ranking of the eligible instances for ${tenant.name} is ${order}; ` +
        `${instance.name} is the best-ranked that holds all ${plural(machines, 'machine')}${countsMax}${passed}.`
      );
    }
    // A rejected instance leaves no trace: neither capacity taken nor warnings about its nodes.
    placer.restoreInstance(instance, saved);
    placer.warnings.length = warningsBefore;
    refusals.push(refusal);
  }
  placer.problem(
    'placement.single-instance-no-room',
    tenant.name,
    undefined,
    `tenant ${tenant.name} (SingleInstance): no eligible instance holds all its ${plural(machines, 'machine')}${countsMax}; ` +
      `tried ${order}: ${refusals.map((r) => `on ${r}`).join('; ')}`,
    'add nodes or capacity to one of them, make the pools smaller, allow more instances in placement.instances, or use mode MultiInstance',
  );
  return '';
}

export function placeMultiInstanceTenant(placer: Placer, tenant: Tenant, ranking: InstanceModel[], free: PoolDemand[], drafts: PoolDraft[]): string {
  const byName = ranking.map((_, j) => j).sort((a, b) => compareNames(ranking[a].name, ranking[b].name));
  let limited = false;
  for (const demand of free) {
    const result = placeMultiInstance(placer, ranking, byName, demand);
    if (result === undefined) continue;
    drafts.push(result.draft);
    limited ||= result.limited;
  }
  return (
    `MultiInstance over ${ranking.map((i) => i.name).join(' > ')} (the rendezvous ranking for ${tenant.name}): each pool is split so that ` +
    `instance counts differ by at most one, the extra machines going to the better-ranked instances` +
    (limited ? '; capacity limited the split (see the warnings).' : '.')
  );
}

function placeMultiInstance(
  placer: Placer,
  ranking: InstanceModel[],
  byName: number[],
  demand: PoolDemand,
): { draft: PoolDraft; limited: boolean } | undefined {
  const placed = placer.splitOverInstances(ranking, demand);
  if (placed < demand.count) {
    placer.problem(
      'placement.multi-instance-no-room',
      demand.tenant,
      demand.pool.name,
      `tenant ${demand.tenant}, pool ${demand.pool.name} (MultiInstance): does not fit on ${ranking.map((i) => i.name).join(', ')}: ${placer.shortage(ranking, demand)}`,
      'add nodes or capacity, make the pool smaller, or allow more instances in placement.instances',
    );
    return undefined;
  }
  const { instanceMax: max, instanceMin: min } = placer;
  let limited = false;
  for (let j = 0; j < ranking.length && !limited; j++) limited = max[j] < fairShare(demand.count, ranking.length, placer.identity, j);
  if (limited) {
    const short: string[] = [];
    const over: string[] = [];
    ranking.forEach((instance, j) => {
      const share = fairShare(demand.count, ranking.length, placer.identity, j);
      if (max[j] < share) short.push(`${instance.name} has room for only ${max[j]} of its share of ${share}`);
      else if (max[j] > share) over.push(`${instance.name} took ${max[j] - share} more`);
    });
    placer.warnings.push(
      `tenant ${demand.tenant}, pool ${demand.pool.name}: ${short.join(', ')}${demand.autoscaled ? ' (autoscaling max)' : ''}; ${over.join(', ')}`,
    );
  }
  const draft = newDraft(demand);
  // Instances in name order, so that the placements come out sorted.
  for (const j of byName) {
    if (max[j] > 0) placer.placeOnInstance(ranking[j], demand, max[j], demand.autoscaled ? min[j] : max[j], draft);
  }
  return { draft, limited };
}

export function toPoolPlan(draft: PoolDraft): PoolPlan {
  const { pool, scale } = draft.demand;
  const plan: PoolPlan = {
    name: pool.name,
    scale,
    size: { cpu: pool.size.cpu, memoryMiB: pool.size.memoryMiB, diskGiB: pool.size.diskGiB },
    placements: draft.placements,
  };
  if (pool.instance !== undefined) plan.pinned = pool.instance;
  return plan;
}
