/** TenantIdentity writes the rendered AuthenticationConfiguration ConfigMap, the bindings ConfigMap and the ClusterResourceSet after it. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TenantIdentity } from '../../constructs/tenant-identity';
import { parseLab } from '../../modules/config/load';
import { tenantIdentity } from '../../modules/tenants/identity';
import { resourcesOf, synthJson } from './support';

describe('TenantIdentity', () => {
  const lab = parseLab(readFileSync(join(__dirname, '../../examples/lab-identity.yaml'), 'utf8'), 'examples/lab-identity.yaml');
  const identity = tenantIdentity(lab, lab.tenants[0], '10.4.0.118')!;

  it('writes the three objects it is given, as they are; the ClusterResourceSet after its ConfigMap', () => {
    const json = synthJson((stack) => new TenantIdentity(stack, 'identity', { identity }));
    const written = resourcesOf(json, 'kubernetes_manifest');
    const find = (prefix: string) => Object.entries(written).find(([k]) => k.startsWith(prefix))!;
    const [, authentication] = find('identity_authentication_');
    const [accessId, access] = find('identity_access_');
    const [, set] = find('identity_resource-set_');
    expect(authentication.manifest).toEqual(JSON.parse(JSON.stringify(identity.authentication)));
    expect(access.manifest).toEqual(JSON.parse(JSON.stringify(identity.access)));
    expect(set.manifest).toEqual(JSON.parse(JSON.stringify(identity.resourceSet)));
    expect(set.depends_on).toEqual([`kubernetes_manifest.${accessId}`]);
    expect(Object.keys(written)).toHaveLength(3);
  });
});
