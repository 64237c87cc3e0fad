/**
 * The reading half of `status` (scripts/status.ts): every object of a tenant's namespace in the
 * management cluster that modules/foresight/status.ts compares with the plan, with GETs of lists
 * only — never a Secret (the tenants' kubeconfigs and tokens are not read, so they cannot be
 * printed). A list the server refuses fails the run with what could not be read and why.
 */
import type { LiveTenant } from '../../modules/foresight/status';
import { LABEL_TENANT } from '../../modules/tenants/names';
import type { KubeClient } from './kube-apiserver';

/** What is read per tenant namespace: the field of LiveTenant, the list path under the namespace, what it is. */
export const TENANT_LISTS: readonly { field: keyof LiveTenant; path: (ns: string) => string; what: string }[] = [
  { field: 'clusters', path: (ns) => `/apis/cluster.x-k8s.io/v1beta2/namespaces/${ns}/clusters`, what: 'CAPI Clusters' },
  {
    field: 'kamajiControlPlanes',
    path: (ns) => `/apis/controlplane.cluster.x-k8s.io/v1alpha2/namespaces/${ns}/kamajicontrolplanes`,
    what: 'KamajiControlPlanes',
  },
  { field: 'tenantControlPlanes', path: (ns) => `/apis/kamaji.clastix.io/v1alpha1/namespaces/${ns}/tenantcontrolplanes`, what: 'TenantControlPlanes' },
  {
    field: 'services',
    path: (ns) => `/api/v1/namespaces/${ns}/services?labelSelector=${encodeURIComponent('kamaji.clastix.io/component=service')}`,
    what: 'control plane Services',
  },
  { field: 'machineDeployments', path: (ns) => `/apis/cluster.x-k8s.io/v1beta2/namespaces/${ns}/machinedeployments`, what: 'MachineDeployments' },
  { field: 'machines', path: (ns) => `/apis/cluster.x-k8s.io/v1beta2/namespaces/${ns}/machines`, what: 'Machines' },
  { field: 'proxmoxMachines', path: (ns) => `/apis/infrastructure.cluster.x-k8s.io/v1alpha2/namespaces/${ns}/proxmoxmachines`, what: 'ProxmoxMachines' },
];

async function list(client: KubeClient, path: string, what: string): Promise<unknown[]> {
  const r = await client.get(path);
  if (r.status === 200 && Array.isArray(r.body?.items)) return r.body.items as unknown[];
  const why =
    r.status === 404
      ? 'not served (are CAPI, CAPMOX and Kamaji installed at the pinned versions?)'
      : `HTTP ${r.status}: ${r.body?.message ?? r.text.slice(0, 200)}`;
  throw new Error(`cannot list ${what} (${path.split('?')[0]}): ${why}`);
}

/** Everything status reads of one tenant's namespace. */
export async function readTenant(client: KubeClient, namespace: string): Promise<LiveTenant> {
  const ns = encodeURIComponent(namespace);
  const entries = await Promise.all(TENANT_LISTS.map(async (l) => [l.field, await list(client, l.path(ns), l.what)] as const));
  return Object.fromEntries(entries) as unknown as LiveTenant;
}

/** The tenants pvekaas made that run in the management cluster: the primary Clusters' `pvekaas.lab/tenant` labels. */
export async function runningTenants(client: KubeClient): Promise<string[]> {
  const items = (await list(client, `/apis/cluster.x-k8s.io/v1beta2/clusters?labelSelector=${encodeURIComponent(LABEL_TENANT)}`, 'CAPI Clusters')) as {
    metadata: { labels?: Record<string, string> };
  }[];
  return [...new Set(items.map((c) => c.metadata.labels?.[LABEL_TENANT]).filter((t): t is string => typeof t === 'string'))].sort();
}
