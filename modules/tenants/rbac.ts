/**
 * What a tenant's groups may do in the management cluster: read their Cluster and its machines,
 * and read their kubeconfig Secret — nothing else. No `machinedeployments/scale`: the Cluster
 * topology owns a fixed pool's replicas and sets them back on its next reconcile, and an
 * autoscaled pool's replicas belong to its cluster-autoscaler, which a hand-made scale would fight
 * (CAPI's ClusterClass docs: replicas left unset in the topology are for an autoscaler). Scaling is
 * done in the description (`replicas`, `autoscaling.min/max`). The Role is
 * namespaced, so "their" is the tenant namespace; the kubeconfig is named, so no other Secret
 * (such as the Proxmox credentials next to it) is readable.
 */
import type { Tenant } from '../config/schema';
import type { KubernetesObject } from './manifest';
import { LABEL_TENANT, kubeconfigSecretName, tenantNamespace } from './names';

export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}

export const TENANT_ROLE = 'tenant-operator';

export function tenantRoleRules(tenant: Tenant): PolicyRule[] {
  return [
    {
      apiGroups: ['cluster.x-k8s.io'],
      resources: ['clusters', 'machinedeployments', 'machinesets', 'machines'],
      verbs: ['get', 'list', 'watch'],
    },
    { apiGroups: [''], resources: ['secrets'], verbs: ['get'], resourceNames: [kubeconfigSecretName(tenant)] },
  ];
}

export function tenantRole(tenant: Tenant): KubernetesObject {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: TENANT_ROLE, namespace: tenantNamespace(tenant), labels: { [LABEL_TENANT]: tenant.name } },
    rules: tenantRoleRules(tenant),
  };
}

export function tenantRoleBinding(tenant: Tenant): KubernetesObject {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: TENANT_ROLE, namespace: tenantNamespace(tenant), labels: { [LABEL_TENANT]: tenant.name } },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: TENANT_ROLE },
    subjects: [...tenant.groups].sort().map((group) => ({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: group })),
  };
}
