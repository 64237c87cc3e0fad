import { KubernetesManifest } from './providers/kubernetes-manifest';
import type { KubernetesProvider } from '@cdktf/provider-kubernetes/lib/provider';
import { Construct } from 'constructs';
import { clusterClass, clusterClassTemplates, type MultiInstanceRendering, type WorkerHealthCheckTimeouts } from '../modules/tenants/cluster-class';
import { CLUSTER_CLASS_NAMESPACE } from '../modules/tenants/names';
import { KAMAJI_DATASTORE_NAME } from '../modules/versions/layout';

export interface LabTenantClusterClassProps {
  /** `capmox.multiInstance` of the lab: `proposal` adds the availability-zones variable and patch. */
  readonly multiInstance: MultiInstanceRendering;
  /** `management.healthCheck` of the lab: the worker health check's timeouts. @default DEFAULT_HEALTH_CHECK */
  readonly healthCheck?: WorkerHealthCheckTimeouts;
  /** @default KAMAJI_DATASTORE_NAME, the DataStore the management stack creates */
  readonly dataStoreName?: string;
  /** Namespace of the class and its templates, created here. @default CLUSTER_CLASS_NAMESPACE */
  readonly namespace?: string;
  /** The management cluster's kubernetes provider. @default the stack's default kubernetes provider */
  readonly provider?: KubernetesProvider;
}

/**
 * The `lab-tenant` ClusterClass, its four templates and their namespace. Tenant Clusters in other
 * namespaces refer to it with `topology.classRef.namespace`.
 */
export class LabTenantClusterClass extends Construct {
  readonly clusterClass: KubernetesManifest;

  constructor(scope: Construct, id: string, props: LabTenantClusterClassProps) {
    super(scope, id);
    const namespaceName = props.namespace ?? CLUSTER_CLASS_NAMESPACE;
    const options = { dataStoreName: props.dataStoreName ?? KAMAJI_DATASTORE_NAME, multiInstance: props.multiInstance, namespace: namespaceName, healthCheck: props.healthCheck };
    const provider = props.provider;
    const namespace = new KubernetesManifest(this, 'namespace', {
      provider,
      // A label, like every namespace pvekaas makes: an apply that sets no field leaves the object
      // without managed fields, and the next apply would then bump it once for nothing.
      manifest: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespaceName, labels: { 'app.kubernetes.io/managed-by': 'pvekaas' } } },
    });
    const templates = clusterClassTemplates(options).map(
      (template) => new KubernetesManifest(this, `${template.kind}-${template.metadata.name}`, { provider, manifest: template, dependsOn: [namespace] }),
    );
    this.clusterClass = new KubernetesManifest(this, 'cluster-class', { provider, manifest: clusterClass(options), dependsOn: [namespace, ...templates] });
  }
}
