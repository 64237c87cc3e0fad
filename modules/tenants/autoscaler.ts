/**
 * Values of a tenant's cluster-autoscaler release (chart `cluster-autoscaler`), which runs in the
 * tenant's namespace in the management cluster and scales that tenant's machine deployments only.
 */
import type { Tenant } from '../config/schema';
import { AUTOSCALER_IMAGE_REPOSITORY, autoscalerImageTags } from '../versions/cni';
import { clusterName, kubeconfigSecretName, tenantNamespace } from './names';

export interface AutoscalerOptions {
  /** Registry prefix for every image (`management.mirror.images`). */
  imageRepository?: string;
  /**
   * Discover node groups by the tenant's namespace only (capmox.multiInstance secondary-clusters):
   * the tenant is then several CAPI Clusters (its primary and one secondary per extra instance),
   * and one autoscaler must scale them all; a second autoscaler would see the same pending pods
   * and over-scale. @default false: clusterName and namespace
   */
  byNamespace?: boolean;
}

/** The image tag for a Kubernetes version, or undefined when none is pinned for its minor. */
export function autoscalerImageTag(kubernetesVersion: string): string | undefined {
  const minor = /^v(\d+\.\d+)\./.exec(kubernetesVersion)?.[1];
  return minor ? autoscalerImageTags[minor] : undefined;
}

export function autoscalerValues(tenant: Tenant, options: AutoscalerOptions = {}): Record<string, unknown> {
  const tag = autoscalerImageTag(tenant.kubernetesVersion);
  if (!tag) throw new Error(`no cluster-autoscaler image is pinned for Kubernetes ${tenant.kubernetesVersion}`);
  return {
    cloudProvider: 'clusterapi',
    // The autoscaler runs in the management cluster (in-cluster access to the CAPI objects) and
    // reaches the tenant cluster through the kubeconfig Kamaji's provider writes.
    clusterAPIMode: 'kubeconfig-incluster',
    clusterAPIKubeconfigSecret: kubeconfigSecretName(tenant),
    // Key spelled as the chart reads it; the Kamaji and CLASTIX docs misspell it, and Helm ignores
    // unknown keys silently, which would let this autoscaler scale every Cluster it can see.
    autoDiscovery: options.byNamespace ? { namespace: tenantNamespace(tenant) } : { clusterName: clusterName(tenant), namespace: tenantNamespace(tenant) },
    // A namespaced Role instead of a ClusterRole: it can read and scale this namespace's CAPI objects only.
    rbac: { clusterScoped: false },
    image: { repository: options.imageRepository ?? AUTOSCALER_IMAGE_REPOSITORY, tag },
    fullnameOverride: 'cluster-autoscaler',
  };
}
