/**
 * The calls CAPMOX v0.9.0 makes through go-proxmox v0.6.0 (see docs/proxmox.md), answered as
 * Proxmox VE answers them: cluster status, containers, node status, the bootstrap ISO upload and
 * its volume id with a slash, SMBIOS UUIDs, the guest agent, PVE's clone rule for other nodes,
 * content types and templates — and the in-process view the lab twin reads.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PveSimulator, type SimVmView } from '../../sim/simulator';
import { PveClient } from '../../sim/client';
import { multipart, raw } from './support';

const iso = readFileSync(join(__dirname, 'fixtures/capmox-user-data-100.iso'));
let sim: PveSimulator;
let admin: PveClient;
let capi: PveClient;
let capiToken: string;

beforeAll(async () => {
  sim = await PveSimulator.start({
    taskDurationMs: 60,
    agentStartMs: 600,
    instances: [
      {
        name: 'lab',
        nodes: [
          { name: 'n1', cpu: 16, memoryMiB: 65536 },
          { name: 'n2', cpu: 16, memoryMiB: 65536 },
        ],
        storages: [
          { id: 'local', type: 'dir', content: ['backup', 'import', 'iso', 'snippets', 'vztmpl'], capacityGiB: 100 },
          { id: 'local-lvm', type: 'lvmthin', content: ['images', 'rootdir'], capacityGiB: 400 },
          { id: 'shared-lvm', type: 'lvmthin', content: ['images'], capacityGiB: 400, shared: true },
        ],
      },
    ],
  });
  admin = new PveClient(sim.endpoint('lab'), sim.adminToken('lab'));
  // A CAPMOX-like privilege-separated token: VM admin on /vms, datastore rights, no Sys.Audit on /.
  expect((await admin.call('POST', '/access/users', { userid: 'capmox@pve' })).status).toBe(200);
  const token = await admin.call<{ value: string }>('POST', '/access/users/capmox@pve/token/capi', { privsep: 1 });
  capiToken = `capmox@pve!capi=${token.data.value}`;
  for (const subject of [{ users: 'capmox@pve' }, { tokens: 'capmox@pve!capi' }] as Record<string, string>[]) {
    expect((await admin.call('PUT', '/access/acl', { path: '/vms', roles: 'PVEVMAdmin', ...subject })).status).toBe(200);
    expect((await admin.call('PUT', '/access/acl', { path: '/storage', roles: 'PVEDatastoreAdmin', ...subject })).status).toBe(200);
    expect((await admin.call('PUT', '/access/acl', { path: '/nodes', roles: 'PVEAuditor', ...subject })).status).toBe(200);
    expect((await admin.call('PUT', '/access/acl', { path: '/sdn', roles: 'PVESDNUser', ...subject })).status).toBe(200);
  }
  capi = new PveClient(sim.endpoint('lab'), capiToken);
});

afterAll(() => sim.stop());

const view = (vmid: number): SimVmView => sim.listVms().find((v) => v.vmid === vmid)!;

async function ok(client: PveClient, method: string, path: string, params: Record<string, string | number> = {}): Promise<unknown> {
  const res = await client.call<unknown>(method, path, params);
  expect([res.status, res.reason]).toEqual([200, 'OK']);
  if (typeof res.data === 'string' && res.data.startsWith('UPID:')) expect(await client.waitForTask(res.data)).toBe('OK');
  return res.data;
}

/** A template with its disk (and optionally a cloud-init drive) where asked. */
async function template(vmid: number, node: string, disk: string, cloudInit?: string): Promise<void> {
  await ok(admin, 'POST', `/nodes/${node}/qemu`, {
    vmid,
    name: `tpl-${vmid}`,
    scsi0: `${disk}:2`,
    net0: 'virtio,bridge=vmbr0',
    agent: 1,
    ...(cloudInit ? { ide2: `${cloudInit}:cloudinit` } : {}),
  });
  await ok(admin, 'POST', `/nodes/${node}/qemu/${vmid}/template`);
}

describe('CAPMOX path', () => {
  it('answers GET /cluster/status with the cluster and its nodes, and 403 without Sys.Audit on /', async () => {
    const status = await admin.call<Record<string, unknown>[]>('GET', '/cluster/status');
    expect(status.data[0]).toEqual({ type: 'cluster', id: 'cluster', name: 'lab', nodes: 2, quorate: 1, version: 3 });
    expect(status.data.slice(1).map((n) => [n.type, n.name, n.online, n.local, typeof n.ip, n.nodeid])).toEqual([
      ['node', 'n1', 1, 1, 'string', 1],
      ['node', 'n2', 1, 0, 'string', 2],
    ]);
    const denied = await capi.call('GET', '/cluster/status');
    expect([denied.status, denied.reason]).toEqual([403, 'Permission check failed (/, Sys.Audit)']);
  });

  it('lists no containers on a node, and refuses an unknown node', async () => {
    expect((await capi.call('GET', '/nodes/n2/lxc')).data).toEqual([]);
    const unknown = await capi.call('GET', '/nodes/n9/lxc');
    expect([unknown.status, unknown.reason]).toEqual([500, "no such cluster node 'n9'"]);
  });

  it("reports node status with go-proxmox's cpuinfo types (mhz and hvm strings, user_hz a number)", async () => {
    const status = await capi.call<{ cpuinfo: Record<string, unknown>; memory: { total: number }; pveversion: string; loadavg: string[] }>(
      'GET',
      '/nodes/n1/status',
    );
    expect(status.data.cpuinfo).toMatchObject({ cpus: 16, sockets: 1, cores: 16, hvm: '1', user_hz: 100 });
    expect(typeof status.data.cpuinfo.mhz).toBe('string');
    expect(typeof status.data.cpuinfo.model).toBe('string');
    expect(status.data.memory.total).toBe(65536 * 1024 ** 2);
    expect(status.data.pveversion).toMatch(/^pve-manager\/8\.4\.1\/[0-9a-f]{16}$/);
    expect(status.data.loadavg).toHaveLength(3);
  });

  it('takes the bootstrap ISO as a multipart upload, serves and deletes it by a volume id with a slash', async () => {
    const { body, contentType } = multipart({ content: 'iso' }, 'user-data-100.iso', iso);
    const res = await raw(
      sim.endpoint('lab'),
      'POST',
      '/api2/json/nodes/n1/storage/local/upload',
      { Authorization: `PVEAPIToken=${capiToken}`, 'Content-Type': contentType, 'Content-Length': body.length },
      body,
    );
    expect(res.status).toBe(200);
    const upid = res.json!.data as string;
    expect(upid).toMatch(/^UPID:n1:[0-9A-F]{8}:[0-9A-F]{8}:[0-9A-F]{8}:imgcopy::capmox@pve!capi:$/);
    expect(await capi.waitForTask(upid)).toBe('OK');
    // go-proxmox puts the volume id into the path unescaped.
    const got = await raw(sim.endpoint('lab'), 'GET', '/api2/json/nodes/n1/storage/local/content/local:iso/user-data-100.iso', {
      Authorization: `PVEAPIToken=${capiToken}`,
    });
    expect(got.json!.data).toEqual({ path: '/var/lib/vz/template/iso/user-data-100.iso', format: 'iso', size: iso.length, used: iso.length });
    const listed = await capi.call<{ volid: string; content: string }[]>('GET', '/nodes/n1/storage/local/content', { content: 'iso' });
    expect(listed.data.map((v) => v.volid)).toEqual(['local:iso/user-data-100.iso']);
    // Node-local: not on n2.
    expect(
      (
        await raw(sim.endpoint('lab'), 'GET', '/api2/json/nodes/n2/storage/local/content/local:iso/user-data-100.iso', {
          Authorization: `PVEAPIToken=${capiToken}`,
        })
      ).status,
    ).toBe(500);
    const del = await raw(sim.endpoint('lab'), 'DELETE', '/api2/json/nodes/n1/storage/local/content/local:iso/user-data-100.iso', {
      Authorization: `PVEAPIToken=${capiToken}`,
    });
    expect(del.status).toBe(200);
    expect(await capi.waitForTask(del.json!.data as string)).toBe('OK');
    expect((await capi.call<unknown[]>('GET', '/nodes/n1/storage/local/content', { content: 'iso' })).data).toEqual([]);
  });

  it('refuses an upload to a storage without iso content, or with a wrong extension', async () => {
    const upload = async (storage: string, name: string) => {
      const { body, contentType } = multipart({ content: 'iso' }, name, iso);
      return raw(
        sim.endpoint('lab'),
        'POST',
        `/api2/json/nodes/n1/storage/${storage}/upload`,
        { Authorization: `PVEAPIToken=${capiToken}`, 'Content-Type': contentType },
        body,
      );
    };
    const lvm = await upload('local-lvm', 'user-data-101.iso');
    expect([lvm.status, lvm.reason]).toEqual([500, "storage 'local-lvm' does not support 'iso' content"]);
    const wrong = await upload('local', 'user-data-101.txt');
    expect(wrong.status).toBe(400);
    expect(wrong.json!.errors).toEqual({ filename: 'wrong file extension' });
  });

  it('gives every VM an SMBIOS UUID and a clone a new one, and records the token that made each VM', async () => {
    await template(9000, 'n1', 'local-lvm');
    expect(view(9000).uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(view(9000).createdBy).toBe('root@pam!pvekaas');
    await ok(capi, 'POST', '/nodes/n1/qemu/9000/clone', { newid: 100, name: 'worker-a', full: 1 });
    const clone = view(100);
    expect(clone).toMatchObject({ vmid: 100, node: 'n1', name: 'worker-a', template: false, createdBy: 'capmox@pve!capi', cloneOf: 9000, status: 'stopped' });
    expect(clone.uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(clone.uuid).not.toBe(view(9000).uuid);
    const config = await capi.call<Record<string, string>>('GET', '/nodes/n1/qemu/100/config');
    expect(config.data.smbios1).toBe(`uuid=${clone.uuid}`);
  });

  it("refuses a clone to another node when the source uses local storage, whether or not storage is passed (PVE's rule)", async () => {
    const refused = "can't clone VM to node 'n2' (VM uses local storage)";
    const plain = await capi.call('POST', '/nodes/n1/qemu/9000/clone', { newid: 101, target: 'n2', full: 1 });
    expect([plain.status, plain.reason]).toEqual([500, refused]);
    // A shared target storage does not help: PVE looks at the source's volumes.
    const toShared = await capi.call('POST', '/nodes/n1/qemu/9000/clone', { newid: 101, target: 'n2', full: 1, storage: 'shared-lvm' });
    expect([toShared.status, toShared.reason]).toEqual([500, refused]);
    // A local target storage is refused first, for itself.
    const toLocal = await capi.call('POST', '/nodes/n1/qemu/9000/clone', { newid: 101, target: 'n2', full: 1, storage: 'local-lvm' });
    expect([toLocal.status, toLocal.reason]).toEqual([500, "can't clone to non-shared storage 'local-lvm'"]);
    // The source node itself as target is no target at all.
    await ok(capi, 'POST', '/nodes/n1/qemu/9000/clone', { newid: 101, target: 'n1', full: 1 });
    expect(view(101).node).toBe('n1');
  });

  it('clones across nodes from a template whose every volume is shared — and counts a cloud-init drive on local storage', async () => {
    await template(9001, 'n1', 'shared-lvm');
    await ok(capi, 'POST', '/nodes/n1/qemu/9001/clone', { newid: 102, target: 'n2', full: 1 });
    expect(view(102)).toMatchObject({ node: 'n2', disks: [{ key: 'scsi0', storage: 'shared-lvm', sizeGiB: 2 }] });
    await template(9002, 'n1', 'shared-lvm', 'local-lvm');
    const res = await capi.call('POST', '/nodes/n1/qemu/9002/clone', { newid: 103, target: 'n2', full: 1 });
    expect([res.status, res.reason]).toEqual([500, "can't clone VM to node 'n2' (VM uses local storage)"]);
  });

  it('names an unnamed clone Copy-of-VM-<source>, and refuses storage on a linked clone', async () => {
    await ok(capi, 'POST', '/nodes/n1/qemu/9000/clone', { newid: 104 });
    expect(view(104).name).toBe('Copy-of-VM-tpl-9000');
    const linked = await capi.call('POST', '/nodes/n1/qemu/9000/clone', { newid: 105, full: 0, storage: 'local-lvm' });
    expect([linked.status, linked.reason]).toEqual([500, "parameter 'storage' not allowed for linked clones"]);
    const fromVm = await capi.call('POST', '/nodes/n1/qemu/104/clone', { newid: 105, full: 0 });
    expect([fromVm.status, fromVm.reason]).toEqual([500, "Linked clone feature is not supported for drive 'scsi0'"]);
  });

  it('keeps templates templates: no start, no second conversion', async () => {
    const start = await capi.call('POST', '/nodes/n1/qemu/9000/status/start');
    expect([start.status, start.reason]).toEqual([500, "you can't start a vm if it's a template"]);
    const again = await admin.call('POST', '/nodes/n1/qemu/9000/template');
    expect([again.status, again.reason]).toEqual([500, "you can't convert a template to a template"]);
    expect(() => sim.setVmStatus('lab', 9000, 'running')).toThrow(/template/);
  });

  it("checks boot orders like PVE: go-proxmox's ';ide0' for a VM without boot is refused", async () => {
    const bad = await capi.call('POST', '/nodes/n1/qemu/101/config', { boot: ';ide0', ide0: 'none,media=cdrom' });
    expect(bad.status).toBe(400);
    expect(bad.errors).toEqual({ boot: 'invalid format - format error\nboot.legacy: value does not match the regex pattern\n' });
    await ok(capi, 'POST', '/nodes/n1/qemu/101/config', { boot: 'order=scsi0;ide0' });
    const efi = await capi.call('POST', '/nodes/n1/qemu/101/config', { boot: 'order=efidisk0' });
    expect(efi.errors?.boot).toMatch(/invalid boot device 'efidisk0'/);
  });

  it('allocates VM disks only on storages with images content', async () => {
    const res = await capi.call('POST', '/nodes/n1/qemu', { vmid: 106, scsi0: 'local:4' });
    expect(res.status).toBe(400);
    expect(res.errors).toEqual({ storage: "storage 'local' does not support vm images" });
  });

  it('answers the guest agent like PVE: not configured, VM not running, agent not yet running, then os info and exec', async () => {
    await ok(admin, 'POST', '/nodes/n1/qemu', { vmid: 107, scsi0: 'local-lvm:1' });
    const none = await capi.call('GET', '/nodes/n1/qemu/107/agent/get-osinfo');
    expect([none.status, none.reason]).toEqual([500, 'No QEMU guest agent configured']);
    const stopped = await capi.call('GET', '/nodes/n1/qemu/100/agent/get-osinfo');
    expect([stopped.status, stopped.reason]).toEqual([500, 'VM 100 is not running']);
    const started = await capi.call<string>('POST', '/nodes/n1/qemu/100/status/start');
    expect(await capi.waitForTask(started.data)).toBe('OK');
    const early = await capi.call('GET', '/nodes/n1/qemu/100/agent/get-osinfo');
    expect([early.status, early.reason]).toEqual([500, 'QEMU guest agent is not running']);
    await new Promise((r) => setTimeout(r, 650));
    const info = await capi.call<{ result: Record<string, string> }>('GET', '/nodes/n1/qemu/100/agent/get-osinfo');
    expect(info.data.result).toMatchObject({ id: 'ubuntu', machine: 'x86_64' });
    // go-proxmox posts exec as JSON with the command as an array.
    const exec = await raw(
      sim.endpoint('lab'),
      'POST',
      '/api2/json/nodes/n1/qemu/100/agent/exec',
      { Authorization: `PVEAPIToken=${capiToken}`, 'Content-Type': 'application/json' },
      JSON.stringify({ command: ['cloud-init', 'status'], 'input-data': '' }),
    );
    const pid = (exec.json!.data as { pid: number }).pid;
    expect(typeof pid).toBe('number');
    const status = await capi.call('GET', '/nodes/n1/qemu/100/agent/exec-status', { pid });
    expect(status.data).toEqual({ exited: 1, exitcode: 0, 'out-data': 'status: done\n' });
  });

  it('shows the files of the attached bootstrap ISO, and tells listeners about started VMs', async () => {
    const { body, contentType } = multipart({ content: 'iso' }, 'user-data-101.iso', iso);
    const up = await raw(
      sim.endpoint('lab'),
      'POST',
      '/api2/json/nodes/n1/storage/local/upload',
      { Authorization: `PVEAPIToken=${capiToken}`, 'Content-Type': contentType },
      body,
    );
    expect(await capi.waitForTask(up.json!.data as string)).toBe('OK');
    await ok(capi, 'POST', '/nodes/n1/qemu/101/config', { ide0: 'local:iso/user-data-101.iso,media=cdrom' });
    const started: SimVmView[] = [];
    sim.onVmStarted((vm) => started.push(vm));
    await ok(capi, 'POST', '/nodes/n1/qemu/101/status/start');
    expect(started.map((v) => [v.vmid, v.status])).toEqual([[101, 'running']]);
    expect(started[0].cdroms).toEqual([{ key: 'ide0', volid: 'local:iso/user-data-101.iso' }]);
    expect(started[0].bootstrap?.userData).toContain('kubeadm join --token abcdef.0123456789abcdef');
    expect(started[0].bootstrap?.metaData).toContain('instance-id: 6ba7b810-9dad-11d1-80b4-00c04fd430c8');
    expect(started[0].bootstrap?.networkConfig).toContain('10.10.1.10/24');
    // A crash outside the API, and a power-on outside it (which tells the listeners too).
    sim.setVmStatus('lab', 101, 'stopped');
    expect((await capi.call<{ status: string }>('GET', '/nodes/n1/qemu/101/status/current')).data.status).toBe('stopped');
    sim.setVmStatus('lab', 101, 'running');
    expect(started.map((v) => v.vmid)).toEqual([101, 101]);
  });

  it('migrates through the API (offline, or online when running) and in process', async () => {
    const running = await capi.call('POST', '/nodes/n1/qemu/100/migrate', { target: 'n2' });
    expect([running.status, running.reason]).toEqual([500, "can't migrate running VM without --online"]);
    const local = await capi.call('POST', '/nodes/n1/qemu/100/migrate', { target: 'n2', online: 1 });
    expect([local.status, local.reason]).toEqual([500, "can't live migrate attached local disks without with-local-disks option"]);
    const self = await capi.call('POST', '/nodes/n1/qemu/104/migrate', { target: 'n1' });
    expect([self.status, self.errors]).toEqual([400, { target: 'target is local node.' }]);
    await ok(capi, 'POST', '/nodes/n1/qemu/104/migrate', { target: 'n2' });
    expect(view(104)).toMatchObject({ node: 'n2', disks: [{ key: 'scsi0', storage: 'local-lvm', sizeGiB: 2 }] });
    expect((await capi.call('GET', '/nodes/n2/qemu/104/config')).status).toBe(200);
    sim.migrateVm('lab', 104, 'n1');
    expect(view(104).node).toBe('n1');
    expect((await capi.call('GET', '/nodes/n1/qemu/104/config')).status).toBe(200);
    expect(() => sim.migrateVm('lab', 104, 'n9')).toThrow(/no node n9/);
  });
});
