/**
 * Surge, then retire (`tenants[].previous`, docs/tenants.md): while a tenant changes node groups
 * that CAPI can only replace (a new machine size, a new Kubernetes version: the machine
 * deployment's name holds a hash of its worker template, because the pinned CAPMOX refuses every change
 * of a ProxmoxMachineTemplate), its previous machine deployments stay beside the new ones until the
 * operator removes `previous`. For that time each node holds the new plan **and** the retiring
 * machines: this module names them (as reservations on top of the plan) and refuses a surge that
 * does not fit a node, with the node, the numbers and the fix.
 *
 * Which previous node groups retire follows the tenant rendering's name hash
 * (modules/tenants/cluster.ts, workerTemplateHash), as far as the tenant's own fields go: a node
 * group keeps its machine deployment when the new plan has the same pool on the same node with the
 * same size, the version did not change, and neither did its instance's worker template fields
 * (`previous.instances`) nor its node network there (`previous.network`, `previous.networks`);
 * otherwise the old one retires.
 * An instance-level edit retires every node group of the tenant on that instance (the rendering may
 * keep one whose template hash happens not to change; the ledger then counts it twice, never too
 * little). test/tenants/surge.test.ts checks that this list and the rendering's agree.
 */
import type { Problem } from '../config/problems';
import { machinesAtMost } from '../config/scale';
import type { Instance, Lab, PreviousInstance, Tenant } from '../config/schema';
import type { PlacementPlan, SurgeReservation, TenantPlan } from './types';
import { canonicalJson } from '../config/canonical-json';
import { flowYaml } from '../config/flow-yaml';

/** The tenant as it was before the change `previous` describes (without `previous`). */
export function previousTenant(tenant: Tenant): Tenant | undefined {
  if (!tenant.previous) return undefined;
  const { previous, ...rest } = tenant;
  return {
    ...rest,
    kubernetesVersion: previous.kubernetesVersion ?? tenant.kubernetesVersion,
    pools: previous.pools ?? tenant.pools,
    ...(previous.network ? { network: previous.network } : {}),
    // previous.networks: the per-instance entries as they were, over those of now (an absent one is as it is).
    ...(previous.networks ? { networks: { ...tenant.networks, ...previous.networks } } : {}),
  };
}

/** An instance as `previous.instances` says it was (its worker template fields), else as it is. */
export function previousInstance(instance: Instance, was: PreviousInstance | undefined): Instance {
  if (!was) return instance;
  return {
    ...instance,
    bridge: was.bridge ?? instance.bridge,
    storage: {
      ...instance.storage,
      ...(was.storage?.disks !== undefined ? { disks: was.storage.disks } : {}),
      ...(was.storage?.disksShared !== undefined ? { disksShared: was.storage.disksShared } : {}),
    },
    template: was.template ?? instance.template,
    images: was.images ?? instance.images,
    vmIdRange: was.vmIdRange ?? instance.vmIdRange,
  };
}

/** The lab as one tenant's `previous` describes it: its instances' worker template fields as they were. */
export function previousLabOf(lab: Lab, tenant: Tenant): Lab {
  const was = tenant.previous?.instances;
  if (!was) return lab;
  return { ...lab, proxmox: { ...lab.proxmox, instances: lab.proxmox.instances.map((i) => previousInstance(i, was[i.name])) } };
}

/** The instances whose worker template fields `previous.instances` describes differently from now. */
export function changedInstances(lab: Lab, tenant: Tenant): Set<string> {
  const out = new Set<string>();
  for (const [name, was] of Object.entries(tenant.previous?.instances ?? {})) {
    const instance = lab.proxmox.instances.find((i) => i.name === name);
    if (instance && canonicalJson(previousInstance(instance, was)) !== canonicalJson(instance)) out.add(name);
  }
  return out;
}

/** The node network of a tenant on an instance: its `networks` entry, else `network` (modules/tenants/cluster.ts `networkOn`). */
const networkOn = (t: Tenant, instance: string) => (t.networks && Object.hasOwn(t.networks, instance) ? t.networks[instance] : t.network);

/**
 * Whether `previous.network` / `previous.networks` describe the node network differently from now:
 * on one instance (its `networks` entry, else `network`), or on any when no instance is given.
 */
export function networkChanged(tenant: Tenant, instance?: string): boolean {
  const before = previousTenant(tenant);
  if (!before) return false;
  if (instance !== undefined) return canonicalJson(networkOn(before, instance)) !== canonicalJson(networkOn(tenant, instance));
  return canonicalJson(before.network) !== canonicalJson(tenant.network) || canonicalJson(before.networks ?? {}) !== canonicalJson(tenant.networks ?? {});
}

/** The lab as it was: every tenant with `previous` as it was before its change. */
export function previousLab(lab: Lab): Lab {
  return { ...lab, tenants: lab.tenants.map((t) => previousTenant(t) ?? t) };
}

export function hasSurge(lab: Lab): boolean {
  return lab.tenants.some((t) => t.previous !== undefined);
}

const sameSize = (a: { cpu: number; memoryMiB: number; diskGiB: number }, b: { cpu: number; memoryMiB: number; diskGiB: number }) =>
  a.cpu === b.cpu && a.memoryMiB === b.memoryMiB && a.diskGiB === b.diskGiB;

/**
 * The retiring node groups of one tenant: its previous plan's groups the new plan replaces.
 * `rollsInPlace(instance)`: the tenant's machine deployments there are a secondary Cluster's
 * (capmox.multiInstance: secondary-clusters), named `<pool>-<node>` without a hash: a new size or
 * version rolls them in place (one surge machine at a time), so only a pool leaving a node retires.
 */
export function retiringGroups(
  before: TenantPlan,
  after: TenantPlan | undefined,
  rollsInPlace: (instance: string) => boolean = () => false,
  templateChanged: (instance: string) => boolean = () => false,
): SurgeReservation[] {
  const out: SurgeReservation[] = [];
  const versionChanged = after !== undefined && after.kubernetesVersion !== before.kubernetesVersion;
  for (const pool of before.pools) {
    const now = after?.pools.find((p) => p.name === pool.name);
    for (const p of pool.placements) {
      const machines = machinesAtMost(p.scale);
      if (machines === 0) continue;
      const stays = now !== undefined && now.placements.some((q) => q.instance === p.instance && q.node === p.node);
      const kept = stays && (rollsInPlace(p.instance) || (!versionChanged && !templateChanged(p.instance) && sameSize(now.size, pool.size)));
      if (kept) continue;
      out.push({
        tenant: before.name,
        pool: pool.name,
        instance: p.instance,
        node: p.node,
        version: before.kubernetesVersion,
        machines,
        cpu: machines * pool.size.cpu,
        memoryMiB: machines * pool.size.memoryMiB,
      });
    }
  }
  return out;
}

/** A node group's id in `previous.stage`: `<pool>/<instance>/<node>`. */
export const nodeGroupId = (g: { pool: string; instance: string; node: string }) => `${g.pool}/${g.instance}/${g.node}`;

/**
 * Where a staged surge (`previous.stage`) has a replaced node group in this step: `surge` (old
 * beside new), `hold` (old only, as it was: no new machine deployment yet) or `done` (new only:
 * surged and retired in an earlier step). Without `previous.stage` every replaced group surges.
 */
export function stageState(tenant: Tenant, id: string): 'surge' | 'hold' | 'done' {
  const stage = tenant.previous?.stage;
  if (!stage) return 'surge';
  if (stage.hold?.includes(id)) return 'hold';
  if (stage.surge?.includes(id)) return 'surge';
  return 'done';
}

const ZERO = { cpu: 0, memoryMiB: 0 };

/** The new plan's machines of one node group (at max), as cpu and memory. */
function newLoad(after: TenantPlan | undefined, g: { pool: string; instance: string; node: string }): { cpu: number; memoryMiB: number } {
  const pool = after?.pools.find((p) => p.name === g.pool);
  const p = pool?.placements.find((x) => x.instance === g.instance && x.node === g.node);
  if (!pool || !p) return ZERO;
  const machines = machinesAtMost(p.scale);
  return { cpu: machines * pool.size.cpu, memoryMiB: machines * pool.size.memoryMiB };
}

/**
 * What a retiring node group holds of its node in this step beyond the new plan: all of it while it
 * surges; while it is held, its old machines stand where the plan counts its new ones, so only what
 * they exceed them by (nothing on an upgrade: same size, same node); nothing once it is done.
 */
function stagedReservation(r: SurgeReservation, state: 'surge' | 'hold' | 'done', after: TenantPlan | undefined): SurgeReservation | undefined {
  if (state === 'done') return undefined;
  if (state === 'surge') return r;
  const now = newLoad(after, r);
  return { ...r, held: true, cpu: Math.max(0, r.cpu - now.cpu), memoryMiB: Math.max(0, r.memoryMiB - now.memoryMiB) };
}

export interface TenantSurge {
  index: number;
  tenant: Tenant;
  after: TenantPlan | undefined;
  before: TenantPlan | undefined;
  /** Every retiring node group of the change, whole (as an unstaged surge holds them). */
  all: SurgeReservation[];
}

function tenantSurges(lab: Lab, plan: PlacementPlan, previousPlan: PlacementPlan): TenantSurge[] {
  const out: TenantSurge[] = [];
  lab.tenants.forEach((tenant, index) => {
    if (!tenant.previous) return;
    const before = previousPlan.tenants.find((t) => t.name === tenant.name);
    const after = plan.tenants.find((t) => t.name === tenant.name);
    // secondary-clusters: the primary Cluster holds the first instance (description order) of the plan.
    const primary = lab.proxmox.instances.map((i) => i.name).find((name) => after?.instances.includes(name));
    const rollsInPlace = (instance: string) => lab.capmox.multiInstance === 'secondary-clusters' && instance !== primary;
    const changed = changedInstances(lab, tenant);
    const all = before ? retiringGroups(before, after, rollsInPlace, (instance) => networkChanged(tenant, instance) || changed.has(instance)) : [];
    out.push({ index, tenant, after, before, all });
  });
  return out;
}

/**
 * The fixed pools a staged step would leave with fewer machines than they ask for: per pool, its
 * node groups count with their old machines while they surge or are held, with their new ones
 * once done (and kept or arriving groups with their new ones); a step must keep at least the
 * smaller of the pool's old and new replicas. (Without a stage, every group surges: old ones count.)
 */
export function poolShortfalls(ts: TenantSurge, stateOf: (id: string) => 'surge' | 'hold' | 'done'): string[] {
  const out: string[] = [];
  const replacing = new Set(ts.all.map(nodeGroupId));
  for (const pool of ts.after?.pools ?? []) {
    const was = ts.before?.pools.find((p) => p.name === pool.name);
    if (!was || pool.scale.kind !== 'fixed' || was.scale.kind !== 'fixed') continue;
    // Fixed pools: each node group's machines are its replicas (at most is exactly).
    const where = [...new Set([...was.placements, ...pool.placements].map((p) => key(p.instance, p.node)))];
    let machines = 0;
    for (const nk of where) {
      const [instance, node] = nk.split('\u0000');
      const oldP = was.placements.find((p) => p.instance === instance && p.node === node);
      const newP = pool.placements.find((p) => p.instance === instance && p.node === node);
      const oldN = oldP ? machinesAtMost(oldP.scale) : 0;
      const newN = newP ? machinesAtMost(newP.scale) : 0;
      const id = nodeGroupId({ pool: pool.name, instance, node });
      machines += replacing.has(id) && stateOf(id) !== 'done' ? oldN : newN;
    }
    const asks = Math.min(was.scale.replicas, pool.scale.replicas);
    if (machines < asks) out.push(`pool ${pool.name} would have ${machines} machine${machines === 1 ? '' : 's'} serving, fewer than the ${asks} it asks for`);
  }
  return out;
}

/** One step of a staged surge: the node groups surging in it, and what each node then holds beyond the plan. */
export interface SurgeStage {
  groups: string[];
  nodes: { instance: string; node: string; need: { cpu: number; memoryMiB: number }; free: { cpu: number; memoryMiB: number }; fits: boolean }[];
}

/** A tenant's surge, staged one node group at a time where the whole does not fit (upgrade-plan prints it). */
export interface StagedSurge {
  tenant: string;
  index: number;
  /** The surge as `previous` has it now fits every node. */
  fits: boolean;
  /** The steps of the remaining surge (those not done yet), each fitting; empty when a node group alone does not fit. */
  stages: SurgeStage[];
  /** What each node would hold beyond the plan if the remaining surge went at once (the one-step surge). */
  atOnce: SurgeStage['nodes'];
  /** Why the steps found would leave a pool short (then `stages` is empty): stage it by hand, or make room. */
  unsafe: string[];
  /** Node groups that do not fit even alone beside the plan: staging cannot help them. */
  tooBig: { group: string; need: { cpu: number; memoryMiB: number }; free: { cpu: number; memoryMiB: number } }[];
  /** The exact `previous` of each step: its surge, then its retire (undefined: remove previous). */
  steps: { surge: Record<string, unknown>; retire: Record<string, unknown> | undefined }[];
}

const key = (instance: string, node: string) => `${instance}\u0000${node}`;
const add = (a: { cpu: number; memoryMiB: number }, b: { cpu: number; memoryMiB: number }) => ({ cpu: a.cpu + b.cpu, memoryMiB: a.memoryMiB + b.memoryMiB });
const within = (a: { cpu: number; memoryMiB: number }, b: { cpu: number; memoryMiB: number }) => a.cpu <= b.cpu && a.memoryMiB <= b.memoryMiB;

/**
 * Stages one tenant's surge: its replaced node groups not done yet, grouped per node into steps
 * (first fit, largest first) so that in each step the node holds the surging groups whole and the
 * held ones beyond the plan (stagedReservation), beside the other tenants' surge as their
 * descriptions stage it. A node group is on one node, so the nodes stage independently: step k
 * is every node's k-th batch.
 */
function stageTenant(ts: TenantSurge, plan: PlacementPlan, others: SurgeReservation[]): Omit<StagedSurge, 'fits'> {
  const pending = ts.all.filter((r) => stageState(ts.tenant, nodeGroupId(r)) !== 'done');
  const free = (instance: string, node: string) => {
    const n = plan.nodes.find((x) => x.instance === instance && x.node === node);
    const used = others.filter((o) => o.instance === instance && o.node === node).reduce((x, o) => add(x, o), ZERO);
    return n ? { cpu: n.cpu.capacity - n.cpu.planned - used.cpu, memoryMiB: n.memoryMiB.capacity - n.memoryMiB.planned - used.memoryMiB } : ZERO;
  };
  const held = (r: SurgeReservation) => stagedReservation(r, 'hold', ts.after) as SurgeReservation;
  const tooBig: StagedSurge['tooBig'] = [];
  const batches: SurgeReservation[][][] = []; // per node: its batches
  const nodeKeys = [...new Set(pending.map((r) => key(r.instance, r.node)))].sort();
  const loads: { instance: string; node: string; load: { cpu: number; memoryMiB: number }[] }[] = [];
  for (const nk of nodeKeys) {
    const [instance, node] = nk.split('\u0000');
    const room = free(instance, node);
    const groups = pending
      .filter((r) => key(r.instance, r.node) === nk)
      .sort((a, b) => b.memoryMiB - a.memoryMiB || b.cpu - a.cpu || (nodeGroupId(a) < nodeGroupId(b) ? -1 : 1));
    const bins: SurgeReservation[][] = [];
    // The load of step k: its batch whole, the later batches held.
    const loadOf = (bs: SurgeReservation[][], k: number) =>
      add(
        bs[k].reduce((x, r) => add(x, r), ZERO),
        bs.slice(k + 1).reduce((x, b) => b.reduce((y, r) => add(y, held(r)), x), ZERO),
      );
    for (const g of groups) {
      let placed = false;
      for (let j = 0; j <= bins.length && !placed; j++) {
        const trial = bins.map((b) => [...b]);
        if (j === bins.length) trial.push([g]);
        else trial[j].push(g);
        if (trial.every((_, k) => within(loadOf(trial, k), room))) {
          bins.splice(0, bins.length, ...trial);
          placed = true;
        }
      }
      if (!placed) tooBig.push({ group: nodeGroupId(g), need: { cpu: g.cpu, memoryMiB: g.memoryMiB }, free: room });
    }
    batches.push(bins);
    loads.push({ instance, node, load: bins.map((_, k) => loadOf(bins, k)) });
  }
  const count = Math.max(0, ...batches.map((b) => b.length));
  const stages: SurgeStage[] =
    tooBig.length > 0
      ? []
      : Array.from({ length: count }, (_, k) => ({
          groups: batches.flatMap((b) => (b[k] ?? []).map(nodeGroupId)).sort(),
          nodes: loads.map((l) => {
            // A node whose own batches ended: its groups are done, nothing of them is left there.
            const need = l.load[k] ?? ZERO;
            const room = free(l.instance, l.node);
            return { instance: l.instance, node: l.node, need, free: room, fits: within(need, room) };
          }),
        }));
  // Every step must keep each fixed pool's machines (a pool whose groups move between nodes: the
  // new ones of a done group may be fewer than the old ones of a held one).
  const unsafe = stages.flatMap((st, k) => {
    const later = new Set(stages.slice(k + 1).flatMap((x) => x.groups));
    const now = new Set(st.groups);
    const state = (id: string) =>
      now.has(id) ? 'surge' : later.has(id) ? 'hold' : pending.some((r) => nodeGroupId(r) === id) ? 'done' : stageState(ts.tenant, id);
    return poolShortfalls(ts, state).map((why) => `step ${k + 1}: ${why}`);
  });
  if (unsafe.length > 0) stages.splice(0, stages.length);
  const atOnce = nodeKeys.map((nk) => {
    const [instance, node] = nk.split('\u0000');
    const need = pending.filter((r) => key(r.instance, r.node) === nk).reduce((x, r) => add(x, r), ZERO);
    const room = free(instance, node);
    return { instance, node, need, free: room, fits: within(need, room) };
  });
  const base: Record<string, unknown> = { ...ts.tenant.previous };
  delete base.stage;
  const withStage = (surge: string[], hold: string[]) =>
    surge.length === 0 && hold.length === 0 ? undefined : { ...base, stage: { ...(surge.length > 0 ? { surge } : {}), ...(hold.length > 0 ? { hold } : {}) } };
  const steps = stages.map((s, k) => {
    const later = stages.slice(k + 1).flatMap((x) => x.groups);
    return {
      surge: (k === 0 && stages.length === 1 && !ts.tenant.previous?.stage ? base : withStage(s.groups, later)) as Record<string, unknown>,
      retire: withStage([], later) as Record<string, unknown> | undefined,
    };
  });
  return { tenant: ts.tenant.name, index: ts.index, atOnce, stages, tooBig, unsafe, steps };
}

/** Each tenant's staged surge (with `previous`): whether it fits as described, and the steps that would. */
export function stagedSurges(lab: Lab, plan: PlacementPlan, previousPlan: PlacementPlan): StagedSurge[] {
  const surges = tenantSurges(lab, plan, previousPlan);
  const staged = surges.flatMap((ts) =>
    ts.all.map((r) => stagedReservation(r, stageState(ts.tenant, nodeGroupId(r)), ts.after)).filter((r) => r !== undefined),
  );
  return surges.map((ts) => {
    const mine = staged.filter((r) => r.tenant === ts.tenant.name);
    const others = staged.filter((r) => r.tenant !== ts.tenant.name);
    // Every node this tenant's surge holds something on has room for it beside the other tenants'.
    const fits = plan.nodes.every((n) => {
      const here = staged.filter((r) => r.instance === n.instance && r.node === n.node);
      if (!mine.some((r) => r.instance === n.instance && r.node === n.node)) return true;
      return (
        here.length === 0 ||
        within(
          here.reduce((x, r) => add(x, r), ZERO),
          { cpu: n.cpu.capacity - n.cpu.planned, memoryMiB: n.memoryMiB.capacity - n.memoryMiB.planned },
        )
      );
    });
    return { fits, ...stageTenant(ts, plan, others) };
  });
}

/** The fix of a surge that does not fit, when staging it one node group at a time does: the exact `previous` of the first step. */
function stagedFix(staged: StagedSurge | undefined, node: { instance: string; node: string }): string | undefined {
  if (!staged || staged.stages.length === 0 || staged.steps[0].surge === undefined) return undefined;
  const n = staged.stages.length;
  const first = staged.stages[0].nodes.find((x) => x.instance === node.instance && x.node === node.node);
  return (
    `surge one node group at a time (docs/tenants.md, "Staged surge"): the surge fits in ${n} step${n === 1 ? '' : 's'} of surge and retire (npm run --silent upgrade-plan prints each with its per-node capacity); ` +
    `step 1: set tenants[${staged.index}].previous: ${flowYaml(staged.steps[0].surge)}` +
    (first
      ? ` (${node.node} then holds ${first.need.cpu} cpu and ${first.need.memoryMiB} MiB beyond the plan, of ${first.free.cpu} cpu and ${first.free.memoryMiB} MiB free)`
      : '') +
    `, deploy, and once its new Nodes are Ready ${staged.steps[0].retire ? `set previous: ${flowYaml(staged.steps[0].retire)}` : 'remove previous'} and deploy (the retire of step 1); then the next step`
  );
}

/**
 * The surge of a lab: the retiring node groups of every tenant with `previous` (from the plan of
 * the previous lab), as its `previous.stage` stages them, and a problem for every node that cannot
 * hold them beside the new plan — naming, where the whole surge does not fit, the staged way.
 */
export function planSurge(lab: Lab, plan: PlacementPlan, previousPlan: PlacementPlan): { surge: SurgeReservation[]; problems: Problem[] } {
  const surges = tenantSurges(lab, plan, previousPlan);
  const problems: Problem[] = [];
  const surge: SurgeReservation[] = [];
  for (const ts of surges) {
    const ids = new Set(ts.all.map(nodeGroupId));
    const stage = ts.tenant.previous?.stage;
    for (const list of ['surge', 'hold'] as const) {
      (stage?.[list] ?? []).forEach((id, j) => {
        if (!ids.has(id)) {
          problems.push({
            path: ['tenants', ts.index, 'previous', 'stage', list, j],
            message: `tenant ${ts.tenant.name}: previous.stage.${list} names ${id}, which is not a node group this change replaces`,
            value: id,
            fix:
              ids.size > 0
                ? `name one of ${[...ids].sort().join(', ')} (npm run upgrade-plan prints the steps)`
                : 'remove previous.stage: this change replaces no node group',
            rule: 'surge.stage-unknown-node-group',
          });
        } else if (list === 'hold' && stage?.surge?.includes(id)) {
          problems.push({
            path: ['tenants', ts.index, 'previous', 'stage', list, j],
            message: `tenant ${ts.tenant.name}: node group ${id} is both in previous.stage.surge and in previous.stage.hold`,
            value: id,
            fix: 'a node group either surges in this step or is held back: keep it in one list',
            rule: 'surge.stage-surge-and-hold',
          });
        }
      });
    }
    if (stage) {
      for (const why of poolShortfalls(ts, (id) => stageState(ts.tenant, id))) {
        problems.push({
          path: ['tenants', ts.index, 'previous', 'stage'],
          message: `tenant ${ts.tenant.name}: in this step of its staged surge ${why} (its node groups done count with their new machines, those surging or held with their old ones)`,
          fix: 'surge the node groups where the pool gains machines no later than those where it loses them (npm run --silent upgrade-plan prints steps that keep every pool), or surge them in one step',
          rule: 'surge.stage-pool-shortfall',
        });
      }
    }
    for (const r of ts.all) {
      const staged = stagedReservation(r, stageState(ts.tenant, nodeGroupId(r)), ts.after);
      if (staged) surge.push(staged);
    }
  }
  if (problems.length > 0) return { surge, problems };
  const staging = new Map(stagedSurges(lab, plan, previousPlan).map((s) => [s.tenant, s]));
  for (const node of plan.nodes) {
    const here = surge.filter((s) => s.instance === node.instance && s.node === node.node);
    if (here.length === 0) continue;
    const cpu = here.reduce((n, s) => n + s.cpu, 0);
    const memoryMiB = here.reduce((n, s) => n + s.memoryMiB, 0);
    const freeCpu = node.cpu.capacity - node.cpu.planned;
    const freeMem = node.memoryMiB.capacity - node.memoryMiB.planned;
    if (cpu <= freeCpu && memoryMiB <= freeMem) continue;
    const tenants = [...new Set(here.map((s) => s.tenant))];
    for (const name of tenants) {
      const index = lab.tenants.findIndex((t) => t.name === name);
      const mine = here.filter((s) => s.tenant === name);
      const pools = [...new Set(mine.map((s) => s.pool))];
      const templateChange = networkChanged(lab.tenants[index], node.instance) || changedInstances(lab, lab.tenants[index]).has(node.instance);
      const versionChange =
        lab.tenants[index].previous?.kubernetesVersion !== undefined && lab.tenants[index].previous?.kubernetesVersion !== lab.tenants[index].kubernetesVersion;
      problems.push({
        path: ['tenants', index, 'previous'],
        message:
          `tenant ${name}: node ${node.node} of ${node.instance} cannot hold the new machines and the retiring ones at once${lab.tenants[index].previous?.stage ? ' in this step of its staged surge (previous.stage)' : ''}: ` +
          `the new plan leaves ${freeCpu} cpu and ${freeMem} MiB free there, the retiring machine deployments of pool${pools.length === 1 ? '' : 's'} ${pools.join(', ')} hold ${mine.reduce((n, s) => n + s.cpu, 0)} cpu and ${mine.reduce((n, s) => n + s.memoryMiB, 0)} MiB` +
          (tenants.length > 1 ? ` (with the retiring machines of ${tenants.filter((t) => t !== name).join(', ')}: ${cpu} cpu, ${memoryMiB} MiB)` : ''),
        value: { node: `${node.instance}/${node.node}`, free: { cpu: freeCpu, memoryMiB: freeMem }, retiring: { cpu, memoryMiB } },
        fix:
          stagedFix(staging.get(name), node) ??
          (templateChange
            ? `an instance-level change (previous.instances, previous.network, previous.networks) surges every node group of the tenant there at once, and of every tenant it touches: make room on ${node.node} (add a node to ${node.instance}, or lower replicas in a step of its own before the change)`
            : versionChange
              ? `an upgrade surges every pool of the tenant at once: make room on ${node.node} (move or shrink another tenant's pools, or add a node to ${node.instance}), or lower the tenant's replicas for the upgrade in a step of its own`
              : `surge one pool at a time: change ${pools.length > 1 ? 'one of the pools ' + pools.join(', ') : 'this pool'} alone (the others as in previous.pools), deploy, remove previous once its new Nodes are Ready, then the next; or make room on ${node.node}`),
        rule: 'surge.node-no-room',
      });
    }
  }
  return { surge, problems };
}
