import { KubernetesManifest } from './providers/kubernetes-manifest';
import type { ITerraformDependable } from 'cdktf';
import { Construct } from 'constructs';
import type { TenantStorageRendering } from '../modules/tenants/storage';

export interface TenantStorageProps {
  /** The tenant's storage objects (modules/tenants/storage.ts). */
  readonly storage: TenantStorageRendering;
  /** Created after these (the tenant namespace, its credentials copies). @default none */
  readonly dependsOn?: ITerraformDependable[];
}

/**
 * Persistent volumes of a tenant (docs/storage.md): in its namespace of the management cluster the
 * Proxmox CSI controller (config, service account, Deployment, which mounts the tenant's existing
 * credentials and kubeconfig Secrets), and the ConfigMap of the tenant-side objects (CSIDriver,
 * node plugin, StorageClasses: no credential) with the ClusterResourceSet that applies it.
 */
export class TenantStorage extends Construct {
  readonly controller: KubernetesManifest;
  readonly resourceSet: KubernetesManifest;

  constructor(scope: Construct, id: string, props: TenantStorageProps) {
    super(scope, id);
    const { storage } = props;
    const config = new KubernetesManifest(this, 'config', { manifest: storage.management.config, dependsOn: props.dependsOn });
    const account = new KubernetesManifest(this, 'service-account', { manifest: storage.management.serviceAccount, dependsOn: props.dependsOn });
    this.controller = new KubernetesManifest(this, 'controller', {
      manifest: storage.management.controller,
      dependsOn: [...(props.dependsOn ?? []), config, account],
    });
    const resources = new KubernetesManifest(this, 'tenant-resources', { manifest: storage.resources, dependsOn: props.dependsOn });
    this.resourceSet = new KubernetesManifest(this, 'resource-set', { manifest: storage.resourceSet, dependsOn: [...(props.dependsOn ?? []), resources] });
  }
}
