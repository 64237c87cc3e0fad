import { HelmV3Release, helmValues } from './providers/helm-v3';
import type { ITerraformDependable } from 'cdktf';
import { Construct } from 'constructs';
import type { TenantAutoscaler as AutoscalerRendering } from '../modules/tenants';

export interface TenantAutoscalerProps {
  /** Chart, repository and values (modules/tenants/autoscaler.ts). */
  readonly autoscaler: AutoscalerRendering;
  /** Installed after these (the tenant's Cluster, whose kubeconfig Secret it mounts). @default none */
  readonly dependsOn?: ITerraformDependable[];
}

/** A tenant's cluster-autoscaler, in the tenant namespace of the management cluster. */
export class TenantAutoscaler extends Construct {
  readonly release: HelmV3Release;

  constructor(scope: Construct, id: string, props: TenantAutoscalerProps) {
    super(scope, id);
    const a = props.autoscaler;
    this.release = new HelmV3Release(this, 'release', {
      name: a.name,
      namespace: a.namespace,
      repository: a.repository,
      chart: a.chart.chart,
      version: a.chart.version,
      values: [helmValues(a.values)],
      wait: true,
      timeout: 600,
      dependsOn: props.dependsOn,
    });
  }
}
