/**
 * Placement: which instance and node every machine of every tenant goes to, decided at synth time.
 *
 * Tenants are placed one after another in name order, each pool taking capacity from the nodes
 * it lands on, so the capacity decisions are reproducible whatever the order of the description.
 * Choices between instances use the rendezvous ranking of (tenant, instance); choices between
 * the nodes of an instance use the ranking of (tenant/pool, instance/node). Machines are placed as
 * counts per slot (see spread.ts), so planning 100k machines costs about what planning 100 does.
 */
import { problemCount, ProblemError, type Problem } from '../config/problems';
import { fixedTemplateFor, imageNodes, type Instance, type Lab, type PlacementMode, type Pool, type Tenant } from '../config/schema';
import { fnv1a, rendezvousWeight } from './hash';
import { fairShare, spreadCount } from './spread';
import type { HaCause, HaCondition, NodeFailover, NodePlacement, NodeRef, NodeUsage, PlacementPlan, PoolPlan, TenantPlan } from './types';

/** Code-unit order: the same on every platform and locale, unlike localeCompare. */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

interface InstanceModel {
  name: string;
  hash: number;
  /** Index in proxmox.instances. */
  position: number;
  /** Its nodes are the global node indices first..end-1, sorted by node name. */
  first: number;
  end: number;
}

/** One pool of one tenant, as demand: `count` machines reserve capacity (max for autoscaled). */
interface PoolDemand {
  tenant: string;
  pool: Pool;
  key: number;
  count: number;
  min: number;
  autoscaled: boolean;
}

interface PoolDraft {
  demand: PoolDemand;
  placements: NodePlacement[];
  /** Global node index of each placement. */
  nodes: number[];
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

class Placer {
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
  problem(tenant: string, pool: string | undefined, message: string, fix: string, at: string[] = []): void {
    const ti = this.tenants.findIndex((t) => t.name === tenant);
    const pi = pool !== undefined && ti >= 0 ? this.tenants[ti].pools.findIndex((p) => p.name === pool) : -1;
    const path = ti < 0 ? [] : pi >= 0 ? ['tenants', ti, 'pools', pi] : ['tenants', ti, ...at];
    this.problems.push({ path, message, fix });
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
          ? { instance: instance.name, node: this.nodeName[node], replicas: slotMin[i], min: slotMin[i], max: placed }
          : { instance: instance.name, node: this.nodeName[node], replicas: placed },
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
        const machines = placement.max ?? placement.replicas;
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

function demandOf(tenant: Tenant, pool: Pool): PoolDemand {
  const autoscaled = pool.autoscaling !== undefined;
  const count = pool.autoscaling?.max ?? pool.replicas ?? 0;
  return { tenant: tenant.name, pool, key: fnv1a(`${tenant.name}/${pool.name}`), count, min: pool.autoscaling?.min ?? count, autoscaled };
}

function newDraft(demand: PoolDemand): PoolDraft {
  return { demand, placements: [], nodes: [] };
}

/** The first line of the placement problems, when no file is known. */
export function placementTitle(problems: number): string {
  return `the lab does not fit its Proxmox instances: ${problemCount(problems)}`;
}

/**
 * Plans every machine of the lab onto an instance and node. Throws a `ProblemError` naming every
 * tenant and pool that does not fit (at its path in the description); a pool that does not fit is
 * left out while the rest is still planned, so one run reports every shortage.
 */
export function planPlacement(lab: Lab): PlacementPlan {
  const { plan, problems } = planPlacementPartial(lab);
  if (problems.length > 0) throw new ProblemError(problems, { title: placementTitle(problems.length) });
  return plan;
}

/**
 * Plans what fits and names what does not, without throwing: pools that do not fit are left
 * out of `plan` and described in `problems` (the what-if uses this to say which machines have
 * nowhere to go).
 */
export function planPlacementPartial(lab: Lab): { plan: PlacementPlan; problems: Problem[] } {
  const result = planOnce(lab);
  if (lab.tenants.some((t) => t.pools.some((p) => p.failover === true))) checkFailover(lab, result.plan, result.problems);
  return result;
}

function planOnce(lab: Lab): { plan: PlacementPlan; problems: Problem[] } {
  const placer = new Placer(lab);
  const tenants = [...lab.tenants].sort((a, b) => compareNames(a.name, b.name));
  const tenantPlans = tenants.map((tenant) => planTenant(placer, tenant));

  const nodes: NodeUsage[] = placer.nodeName.map((name, node) => ({
    instance: placer.nodeInstance[node].name,
    node: name,
    cpu: { capacity: placer.capCpu[node], planned: placer.capCpu[node] - placer.freeCpu[node] },
    memoryMiB: { capacity: placer.capMem[node], planned: placer.capMem[node] - placer.freeMem[node] },
    tenants: placer.nodeTenants[node],
  }));
  return { plan: { tenants: tenantPlans, nodes, warnings: placer.warnings }, problems: placer.problems };
}

function planTenant(placer: Placer, tenant: Tenant): TenantPlan {
  const mode: PlacementMode = tenant.placement.mode;
  const pools = [...tenant.pools].sort((a, b) => compareNames(a.name, b.name));
  const drafts: PoolDraft[] = [];
  const notes: string[] = [];
  let ranking: InstanceModel[] | undefined;

  // Pinned pools first: they have no alternative, the others can still go elsewhere.
  for (const pool of pools.filter((p) => p.instance !== undefined)) {
    const instance = placer.instanceByName.get(pool.instance as string);
    const demand = demandOf(tenant, pool);
    if (!instance) {
      placer.problem(tenant.name, pool.name, `tenant ${tenant.name}, pool ${pool.name}: pinned to unknown instance ${pool.instance}`, 'pin it to one of proxmox.instances, or unpin it');
      continue;
    }
    const draft = placeWhole(placer, instance, demand, `pinned to ${instance.name}`, 'pin it elsewhere or unpin it');
    if (draft) drafts.push(draft);
    notes.push(`Pool ${pool.name} is pinned to ${instance.name}.`);
  }

  const free = pools.filter((p) => p.instance === undefined).map((pool) => demandOf(tenant, pool));
  const machines = free.reduce((n, d) => n + d.count, 0);
  const countsMax = free.some((d) => d.autoscaled) ? ' (autoscaled pools counted at their max)' : '';
  let reason: string;
  if (mode === 'Default') {
    const home = placer.defaultInstance;
    if (tenant.placement.instances !== undefined) {
      placer.warnings.push(
        `tenant ${tenant.name}: placement.instances is ignored in Default mode, every machine goes to the default instance ${home.name}; ` +
          `use mode SingleInstance or MultiInstance to choose among instances`,
      );
    }
    for (const demand of free) {
      const draft = placeWhole(placer, home, demand, 'Default mode places every machine on the default instance', 'choose mode SingleInstance or MultiInstance to use other instances');
      if (draft) drafts.push(draft);
    }
    reason = `Default mode: every machine on the default instance ${home.name} (the first in proxmox.instances).`;
  } else {
    ranking = placer.rankInstances(tenant.name, eligibleInstances(placer, tenant));
    const order = ranking.map((i) => i.name).join(' > ');
    if (free.length === 0) {
      reason = `${mode}: every pool is pinned, so the instance ranking (${order}) is not used.`;
    } else if (mode === 'SingleInstance') {
      reason = placeSingleInstance(placer, tenant, ranking, free, drafts, machines, countsMax);
    } else {
      reason = placeMultiInstanceTenant(placer, tenant, ranking, free, drafts);
    }
  }

  placer.recordTenant(tenant.name, drafts);
  const poolPlans = drafts.map(toPoolPlan).sort((a, b) => compareNames(a.name, b.name));
  const instances = [...new Set(poolPlans.flatMap((p) => p.placements.map((x) => x.instance)))].sort(compareNames);
  const plan: TenantPlan = {
    name: tenant.name,
    mode,
    instances,
    reason: [reason, ...notes].join(' '),
    kubernetesVersion: tenant.kubernetesVersion,
    ha: haVerdict(poolPlans),
    haConditions: haConditions(poolPlans),
    pools: poolPlans,
  };
  if (ranking !== undefined) plan.ranking = ranking.map((i) => i.name);
  if (tenant.quota) plan.quota = { cpu: tenant.quota.cpu, memoryMiB: tenant.quota.memoryMiB };
  return plan;
}

function eligibleInstances(placer: Placer, tenant: Tenant): InstanceModel[] {
  const names = tenant.placement.instances;
  if (names === undefined) return placer.instances;
  const eligible: InstanceModel[] = [];
  for (const name of new Set(names)) {
    const instance = placer.instanceByName.get(name);
    if (instance) eligible.push(instance);
    else
      placer.problem(tenant.name, undefined, `tenant ${tenant.name}: placement.instances names unknown instance ${name}`, 'name only instances of proxmox.instances', [
        'placement',
        'instances',
      ]);
  }
  return eligible;
}

/** Places a pool on one instance, or records the problem; `why` says why only that instance, `fix` the way out. */
function placeWhole(placer: Placer, instance: InstanceModel, demand: PoolDemand, why: string, fix: string): PoolDraft | undefined {
  const { cpu, memoryMiB } = demand.pool.size;
  if (placer.instanceRoom(instance, cpu, memoryMiB) < demand.count) {
    placer.problem(
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

function placeSingleInstance(
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
      const passed = refusals.length > 0 ? `; ${ranking.slice(0, refusals.length).map((i) => i.name).join(', ')} lacked room` : '';
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
    tenant.name,
    undefined,
    `tenant ${tenant.name} (SingleInstance): no eligible instance holds all its ${plural(machines, 'machine')}${countsMax}; ` +
      `tried ${order}: ${refusals.map((r) => `on ${r}`).join('; ')}`,
    'add nodes or capacity to one of them, make the pools smaller, allow more instances in placement.instances, or use mode MultiInstance',
  );
  return '';
}

function placeMultiInstanceTenant(placer: Placer, tenant: Tenant, ranking: InstanceModel[], free: PoolDemand[], drafts: PoolDraft[]): string {
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

function placeMultiInstance(placer: Placer, ranking: InstanceModel[], byName: number[], demand: PoolDemand): { draft: PoolDraft; limited: boolean } | undefined {
  const placed = placer.splitOverInstances(ranking, demand);
  if (placed < demand.count) {
    placer.problem(
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

function toPoolPlan(draft: PoolDraft): PoolPlan {
  const { pool, autoscaled, min } = draft.demand;
  const plan: PoolPlan = {
    name: pool.name,
    replicas: autoscaled ? min : draft.demand.count,
    size: { cpu: pool.size.cpu, memoryMiB: pool.size.memoryMiB, diskGiB: pool.size.diskGiB },
    placements: draft.placements,
  };
  if (pool.autoscaling) plan.autoscaling = { min: pool.autoscaling.min, max: pool.autoscaling.max };
  if (pool.instance !== undefined) plan.pinned = pool.instance;
  return plan;
}

/**
 * A tenant survives the loss of a node (an instance) when every pool that has machines keeps at
 * least one after losing any one node (instance). Autoscaled pools count their `min`: the
 * machines that exist whatever the autoscaler does; a pool with none has nothing to lose.
 */
export function haVerdict(pools: PoolPlan[]): TenantPlan['ha'] {
  let survivesNodeLoss = true;
  let survivesInstanceLoss = true;
  for (const pool of pools) {
    const total = pool.placements.reduce((n, p) => n + p.replicas, 0);
    if (total === 0) continue;
    const perInstance = new Map<string, number>();
    for (const p of pool.placements) {
      if (p.replicas === total) survivesNodeLoss = false;
      perInstance.set(p.instance, (perInstance.get(p.instance) ?? 0) + p.replicas);
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
    const total = pool.placements.reduce((n, p) => n + p.replicas, 0);
    if (total === 0) continue;
    withMachines++;
    const node = pool.placements.find((p) => p.replicas === total);
    if (node) onOneNode.push({ pool: pool.name, instance: node.instance, node: node.node, machines: total });
    const perInstance = new Map<string, number>();
    for (const p of pool.placements) perInstance.set(p.instance, (perInstance.get(p.instance) ?? 0) + p.replicas);
    for (const [instance, machines] of perInstance) if (machines === total) onOneInstance.push({ pool: pool.name, instance, machines });
  }
  const what = (c: HaCause) => `pool ${c.pool} has ${c.machines === 1 ? 'its only machine' : `all ${c.machines} machines`}`;
  const condition = (type: HaCondition['type'], causes: HaCause[], where: (c: HaCause) => string, falseReason: HaCondition['reason'], spread: string): HaCondition => {
    if (withMachines === 0) return { type, status: 'True', reason: 'NoMachines', message: 'no pool has machines to lose (autoscaled pools with min 0)', causes: [] };
    if (causes.length === 0) return { type, status: 'True', reason: 'EveryPoolSpread', message: `every pool with machines has them on at least two ${spread}`, causes: [] };
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
  return [
    nodeLoss,
    condition('SurvivesInstanceLoss', onOneInstance, (c) => c.instance, 'PoolOnOneInstance', 'instances'),
  ];
}

/** The lab with one node down (what re-synth after its loss plans). */
function labWithDown(lab: Lab, instance: string, node: string): Lab {
  return {
    ...lab,
    proxmox: {
      ...lab.proxmox,
      instances: lab.proxmox.instances.map((i) => (i.name !== instance ? i : { ...i, nodes: i.nodes.map((n) => (n.name === node ? { ...n, down: true } : n)) })),
    },
  };
}

const capacityOf = (p: NodePlacement) => p.max ?? p.replicas;

/**
 * On shared disks, the nodes every machine of `version` on the instance is cloned from: the fixed
 * template's `sourceNode`, or the nodes the instance builds that version's image on. CAPMOX v0.9.0
 * clones through the template's node (`pkg/proxmox/goproxmox/api_client.go`, CloneVM: that node's
 * status, then `/nodes/<node>/qemu/<id>/clone`), so while it is down no machine can be created. Undefined on local disks (every node in use has its own
 * copy, issue 11 B2) and for user-built templates selected by tags (their node is not described).
 */
export function cloneSourceNodes(instance: Instance, version: string): string[] | undefined {
  if (!instance.storage.disksShared) return undefined;
  const fixed = fixedTemplateFor(instance, version);
  if (fixed) return [fixed.sourceNode];
  const image = instance.images.find((i) => i.kubernetesVersion === version);
  return image ? imageNodes(instance, image) : undefined;
}

/**
 * Pools with `failover: true`: for every node holding machines of one, the lab is planned again
 * with that node down — exactly what re-synth after its loss does — and every machine of the pool
 * must be placed there. Records where they go (`PoolPlan.failover`); a shortage is a problem at the
 * pool's `failover`, or only a warning while a node of the lab is already down (re-synth after a
 * loss is never refused for want of room for a second one). Pools without failover that would not
 * fit after a loss are named in a warning: re-synth is refused until they are made smaller.
 */
function checkFailover(lab: Lab, plan: PlacementPlan, problems: Problem[]): void {
  const degraded = lab.proxmox.instances.flatMap((i) => i.nodes.filter((n) => n.down).map((n) => `${n.name} (${i.name})`));
  const failoverPools = plan.tenants.flatMap((tenant) => {
    const ti = lab.tenants.findIndex((t) => t.name === tenant.name);
    return tenant.pools
      .filter((pool) => lab.tenants[ti].pools.find((p) => p.name === pool.name)?.failover === true)
      .map((pool) => ({ tenant, ti, pi: lab.tenants[ti].pools.findIndex((p) => p.name === pool.name), pool }));
  });
  const lostNodes = new Map<string, NodeRef>();
  for (const { pool } of failoverPools) {
    for (const p of pool.placements) if (capacityOf(p) > 0) lostNodes.set(`${p.instance}\u0000${p.node}`, { instance: p.instance, node: p.node });
  }
  for (const { pool } of failoverPools) pool.failover = [];
  // Pools without failover that a loss leaves without room, and the nodes whose loss does.
  const blocked = new Map<string, string[]>();
  // Failover pools a loss leaves without room, by pool and shortage, with the nodes whose loss does.
  const shortages = new Map<string, { f: (typeof failoverPools)[number]; why: string; nodes: string[] }>();
  // Instance order, then node name: the order of plan.nodes.
  const order = plan.nodes.filter((n) => lostNodes.has(`${n.instance}\u0000${n.node}`));
  for (const lost of order) {
    const replan = planOnce(labWithDown(lab, lost.instance, lost.node));
    const others = new Set<string>();
    const known = new Set(problems.map((p) => p.path.join('.')));
    for (const p of replan.problems) {
      if (p.path[0] !== 'tenants' || known.has(p.path.join('.'))) continue;
      const ti = p.path[1] as number;
      const pi = p.path[2] === 'pools' ? (p.path[3] as number) : undefined;
      const hits = failoverPools.filter((f) => f.ti === ti && (pi === undefined || f.pi === pi));
      if (hits.length === 0) others.add(`${lab.tenants[ti].name}${pi !== undefined ? `/${lab.tenants[ti].pools[pi].name}` : ''}`);
    }
    for (const f of failoverPools) {
      const here = f.pool.placements.find((p) => p.instance === lost.instance && p.node === lost.node);
      if (!here || capacityOf(here) === 0) continue;
      const instance = lab.proxmox.instances.find((i) => i.name === lost.instance) as Instance;
      const sources = cloneSourceNodes(instance, f.tenant.kubernetesVersion);
      if (sources !== undefined && sources.length === 1 && sources[0] === lost.node) {
        plan.warnings.push(
          `tenant ${f.tenant.name}, pool ${f.pool.name} (failover): ${lost.node} holds ${lost.instance}'s ${f.tenant.kubernetesVersion} template, ` +
            `and CAPMOX clones through the template's node: if ${lost.node} is lost, no machine of the tenant on ${lost.instance} can be created until it is back ` +
            `or the template is on another node (template.sourceNode, or the image's nodes), whatever room the survivors have`,
        );
      }
      const refused = replan.problems.filter((p) => p.path[0] === 'tenants' && p.path[1] === f.ti && (p.path[2] !== 'pools' || p.path[3] === f.pi));
      const after = replan.plan.tenants.find((t) => t.name === f.tenant.name)?.pools.find((p) => p.name === f.pool.name);
      if (refused.length > 0 || !after) {
        // The re-plan's own sentence without its "tenant t, pool p (why): " head, which this message already says.
        const why = refused.map((p) => p.message.replace(/^tenant \S+(, pool \S+)? \([^)]*\): /, '')).join('; ');
        const key = `${f.ti}/${f.pi}\u0000${why}`;
        const entry = shortages.get(key) ?? { f, why, nodes: [] };
        entry.nodes.push(`${lost.node} (${lost.instance})`);
        shortages.set(key, entry);
        continue;
      }
      const to: NodeFailover['to'] = [];
      for (const p of after.placements) {
        const before = f.pool.placements.find((x) => x.instance === p.instance && x.node === p.node);
        const more = capacityOf(p) - (before ? capacityOf(before) : 0);
        if (more > 0) to.push({ instance: p.instance, node: p.node, replicas: more });
      }
      (f.pool.failover as NodeFailover[]).push({ lost: { instance: lost.instance, node: lost.node }, machines: capacityOf(here), to });
    }
    if (others.size > 0) {
      const names = [...others].sort(compareNames).join(', ');
      blocked.set(names, [...(blocked.get(names) ?? []), `${lost.node} (${lost.instance})`]);
    }
  }
  for (const { f, why, nodes } of shortages.values()) {
    const message =
      `tenant ${f.tenant.name}, pool ${f.pool.name} (failover): if ${nodes.length === 1 ? `node ${nodes[0]} is` : `any of the nodes ${nodes.join(', ')} is`} lost, ` +
      `re-synth with it down has no room for the pool's machines: ${why}`;
    const fix = `add nodes or capacity to the other nodes${f.pool.pinned === undefined && f.tenant.mode !== 'Default' ? ' or instances' : ''} the pool may use, make the pool (or others on those nodes) smaller, or remove failover`;
    if (degraded.length > 0) plan.warnings.push(`${message} (only a warning while ${degraded.join(', ')} ${degraded.length === 1 ? 'is' : 'are'} down); fix: ${fix}`);
    else problems.push({ path: ['tenants', f.ti, 'pools', f.pi, 'failover'], message, fix });
  }
  for (const [names, nodes] of blocked) {
    const one = !names.includes(', ');
    plan.warnings.push(
      `if ${nodes.length === 1 ? `node ${nodes[0]} is` : `any of the nodes ${nodes.join(', ')} is`} lost, re-synth with it down is refused: ` +
        `${names} (no failover) would have no room on the surviving nodes; make ${one ? 'it' : 'them'} or others smaller, add capacity, ` +
        `or give ${one ? 'it' : 'them'} failover so that synth keeps room for ${one ? 'it' : 'them'}`,
    );
  }
  for (const tenant of plan.tenants) tenant.haConditions = haConditions(tenant.pools);
}
