/** MetallbTenantVipPool writes the rendered IPAddressPool and L2Advertisement, one resource per kind. */
import { MetallbTenantVipPool } from '../../constructs/metallb-tenant-vip-pool';
import { renderManagementConfig } from '../../modules/rendering';
import { exampleLab } from '../management/synth';
import { kubernetes, resourcesOf, synthJson } from './support';

describe('MetallbTenantVipPool', () => {
  it('writes each object it is given under its kind, with the pvekaas field manager, without forcing conflicts', () => {
    const objects = renderManagementConfig(exampleLab()).vipPool;
    const json = synthJson((stack) => new MetallbTenantVipPool(stack, 'tenant-vip-pool', { provider: kubernetes(stack), objects }));
    const written = resourcesOf(json, 'kubernetes_manifest');
    expect(
      Object.keys(written)
        .map((k) => k.replace(/_[0-9A-F]{8}$/, ''))
        .sort(),
    ).toEqual(['tenant-vip-pool_ipaddresspool', 'tenant-vip-pool_l2advertisement']);
    expect(Object.values(written).map((r) => r.manifest)).toEqual(objects.map((o) => JSON.parse(JSON.stringify(o))));
    for (const r of Object.values(written)) {
      expect(r.field_manager).toEqual({ name: 'pvekaas', force_conflicts: false });
      expect(r.provider).toBe('kubernetes.mgmt');
    }
  });
});
