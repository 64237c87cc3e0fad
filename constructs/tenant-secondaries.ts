import { KubernetesManifest } from './providers/kubernetes-manifest';
import type { ITerraformDependable } from 'cdktf';
import { Construct } from 'constructs';
import type { SecondaryRendering } from '../modules/tenants/secondary-rendering';
import { SECONDARY_AUTOSCALED_COMPUTED_FIELDS } from '../modules/config/terraform-literal';

/** computed_fields of an autoscaled secondary MachineDeployment: the replicas, and the provider's defaults again. */
export { SECONDARY_AUTOSCALED_COMPUTED_FIELDS };

export interface TenantSecondariesProps {
  /** The secondary Clusters and their secret mirror (modules/tenants/secondary.ts). */
  readonly secondaries: SecondaryRendering;
  /** The tenant namespace. */
  readonly namespace: ITerraformDependable;
  /** The primary Cluster (its apply waits for ControlPlaneInitialized; the secondaries join that control plane). */
  readonly primary: ITerraformDependable;
  /** The tenant's copies of the CAPMOX credentials, by instance. */
  readonly credentials: Record<string, ITerraformDependable>;
}

/**
 * A MultiInstance tenant's secondary Clusters (capmox.multiInstance: secondary-clusters), one per
 * extra instance of its plan, and the CronJob that mirrors the primary's CA certificate and
 * kubeconfig to them.
 *
 * Order: everything after the primary's control plane is initialized. Per secondary: static control
 * plane and ProxmoxCluster, then the Cluster, then templates, machine deployments and health check.
 * On destroy the reverse holds: machine deployments go before their Cluster, so CAPI drains and
 * deletes each Node (deleting a Cluster first would skip drain). Templates are named by content
 * and created before the old ones are destroyed, so a change rolls the machine deployment.
 */
export class TenantSecondaries extends Construct {
  /** Every machine deployment of every secondary (the autoscaler comes after them). */
  readonly machineDeployments: KubernetesManifest[] = [];

  constructor(scope: Construct, id: string, props: TenantSecondariesProps) {
    super(scope, id);
    const m = props.secondaries.mirror;
    const account = new KubernetesManifest(this, 'mirror-service-account', { manifest: m.serviceAccount, dependsOn: [props.namespace] });
    const role = new KubernetesManifest(this, 'mirror-role', { manifest: m.role, dependsOn: [props.namespace] });
    const binding = new KubernetesManifest(this, 'mirror-role-binding', { manifest: m.roleBinding, dependsOn: [account, role] });
    new KubernetesManifest(this, 'mirror-cron-job', { manifest: m.cronJob, dependsOn: [binding, props.primary] });

    for (const sc of props.secondaries.clusters) {
      const after = [props.namespace, props.primary, ...(props.credentials[sc.instance] ? [props.credentials[sc.instance]] : [])];
      const controlPlane = new KubernetesManifest(this, `${sc.instance}-control-plane`, { manifest: sc.controlPlane, dependsOn: after });
      const proxmoxCluster = new KubernetesManifest(this, `${sc.instance}-proxmox-cluster`, { manifest: sc.proxmoxCluster, dependsOn: after });
      const cluster = new KubernetesManifest(this, `${sc.instance}-cluster`, {
        manifest: sc.cluster,
        fieldManager: { name: 'pvekaas' },
        // The static control plane reports initialized as soon as CAPI reads it.
        wait: { condition: [{ type: 'ControlPlaneInitialized', status: 'True' }] },
        timeouts: { create: '10m', update: '10m', delete: '60m' },
        dependsOn: [controlPlane, proxmoxCluster],
      });
      for (const md of sc.machineDeployments) {
        const key = `${sc.instance}-${md.name}`;
        const templates = [
          new KubernetesManifest(this, `${key}-bootstrap-template`, {
            manifest: md.bootstrapTemplate,
            lifecycle: { createBeforeDestroy: true },
            dependsOn: [cluster],
          }),
          new KubernetesManifest(this, `${key}-machine-template`, {
            manifest: md.machineTemplate,
            lifecycle: { createBeforeDestroy: true },
            dependsOn: [cluster],
          }),
        ];
        this.machineDeployments.push(
          new KubernetesManifest(this, `${key}-machine-deployment`, {
            manifest: md.machineDeployment,
            fieldManager: { name: 'pvekaas' },
            // The autoscaler owns the replicas of autoscaled pools. A given computed_fields list
            // replaces the provider's default (metadata.labels, metadata.annotations:
            // hashicorp/kubernetes v2.38.0 manifest/provider/plan.go), so both are listed again:
            // CAPI writes the revision annotation and labels on every MachineDeployment.
            ...(md.plan.scale.kind === 'autoscaled' ? { computedFields: [...SECONDARY_AUTOSCALED_COMPUTED_FIELDS] } : {}),
            // Deleting a machine deployment drains each Node first (no drain timeout is set): as long as the Cluster's own delete.
            timeouts: { delete: '60m' },
            dependsOn: templates,
          }),
        );
        // One MachineHealthCheck per machine deployment, as the topology controller makes for the primary's.
        new KubernetesManifest(this, `${key}-health-check`, { manifest: sc.healthChecks.get(md.name)!, dependsOn: [cluster] });
      }
    }
  }
}
