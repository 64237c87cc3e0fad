/** TenantAccess writes the rendered Role and RoleBinding; the binding after the Role; no binding without groups. */
import { TenantAccess } from '../../constructs/tenant-access';
import { tenantRole, tenantRoleBinding } from '../../modules/tenants/rbac';
import { exampleLab } from '../management/synth';
import { resourcesOf, synthJson } from './support';

describe('TenantAccess', () => {
  const tenant = exampleLab().tenants[0];

  it('writes the Role and RoleBinding it is given, the binding after the Role', () => {
    const role = tenantRole(tenant);
    const roleBinding = tenantRoleBinding(tenant);
    const json = synthJson((stack) => new TenantAccess(stack, 'access', { role, roleBinding }));
    const written = resourcesOf(json, 'kubernetes_manifest');
    const [roleId, roleR] = Object.entries(written).find(([k]) => k.startsWith('access_role_'))!;
    const [, bindingR] = Object.entries(written).find(([k]) => k.startsWith('access_role-binding_'))!;
    expect(roleR.manifest).toEqual(JSON.parse(JSON.stringify(role)));
    expect(bindingR.manifest).toEqual(JSON.parse(JSON.stringify(roleBinding)));
    expect(bindingR.depends_on).toEqual([`kubernetes_manifest.${roleId}`]);
  });

  it('writes no RoleBinding when given none', () => {
    const json = synthJson((stack) => new TenantAccess(stack, 'access', { role: tenantRole(tenant) }));
    expect(Object.keys(resourcesOf(json, 'kubernetes_manifest'))).toEqual([expect.stringMatching(/^access_role_/)]);
  });
});
