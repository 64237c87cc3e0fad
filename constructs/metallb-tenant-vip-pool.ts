/**
 * The MetalLB IPAddressPool of tenant control-plane VIPs and its L2Advertisement, as
 * `kubernetes_manifest` resources (their CRDs come with the MetalLB release of the management
 * stack). The objects are rendered by `renderManagementConfig` (modules/rendering), each written
 * under its kind.
 */
import { Construct } from 'constructs';
import { KubernetesManifest } from './providers/kubernetes-manifest';
import type { KubernetesProvider } from '@cdktf/provider-kubernetes/lib/provider';
import type { KubernetesObject } from '../modules/tenants/manifest';

export interface MetallbTenantVipPoolProps {
  readonly provider: KubernetesProvider;
  /** The IPAddressPool and L2Advertisement (`ManagementConfigRendering.vipPool`). */
  readonly objects: readonly KubernetesObject[];
}

export class MetallbTenantVipPool extends Construct {
  constructor(scope: Construct, id: string, props: MetallbTenantVipPoolProps) {
    super(scope, id);
    for (const object of props.objects) {
      new KubernetesManifest(this, object.kind.toLowerCase(), {
        provider: props.provider,
        manifest: object,
        fieldManager: { name: 'pvekaas', forceConflicts: false },
      });
    }
  }
}
