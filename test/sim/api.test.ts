/**
 * The simulator over HTTPS, like a client sees it: several instances with separate state, token
 * authentication, PVE's errors, tasks with parseable UPIDs that finish later, what PVE enforces
 * (unique VM ids, no starting templates, room on storage, privileges), and injected faults.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseLab } from '../../modules/config/load';
import { PveSimulator, instanceSpecsFromLab } from '../../sim';
import { request } from 'node:https';
import { PveClient } from '../../sim/client';

const GiB = 1024 ** 3;
const bigImage = 'https://images.example/huge.qcow2';
let sim: PveSimulator;
let a: PveClient;
let b: PveClient;

beforeAll(async () => {
  sim = await PveSimulator.start({
    taskDurationMs: 100,
    remoteImages: { [bigImage]: { size: 150 * GiB, virtualSize: 200 * GiB } },
    instances: [
      {
        name: 'alpha',
        nodes: [
          { name: 'a1', cpu: 8, memoryMiB: 16384 },
          { name: 'a2', cpu: 8, memoryMiB: 16384 },
        ],
      },
      { name: 'beta', nodes: [{ name: 'b1', cpu: 4, memoryMiB: 8192 }] },
    ],
  });
  a = new PveClient(sim.endpoint('alpha'), sim.adminToken('alpha'));
  b = new PveClient(sim.endpoint('beta'), sim.adminToken('beta'));
});

afterAll(() => sim.stop());

afterEach(() => sim.faults.clear());

/** Creates a small stopped VM and waits for the task. */
async function createVm(client: PveClient, node: string, vmid: number, extra: Record<string, string> = {}) {
  const res = await client.call<string>('POST', `/nodes/${node}/qemu`, {
    vmid,
    name: `vm${vmid}`,
    scsi0: 'local-lvm:4',
    net0: 'model=virtio,bridge=vmbr0',
    ...extra,
  });
  expect(res.status).toBe(200);
  return client.waitForTask(res.data);
}

describe('PVE API simulator', () => {
  it('serves each instance on its own port with its own state and nodes', async () => {
    expect(sim.endpoint('alpha')).not.toEqual(sim.endpoint('beta'));
    expect((await a.call('POST', '/pools', { poolid: 'only-alpha' })).status).toBe(200);
    const pools = await b.call<{ poolid: string }[]>('GET', '/pools');
    expect(pools.data.map((p) => p.poolid)).toEqual([]);
    const nodes = await a.call<{ node: string }[]>('GET', '/nodes');
    expect(nodes.data.map((n) => n.node)).toEqual(['a1', 'a2']);
  });

  it('takes its nodes from the lab description', () => {
    const lab = parseLab(readFileSync(join(__dirname, '../../examples/lab.yaml'), 'utf8'));
    const specs = instanceSpecsFromLab(lab);
    expect(specs.map((s) => [s.name, s.nodes.map((n) => n.name)])).toEqual(lab.proxmox.instances.map((i) => [i.name, i.nodes.map((n) => n.name)]));
  });

  it('rejects requests without a valid API token with 401', async () => {
    const noToken = await new PveClient(sim.endpoint('alpha'), '').call('GET', '/version');
    expect(noToken.status).toBe(401);
    const wrong = await new PveClient(sim.endpoint('alpha'), sim.adminToken('alpha').replace(/=.*/, '=not-the-secret')).call('GET', '/version');
    expect([wrong.status, wrong.reason]).toEqual([401, 'invalid token value!']);
    // Another instance's token is unknown here.
    const other = await new PveClient(sim.endpoint('alpha'), sim.adminToken('beta')).call('GET', '/version');
    expect(other.status).toBe(401);
  });

  it("answers unknown routes like PVE (501) and missing objects with PVE's messages", async () => {
    expect((await a.call('GET', '/nodes/a1/ceph')).status).toBe(501);
    const missing = await a.call('GET', '/nodes/a1/qemu/4242/config');
    expect([missing.status, missing.reason]).toEqual([500, "Configuration file 'nodes/a1/qemu-server/4242.conf' does not exist"]);
    const badParam = await a.call('POST', '/nodes/a1/qemu', { vmid: 'abc' });
    expect(badParam.status).toBe(400);
    expect(badParam.errors?.vmid).toMatch(/integer/);
  });

  it('runs tasks asynchronously under real UPIDs', async () => {
    const res = await a.call<string>('POST', '/nodes/a1/qemu', { vmid: 300, scsi0: 'local-lvm:2' });
    expect(res.data).toMatch(/^UPID:a1:[0-9A-F]{8}:[0-9A-F]{8}:[0-9A-F]{8}:qmcreate:300:root@pam!pvekaas:$/);
    const first = await a.call<{ status: string }>('GET', `/nodes/a1/tasks/${encodeURIComponent(res.data)}/status`);
    expect(first.data.status).toBe('running');
    expect(await a.waitForTask(res.data)).toBe('OK');
    const config = await a.call<Record<string, string>>('GET', '/nodes/a1/qemu/300/config');
    expect(config.data.scsi0).toBe('local-lvm:vm-300-disk-0,size=2G');
  });

  it('keeps VM ids unique across the nodes of an instance', async () => {
    expect(await createVm(a, 'a1', 301)).toBe('OK');
    const again = await a.call('POST', '/nodes/a2/qemu', { vmid: 301 });
    expect([again.status, again.reason]).toEqual([500, "VM 301 already exists on node 'a1'"]);
    expect((await a.call('GET', '/cluster/nextid', { vmid: 301 })).status).toBe(400);
  });

  it('refuses to start a template, and to destroy a running VM', async () => {
    expect(await createVm(a, 'a1', 302)).toBe('OK');
    const tpl = await a.call<string>('POST', '/nodes/a1/qemu/302/template');
    expect(await a.waitForTask(tpl.data)).toBe('OK');
    expect((await a.call<Record<string, string>>('GET', '/nodes/a1/qemu/302/config')).data.scsi0).toMatch(/^local-lvm:base-302-disk-0,/);
    const start = await a.call('POST', '/nodes/a1/qemu/302/status/start');
    expect([start.status, start.reason]).toEqual([500, "you can't start a vm if it's a template"]);

    expect(await createVm(a, 'a1', 303)).toBe('OK');
    expect(await a.waitForTask((await a.call<string>('POST', '/nodes/a1/qemu/303/status/start')).data)).toBe('OK');
    const destroy = await a.call('DELETE', '/nodes/a1/qemu/303');
    expect([destroy.status, destroy.reason]).toEqual([500, 'VM 303 is running - destroy failed']);
  });

  it('fails a download that does not fit on the storage, and disks that cannot shrink', async () => {
    const res = await a.call<string>('POST', '/nodes/a1/storage/local/download-url', { url: bigImage, content: 'import', filename: 'huge.qcow2' });
    expect(res.status).toBe(200);
    expect(await a.waitForTask(res.data)).toMatch(/No space left on device/);
    expect(await createVm(a, 'a1', 304)).toBe('OK');
    const shrink = await a.call('PUT', '/nodes/a1/qemu/304/resize', { disk: 'scsi0', size: '1G' });
    expect([shrink.status, shrink.reason]).toEqual([500, 'shrinking disks is not supported']);
  });

  it('overprovisions a thin pool as PVE does: a disk larger than the lvmthin storage is allocated (LvmThinPlugin checks no free space)', async () => {
    const total = (await a.call<{ total: number }>('GET', '/nodes/a1/storage/local-lvm/status')).data.total;
    const big = await a.call('POST', '/nodes/a1/qemu', { vmid: 305, scsi0: `local-lvm:${Math.ceil(total / 1024 ** 3) + 100}` });
    expect(await a.waitForTask(big.data as string)).toBe('OK');
    expect((await a.call<Record<string, string>>('GET', '/nodes/a1/qemu/305/config')).data.scsi0).toMatch(/^local-lvm:vm-305-disk-0,size=/);
    const grow = await a.call<string>('PUT', '/nodes/a1/qemu/305/resize', { disk: 'scsi0', size: '+1000G' });
    expect(await a.waitForTask(grow.data)).toBe('OK');
  });

  it('only downloads import images with an importable name to a storage that holds them', async () => {
    const wrongStorage = await a.call('POST', '/nodes/a1/storage/local-lvm/download-url', {
      url: 'https://x.example/i.qcow2',
      content: 'import',
      filename: 'i.qcow2',
    });
    expect([wrongStorage.status, wrongStorage.reason]).toEqual([500, "storage 'local-lvm' does not support content type 'import'"]);
    const wrongName = await a.call('POST', '/nodes/a1/storage/local/download-url', { url: 'https://x.example/i.img', content: 'import', filename: 'i.img' });
    expect(wrongName.status).toBe(400);
  });

  it('checks privileges like PVE, including privilege-separated tokens', async () => {
    expect((await a.call('POST', '/access/users', { userid: 'bob@pve' })).status).toBe(200);
    const created = await a.call<{ value: string }>('POST', '/access/users/bob@pve/token/tk', { privsep: 1 });
    const bob = new PveClient(sim.endpoint('alpha'), `bob@pve!tk=${created.data.value}`);
    const denied = await bob.call('POST', '/nodes/a1/qemu', { vmid: 310 });
    expect([denied.status, denied.reason]).toEqual([403, 'Permission check failed (/vms/310, VM.Allocate)']);
    // The token alone is not enough: its user lacks the role.
    expect((await a.call('PUT', '/access/acl', { path: '/vms', roles: 'PVEVMAdmin', tokens: 'bob@pve!tk' })).status).toBe(200);
    expect((await bob.call('POST', '/nodes/a1/qemu', { vmid: 310 })).status).toBe(403);
    expect((await a.call('PUT', '/access/acl', { path: '/vms', roles: 'PVEVMAdmin', users: 'bob@pve' })).status).toBe(200);
    expect(await bob.waitForTask((await bob.call<string>('POST', '/nodes/a1/qemu', { vmid: 310 })).data)).toBe('OK');
    expect((await bob.call('PUT', '/access/acl', { path: '/', roles: 'Administrator', users: 'bob@pve' })).status).toBe(403);
  });

  it('refuses to delete a pool that still has members', async () => {
    expect((await a.call('POST', '/pools', { poolid: 'busy' })).status).toBe(200);
    expect(await createVm(a, 'a2', 320, { pool: 'busy' })).toBe('OK');
    const del = await a.call('DELETE', '/pools', { poolid: 'busy' });
    expect([del.status, del.reason]).toEqual([500, "delete pool failed: pool 'busy' is not empty"]);
  });

  it('injects errors per route a set number of times, with PVE statuses such as 596', async () => {
    sim.faults.set({ routes: [{ method: 'GET', path: '^/version$', status: 596, times: 2 }] });
    const results = [];
    for (let i = 0; i < 3; i++) results.push((await a.call('GET', '/version')).status);
    expect(results).toEqual([596, 596, 200]);
    expect(sim.faults.injected.filter((f) => f.kind === 'route-error')).toHaveLength(2);
  });

  it('fails the same requests for the same seed', async () => {
    const pattern = async () => {
      sim.faults.set({ seed: 7, routes: [{ path: '^/version$', errorRate: 0.5 }] });
      const statuses = [];
      for (let i = 0; i < 12; i++) statuses.push((await a.call('GET', '/version')).status);
      return statuses;
    };
    const first = await pattern();
    expect(first).toContain(500);
    expect(first).toContain(200);
    expect(await pattern()).toEqual(first);
  });

  it('adds latency to a route', async () => {
    sim.faults.set({ routes: [{ path: '^/nodes$', latencyMs: 300 }] });
    const started = Date.now();
    expect((await a.call('GET', '/nodes')).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  });

  it('carries out a delayed write whose client went away, and settled() waits for it', async () => {
    sim.faults.set({ routes: [{ method: 'POST', path: '^/pools$', latencyMs: 600 }] });
    const gone = new Promise<void>((resolve) => {
      const body = 'poolid=client-gone';
      const req = request(
        new URL('api2/json/pools', sim.endpoint('alpha')),
        {
          method: 'POST',
          rejectUnauthorized: false,
          headers: {
            Authorization: `PVEAPIToken=${sim.adminToken('alpha')}`,
            'Content-Type': 'application/x-www-form-urlencoded',
            'Content-Length': body.length,
          },
        },
        () => undefined,
      );
      req.on('error', () => resolve());
      req.end(body);
      // The client is killed while the server delays the write.
      setTimeout(() => req.destroy(), 150);
    });
    await gone;
    const pools = () => sim.snapshot('alpha').pools.map((p) => p.poolid);
    expect(pools()).not.toContain('client-gone');
    await sim.settled(5000);
    expect(pools()).toContain('client-gone');
    sim.faults.clear();
  });

  it('holds stalled tasks until released, and fails tasks on demand', async () => {
    sim.faults.set({ tasks: [{ type: '^qmcreate$', stallMs: 'forever' }] });
    const stalled = await a.call<string>('POST', '/nodes/a2/qemu', { vmid: 330 });
    await new Promise((r) => setTimeout(r, 300));
    expect((await a.call<{ status: string }>('GET', `/nodes/a2/tasks/${encodeURIComponent(stalled.data)}/status`)).data.status).toBe('running');
    expect(sim.instance('alpha').releaseStalledTasks()).toBe(1);
    expect(await a.waitForTask(stalled.data)).toBe('OK');

    sim.faults.set({ tasks: [{ type: '^qmcreate$', failRate: 1, message: 'got timeout', times: 1 }] });
    expect(await a.waitForTask((await a.call<string>('POST', '/nodes/a2/qemu', { vmid: 331 })).data)).toBe('got timeout');
    expect(await a.waitForTask((await a.call<string>('POST', '/nodes/a2/qemu', { vmid: 332 })).data)).toBe('OK');
  });
});
