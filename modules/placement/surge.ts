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
import type { Instance, Lab, PreviousInstance, Tenant } from '../config/schema';
import type { PlacementPlan, SurgeReservation, TenantPlan } from './types';

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

/** JSON with sorted keys, for comparing descriptions. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The instances whose worker template fields `previous.instances` describes differently from now. */
export function changedInstances(lab: Lab, tenant: Tenant): Set<string> {
  const out = new Set<string>();
  for (const [name, was] of Object.entries(tenant.previous?.instances ?? {})) {
    const instance = lab.proxmox.instances.find((i) => i.name === name);
    if (instance && canonical(previousInstance(instance, was)) !== canonical(instance)) out.add(name);
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
  if (instance !== undefined) return canonical(networkOn(before, instance)) !== canonical(networkOn(tenant, instance));
  return canonical(before.network) !== canonical(tenant.network) || canonical(before.networks ?? {}) !== canonical(tenant.networks ?? {});
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
      const machines = p.max ?? p.replicas;
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

/**
 * The surge of a lab: the retiring node groups of every tenant with `previous` (from the plan of
 * the previous lab), and a problem for every node that cannot hold them beside the new plan.
 */
export function planSurge(lab: Lab, plan: PlacementPlan, previousPlan: PlacementPlan): { surge: SurgeReservation[]; problems: Problem[] } {
  const surge: SurgeReservation[] = [];
  for (const tenant of lab.tenants.filter((t) => t.previous)) {
    const before = previousPlan.tenants.find((t) => t.name === tenant.name);
    const after = plan.tenants.find((t) => t.name === tenant.name);
    // secondary-clusters: the primary Cluster holds the first instance (description order) of the plan.
    const primary = lab.proxmox.instances.map((i) => i.name).find((name) => after?.instances.includes(name));
    const rollsInPlace = (instance: string) => lab.capmox.multiInstance === 'secondary-clusters' && instance !== primary;
    const changed = changedInstances(lab, tenant);
    if (before) surge.push(...retiringGroups(before, after, rollsInPlace, (instance) => networkChanged(tenant, instance) || changed.has(instance)));
  }
  const problems: Problem[] = [];
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
          `tenant ${name}: node ${node.node} of ${node.instance} cannot hold the new machines and the retiring ones at once: ` +
          `the new plan leaves ${freeCpu} cpu and ${freeMem} MiB free there, the retiring machine deployments of pool${pools.length === 1 ? '' : 's'} ${pools.join(', ')} hold ${mine.reduce((n, s) => n + s.cpu, 0)} cpu and ${mine.reduce((n, s) => n + s.memoryMiB, 0)} MiB` +
          (tenants.length > 1 ? ` (with the retiring machines of ${tenants.filter((t) => t !== name).join(', ')}: ${cpu} cpu, ${memoryMiB} MiB)` : ''),
        value: { node: `${node.instance}/${node.node}`, free: { cpu: freeCpu, memoryMiB: freeMem }, retiring: { cpu, memoryMiB } },
        fix: templateChange
          ? `an instance-level change (previous.instances, previous.network, previous.networks) surges every node group of the tenant there at once, and of every tenant it touches: make room on ${node.node} (add a node to ${node.instance}, or lower replicas in a step of its own before the change)`
          : versionChange
            ? `an upgrade surges every pool of the tenant at once: make room on ${node.node} (move or shrink another tenant's pools, or add a node to ${node.instance}), or lower the tenant's replicas for the upgrade in a step of its own`
            : `surge one pool at a time: change ${pools.length > 1 ? 'one of the pools ' + pools.join(', ') : 'this pool'} alone (the others as in previous.pools), deploy, remove previous once its new Nodes are Ready, then the next; or make room on ${node.node}`,
      });
    }
  }
  return { surge, problems };
}
