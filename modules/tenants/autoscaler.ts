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
  /** `management.autoscaler`: scale-down timings, rendered as the chart's `extraArgs` when set. */
  scaleDown?: { scaleDownUnneededSeconds?: number; scaleDownDelayAfterAddSeconds?: number };
}

/**
 * The rules the chart's namespaced Role lacks (the pinned chart's `templates/role.yaml`, tag `cluster-autoscaler-chart-<autoscalerChart.version>`, grants the
 * cluster.x-k8s.io objects and their scale subresources only): the clusterapi provider reads the
 * infrastructure machine template of every node group when it builds the group's template node,
 * capacity annotations or not (cluster-autoscaler 1.30.3
 * `cloudprovider/clusterapi/clusterapi_unstructured.go` InstanceCapacity →
 * readInfrastructureReferenceResource → `clusterapi_controller.go` getInfrastructureResource: an
 * informer on the template's resource in the discovered namespace, waited for until it syncs — so
 * without list and watch, scaling from zero never happens). Found by the lab twin.
 */
export const AUTOSCALER_ADDITIONAL_RULES = [
  { apiGroups: ['infrastructure.cluster.x-k8s.io'], resources: ['proxmoxmachinetemplates'], verbs: ['get', 'list', 'watch'] },
];

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
    rbac: { clusterScoped: false, additionalRules: AUTOSCALER_ADDITIONAL_RULES },
    image: { repository: options.imageRepository ?? AUTOSCALER_IMAGE_REPOSITORY, tag },
    fullnameOverride: 'cluster-autoscaler',
    ...scaleDownArgs(options.scaleDown),
  };
}

function scaleDownArgs(scaleDown: AutoscalerOptions['scaleDown']): Record<string, unknown> {
  const args: Record<string, string> = {};
  if (scaleDown?.scaleDownUnneededSeconds !== undefined) args['scale-down-unneeded-time'] = `${scaleDown.scaleDownUnneededSeconds}s`;
  if (scaleDown?.scaleDownDelayAfterAddSeconds !== undefined) args['scale-down-delay-after-add'] = `${scaleDown.scaleDownDelayAfterAddSeconds}s`;
  return Object.keys(args).length ? { extraArgs: args } : {};
}
