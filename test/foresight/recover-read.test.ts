/**
 * deploy's recovery reads an instance through the Proxmox VE API (scripts/lib/pve-read.ts
 * `readInventory`): against the simulator it finds exactly what the simulator holds — users, the
 * tokens of the users asked about, ACL entries, roles, pools, storages, VMs and the files on the
 * storages asked about — and the orphans recovery then plans for are the objects made through
 * the API behind the state's back. The token never appears in an error.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseLab } from '../../modules/config/load';
import { planRecovery, type DesiredObject } from '../../modules/foresight/recover';
import { PveSimulator, instanceSpecsFromLab } from '../../sim';
import { PveClient } from '../../sim/client';
import { readInventory } from '../../scripts/lib/pve-read';
import { simInventory } from '../../scripts/lib/interrupt-runs';

let sim: PveSimulator;
let client: PveClient;

async function ok(method: string, path: string, params: Record<string, string | number | boolean> = {}): Promise<unknown> {
  const res = await client.call(method, path, params);
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${res.reason}`);
  return res.data;
}

beforeAll(async () => {
  const lab = parseLab(readFileSync(join(__dirname, '../../examples/lab.yaml'), 'utf8'), 'examples/lab.yaml');
  sim = await PveSimulator.start({ taskDurationMs: 20, instances: instanceSpecsFromLab(lab).filter((i) => i.name === 'pmox-txl') });
  client = new PveClient(sim.endpoint('pmox-txl'), sim.adminToken('pmox-txl'));
  // What an interrupted apply could have made: a user, a token, a role, a pool, a storage, ACL entries.
  await ok('POST', '/access/users', { userid: 'capmox@pve' });
  await ok('POST', '/access/users/capmox@pve/token/tenant-tenant-a', { privsep: true });
  await ok('POST', '/access/roles', { roleid: 'CapmoxSysAudit', privs: 'Sys.Audit' });
  await ok('POST', '/pools', { poolid: 'capi-tenant-a' });
  await ok('POST', '/storage', { storage: 'capmox-cloudinit-tenant-a', type: 'dir', path: '/var/lib/capmox-cloudinit/tenant-a', content: 'iso' });
  await ok('PUT', '/access/acl', { path: '/', roles: 'CapmoxSysAudit', users: 'capmox@pve', tokens: 'capmox@pve!tenant-tenant-a', propagate: false });
});
afterAll(async () => sim?.stop());

const target = () => ({ instance: 'pmox-txl', endpoint: sim.endpoint('pmox-txl'), token: sim.adminToken('pmox-txl'), insecure: true });

describe('readInventory', () => {
  it('reads what the simulator holds, as the simulator itself sees it', async () => {
    const nodes = sim.snapshot('pmox-txl').nodes;
    const read = await readInventory(target(), {
      tokenUsers: ['capmox@pve', 'nobody@pve'],
      fileStores: nodes.map((node) => ({ node, storage: 'local' })),
    });
    const truth = simInventory(sim.snapshot('pmox-txl'));
    const sorted = (xs: unknown[]) => xs.map((x) => JSON.stringify(x)).sort();
    expect(sorted(read.users)).toEqual(sorted(truth.users));
    expect(sorted(read.tokens)).toEqual(sorted(truth.tokens.filter((t) => t.startsWith('capmox@pve!'))));
    expect(read.tokens).toEqual(['capmox@pve!tenant-tenant-a']);
    expect(sorted(read.acl)).toEqual(sorted(truth.acl));
    expect(read.acl).toContainEqual({ path: '/', type: 'token', ugid: 'capmox@pve!tenant-tenant-a', roleid: 'CapmoxSysAudit' });
    expect(read.roles).toContain('CapmoxSysAudit');
    expect(sorted(read.pools)).toEqual(sorted(truth.pools));
    expect(sorted(read.storages)).toEqual(sorted(truth.storages));
    expect(sorted(read.vms)).toEqual(sorted(truth.vms));
    expect(sorted(read.files)).toEqual(sorted(truth.files.filter((f) => f.volid.startsWith('local:'))));
  });

  it('gives recovery the orphans made behind the state: import, and the token deleted and created anew', async () => {
    const desired: DesiredObject[] = [
      { address: 'proxmox_virtual_environment_user.u', kind: 'user', key: 'user:capmox@pve', importId: 'capmox@pve', label: 'user capmox@pve' },
      {
        address: 'proxmox_user_token.t',
        kind: 'token',
        key: 'token:capmox@pve!tenant-tenant-a',
        importId: 'capmox@pve!tenant-tenant-a',
        label: 'token capmox@pve!tenant-tenant-a',
      },
      {
        address: 'proxmox_storage_directory.s',
        kind: 'storage',
        key: 'storage:capmox-cloudinit-tenant-a',
        importId: 'capmox-cloudinit-tenant-a',
        label: 'storage capmox-cloudinit-tenant-a',
      },
      { address: 'proxmox_virtual_environment_pool.p', kind: 'pool', key: 'pool:capi-tenant-b', importId: 'capi-tenant-b', label: 'pool capi-tenant-b' },
    ];
    const inventory = await readInventory(target(), { tokenUsers: ['capmox@pve'], fileStores: [] });
    expect(planRecovery(desired, [], inventory).map((s) => [s.address, s.action])).toEqual([
      ['proxmox_user_token.t', 'delete-recreate'],
      ['proxmox_virtual_environment_user.u', 'import'],
      ['proxmox_storage_directory.s', 'import'],
    ]);
  });

  it('names the endpoint and never the token when the instance refuses', async () => {
    const secret = 'not-a-real-secret-0123456789';
    const error = await readInventory({ ...target(), token: `root@pam!pvekaas=${secret}` }, { tokenUsers: [], fileStores: [] }).then(
      () => undefined,
      (e: Error) => e.message,
    );
    expect(error).toMatch(/GET https:\/\/127\.0\.0\.1:\d+\/api2\/json\/access\/\S+ answered 401/);
    expect(error).not.toContain(secret);
  });
});
