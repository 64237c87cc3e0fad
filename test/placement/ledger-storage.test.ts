/**
 * Storage in the capacity ledger (issue 38 item 5, docs/placement.md "Capacity ledger and
 * quotas"): machine disks at max per tenant and instance, a tenant's volume storages (each its
 * own alone, so the storage's size bounds its volumes), and `quota.diskGiB` checked like cpu and
 * memory — every pool at its max, one problem at the pool that takes the tenant over.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { parseLab } from '../../modules/config/load';
import { capacityLedger, machinesAtMost, planPlacement, renderJson, renderMarkdown } from '../../modules/placement';

const examples = join(__dirname, '../../examples');
const read = (name: string) => readFileSync(join(examples, name), 'utf8');

function labWith(name: string, edit: (doc: ReturnType<typeof parseDocument>) => void) {
  const doc = parseDocument(read(name));
  edit(doc);
  return parseLab(doc.toString(), name);
}

describe('the ledger counts storage', () => {
  const lab = labWith('lab-storage.yaml', () => undefined);
  const plan = planPlacement(lab);
  const ledger = capacityLedger(plan);

  it('machine disks at max, per tenant and instance, from the pools the plan placed there', () => {
    for (const entry of ledger.tenants) {
      const tenant = plan.tenants.find((t) => t.name === entry.tenant)!;
      const expected = tenant.pools.reduce(
        (sum, pool) => sum + pool.placements.filter((p) => p.instance === entry.instance).reduce((s, p) => s + machinesAtMost(p.scale), 0) * pool.size.diskGiB,
        0,
      );
      expect(entry.diskGiB).toBe(expected);
      expect(entry.diskGiB).toBeGreaterThan(0);
    }
  });

  it("a tenant's volume storages on every instance it runs on; none for a tenant without storage classes", () => {
    const a = ledger.tenants.filter((t) => t.tenant === 'tenant-a');
    expect(a.length).toBeGreaterThan(0);
    for (const entry of a) expect(entry.volumeStorages).toEqual(['tenant-a-lvm']);
    for (const entry of ledger.tenants.filter((t) => t.tenant === 'tenant-c')) expect(entry.volumeStorages).toBeUndefined();
  });

  it('the markdown ledger shows the disk and the volume storages; the JSON carries them', () => {
    const md = renderMarkdown(plan);
    expect(md).toContain("| volume storages (the tenant's alone) |");
    const row = md.split('\n').find((l) => l.startsWith('| tenant-a ') && l.includes('tenant-a-lvm'));
    expect(row).toMatch(/\| \d+ GiB \| tenant-a-lvm \|/);
    const json = JSON.parse(renderJson(plan));
    const entry = json.ledger.tenants.find((t: { tenant: string }) => t.tenant === 'tenant-a');
    expect(entry.volumeStorages).toEqual(['tenant-a-lvm']);
    expect(typeof entry.diskGiB).toBe('number');
    expect(json.tenants.find((t: { name: string }) => t.name === 'tenant-a').volumeStorages).toEqual(['tenant-a-lvm']);
  });

  it('a lab with no storage classes has no volume storages column', () => {
    const md = renderMarkdown(planPlacement(labWith('lab.yaml', () => undefined)));
    expect(md).toContain('| disk reserved |');
    expect(md).not.toContain('volume storages');
  });
});

describe('quota.diskGiB', () => {
  const quotaLab = (diskGiB: number) =>
    labWith('lab-quota.yaml', (doc) => {
      const tenants = (doc.get('tenants') as { items: { get(k: string): unknown; set(k: string, v: unknown): void }[] }).items;
      const b = tenants.findIndex((t) => t.get('name') === 'tenant-b');
      doc.setIn(['tenants', b, 'quota'], doc.createNode({ cpu: 1000, memoryMiB: 10_000_000, diskGiB }, { flow: true }));
    });

  it('passes when the machine disks fit, and the ledger shows the share used', () => {
    const plan = planPlacement(quotaLab(100_000));
    const md = renderMarkdown(plan);
    expect(md).toMatch(/1000 cpu \/ [^|]+ \/ 100000 GiB disk \(tenant uses \d+% \/ \d+% \/ \d+%\)/);
    expect(JSON.parse(renderJson(plan)).tenants.find((t: { name: string }) => t.name === 'tenant-b').quota.diskGiB).toBe(100_000);
  });

  it('refuses pools whose disks at max take the tenant over, naming the pool and the quota to raise', () => {
    let error: unknown;
    try {
      quotaLab(50);
    } catch (e) {
      error = e;
    }
    const text = String((error as Error)?.message ?? error);
    expect(text).toMatch(/takes tenant tenant-b over its quota: its pools reserve \d+ GiB of machine disks \(quota 50\)/);
    expect(text).toMatch(/raise tenants\[\d\]\.quota to at least \{ cpu: 1000, memoryMiB: 10000000, diskGiB: \d+ \}/);
    // cpu and memory within the quota: only the disk is named.
    expect(text).not.toMatch(/cpu \(quota 1000\)/);
  });

  it('without diskGiB the quota checks cpu and memory only, as before', () => {
    const lab = labWith('lab-quota.yaml', (doc) => {
      const tenants = (doc.get('tenants') as { items: { get(k: string): unknown }[] }).items;
      const b = tenants.findIndex((t) => t.get('name') === 'tenant-b');
      doc.setIn(['tenants', b, 'quota'], doc.createNode({ cpu: 1000, memoryMiB: 10_000_000 }, { flow: true }));
    });
    expect(renderMarkdown(planPlacement(lab))).not.toContain('GiB disk (tenant uses');
  });
});
