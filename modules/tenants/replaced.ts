/**
 * Node groups replaced with no surge (issue 21): a change whose machine deployment for a pool on a
 * node gets a new topology name (its worker template hash, modules/tenants/cluster.ts
 * `workerTemplateHash`) while no machine deployment of that group is kept makes CAPI delete the
 * old one at once and create the new one beside nothing — the pool loses those Nodes until the new
 * machines join. Every change that replaces a node group must surge (`tenants[].previous`) instead.
 *
 * The comparison works on the primary Clusters' topologies, as rendered now and as rendered before
 * (from the old description, `validate --against`; or from the previous synth output's tenant
 * stacks, synth's guard; or from what deploy is about to replace). A group (tenant, pool, instance,
 * node) is replaced when it has machine deployments before and after and none of its names is in
 * both. Secondary Clusters' machine deployments are named without a hash and roll in place.
 *
 * `retiredGroups` is the other half: the retire step drops a group's old machine deployments while
 * one of its names carries on; deploy checks those carried ones live before it applies
 * (scripts/lib/retire-guard.ts).
 */
import type { Problem } from '../config/problems';
import type { Lab, Tenant } from '../config/schema';
import { DEFER_UPGRADE } from './cluster';
import { workerMachineVariables } from './cluster-class';
import { canonicalJson } from '../config/canonical-json';
import { flowYaml } from '../config/flow-yaml';
import { LABEL_INSTANCE, LABEL_POOL, LABEL_PROXMOX_NODE, LABEL_TENANT } from './names';

/** A machine deployment of a Cluster's topology, with the values its worker template is made from. */
export interface RenderedMachineDeployment {
  tenant: string;
  /** The Cluster's namespace and name (where CAPI makes the MachineDeployment). */
  namespace: string;
  cluster: string;
  name: string;
  pool: string;
  instance: string;
  node: string;
  /** The Cluster's version; undefined for a deferred (retiring) one, which keeps its own. */
  version?: string;
  replicas?: number;
  /** The Cluster's variables with the machine deployment's overrides over them. */
  variables: Record<string, unknown>;
}

export { flowYaml };

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The machine deployments of a topology Cluster object (empty for anything else). */
export function topologyMachineDeployments(cluster: unknown): RenderedMachineDeployment[] {
  if (!isObj(cluster) || cluster.kind !== 'Cluster' || !isObj(cluster.spec) || !isObj(cluster.spec.topology)) return [];
  const topology = cluster.spec.topology;
  const tenant = isObj(cluster.metadata) && isObj(cluster.metadata.labels) ? cluster.metadata.labels[LABEL_TENANT] : undefined;
  if (typeof tenant !== 'string') return [];
  const values = (list: unknown): Obj =>
    Object.fromEntries(
      (Array.isArray(list) ? list : []).filter((v): v is Obj => isObj(v) && typeof v.name === 'string').map((v) => [v.name as string, v.value]),
    );
  const clusterValues = values(topology.variables);
  const workers = isObj(topology.workers) && Array.isArray(topology.workers.machineDeployments) ? topology.workers.machineDeployments : [];
  const out: RenderedMachineDeployment[] = [];
  for (const md of workers) {
    if (!isObj(md) || typeof md.name !== 'string') continue;
    const metadata = isObj(md.metadata) ? md.metadata : {};
    const labels = isObj(metadata.labels) ? metadata.labels : {};
    const annotations = isObj(metadata.annotations) ? metadata.annotations : {};
    const [pool, instance, node] = [labels[LABEL_POOL], labels[LABEL_INSTANCE], labels[LABEL_PROXMOX_NODE]];
    if (typeof pool !== 'string' || typeof instance !== 'string' || typeof node !== 'string') continue;
    out.push({
      tenant,
      namespace: typeof (cluster.metadata as Obj).namespace === 'string' ? ((cluster.metadata as Obj).namespace as string) : '',
      cluster: typeof (cluster.metadata as Obj).name === 'string' ? ((cluster.metadata as Obj).name as string) : '',
      name: md.name,
      pool,
      instance,
      node,
      version: DEFER_UPGRADE in annotations || typeof topology.version !== 'string' ? undefined : topology.version,
      ...(typeof md.replicas === 'number' ? { replicas: md.replicas } : {}),
      variables: { ...clusterValues, ...values(isObj(md.variables) ? md.variables.overrides : undefined) },
    });
  }
  return out;
}

/**
 * The topology Clusters of a synthesized tenant stack (`cdk.tf.json` as parsed JSON): every
 * `kubernetes_manifest` whose manifest is a Cluster with a topology.
 */
export function topologyClustersOfStack(stackJson: unknown): unknown[] {
  const resources =
    isObj(stackJson) && isObj(stackJson.resource) && isObj(stackJson.resource.kubernetes_manifest) ? stackJson.resource.kubernetes_manifest : {};
  return Object.keys(resources)
    .sort()
    .map((k) => (isObj(resources[k]) ? (resources[k] as Obj).manifest : undefined))
    .filter((m) => isObj(m) && m.kind === 'Cluster' && isObj(m.spec) && isObj(m.spec.topology));
}

export interface NodeGroupChange {
  tenant: string;
  pool: string;
  instance: string;
  node: string;
  before: RenderedMachineDeployment[];
  after: RenderedMachineDeployment[];
}

const groupKey = (m: RenderedMachineDeployment) => `${m.tenant}\u0000${m.pool}\u0000${m.instance}\u0000${m.node}`;

function groups(before: readonly RenderedMachineDeployment[], after: readonly RenderedMachineDeployment[]): NodeGroupChange[] {
  // One pass over each side into a map by key (a filter per key was quadratic: 42 s at 1000 tenants).
  const byKey = new Map<string, { before: RenderedMachineDeployment[]; after: RenderedMachineDeployment[] }>();
  const entry = (m: RenderedMachineDeployment) => {
    const key = groupKey(m);
    let e = byKey.get(key);
    if (!e) byKey.set(key, (e = { before: [], after: [] }));
    return e;
  };
  for (const m of before) entry(m).before.push(m);
  for (const m of after) entry(m).after.push(m);
  return [...byKey.keys()].sort().map((key) => {
    const [tenant, pool, instance, node] = key.split('\u0000');
    const e = byKey.get(key)!;
    return { tenant, pool, instance, node, before: e.before, after: e.after };
  });
}

/** Groups whose machine deployments all change names: CAPI deletes the old ones before the new ones' Nodes exist. */
export function replacedGroups(before: readonly RenderedMachineDeployment[], after: readonly RenderedMachineDeployment[]): NodeGroupChange[] {
  return groups(before, after).filter((g) => g.before.length > 0 && g.after.length > 0 && !g.before.some((b) => g.after.some((a) => a.name === b.name)));
}

/** Groups whose old machine deployments go while a kept one carries the pool on (the retire step): `after` holds the kept ones. */
export function retiredGroups(
  before: readonly RenderedMachineDeployment[],
  after: readonly RenderedMachineDeployment[],
): (NodeGroupChange & { retired: string[] })[] {
  return groups(before, after)
    .map((g) => ({ ...g, retired: g.before.filter((b) => !g.after.some((a) => a.name === b.name)).map((b) => b.name) }))
    .filter((g) => g.retired.length > 0 && g.before.some((b) => g.after.some((a) => a.name === b.name)));
}

/** What changed in a group's worker template inputs (the variables the worker patches read): variable name → [before, after]. */
function changedVariables(g: NodeGroupChange, read: ReadonlySet<string>): Map<string, [unknown, unknown]> {
  const b = g.before[0].variables;
  const a = g.after[0].variables;
  const out = new Map<string, [unknown, unknown]>();
  for (const name of [...new Set([...Object.keys(b), ...Object.keys(a)])].sort()) {
    if (name === 'allowedNodes' || !read.has(name)) continue; // allowedNodes: per node group by construction
    if (canonicalJson(b[name]) !== canonicalJson(a[name])) out.set(name, [b[name], a[name]]);
  }
  if (g.before[0].version !== undefined && g.before[0].version !== g.after[0].version) out.set('version', [g.before[0].version, g.after[0].version]);
  return out;
}

const INSTANCE_FIELDS = ['bridge', 'storage', 'template', 'images', 'vmIdRange'] as const;

/** A tenant's node network on an instance: its `networks` entry, else `network` (cluster.ts `networkOn`). */
const networkOn = (t: Tenant, instance: string) => (t.networks && Object.hasOwn(t.networks, instance) ? t.networks[instance] : t.network);

/**
 * The `previous` that keeps a tenant's replaced groups during a surge: from the old description
 * when it is known (exact), else from the old Cluster's values. `unknown` lists what could not be
 * recovered from the Cluster alone.
 */
function suggestedPrevious(
  tenant: Tenant,
  lab: Lab,
  changes: NodeGroupChange[],
  read: ReadonlySet<string>,
  oldLab?: Lab,
): { previous: Obj; unknown: string[] } {
  const previous: Obj = structuredClone(tenant.previous ?? {}) as Obj;
  const instances: Obj = isObj(previous.instances) ? previous.instances : {};
  const networks: Obj = isObj(previous.networks) ? previous.networks : {};
  const unknown: string[] = [];
  const oldTenant = oldLab?.tenants.find((t) => t.name === tenant.name);
  // The node network of an instance as it was: in previous.networks where the instance has (or had)
  // an entry of its own in networks, else in previous.network (what the instance's entry falls back to).
  const setNetwork = (instance: string, value: unknown) => {
    const own = (t: Tenant | undefined) => t?.networks !== undefined && Object.hasOwn(t.networks, instance);
    if (own(tenant) || own(oldTenant)) networks[instance] = value;
    else previous.network = value;
  };
  const setInstance = (instance: string, field: string, value: unknown) => {
    const entry = (instances[instance] = isObj(instances[instance]) ? instances[instance] : {}) as Obj;
    entry[field] = isObj(entry[field]) && isObj(value) ? { ...(entry[field] as Obj), ...value } : value;
  };
  for (const g of changes) {
    const vars = changedVariables(g, read);
    if (vars.has('proxmoxPool')) {
      // The Proxmox pool holds the running machines: a new name replaces the pool under them, so this cannot surge.
      unknown.push(
        `nothing keeps the machines through a new pools.vms of ${g.instance} (the Proxmox pool holding them would be replaced): put pools.vms back to ${flowYaml(String(vars.get('proxmoxPool')![0]).replace(new RegExp(`-${tenant.name}$`), ''))}`,
      );
    }
    if (oldLab && oldTenant) {
      const was = oldLab.proxmox.instances.find((i) => i.name === g.instance);
      const now = lab.proxmox.instances.find((i) => i.name === g.instance);
      if (was && now) {
        for (const field of INSTANCE_FIELDS) {
          if (field === 'storage') {
            if (was.storage.disks !== now.storage.disks) setInstance(g.instance, 'storage', { disks: was.storage.disks });
            if (was.storage.disksShared !== now.storage.disksShared) setInstance(g.instance, 'storage', { disksShared: was.storage.disksShared });
          } else if (canonicalJson(was[field]) !== canonicalJson(now[field])) setInstance(g.instance, field, was[field]);
        }
      }
      const [wasNetwork, nowNetwork] = [networkOn(oldTenant, g.instance), networkOn(tenant, g.instance)];
      if (wasNetwork && canonicalJson(wasNetwork) !== canonicalJson(nowNetwork)) setNetwork(g.instance, wasNetwork);
      if (vars.has('workerSize')) previous.pools = oldTenant.pools;
      continue;
    }
    for (const [name, [was]] of vars) {
      if (name === 'bridge') setInstance(g.instance, 'bridge', was);
      else if (name === 'proxmoxStorage') setInstance(g.instance, 'storage', { disks: was });
      else if (name === 'vlan') {
        const v = g.before[0].variables;
        const ip = isObj(v.nodeIPv4Config) ? v.nodeIPv4Config : {};
        setNetwork(g.instance, {
          addresses: ip.addresses,
          prefix: ip.prefix,
          gateway: ip.gateway,
          dnsServers: v.dnsServers,
          ...(v.vlan !== undefined ? { vlan: v.vlan } : {}),
        });
      } else if (name === 'workerSize') {
        const pools = (Array.isArray(previous.pools) ? previous.pools : structuredClone(tenant.pools)) as Obj[];
        previous.pools = pools.map((p) => (p.name === g.pool ? { ...p, size: was } : p));
      } else if (name === 'proxmoxTemplate')
        unknown.push(
          `instances.${g.instance}: template, images and vmIdRange as they were (the old Cluster shows only the template it made of them: ${flowYaml(was)})`,
        );
      else if (name !== 'version') unknown.push(`${name} as it was (${flowYaml(was)})`);
    }
  }
  if (Object.keys(instances).length > 0) previous.instances = instances;
  if (Object.keys(networks).length > 0) previous.networks = networks;
  return { previous, unknown: [...new Set(unknown)] };
}

/** The tenants with node groups a change replaces with no surge, each with those groups (see replacementProblems). */
function unsurgedReplacements(lab: Lab, before: readonly RenderedMachineDeployment[], after: readonly RenderedMachineDeployment[]) {
  const out: { index: number; tenant: Tenant; mine: NodeGroupChange[] }[] = [];
  const replaced = replacedGroups(before, after);
  const read = new Set(workerMachineVariables(lab.capmox.multiInstance));
  for (const tenantName of [...new Set(replaced.map((g) => g.tenant))]) {
    const index = lab.tenants.findIndex((t) => t.name === tenantName);
    if (index < 0) continue;
    const tenant = lab.tenants[index];
    // A group whose template inputs are all unchanged was renamed by the class's own worker template
    // (a pvekaas release that changes it): previous cannot keep that, it is not the description's.
    const mine = replaced.filter((g) => g.tenant === tenantName && changedVariables(g, read).size > 0);
    if (mine.length === 0) continue;
    const versionChanged = mine.some((g) => g.before[0].version !== undefined && g.before[0].version !== tenant.kubernetesVersion);
    if (versionChanged && !tenant.previous) continue;
    out.push({ index, tenant, mine });
  }
  return out;
}

/**
 * The `previous` each tenant with node groups replaced with no surge needs (its surge step), where
 * it can be told whole (from the old description); upgrade-plan stages it where it does not fit.
 */
export function replacementPrevious(
  lab: Lab,
  before: readonly RenderedMachineDeployment[],
  after: readonly RenderedMachineDeployment[],
  oldLab: Lab,
): Map<string, Obj> {
  const read = new Set(workerMachineVariables(lab.capmox.multiInstance));
  const out = new Map<string, Obj>();
  for (const { tenant, mine } of unsurgedReplacements(lab, before, after)) {
    const { previous, unknown } = suggestedPrevious(tenant, lab, mine, read, oldLab);
    if (unknown.length === 0) out.set(tenant.name, previous);
  }
  return out;
}

/**
 * A problem for every tenant with node groups a change replaces with no surge: at
 * `tenants[i].previous` (or `tenants[i]`), naming each group, what changed, and the exact
 * `previous` to write. Tenants whose version changes without `previous` are left to the upgrade
 * checks (modules/foresight/upgrade.ts), which say the same with the upgrade's steps.
 */
export function replacementProblems(
  lab: Lab,
  before: readonly RenderedMachineDeployment[],
  after: readonly RenderedMachineDeployment[],
  oldLab?: Lab,
): Problem[] {
  const problems: Problem[] = [];
  const read = new Set(workerMachineVariables(lab.capmox.multiInstance));
  for (const { index, tenant, mine } of unsurgedReplacements(lab, before, after)) {
    const { previous, unknown } = suggestedPrevious(tenant, lab, mine, read, oldLab);
    const what = mine.map((g) => {
      const vars = [...changedVariables(g, read)].map(([name, [b, a]]) => `${name} ${flowYaml(b)} → ${flowYaml(a)}`);
      return `${g.before.map((m) => m.name).join(', ')} (pool ${g.pool} on ${g.instance}/${g.node}) by ${g.after.map((m) => m.name).join(', ')}${vars.length ? `: ${vars.join('; ')}` : ''}`;
    });
    problems.push({
      path: ['tenants', index, ...(tenant.previous ? ['previous'] : [])],
      message:
        `tenant ${tenant.name}: this change replaces ${mine.length} node group${mine.length === 1 ? '' : 's'} with no surge — CAPI deletes the old machine deployment${mine.length === 1 ? '' : 's'} at once and the pool has fewer Ready Nodes until the new machines join: ` +
        what.join('; '),
      fix:
        `surge, then retire (docs/tenants.md): set tenants[${index}].previous: ${flowYaml(previous)}` +
        (unknown.length > 0
          ? ` and in it ${unknown.join('; ')} (npm run --silent validate -- --config <new> --against <old lab.yaml> prints them exactly)`
          : '') +
        ', deploy, and remove previous once the new Nodes are Ready (deploy checks that)',
      rule: 'replace.no-surge',
    });
  }
  return problems;
}

/**
 * `machine-deployments.json`, written by synth beside `placement.json` in every output (JSON or
 * HCL stacks) and carried into export-hcl's: the topology machine deployments of every tenant's
 * primary Cluster, as rendered, with the values their worker templates are made from. The
 * replacement guard of the next synth, export-hcl or deploy compares with it
 * (scripts/lib/upgrade-guard.ts), whatever format the stacks were written in. Sorted by tenant and
 * name: the same description gives the same bytes. No secret is in it: the variables
 * name the credentials Secret, never its content.
 */
export const MACHINE_DEPLOYMENTS_FILE = 'machine-deployments.json';
export const MACHINE_DEPLOYMENTS_FORMAT = 'pvekaas/machine-deployments/v1';

/** The document of the topology machine deployments of the given Clusters (a tenant rendering's `cluster` each). */
export function machineDeploymentsDocument(clusters: Iterable<unknown>): string {
  const mds = [...clusters]
    .flatMap((c) => topologyMachineDeployments(c))
    .sort((a, b) => (a.tenant !== b.tenant ? (a.tenant < b.tenant ? -1 : 1) : a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  // Keys in the rendering's order (itself fixed by the description), so a value reads back as rendered.
  return `${JSON.stringify({ format: MACHINE_DEPLOYMENTS_FORMAT, machineDeployments: mds }, null, 2)}\n`;
}

/**
 * The machine deployments of a parsed `machine-deployments.json`; undefined when it is not one
 * pvekaas wrote (another format, or entries without the fields the guard compares).
 */
export function machineDeploymentsOfDocument(json: unknown): RenderedMachineDeployment[] | undefined {
  if (!isObj(json) || json.format !== MACHINE_DEPLOYMENTS_FORMAT || !Array.isArray(json.machineDeployments)) return undefined;
  const out: RenderedMachineDeployment[] = [];
  for (const m of json.machineDeployments) {
    const strings = ['tenant', 'namespace', 'cluster', 'name', 'pool', 'instance', 'node'] as const;
    if (!isObj(m) || strings.some((k) => typeof m[k] !== 'string') || !isObj(m.variables)) return undefined;
    if ((m.version !== undefined && typeof m.version !== 'string') || (m.replicas !== undefined && typeof m.replicas !== 'number')) return undefined;
    out.push({
      tenant: m.tenant as string,
      namespace: m.namespace as string,
      cluster: m.cluster as string,
      name: m.name as string,
      pool: m.pool as string,
      instance: m.instance as string,
      node: m.node as string,
      ...(m.version !== undefined ? { version: m.version as string } : {}),
      ...(m.replicas !== undefined ? { replicas: m.replicas as number } : {}),
      variables: m.variables,
    });
  }
  return out;
}
