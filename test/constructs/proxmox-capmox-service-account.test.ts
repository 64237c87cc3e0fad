/**
 * CapmoxServiceAccount writes the rendered account: the user, the custom roles, the user's ACLs and
 * one token per tenant with its own ACLs, each under the id the rendering gives it; each ACL after
 * the resource its path names, a custom role by reference.
 */
import { TerraformOutput } from 'cdktf';
import { VirtualEnvironmentPool } from '../../.gen/providers/proxmox/virtual-environment-pool';
import { CapmoxServiceAccount } from '../../constructs/proxmox-capmox-service-account';
import { renderInstance } from '../../modules/rendering/instance';
import { exampleLab } from '../management/synth';
import { resourcesOf, synthJson } from './support';

describe('CapmoxServiceAccount', () => {
  const instance = exampleLab().proxmox.instances[0];
  const account = renderInstance(instance, ['tenant-a', 'tenant-b'], { 'tenant-b': 42 }).serviceAccount;

  it('writes exactly the rendered user, roles, tokens and ACLs', () => {
    const json = synthJson((stack) => {
      const pool = new VirtualEnvironmentPool(stack, 'tenant-pool-tenant-a', { poolId: 'capi-tenant-a' });
      const sa = new CapmoxServiceAccount(stack, 'capmox', {
        account,
        aclPathDependsOn: { [`/pool/${account.tokens[0].grants.find((g) => g.roleId === 'PVEVMAdmin')!.path.slice(6)}`]: pool },
      });
      new TerraformOutput(stack, 'tokens', { value: [...sa.tokens.keys()] });
    });
    const strip = (k: string) => k.replace(/_[0-9A-F]{8}$/, '');
    expect(Object.values(resourcesOf(json, 'proxmox_virtual_environment_user'))).toEqual([
      { user_id: account.userId, comment: account.comment, enabled: true },
    ]);
    expect(
      Object.entries(resourcesOf(json, 'proxmox_virtual_environment_role'))
        .map(([k, r]) => [strip(k), r.role_id, r.privileges])
        .sort(),
    ).toEqual(account.roles.map((r) => [`capmox_${r.id}`, r.roleId, r.privileges]).sort());
    const tokens = resourcesOf(json, 'proxmox_user_token');
    expect(
      Object.entries(tokens)
        .map(([k, t]) => [strip(k), t.token_name, t.comment, t.privileges_separation])
        .sort(),
    ).toEqual(account.tokens.map((t) => [`capmox_${t.id}`, t.tokenName, t.comment, t.privilegesSeparation]).sort());
    const acls = resourcesOf(json, 'proxmox_acl');
    const expected = [
      ...account.grants.map((g) => [`capmox_${g.id}`, g.path, g.propagate]),
      ...account.tokens.flatMap((t) => t.grants.map((g) => [`capmox_${g.id}`, g.path, g.propagate])),
    ].sort();
    expect(
      Object.entries(acls)
        .map(([k, a]) => [strip(k), a.path, a.propagate])
        .sort(),
    ).toEqual(expected);
    // A custom role by reference (ordering), a built-in one by name; tokens by reference to their token.
    for (const [k, a] of Object.entries(acls)) {
      expect(a.role_id).toMatch(/^(\$\{proxmox_virtual_environment_role\.capmox_role-Capmox\w+_[0-9A-F]{8}\.role_id\}|PVE\w+)$/);
      if (k.startsWith('capmox_acl-token-')) expect(a.token_id).toMatch(/^\$\{proxmox_user_token\.capmox_token-tenant-[ab]_[0-9A-F]{8}\.id\}$/);
    }
    // The ACLs on tenant-a's pool come after the pool, and only those.
    const onPool = Object.values(acls).filter((a) => a.path === '/pool/capi-tenant-a');
    expect(onPool.length).toBeGreaterThan(0);
    for (const a of Object.values(acls))
      expect(a.depends_on).toEqual(
        a.path === '/pool/capi-tenant-a' ? [expect.stringMatching(/^proxmox_virtual_environment_pool\.tenant-pool-tenant-a/)] : undefined,
      );
    expect(json.output.tokens.value).toEqual(['tenant-a', 'tenant-b']);
  });
});
