/**
 * `status`: what runs now, per tenant, beside the plan. Pure: what the plan and rendering expect
 * (`expectedTenant`, from the lab, its placement plan and its tenant rendering) and the objects the
 * management cluster holds (`LiveTenant`, read by scripts/status.ts) in, the report out.
 *
 * What is read, and from where (the shapes are those of the pinned CRDs: CAPI v1.12 `v1beta2`,
 * the Kamaji control-plane provider's `v1alpha2`, Kamaji's `v1alpha1`, CAPMOX's `v1alpha2`):
 *
 * - the control plane: the KamajiControlPlane's `status.version`, `status.ready`,
 *   `status.initialization.controlPlaneInitialized` and conditions (its `spec.version` is the one
 *   CAPI's topology asks for), and the TenantControlPlane's `status.kubernetesResources.version`;
 * - each CAPI Cluster's (the primary and, for a MultiInstance tenant on released CAPMOX, one
 *   secondary per extra instance) `status.phase` and conditions (`Available`, `ControlPlaneAvailable`, ...);
 * - the VIP: the primary Cluster's `spec.controlPlaneEndpoint`, and the address the load balancer
 *   gave the control plane's Service (`status.loadBalancer.ingress`), against the VIP of the plan;
 * - the machines: every MachineDeployment (`spec.replicas`, `status.replicas`/`readyReplicas`, the
 *   version of its template) and Machine (`status.phase`, `spec.version`, `status.nodeRef`, its
 *   `NodeReady` condition), and where CAPMOX made each VM: the Proxmox node from the
 *   ProxmoxMachine's `status.proxmoxNode`, the instance from the Cluster it belongs to (released
 *   CAPMOX binds a Cluster to one Proxmox API) or, where one Cluster spans instances
 *   (`capmox.multiInstance: proposal`), from the Machine's failure domain.
 *
 * Node Ready is the Machine's `NodeReady` condition: CAPI core's mirror of the Node's own `Ready`
 * condition (cluster-api v1.12 api/core/v1beta2/machine_types.go, `MachineNodeReadyCondition`),
 * which the machine controller reads from the tenant's API server through the tenant kubeconfig.
 * So status needs read access to the management cluster only, never a tenant's admin kubeconfig,
 * and says what CAPI itself bases a MachineDeployment's readiness on (the retire guard's
 * `readyReplicas`); when CAPI cannot reach the tenant's API server the condition says so
 * (`Unknown`, reason `ConnectionDown`), and status prints that reason.
 *
 * Now ≠ plan: a control plane on another version than the lab's, or not ready; a VIP other than
 * the plan's; per pool and node group, another number of machines than the plan's (an autoscaled
 * pool: outside min..max), machines on another node than their group's, not Running or without a
 * Ready Node, on another version; node groups of the plan without a MachineDeployment, and
 * MachineDeployments the plan does not have (a `previous` step's retiring ones are expected and
 * listed as in progress, not as differences).
 */
import type { Lab } from '../config/schema';
import { machinesAtLeast, machinesAtMost } from '../placement/scale';
import type { PlacementPlan } from '../placement/types';
import type { TenantRendering } from '../tenants';
import { topologyMachineDeployments } from '../tenants/replaced';
import { LABEL_INSTANCE, LABEL_POOL, LABEL_PROXMOX_NODE } from '../tenants/names';
import { describe } from './status-render';
import type { LiveCondition, LiveTenant } from './status-live';

// The live objects' shapes and the report have files of their own; importers find them here too.
export * from './status-live';
export { renderStatusMarkdown, statusJson } from './status-render';

/** A machine deployment the rendering has, and where its machines belong. */
export interface ExpectedMachineDeployment {
  cluster: string;
  /** Primary Cluster: the topology name (label `topology.cluster.x-k8s.io/deployment-name`); secondary: the object's name. */
  name: string;
  pool: string;
  instance: string;
  node: string;
  /** `retiring`: a `previous` step's old machine deployment, kept until the retire step. */
  role: 'plan' | 'retiring';
  /** The version it runs (a retiring one keeps its own). */
  version: string;
}

/** What the plan and the rendering say about one tenant. */
export interface ExpectedTenant {
  name: string;
  namespace: string;
  mode: string;
  version: string;
  vip: string;
  /** Each CAPI Cluster, its role and its instance (`undefined`: a primary spanning instances, `proposal`). */
  clusters: { name: string; role: 'primary' | 'secondary'; instance?: string }[];
  /** `pool instance/node` → what the plan asks there. */
  groups: { pool: string; instance: string; node: string; replicas: number; autoscaling?: { min: number; max: number } }[];
  machineDeployments: ExpectedMachineDeployment[];
  instances: string[];
}

const TOPOLOGY_NAME = 'topology.cluster.x-k8s.io/deployment-name';
const DEPLOYMENT_NAME = 'cluster.x-k8s.io/deployment-name';
const CLUSTER_NAME = 'cluster.x-k8s.io/cluster-name';

/** The plan's and rendering's view of one tenant (the tenant must be in both). */
export function expectedTenant(lab: Lab, plan: PlacementPlan, rendering: TenantRendering): ExpectedTenant {
  const name = rendering.tenant.name;
  const tenantPlan = plan.tenants.find((t) => t.name === name);
  if (!tenantPlan) throw new Error(`tenant ${name} is not in the placement plan`);
  const version = rendering.tenant.kubernetesVersion;
  const spans = lab.capmox.multiInstance === 'proposal' && tenantPlan.instances.length > 1;
  const retiring = new Map(rendering.retiring.map((r) => [r.name, r]));
  const mds: ExpectedMachineDeployment[] = [];
  for (const md of topologyMachineDeployments(rendering.cluster)) {
    const old = retiring.get(md.name);
    mds.push({
      cluster: md.cluster,
      name: md.name,
      pool: md.pool,
      instance: md.instance,
      node: md.node,
      role: old ? 'retiring' : 'plan',
      version: old?.version ?? md.version ?? version,
    });
  }
  for (const sc of rendering.secondaries?.clusters ?? []) {
    for (const md of sc.machineDeployments) {
      const object = md.machineDeployment as unknown as { metadata: { name: string }; spec: { template: { spec: { version: string } } } };
      mds.push({
        cluster: sc.name,
        name: object.metadata.name,
        pool: md.plan.pool,
        instance: md.plan.instance,
        node: md.plan.nodes[0],
        role: md.retiring ? 'retiring' : 'plan',
        version: object.spec.template.spec.version,
      });
    }
  }
  mds.sort((a, b) => compare(`${a.cluster} ${a.name}`, `${b.cluster} ${b.name}`));
  return {
    name,
    namespace: rendering.namespace.metadata.name as string,
    mode: tenantPlan.mode,
    version,
    vip: rendering.vip.vip,
    clusters: rendering.clusters.map((c) => ({ name: c.cluster, role: c.role, ...(c.role === 'primary' && spans ? {} : { instance: c.instance }) })),
    groups: tenantPlan.pools.flatMap((p) =>
      p.placements.map((x) => ({
        pool: p.name,
        instance: x.instance,
        node: x.node,
        replicas: machinesAtLeast(x.scale),
        ...(p.scale.kind === 'autoscaled' ? { autoscaling: { min: machinesAtLeast(x.scale), max: machinesAtMost(x.scale) } } : {}),
      })),
    ),
    machineDeployments: mds,
    instances: [...tenantPlan.instances],
  };
}

export interface ConditionView {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

export interface MachineView {
  name: string;
  cluster: string;
  pool: string;
  /** The node group it belongs to (its MachineDeployment's labels). */
  group: { instance: string; node: string };
  /** Where its VM is: the instance of its Cluster, the node CAPMOX reports. */
  instance?: string;
  node?: string;
  vmid?: number;
  addresses: string[];
  phase?: string;
  version?: string;
  machineDeployment?: string;
  /** `plan`, `retiring` (a `previous` step's), or `unplanned` (no machine deployment of the rendering). */
  role: 'plan' | 'retiring' | 'unplanned';
  nodeName?: string;
  /** The Machine's NodeReady condition (CAPI's mirror of the Node's Ready): True, False, Unknown, or absent without a Node. */
  nodeReady?: ConditionView;
  /**
   * The Machine's OwnerRemediated condition while it is False: a MachineHealthCheck found it
   * unhealthy and its MachineSet has not replaced it yet (reason WaitingForRemediation), or will
   * not now (RemediationDeferred: a preflight check refuses a machine of this version, e.g. a held
   * group of a staged surge below a newer control plane; CAPI core
   * internal/controllers/machineset/machineset_controller.go reconcileUnhealthyMachines).
   */
  remediation?: ConditionView;
  deleting: boolean;
}

export interface MachineDeploymentView {
  name: string;
  cluster: string;
  /** The name the rendering knows it by (topology name, or the object's name for a secondary Cluster's). */
  renderedName: string;
  pool: string;
  instance: string;
  node: string;
  role: 'plan' | 'retiring' | 'unplanned';
  /** `spec.replicas` (an autoscaled pool's: the autoscaler's). */
  replicas?: number;
  /** `status.replicas`: the machines it has now. */
  current: number;
  ready: number;
  version?: string;
}

export interface GroupView {
  pool: string;
  instance: string;
  node: string;
  /** What the plan asks (undefined: a node group the plan does not have). */
  plan?: { replicas: number; autoscaling?: { min: number; max: number } };
  /** The node group's machines now (not being deleted), of its planned machine deployments. */
  machines: number;
  /** Of those, with a Ready Node. */
  readyNodes: number;
  /** Machines of retiring machine deployments there (a `previous` step's). */
  retiring: number;
}

export interface TenantStatus {
  name: string;
  namespace: string;
  mode: string;
  /** True when nothing differs from the plan. */
  asPlanned: boolean;
  controlPlane: {
    /** The version the lab asks for. */
    plan: string;
    /** The KamajiControlPlane's `status.version` (what runs). */
    version?: string;
    /** Its `spec.version` (what CAPI's topology asks for). */
    desired?: string;
    ready: boolean;
    initialized: boolean;
    /** The TenantControlPlane's version and its status (Ready, Upgrading, Provisioning...). */
    tenantControlPlane?: { version?: string; status?: string };
    conditions: ConditionView[];
  };
  vip: { plan: string; endpoint?: string; service?: { name: string; type?: string; addresses: string[] } };
  clusters: { name: string; role: 'primary' | 'secondary'; instance?: string; phase?: string; conditions: ConditionView[] }[];
  groups: GroupView[];
  machineDeployments: MachineDeploymentView[];
  machines: MachineView[];
  /** What is under way: upgrades, scaling, `previous` steps, machines being deleted. */
  inProgress: string[];
  /** Every way now differs from the plan. */
  differences: string[];
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function condition(list: readonly LiveCondition[] | undefined, type: string): ConditionView | undefined {
  const c = list?.find((x) => x.type === type);
  return c ? view(c) : undefined;
}

function view(c: LiveCondition): ConditionView {
  return {
    type: c.type,
    status: c.status,
    ...(c.reason ? { reason: c.reason } : {}),
    ...(c.message ? { message: c.message.split('\n')[0].slice(0, 300) } : {}),
  };
}

/** The conditions worth showing of a Cluster or control plane: the positive ones CAPI sums up readiness with, in this order. */
const CLUSTER_CONDITIONS = [
  'Available',
  'InfrastructureReady',
  'ControlPlaneInitialized',
  'ControlPlaneAvailable',
  'WorkersAvailable',
  'RemoteConnectionProbe',
  'TopologyReconciled',
];

function pick(list: readonly LiveCondition[] | undefined, types: readonly string[]): ConditionView[] {
  return types.map((t) => condition(list, t)).filter((c): c is ConditionView => c !== undefined);
}

/** Compares what runs in one tenant's namespace with what the plan and rendering expect. */
export function tenantStatus(expected: ExpectedTenant, live: LiveTenant): TenantStatus {
  const differences: string[] = [];
  const inProgress: string[] = [];
  const primaryName = expected.clusters.find((c) => c.role === 'primary')?.name ?? expected.name;

  // The control plane.
  const kcp = live.kamajiControlPlanes.find((k) => k.metadata.name === primaryName) ?? live.kamajiControlPlanes[0];
  const tcp = live.tenantControlPlanes.find((t) => t.metadata.name === (kcp?.metadata.name ?? primaryName));
  const controlPlane: TenantStatus['controlPlane'] = {
    plan: expected.version,
    ...(kcp?.status?.version ? { version: kcp.status.version } : {}),
    ...(kcp?.spec?.version ? { desired: kcp.spec.version } : {}),
    ready: kcp?.status?.ready === true,
    initialized: kcp?.status?.initialization?.controlPlaneInitialized === true,
    ...(tcp?.status?.kubernetesResources?.version ? { tenantControlPlane: { ...tcp.status.kubernetesResources.version } } : {}),
    conditions: pick(kcp?.status?.conditions, ['Available', 'KamajiControlPlaneIsReady', 'KamajiControlPlaneIsInitialized']),
  };
  if (!kcp)
    differences.push(`no KamajiControlPlane ${primaryName} in namespace ${expected.namespace} (the tenant stack is not deployed, or CAPI has not made it yet)`);
  else {
    if (!controlPlane.ready)
      differences.push(
        `control plane ${kcp.metadata.name} is not ready${
          controlPlane.conditions.filter((c) => c.status !== 'True').length
            ? `: ${controlPlane.conditions
                .filter((c) => c.status !== 'True')
                .map(describe)
                .join('; ')}`
            : ''
        }`,
      );
    if (controlPlane.version !== expected.version)
      differences.push(`control plane runs ${controlPlane.version ?? 'no version yet'}, the lab asks for ${expected.version}`);
    if (controlPlane.desired && controlPlane.version && controlPlane.desired !== controlPlane.version)
      inProgress.push(`control plane upgrading: ${controlPlane.version} → ${controlPlane.desired}`);
  }

  // The VIP.
  const primary = live.clusters.find((c) => c.metadata.name === primaryName);
  const ep = primary?.spec?.controlPlaneEndpoint;
  const service = live.services.find((s) => s.metadata.name === (kcp?.metadata.name ?? primaryName)) ?? live.services[0];
  const vip: TenantStatus['vip'] = {
    plan: expected.vip,
    ...(ep?.host ? { endpoint: `${ep.host}${ep.port ? `:${ep.port}` : ''}` } : {}),
    ...(service
      ? {
          service: {
            name: service.metadata.name,
            ...(service.spec?.type ? { type: service.spec.type } : {}),
            addresses: (service.status?.loadBalancer?.ingress ?? []).map((i) => i.ip ?? i.hostname ?? '').filter(Boolean),
          },
        }
      : {}),
  };
  if (primary && ep?.host !== expected.vip)
    differences.push(`Cluster ${primaryName}'s control plane endpoint is ${ep?.host ?? 'not set'}, the plan's VIP is ${expected.vip}`);
  if (!service) differences.push(`no control plane Service in namespace ${expected.namespace} (Kamaji has not made it yet)`);
  else if (!vip.service!.addresses.includes(expected.vip))
    differences.push(
      `the control plane Service ${service.metadata.name} has ${vip.service!.addresses.length ? `address ${vip.service!.addresses.join(', ')}` : 'no address from the load balancer'}, the plan's VIP is ${expected.vip}`,
    );

  // The Clusters.
  const clusters: TenantStatus['clusters'] = expected.clusters.map((c) => {
    const found = live.clusters.find((x) => x.metadata.name === c.name);
    const conditions = pick(found?.status?.conditions, CLUSTER_CONDITIONS);
    if (!found) differences.push(`no Cluster ${c.name} in namespace ${expected.namespace}`);
    else {
      const available = conditions.find((x) => x.type === 'Available');
      if (available && available.status !== 'True') differences.push(`Cluster ${c.name}: ${describe(available)}`);
    }
    return {
      name: c.name,
      role: c.role,
      ...(c.instance ? { instance: c.instance } : {}),
      ...(found?.status?.phase ? { phase: found.status.phase } : {}),
      conditions,
    };
  });
  for (const c of live.clusters) {
    if (!expected.clusters.some((x) => x.name === c.metadata.name))
      differences.push(`Cluster ${c.metadata.name} is not in the plan (a leftover, or an instance the tenant left)`);
  }

  // Machine deployments, by the name the rendering knows them by.
  const clusterInstance = new Map(expected.clusters.filter((c) => c.instance).map((c) => [c.name, c.instance as string]));
  const mdViews: MachineDeploymentView[] = [];
  const byObjectName = new Map<string, MachineDeploymentView>();
  for (const md of live.machineDeployments) {
    const labels = md.metadata.labels ?? {};
    const cluster = md.spec?.clusterName ?? labels[CLUSTER_NAME] ?? '';
    const renderedName = labels[TOPOLOGY_NAME] ?? md.metadata.name;
    const known = expected.machineDeployments.find((e) => e.cluster === cluster && e.name === renderedName);
    const v: MachineDeploymentView = {
      name: md.metadata.name,
      cluster,
      renderedName,
      pool: known?.pool ?? labels[LABEL_POOL] ?? '',
      instance: known?.instance ?? labels[LABEL_INSTANCE] ?? clusterInstance.get(cluster) ?? '',
      node: known?.node ?? labels[LABEL_PROXMOX_NODE] ?? '',
      role: known?.role ?? 'unplanned',
      ...(md.spec?.replicas !== undefined ? { replicas: md.spec.replicas } : {}),
      current: md.status?.replicas ?? 0,
      ready: md.status?.readyReplicas ?? 0,
      ...(md.spec?.template?.spec?.version ? { version: md.spec.template.spec.version } : {}),
    };
    mdViews.push(v);
    byObjectName.set(md.metadata.name, v);
    const where = `${v.pool} on ${v.instance}/${v.node}`;
    if (v.role === 'unplanned')
      differences.push(`MachineDeployment ${v.name} (${where}) is not in the plan: a leftover, or the lab changed and was not deployed`);
    if (v.role === 'retiring')
      inProgress.push(`retiring (previous): MachineDeployment ${v.name}, ${where}, ${v.current} machine(s) on ${v.version ?? '?'}, kept until the retire step`);
    if (v.role === 'plan' && v.version && v.version !== expected.version)
      inProgress.push(
        `MachineDeployment ${v.name} (${where}) still on ${v.version}, the lab asks for ${expected.version} (CAPI upgrades workers after the control plane)`,
      );
    if (v.replicas !== undefined && v.current > v.replicas)
      inProgress.push(`MachineDeployment ${v.name} (${where}) scaling down: ${v.current} → ${v.replicas} machines`);
    if (v.replicas !== undefined && v.current < v.replicas)
      inProgress.push(`MachineDeployment ${v.name} (${where}) scaling up: ${v.current} → ${v.replicas} machines`);
  }
  mdViews.sort((a, b) => compare(`${a.cluster} ${a.name}`, `${b.cluster} ${b.name}`));
  for (const e of expected.machineDeployments) {
    if (!mdViews.some((v) => v.cluster === e.cluster && v.renderedName === e.name))
      differences.push(`no MachineDeployment for ${e.pool} on ${e.instance}/${e.node} (${e.name} in Cluster ${e.cluster}) yet`);
  }

  // Machines.
  const pms = new Map(live.proxmoxMachines.map((p) => [p.metadata.name, p]));
  const machines: MachineView[] = live.machines.map((m) => {
    const labels = m.metadata.labels ?? {};
    const cluster = m.spec?.clusterName ?? labels[CLUSTER_NAME] ?? '';
    const md = byObjectName.get(labels[DEPLOYMENT_NAME] ?? '');
    const pm = m.spec?.infrastructureRef?.name ? pms.get(m.spec.infrastructureRef.name) : undefined;
    const instance =
      clusterInstance.get(cluster) ?? (m.spec?.failureDomain && expected.instances.includes(m.spec.failureDomain) ? m.spec.failureDomain : undefined);
    const addresses = [...(m.status?.addresses ?? []), ...(pm?.status?.addresses ?? [])].filter((a) => a.type === 'InternalIP').map((a) => a.address);
    const nodeReady = m.status?.nodeRef?.name ? condition(m.status?.conditions, 'NodeReady') : undefined;
    // Its whole message: CAPI lists each failed preflight check on a line of its own ("* ...").
    const owner = m.status?.conditions?.find((c) => c.type === 'OwnerRemediated');
    const remediation =
      owner?.status === 'False'
        ? {
            ...view(owner),
            ...(owner.message
              ? {
                  message: owner.message
                    .split('\n')
                    .map((l) => l.replace(/^\s*\* /, '').trim())
                    .filter(Boolean)
                    .join('; '),
                }
              : {}),
          }
        : undefined;
    return {
      name: m.metadata.name,
      cluster,
      pool: md?.pool ?? labels[LABEL_POOL] ?? '',
      group: { instance: md?.instance ?? labels[LABEL_INSTANCE] ?? '', node: md?.node ?? labels[LABEL_PROXMOX_NODE] ?? '' },
      ...(instance ? { instance } : {}),
      ...(pm?.status?.proxmoxNode ? { node: pm.status.proxmoxNode } : {}),
      ...(pm?.spec?.virtualMachineID !== undefined ? { vmid: pm.spec.virtualMachineID } : {}),
      addresses: [...new Set(addresses)],
      ...(m.status?.phase ? { phase: m.status.phase } : {}),
      ...(m.spec?.version ? { version: m.spec.version } : {}),
      ...(md ? { machineDeployment: md.name } : {}),
      role: md?.role ?? 'unplanned',
      ...(m.status?.nodeRef?.name ? { nodeName: m.status.nodeRef.name } : {}),
      ...(nodeReady ? { nodeReady } : {}),
      ...(remediation ? { remediation } : {}),
      deleting: m.metadata.deletionTimestamp !== undefined,
    };
  });
  machines.sort((a, b) => compare(`${a.pool} ${a.group.instance} ${a.group.node} ${a.name}`, `${b.pool} ${b.group.instance} ${b.group.node} ${b.name}`));
  for (const m of machines) {
    if (m.deleting) {
      inProgress.push(`machine ${m.name} (${m.pool} on ${m.group.instance}/${m.group.node}) is being deleted`);
      continue;
    }
    if (m.role === 'unplanned' && !m.machineDeployment) differences.push(`machine ${m.name} belongs to no MachineDeployment status knows`);
    const where = `${m.group.instance}/${m.group.node}`;
    if (m.remediation?.reason === 'RemediationDeferred')
      differences.push(
        `machine ${m.name} (${m.pool} on ${where}, ${m.version ?? '?'}) is unhealthy and CAPI defers its replacement: ${m.remediation.message ?? 'no message'} — ` +
          `the group stays a machine short until a step surges it (a held group of a staged upgrade: validate's warning surge.held-cannot-heal names the previous that does)`,
      );
    else if (m.remediation)
      inProgress.push(`machine ${m.name} (${m.pool} on ${where}) is unhealthy, waiting for its MachineSet to replace it (${describe(m.remediation)})`);
    if (m.role !== 'plan') continue;
    if (m.node !== undefined && (m.node !== m.group.node || (m.instance !== undefined && m.instance !== m.group.instance)))
      differences.push(`machine ${m.name} (pool ${m.pool}) runs on ${m.instance ?? '?'}/${m.node}; its node group is ${where}`);
    if (m.phase !== 'Running') differences.push(`machine ${m.name} (${m.pool} on ${where}) is ${m.phase ?? 'without a phase'}, not Running`);
    else if (!m.nodeName) differences.push(`machine ${m.name} (${m.pool} on ${where}) has no Node yet`);
    else if (m.nodeReady?.status !== 'True')
      differences.push(`machine ${m.name}: Node ${m.nodeName} is not Ready (${m.nodeReady ? describe(m.nodeReady) : 'NodeReady not reported yet'})`);
    if (m.version && m.version !== expected.version)
      inProgress.push(`machine ${m.name} (${m.pool} on ${where}) runs ${m.version}, the lab asks for ${expected.version}`);
  }
  const onOld = machines.filter((m) => m.role === 'plan' && !m.deleting && m.version && m.version !== expected.version);
  if (onOld.length > 0)
    differences.push(`${onOld.length} machine(s) not yet on ${expected.version}: ${onOld.map((m) => `${m.name} (${m.version})`).join(', ')}`);

  // Node groups: what the plan asks on each node, what runs there.
  const keys = new Map<string, GroupView>();
  const keyOf = (pool: string, instance: string, node: string) => `${pool} ${instance}/${node}`;
  for (const g of expected.groups) {
    keys.set(keyOf(g.pool, g.instance, g.node), {
      pool: g.pool,
      instance: g.instance,
      node: g.node,
      plan: { replicas: g.replicas, ...(g.autoscaling ? { autoscaling: g.autoscaling } : {}) },
      machines: 0,
      readyNodes: 0,
      retiring: 0,
    });
  }
  for (const m of machines) {
    if (m.deleting) continue;
    const key = keyOf(m.pool, m.group.instance, m.group.node);
    const g = keys.get(key) ?? { pool: m.pool, instance: m.group.instance, node: m.group.node, machines: 0, readyNodes: 0, retiring: 0 };
    keys.set(key, g);
    if (m.role === 'retiring') g.retiring++;
    else if (m.role === 'plan') {
      g.machines++;
      if (m.nodeReady?.status === 'True') g.readyNodes++;
    }
  }
  const groups = [...keys.values()].sort((a, b) => compare(keyOf(a.pool, a.instance, a.node), keyOf(b.pool, b.instance, b.node)));
  for (const g of groups) {
    const where = `pool ${g.pool} on ${g.instance}/${g.node}`;
    if (!g.plan) {
      if (g.machines > 0) differences.push(`${where}: ${g.machines} machine(s), the plan has none there`);
      continue;
    }
    const a = g.plan.autoscaling;
    if (a) {
      if (g.machines < a.min || g.machines > a.max)
        differences.push(`${where}: ${g.machines} machine(s), the plan's autoscaling bounds are ${a.min}..${a.max}`);
    } else if (g.machines !== g.plan.replicas) differences.push(`${where}: ${g.machines} machine(s), the plan has ${g.plan.replicas}`);
  }

  return {
    name: expected.name,
    namespace: expected.namespace,
    mode: expected.mode,
    asPlanned: differences.length === 0,
    controlPlane,
    vip,
    clusters,
    groups,
    machineDeployments: mdViews,
    machines,
    inProgress,
    differences,
  };
}
