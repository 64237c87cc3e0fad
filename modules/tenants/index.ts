/**
 * Everything one tenant becomes in the management cluster, as plain data: the pure half of the
 * tenant stack. `renderTenant` checks what only the placement plan and the other tenants can tell
 * (VIPs, instances, address ranges) and throws one `ProblemError` listing every problem.
 */
import type { Problem } from '../config/problems';
import { nodeTemplateFor, type Instance, type Lab, type Tenant } from '../config/schema';
import { templateVmIds } from '../config/template-ids';
import { cloneSourceNodes, planPlacementPartial } from '../placement/plan';
import { machinesAtMost } from '../placement/scale';
import { hasSurge, previousLab, previousLabOf, previousTenant } from '../placement/surge';
import type { PlacementPlan } from '../placement/types';
import { AUTOSCALER_IMAGE_REPOSITORY, autoscalerChart, type TenantChartPin } from '../versions/cni';
import { CAPMOX_CREDENTIALS_NAMESPACE, CAPMOX_SECRET_TYPE_LABEL, capmoxTenantCredentialsSecretName } from '../versions/layout';
import { mirroredRepository } from '../versions/mirror';
import { autoscalerImageTag, autoscalerValues } from './autoscaler';
import { autoscalerImageTags as autoscalerImageTagsTable } from '../versions/cni';
import { tenantCluster, type RetiringMachineDeployment } from './cluster';
import { floorProblems } from './floor';
import { cniHelmChartProxy } from './cni';
import { maxMachines, type MachineDeploymentPlan } from './machine-deployments';
import type { KubernetesObject } from './manifest';
import { checkMultiInstance } from './multi-instance';
import { LABEL_TENANT, clusterName, isReservedNamespace, kubeconfigSecretName, tenantCredentialsSecretName, tenantNamespace } from './names';
import { checkTenantNetwork, requireNetwork } from './network';
import { throwRenderProblems } from './problems';
import { tenantRole, tenantRoleBinding } from './rbac';
import { secondaryClusters, type SecondaryCluster } from './secondary';
import { secondaryNetworkProblems, secondaryRendering, type SecondaryRendering } from './secondary-rendering';
import { allocateVips, type TenantVip, type VipMemory } from './vip';
import { shellQuote, shellQuotePath } from '../config/safety';
import { caFileCommand, tenantIdentity, type TenantIdentityRendering } from './identity';
import { tenantStorage, type TenantStorageRendering } from './storage';

/** A copy of an instance's CAPMOX credentials Secret into the tenant namespace. */
export interface CredentialsCopy {
  instance: string;
  /** The management stack's Secret. */
  source: { name: string; namespace: string };
  /** The tenant's copy, which its ProxmoxCluster refers to. */
  target: { name: string; namespace: string };
  labels: Record<string, string>;
  /**
   * The TLS keys CAPMOX v0.9.0 reads beside url, token and secret (`pkg/scope/cluster.go`):
   * `insecure` always (a missing key means *skip verification* there), `root_ca` (PEM) when the
   * lab gives the instance's CA.
   */
  tlsData: Record<string, string>;
}

/** One machine deployment of the placement, as the tenant stack reports it. */
export interface PlacementOutput {
  machineDeployment: string;
  /** The CAPI Cluster that holds it: the tenant's, or a secondary Cluster (capmox.multiInstance: secondary-clusters). */
  cluster: string;
  pool: string;
  instance: string;
  nodes: string[];
  replicas?: number;
  min?: number;
  max?: number;
}

export interface TenantAutoscaler {
  name: string;
  namespace: string;
  chart: TenantChartPin;
  repository: string;
  values: Record<string, unknown>;
}

export interface TenantRendering {
  tenant: Tenant;
  namespace: KubernetesObject;
  credentials: CredentialsCopy[];
  role: KubernetesObject;
  /** Undefined when the tenant lists no groups. */
  roleBinding?: KubernetesObject;
  cniProxy: KubernetesObject;
  cluster: KubernetesObject;
  machineDeployments: MachineDeploymentPlan[];
  /** Surge, then retire: the previous machine deployments kept beside the new ones until `previous` goes. */
  retiring: RetiringMachineDeployment[];
  instances: Instance[];
  vip: TenantVip;
  /** Undefined when no pool is autoscaled. */
  autoscaler?: TenantAutoscaler;
  placement: PlacementOutput[];
  /** Secondary Clusters and their secret mirror (capmox.multiInstance: secondary-clusters, tenants on several instances). */
  secondaries?: SecondaryRendering;
  /** Login through the lab's identity provider (issue 39); undefined without `identity`. */
  identity?: TenantIdentityRendering;
  /** The command that writes the CA file the people's kubeconfig names; with identity only. */
  caFileCommand?: string;
  /** Persistent volumes (issue 38, docs/storage.md); undefined without `storage`. */
  storage?: TenantStorageRendering;
  /** Each CAPI Cluster of the tenant with its instance: the primary, then the secondaries. */
  clusters: { cluster: string; instance: string; role: 'primary' | 'secondary' }[];
  /** A command that writes the tenant's kubeconfig to ./<tenant>.kubeconfig. */
  kubeconfigCommand: string;
}

/** The `insecure` and `root_ca` keys of an instance's CAPMOX credentials (see `CredentialsCopy.tlsData`). */
export function capmoxTlsData(instance: Instance): Record<string, string> {
  return {
    insecure: instance.insecure ? 'true' : 'false',
    ...(instance.rootCAData ? { root_ca: Buffer.from(instance.rootCAData, 'base64').toString('utf8') } : {}),
  };
}

function namespaceObject(tenant: Tenant): KubernetesObject {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name: tenantNamespace(tenant), labels: { [LABEL_TENANT]: tenant.name } } };
}

/** kubectl's flags that reach the management cluster, as the lab names it. */
function managementTarget(lab: Lab): string {
  const access = lab.management.kubernetes;
  // Quoted for the shell: the command is printed for people to paste (modules/config/safety.ts).
  return 'configPath' in access
    ? `--kubeconfig ${shellQuotePath(access.configPath)}${access.context ? ` --context ${shellQuote(access.context)}` : ''} `
    : `--server ${shellQuote(access.host)} `;
}

function kubeconfigCommand(lab: Lab, tenant: Tenant): string {
  const target = managementTarget(lab);
  return (
    `kubectl ${target}--namespace ${tenantNamespace(tenant)} get secret ${kubeconfigSecretName(tenant)} ` +
    `--output jsonpath='{.data.value}' | base64 --decode > ${tenant.name}.kubeconfig`
  );
}

/** What every tenant's rendering shares: computed once per lab, not once per tenant. */
interface LabWide {
  problems: Problem[];
  allocation: ReturnType<typeof allocateVips>;
  /** Surge, then retire: the plan of the lab as `previous` describes it (placement reports it when it does not place). */
  previousPlan?: PlacementPlan;
  /** Tenant name → its index in lab.tenants, and its plan (looked up once per tenant: a scan each was quadratic at 10 000 tenants). */
  indexOf: Map<string, number>;
  planOf: Map<string, PlacementPlan['tenants'][number]>;
}

/** What the renderer is told beside the lab: what the last synth gave (modules/tenants/vip.ts, "Memory"). */
export interface RenderOptions {
  vipMemory?: VipMemory;
}

function labWide(lab: Lab, plan: PlacementPlan, options: RenderOptions = {}): LabWide {
  const allocation = allocateVips(lab, options.vipMemory);
  const previousPlan = hasSurge(lab) ? planPlacementPartial(previousLab(lab)).plan : undefined;
  const indexOf = new Map<string, number>();
  lab.tenants.forEach((t, i) => {
    if (!indexOf.has(t.name)) indexOf.set(t.name, i);
  });
  const planOf = new Map<string, PlacementPlan['tenants'][number]>();
  for (const t of plan.tenants) if (!planOf.has(t.name)) planOf.set(t.name, t);
  return { problems: allocation.problems, allocation, previousPlan, indexOf, planOf };
}

/** One tenant's rendering, or every problem that keeps it from being rendered. */
function renderOne(lab: Lab, plan: PlacementPlan, name: string, shared: LabWide): TenantRendering | Problem[] {
  const index = shared.indexOf.get(name) ?? -1;
  const tenant = lab.tenants[index];
  const tenantPlan = shared.planOf.get(name);
  if (!tenant || !tenantPlan) throw new Error(`tenant ${name} is ${tenant ? 'not in the placement plan' : 'not in the lab description'}`);
  const problems: Problem[] = [];
  const base = ['tenants', index];

  if (isReservedNamespace(tenantNamespace(tenant))) {
    problems.push({
      path: [...base, 'name'],
      message: `tenant ${tenant.name} would live in namespace ${tenantNamespace(tenant)}, which belongs to Kubernetes or the management plane; deleting the tenant would delete it`,
      value: tenant.name,
      fix: 'rename the tenant',
      rule: 'tenant.reserved-namespace',
    });
  }
  const allocation = shared.allocation;
  if (shared.allocation.problems.length > 0 && !allocation.vips.has(tenant.name)) return problems;
  const secondaryMode = lab.capmox.multiInstance === 'secondary-clusters';
  if (!secondaryMode || (!tenant.network && Object.keys(tenant.networks ?? {}).length === 0)) problems.push(...requireNetwork(tenant, index));
  problems.push(...checkMultiInstance(lab, tenant, tenantPlan, index));
  const autoscaled = tenant.pools.some((p) => p.autoscaling !== undefined);
  if (autoscaled && !autoscalerImageTag(tenant.kubernetesVersion)) {
    problems.push({
      path: [...base, 'kubernetesVersion'],
      message: `no cluster-autoscaler image is pinned for Kubernetes ${tenant.kubernetesVersion}, and the autoscaler must match the cluster's minor version`,
      value: tenant.kubernetesVersion,
      fix: `use a Kubernetes minor pvekaas pins a cluster-autoscaler for (${Object.keys(autoscalerImageTagsTable).join(', ')}), or give the autoscaled pools a fixed replicas count`,
      // The rule table's versions.tenant-kubernetes refuses this first; kept for a description that skipped the rules.
      rule: 'versions.tenant-kubernetes',
    });
  }
  problems.push(...nodeTemplateProblems(lab, tenant, tenantPlan, index), ...downTemplateProblems(lab, tenant, tenantPlan));
  if (tenantPlan.pools.every((p) => p.placements.length === 0)) {
    problems.push({
      path: [...base, 'pools'],
      message: `the placement plan puts no machine of tenant ${tenant.name} anywhere`,
      fix: 'see the placement report',
      rule: 'tenant.nothing-placed',
    });
  }
  if (problems.length > 0 || shared.problems.length > 0) return problems;

  const vip = allocation.vips.get(tenant.name) as TenantVip;
  const rendering = lab.capmox.multiInstance;
  const before = previousTenant(tenant);
  const beforePlan = before ? shared.previousPlan?.tenants.find((t) => t.name === tenant.name) : undefined;
  const unknownInstances = Object.keys(tenant.previous?.instances ?? {}).filter((name) => !lab.proxmox.instances.some((i) => i.name === name));
  if (unknownInstances.length > 0) {
    return unknownInstances.map((name) => ({
      path: [...base, 'previous', 'instances', name],
      message: `tenant ${tenant.name}: previous.instances names ${name}, which is not an instance of proxmox.instances`,
      value: name,
      fix: `name an instance of proxmox.instances (${lab.proxmox.instances.map((i) => i.name).join(', ')}), or remove the entry`,
      rule: 'previous.unknown-instance',
    }));
  }
  const retiringInput = before && beforePlan ? { tenant: before, plan: beforePlan, lab: previousLabOf(lab, tenant) } : undefined;
  const { cluster, machineDeployments, instances, retiring, retiringProblems, floorGroups } = tenantCluster({
    lab,
    tenant,
    plan: tenantPlan,
    vip: vip.vip,
    rendering,
    retiring: retiringInput,
  });
  const floors = floorProblems(tenant, base, floorGroups);
  if (floors.length > 0) return floors;
  if (retiringProblems.length > 0) {
    return retiringProblems.map((message) => ({
      path: [...base, 'previous'],
      message: `tenant ${tenant.name}: ${message}`,
      fix: 'surge in smaller steps (docs/tenants.md, "Surge, then retire"), or remove previous to replace the node groups without a surge',
      rule: 'surge.retiring-cannot-stay',
    }));
  }
  // Surge, then retire: the retiring machines hold node addresses until the retire step.
  const networkProblems = secondaryMode
    ? secondaryNetworkProblems({ tenant, index, vip: vip.vip, instances, machineDeployments, retiring })
    : checkTenantNetwork({
        tenant,
        index,
        vip: vip.vip,
        machinesAtMost: maxMachines(machineDeployments) + machineDeployments.length + maxMachines(retiring),
        surge: retiring.length > 0,
      });
  if (networkProblems.length > 0) return networkProblems;
  const secondaries: SecondaryCluster[] = secondaryMode
    ? secondaryClusters({
        lab,
        tenant,
        vip: vip.vip,
        instances,
        machineDeployments,
        ...(before ? { retiring: { tenant: before, machineDeployments: retiring.filter((md) => !md.inTopology) } } : {}),
      })
    : [];

  const namespace = tenantNamespace(tenant);
  const credentials = instances.map((i): CredentialsCopy => ({
    instance: i.name,
    source: { name: capmoxTenantCredentialsSecretName(i.name, tenant.name), namespace: CAPMOX_CREDENTIALS_NAMESPACE },
    target: { name: tenantCredentialsSecretName(i.name), namespace },
    labels: { ...CAPMOX_SECRET_TYPE_LABEL, [LABEL_TENANT]: tenant.name },
    tlsData: capmoxTlsData(i),
  }));
  const mirror = lab.management.mirror;
  const autoscaler: TenantAutoscaler | undefined = autoscaled
    ? {
        name: 'cluster-autoscaler',
        namespace,
        chart: autoscalerChart,
        repository: mirror?.charts ? mirror.charts.replace(/\/+$/, '') : autoscalerChart.repository,
        values: autoscalerValues(tenant, {
          imageRepository: mirror?.images ? mirroredRepository(AUTOSCALER_IMAGE_REPOSITORY, mirror) : undefined,
          byNamespace: secondaryMode,
          scaleDown: lab.management.autoscaler,
        }),
      }
    : undefined;
  const placement = machineDeployments.map((md): PlacementOutput => ({
    machineDeployment: md.name,
    cluster: secondaries.find((sc) => sc.instance === md.instance)?.name ?? clusterName(tenant),
    pool: md.pool,
    instance: md.instance,
    nodes: md.nodes,
    ...(md.scale.kind === 'autoscaled' ? { min: md.scale.min, max: md.scale.max } : { replicas: md.scale.replicas }),
  }));
  return {
    tenant,
    namespace: namespaceObject(tenant),
    credentials,
    role: tenantRole(tenant),
    roleBinding: tenant.groups.length > 0 ? tenantRoleBinding(tenant) : undefined,
    cniProxy: cniHelmChartProxy(tenant.cni, namespace, mirror),
    cluster,
    machineDeployments,
    retiring,
    instances,
    vip,
    autoscaler,
    placement,
    ...(secondaries.length > 0 ? { secondaries: secondaryRendering(lab, tenant, secondaries) } : {}),
    clusters: [
      { cluster: clusterName(tenant), instance: instances[0].name, role: 'primary' as const },
      ...secondaries.map((sc) => ({ cluster: sc.name, instance: sc.instance, role: 'secondary' as const })),
    ],
    kubeconfigCommand: kubeconfigCommand(lab, tenant),
    ...identityOf(lab, tenant, vip.vip),
    ...storageOf(tenant, instances, mirror),
  };
}

function storageOf(tenant: Tenant, instances: Instance[], mirror: Lab['management']['mirror']): Pick<TenantRendering, 'storage'> {
  const storage = tenantStorage(tenant, instances, mirror);
  return storage ? { storage } : {};
}

function identityOf(lab: Lab, tenant: Tenant, vip: string): Pick<TenantRendering, 'identity' | 'caFileCommand'> {
  const identity = tenantIdentity(lab, tenant, vip);
  return identity ? { identity, caFileCommand: caFileCommand(managementTarget(lab), tenant) } : {};
}

/** One tenant of a lab, rendered; throws one `ProblemError` with every problem. */
export function renderTenant(lab: Lab, plan: PlacementPlan, name: string, options: RenderOptions = {}): TenantRendering {
  const shared = labWide(lab, plan, options);
  const result = renderOne(lab, plan, name, shared);
  const problems = Array.isArray(result) ? [...shared.problems, ...result] : shared.problems;
  throwRenderProblems(problems);
  return result as TenantRendering;
}

/**
 * Every tenant of a lab, rendered, by name. Lab-wide checks (address ranges, VIP allocation) run
 * once; every problem of every tenant is collected and thrown together in one `ProblemError`.
 */
export function renderTenants(lab: Lab, plan: PlacementPlan, options: RenderOptions = {}): Map<string, TenantRendering> {
  const shared = labWide(lab, plan, options);
  const problems: Problem[] = [...shared.problems];
  const renderings = new Map<string, TenantRendering>();
  for (const tenant of lab.tenants) {
    const result = renderOne(lab, plan, tenant.name, shared);
    if (Array.isArray(result)) problems.push(...result);
    else renderings.set(tenant.name, result);
  }
  throwRenderProblems(problems);
  return renderings;
}

/**
 * Issue 11, B2: on an instance whose disks are local (`storage.disksShared: false`), every node the
 * plan puts machines of the tenant on needs a template of the tenant's version on that node, since
 * Proxmox VE refuses to clone a template with local disks to another node ("can't clone VM to node
 * '<n>' (VM uses local storage)"). Refused at synth, with the nodes and the fix. A failover pool's
 * failover targets (placement's re-plans with one node down) are checked too, at its `failover`:
 * re-synth after a loss would be refused there otherwise, at the worst time.
 */
/**
 * A node marked `down: true` that holds the only template a tenant's machines on that instance are
 * cloned from (shared disks: `cloneSourceNodes`): CAPMOX v0.9.0 clones through the template's node
 * (`pkg/proxmox/goproxmox/api_client.go`, CloneVM asks that node for its status first), so no machine
 * of the tenant could be created there. Refused at synth, at the node's `down`.
 */
function downTemplateProblems(lab: Lab, tenant: Tenant, tenantPlan: PlacementPlan['tenants'][number]): Problem[] {
  const problems: Problem[] = [];
  for (const name of tenantPlan.instances) {
    const ii = lab.proxmox.instances.findIndex((i) => i.name === name);
    const instance = lab.proxmox.instances[ii];
    const sources = instance ? cloneSourceNodes(instance, tenant.kubernetesVersion) : undefined;
    if (!sources || sources.length === 0) continue;
    const down = sources.filter((n) => instance.nodes.find((x) => x.name === n)?.down === true);
    if (down.length < sources.length) continue;
    const ni = instance.nodes.findIndex((n) => n.name === down[0]);
    problems.push({
      path: ['proxmox', 'instances', ii, 'nodes', ni, 'down'],
      message:
        `tenant ${tenant.name}: the ${tenant.kubernetesVersion} template of ${name} is on ${down.join(', ')}, which is down, and CAPMOX clones through the template's node: ` +
        `no machine of the tenant could be created on ${name}`,
      fix:
        'templateID' in instance.template
          ? `copy the template to a node that is up and point proxmox.instances[${ii}].template (or its versions entry) at it, or remove down once ${down[0]} is back`
          : `build the image on a node that is up (proxmox.instances[${ii}].images nodes), or remove down once ${down[0]} is back`,
      rule: 'template.node-down',
    });
  }
  return problems;
}

function nodeTemplateProblems(lab: Lab, tenant: Tenant, tenantPlan: PlacementPlan['tenants'][number], index: number): Problem[] {
  const problems: Problem[] = [];
  for (const pool of tenantPlan.pools) {
    const byInstance = new Map<string, string[]>();
    for (const p of pool.placements) if (machinesAtMost(p.scale) > 0) byInstance.set(p.instance, [...(byInstance.get(p.instance) ?? []), p.node]);
    // Where placement's failover re-plans put the pool's machines, beyond the nodes it uses today.
    const targets = new Map<string, string[]>();
    for (const t of (pool.failover ?? []).flatMap((f) => f.to)) {
      if (byInstance.get(t.instance)?.includes(t.node) || targets.get(t.instance)?.includes(t.node)) continue;
      targets.set(t.instance, [...(targets.get(t.instance) ?? []), t.node].sort());
    }
    const checks: [string, string[], boolean][] = [
      ...[...byInstance].map(([i, n]): [string, string[], boolean] => [i, n, false]),
      ...[...targets].map(([i, n]): [string, string[], boolean] => [i, n, true]),
    ];
    for (const [instanceName, nodes, isFailover] of checks) {
      const ii = lab.proxmox.instances.findIndex((i) => i.name === instanceName);
      const instance = lab.proxmox.instances[ii];
      if (!instance || instance.storage.disksShared) continue;
      const ids = (versions: string[]) =>
        templateVmIds(
          instance.name,
          instance.vmIdRange,
          instance.nodes.map((n) => n.name),
          versions,
        );
      let missing: string[];
      try {
        missing = nodes.filter((node) => !nodeTemplateFor(instance, tenant.kubernetesVersion, node, ids));
      } catch {
        continue; // template id conflicts are reported by the lab checks
      }
      if (missing.length === 0) continue;
      const fixed = 'templateID' in instance.template;
      const poolPath = [
        'tenants',
        index,
        'pools',
        Math.max(
          0,
          tenant.pools.findIndex((p) => p.name === pool.name),
        ),
      ];
      if (isFailover) {
        // Failover targets (placement's re-plan with one node down) need the template too: otherwise re-synth after the loss is refused.
        const fix = fixed
          ? `set proxmox.instances[${ii}].storage.disksShared: true if ${instance.storage.disks} is shared by the nodes, or let the instance build its templates (images with nodes: [${instance.nodes
              .map((n) => n.name)
              .sort()
              .join(', ')}])`
          : `list ${missing.join(', ')} in the nodes of proxmox.instances[${ii}].images (kubernetesVersion ${tenant.kubernetesVersion}), or set storage.disksShared: true if ${instance.storage.disks} is shared by the nodes`;
        problems.push({
          path: [...poolPath, 'failover'],
          message:
            `tenant ${tenant.name}, pool ${pool.name} (failover): after the loss of a node, re-synth puts machines on ${missing.join(', ')} of ${instanceName}, which ${missing.length === 1 ? 'has' : 'have'} no ${tenant.kubernetesVersion} template, ` +
            `and storage.disks ${instance.storage.disks} is local: Proxmox VE refuses to clone a template with local disks to another node ("can't clone VM to node '${missing[0]}' (VM uses local storage)")`,
          value: missing,
          fix: `${fix}, or remove failover`,
          rule: 'template.missing-on-failover-node',
        });
        continue;
      }
      problems.push({
        path: poolPath,
        message:
          `tenant ${tenant.name}, pool ${pool.name}: the plan puts machines on ${missing.join(', ')} of ${instanceName}, which ${missing.length === 1 ? 'has' : 'have'} no ${tenant.kubernetesVersion} template, ` +
          `and storage.disks ${instance.storage.disks} is local: Proxmox VE refuses to clone a template with local disks to another node ("can't clone VM to node '${missing[0]}' (VM uses local storage)")`,
        value: missing,
        fix: fixed
          ? `set proxmox.instances[${ii}].storage.disksShared: true if ${instance.storage.disks} is shared by the nodes, or let the instance build its templates (images with nodes: [${instance.nodes
              .map((n) => n.name)
              .sort()
              .join(', ')}])`
          : `list ${missing.join(', ')} in the nodes of proxmox.instances[${ii}].images (kubernetesVersion ${tenant.kubernetesVersion}), or set storage.disksShared: true if ${instance.storage.disks} is shared by the nodes`,
        rule: 'template.missing-on-node',
      });
    }
  }
  return problems;
}
