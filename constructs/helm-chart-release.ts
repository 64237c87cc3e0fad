/**
 * A pinned Helm release: chart and version from modules/versions, repository replaced by the
 * lab's chart mirror, values rendered as one YAML document with sorted keys (same input, same
 * bytes), and the release settings a careful operator wants: wait for readiness, a timeout,
 * bounded history, no namespace creation behind Terraform's back.
 */
import type { ITerraformDependable } from 'cdktf';
import { Construct } from 'constructs';
import { HelmV3Provider, HelmV3Release, helmValues } from './providers/helm-v3';
import { helmCharts, type ChartId, type ManagementVersions } from '../modules/versions';
import { chartSource, type Mirror } from '../modules/versions/mirror';

export interface HelmChartReleaseProps {
  readonly provider: HelmV3Provider;
  /** Which pinned chart (modules/versions `helmCharts`). */
  readonly chart: ChartId;
  readonly versions: ManagementVersions;
  /** Helm release name. */
  readonly releaseName: string;
  /** Namespace; created by the stack, not by Helm. */
  readonly namespace: string;
  /** Chart values (rendered as YAML with sorted keys). */
  readonly values: Record<string, unknown>;
  /**
   * The lab's mirror; `charts` replaces the chart repository.
   * @default the chart's upstream repository
   */
  readonly mirror?: Mirror;
  /** Seconds Helm waits for the release's resources to become ready. */
  readonly timeoutSeconds: number;
  /**
   * Roll back a failed install or upgrade. Off for releases holding state, where a rollback of
   * a half-upgraded datastore does more harm than leaving it for inspection.
   * @default true
   */
  readonly atomic?: boolean;
  /**
   * Also wait for the release's Jobs (e.g. setup Jobs) to complete.
   * @default false
   */
  readonly waitForJobs?: boolean;
  /** What must exist first. @default none */
  readonly dependsOn?: ITerraformDependable[];
}

export class HelmChartRelease extends Construct {
  readonly release: HelmV3Release;

  constructor(scope: Construct, id: string, props: HelmChartReleaseProps) {
    super(scope, id);
    const pin = helmCharts[props.chart];
    const source = chartSource(pin, props.mirror);
    const version = props.versions[pin.versionKey];
    if (!version) throw new Error(`no pinned version for the ${pin.chart} chart (management.versions.${pin.versionKey})`);
    this.release = new HelmV3Release(this, 'release', {
      provider: props.provider,
      name: props.releaseName,
      namespace: props.namespace,
      createNamespace: false,
      repository: source.repository,
      chart: source.chart,
      version,
      values: [helmValues(props.values)],
      wait: true,
      waitForJobs: props.waitForJobs ?? false,
      atomic: props.atomic ?? true,
      cleanupOnFail: true,
      timeout: props.timeoutSeconds,
      maxHistory: 10,
      dependsOn: props.dependsOn,
    });
  }
}
