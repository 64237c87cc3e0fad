/**
 * The `proxmox-<instance>` stack as synthesized (no engine needed): what it asks the provider for,
 * where the secrets come from, and the template VM ids (stable when versions come and go).
 * The apply against the simulator is in instances.test.ts.
 */
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Testing } from 'cdktf';
import fc from 'fast-check';
import { templateVmIds } from '../../modules/config/template-ids';
import { ProblemError } from '../../modules/config/problems';
import { renderInstance, tenantsOnInstance } from '../../modules/rendering/instance';
import { parseLab } from '../../modules/config/load';
import type { Lab } from '../../modules/config/schema';
import { planPlacement } from '../../modules/placement';
import { ProxmoxInstanceStack } from '../../stacks/proxmox-instance-stack';

const exampleText = readFileSync(join(__dirname, '../../examples/lab.yaml'), 'utf8');

interface Synthesized {
  provider: { proxmox: Record<string, unknown>[] };
  variable: Record<string, { sensitive?: boolean; type?: string }>;
  output: Record<string, { sensitive?: boolean; value: unknown }>;
  resource: Record<string, Record<string, Record<string, unknown>>>;
}

function synth(lab: Lab, instanceName: string, plan = planPlacement(lab)): Synthesized {
  const app = Testing.app();
  const instance = lab.proxmox.instances.find((i) => i.name === instanceName)!;
  const stack = new ProxmoxInstanceStack(app, `proxmox-${instance.name}`, { rendering: renderInstance(instance, tenantsOnInstance(plan, instance.name)) });
  return JSON.parse(Testing.synth(stack)) as Synthesized;
}

const resources = (s: Synthesized, type: string) => Object.values(s.resource[type] ?? {});

/** An ACL's role as a name: custom roles are referenced (`${proxmox_virtual_environment_role.<id>.role_id}`), built-in ones named. */
const roleOf = (s: Synthesized, acl: Record<string, unknown>): string => {
  const ref = /^\$\{proxmox_virtual_environment_role\.([^.]+)\.role_id\}$/.exec(String(acl.role_id));
  return ref ? String(s.resource.proxmox_virtual_environment_role[ref[1]].role_id) : String(acl.role_id);
};

describe('the instance stack, synthesized', () => {
  const lab = parseLab(exampleText);
  const fra = synth(lab, 'pmox-fra');
  const txl = synth(lab, 'pmox-txl');

  it('configures the provider from the description and a sensitive variable, without SSH', () => {
    expect(fra.provider.proxmox).toEqual([{ endpoint: 'https://pmox-fra.lab.example:8006/', insecure: false, api_token: '${var.proxmox_api_token}' }]);
    expect(fra.variable.proxmox_api_token).toMatchObject({ sensitive: true, type: 'string' });
  });

  // The example's placement: tenant-c spreads over both instances, tenant-a and tenant-b stay on pmox-txl.
  const onFra = ['tenant-c'];
  const onTxl = ['tenant-a', 'tenant-b', 'tenant-c'];

  it("outputs the CAPMOX credentials per tenant as sensitive, derived from each tenant's token resource", () => {
    expect(fra.output.credentials.sensitive).toBe(true);
    const value = fra.output.credentials.value as { url: string; tenants: Record<string, { token: string; secret: string }> };
    expect(value.url).toBe('https://pmox-fra.lab.example:8006');
    expect(Object.keys(value.tenants)).toEqual(onFra);
    expect(Object.keys((txl.output.credentials.value as typeof value).tenants)).toEqual(onTxl);
    for (const t of Object.values(value.tenants)) {
      expect(t.token).toMatch(/^\$\{proxmox_user_token\.[^.]+\.id\}$/);
      expect(t.secret).toMatch(/^\$\{element\(split\("=", proxmox_user_token\.[^.]+\.value\), 1\)\}$/);
    }
  });

  it('makes one pool and one privilege-separated token per tenant, whose VM privileges cover its own pool only', () => {
    expect(
      resources(txl, 'proxmox_virtual_environment_pool')
        .map((p) => p.pool_id)
        .sort(),
    ).toEqual(['capi-tenant-a', 'capi-tenant-b', 'capi-tenant-c', 'templates']);
    const tokens = resources(txl, 'proxmox_user_token');
    expect(tokens.map((t) => [t.token_name, t.privileges_separation]).sort()).toEqual(onTxl.map((t) => [`tenant-${t}`, true]));
    const acls = resources(txl, 'proxmox_acl');
    const forUser = acls
      .filter((a) => 'user_id' in a)
      .map((a) => `${a.path} ${roleOf(txl, a)}`)
      .sort();
    // The user holds every grant (a separated token holds the intersection with its user's).
    expect(forUser).toEqual(
      [
        '/ CapmoxSysAudit',
        '/nodes CapmoxSysAudit',
        '/vms/1000 PVETemplateUser',
        '/sdn/zones/localnetwork/vmbr0 PVESDNUser',
        `/storage/${lab.proxmox.instances.find((i) => i.name === 'pmox-txl')!.storage.disks} CapmoxDatastoreAllocateSpace`,
        ...onTxl.map((t) => `/pool/capi-${t} PVEVMAdmin`),
        ...onTxl.map((t) => `/storage/capmox-cloudinit-${t} CapmoxCloudInit`),
      ].sort(),
    );
    // Each token: the shared grants, the VM admin role on its own pool and its own cloud-init storage, nothing of another tenant.
    const tokenOf = (tenant: string) => tokens.find((t) => t.token_name === `tenant-${tenant}`)!;
    for (const tenant of onTxl) {
      const ref = new RegExp(
        `^\\$\\{proxmox_user_token\\.${String(Object.entries(txl.resource.proxmox_user_token).find(([, v]) => v === tokenOf(tenant))![0])}\\.id\\}$`,
      );
      const mine = acls
        .filter((a) => typeof a.token_id === 'string' && ref.test(a.token_id))
        .map((a) => `${a.path} ${roleOf(txl, a)}`)
        .sort();
      const others = onTxl.filter((t) => t !== tenant).flatMap((t) => [`/pool/capi-${t} PVEVMAdmin`, `/storage/capmox-cloudinit-${t} CapmoxCloudInit`]);
      expect({ tenant, mine }).toEqual({ tenant, mine: forUser.filter((g) => !others.includes(g)) });
    }
  });

  it("grants each tenant's cloud-init storage exactly what CAPMOX needs for its ISOs, and no datastore privilege elsewhere but disk space", () => {
    const roles = Object.fromEntries(resources(fra, 'proxmox_virtual_environment_role').map((r) => [r.role_id, r.privileges]));
    expect(roles).toEqual({
      CapmoxCloudInit: ['Datastore.Allocate', 'Datastore.AllocateTemplate', 'Datastore.Audit'],
      CapmoxDatastoreAllocateSpace: ['Datastore.AllocateSpace'],
      CapmoxSysAudit: ['Sys.Audit'],
    });
    const storageGrants = resources(fra, 'proxmox_acl').filter((a) => String(a.path).startsWith('/storage/'));
    expect([...new Set(storageGrants.map((a) => `${a.path} ${roleOf(fra, a)}`))].sort()).toEqual([
      '/storage/capmox-cloudinit-tenant-c CapmoxCloudInit',
      `/storage/${lab.proxmox.instances.find((i) => i.name === 'pmox-fra')!.storage.disks} CapmoxDatastoreAllocateSpace`,
    ]);
  });

  it("builds one tagged template per image and node (the image's nodes, default the first by name), and none where the lab names an existing template", () => {
    // The example's pmox-fra image nodes; ids 9036, 9037, 9038 for pmox-fra-1..3 (docs/proxmox.md, "Template VM ids").
    const nodes = [...(lab.proxmox.instances.find((i) => i.name === 'pmox-fra')!.images[0].nodes ?? ['pmox-fra-1'])].sort();
    const vms = resources(fra, 'proxmox_virtual_environment_vm');
    expect(vms.map((vm) => [vm.node_name, vm.vm_id, vm.tags, vm.template, vm.started])).toEqual(
      nodes.map((n) => [n, 9036 + ['pmox-fra-1', 'pmox-fra-2', 'pmox-fra-3'].indexOf(n), ['capi', 'v1.35.4'], true, false]),
    );
    for (const vm of vms) expect((vm.disk as { import_from: string }[])[0].import_from).toMatch(/^\$\{proxmox_download_file\./);
    expect(resources(fra, 'proxmox_download_file').map((d) => [d.node_name, d.content_type, d.file_name])).toEqual(
      nodes.map((n) => [n, 'import', 'pvekaas-v1.35.4.qcow2']),
    );
    expect(resources(txl, 'proxmox_virtual_environment_vm')).toEqual([]);
    expect(resources(txl, 'proxmox_acl').some((a) => a.path === '/vms/1000' && a.role_id === 'PVETemplateUser')).toBe(true);
  });

  it('names resources after the lab, not after list positions', () => {
    const reordered = parseLab(exampleText);
    const fraInstance = reordered.proxmox.instances.find((i) => i.name === 'pmox-fra')!;
    fraInstance.nodes.reverse();
    reordered.proxmox.instances.reverse();
    // The same placement (reordering instances changes the default instance, hence the plan).
    expect(synth(reordered, 'pmox-fra', planPlacement(lab))).toEqual(fra);
  });

  it('synthesizes the same bytes twice', () => {
    const once = (dir: string) => {
      const app = new App({ outdir: dir });
      const instance = lab.proxmox.instances[1];
      new ProxmoxInstanceStack(app, `proxmox-${instance.name}`, { rendering: renderInstance(instance, tenantsOnInstance(planPlacement(lab), instance.name)) });
      app.synth();
      return readFileSync(join(dir, 'stacks', `proxmox-${instance.name}`, 'cdk.tf.json'), 'utf8');
    };
    const [a, b] = [mkdtempSync(join(tmpdir(), 'pvekaas-a-')), mkdtempSync(join(tmpdir(), 'pvekaas-b-'))];
    try {
      expect(once(a).replace(a, '')).toEqual(once(b).replace(b, ''));
    } finally {
      rmSync(a, { recursive: true, force: true });
      rmSync(b, { recursive: true, force: true });
    }
  });
});

describe('template VM ids', () => {
  const range = { start: 9000, end: 9049 };
  const nodes = ['pmox-fra-1', 'pmox-fra-2', 'pmox-fra-3'];
  const version = fc.tuple(fc.integer({ min: 20, max: 40 }), fc.integer({ min: 0, max: 20 })).map(([minor, patch]) => `v1.${minor}.${patch}`);

  it('puts each version in its own block of one id per node, in node-name order', () => {
    const ids = templateVmIds('pmox-fra', range, nodes, ['v1.35.4', 'v1.36.1']);
    // 50 ids / 3 nodes = 16 slots = 4 minors × 4 patches: v1.35.4 → 3·4+0 = 12, v1.36.1 → 0·4+1 = 1.
    expect(Object.fromEntries([...ids].map(([v, m]) => [v, Object.fromEntries(m)]))).toEqual({
      'v1.35.4': { 'pmox-fra-1': 9036, 'pmox-fra-2': 9037, 'pmox-fra-3': 9038 },
      'v1.36.1': { 'pmox-fra-1': 9003, 'pmox-fra-2': 9004, 'pmox-fra-3': 9005 },
    });
  });

  it('keeps every id in the range, unique, and independent of list order (property)', () => {
    fc.assert(
      fc.property(fc.uniqueArray(version, { maxLength: 6 }), (versions) => {
        let ids: Map<string, Map<string, number>>;
        try {
          ids = templateVmIds('i', range, nodes, versions);
        } catch (e) {
          expect(e).toBeInstanceOf(ProblemError);
          return;
        }
        const all = [...ids.values()].flatMap((m) => [...m.values()]);
        expect(new Set(all).size).toBe(all.length);
        for (const id of all) expect(id >= range.start && id <= range.end).toBe(true);
        const shuffled = templateVmIds('i', range, [...nodes].reverse(), [...versions].reverse());
        expect(shuffled).toEqual(ids);
      }),
    );
  });

  it('never moves a version when another one is added or removed (property)', () => {
    fc.assert(
      fc.property(fc.uniqueArray(version, { minLength: 1, maxLength: 5 }), version, (versions, added) => {
        fc.pre(!versions.includes(added));
        let before: Map<string, Map<string, number>>;
        let after: Map<string, Map<string, number>>;
        try {
          before = templateVmIds('i', range, nodes, versions);
          after = templateVmIds('i', range, nodes, [...versions, added]);
        } catch {
          return; // a collision is reported at synth instead (next test)
        }
        for (const v of versions) expect(after.get(v)).toEqual(before.get(v));
        const removed = templateVmIds('i', range, nodes, versions.slice(1));
        for (const v of versions.slice(1)) expect(removed.get(v)).toEqual(before.get(v));
      }),
    );
  });

  it('reports two versions that would share ids, with the fix', () => {
    expect(() => templateVmIds('pmox-fra', range, nodes, ['v1.35.0', 'v1.35.4'])).toThrow(
      /instance pmox-fra: images v1\.35\.0 and v1\.35\.4 would share template VM ids 9036-9038 .*\n\s+fix: drop one of them, or widen vmIdRange/,
    );
  });
});
