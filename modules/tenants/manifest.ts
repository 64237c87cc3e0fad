/** A Kubernetes object as pvekaas renders it: plain JSON, validated against the pinned CRDs in tests. */
export interface KubernetesObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

/** API versions as the pinned CRDs serve them (the CRD tree of the pinned modules, .toolchain/crds). */
export const API = {
  cluster: 'cluster.x-k8s.io/v1beta2',
  bootstrap: 'bootstrap.cluster.x-k8s.io/v1beta2',
  controlPlane: 'controlplane.cluster.x-k8s.io/v1alpha2',
  infrastructure: 'infrastructure.cluster.x-k8s.io/v1alpha2',
  addons: 'addons.cluster.x-k8s.io/v1alpha1',
} as const;

/** Object keys sorted at every level, so the same input gives the same bytes. */
export function sortKeys<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v) => sortKeys(v)) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value as object)
        .sort()
        .map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]),
    ) as T;
  }
  return value;
}
