/** HelmChartRelease writes the pinned chart (or its mirror), the given values as sorted YAML, and the release settings. */
import { parse } from 'yaml';
import { HelmV3Provider } from '../../constructs/providers/helm-v3';
import { HelmChartRelease } from '../../constructs/helm-chart-release';
import { helmCharts, resolveVersions } from '../../modules/versions';
import { chartSource } from '../../modules/versions/mirror';
import { resourcesOf, synthJson } from './support';

describe('HelmChartRelease', () => {
  const versions = resolveVersions({});
  it('writes the chart, version, namespace, values and settings it is given', () => {
    const mirror = { charts: 'https://charts.mirror.example' };
    const json = synthJson((stack) => {
      const provider = new HelmV3Provider(stack, 'helm', { kubernetes: { configPath: '~/.kube/mgmt' } });
      new HelmChartRelease(stack, 'release-metallb', {
        provider,
        chart: 'metallb',
        versions,
        mirror,
        releaseName: 'metallb',
        namespace: 'metallb-system',
        values: { b: 1, a: { c: 'x' } },
        timeoutSeconds: 123,
        atomic: false,
        waitForJobs: true,
      });
    });
    const [[id, r]] = Object.entries(resourcesOf(json, 'helm_release'));
    expect(id).toMatch(/^release-metallb_release_[0-9A-F]{8}$/);
    const source = chartSource(helmCharts.metallb, mirror);
    expect({ name: r.name, namespace: r.namespace, repository: r.repository, chart: r.chart, version: r.version }).toEqual({
      name: 'metallb',
      namespace: 'metallb-system',
      repository: source.repository,
      chart: source.chart,
      version: versions[helmCharts.metallb.versionKey],
    });
    expect(r.values).toEqual(['a:\n  c: x\nb: 1\n']);
    expect(parse(r.values[0])).toEqual({ a: { c: 'x' }, b: 1 });
    expect({
      create_namespace: r.create_namespace,
      wait: r.wait,
      wait_for_jobs: r.wait_for_jobs,
      atomic: r.atomic,
      cleanup_on_fail: r.cleanup_on_fail,
      timeout: r.timeout,
      max_history: r.max_history,
    }).toEqual({
      create_namespace: false,
      wait: true,
      wait_for_jobs: true,
      atomic: false,
      cleanup_on_fail: true,
      timeout: 123,
      max_history: 10,
    });
  });
});
