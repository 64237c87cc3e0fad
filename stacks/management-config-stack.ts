/**
 * The `management-config` stack: custom resources of the management plane, applied after the
 * `management` stack installed their CRDs (kubernetes_manifest needs the CRDs at plan time, so
 * the two never share a stack). Today: the MetalLB pool and L2 advertisement of the tenant VIPs;
 * the tenants issue adds the `lab-tenant` ClusterClass and its templates here.
 */
import { TerraformStack } from 'cdktf';
import type { Construct } from 'constructs';
import { ManagementClusterProviders } from '../constructs/management-cluster-providers';
import { LabTenantClusterClass } from '../constructs/lab-tenant-cluster-class';
import { MetallbTenantVipPool } from '../constructs/metallb-tenant-vip-pool';
import type { Lab } from '../modules/config/schema';

export interface ManagementConfigStackProps {
  /** `management` of the lab description: how to reach the cluster, the load balancer of the tenant VIPs, the workers' health check. */
  readonly management: Lab['management'];
  /** `capmox.multiInstance`: which variant of the `lab-tenant` class. */
  readonly multiInstance: Lab['capmox']['multiInstance'];
}

export class ManagementConfigStack extends TerraformStack {
  constructor(scope: Construct, id: string, props: ManagementConfigStackProps) {
    super(scope, id);
    const { kubernetes } = new ManagementClusterProviders(this, 'access', { access: props.management.kubernetes });

    new MetallbTenantVipPool(this, 'tenant-vip-pool', { provider: kubernetes, management: props.management });

    // The `lab-tenant` ClusterClass and its templates: the CAPI, Kamaji-provider and CAPMOX CRDs
    // exist once the management stack's `capi-providers-ready` Job has completed.
    new LabTenantClusterClass(this, 'lab-tenant', { provider: kubernetes, multiInstance: props.multiInstance, healthCheck: props.management.healthCheck });
  }
}
