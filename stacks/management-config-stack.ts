/**
 * The `management-config` stack: custom resources of the management plane, applied after the
 * `management` stack installed their CRDs (kubernetes_manifest needs the CRDs at plan time, so
 * the two never share a stack). Today: the MetalLB pool and L2 advertisement of the tenant VIPs;
 * the tenants issue adds the `lab-tenant` ClusterClass and its templates here.
 */
import { TerraformStack } from 'cdktf';
import type { Construct } from 'constructs';
import { ManagementKubernetesAccess } from '../constructs/management-kubernetes-access';
import { LabTenantClusterClass } from '../constructs/lab-tenant-cluster-class';
import { MetallbTenantVipPool } from '../constructs/metallb-tenant-vip-pool';
import type { LabStackProps } from './props';

export type ManagementConfigStackProps = LabStackProps;

export class ManagementConfigStack extends TerraformStack {
  constructor(scope: Construct, id: string, props: ManagementConfigStackProps) {
    super(scope, id);
    const { kubernetes } = new ManagementKubernetesAccess(this, 'access', { access: props.lab.management.kubernetes });

    new MetallbTenantVipPool(this, 'tenant-vip-pool', { provider: kubernetes, management: props.lab.management });

    // ── ClusterClass (tenants issue) ────────────────────────────────────────────────────────────
    // Add the `lab-tenant` ClusterClass and its templates here, with `kubernetes` as provider, e.g.
    //   new LabTenantClusterClass(this, 'lab-tenant', { provider: kubernetes, lab: props.lab, plan: props.plan });
    // The CAPI, Kamaji-provider and CAPMOX CRDs exist once the management stack's
    // `capi-providers-ready` Job has completed.
    new LabTenantClusterClass(this, 'lab-tenant', { provider: kubernetes, multiInstance: props.lab.capmox.multiInstance, healthCheck: props.lab.management.healthCheck });
    // ────────────────────────────────────────────────────────────────────────────────────────────
  }
}
