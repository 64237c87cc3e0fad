/**
 * Failover: what the placement becomes when a node is lost. Pools with `failover: true` are planned
 * again with each node they use down, and the machines of the lost node must find room on the
 * survivors; also which nodes a shared-disk instance clones from (a lost one blocks every clone).
 * The re-planner is passed in by `plan.ts`, which calls `checkFailover`, so the two do not import
 * each other.
 */
import type { Problem } from '../config/problems';
import { fixedTemplateFor, imageNodes, type Instance, type Lab } from '../config/schema';
import { capacityOf, haConditions } from './ha';
import { compareNames } from './placer';
import type { NodeFailover, NodeRef, PlacementPlan } from './types';

/** The lab with one node down (what re-synth after its loss plans). */
function labWithDown(lab: Lab, instance: string, node: string): Lab {
  return {
    ...lab,
    proxmox: {
      ...lab.proxmox,
      instances: lab.proxmox.instances.map((i) =>
        i.name !== instance ? i : { ...i, nodes: i.nodes.map((n) => (n.name === node ? { ...n, down: true } : n)) },
      ),
    },
  };
}

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
export function checkFailover(lab: Lab, plan: PlacementPlan, problems: Problem[], planOnce: (lab: Lab) => { plan: PlacementPlan; problems: Problem[] }): void {
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
    if (degraded.length > 0)
      plan.warnings.push(`${message} (only a warning while ${degraded.join(', ')} ${degraded.length === 1 ? 'is' : 'are'} down); fix: ${fix}`);
    else problems.push({ path: ['tenants', f.ti, 'pools', f.pi, 'failover'], message, fix, rule: 'failover.no-room' });
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
