/**
 * Surge, then retire (`tenants[].previous`, docs/tenants.md): the rendering keeps every previous
 * machine deployment the change replaces exactly as it was — what CAPI's topology controller makes
 * of it (the model in topology.ts, with CAPI v1.12's defer-upgrade) is the very worker template it
 * made before, so the pinned CAPMOX's webhook (which refuses any ProxmoxMachineTemplate change) has
 * nothing to refuse — beside the new ones, named as the retire step names them. Placement and the
 * capacity ledger count old and new at once, and the node ranges must hold both.
 */
import { parse, stringify } from 'yaml';
import { parseLab } from '../../modules/config/load';
import { capacityLedger, machinesAtMost, planPlacement } from '../../modules/placement';
import { clusterClass, clusterClassTemplates } from '../../modules/tenants/cluster-class';
import { DEFER_UPGRADE } from '../../modules/tenants/cluster';
import { exampleText, renderPlaced, thrownProblems, topologyMds } from './fixtures';
import { generate } from './topology';

const FROM = 'v1.35.4';
const TO = 'v1.36.3';

/** The example lab (released CAPMOX, secondary-clusters) with a v1.36.3 template on each instance and room for a surge. */
function lab(change: (doc: any) => void = () => {}, memoryMiB = 262144, cpu = 64) {
  const doc = parse(exampleText);
  const [txl, fra] = doc.proxmox.instances;
  txl.template.versions = [{ kubernetesVersion: TO, templateID: 1001 }];
  fra.images.push({ ...fra.images[0], kubernetesVersion: TO, url: fra.images[0].url.replace(FROM, TO) });
  for (const n of txl.nodes) Object.assign(n, { memoryMiB, cpu });
  change(doc);
  return parseLab(stringify(doc), 'surge.yaml');
}

const tenantA = (doc: any) => doc.tenants.find((t: any) => t.name === 'tenant-a');
const tenantC = (doc: any) => doc.tenants.find((t: any) => t.name === 'tenant-c');

const render = renderPlaced;
const problemsOf = thrownProblems;

/** The worker templates CAPI makes for a Cluster (the model of topology.ts), by topology name. */
function workerTemplates(l: ReturnType<typeof lab>, cluster: any, current?: Map<string, string>) {
  const options = { dataStoreName: 'etcd', multiInstance: l.capmox.multiInstance, healthCheck: l.management.healthCheck };
  const g = generate(clusterClass(options), clusterClassTemplates(options), cluster, current);
  return new Map(
    [...g.machineTemplates].map(([name, t]) => [
      name,
      { machine: (t.spec as any).template.spec, bootstrap: (g.bootstrapTemplates.get(name)!.spec as any).template.spec },
    ]),
  );
}

describe('surge, then retire: an upgrade', () => {
  const before = lab();
  const surge = lab((doc) => {
    tenantA(doc).kubernetesVersion = TO;
    tenantA(doc).previous = { kubernetesVersion: FROM };
  });
  const after = lab((doc) => (tenantA(doc).kubernetesVersion = TO));

  it('keeps every old machine deployment beside the new ones, and the retire step keeps exactly the new ones', () => {
    const old = topologyMds(render(before, 'tenant-a'));
    const mid = topologyMds(render(surge, 'tenant-a'));
    const end = topologyMds(render(after, 'tenant-a'));
    expect(old.length).toBeGreaterThan(1);
    // Every name changes on an upgrade (the version is in the worker template hash).
    expect(end.map((m) => m.name).filter((n) => old.some((o) => o.name === n))).toEqual([]);
    expect(mid.map((m) => m.name).sort()).toEqual([...old, ...end].map((m) => m.name).sort());
    // The new ones are the retire step's, byte for byte; the old ones wait with defer-upgrade.
    for (const m of end) expect(mid.find((x) => x.name === m.name)).toEqual(m);
    for (const m of old) expect(mid.find((x) => x.name === m.name).metadata.annotations).toEqual({ [DEFER_UPGRADE]: '' });
    expect((render(surge, 'tenant-a').cluster as any).spec.topology.version).toBe(TO);
    expect(render(surge, 'tenant-a').retiring.map((m) => ({ name: m.name, version: m.version }))).toEqual(old.map((m) => ({ name: m.name, version: FROM })));
  });

  it('gives each old machine deployment exactly the worker templates it had: CAPMOX has no change to refuse', () => {
    const oldTemplates = workerTemplates(before, render(before, 'tenant-a').cluster);
    const current = new Map([...oldTemplates.keys()].map((n) => [n, FROM]));
    const midTemplates = workerTemplates(surge, render(surge, 'tenant-a').cluster, current);
    expect(oldTemplates.size).toBeGreaterThan(1);
    for (const [name, t] of oldTemplates) expect({ name, ...midTemplates.get(name) }).toEqual({ name, ...t });
    // The new ones clone the v1.36.3 template (fixed id 1001 on pmox-txl).
    const newOnes = [...midTemplates].filter(([n]) => !oldTemplates.has(n));
    expect(newOnes.length).toBe(oldTemplates.size);
    for (const [, t] of newOnes) expect(t.machine.templateID).toBe(1001);

    // Control: without the overrides, CAPI would change every old template (and CAPMOX refuse it).
    const stripped = structuredClone(render(surge, 'tenant-a').cluster) as any;
    for (const md of stripped.spec.topology.workers.machineDeployments) if (oldTemplates.has(md.name)) md.variables.overrides = [];
    const changed = workerTemplates(surge, stripped, current);
    expect([...oldTemplates].filter(([n, t]) => JSON.stringify(changed.get(n)) !== JSON.stringify(t)).length).toBe(oldTemplates.size);
  });

  it('counts the retiring machines in the plan and the ledger, and refuses a node that cannot hold both', () => {
    const plan = planPlacement(surge);
    const ledger = capacityLedger(plan);
    const old = planPlacement(before).tenants.find((t) => t.name === 'tenant-a')!;
    expect(
      plan
        .surge!.filter((s) => s.tenant === 'tenant-a')
        .map((s) => `${s.node} ${s.machines}`)
        .sort(),
    ).toEqual(old.pools.flatMap((p) => p.placements.map((x) => `${x.node} ${machinesAtMost(x.scale)}`)).sort());
    for (const s of plan.surge!) {
      const n = ledger.nodes.find((x) => x.node === s.node && x.instance === s.instance)!;
      expect(n.memoryMiB.surge).toBeGreaterThanOrEqual(s.memoryMiB);
      expect(n.memoryMiB.free).toBe(n.memoryMiB.capacity - n.memoryMiB.planned - n.memoryMiB.surge!);
    }
    // Placement and the rendering agree on what retires.
    expect(
      plan
        .surge!.filter((s) => s.tenant === 'tenant-a')
        .map((s) => `${s.pool} ${s.node}`)
        .sort(),
    ).toEqual(
      render(surge, 'tenant-a')
        .retiring.map((m) => `${m.pool} ${m.nodes[0]}`)
        .sort(),
    );
    // The example's own pmox-txl nodes (96 GiB) hold tenant-a, tenant-b's max and tenant-c: no room for a second tenant-a.
    const tight = lab((doc) => {
      tenantA(doc).kubernetesVersion = TO;
      tenantA(doc).previous = { kubernetesVersion: FROM };
      tenantA(doc).pools[0].size.memoryMiB = 40960;
    }, 98304);
    const problems = problemsOf(() => planPlacement(tight));
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.every((p) => p.path === 'tenants.0.previous')).toBe(true);
    expect(problems[0].message).toMatch(/^tenant tenant-a: node pmox-txl-\d of pmox-txl cannot hold the new machines and the retiring ones at once/);
    expect(problems[0].fix).toMatch(/an upgrade surges every pool of the tenant at once: make room/);
    // The same lab without previous places (the surge is what does not fit).
    expect(
      problemsOf(() => planPlacement(lab((doc) => ((tenantA(doc).pools[0].size.memoryMiB = 40960), (tenantA(doc).kubernetesVersion = TO)), 98304))),
    ).toEqual([]);
  });

  it('refuses node ranges too small for the old and the new machines at once, at the range, with the fix', () => {
    const narrow = (doc: any) => (tenantA(doc).network.addresses = ['10.10.1.10-10.10.1.15']);
    // Six addresses: 3 workers + 2 surge (one per machine deployment, one per node) fit; with the 3 retiring they do not.
    expect(
      problemsOf(() =>
        render(
          lab((doc) => (narrow(doc), (tenantA(doc).kubernetesVersion = TO))),
          'tenant-a',
        ),
      ),
    ).toEqual([]);
    const problems = problemsOf(() =>
      render(
        lab((doc) => (narrow(doc), (tenantA(doc).kubernetesVersion = TO), (tenantA(doc).previous = { kubernetesVersion: FROM }))),
        'tenant-a',
      ),
    );
    expect(problems).toEqual([
      {
        path: 'tenants.0.network.addresses',
        message: expect.stringContaining('the node ranges hold 6 addresses but tenant tenant-a can have 8 workers at once while it surges'),
        fix: expect.stringContaining('widen network.addresses to at least 8 addresses, or surge one pool at a time'),
      },
    ]);
  });
});

describe('surge, then retire: a resize', () => {
  const grown = (doc: any) => (tenantA(doc).pools[0].size = { cpu: 4, memoryMiB: 8192, diskGiB: 60 });
  const before = lab();
  const surge = lab((doc) => {
    tenantA(doc).previous = { pools: structuredClone(tenantA(doc).pools) };
    grown(doc);
  });
  const after = lab(grown);

  it('keeps the old size beside the new one, without defer-upgrade, and the old templates unchanged', () => {
    const old = topologyMds(render(before, 'tenant-a'));
    const mid = topologyMds(render(surge, 'tenant-a'));
    const end = topologyMds(render(after, 'tenant-a'));
    expect(mid.map((m) => m.name).sort()).toEqual([...old, ...end].map((m) => m.name).sort());
    for (const m of end) expect(mid.find((x) => x.name === m.name)).toEqual(m);
    for (const m of old) expect(mid.find((x) => x.name === m.name).metadata.annotations).toBeUndefined();
    const oldTemplates = workerTemplates(before, render(before, 'tenant-a').cluster);
    const midTemplates = workerTemplates(surge, render(surge, 'tenant-a').cluster);
    for (const [name, t] of oldTemplates) expect({ name, ...midTemplates.get(name) }).toEqual({ name, ...t });
    for (const [name, t] of midTemplates) if (!oldTemplates.has(name)) expect(t.machine.disks.bootVolume.sizeGb).toBe(60);
  });

  it('on a MultiInstance tenant, the secondary machine deployments roll in place (same names), so nothing of theirs retires', () => {
    const mi = lab((doc) => {
      tenantC(doc).previous = { pools: structuredClone(tenantC(doc).pools) };
      tenantC(doc).pools[0].size.diskGiB = 60;
    });
    const r = render(mi, 'tenant-c');
    const plain = render(
      lab((doc) => (tenantC(doc).pools[0].size.diskGiB = 60)),
      'tenant-c',
    );
    expect(r.retiring.every((m) => m.inTopology)).toBe(true);
    expect(r.retiring.length).toBeGreaterThan(0);
    expect(r.secondaries!.clusters.map((c) => c.machineDeployments.map((m) => m.name))).toEqual(
      plain.secondaries!.clusters.map((c) => c.machineDeployments.map((m) => m.name)),
    );
    expect(planPlacement(mi).surge!.map((s) => s.instance)).toEqual(r.retiring.map(() => 'pmox-txl'));
  });

  it('renders byte for byte the same Cluster as before when previous changes nothing', () => {
    const same = lab((doc) => (tenantA(doc).previous = { kubernetesVersion: FROM, pools: structuredClone(tenantA(doc).pools) }));
    expect(render(same, 'tenant-a').cluster).toEqual(render(before, 'tenant-a').cluster);
    expect(planPlacement(same).surge).toBeUndefined();
  });
});

describe('previous is checked with the description', () => {
  it('refuses workers newer than the control plane, two minors at once, and a previous version without its template', () => {
    const at = (change: (doc: any) => void) => problemsOf(() => lab(change)).filter((p) => p.path.startsWith('tenants.0.previous'));
    expect(at((doc) => (tenantA(doc).previous = { kubernetesVersion: TO }))).toEqual([
      expect.objectContaining({
        path: 'tenants.0.previous.kubernetesVersion',
        message: expect.stringContaining('no kubelet may be newer than its API server'),
      }),
    ]);
    expect(
      at((doc) => {
        doc.proxmox.instances[0].template.versions.push({ kubernetesVersion: 'v1.37.2', templateID: 1002 });
        tenantA(doc).kubernetesVersion = 'v1.37.2';
        tenantA(doc).previous = { kubernetesVersion: FROM };
      }),
    ).toEqual([expect.objectContaining({ path: 'tenants.0.previous.kubernetesVersion', message: expect.stringContaining('2 minor versions at once') })]);
    expect(
      at((doc) => {
        tenantA(doc).previous = { kubernetesVersion: 'v1.34.0' };
      }),
    ).toEqual([
      expect.objectContaining({
        path: 'tenants.0.previous.kubernetesVersion',
        message: expect.stringContaining('instance pmox-txl has no template for v1.34.0'),
      }),
    ]);
    expect(at((doc) => (tenantA(doc).previous = { pools: [{ name: 'workers', size: { cpu: 1, memoryMiB: 1024, diskGiB: 10 } }] }))).toEqual([
      expect.objectContaining({ path: 'tenants.0.previous.pools.0', message: 'a pool needs replicas or autoscaling' }),
    ]);
  });
});
