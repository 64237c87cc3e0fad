/**
 * Failure what-if: what happens to the plan when nodes or whole instances are lost. Pure: the lab
 * and its plan in, the impact out.
 *
 * - Lost now: the machines on the lost nodes, per tenant and pool, and what each pool keeps.
 * - Stranded: every machine deployment is pinned to its nodes (`allowedNodes`); one whose nodes
 *   are all lost cannot bring its machines back anywhere else (CAPI recreates them on the same
 *   dead node) until the node returns or the description drops it and is synthesized again.
 * - After re-synth: the lab planned again with the lost nodes at zero capacity, so every
 *   machine goes where the placement rules put it now, never onto a lost node; pools that do not
 *   fit any more are named. The HA verdicts of that plan are compared with today's.
 * Kamaji control planes run as pods in the management cluster, not on these nodes: a tenant's
 * API server stays up; what the what-if weighs is its workers.
 */
import type { Problem } from '../config/problems';
import type { Lab } from '../config/schema';
import { capacityLedger, type NodeHeadroom } from '../placement/ledger';
import { haConditions, haVerdict, planPlacementPartial, compareNames } from '../placement/plan';
import { diffPlacement } from '../placement/diff';
import { machinesAtLeast } from '../placement/scale';
import type { HaCondition, NodeRef, PlacementDiff, PlacementPlan, TenantPlan } from '../placement/types';
import { tenantMachineDeployments } from './machine-deployments';

/** A failure to assume: one node of an instance, or every node of an instance. */
export type Loss = { kind: 'node'; instance: string; node: string } | { kind: 'instance'; instance: string };

export interface LostMachines {
  /** The machine deployment's topology name (as rendered in the tenant's Cluster). */
  machineDeployment: string;
  instance: string;
  node: string;
  /** Machines lost (autoscaled: min, the ones that surely exist). */
  replicas: number;
  /** Autoscaled: the most the node group could have had there. */
  max?: number;
  /** True when every allowed node of the machine deployment is lost: it cannot recreate its machines elsewhere. */
  stranded: boolean;
}

export interface PoolImpact {
  pool: string;
  /** Machines before (autoscaled: min). */
  machines: number;
  lost: number;
  survivors: number;
  /** No machine left. */
  outage: boolean;
  /** Half or more of the machines lost: a majority-quorum workload spread over the pool (3 etcd members, say) may lose its quorum. */
  quorumAtRisk: boolean;
  on: LostMachines[];
}

export interface TenantImpact {
  tenant: string;
  pools: PoolImpact[];
  /** The verdicts today, with the surviving machines only (before anything is replaced), and after re-synth (null: it no longer fits). */
  ha: { before: TenantPlan['ha']; survivors: TenantPlan['ha']; afterResynth: TenantPlan['ha'] | null };
  /** Conditions true today and false after re-synth. */
  haLost: HaCondition[];
  /** Where re-synth puts machines of this tenant that are not where they were (new or moved), per pool and node. */
  replacements: { pool: string; instance: string; node: string; replicas: number }[];
  /** Problems re-synth reports for this tenant: its pools that no longer fit. */
  unplaceable: string[];
}

export interface WhatIfResult {
  losses: Loss[];
  /** Every lost node, in plan order. */
  lostNodes: NodeRef[];
  /** Tenants with machines on a lost node, or that no longer fit after re-synth, sorted by name. */
  tenants: TenantImpact[];
  /** The lab planned again without the lost nodes (pools that do not fit are left out). */
  replan: PlacementPlan;
  /** What re-synth changes against today's plan. */
  diff: PlacementDiff;
  /** Every problem re-synth reports. */
  unplaceable: string[];
  /** Headroom per node after re-synth; lost nodes are marked and have none. */
  headroom: (NodeHeadroom & { lost: boolean })[];
}

const key = (instance: string, node: string) => `${instance}\u0000${node}`;

/**
 * Parses "node pmox-txl-1", "node pmox-fra/pmox-fra-1", "instance pmox-fra"; several separated by
 * commas. Returns the losses and, for anything that names no node or instance of the lab, a
 * problem with the known names.
 */
export function parseLosses(specs: readonly string[], lab: Lab): { losses: Loss[]; problems: string[] } {
  const losses: Loss[] = [];
  const problems: string[] = [];
  const instances = lab.proxmox.instances;
  for (const spec of specs
    .flatMap((s) => s.split(','))
    .map((s) => s.trim())
    .filter(Boolean)) {
    const match = /^(node|instance)\s+(\S+)$/.exec(spec);
    if (!match) {
      problems.push(`--what-if "${spec}": expected "node <name>", "node <instance>/<name>" or "instance <name>"`);
      continue;
    }
    const [, kind, name] = match;
    if (kind === 'instance') {
      if (instances.some((i) => i.name === name)) losses.push({ kind: 'instance', instance: name });
      else problems.push(`--what-if "${spec}": no instance ${name} in the description (known: ${instances.map((i) => i.name).join(', ')})`);
      continue;
    }
    const [instanceName, nodeName] = name.includes('/') ? name.split('/', 2) : [undefined, name];
    const matches = instances.filter((i) => (instanceName === undefined || i.name === instanceName) && i.nodes.some((n) => n.name === nodeName));
    if (matches.length === 1) losses.push({ kind: 'node', instance: matches[0].name, node: nodeName });
    else if (matches.length > 1)
      problems.push(`--what-if "${spec}": node ${nodeName} is in ${matches.map((i) => i.name).join(' and ')}; write node <instance>/${nodeName}`);
    else {
      const known = instances.flatMap((i) => i.nodes.map((n) => n.name));
      problems.push(`--what-if "${spec}": no node ${name} in the description (known: ${known.join(', ')})`);
    }
  }
  return { losses, problems };
}

/** The lab with every lost node down (zero capacity): placement then puts nothing there, and failover checks of a second loss only warn. */
export function labWithout(lab: Lab, lost: ReadonlySet<string>): Lab {
  return {
    ...lab,
    proxmox: {
      ...lab.proxmox,
      instances: lab.proxmox.instances.map((instance) => ({
        ...instance,
        nodes: instance.nodes.map((node) => (lost.has(key(instance.name, node.name)) ? { ...node, cpu: 0, memoryMiB: 0, down: true } : node)),
      })),
    },
  };
}

/** A placement problem as the one sentence the what-if lists: what does not fit, and the fix. */
function problemSentence(p: Problem): string {
  return p.fix ? `${p.message}; fix: ${p.fix}` : p.message;
}

export function whatIf(lab: Lab, plan: PlacementPlan, losses: readonly Loss[]): WhatIfResult {
  const lost = new Set<string>();
  for (const loss of losses) {
    const instance = lab.proxmox.instances.find((i) => i.name === loss.instance);
    if (!instance) continue;
    for (const node of instance.nodes) if (loss.kind === 'instance' || node.name === loss.node) lost.add(key(instance.name, node.name));
  }
  const lostNodes = plan.nodes.filter((n) => lost.has(key(n.instance, n.node))).map((n) => ({ instance: n.instance, node: n.node }));
  const { plan: replanned, problems } = planPlacementPartial(labWithout(lab, lost));
  const lostNames = new Set(lostNodes.map((n) => n.node));
  // A lost node has no capacity by construction; its "not more than the reserve" warning says nothing new.
  const replan: PlacementPlan = {
    ...replanned,
    warnings: replanned.warnings.filter((w) => !/^node (\S+) of /.test(w) || !lostNames.has(/^node (\S+) of /.exec(w)![1])),
  };
  const diff = diffPlacement(plan, replan);
  const after = new Map(replan.tenants.map((t) => [t.name, t]));

  const tenants: TenantImpact[] = [];
  const allMds = tenantMachineDeployments(lab, plan);
  for (const tenant of plan.tenants) {
    const index = lab.tenants.findIndex((t) => t.name === tenant.name);
    const unplaceable = problems.filter((p) => p.path[0] === 'tenants' && p.path[1] === index).map(problemSentence);
    const mds = allMds.get(tenant.name) ?? [];
    const pools: PoolImpact[] = [];
    for (const pool of tenant.pools) {
      const machines = pool.placements.reduce((n, p) => n + machinesAtLeast(p.scale), 0);
      const on: LostMachines[] = [];
      for (const p of pool.placements) {
        if (!lost.has(key(p.instance, p.node))) continue;
        const md = mds.find((m) => m.pool === pool.name && m.instance === p.instance && m.nodes.includes(p.node));
        const stranded = md ? md.nodes.every((n) => lost.has(key(md.instance, n))) : true;
        on.push({
          machineDeployment: md?.name ?? `${pool.name}-${p.node}`,
          instance: p.instance,
          node: p.node,
          replicas: machinesAtLeast(p.scale),
          ...(p.scale.kind === 'autoscaled' ? { max: p.scale.max } : {}),
          stranded,
        });
      }
      if (on.length === 0) continue;
      const lostCount = on.reduce((n, m) => n + m.replicas, 0);
      const survivors = machines - lostCount;
      pools.push({
        pool: pool.name,
        machines,
        lost: lostCount,
        survivors,
        outage: machines > 0 && survivors === 0,
        quorumAtRisk: machines > 0 && survivors * 2 <= machines,
        on,
      });
    }
    if (pools.length === 0 && unplaceable.length === 0) continue;
    const survivingPools = tenant.pools.map((p) => ({ ...p, placements: p.placements.filter((x) => !lost.has(key(x.instance, x.node))) }));
    const next = after.get(tenant.name);
    const fits = next !== undefined && unplaceable.length === 0;
    const beforeConditions = tenant.haConditions ?? haConditions(tenant.pools);
    const afterConditions = fits ? next.haConditions : [];
    const haLost = fits ? afterConditions.filter((c) => c.status === 'False' && beforeConditions.some((b) => b.type === c.type && b.status === 'True')) : [];
    const replacements = [
      ...diff.added,
      ...diff.moved.map((m) => ({ tenant: m.tenant, pool: m.pool, instance: m.to.instance, node: m.to.node, replicas: m.replicas })),
    ]
      .filter((c) => c.tenant === tenant.name)
      .map((c) => ({ pool: c.pool, instance: c.instance, node: c.node, replicas: c.replicas }))
      .sort((a, b) => compareNames(a.pool, b.pool) || compareNames(a.instance, b.instance) || compareNames(a.node, b.node));
    tenants.push({
      tenant: tenant.name,
      pools,
      ha: { before: tenant.ha, survivors: haVerdict(survivingPools), afterResynth: fits ? next.ha : null },
      haLost,
      replacements,
      unplaceable,
    });
  }
  const headroom = capacityLedger(replan).nodes.map((n) => ({ ...n, lost: lost.has(key(n.instance, n.node)) }));
  return { losses: [...losses], lostNodes, tenants, replan, diff, unplaceable: problems.map(problemSentence), headroom };
}
