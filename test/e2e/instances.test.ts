/**
 * End to end: the example lab's instances plus a third one, each a simulated Proxmox VE on its
 * own port; every `proxmox-<instance>` stack synthesized like `npm run synth` does, then
 * `tofu init` + `apply` with the real bpg/proxmox plugin. Checked from the simulator's state:
 * what landed where, that a second plan is empty, what CAPMOX's token may and may not do, that
 * destroy leaves nothing, and that with injected faults re-applying converges.
 *
 * Needs `scripts/toolchain install` (the README test command runs it first). Without the
 * toolchain the suite is skipped with the reason — except in CI, where that is an error.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUILTIN_ROLES } from '../../sim';
import { PveClient } from '../../sim/client';
import { startSimulatedLab, type SimulatedLab } from '../../scripts/lib/lab-run';
import type { InstanceSnapshot } from '../../sim/simulator';
import { missingToolchain, projectRoot } from '../../sim/toolchain';
import { multipart, raw } from '../sim/support';
import {
  type Credentials,
  cloudInitOf,
  comparable,
  exampleLab,
  expectPristine,
  expected,
  instances,
  poolOf,
  sortAcl,
  tenantClient,
  third,
  tokenAcl,
  userAcl,
  v131Sha256,
  v131Url,
} from './instances-expected';

const root = projectRoot();
const missing = missingToolchain(root);
if (missing && process.env.CI) throw new Error(`the e2e suite must run in CI, but the toolchain is missing: ${missing}`);
if (missing) process.stderr.write(`test/e2e: SKIPPED — ${missing}\n`);
const suite = missing ? describe.skip : describe;

suite('instance stacks applied to the simulator with the real bpg/proxmox', () => {
  const work = mkdtempSync(join(tmpdir(), 'pvekaas-e2e-'));
  let run: SimulatedLab;
  const cleanState: Record<string, InstanceSnapshot> = {};

  const apply = (name: string) => run.tofu(name, ['apply', '-auto-approve', '-input=false', '-parallelism=6']);
  const planIsEmpty = async (name: string) => (await run.tofu(name, ['plan', '-detailed-exitcode', '-input=false', '-lock=false'])).code === 0;
  const output = async <T>(name: string, key: string): Promise<T> => {
    const res = await run.tofu(name, ['output', '-json', key]);
    if (res.code !== 0) throw new Error(res.stderr);
    return JSON.parse(res.stdout) as T;
  };

  beforeAll(async () => {
    run = await startSimulatedLab({
      labText: readFileSync(join(root, 'examples/lab.yaml'), 'utf8'),
      labFile: 'examples/lab.yaml',
      work,
      root,
      extraInstances: [third],
      simulator: {
        taskDurationMs: 150,
        remoteImages: { [v131Url]: { size: 700 * 1024 ** 2, virtualSize: 4 * 1024 ** 3, checksums: { sha256: v131Sha256 } } },
      },
    });
    await run.init();
  }, 120_000);

  afterAll(async () => {
    await run?.sim.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('applies every instance stack', async () => {
    const results = await Promise.all(instances.map(apply));
    results.forEach((r, i) => {
      if (r.code !== 0) throw new Error(`apply proxmox-${instances[i]} failed:\n${r.stderr}\n${r.stdout.slice(-3000)}`);
    });
    for (const name of instances) cleanState[name] = run.sim.snapshot(name);
  }, 180_000);

  it.each(instances)('creates the CAPMOX user, roles, token and ACLs on %s', (name) => {
    const s = cleanState[name];
    expect(s.users.map((u) => [u.userid, u.enable])).toEqual([
      ['capmox@pve', true],
      ['root@pam', true],
    ]);
    const e = expected[name];
    expect(s.tokens.filter((t) => t.tokenid.startsWith('capmox@pve')).map((t) => [t.tokenid, t.privsep])).toEqual(
      e.tenants.map((t) => [`capmox@pve!tenant-${t}`, true]),
    );
    expect(s.roles).toEqual({
      CapmoxCloudInit: ['Datastore.Allocate', 'Datastore.AllocateTemplate', 'Datastore.Audit'],
      CapmoxDatastoreAllocateSpace: ['Datastore.AllocateSpace'],
      CapmoxSysAudit: ['Sys.Audit'],
    });
    const aclOf = (subject: string) =>
      sortAcl(s.acl.filter((a) => a.ugid === subject).map((a) => [a.path, a.roleid, a.propagate] as [string, string, boolean]));
    expect({ subject: 'capmox@pve', acl: aclOf('capmox@pve') }).toEqual({ subject: 'capmox@pve', acl: sortAcl(userAcl(name)) });
    for (const tenant of e.tenants) {
      const subject = `capmox@pve!tenant-${tenant}`;
      expect({ subject, acl: aclOf(subject) }).toEqual({ subject, acl: sortAcl(tokenAcl(name, tenant)) });
    }
    expect(s.pools.map((p) => p.poolid)).toEqual([...e.tenants.map((t) => poolOf(name, t)), e.templatePool].sort());
    // One directory storage per tenant for its bootstrap ISOs, under /var/lib/capmox-cloudinit (storage.cloudInitPath's default).
    const made = s.storages.filter((st) => st.path !== undefined);
    expect(made).toEqual(
      e.tenants.map((t) => ({ storage: cloudInitOf(name, t), type: 'dir', content: ['iso'], shared: false, path: `/var/lib/capmox-cloudinit/${t}` })),
    );
  });

  it.each(instances)('builds the tagged templates on the right nodes of %s', (name) => {
    const s = cleanState[name];
    const e = expected[name];
    const built = s.vms.filter((vm) => vm.tags.includes('capi'));
    const want = Object.entries(e.templates).flatMap(([version, nodes]) => Object.entries(nodes).map(([node, vmid]) => ({ vmid, node, version })));
    expect(built.map((vm) => ({ vmid: vm.vmid, node: vm.node, version: vm.tags.find((t) => t.startsWith('v1.')) })).sort((a, b) => a.vmid - b.vmid)).toEqual(
      want.sort((a, b) => a.vmid - b.vmid),
    );
    for (const vm of built) {
      expect({ vmid: vm.vmid, template: vm.template, status: vm.status, pool: vm.pool, tags: vm.tags }).toEqual({
        vmid: vm.vmid,
        template: true,
        status: 'stopped',
        pool: e.templatePool,
        tags: ['capi', vm.tags.find((t) => t.startsWith('v1.'))],
      });
      expect(vm.config.scsi0).toMatch(new RegExp(`^${e.disks}:base-${vm.vmid}-disk-0,.*size=20G$`));
      // No NIC: CAPMOX adds net0 with the tenant's VLAN, and PVE checks the template's NICs on clone.
      expect(Object.keys(vm.config).filter((k) => /^net\d+$/.test(k))).toEqual([]);
      // The image was downloaded to that same node, where the import read it.
      expect(s.volumes.some((v) => v.node === vm.node && v.content === 'import' && v.volid.includes(vm.tags.find((t) => t.startsWith('v1.'))!))).toBe(true);
    }
    if (name === 'pmox-txl') {
      // templateID: the existing template is kept, nothing is built.
      expect(s.vms.map((vm) => [vm.vmid, vm.template])).toEqual([[1000, true]]);
    }
  });

  it('keeps each instance to its own simulator', () => {
    expect(cleanState['pmox-txl'].vms.some((vm) => vm.vmid >= 7000)).toBe(false);
    expect(cleanState['pmox-ber'].vms.some((vm) => vm.vmid >= 9000)).toBe(false);
    expect(cleanState['pmox-fra'].volumes.some((v) => v.volid.startsWith('fast-thin:'))).toBe(false);
  });

  it.each(instances)('outputs per-tenant credentials that authenticate on %s, the template ids and the nodes', async (name) => {
    const creds = await output<Credentials>(name, 'credentials');
    expect(creds.url).toBe(run.sim.endpoint(name).replace(/\/$/, ''));
    expect(Object.keys(creds.tenants)).toEqual(expected[name].tenants);
    for (const tenant of expected[name].tenants) {
      expect(creds.tenants[tenant].token).toBe(`capmox@pve!tenant-${tenant}`);
      expect((await tenantClient(creds, tenant).call('GET', '/version')).status).toBe(200);
    }
    expect(await output(name, 'templates')).toEqual(expected[name].templates);
    expect(await output(name, 'nodes')).toEqual(
      run.lab.proxmox.instances
        .find((i) => i.name === name)!
        .nodes.map((n) => n.name)
        .sort(),
    );
  });

  it('keeps the API tokens out of the synthesized stacks', () => {
    for (const name of instances) {
      const text = readFileSync(join(run.stackDir(name), 'cdk.tf.json'), 'utf8');
      expect(text).not.toContain(run.sim.adminToken(name).split('=')[1]);
      expect(text).toContain('"sensitive": true');
    }
  });

  it.each(instances)('has nothing left to do on a second plan of %s', async (name) => {
    expect(await planIsEmpty(name)).toBe(true);
  });

  it("lets a tenant's CAPMOX token do what CAPMOX does, and no more", async () => {
    const name = 'pmox-fra';
    const creds = await output<Credentials>(name, 'credentials');
    const capmox = tenantClient(creds, 'tenant-c');
    const inst = run.sim.instance(name);
    const authid = creds.tenants['tenant-c'].token;
    const pool = poolOf(name, 'tenant-c');

    // Finds the templates by tags, cluster-wide.
    const vms = await capmox.call<{ vmid: number; tags?: string; template?: number }[]>('GET', '/cluster/resources', { type: 'vm' });
    expect(
      vms.data
        .filter((v) => v.template === 1 && v.tags === 'capi;v1.35.4')
        .map((v) => v.vmid)
        .sort(),
    ).toEqual(Object.values(expected[name].templates['v1.35.4']).sort());
    // Clones a template into its pool on the template's node, configures, resizes, starts, stops and deletes the machine.
    const disks = expected[name].disks;
    const before = run.sim.snapshot(name).vms.map((vm) => vm.vmid);
    const clone = await capmox.call<string>('POST', '/nodes/pmox-fra-1/qemu/9036/clone', {
      newid: 150,
      name: 'tenant-c-workers-x1',
      pool,
      full: 1,
      storage: disks,
    });
    expect([clone.status, clone.reason]).toEqual([200, 'OK']);
    expect(await capmox.waitForTask(clone.data)).toBe('OK');
    expect(
      (
        await capmox.call('PUT', '/nodes/pmox-fra-1/qemu/150/config', {
          cores: 4,
          memory: 8192,
          net0: 'virtio,bridge=vmbr0',
          ipconfig0: 'ip=10.10.1.10/24,gw=10.10.1.1',
        })
      ).status,
    ).toBe(200);
    expect(await capmox.waitForTask((await capmox.call<string>('PUT', '/nodes/pmox-fra-1/qemu/150/resize', { disk: 'scsi0', size: '40G' })).data)).toBe('OK');
    expect(await capmox.waitForTask((await capmox.call<string>('POST', '/nodes/pmox-fra-1/qemu/150/status/start')).data)).toBe('OK');
    expect(await capmox.waitForTask((await capmox.call<string>('POST', '/nodes/pmox-fra-1/qemu/150/status/stop')).data)).toBe('OK');
    expect(await capmox.waitForTask((await capmox.call<string>('DELETE', '/nodes/pmox-fra-1/qemu/150', { purge: 1 })).data)).toBe('OK');

    // No more: everything else is refused with 403 — the downloaded node image included.
    const image = run.sim.snapshot(name).volumes.find((v) => v.content === 'import' && v.node === 'pmox-fra-1')!;
    expect(image.volid).toMatch(/^local:import\//);
    const refused: [string, string, Record<string, string | number>][] = [
      ['POST', '/nodes/pmox-fra-1/qemu/9036/clone', { newid: 151, full: 1 }], // outside its pool
      // Another storage: one that exists (PVE answers 500 "storage 'x' does not exist" for one that does not).
      ['POST', '/nodes/pmox-fra-1/qemu/9036/clone', { newid: 151, full: 1, pool, storage: 'local' }],
      ['POST', '/nodes/pmox-fra-1/qemu/9036/status/start', {}], // a template
      ['PUT', '/nodes/pmox-fra-1/qemu/9036/config', { cores: 8 }],
      ['DELETE', '/nodes/pmox-fra-1/qemu/9036', {}],
      ['DELETE', `/nodes/pmox-fra-1/storage/local/content/${image.volid}`, {}], // the node image
      ['POST', '/access/users', { userid: 'mallory@pve' }],
      ['PUT', '/access/acl', { path: '/', roles: 'Administrator', tokens: authid }],
      ['POST', '/access/roles', { roleid: 'More', privs: 'Sys.Modify' }],
      ['POST', '/pools', { poolid: 'elsewhere' }],
      ['POST', '/nodes/pmox-fra-1/storage/local/download-url', { url: 'https://x.example/a.qcow2', content: 'import', filename: 'a.qcow2' }],
    ];
    for (const [method, path, params] of refused) {
      const res = await capmox.call(method, path, params);
      expect({ method, path, status: res.status }).toEqual({ method, path, status: 403 });
    }
    expect(run.sim.snapshot(name).volumes.some((v) => v.volid === image.volid)).toBe(true);

    // And the exact privileges it holds where CAPMOX works, from the permission model.
    const vmAdmin = [...BUILTIN_ROLES.PVEVMAdmin].sort();
    const held: Record<string, string[]> = {
      '/': ['Sys.Audit'],
      '/nodes/pmox-fra-1': ['Sys.Audit'],
      '/vms/9036': ['VM.Audit', 'VM.Clone'],
      [`/pool/${pool}`]: vmAdmin,
      '/vms/4242': [],
      // The bridge untagged only (tenant-c has no VLAN): no VLAN, so no VIP VLAN and no trunk.
      '/sdn/zones/localnetwork/vmbr0': ['SDN.Audit', 'SDN.Use'],
      '/sdn/zones/localnetwork/vmbr0/10': [],
      '/sdn/zones/localnetwork/vmbr0/4': [],
      [`/storage/${disks}`]: ['Datastore.AllocateSpace'],
      // Its own cloud-init storage: upload, find and delete the ISOs; no disk space there.
      [`/storage/${cloudInitOf(name, 'tenant-c')}`]: ['Datastore.Allocate', 'Datastore.AllocateTemplate', 'Datastore.Audit'],
      // The shared storage of before: nothing.
      '/storage/capmox-cloudinit': [],
      // The image storage: nothing at all.
      '/storage/local': [],
      '/storage/scratch': [],
      '/access': [],
      '/access/groups': [],
    };
    for (const [path, privs] of Object.entries(held)) expect({ path, privs: inst.privileges(authid, path) }).toEqual({ path, privs });
    expect(run.sim.snapshot(name).vms.map((vm) => vm.vmid)).toEqual(before);
  }, 60_000);

  it("keeps each tenant's token to its own VMs: another tenant's cannot read, stop or delete them", async () => {
    const name = 'pmox-txl';
    const creds = await output<Credentials>(name, 'credentials');
    const a = tenantClient(creds, 'tenant-a');
    const b = tenantClient(creds, 'tenant-b');
    // tenant-a's machine, cloned from the existing template into tenant-a's pool, and started.
    const disks = expected[name].disks;
    const clone = await a.call<string>('POST', '/nodes/pmox-txl-1/qemu/1000/clone', {
      newid: 160,
      name: 'tenant-a-workers-y1',
      pool: poolOf(name, 'tenant-a'),
      full: 1,
      storage: disks,
    });
    expect([clone.status, clone.reason]).toEqual([200, 'OK']);
    expect(await a.waitForTask(clone.data)).toBe('OK');
    expect(await a.waitForTask((await a.call<string>('POST', '/nodes/pmox-txl-1/qemu/160/status/start')).data)).toBe('OK');

    const refused: [string, string, Record<string, string | number>][] = [
      ['GET', '/nodes/pmox-txl-1/qemu/160/config', {}],
      ['GET', '/nodes/pmox-txl-1/qemu/160/status/current', {}],
      ['POST', '/nodes/pmox-txl-1/qemu/160/status/stop', {}],
      ['PUT', '/nodes/pmox-txl-1/qemu/160/config', { cores: 1 }],
      ['DELETE', '/nodes/pmox-txl-1/qemu/160', { purge: 1 }],
      // nor put a machine into tenant-a's pool
      ['POST', '/nodes/pmox-txl-1/qemu/1000/clone', { newid: 161, full: 1, pool: poolOf(name, 'tenant-a'), storage: disks }],
    ];
    for (const [method, path, params] of refused) {
      const res = await b.call(method, path, params);
      expect({ method, path, status: res.status }).toEqual({ method, path, status: 403 });
    }
    const vm = run.sim.snapshot(name).vms.find((v) => v.vmid === 160)!;
    expect({ status: vm.status, pool: vm.pool }).toEqual({ status: 'running', pool: poolOf(name, 'tenant-a') });
    const bAuthid = creds.tenants['tenant-b'].token;
    expect(run.sim.instance(name).privileges(bAuthid, '/vms/160')).toEqual([]);

    // tenant-a itself stops and deletes it.
    expect(await a.waitForTask((await a.call<string>('POST', '/nodes/pmox-txl-1/qemu/160/status/stop')).data)).toBe('OK');
    expect(await a.waitForTask((await a.call<string>('DELETE', '/nodes/pmox-txl-1/qemu/160', { purge: 1 })).data)).toBe('OK');
    expect(run.sim.snapshot(name).vms.map((v) => v.vmid)).toEqual([1000]);
  }, 60_000);

  it("keeps each tenant's token from another tenant's bootstrap ISO and from VLANs not its own", async () => {
    const name = 'pmox-txl';
    const creds = await output<Credentials>(name, 'credentials');
    const a = tenantClient(creds, 'tenant-a');
    const b = tenantClient(creds, 'tenant-b');
    const storageA = cloudInitOf(name, 'tenant-a');
    const storageB = cloudInitOf(name, 'tenant-b');
    const disks = expected[name].disks;
    // Each token finds exactly one storage with iso content, its own: the one go-proxmox uploads to.
    for (const [tenant, client] of [
      ['tenant-a', a],
      ['tenant-b', b],
    ] as const) {
      const seen = await client.call<{ storage: string; content: string }[]>('GET', '/nodes/pmox-txl-1/storage');
      expect({ tenant, iso: seen.data.filter((st) => st.content.split(',').includes('iso')).map((st) => st.storage) }).toEqual({
        tenant,
        iso: [cloudInitOf(name, tenant)],
      });
    }
    // tenant-b's bootstrap ISO (kubeadm join data), uploaded by tenant-b as CAPMOX does.
    const upload = async (client: PveClient, storage: string, file: string) => {
      const { body, contentType } = multipart({ content: 'iso' }, file, Buffer.from('#cloud-config\n'.padEnd(4096, ' ')));
      const res = await raw(
        client.endpoint,
        'POST',
        `/api2/json/nodes/pmox-txl-1/storage/${storage}/upload`,
        { Authorization: `PVEAPIToken=${client.token}`, 'Content-Type': contentType, 'Content-Length': body.length },
        body,
      );
      if (res.status === 200) expect(await client.waitForTask(String(res.json?.data))).toBe('OK');
      return res.status;
    };
    expect(await upload(b, storageB, 'user-data-170.iso')).toBe(200);
    const isoB = `${storageB}:iso/user-data-170.iso`;
    // tenant-a's machine in its pool, cloned from the existing template.
    const clone = await a.call<string>('POST', '/nodes/pmox-txl-1/qemu/1000/clone', {
      newid: 171,
      name: 'tenant-a-workers-z1',
      pool: poolOf(name, 'tenant-a'),
      full: 1,
      storage: disks,
    });
    expect(await a.waitForTask(clone.data)).toBe('OK');

    const refused: [string, string, string, Record<string, string | number>][] = [
      ["list tenant-b's ISOs", 'GET', `/nodes/pmox-txl-1/storage/${storageB}/content`, {}],
      ["read tenant-b's ISO", 'GET', `/nodes/pmox-txl-1/storage/${storageB}/content/${isoB}`, {}],
      ["attach tenant-b's ISO to its own VM", 'POST', '/nodes/pmox-txl-1/qemu/171/config', { ide0: `${isoB},media=cdrom` }],
      ["delete tenant-b's ISO", 'DELETE', `/nodes/pmox-txl-1/storage/${storageB}/content/${isoB}`, {}],
      [
        'a NIC on the management VIP VLAN',
        'POST',
        '/nodes/pmox-txl-1/qemu/171/config',
        { net0: `virtio,bridge=vmbr0,tag=${exampleLab.management.loadBalancer.vlan}` },
      ],
      ['a NIC trunking every VLAN', 'POST', '/nodes/pmox-txl-1/qemu/171/config', { net0: 'virtio,bridge=vmbr0,trunks=1-4094' }],
      ['a new VM on the VIP VLAN', 'POST', '/nodes/pmox-txl-1/qemu', { vmid: 172, pool: poolOf(name, 'tenant-a'), net0: 'virtio,bridge=vmbr0,tag=4' }],
    ];
    for (const [what, method, path, params] of refused) {
      const res = await a.call(method, path, params);
      expect({ what, status: res.status }).toEqual({ what, status: 403 });
    }
    // Replacing it: an upload of the same name to tenant-b's storage.
    expect(await upload(a, storageB, 'user-data-170.iso')).toBe(403);
    expect(
      run.sim
        .snapshot(name)
        .volumes.filter((v) => v.volid === isoB)
        .map((v) => v.size),
    ).toEqual([4096]);
    expect(run.sim.snapshot(name).vms.find((v) => v.vmid === 171)!.config).not.toHaveProperty('ide0');
    // The same calls on its own ISO and its own network succeed.
    expect(await upload(a, storageA, 'user-data-171.iso')).toBe(200);
    const attach = await a.call<string>('POST', '/nodes/pmox-txl-1/qemu/171/config', {
      ide0: `${storageA}:iso/user-data-171.iso,media=cdrom`,
      net0: 'virtio,bridge=vmbr0',
    });
    expect(attach.status).toBe(200);
    expect(await a.waitForTask(attach.data)).toBe('OK');
    expect(await a.waitForTask((await a.call<string>('POST', '/nodes/pmox-txl-1/qemu/171/config', { delete: 'ide0' })).data)).toBe('OK');
    expect(await a.waitForTask((await a.call<string>('DELETE', `/nodes/pmox-txl-1/storage/${storageA}/content/${storageA}:iso/user-data-171.iso`)).data)).toBe(
      'OK',
    );
    expect(await b.waitForTask((await b.call<string>('DELETE', `/nodes/pmox-txl-1/storage/${storageB}/content/${isoB}`)).data)).toBe('OK');
    expect(await a.waitForTask((await a.call<string>('DELETE', '/nodes/pmox-txl-1/qemu/171', { purge: 1 })).data)).toBe('OK');
    expect(run.sim.snapshot(name).vms.map((v) => v.vmid)).toEqual([1000]);
  }, 60_000);

  it('leaves nothing behind on destroy', async () => {
    const results = await Promise.all(instances.map((n) => run.tofu(n, ['destroy', '-auto-approve', '-input=false', '-parallelism=6'])));
    results.forEach((r, i) => {
      if (r.code !== 0) throw new Error(`destroy proxmox-${instances[i]} failed:\n${r.stderr}`);
    });
    for (const name of instances) expectPristine(run.sim.snapshot(name));
  }, 120_000);

  it('converges by re-applying when the API fails, stalls and loses tasks', async () => {
    run.sim.faults.set({
      seed: 42,
      routes: [
        { method: 'POST', path: '^/pools$', status: 500, message: "cfs-lock 'file-user_cfg' error: got lock request timeout", times: 2 },
        { method: 'PUT', path: '^/access/acl$', errorRate: 0.25, status: 500, message: "cfs-lock 'file-user_cfg' error: got lock request timeout", times: 3 },
        { method: 'GET', path: '^/nodes/[^/]+/tasks/[^/]+/status$', errorRate: 0.1, status: 596, times: 2 },
        { method: 'POST', path: '^/nodes/[^/]+/qemu$', latencyMs: 300 },
      ],
      tasks: [
        { type: '^download$', failRate: 1, times: 1, message: 'download failed: 504 Gateway Time-out' },
        { type: '^qmcreate$', stallMs: 1500, times: 2 },
      ],
    });
    const attempts: Record<string, number[]> = {};
    const errors: Record<string, string> = {};
    await Promise.all(
      instances.map(async (name) => {
        attempts[name] = [];
        for (let i = 0; i < 6; i++) {
          const r = await apply(name);
          attempts[name].push(r.code);
          if (r.code === 0) return;
          errors[name] = `${errors[name] ?? ''}\n--- attempt ${i + 1}:\n${r.stderr.replace(/\x1b\[[0-9;]*m/g, '')}`;
        }
      }),
    );
    const injected = run.sim.faults.injected.filter((f) => f.kind !== 'latency');
    run.sim.faults.clear();
    expect(injected.length).toBeGreaterThan(0);
    expect(Object.values(attempts).flat()).toContain(1);
    for (const name of instances) {
      expect({ name, last: attempts[name].at(-1), errors: attempts[name].at(-1) === 0 ? '' : errors[name] }).toEqual({ name, last: 0, errors: '' });
      expect({ name, planEmpty: await planIsEmpty(name) }).toEqual({ name, planEmpty: true });
      expect(comparable(run.sim.snapshot(name))).toEqual(comparable(cleanState[name]));
    }
  }, 300_000);

  it('still leaves nothing behind after the faulty run', async () => {
    const results = await Promise.all(instances.map((n) => run.tofu(n, ['destroy', '-auto-approve', '-input=false', '-parallelism=6'])));
    results.forEach((r, i) => {
      if (r.code !== 0) throw new Error(`destroy proxmox-${instances[i]} failed:\n${r.stderr}`);
    });
    for (const name of instances) expectPristine(run.sim.snapshot(name));
  }, 120_000);
});
