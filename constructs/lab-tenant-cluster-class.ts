import { KubernetesManifest } from './providers/kubernetes-manifest';
import type { KubernetesProvider } from '@cdktf/provider-kubernetes/lib/provider';
import { Construct } from 'constructs';
import type { KubernetesObject } from '../modules/tenants/manifest';

export interface LabTenantClusterClassProps {
  /** The namespace, templates and class, rendered (`ManagementConfigRendering.clusterClass`, modules/rendering). */
  readonly rendering: { readonly namespace: KubernetesObject; readonly templates: readonly KubernetesObject[]; readonly clusterClass: KubernetesObject };
  /** The management cluster's kubernetes provider. @default the stack's default kubernetes provider */
  readonly provider?: KubernetesProvider;
}

/**
 * The `lab-tenant` ClusterClass, its templates and their namespace. Tenant Clusters in other
 * namespaces refer to it with `topology.classRef.namespace`. Templates are named by kind and name.
 */
export class LabTenantClusterClass extends Construct {
  readonly clusterClass: KubernetesManifest;

  constructor(scope: Construct, id: string, props: LabTenantClusterClassProps) {
    super(scope, id);
    const { provider, rendering } = props;
    const namespace = new KubernetesManifest(this, 'namespace', { provider, manifest: rendering.namespace });
    const templates = rendering.templates.map(
      (template) => new KubernetesManifest(this, `${template.kind}-${template.metadata.name}`, { provider, manifest: template, dependsOn: [namespace] }),
    );
    this.clusterClass = new KubernetesManifest(this, 'cluster-class', { provider, manifest: rendering.clusterClass, dependsOn: [namespace, ...templates] });
  }
}
