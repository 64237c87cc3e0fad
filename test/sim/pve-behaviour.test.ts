/**
 * Where the simulator used to deviate from Proxmox VE in ways users notice (issue 11, held against
 * bpg/proxmox's acceptance tests): no invented VM names, ticket login with CSRF protection,
 * download-url that really fetches (checksums, real sizes, PVE's check of untrusted images),
 * groups, nested pools, cloud-init regeneration, masked cipassword, trimmed descriptions.
 */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PveClient } from '../../sim/client';
import { PveSimulator } from '../../sim/simulator';
import { qcow2, raw } from './support';

const GiB = 1024 ** 3;
const image = qcow2(2 * GiB);
const notQcow2 = Buffer.from('#!/bin/sh\necho this is not a disk image\n');
let files: Server;
let base: string;
let sim: PveSimulator;
let pve: PveClient;

beforeAll(async () => {
  // The "internet": real files over http on loopback.
  files = createServer((req, res) => {
    const body = req.url === '/noble.qcow2' ? image : req.url === '/script.qcow2' ? notQcow2 : undefined;
    if (!body) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': body.length });
    res.end(req.method === 'HEAD' ? undefined : body);
  });
  await new Promise<void>((r) => files.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
  sim = await PveSimulator.start({ taskDurationMs: 50, instances: [{ name: 'p', nodes: [{ name: 'p1', cpu: 8, memoryMiB: 16384 }] }] });
  pve = new PveClient(sim.endpoint('p'), sim.adminToken('p'));
});

afterAll(async () => {
  await sim.stop();
  await new Promise((r) => files.close(r));
});

async function task(res: { status: number; data: unknown }): Promise<string> {
  expect(res.status).toBe(200);
  return pve.waitForTask(res.data as string);
}

describe('Proxmox VE behaviour', () => {
  it('stores no name for a VM created without one', async () => {
    expect(await task(await pve.call('POST', '/nodes/p1/qemu', { vmid: 200, scsi0: 'local-lvm:1' }))).toBe('OK');
    const config = await pve.call<Record<string, unknown>>('GET', '/nodes/p1/qemu/200/config');
    expect(config.data).not.toHaveProperty('name');
    expect(sim.listVms().find((v) => v.vmid === 200)).not.toHaveProperty('name');
  });

  it('logs in with a password for a ticket, and wants the CSRF token on writes', async () => {
    const endpoint = sim.endpoint('p');
    const wrong = await raw(
      endpoint,
      'POST',
      '/api2/json/access/ticket',
      { 'Content-Type': 'application/x-www-form-urlencoded' },
      'username=root@pam&password=nope',
    );
    expect([wrong.status, wrong.reason]).toEqual([401, 'authentication failure']);
    const login = await raw(
      endpoint,
      'POST',
      '/api2/json/access/ticket',
      { 'Content-Type': 'application/x-www-form-urlencoded' },
      new URLSearchParams({ username: 'root@pam', password: sim.rootPassword('p') }).toString(),
    );
    expect(login.status).toBe(200);
    const { ticket, CSRFPreventionToken, username } = login.json!.data as { ticket: string; CSRFPreventionToken: string; username: string };
    expect(username).toBe('root@pam');
    expect(ticket).toMatch(/^PVE:root@pam:[0-9A-F]{8}::/);
    const cookie = `PVEAuthCookie=${encodeURIComponent(ticket)}`;
    expect((await raw(endpoint, 'GET', '/api2/json/nodes', { Cookie: cookie })).status).toBe(200);
    const noCsrf = await raw(endpoint, 'POST', '/api2/json/pools', { Cookie: cookie, 'Content-Type': 'application/x-www-form-urlencoded' }, 'poolid=ticketed');
    expect(noCsrf.status).toBe(401);
    const withCsrf = await raw(
      endpoint,
      'POST',
      '/api2/json/pools',
      { Cookie: cookie, CSRFPreventionToken, 'Content-Type': 'application/x-www-form-urlencoded' },
      'poolid=ticketed',
    );
    expect(withCsrf.status).toBe(200);
    // A pve-realm user's password works the same way.
    expect((await pve.call('POST', '/access/users', { userid: 'ann@pve', password: 'correct horse' })).status).toBe(200);
    const ann = await raw(
      endpoint,
      'POST',
      '/api2/json/access/ticket',
      { 'Content-Type': 'application/json' },
      JSON.stringify({ username: 'ann', realm: 'pve', password: 'correct horse' }),
    );
    expect((ann.json!.data as { username: string }).username).toBe('ann@pve');
  });

  it('fetches a download for real: size, virtual size and checksum of the bytes served', async () => {
    const sha256 = createHash('sha256').update(image).digest('hex');
    const meta = await pve.call<{ filename: string; size: number }>('GET', '/nodes/p1/query-url-metadata', { url: `${base}/noble.qcow2` });
    expect(meta.data).toMatchObject({ filename: 'noble.qcow2', size: image.length });
    const bad = await pve.call('POST', '/nodes/p1/storage/local/download-url', {
      url: `${base}/noble.qcow2`,
      content: 'import',
      filename: 'bad.qcow2',
      checksum: '0'.repeat(64),
      'checksum-algorithm': 'sha256',
    });
    expect(await task(bad)).toBe(`checksum mismatch: got '${sha256}' != expect '${'0'.repeat(64)}'`);
    const good = await pve.call('POST', '/nodes/p1/storage/local/download-url', {
      url: `${base}/noble.qcow2`,
      content: 'import',
      filename: 'noble.qcow2',
      checksum: sha256,
      'checksum-algorithm': 'sha256',
    });
    expect(await task(good)).toBe('OK');
    const content = await pve.call<{ volid: string; size: number }[]>('GET', '/nodes/p1/storage/local/content', { content: 'import' });
    expect(content.data.map((v) => [v.volid, v.size])).toEqual([['local:import/noble.qcow2', image.length]]);
    // Importing it gives a disk of the image's virtual size.
    expect(await task(await pve.call('POST', '/nodes/p1/qemu', { vmid: 201, scsi0: 'local-lvm:0,import-from=local:import/noble.qcow2' }))).toBe('OK');
    expect(sim.listVms().find((v) => v.vmid === 201)!.disks).toEqual([{ key: 'scsi0', storage: 'local-lvm', sizeGiB: 2 }]);
  });

  it('refuses a file that is not qcow2 for import, and a URL that does not answer', async () => {
    const res = await pve.call('POST', '/nodes/p1/storage/local/download-url', { url: `${base}/script.qcow2`, content: 'import', filename: 'script.qcow2' });
    expect(await task(res)).toMatch(/Image is not in qcow2 format$/);
    expect((await pve.call<unknown[]>('GET', '/nodes/p1/storage/local/content', { content: 'import' })).data).toHaveLength(1);
    const missing = await pve.call('POST', '/nodes/p1/storage/local/download-url', { url: `${base}/gone.qcow2`, content: 'import', filename: 'gone.qcow2' });
    expect(await task(missing)).toBe('download failed: 404 Not Found');
  });

  it('manages groups', async () => {
    expect((await pve.call('POST', '/access/groups', { groupid: 'ops', comment: 'operators' })).status).toBe(200);
    const dup = await pve.call('POST', '/access/groups', { groupid: 'ops' });
    expect([dup.status, dup.reason]).toEqual([500, "create group failed: group 'ops' already exists"]);
    expect((await pve.call('POST', '/access/users', { userid: 'bob@pve', groups: 'ops' })).status).toBe(200);
    expect((await pve.call('GET', '/access/groups')).data).toEqual([{ groupid: 'ops', comment: 'operators', users: 'bob@pve' }]);
    expect((await pve.call('GET', '/access/groups/ops')).data).toEqual({ comment: 'operators', members: ['bob@pve'] });
    expect((await pve.call('DELETE', '/access/groups/ops')).status).toBe(200);
    expect((await pve.call<{ groups: string[] }>('GET', '/access/users/bob@pve')).data.groups).toEqual([]);
  });

  it('nests pools under an existing parent, and keeps a parent with children', async () => {
    const orphan = await pve.call('POST', '/pools', { poolid: 'tenants/a' });
    expect([orphan.status, orphan.reason]).toEqual([500, "parent 'tenants' does not exist"]);
    expect((await pve.call('POST', '/pools', { poolid: 'tenants' })).status).toBe(200);
    expect((await pve.call('POST', '/pools', { poolid: 'tenants/a' })).status).toBe(200);
    expect((await pve.call('POST', '/pools', { poolid: 'a/b/c/d' })).status).toBe(400);
    const parent = await pve.call('DELETE', '/pools', { poolid: 'tenants' });
    expect(parent.status).toBe(500);
    expect((await pve.call<{ poolid: string }[]>('GET', '/pools')).data.map((p) => p.poolid)).toEqual(['tenants', 'tenants/a', 'ticketed']);
    expect((await pve.call('GET', `/pools/${encodeURIComponent('tenants/a')}`)).status).toBe(200);
  });

  it('masks cipassword, drops trailing whitespace of a description, regenerates cloud-init', async () => {
    expect(
      await task(await pve.call('POST', '/nodes/p1/qemu/200/config', { cipassword: 's3cret!', description: 'managed by pvekaas\n\n', ciuser: 'ubuntu' })),
    ).toBe('OK');
    const config = await pve.call<Record<string, string>>('GET', '/nodes/p1/qemu/200/config');
    expect(config.data.cipassword).toBe('**********');
    expect(config.data.description).toBe('managed by pvekaas');
    expect(JSON.stringify(sim.snapshot('p'))).not.toContain('s3cret!');
    expect((await pve.call('PUT', '/nodes/p1/qemu/200/cloudinit')).status).toBe(200);
  });
});
