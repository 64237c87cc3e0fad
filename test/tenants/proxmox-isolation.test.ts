/**
 * Issue 26 item 2, in the synthesized instance stacks: each tenant's token gets a cloud-init
 * storage of its own (created by the stack, `<storage.cloudInit>-<tenant>`) and SDN.Use on its own
 * VLAN only (the bridge itself, untagged, for a tenant without one), never with propagation; no
 * token holds a grant on another tenant's storage or VLAN. What the grants let a token do is
 * checked against the simulator in test/sim/tenant-isolation.test.ts and test/e2e/instances.test.ts.
 */
import { labWarnings } from '../../modules/config/safety';
import { exampleLab, synthesize, type Synthesized } from '../management/synth';

/** The example lab with tenant-a on VLAN 10 and tenant-c on VLAN 30 on pmox-fra only. */
const lab = exampleLab((raw) => {
  raw.tenants[0].network.vlan = 10;
  raw.tenants[2].networks['pmox-fra'].vlan = 30;
});
let synth: Synthesized;
beforeAll(() => {
  synth = synthesize(lab);
});
afterAll(() => synth?.cleanup());

type Acl = { path: string; role_id: string; propagate: boolean; token_id?: string; user_id?: string };
const aclOf = (instance: string) => Object.values(synth.stack(`proxmox-${instance}`).resource.proxmox_acl) as Acl[];
/** The token an ACL is for, by the tenant in its resource reference (`capmox_token-<tenant>_…`). */
const tenantOf = (acl: Acl) => /capmox_token-([a-z0-9-]+)_/.exec(acl.token_id ?? '')?.[1];

describe('the instance stacks grant each tenant token its own cloud-init storage and VLAN', () => {
  it('creates one directory storage per tenant with machines on the instance, iso content only, at <cloudInitPath>/<tenant>', () => {
    const storages = (instance: string) => Object.values(synth.stack(`proxmox-${instance}`).resource.proxmox_storage_directory) as any[];
    expect(storages('pmox-txl').map((s) => [s.id, s.path, s.content, s.shared])).toEqual(
      ['tenant-a', 'tenant-b', 'tenant-c'].map((t) => [`capmox-cloudinit-${t}`, `/var/lib/capmox-cloudinit/${t}`, ['iso'], false]),
    );
    expect(storages('pmox-fra').map((s) => s.id)).toEqual(['capmox-cloudinit-tenant-c']);
  });

  it.each([
    ['pmox-txl', { 'tenant-a': '/sdn/zones/localnetwork/vmbr0/10', 'tenant-b': '/sdn/zones/localnetwork/vmbr0', 'tenant-c': '/sdn/zones/localnetwork/vmbr0' }],
    ['pmox-fra', { 'tenant-c': '/sdn/zones/localnetwork/vmbr0/30' }],
  ] as [string, Record<string, string>][])(
    '%s: each token holds SDN on its own VLAN path only, cloud-init rights on its own storage only, nothing propagating there',
    (instance, vlanPath) => {
      const acl = aclOf(instance);
      for (const [tenant, path] of Object.entries(vlanPath)) {
        const own = acl.filter((a) => tenantOf(a) === tenant);
        expect(own.filter((a) => a.path.startsWith('/sdn')).map((a) => [a.path, a.role_id, a.propagate])).toEqual([[path, 'PVESDNUser', false]]);
        // The custom role is referenced (`${proxmox_virtual_environment_role.capmox_role-CapmoxCloudInit_….role_id}`).
        const storages = own.filter((a) => a.role_id.includes('CapmoxCloudInit'));
        expect(storages.map((a) => [a.path, a.propagate])).toEqual([[`/storage/capmox-cloudinit-${tenant}`, false]]);
      }
      // No grant anywhere on the bridge with propagation, nor on the management VIP VLAN.
      expect(acl.filter((a) => a.path.startsWith('/sdn') && a.propagate)).toEqual([]);
      expect(acl.filter((a) => a.path.endsWith(`/${lab.management.loadBalancer.vlan}`))).toEqual([]);
    },
  );

  it("warns when a tenant on a VLAN clones an existing template (PVE checks the template's NICs at clone)", () => {
    const warnings = labWarnings(lab).filter((w) => w.path.join('.') === 'proxmox.instances.0.template.templateID');
    expect(warnings.map((w) => [w.severity, w.message.slice(0, 38)])).toEqual([['warning', 'tenant tenant-a uses VLAN 10 on pmox-t']]);
    // tenant-c's VLAN 30 is on pmox-fra, which builds its templates without a NIC: no warning there.
    expect(labWarnings(exampleLab()).filter((w) => w.message.includes('uses VLAN'))).toEqual([]);
  });
});
