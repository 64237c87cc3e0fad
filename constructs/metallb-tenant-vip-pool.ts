/**
 * The MetalLB IPAddressPool of tenant control-plane VIPs and its L2Advertisement, as
 * `kubernetes_manifest` resources (their CRDs come with the MetalLB release of the management
 * stack). The objects themselves are built by `tenantVipPoolManifests` in modules/management, so
 * tests validate exactly what is rendered.
 */
import { Construct } from 'constructs';
import { KubernetesManifest } from './providers/kubernetes-manifest';
import type { KubernetesProvider } from '@cdktf/provider-kubernetes/lib/provider';
import type { Management } from '../modules/config/schema';
import { tenantVipPoolManifests } from '../modules/management/chart-values';

export interface MetallbTenantVipPoolProps {
  readonly provider: KubernetesProvider;
  /** `management` of the lab description (its loadBalancer section is used). */
  readonly management: Management;
}

export class MetallbTenantVipPool extends Construct {
  constructor(scope: Construct, id: string, props: MetallbTenantVipPoolProps) {
    super(scope, id);
    for (const object of tenantVipPoolManifests(props.management)) {
      new KubernetesManifest(this, object.kind.toLowerCase(), {
        provider: props.provider,
        manifest: object as unknown as Record<string, unknown>,
        fieldManager: { name: 'pvekaas', forceConflicts: false },
      });
    }
  }
}
