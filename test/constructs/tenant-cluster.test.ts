/** TenantCluster writes the rendered Cluster, waits for ControlPlaneInitialized, with its timeouts. */
import { TenantCluster } from '../../constructs/tenant-cluster';
import { planPlacement } from '../../modules/placement';
import { renderTenant } from '../../modules/tenants';
import { exampleLab } from '../management/synth';
import { resourcesOf, synthJson } from './support';

describe('TenantCluster', () => {
  it('writes exactly the Cluster it is given, waiting for its control plane', () => {
    const lab = exampleLab();
    const cluster = renderTenant(lab, planPlacement(lab), 'tenant-a').cluster;
    const json = synthJson((stack) => new TenantCluster(stack, 'cluster', { cluster, timeouts: { create: '45m' } }));
    const [[id, r]] = Object.entries(resourcesOf(json, 'kubernetes_manifest'));
    expect(id).toMatch(/^cluster_(cluster_)?[0-9A-F]{8}$/);
    expect(r.manifest).toEqual(JSON.parse(JSON.stringify(cluster)));
    expect(r.field_manager).toEqual({ name: 'pvekaas' });
    expect(r.wait).toEqual({ condition: [{ type: 'ControlPlaneInitialized', status: 'True' }] });
    expect(r.timeouts).toEqual({ create: '45m', update: '30m', delete: '60m' });
  });
});
