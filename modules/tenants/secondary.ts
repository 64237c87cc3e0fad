/**
 * MultiInstance tenants on released CAPMOX (`capmox.multiInstance: secondary-clusters`).
 *
 * CAPMOX v0.9.0 binds a CAPI Cluster to one Proxmox API (its ProxmoxCluster's credentialsRef), so a
 * tenant whose plan uses several instances keeps its primary Cluster (ClusterClass `lab-tenant`,
 * Kamaji control plane, VIP, the workers on the first instance of its plan) and gets, per other
 * instance *i*, a **secondary Cluster** `<tenant>-<i>` in its namespace whose workers join the
 * primary's control plane:
 *
 * - Cluster `<t>-<i>`: the primary's clusterNetwork, no topology, `controlPlaneRef` to a
 *   StaticControlPlane (static-control-plane.ts), `infrastructureRef` to its own ProxmoxCluster; not
 *   labelled for the CNI HelmChartProxy (the CNI goes into the tenant cluster once).
 * - ProxmoxCluster `<t>-<i>`: the class's infrastructure template with the class's patches applied
 *   for instance *i* (its credentials, its nodes in the plan, its node network), plus the tenant's
 *   VIP as control-plane endpoint.
 * - per machine deployment of the plan on *i*: a MachineDeployment with content-hash-named
 *   KubeadmConfigTemplate and ProxmoxMachineTemplate, rendered from the class's worker templates
 *   and patches (class-patches.ts), so they are what the class makes for the primary's workers.
 * - a MachineHealthCheck with the class's worker checks.
 * - Secrets `<t>-<i>-ca` (certificate and key: CABPK requires the key) and `<t>-<i>-kubeconfig` are not rendered: a mirror
 *   CronJob (secondary-mirror.ts) copies them from the primary's inside the management cluster,
 *   so they follow Kamaji's rotation and never pass through Terraform state.
 *
 * Only the placement plan says where machines go: the machine deployments are the plan's.
 */
import { createHash } from 'node:crypto';
import type { Instance, Lab, Tenant } from '../config/schema';
import { clusterClass } from './cluster-class';
import { patchedTemplateSpec, type Variables } from './class-patches';
import { clusterNetwork, clusterVariables, machineDeploymentOverrides, machineDeploymentTemplate, networkOn, nodesOn, type TopologyVariable } from './cluster';
import { autoscalerAnnotations, nodeLabels, type MachineDeploymentPlan } from './machine-deployments';
import { API, type KubernetesObject } from './manifest';
import { LABEL_TENANT, WORKER_CLASS, clusterName, machineDeploymentNames, tenantNamespace } from './names';
import { STATIC_CONTROL_PLANE_API, STATIC_CONTROL_PLANE_GROUP, STATIC_CONTROL_PLANE_KIND } from './static-control-plane';

/** On a secondary Cluster and its objects: the instance it stands for. */
export const LABEL_SECONDARY_INSTANCE = 'pvekaas.lab/instance';
/** On a secondary Cluster: the primary Cluster whose control plane its workers join. */
export const LABEL_PRIMARY = 'pvekaas.lab/primary-cluster';
/** The label CAPI reads the Cluster of a Secret from (its secret cache holds labelled Secrets only). */
export const LABEL_CLUSTER_NAME = 'cluster.x-k8s.io/cluster-name';

const API_PORT = 6443;
const MAX_NAME = 63;

function shortHash(text: string, length = 8): string {
  return createHash('sha256').update(text).digest('hex').slice(0, length);
}

/** A name of at most 63 characters; a cut name ends in a hash of the whole, so cut names stay distinct. */
function fit(name: string, max = MAX_NAME): string {
  if (name.length <= max) return name;
  return `${name.slice(0, max - 9).replace(/-+$/, '')}-${shortHash(name)}`;
}

/** JSON with sorted keys: equal content gives an equal hash whatever the key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value as object)
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The secondary Cluster of a tenant on an instance: `<tenant>-<instance>`. */
export function secondaryClusterName(tenant: Pick<Tenant, 'name'>, instance: string): string {
  return fit(`${clusterName(tenant)}-${instance}`);
}

export interface SecondaryMachineDeployment {
  plan: MachineDeploymentPlan;
  /**
   * `<pool>-<node>`: stable while the pool and node stay, so a changed template rolls this
   * machine deployment (CAPI surges and drains) instead of replacing it.
   */
  name: string;
  /** Surge, then retire: a previous machine deployment kept until the retire step. */
  retiring?: boolean;
  machineDeployment: KubernetesObject;
  bootstrapTemplate: KubernetesObject;
  machineTemplate: KubernetesObject;
}

export interface SecondaryCluster {
  instance: string;
  name: string;
  cluster: KubernetesObject;
  controlPlane: KubernetesObject;
  proxmoxCluster: KubernetesObject;
  /** The machine deployments of the plan and, during a surge, the retiring ones (`retiring: true`). */
  machineDeployments: SecondaryMachineDeployment[];
  /** One MachineHealthCheck per machine deployment, by the machine deployment's `name`. */
  healthChecks: Map<string, KubernetesObject>;
}

export interface SecondaryInput {
  lab: Lab;
  tenant: Tenant;
  vip: string;
  /** Instances of the tenant's plan in description order; the first is the primary's. */
  instances: Instance[];
  machineDeployments: MachineDeploymentPlan[];
  /** Surge, then retire: the tenant as it was, and its machine deployments on secondary instances whose pool leaves a node. */
  retiring?: { tenant: Tenant; machineDeployments: MachineDeploymentPlan[] };
}

const toMap = (vars: TopologyVariable[]): Variables => Object.fromEntries(vars.map((v) => [v.name, v.value]));

const healthChecks = new Map<string, string>();
/**
 * The class's worker health check (checks and remediation), which the secondaries' MachineHealthChecks
 * repeat: one ClusterClass built per distinct setting in a process, not per tenant; a fresh copy each call.
 */
function workerHealthCheck(lab: Lab): Record<string, unknown> {
  const key = JSON.stringify([lab.capmox.multiInstance, lab.management.healthCheck ?? null]);
  let known = healthChecks.get(key);
  if (known === undefined) {
    known = JSON.stringify(classWorkerHealthCheck(lab));
    healthChecks.set(key, known);
  }
  return JSON.parse(known) as Record<string, unknown>;
}

/** The class's worker health check without `enabled`, read from the ClusterClass itself. */
function classWorkerHealthCheck(lab: Lab): Record<string, unknown> {
  const cc = clusterClass({ dataStoreName: 'unused', multiInstance: lab.capmox.multiInstance, healthCheck: lab.management.healthCheck }) as unknown as {
    spec: { workers: { machineDeployments: { class: string; healthCheck?: Record<string, unknown> }[] } };
  };
  const worker = cc.spec.workers.machineDeployments.find((md) => md.class === WORKER_CLASS);
  const { enabled: _enabled, ...rest } = (worker?.healthCheck ?? {}) as Record<string, unknown>;
  return rest;
}

function secondaryMachineDeployment(
  tenant: Tenant,
  instance: Instance,
  secondary: string,
  globals: Variables,
  md: MachineDeploymentPlan,
  stable: string,
): SecondaryMachineDeployment {
  const namespace = tenantNamespace(tenant);
  const name = fit(`${secondary}-${stable}`);
  const vars: Variables = {
    ...globals,
    // The same overrides as a machine deployment of a primary on this instance (size, node, its node's template on local disks).
    ...toMap(machineDeploymentOverrides(md, machineDeploymentTemplate(instance, tenant.kubernetesVersion, md))),
    builtin: {
      cluster: { name: secondary, namespace },
      machineDeployment: { version: tenant.kubernetesVersion, class: WORKER_CLASS, topologyName: md.name, name },
    },
  };
  const machineSpec = patchedTemplateSpec('workerMachine', vars);
  const bootstrapSpec = patchedTemplateSpec('workerBootstrap', vars);
  const labels = { [LABEL_TENANT]: tenant.name, [LABEL_CLUSTER_NAME]: secondary };
  // Templates are immutable in practice (CAPMOX's webhook refuses every ProxmoxMachineTemplate spec
  // change): a change is a new template under a new name, and the MachineDeployment rolls to it.
  const machineTemplate: KubernetesObject = {
    apiVersion: API.infrastructure,
    kind: 'ProxmoxMachineTemplate',
    metadata: { name: `${name}-${shortHash(canonical(machineSpec), 10)}`, namespace, labels },
    spec: { template: { spec: machineSpec } },
  };
  const bootstrapTemplate: KubernetesObject = {
    apiVersion: API.bootstrap,
    kind: 'KubeadmConfigTemplate',
    metadata: { name: `${name}-${shortHash(canonical(bootstrapSpec), 10)}`, namespace, labels },
    spec: { template: { spec: bootstrapSpec } },
  };
  const annotations = autoscalerAnnotations(md);
  // CAPI v1.13.6's MachineDeployment webhook (internal/webhooks/machinedeployment.go, Default; the same in v1.12.10) adds
  // `cluster.x-k8s.io/cluster-name: <spec.clusterName>` to spec.selector.matchLabels and
  // spec.template.metadata.labels of every MachineDeployment ("Make sure selector and template to be
  // in the same cluster"). Both maps are set here, so kubernetes_manifest plans them as known maps:
  // rendered without that label, OpenTofu reports "Provider produced inconsistent result after
  // apply" on create and plans to remove it on every later plan.
  const selectorLabels = { 'cluster.x-k8s.io/deployment-name': name, [LABEL_CLUSTER_NAME]: secondary };
  const machineDeployment: KubernetesObject = {
    apiVersion: API.cluster,
    kind: 'MachineDeployment',
    metadata: {
      name,
      namespace,
      labels: { ...labels, ...nodeLabels(md) },
      ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
    },
    spec: {
      clusterName: secondary,
      // Autoscaled machine deployments leave replicas to the autoscaler (a value here would fight it).
      ...(md.scale.kind === 'fixed' ? { replicas: md.scale.replicas } : {}),
      selector: { matchLabels: selectorLabels },
      template: {
        metadata: { labels: { ...selectorLabels, [LABEL_TENANT]: tenant.name, ...nodeLabels(md) } },
        spec: {
          clusterName: secondary,
          version: tenant.kubernetesVersion,
          bootstrap: { configRef: { apiGroup: 'bootstrap.cluster.x-k8s.io', kind: 'KubeadmConfigTemplate', name: bootstrapTemplate.metadata.name } },
          infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'ProxmoxMachineTemplate', name: machineTemplate.metadata.name },
        },
      },
    },
  };
  return { plan: md, name: stable, machineDeployment, bootstrapTemplate, machineTemplate };
}

/**
 * The MachineHealthCheck of one machine deployment (docs/tenants.md: one per machine deployment,
 * as the topology controller makes for the primary's): the class's worker checks and remediation
 * limit, counted over this machine deployment's machines only. Selected by the label CAPI puts on
 * every Machine of a MachineDeployment (`cluster.x-k8s.io/deployment-name`).
 */
function machineDeploymentHealthCheck(
  tenant: Tenant,
  secondary: string,
  md: SecondaryMachineDeployment,
  labels: Record<string, string>,
  healthCheck: Record<string, unknown>,
): KubernetesObject {
  const name = md.machineDeployment.metadata.name as string;
  return {
    apiVersion: API.cluster,
    kind: 'MachineHealthCheck',
    metadata: { name, namespace: tenantNamespace(tenant), labels },
    spec: { clusterName: secondary, selector: { matchLabels: { 'cluster.x-k8s.io/deployment-name': name } }, ...healthCheck },
  };
}

/** Every secondary Cluster of a tenant, one per instance of its plan after the first, in description order. */
export function secondaryClusters(input: SecondaryInput): SecondaryCluster[] {
  const { lab, tenant, vip, instances } = input;
  const namespace = tenantNamespace(tenant);
  const healthCheck = workerHealthCheck(lab);
  return instances.slice(1).map((instance): SecondaryCluster => {
    const name = secondaryClusterName(tenant, instance.name);
    const mds = input.machineDeployments.filter((md) => md.instance === instance.name);
    // One instance per secondary, so `<pool>-<node>` is unique in it.
    const groups = new Map(mds.map((md) => [md, { pool: md.pool, instance: md.instance, node: md.nodes[0] }] as const));
    const names = machineDeploymentNames([...groups.values()]);
    const stableNames = new Map(mds.map((md) => [md, names.get(groups.get(md)!) as string] as const));
    const labels = { [LABEL_TENANT]: tenant.name, [LABEL_PRIMARY]: clusterName(tenant), [LABEL_SECONDARY_INSTANCE]: instance.name };
    const globals = toMap(
      clusterVariables({ tenant, vip, instance, network: networkOn(tenant, instance.name), nodes: nodesOn(input.machineDeployments, instance.name) }),
    );
    const endpoint = { host: vip, port: API_PORT };
    const proxmoxCluster: KubernetesObject = {
      apiVersion: API.infrastructure,
      kind: 'ProxmoxCluster',
      metadata: { name, namespace, labels },
      // The workers' API endpoint is the tenant's VIP; the class leaves it to Kamaji's provider,
      // which writes it for the primary only.
      spec: { ...patchedTemplateSpec('infrastructureCluster', { ...globals, builtin: { cluster: { name, namespace } } }), controlPlaneEndpoint: endpoint },
    };
    const controlPlane: KubernetesObject = {
      apiVersion: STATIC_CONTROL_PLANE_API,
      kind: STATIC_CONTROL_PLANE_KIND,
      metadata: { name, namespace, labels },
      // The version the tenant's control plane is to run; status.version (what it runs) is the
      // primary KamajiControlPlane's, copied by the mirror (secondary-mirror.ts). CAPI's MachineSet
      // preflight checks read both (static-control-plane.ts): no secondary worker newer than it.
      spec: { controlPlaneEndpoint: endpoint, version: tenant.kubernetesVersion },
    };
    const cluster: KubernetesObject = {
      apiVersion: API.cluster,
      kind: 'Cluster',
      // No pvekaas.lab/cni label: the tenant's CNI HelmChartProxy selects the primary only.
      metadata: { name, namespace, labels },
      spec: {
        clusterNetwork: clusterNetwork(tenant),
        controlPlaneRef: { apiGroup: STATIC_CONTROL_PLANE_GROUP, kind: STATIC_CONTROL_PLANE_KIND, name },
        infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'ProxmoxCluster', name },
      },
    };
    const rendered = mds.map((md) => secondaryMachineDeployment(tenant, instance, name, globals, md, stableNames.get(md) as string));
    // Surge, then retire: a pool leaving a node keeps its machine deployment there, as it was, until the retire step.
    const old = input.retiring ? input.retiring.machineDeployments.filter((md) => md.instance === instance.name) : [];
    if (input.retiring && old.length > 0) {
      const before = input.retiring.tenant;
      const oldGroups = new Map(old.map((md) => [md, { pool: md.pool, instance: md.instance, node: md.nodes[0] }] as const));
      const oldNames = machineDeploymentNames([...oldGroups.values()]);
      const oldGlobals = toMap(
        clusterVariables({
          tenant: before,
          vip,
          instance,
          network: networkOn(before, instance.name),
          nodes: nodesOn(input.retiring.machineDeployments, instance.name),
        }),
      );
      for (const md of old) {
        const stable = oldNames.get(oldGroups.get(md)!) as string;
        if (rendered.some((r) => r.name === stable)) continue;
        rendered.push({ ...secondaryMachineDeployment(before, instance, name, oldGlobals, md, stable), retiring: true });
      }
      rendered.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    }
    return {
      instance: instance.name,
      name,
      cluster,
      controlPlane,
      proxmoxCluster,
      machineDeployments: rendered,
      healthChecks: new Map(rendered.map((md) => [md.name, machineDeploymentHealthCheck(tenant, name, md, labels, healthCheck)] as const)),
    };
  });
}
