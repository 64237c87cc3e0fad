/**
 * The `management-config` stack: custom resources of the management plane, applied after the
 * `management` stack installed their CRDs (kubernetes_manifest needs the CRDs at plan time, so
 * the two never share a stack): the MetalLB pool and L2 advertisement of the tenant VIPs, and the
 * `lab-tenant` ClusterClass and its templates — all rendered by `renderManagementConfig`
 * (modules/rendering); the stack writes them.
 */
import { TerraformStack } from 'cdktf';
import type { Construct } from 'constructs';
import { ManagementClusterProviders } from '../constructs/management-cluster-providers';
import { LabTenantClusterClass } from '../constructs/lab-tenant-cluster-class';
import { MetallbTenantVipPool } from '../constructs/metallb-tenant-vip-pool';
import type { Management } from '../modules/config/schema';
import type { ManagementConfigRendering } from '../modules/rendering';

export interface ManagementConfigStackProps {
  /** What the stack holds, rendered (`LabRendering.managementConfig`). */
  readonly rendering: ManagementConfigRendering;
  /** How Terraform reaches the management cluster (`management.kubernetes`). */
  readonly access: Management['kubernetes'];
}

export class ManagementConfigStack extends TerraformStack {
  constructor(scope: Construct, id: string, props: ManagementConfigStackProps) {
    super(scope, id);
    const { kubernetes } = new ManagementClusterProviders(this, 'access', { access: props.access });

    new MetallbTenantVipPool(this, 'tenant-vip-pool', { provider: kubernetes, objects: props.rendering.vipPool });

    // The `lab-tenant` ClusterClass and its templates: the CAPI, Kamaji-provider and CAPMOX CRDs
    // exist once the management stack's `capi-providers-ready` Job has completed.
    new LabTenantClusterClass(this, 'lab-tenant', { provider: kubernetes, rendering: props.rendering.clusterClass });
  }
}
