/**
 * Issue 26 item 2: a tenant's CAPMOX token, with exactly the grants the instance stack gives it
 * (`capmoxGrants` and `tenantGrants` of modules/rendering/instance.ts, and its own
 * cloud-init storage created the way the stack creates it, `POST /storage`), cannot reach another
 * tenant's bootstrap ISO nor a VLAN that is not its own — refused by the simulator's rules of
 * pve-storage PVE::Storage::check_volume_access and pve-guest-common PVE::GuestHelpers::
 * check_vnet_access. Every refusal has its positive control: the owner's own token does the same
 * call and succeeds, so the refusal is the rule at work, not a broken call.
 *
 * On the grants of before (one shared cloud-init storage, PVESDNUser on the whole bridge with
 * propagation) every refused call below succeeded.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PveSimulator } from '../../sim/simulator';
import { PveClient } from '../../sim/client';
import { CAPMOX_ROLES, capmoxGrants, tenantGrants, type CapmoxTenant } from '../../modules/rendering/instance';
import { tenantCloudInitPath, tenantCloudInitStorage } from '../../modules/config/proxmox-access';
import { multipart, raw } from './support';

const iso = readFileSync(join(__dirname, 'fixtures/capmox-user-data-100.iso'));
const instance = { storage: { cloudInit: 'capmox-cloudinit', cloudInitPath: '/var/lib/capmox-cloudinit' } };
/** tenant-a on VLAN 10, tenant-b on VLAN 20, tenant-u untagged; the management VIPs live on VLAN 4. */
const tenants: CapmoxTenant[] = [
  { name: 'tenant-a', pool: 'capi-tenant-a', cloudInitStorage: tenantCloudInitStorage(instance, 'tenant-a'), vlan: 10 },
  { name: 'tenant-b', pool: 'capi-tenant-b', cloudInitStorage: tenantCloudInitStorage(instance, 'tenant-b'), vlan: 20 },
  { name: 'tenant-u', pool: 'capi-tenant-u', cloudInitStorage: tenantCloudInitStorage(instance, 'tenant-u') },
];
const MGMT_VLAN = 4;

let sim: PveSimulator;
let admin: PveClient;
const token: Record<string, string> = {};
const client: Record<string, PveClient> = {};

beforeAll(async () => {
  sim = await PveSimulator.start({
    taskDurationMs: 30,
    instances: [
      {
        name: 'lab',
        nodes: [{ name: 'n1', cpu: 16, memoryMiB: 65536 }],
        storages: [
          { id: 'local', type: 'dir', content: ['backup', 'import', 'iso', 'snippets', 'vztmpl'], capacityGiB: 100 },
          { id: 'local-lvm', type: 'lvmthin', content: ['images', 'rootdir'], capacityGiB: 400 },
        ],
        bridges: ['vmbr0'],
      },
    ],
  });
  admin = new PveClient(sim.endpoint('lab'), sim.adminToken('lab'));
  const must = async (method: string, path: string, params: Record<string, string | number>) => {
    const res = await admin.call<unknown>(method, path, params);
    expect({ method, path, status: res.status }).toEqual({ method, path, status: 200 });
    if (typeof res.data === 'string' && res.data.startsWith('UPID:')) expect(await admin.waitForTask(res.data)).toBe('OK');
    return res;
  };
  // What the instance stack creates, in its order: pools, storages, roles, user, tokens, ACLs.
  for (const pool of ['templates', ...tenants.map((t) => t.pool)]) await must('POST', '/pools', { poolid: pool });
  for (const t of tenants)
    await must('POST', '/storage', { storage: t.cloudInitStorage, type: 'dir', path: tenantCloudInitPath(instance, t.name), content: 'iso', shared: 0 });
  for (const role of Object.values(CAPMOX_ROLES)) await must('POST', '/access/roles', { roleid: role.id, privs: role.privileges.join(',') });
  await must('POST', '/access/users', { userid: 'capmox@pve' });
  // A template with a disk and no NIC (as ProxmoxNodeTemplate builds it), in the templates pool.
  await must('POST', '/nodes/n1/qemu', { vmid: 9000, name: 'tpl', scsi0: 'local-lvm:2', pool: 'templates' });
  await must('POST', '/nodes/n1/qemu/9000/template', {});
  const shared = capmoxGrants({ templates: { pool: 'templates' }, diskStorage: 'local-lvm' });
  const acl = (subject: Record<string, string>, g: { path: string; roleId: string; propagate: boolean }) =>
    must('PUT', '/access/acl', { path: g.path, roles: g.roleId, propagate: g.propagate ? 1 : 0, ...subject });
  for (const t of tenants) {
    const created = await must('POST', `/access/users/capmox@pve/token/tenant-${t.name}`, { privsep: 1 });
    token[t.name] = `capmox@pve!tenant-${t.name}`;
    client[t.name] = new PveClient(sim.endpoint('lab'), `${token[t.name]}=${(created.data as { value: string }).value}`);
    for (const g of [...shared, ...tenantGrants(t, 'vmbr0')]) {
      await acl({ users: 'capmox@pve' }, g);
      await acl({ tokens: token[t.name] }, g);
    }
  }
}, 60_000);

afterAll(() => sim.stop());

async function upload(tenant: string, storage: string, name: string): Promise<number> {
  const { body, contentType } = multipart({ content: 'iso' }, name, iso);
  const res = await raw(
    sim.endpoint('lab'),
    'POST',
    `/api2/json/nodes/n1/storage/${storage}/upload`,
    { Authorization: `PVEAPIToken=${client[tenant].token}`, 'Content-Type': contentType, 'Content-Length': body.length },
    body,
  );
  if (res.status === 200) expect(await client[tenant].waitForTask(String(res.json?.data))).toBe('OK');
  return res.status;
}

/** A machine in the tenant's pool, cloned from the template as CAPMOX does. */
async function machine(tenant: string, vmid: number): Promise<void> {
  const t = tenants.find((x) => x.name === tenant)!;
  const res = await client[tenant].call<string>('POST', '/nodes/n1/qemu/9000/clone', {
    newid: vmid,
    name: `${tenant}-m`,
    pool: t.pool,
    full: 1,
    storage: 'local-lvm',
  });
  expect({ tenant, status: res.status }).toEqual({ tenant, status: 200 });
  expect(await client[tenant].waitForTask(res.data)).toBe('OK');
}

const isoA = `${tenants[0].cloudInitStorage}:iso/user-data-101.iso`;
const isoB = `${tenants[1].cloudInitStorage}:iso/user-data-201.iso`;

describe("a tenant token and another tenant's bootstrap ISO", () => {
  beforeAll(async () => {
    expect(await upload('tenant-b', tenants[1].cloudInitStorage, 'user-data-201.iso')).toBe(200);
    expect(await upload('tenant-a', tenants[0].cloudInitStorage, 'user-data-101.iso')).toBe(200);
    await machine('tenant-a', 101);
    await machine('tenant-b', 201);
  });

  it('finds only its own cloud-init storage (go-proxmox takes the first visible storage with iso content)', async () => {
    for (const t of tenants) {
      const res = await client[t.name].call<{ storage: string; content: string }[]>('GET', '/nodes/n1/storage');
      expect({ tenant: t.name, iso: res.data.filter((s) => s.content.split(',').includes('iso')).map((s) => s.storage) }).toEqual({
        tenant: t.name,
        iso: [t.cloudInitStorage],
      });
    }
  });

  // [what, method, path, params]: tenant-a's token against tenant-b's ISO, then the same call by tenant-b.
  const cross: [string, string, string, Record<string, string | number>][] = [
    ['list the ISOs of the storage', 'GET', `/nodes/n1/storage/${tenants[1].cloudInitStorage}/content`, {}],
    ['read the ISO', 'GET', `/nodes/n1/storage/${tenants[1].cloudInitStorage}/content/${isoB}`, {}],
    ['storage status', 'GET', `/nodes/n1/storage/${tenants[1].cloudInitStorage}/status`, {}],
  ];

  it.each(cross)('refuses tenant-a to %s of tenant-b, and lets tenant-b', async (_what, method, path, params) => {
    expect((await client['tenant-a'].call(method, path, params)).status).toBe(403);
    expect((await client['tenant-b'].call(method, path, params)).status).toBe(200);
  });

  it("refuses tenant-a to attach tenant-b's ISO (its kubeadm join data) to its own VM, and lets it attach its own", async () => {
    const attach = (tenant: string, vmid: number, volid: string) =>
      client[tenant].call('POST', `/nodes/n1/qemu/${vmid}/config`, { ide0: `${volid},media=cdrom` });
    expect((await attach('tenant-a', 101, isoB)).status).toBe(403);
    expect((await client['tenant-a'].call('PUT', '/nodes/n1/qemu/101/config', { ide2: `${isoB},media=cdrom` })).status).toBe(403);
    // At create time too.
    expect((await client['tenant-a'].call('POST', '/nodes/n1/qemu', { vmid: 102, pool: tenants[0].pool, ide2: `${isoB},media=cdrom` })).status).toBe(403);
    expect(sim.instance('lab').vms.get(101)!.config.get('ide0')).toBeUndefined();
    const own = await attach('tenant-a', 101, isoA);
    expect(own.status).toBe(200);
    expect(await client['tenant-a'].waitForTask(String(own.data))).toBe('OK');
    expect(sim.instance('lab').vms.get(101)!.config.get('ide0')).toBe(`${isoA},media=cdrom`);
    // tenant-b attaches its own to its machine.
    const b = await attach('tenant-b', 201, isoB);
    expect(b.status).toBe(200);
    expect(await client['tenant-b'].waitForTask(String(b.data))).toBe('OK');
  });

  it("refuses tenant-a to replace (upload over) or delete tenant-b's ISO; the ISO stays as it was", async () => {
    const before = sim.instance('lab').volumes.find((v) => v.volid === isoB)!;
    expect(await upload('tenant-a', tenants[1].cloudInitStorage, 'user-data-201.iso')).toBe(403);
    expect((await client['tenant-a'].call('DELETE', `/nodes/n1/storage/${tenants[1].cloudInitStorage}/content/${isoB}`)).status).toBe(403);
    expect(sim.instance('lab').volumes.find((v) => v.volid === isoB)).toBe(before);
    // The owner uploads over it and deletes its own.
    expect(await upload('tenant-b', tenants[1].cloudInitStorage, 'user-data-202.iso')).toBe(200);
    const del = await client['tenant-b'].call<string>(
      'DELETE',
      `/nodes/n1/storage/${tenants[1].cloudInitStorage}/content/${tenants[1].cloudInitStorage}:iso/user-data-202.iso`,
    );
    expect(del.status).toBe(200);
    expect(await client['tenant-b'].waitForTask(del.data)).toBe('OK');
  });

  it("holds exactly CapmoxCloudInit on its own cloud-init storage and nothing on another tenant's or the image storage", () => {
    const inst = sim.instance('lab');
    for (const t of tenants) {
      for (const other of tenants) {
        const want = other === t ? [...CAPMOX_ROLES.cloudInit.privileges].sort() : [];
        expect({ token: t.name, storage: other.cloudInitStorage, privs: inst.privileges(token[t.name], `/storage/${other.cloudInitStorage}`) }).toEqual({
          token: t.name,
          storage: other.cloudInitStorage,
          privs: want,
        });
      }
      expect(inst.privileges(token[t.name], '/storage/local')).toEqual([]);
    }
  });
});

describe('a tenant token and the VLANs of the bridge', () => {
  const nic = (tag?: number, trunks?: string) => `virtio,bridge=vmbr0${tag !== undefined ? `,tag=${tag}` : ''}${trunks ? `,trunks=${trunks}` : ''}`;
  const configure = async (tenant: string, vmid: number, net0: string) => {
    const res = await client[tenant].call<string>('POST', `/nodes/n1/qemu/${vmid}/config`, { net0 });
    if (res.status === 200) expect(await client[tenant].waitForTask(res.data)).toBe('OK');
    return res.status;
  };

  beforeAll(async () => {
    await machine('tenant-a', 110);
    await machine('tenant-u', 310);
  });

  it("lets tenant-a (VLAN 10) use VLAN 10 only: not the management VIP VLAN, not tenant-b's, not untagged, no trunk", async () => {
    expect(await configure('tenant-a', 110, nic(MGMT_VLAN))).toBe(403);
    expect(await configure('tenant-a', 110, nic(20))).toBe(403);
    expect(await configure('tenant-a', 110, nic())).toBe(403);
    expect(await configure('tenant-a', 110, nic(10, '1-4094'))).toBe(403);
    expect(await configure('tenant-a', 110, nic(10, `10;${MGMT_VLAN}`))).toBe(403);
    expect(sim.instance('lab').vms.get(110)!.config.get('net0')).toBeUndefined();
    expect(await configure('tenant-a', 110, nic(10))).toBe(200);
    expect(await configure('tenant-a', 110, nic(10, '10'))).toBe(200);
    // tenant-b uses its own VLAN, and the VIP VLAN is nobody's.
    expect((await client['tenant-a'].call('POST', '/nodes/n1/qemu', { vmid: 111, pool: tenants[0].pool, net0: nic(MGMT_VLAN) })).status).toBe(403);
    expect((await client['tenant-a'].call('POST', '/nodes/n1/qemu', { vmid: 111, pool: tenants[0].pool, net0: nic(10) })).status).toBe(200);
  });

  it('lets an untagged tenant use the bridge untagged only: no VLAN, no trunk', async () => {
    expect(await configure('tenant-u', 310, nic(MGMT_VLAN))).toBe(403);
    expect(await configure('tenant-u', 310, nic(10))).toBe(403);
    expect(await configure('tenant-u', 310, nic(undefined, '1-4094'))).toBe(403);
    expect(await configure('tenant-u', 310, nic())).toBe(200);
  });

  it('refuses to clone a VM whose NIC is on a foreign VLAN (check_bridge_access of the source)', async () => {
    // An administrator's VM on the VIP VLAN in tenant-a's pool: tenant-a may read it, not clone it.
    const created = await admin.call<string>('POST', '/nodes/n1/qemu', { vmid: 120, pool: tenants[0].pool, net0: nic(MGMT_VLAN), scsi0: 'local-lvm:1' });
    expect(await admin.waitForTask(created.data)).toBe('OK');
    expect(
      (await client['tenant-a'].call('POST', '/nodes/n1/qemu/120/clone', { newid: 121, pool: tenants[0].pool, full: 1, storage: 'local-lvm' })).status,
    ).toBe(403);
    // Nor remove that NIC (the NIC removed is checked too).
    expect((await client['tenant-a'].call('PUT', '/nodes/n1/qemu/120/config', { delete: 'net0' })).status).toBe(403);
  });

  it('holds SDN.Use on its own VLAN path only', () => {
    const inst = sim.instance('lab');
    const paths = [
      '/sdn/zones/localnetwork/vmbr0',
      `/sdn/zones/localnetwork/vmbr0/${MGMT_VLAN}`,
      '/sdn/zones/localnetwork/vmbr0/10',
      '/sdn/zones/localnetwork/vmbr0/20',
    ];
    const use = (tenant: string) => paths.filter((p) => inst.privileges(token[tenant], p).includes('SDN.Use'));
    expect(use('tenant-a')).toEqual(['/sdn/zones/localnetwork/vmbr0/10']);
    expect(use('tenant-b')).toEqual(['/sdn/zones/localnetwork/vmbr0/20']);
    expect(use('tenant-u')).toEqual(['/sdn/zones/localnetwork/vmbr0']);
  });
});
