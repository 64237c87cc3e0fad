/**
 * Names of the things a tenant becomes in the management cluster. They are derived from names in
 * the lab description only, so that renaming nothing replaces nothing.
 */
import { createHash } from 'node:crypto';
import type { Tenant } from '../config/schema';
import { TOPOLOGY_LABELS, capmoxCredentialsSecretName, managementNamespaces, providerNamespaces } from '../versions/layout';

/** Labels and annotations pvekaas puts on what it creates. */
export const LABEL_TENANT = 'pvekaas.lab/tenant';
/** On the Cluster: which CNI HelmChartProxy selects it. */
export const LABEL_CNI = 'pvekaas.lab/cni';
export const LABEL_POOL = 'node.cluster.x-k8s.io/pool';
/** CAPI copies `node.cluster.x-k8s.io/*` machine labels onto the Node, so workloads can select by them. */
export const LABEL_INSTANCE = 'node.cluster.x-k8s.io/proxmox-instance';
export const LABEL_PROXMOX_NODE = 'node.cluster.x-k8s.io/proxmox-node';
/** The Node's region (its Proxmox instance) and zone (its Proxmox node), synced by CAPI's `--additional-sync-machine-labels` (modules/versions/layout.ts). */
export const LABEL_REGION = TOPOLOGY_LABELS.region;
export const LABEL_ZONE = TOPOLOGY_LABELS.zone;

/** The ClusterClass every tenant Cluster uses, and the namespace it and its templates live in. */
export const CLUSTER_CLASS_NAME = 'lab-tenant';
export const CLUSTER_CLASS_NAMESPACE = 'pvekaas-classes';
/** The one worker class of `lab-tenant`; machine deployments differ by variables, not by class. */
export const WORKER_CLASS = 'worker';

/** The tenant's namespace in the management cluster: its Cluster, control plane, autoscaler and secrets. */
export function tenantNamespace(tenant: Pick<Tenant, 'name'>): string {
  return tenant.name;
}

/** The CAPI Cluster (and so the Kamaji control plane, the ProxmoxCluster...) of a tenant. */
export function clusterName(tenant: Pick<Tenant, 'name'>): string {
  return tenant.name;
}

/** Written by the Kamaji control-plane provider (key `value`); the autoscaler and CAAPH read it. */
export function kubeconfigSecretName(tenant: Pick<Tenant, 'name'>): string {
  return `${clusterName(tenant)}-kubeconfig`;
}

/**
 * The tenant's copy of an instance's CAPMOX credentials, in the tenant namespace. CAPMOX puts an
 * owner reference from the ProxmoxCluster on the Secret it uses, and Kubernetes resolves owner
 * references in the dependent's own namespace only, so a Secret shared from another namespace
 * would look orphaned to the garbage collector.
 */
export function tenantCredentialsSecretName(instance: string): string {
  return capmoxCredentialsSecretName(instance);
}

/**
 * Namespaces a tenant must not take: deleting a tenant deletes its namespace.
 * `kube-*` and `default` are Kubernetes'; the others are the management plane's.
 */
export const RESERVED_NAMESPACES = ['default', ...Object.values(managementNamespaces), ...Object.values(providerNamespaces), CLUSTER_CLASS_NAMESPACE].sort();

export function isReservedNamespace(name: string): boolean {
  return name.startsWith('kube-') || RESERVED_NAMESPACES.includes(name);
}

const MAX_TOPOLOGY_NAME = 63;

/** A DNS-1123 label from a Proxmox node name (which may hold capitals or dots). */
function toLabel(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 8);
}

/** Keeps a name within 63 characters; a cut name gets a hash of the whole so cut names stay distinct. */
function fit(name: string): string {
  if (name.length <= MAX_TOPOLOGY_NAME) return name;
  return `${name.slice(0, MAX_TOPOLOGY_NAME - 9).replace(/-+$/, '')}-${shortHash(name)}`;
}

/**
 * A machine deployment's topology name with the hash of what its ProxmoxMachineTemplate is made
 * of: `<name>-<hash>` (cut to 63 characters like every topology name). See `workerTemplateHash`.
 */
export function withTemplateHash(name: string, hash: string): string {
  const suffix = `-${hash}`;
  const room = MAX_TOPOLOGY_NAME - suffix.length;
  const base = name.length <= room ? name : `${name.slice(0, room - 9).replace(/-+$/, '')}-${shortHash(name)}`;
  return `${base}${suffix}`;
}

export interface PlacementGroupKey {
  pool: string;
  instance: string;
  node: string;
}

/**
 * Topology names of a tenant's machine deployments, one per placement group: `<pool>-<node>`,
 * or `<pool>-<instance>-<node>` for a node name that two of the tenant's instances share.
 * Renaming a machine deployment replaces its machines, so the name depends only on the pool,
 * the node and (when needed to tell them apart) the instance, never on list positions.
 */
export function machineDeploymentNames(groups: readonly PlacementGroupKey[]): Map<PlacementGroupKey, string> {
  const instancesOfNode = new Map<string, Set<string>>();
  for (const g of groups) {
    const set = instancesOfNode.get(g.node) ?? new Set<string>();
    set.add(g.instance);
    instancesOfNode.set(g.node, set);
  }
  const names = new Map<PlacementGroupKey, string>();
  for (const g of groups) {
    const shared = (instancesOfNode.get(g.node)?.size ?? 1) > 1;
    const parts = shared ? [g.pool, g.instance, g.node] : [g.pool, g.node];
    names.set(g, fit(parts.map(toLabel).join('-')));
  }
  return names;
}
