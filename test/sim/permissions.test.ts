/**
 * The simulator's permission model against PVE's documented rules (pve-admin-guide, "Permission
 * Management"): inheritance and propagation, deeper levels overriding, user over group, NoAccess,
 * pools, and privilege-separated tokens holding the intersection with their user.
 */
import fc from 'fast-check';
import { BUILTIN_ROLES, privilegesOf, type AccessView, type AclEntry } from '../../sim/permissions';

function view(acl: AclEntry[], extra: Partial<AccessView> = {}): AccessView {
  const roles = new Map<string, ReadonlySet<string>>(Object.entries(BUILTIN_ROLES).map(([k, v]) => [k, new Set(v)]));
  roles.set('Audit', new Set(['Sys.Audit']));
  return {
    roles,
    acl,
    groupsOf: (u) => (u === 'alice@pve' ? ['ops'] : []),
    poolOfVm: (vmid) => (vmid === 100 ? 'capi' : undefined),
    poolOfStorage: () => undefined,
    tokenPrivsep: (t) => (t === 'alice@pve!sep' ? true : t === 'alice@pve!full' ? false : undefined),
    ...extra,
  };
}

const user = (path: string, roleid: string, propagate = true): AclEntry => ({ path, type: 'user', ugid: 'alice@pve', roleid, propagate });
const group = (path: string, roleid: string, propagate = true): AclEntry => ({ path, type: 'group', ugid: 'ops', roleid, propagate });
const token = (path: string, roleid: string, propagate = true, ugid = 'alice@pve!sep'): AclEntry => ({ path, type: 'token', ugid, roleid, propagate });
const privs = (v: AccessView, who: string, path: string) => [...privilegesOf(v, who, path)].sort();

describe('permission model', () => {
  it('gives root@pam every privilege everywhere', () => {
    expect(privs(view([]), 'root@pam', '/vms/123')).toContain('Permissions.Modify');
  });

  it('applies a non-propagating entry to its own path only', () => {
    const v = view([user('/', 'Audit', false)]);
    expect(privs(v, 'alice@pve', '/')).toEqual(['Sys.Audit']);
    expect(privs(v, 'alice@pve', '/nodes/pve1')).toEqual([]);
  });

  it('propagates an entry down the tree', () => {
    const v = view([user('/nodes', 'Audit')]);
    expect(privs(v, 'alice@pve', '/nodes/pve1')).toEqual(['Sys.Audit']);
    expect(privs(v, 'alice@pve', '/')).toEqual([]);
  });

  it('lets a deeper level replace what is inherited', () => {
    const v = view([user('/', 'PVEVMAdmin'), user('/vms/200', 'PVEAuditor')]);
    expect(privs(v, 'alice@pve', '/vms/200')).toEqual([...BUILTIN_ROLES.PVEAuditor].sort());
    expect(privs(v, 'alice@pve', '/vms/201')).toContain('VM.Allocate');
  });

  it("prefers the user's own entries to its groups' on the same level", () => {
    const v = view([group('/vms', 'PVEVMAdmin'), user('/vms', 'PVEAuditor')]);
    expect(privs(v, 'alice@pve', '/vms/5')).not.toContain('VM.Allocate');
    expect(privs(view([group('/vms', 'PVEVMAdmin')]), 'alice@pve', '/vms/5')).toContain('VM.Allocate');
  });

  it('lets NoAccess take everything away', () => {
    const v = view([user('/', 'Administrator'), user('/storage/local', 'NoAccess')]);
    expect(privs(v, 'alice@pve', '/storage/local')).toEqual([]);
  });

  it('gives pool members the permissions of their pool', () => {
    const v = view([user('/pool/capi', 'PVEVMAdmin')]);
    expect(privs(v, 'alice@pve', '/vms/100')).toContain('VM.PowerMgmt');
    expect(privs(v, 'alice@pve', '/vms/101')).toEqual([]);
  });

  it('gives a separated token only what both the token and its user hold', () => {
    const v = view([user('/pool/capi', 'PVEVMAdmin'), token('/pool/capi', 'PVETemplateUser'), token('/storage/local', 'PVEDatastoreAdmin')]);
    expect(privs(v, 'alice@pve!sep', '/vms/100')).toEqual(['VM.Audit', 'VM.Clone']);
    // The token alone holds storage rights its user lacks: the intersection is empty.
    expect(privs(v, 'alice@pve!sep', '/storage/local')).toEqual([]);
  });

  it("gives a token without separation exactly its user's privileges, and an unknown token none", () => {
    const v = view([user('/', 'PVEAuditor')]);
    expect(privs(v, 'alice@pve!full', '/nodes/x')).toEqual(privs(v, 'alice@pve', '/nodes/x'));
    expect(privs(v, 'alice@pve!gone', '/nodes/x')).toEqual([]);
  });

  it('never lets a separated token exceed its user (property)', () => {
    const paths = ['/', '/vms', '/vms/100', '/vms/7', '/pool/capi', '/storage', '/storage/local', '/nodes', '/nodes/n1'];
    const roles = ['PVEVMAdmin', 'PVEAuditor', 'PVETemplateUser', 'Administrator', 'NoAccess', 'Audit', 'PVEDatastoreUser'];
    const entry = fc.record({
      path: fc.constantFrom(...paths),
      type: fc.constantFrom('user' as const, 'group' as const, 'token' as const),
      roleid: fc.constantFrom(...roles),
      propagate: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 12 }), fc.constantFrom(...paths), (entries, path) => {
        const acl = entries.map((e) => ({ ...e, ugid: e.type === 'user' ? 'alice@pve' : e.type === 'group' ? 'ops' : 'alice@pve!sep' }));
        const v = view(acl);
        const userPrivs = privilegesOf(v, 'alice@pve', path);
        for (const p of privilegesOf(v, 'alice@pve!sep', path)) expect(userPrivs.has(p)).toBe(true);
      }),
    );
  });
});
