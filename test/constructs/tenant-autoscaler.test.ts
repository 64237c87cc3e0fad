/** TenantAutoscaler writes the rendered release: name, namespace, chart, version, repository and values. */
import { parse } from 'yaml';
import { TenantAutoscaler } from '../../constructs/tenant-autoscaler';
import { planPlacement } from '../../modules/placement';
import { renderTenant } from '../../modules/tenants';
import { exampleLab } from '../management/synth';
import { resourcesOf, synthJson } from './support';

describe('TenantAutoscaler', () => {
  it('writes exactly the autoscaler it is given, waiting for it', () => {
    const lab = exampleLab();
    const autoscaler = renderTenant(lab, planPlacement(lab), 'tenant-b').autoscaler!;
    expect(autoscaler).toBeDefined();
    const json = synthJson((stack) => new TenantAutoscaler(stack, 'autoscaler', { autoscaler }));
    const [[id, r]] = Object.entries(resourcesOf(json, 'helm_release'));
    expect(id).toMatch(/^autoscaler_release_[0-9A-F]{8}$/);
    expect({ name: r.name, namespace: r.namespace, repository: r.repository, chart: r.chart, version: r.version, wait: r.wait, timeout: r.timeout }).toEqual({
      name: autoscaler.name,
      namespace: autoscaler.namespace,
      repository: autoscaler.repository,
      chart: autoscaler.chart.chart,
      version: autoscaler.chart.version,
      wait: true,
      timeout: 600,
    });
    expect(r.values.map((v: string) => parse(v))).toEqual([JSON.parse(JSON.stringify(autoscaler.values))]);
  });
});
