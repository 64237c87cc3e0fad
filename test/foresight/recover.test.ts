/**
 * Recovery after an interrupted apply (modules/foresight/recover.ts), on the example lab's real
 * instance stacks: each desired object's identity as bpg/proxmox's importers take it, and what is
 * done with each orphan — the case of issue 42 (a storage, two tokens and four ACL entries in
 * Proxmox, not in the state) among them.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  desiredObjects,
  orphansOf,
  planRecovery,
  stateResources,
  type DesiredObject,
  type ProxmoxInventory,
  type StateResource,
} from '../../modules/foresight/recover';
import { synthesizeLab } from '../../scripts/lib/synthesize';

const dir = mkdtempSync(join(tmpdir(), 'pvekaas-recover-'));
let txl: DesiredObject[];
let fra: DesiredObject[];

beforeAll(() => {
  synthesizeLab({ config: join(__dirname, '../../examples/lab.yaml'), out: join(dir, 'out'), stateDirFromStack: '../../state' });
  const read = (s: string) => JSON.parse(readFileSync(join(dir, 'out/stacks', s, 'cdk.tf.json'), 'utf8'));
  txl = desiredObjects(read('proxmox-pmox-txl'));
  fra = desiredObjects(read('proxmox-pmox-fra'));
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A state entry for an object, with the attributes bpg/proxmox records (literal values). */
function inState(d: DesiredObject, extra: Record<string, unknown> = {}): StateResource {
  const [type] = d.address.split('.');
  const id = d.key.slice(d.key.indexOf(':') + 1);
  const attributes: Record<string, unknown> = { id: d.importId };
  if (d.kind === 'user') attributes.user_id = id;
  if (d.kind === 'token') Object.assign(attributes, { user_id: id.split('!')[0], token_name: id.split('!')[1], value: `${id}=a-secret` });
  if (d.kind === 'role') attributes.role_id = id;
  if (d.kind === 'pool') attributes.pool_id = id;
  if (d.kind === 'storage') attributes.id = id;
  if (d.kind === 'vm') Object.assign(attributes, { vm_id: Number(id), node_name: d.importId.split('/')[0] });
  if (d.kind === 'file') {
    const [node, volid] = [d.importId.split('/')[0], d.importId.slice(d.importId.indexOf('/') + 1)];
    Object.assign(attributes, {
      node_name: node,
      datastore_id: volid.split(':')[0],
      content_type: volid.split(':')[1].split('/')[0],
      file_name: volid.split('/')[1],
    });
  }
  if (d.kind === 'acl') {
    const [path, type, ugid, role] = id.split('|');
    Object.assign(attributes, { path, role_id: role, [`${type}_id`]: ugid });
  }
  return { address: d.address, type, attributes: { ...attributes, ...extra }, tainted: false };
}

/** The inventory of an instance holding exactly these objects. */
function holding(objects: DesiredObject[]): ProxmoxInventory {
  const inv: ProxmoxInventory = { users: [], tokens: [], acl: [], roles: [], pools: [], storages: [], vms: [], files: [] };
  for (const d of objects) {
    const id = d.key.slice(d.key.indexOf(':') + 1);
    if (d.kind === 'user') inv.users.push(id);
    if (d.kind === 'token') inv.tokens.push(id);
    if (d.kind === 'role') inv.roles.push(id);
    if (d.kind === 'pool') inv.pools.push(id);
    if (d.kind === 'storage') inv.storages.push(id);
    if (d.kind === 'vm') inv.vms.push({ vmid: Number(id), node: d.importId.split('/')[0] });
    if (d.kind === 'file') inv.files.push({ node: d.importId.split('/')[0], volid: d.importId.slice(d.importId.indexOf('/') + 1) });
    if (d.kind === 'acl') {
      const [path, type, ugid, roleid] = id.split('|');
      inv.acl.push({ path, type, ugid, roleid });
    }
  }
  return inv;
}

const byAddress = (list: DesiredObject[], pattern: RegExp) => list.filter((d) => pattern.test(d.address));

describe('the identity of every object an instance stack renders', () => {
  it('names each object as bpg/proxmox imports it, references to other resources followed', () => {
    const ids = Object.fromEntries(txl.map((d) => [d.address, d.importId]));
    expect(ids['proxmox_virtual_environment_user.capmox_user_9143315D']).toBe('capmox@pve');
    expect(ids['proxmox_user_token.capmox_token-tenant-a_639B0CD6']).toBe('capmox@pve!tenant-tenant-a');
    expect(ids['proxmox_storage_directory.cloudinit-storage-tenant-a']).toBe('capmox-cloudinit-tenant-a');
    expect(ids['proxmox_virtual_environment_pool.tenant-pool-tenant-b']).toBe('capi-tenant-b');
    expect(ids['proxmox_virtual_environment_role.capmox_role-CapmoxSysAudit_AA5472E3']).toBe('CapmoxSysAudit');
    // ACL: {path}?{entity}?{role} (fwprovider/access/model_acl.go), the token and the role read through their references.
    expect(ids['proxmox_acl.capmox_acl-token-tenant-a-storage-capmox-cloudinit-tenant-a-CapmoxCloudInit_F7921616']).toBe(
      '/storage/capmox-cloudinit-tenant-a?capmox@pve!tenant-tenant-a?CapmoxCloudInit',
    );
    expect(ids['proxmox_acl.capmox_acl-user-root-CapmoxSysAudit_F6F1C2B4']).toBe('/?capmox@pve?CapmoxSysAudit');
  });

  it('covers every resource of the stacks: nothing pvekaas renders into an instance goes unchecked', () => {
    const count = (file: string) =>
      Object.values(JSON.parse(readFileSync(join(dir, 'out/stacks', file, 'cdk.tf.json'), 'utf8')).resource as Record<string, object>).reduce(
        (n, rs) => n + Object.keys(rs).length,
        0,
      );
    expect(txl).toHaveLength(count('proxmox-pmox-txl'));
    expect(fra).toHaveLength(count('proxmox-pmox-fra'));
    expect(new Set(txl.map((d) => d.key)).size).toBe(txl.length);
  });

  it('names VMs by node and id, downloaded files by node and volume', () => {
    const vms = fra.filter((d) => d.kind === 'vm').map((d) => d.importId);
    expect(vms).toEqual(['pmox-fra-1/9036', 'pmox-fra-2/9037', 'pmox-fra-3/9038']);
    const files = fra.filter((d) => d.kind === 'file');
    expect(files.map((d) => d.importId)).toContain('pmox-fra-1/local:import/pvekaas-v1.35.4.qcow2');
    expect(files.every((d) => d.providerOverwrites)).toBe(true);
  });
});

describe('what is done with the objects of an interrupted run', () => {
  it('nothing when the state holds everything Proxmox holds, or Proxmox lacks what the state lacks', () => {
    expect(
      planRecovery(
        txl,
        txl.map((d) => inState(d)),
        holding(txl),
      ),
    ).toEqual([]);
    // Half applied, nothing orphaned: the apply creates the rest.
    const half = txl.slice(0, 20);
    expect(
      planRecovery(
        txl,
        half.map((d) => inState(d)),
        holding(half),
      ),
    ).toEqual([]);
  });

  it('issue 42: a storage, two tokens and four ACL entries in Proxmox and not in the state', () => {
    const storage = byAddress(txl, /cloudinit-storage-tenant-a$/);
    const tokens = byAddress(txl, /capmox_token-tenant-[ab]_/);
    const tokenAcls = byAddress(txl, /acl-token-tenant-[ab]-(root|nodes)-/);
    const missing = new Set([...storage, ...tokens, ...tokenAcls].map((d) => d.address));
    expect(missing.size).toBe(7);
    const state = txl.filter((d) => !missing.has(d.address)).map((d) => inState(d));
    const steps = planRecovery(txl, state, holding(txl));
    const actions = Object.fromEntries(steps.map((s) => [s.address, s.action]));
    expect(actions[storage[0].address]).toBe('import');
    for (const t of tokens) expect(actions[t.address]).toBe('delete-recreate');
    // The orphaned ACL entries of those tokens go with them (PVE deletes them with the token); the apply creates them.
    for (const a of tokenAcls) expect(actions[a.address]).toBe('leave-to-apply');
    // Their other ACL entries, in the state, are replaced with the token.
    const otherAcls = byAddress(txl, /acl-token-tenant-[ab]-/).filter((d) => !missing.has(d.address));
    expect(otherAcls.length).toBeGreaterThan(0);
    for (const a of otherAcls) expect(actions[a.address]).toBe('replace');
    // Tenant c's token and ACL entries are untouched.
    expect(steps.filter((s) => /tenant-c/.test(s.address))).toEqual([]);
    expect(steps.find((s) => s.address === tokens[0].address)!.importId).toBeUndefined();
    expect(
      orphansOf(txl, state, holding(txl))
        .map((d) => d.address)
        .sort(),
    ).toEqual([...missing].sort());
  });

  it('a token in the state without its secret (an import whose replacement was interrupted) is replaced, and its ACL entries', () => {
    const token = byAddress(txl, /capmox_token-tenant-c_/)[0];
    const state = txl.map((d) => (d === token ? inState(d, { value: null }) : inState(d)));
    const steps = planRecovery(txl, state, holding(txl));
    expect(steps.find((s) => s.address === token.address)?.action).toBe('replace');
    expect(steps.filter((s) => s.kind === 'acl').every((s) => /tenant-c/.test(s.address) && s.action === 'replace')).toBe(true);
    expect(steps.filter((s) => s.kind === 'acl')).toHaveLength(byAddress(txl, /acl-token-tenant-c-/).length);
    // Already tainted: the apply replaces it, nothing to add.
    const tainted = txl.map((d) => (d === token ? { ...inState(d, { value: null }), tainted: true } : inState(d)));
    expect(planRecovery(txl, tainted, holding(txl)).filter((s) => s.address === token.address)).toEqual([]);
  });

  it('VMs are imported and replaced; downloaded files the provider overwrites are left to it', () => {
    const vm = fra.find((d) => d.kind === 'vm')!;
    const file = fra.find((d) => d.kind === 'file')!;
    const state = fra.filter((d) => d !== vm && d !== file).map((d) => inState(d));
    const steps = planRecovery(fra, state, holding(fra));
    expect(steps.map((s) => [s.address, s.action, s.importId])).toEqual(
      [
        [file.address, 'leave-to-apply', undefined],
        [vm.address, 'import-replace', vm.importId],
      ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    );
  });

  it('an object the state holds under another address is not imported twice', () => {
    const pool = byAddress(txl, /tenant-pool-tenant-a$/)[0];
    const renamed = { ...inState(pool), address: 'proxmox_virtual_environment_pool.old-name' };
    const state = txl.filter((d) => d !== pool).map((d) => inState(d));
    expect(planRecovery(txl, [...state, renamed], holding(txl))).toEqual([]);
    expect(planRecovery(txl, state, holding(txl)).map((s) => [s.address, s.action])).toEqual([[pool.address, 'import']]);
  });
});

describe('reading a state file', () => {
  it('takes the managed resources of the root module, with their taint', () => {
    const state = {
      version: 4,
      resources: [
        { mode: 'data', type: 'proxmox_virtual_environment_nodes', name: 'n', instances: [{ attributes: {} }] },
        { mode: 'managed', type: 'proxmox_virtual_environment_pool', name: 'p', instances: [{ status: 'tainted', attributes: { pool_id: 'x' } }] },
      ],
    };
    expect(stateResources(state)).toEqual([
      { address: 'proxmox_virtual_environment_pool.p', type: 'proxmox_virtual_environment_pool', attributes: { pool_id: 'x' }, tainted: true },
    ]);
    expect(stateResources({})).toEqual([]);
    expect(stateResources(null)).toEqual([]);
  });
});
