/**
 * A tenant's CAPI `Cluster`: its topology on the `lab-tenant` class, with the variables the class
 * declares and one machine deployment per placement group of the plan.
 */
import { canonicalJson } from '../config/canonical-json';
import { tenantProxmoxPool } from '../config/proxmox-access';
import { fixedTemplateFor, nodeTemplateFor, type FixedTemplate, type Instance, type Lab, type Tenant } from '../config/schema';
import { templateVmIds } from '../config/template-ids';
import { nodeGroupId, stageState } from '../placement/surge';
import type { TenantPlan } from '../placement/types';
import { contentHash, workerMachineTemplateName, workerMachineVariables, type MultiInstanceRendering } from './cluster-class';
import type { TemplateSourceValue, TopologyVariable } from './cluster-class-variables';
import { floorOf } from './floor';
import { autoscalerAnnotations, machineDeployments, nodeLabels, type MachineDeploymentPlan } from './machine-deployments';
import { API, type KubernetesObject } from './manifest';
import { dnsServiceIP } from './network';
import { AUTHENTICATION_CONFIG_MAP } from './identity-names';
import {
  CLUSTER_CLASS_NAME,
  CLUSTER_CLASS_NAMESPACE,
  LABEL_CNI,
  LABEL_TENANT,
  WORKER_CLASS,
  clusterName,
  tenantCredentialsSecretName,
  withTemplateHash,
  tenantNamespace,
} from './names';

/** Typed by the class's variables (cluster-class-variables.ts); re-exported for secondary.ts. */
export type { TopologyVariable };

export interface TenantClusterInput {
  lab: Lab;
  tenant: Tenant;
  plan: TenantPlan;
  vip: string;
  rendering: MultiInstanceRendering;
  /** @default CLUSTER_CLASS_NAMESPACE */
  classNamespace?: string;
  /**
   * Surge, then retire (`tenants[].previous`, modules/tenants/surge.ts): the tenant as it was and
   * its plan then. Its machine deployments that the change would replace stay in the topology,
   * exactly as they were, beside the new ones.
   */
  retiring?: { tenant: Tenant; plan: TenantPlan; /** The lab as `previous` describes it (its instances' worker template fields). @default lab */ lab?: Lab };
}

/** A machine deployment of the previous description kept beside the new ones until the retire step. */
export interface RetiringMachineDeployment extends MachineDeploymentPlan {
  /** The Kubernetes version it keeps (CAPI's defer-upgrade holds it there). */
  version: string;
  /** Whether it sits in the primary Cluster's topology (else in a secondary Cluster). */
  inTopology: boolean;
  /** A staged surge's held-back node group (`previous.stage.hold`): no new machine deployment beside it yet. */
  held?: true;
}

/** A machine deployment's node group id, as `previous.stage` names it (`<pool>/<instance>/<node>`). */
const groupIdOf = (md: MachineDeploymentPlan) => nodeGroupId({ pool: md.pool, instance: md.instance, node: md.nodes[0] });

export interface TenantCluster {
  cluster: KubernetesObject;
  machineDeployments: MachineDeploymentPlan[];
  /** Instances the tenant's machines use, in description order; the first is the primary one. */
  instances: Instance[];
  /** Surge, then retire: the previous machine deployments kept beside the new ones (empty without `previous`). */
  retiring: RetiringMachineDeployment[];
  /** Why the previous machine deployments cannot be kept as they are (each one a reason; empty when they can). */
  retiringProblems: string[];
  /** Every machine deployment's worker template inputs: its Cluster's variables with its overrides over them, by name. */
  workerVariables: Map<string, Map<string, unknown>>;
  /** The node groups `autoscaling.floor` may name (./floor.ts): the topology's, a staged surge's held ones too. */
  floorGroups: MachineDeploymentPlan[];
}

/** Annotation on a topology machine deployment: CAPI (v1.12 and v1.13) keeps its version while it is there. */
export const DEFER_UPGRADE = 'topology.cluster.x-k8s.io/defer-upgrade';

const VERSION_TAG = /^v\d+\.\d+\.\d+$/i;

/**
 * The class's proxmoxTemplate value for an instance and Kubernetes version: that version's fixed
 * template (`{ sourceNode, templateID }`: kubeadm and kubelet in the image must match the
 * machines' version, issue 11 B4), or tags plus the version.
 */
export function templateVariable(instance: Instance, version: string): TemplateSourceValue {
  const t = instance.template;
  if ('templateID' in t) {
    const fixed = fixedTemplateFor(instance, version);
    // The lab checks refuse a tenant whose version has no template on an instance it may use.
    if (!fixed) throw new Error(`instance ${instance.name} has no template for ${version}`);
    return { sourceNode: fixed.sourceNode, templateID: fixed.templateID };
  }
  const tags = t.templateSelector.matchTags;
  const plain = tags.filter((tag) => !VERSION_TAG.test(tag));
  // A version tag in the description stands for "the version of the machines": the class appends
  // the machine deployment's own version, so upgrades pick the new image when CAPI rolls them.
  return plain.length === tags.length ? { matchTags: tags } : { matchTags: plain, appendVersionTag: true };
}

function instanceVariables(instance: Instance, version: string, tenant: string): TopologyVariable[] {
  return [
    { name: 'bridge', value: instance.bridge },
    { name: 'proxmoxTemplate', value: templateVariable(instance, version) },
    // The tenant's own pool: its CAPMOX token's VM privileges stop there (modules/config/proxmox-access.ts).
    { name: 'proxmoxPool', value: tenantProxmoxPool(instance, tenant) },
    { name: 'proxmoxStorage', value: instance.storage.disks },
  ];
}

/** The node network of a tenant on an instance: its `networks` entry (secondary-clusters mode), else `network`. */
export function networkOn(tenant: Tenant, instance: string): NonNullable<Tenant['network']> {
  return (tenant.networks?.[instance] ?? tenant.network) as NonNullable<Tenant['network']>;
}

/** The Proxmox nodes a tenant's machine deployments use on one instance. */
export function nodesOn(mds: readonly MachineDeploymentPlan[], instance: string): string[] {
  return [...new Set(mds.filter((md) => md.instance === instance).flatMap((md) => md.nodes))].sort();
}

/** The Cluster's network: the same for a tenant's primary Cluster and its secondaries. */
export function clusterNetwork(tenant: Tenant): Record<string, unknown> {
  return {
    pods: { cidrBlocks: [tenant.podCIDR] },
    services: { cidrBlocks: [tenant.serviceCIDR] },
    serviceDomain: 'cluster.local',
  };
}

/**
 * The class variables of a Cluster whose infrastructure is one instance: the primary Cluster's
 * (on the first instance of the plan), and what a secondary Cluster's objects are rendered from.
 */
export function clusterVariables(input: {
  tenant: Tenant;
  vip: string;
  instance: Instance;
  network: NonNullable<Tenant['network']>;
  nodes: string[];
}): TopologyVariable[] {
  const { tenant, vip, instance, network } = input;
  return [
    { name: 'controlPlaneVIP', value: vip },
    { name: 'dnsServiceIP', value: dnsServiceIP(tenant.serviceCIDR) },
    { name: 'nodeIPv4Config', value: { addresses: network.addresses, prefix: network.prefix, gateway: network.gateway } },
    { name: 'dnsServers', value: network.dnsServers },
    ...(network.vlan !== undefined ? [{ name: 'vlan' as const, value: network.vlan }] : []),
    { name: 'proxmoxCredentials', value: { name: tenantCredentialsSecretName(instance.name) } },
    ...instanceVariables(instance, tenant.kubernetesVersion, tenant.name),
    { name: 'allowedNodes', value: input.nodes },
  ];
}

/**
 * A machine deployment's variable overrides: its size, its placement group's node and, on local
 * disks, the template on that node (issue 11, B2: Proxmox VE refuses to clone a template with
 * local disks to another node; CAPMOX clones from the template's node with `target` = the chosen one).
 */
export function machineDeploymentOverrides(md: MachineDeploymentPlan, nodeTemplate?: FixedTemplate): TopologyVariable[] {
  return [
    { name: 'workerSize', value: { cpu: md.size.cpu, memoryMiB: md.size.memoryMiB, diskGiB: md.size.diskGiB } },
    { name: 'allowedNodes', value: md.nodes },
    ...(nodeTemplate ? [{ name: 'proxmoxTemplate' as const, value: { sourceNode: nodeTemplate.sourceNode, templateID: nodeTemplate.templateID } }] : []),
  ];
}

/** The node template of a machine deployment on local disks (nodeTemplateFor), for its one node. */
export function machineDeploymentTemplate(instance: Instance, version: string, md: MachineDeploymentPlan): FixedTemplate | undefined {
  if (instance.storage.disksShared || md.nodes.length !== 1) return undefined;
  return nodeTemplateFor(instance, version, md.nodes[0], (versions) =>
    templateVmIds(
      instance.name,
      instance.vmIdRange,
      instance.nodes.map((n) => n.name),
      versions,
    ),
  );
}

/**
 * The hash in a machine deployment's topology name: of the class's worker template (its name holds
 * its content hash), the values of every variable the worker patches read (`variables`: the
 * Cluster's with the machine deployment's overrides over them), and the Kubernetes version (the
 * `builtin` the tag patch reads; every version has its own template).
 *
 * CAPMOX v0.9.0's ProxmoxMachineTemplate webhook refuses any spec change, also CAPI topology's
 * dry-run server-side apply on the Cluster's own copy (`internal/webhook/
 * proxmoxmachinetemplate_webhook.go` ignores the `topology.cluster.x-k8s.io/dry-run` annotation;
 * CAPMOX issue #735), so the topology controller could never rotate a changed worker template and
 * would fail every reconcile. A machine deployment whose template would change gets a new name
 * instead: CAPI creates it with fresh templates and deletes the old one (docs/tenants.md).
 */
export function workerTemplateHash(variables: ReadonlyMap<string, unknown>, version: string, rendering: MultiInstanceRendering): string {
  const inputs: Record<string, unknown> = {};
  for (const name of workerMachineVariables(rendering)) {
    if (name === 'builtin') inputs.builtin = { machineDeployment: { version } };
    else if (variables.has(name)) inputs[name] = variables.get(name);
  }
  return contentHash({ template: workerMachineTemplateName(), inputs }).slice(0, 6);
}

export function tenantCluster(input: TenantClusterInput): TenantCluster {
  const { lab, tenant, plan, vip, rendering } = input;
  const planned = machineDeployments(plan);
  const used = new Set(planned.map((md) => md.instance));
  const instances = lab.proxmox.instances.filter((i) => used.has(i.name));
  const primary = instances[0];
  const network = rendering === 'secondary-clusters' ? networkOn(tenant, primary.name) : (tenant.network as NonNullable<Tenant['network']>);

  const variables: TopologyVariable[] = clusterVariables({ tenant, vip, instance: primary, network, nodes: nodesOn(planned, primary.name) });
  // The lab's identity provider (modules/tenants/identity.ts): the control plane mounts the tenant's AuthenticationConfiguration.
  if (lab.identity) variables.push({ name: 'tenantAuthentication', value: { configMap: AUTHENTICATION_CONFIG_MAP } });
  const overridesOf = (md: MachineDeploymentPlan): TopologyVariable[] => {
    const instance = instances.find((i) => i.name === md.instance) as Instance;
    // One value per variable (CAPI refuses a name twice); the machine deployment's own come last and win.
    const all: TopologyVariable[] = [
      ...(instance.name !== primary.name && rendering !== 'secondary-clusters' ? instanceVariables(instance, tenant.kubernetesVersion, tenant.name) : []),
      ...machineDeploymentOverrides(md, machineDeploymentTemplate(instance, tenant.kubernetesVersion, md)),
    ];
    return [...new Map(all.map((v) => [v.name, v])).values()];
  };
  // The variables a machine deployment's worker template is made from: its Cluster's (a secondary
  // Cluster's for the other instances in secondary-clusters mode) with its overrides over them.
  const clusterVariablesOf = (md: MachineDeploymentPlan): TopologyVariable[] => {
    if (rendering !== 'secondary-clusters' || md.instance === primary.name) return variables;
    const instance = instances.find((i) => i.name === md.instance) as Instance;
    return clusterVariables({ tenant, vip, instance, network: networkOn(tenant, instance.name), nodes: nodesOn(planned, instance.name) });
  };
  const workerVariables = new Map<string, Map<string, unknown>>();
  const mds = planned
    .map((md) => {
      const effective = new Map<string, unknown>([...clusterVariablesOf(md), ...overridesOf(md)].map((v) => [v.name, v.value] as const));
      const name = withTemplateHash(md.name, workerTemplateHash(effective, tenant.kubernetesVersion, rendering));
      workerVariables.set(name, effective);
      return { ...md, name };
    })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  if (rendering === 'proposal') {
    // One zone per instance the tenant uses, with the nodes its machine deployments may use there.
    variables.push({
      name: 'proxmoxAvailabilityZones',
      value: instances.map((i) => ({ name: i.name, nodes: nodesOn(mds, i.name), credentialsRef: { name: tenantCredentialsSecretName(i.name) } })),
    });
  }

  // Surge, then retire: the tenant's machine deployments as they were (the previous description).
  const before = input.retiring
    ? tenantCluster({ ...input, lab: input.retiring.lab ?? lab, tenant: input.retiring.tenant, plan: input.retiring.plan, retiring: undefined })
    : undefined;
  const current = new Set(mds.map((md) => md.name));
  // A staged surge (previous.stage): a replaced node group held back keeps its old machine
  // deployments exactly as they are and gets no new one in this step.
  const replacedIds = new Set((before?.machineDeployments ?? []).filter((m) => !current.has(m.name)).map(groupIdOf));
  const held = (md: MachineDeploymentPlan) => replacedIds.has(groupIdOf(md)) && stageState(tenant, groupIdOf(md)) === 'hold';
  const shown = mds.filter((md) => !held(md));
  // With secondary Clusters, the machine deployments of the other instances are theirs (secondary.ts).
  const inTopology = rendering === 'secondary-clusters' ? shown.filter((md) => md.instance === primary.name) : shown;
  const retiringTopology: typeof topologyMachineDeployments = [];
  const topologyMachineDeployments = inTopology.map((md) => {
    const overrides = overridesOf(md);
    const annotations = autoscalerAnnotations(md, floorOf(tenant, md));
    return {
      class: WORKER_CLASS,
      name: md.name,
      // Autoscaled machine deployments leave replicas to the autoscaler (a value here would fight it).
      ...(md.scale.kind === 'fixed' ? { replicas: md.scale.replicas } : {}),
      // The proposal: the machine deployment's zone (its instance) as its CAPI failure domain.
      ...(rendering === 'proposal' ? { failureDomain: md.instance } : {}),
      metadata: {
        labels: { [LABEL_TENANT]: tenant.name, ...nodeLabels(md) },
        ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
      },
      variables: { overrides },
    };
  });

  // Surge, then retire: the previous machine deployments the change replaces stay, as they were.
  const retiring: RetiringMachineDeployment[] = [];
  const retiringProblems: string[] = [];
  if (input.retiring && before) {
    const clusterValues = new Map<string, unknown>(variables.map((v) => [v.name, v.value] as const));
    const oldPrimary = before.instances[0]?.name;
    for (const md of before.machineDeployments.filter((m) => !current.has(m.name))) {
      // A staged surge: a node group surged and retired in an earlier step keeps only its new ones.
      const state = stageState(tenant, groupIdOf(md));
      if (state === 'done') continue;
      const wasInTopology = rendering !== 'secondary-clusters' || md.instance === oldPrimary;
      const inTopology = rendering !== 'secondary-clusters' || md.instance === primary.name;
      if (wasInTopology !== inTopology) {
        retiringProblems.push(
          `machine deployment ${md.name} (pool ${md.pool} on ${md.instance}) moves between the primary Cluster and a secondary one (the tenant's first instance changes), which cannot surge: change the instances and the node groups in two separate steps`,
        );
        continue;
      }
      // A secondary Cluster's machine deployment is named <pool>-<node> and rolls in place (surge 1,
      // drain) when its templates change: it retires only when its pool leaves that node.
      if (!inTopology && mds.some((n) => n.pool === md.pool && n.instance === md.instance && n.nodes[0] === md.nodes[0])) continue;
      retiring.push({ ...md, version: input.retiring.tenant.kubernetesVersion, inTopology, ...(state === 'hold' ? { held: true as const } : {}) });
      if (!inTopology) continue;
      // Its worker template must come out exactly as before (CAPMOX refuses any change, CAPMOX
      // #735): every value that differs from the new Cluster's is overridden on it, and a variable
      // the Cluster gained cannot be taken away from it.
      const effective = before.workerVariables.get(md.name) as Map<string, unknown>;
      const read = new Set(workerMachineVariables(rendering));
      const gained = [...clusterValues.keys()].filter((name) => read.has(name) && !effective.has(name));
      if (gained.length > 0) {
        retiringProblems.push(
          `machine deployment ${md.name} (pool ${md.pool}) cannot be kept as it was: the Cluster now sets ${gained.join(', ')}, which its worker template did not have; make that change in a step of its own`,
        );
        continue;
      }
      const overrides = [...effective]
        .filter(([name, value]) => canonicalJson(clusterValues.get(name)) !== canonicalJson(value))
        .map(([name, value]) => ({ name, value }) as TopologyVariable)
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      workerVariables.set(md.name, effective);
      const annotations: Record<string, string> = {
        ...autoscalerAnnotations(md),
        // CAPI v1.12 and v1.13 (exp/topology/desiredstate/desired_state.go, computeMachineDeploymentVersion and
        // isMachineDeploymentDeferred, the same in both): a deferred machine deployment keeps its version, and its
        // templates are patched with that version (builtin machineDeployment.version is the desired
        // MachineDeployment's), so they stay as they are.
        ...(input.retiring.tenant.kubernetesVersion !== tenant.kubernetesVersion ? { [DEFER_UPGRADE]: '' } : {}),
      };
      retiringTopology.push({
        class: WORKER_CLASS,
        name: md.name,
        ...(md.scale.kind === 'fixed' ? { replicas: md.scale.replicas } : {}),
        metadata: {
          labels: { [LABEL_TENANT]: tenant.name, ...nodeLabels(md) },
          ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
        },
        variables: { overrides },
      });
    }
  }
  const workers = [...topologyMachineDeployments, ...retiringTopology].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

  const cluster: KubernetesObject = {
    apiVersion: API.cluster,
    kind: 'Cluster',
    metadata: {
      name: clusterName(tenant),
      namespace: tenantNamespace(tenant),
      labels: { [LABEL_TENANT]: tenant.name, [LABEL_CNI]: tenant.cni },
    },
    spec: {
      clusterNetwork: clusterNetwork(tenant),
      topology: {
        classRef: { name: CLUSTER_CLASS_NAME, namespace: input.classNamespace ?? CLUSTER_CLASS_NAMESPACE },
        version: tenant.kubernetesVersion,
        controlPlane: { replicas: tenant.controlPlane.replicas },
        variables,
        workers: { machineDeployments: workers },
      },
    },
  };
  // The node groups a floor may name: the machine deployments in the topology, held ones too (./floor.ts).
  const floorGroups = rendering === 'secondary-clusters' ? mds.filter((md) => md.instance === primary.name) : mds;
  return { cluster, machineDeployments: shown, instances, retiring, retiringProblems, workerVariables, floorGroups };
}
