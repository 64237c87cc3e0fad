/**
 * What a tenant's groups may do in the management cluster: read their Cluster and its machines,
 * scale their machine deployments, and read their kubeconfig Secret — nothing else. The Role is
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
    // Fixed pools are scaled in the description (the Cluster topology owns their replicas);
    // this lets the tenant scale the machine deployments the topology leaves to the autoscaler.
    { apiGroups: ['cluster.x-k8s.io'], resources: ['machinedeployments/scale'], verbs: ['get', 'update', 'patch'] },
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
