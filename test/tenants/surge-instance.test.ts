/**
 * Surge, then retire across an instance-level edit (issue 21): a new storage, bridge or template
 * of an instance changes every worker template there, so the machine deployments get new names
 * (their template hash). `previous.instances` / `previous.network` keep the old ones exactly as they
 * were beside the new ones; without them, validate --against and synth refuse the change with the
 * exact `previous` to write (modules/tenants/replaced.ts).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { parseLab } from '../../modules/config/load';
import { capacityLedger, machinesAtMost, planPlacement } from '../../modules/placement';
import { clusterClass, clusterClassTemplates } from '../../modules/tenants/cluster-class';
import { renderTenants } from '../../modules/tenants';
import { renderInstances } from '../../modules/rendering/instance';
import { DEFER_UPGRADE } from '../../modules/tenants/cluster';
import { AUTOSCALER_MAX, AUTOSCALER_MIN } from '../../modules/tenants/machine-deployments';
import { replacedGroups, replacementProblems, retiredGroups, topologyMachineDeployments, type RenderedMachineDeployment } from '../../modules/tenants/replaced';
import { machineDeploymentsOfOutput, refuseUnrollableUpgrades } from '../../scripts/lib/upgrade-guard';
import { exampleText, renderPlaced, thrownProblems, topologyMds } from './fixtures';
import { generate } from './topology';

/** The example lab (released CAPMOX, secondary-clusters) with room on pmox-txl for a surge. */
function doc(change: (d: any) => void = () => {}) {
  const d = parse(exampleText);
  for (const n of d.proxmox.instances[0].nodes) Object.assign(n, { memoryMiB: 524288, cpu: 128 });
  change(d);
  return d;
}
const lab = (change: (d: any) => void = () => {}) => parseLab(stringify(doc(change)), 'surge.yaml');
const txl = (d: any) => d.proxmox.instances[0];
const tenantA = (d: any) => d.tenants.find((t: any) => t.name === 'tenant-a');

const render = renderPlaced;
const allMds = (l: ReturnType<typeof lab>): RenderedMachineDeployment[] =>
  [...renderTenants(l, planPlacement(l)).values()].flatMap((t) => topologyMachineDeployments(t.cluster));
const problemsOf = thrownProblems;

/** The worker templates CAPI makes for a Cluster (the model of topology.ts), by topology name. */
function workerTemplates(l: ReturnType<typeof lab>, cluster: any) {
  const options = { dataStoreName: 'etcd', multiInstance: l.capmox.multiInstance, healthCheck: l.management.healthCheck };
  const g = generate(clusterClass(options), clusterClassTemplates(options), cluster);
  return new Map(
    [...g.machineTemplates].map(([name, t]) => [
      name,
      { machine: (t.spec as any).template.spec, bootstrap: (g.bootstrapTemplates.get(name)!.spec as any).template.spec },
    ]),
  );
}

const edits: [string, (d: any) => void, (d: any) => void][] = [
  ['storage', (d) => (txl(d).storage.disks = 'ceph-ssd'), (d) => (tenantA(d).previous = { instances: { 'pmox-txl': { storage: { disks: 'ceph-vm' } } } })],
  [
    'bridge',
    (d) => (txl(d).bridge = 'vmbr7'),
    (d) => (tenantA(d).previous = { instances: { 'pmox-txl': { bridge: txl(parse(exampleText)).bridge ?? 'vmbr0' } } }),
  ],
  [
    'template',
    (d) => (txl(d).template.templateID = 1005),
    (d) => (tenantA(d).previous = { instances: { 'pmox-txl': { template: txl(parse(exampleText)).template } } }),
  ],
  ['vlan', (d) => (tenantA(d).network.vlan = 20), (d) => (tenantA(d).previous = { network: { ...tenantA(d).network, vlan: 10 } })],
];

describe('surge, then retire: an instance-level edit', () => {
  const vlanBefore = (d: any) => (tenantA(d).network.vlan = 10);
  it.each(edits)('%s: the surge keeps every old machine deployment as it was, beside the retire step’s, byte for byte', (what, edit, keep) => {
    const pre = what === 'vlan' ? vlanBefore : () => {};
    const before = lab(pre);
    const after = lab((d) => (pre(d), edit(d)));
    const surge = lab((d) => (pre(d), edit(d), keep(d)));
    const old = topologyMds(render(before, 'tenant-a'));
    const mid = topologyMds(render(surge, 'tenant-a'));
    const end = topologyMds(render(after, 'tenant-a'));
    expect(old.length).toBe(2);
    // The edit renames every machine deployment (the template hash)…
    expect(end.filter((m) => old.some((o) => o.name === m.name))).toEqual([]);
    // …and the surge holds both sets: the new ones exactly as the retire step has them.
    expect(mid.map((m) => m.name).sort()).toEqual([...old, ...end].map((m) => m.name).sort());
    for (const m of end) expect(mid.find((x) => x.name === m.name)).toEqual(m);
    // CAPI makes the very same worker templates for the old ones: CAPMOX has nothing to refuse.
    const oldTemplates = workerTemplates(before, render(before, 'tenant-a').cluster);
    const midTemplates = workerTemplates(surge, render(surge, 'tenant-a').cluster);
    for (const [name, t] of oldTemplates) expect({ name, ...midTemplates.get(name) }).toEqual({ name, ...t });
    // Placement counts the retiring machines, the ledger subtracts them, and the lists agree.
    const plan = planPlacement(surge);
    expect(
      plan
        .surge!.filter((s) => s.tenant === 'tenant-a')
        .map((s) => `${s.pool} ${s.node} ${s.machines}`)
        .sort(),
    ).toEqual(
      render(surge, 'tenant-a')
        .retiring.map((m) => `${m.pool} ${m.nodes[0]} ${m.scale.kind === 'fixed' ? m.scale.replicas : 0}`)
        .sort(),
    );
    const ledger = capacityLedger(plan);
    for (const s of plan.surge!) expect(ledger.nodes.find((n) => n.node === s.node && n.instance === s.instance)!.cpu.surge).toBeGreaterThanOrEqual(s.cpu);
  });

  it("the instance stack keeps the retiring machines' grants until the retire step: the old disk storage, bridge and VLAN", () => {
    const grants = (l: ReturnType<typeof lab>) =>
      renderInstances(l, planPlacement(l))
        .get('pmox-txl')!
        .serviceAccount.tokens.find((t) => t.tenant === 'tenant-a')!
        .grants.map((g) => `${g.path} ${g.roleId}`);
    const edit = (d: any) => ((txl(d).storage.disks = 'ceph-ssd'), (txl(d).bridge = 'vmbr7'), (tenantA(d).network.vlan = 20));
    const keep = (d: any) =>
      (tenantA(d).previous = { instances: { 'pmox-txl': { storage: { disks: 'ceph-vm' }, bridge: 'vmbr0' } }, network: { ...tenantA(d).network, vlan: 10 } });
    const pre = (d: any) => (tenantA(d).network.vlan = 10);
    const before = grants(lab(pre));
    const surge = grants(lab((d) => (pre(d), edit(d), keep(d))));
    const after = grants(lab((d) => (pre(d), edit(d))));
    expect(before.filter((g) => /storage\/ceph|vmbr/.test(g))).toEqual([
      expect.stringMatching(/^\/sdn\/zones\/localnetwork\/vmbr0\/10 /),
      expect.stringMatching(/^\/storage\/ceph-vm /),
    ]);
    expect(surge).toEqual(expect.arrayContaining([...before, ...after]));
    expect(surge.length).toBe(new Set([...before, ...after]).size);
    expect(after.some((g) => g.includes('ceph-vm') || g.includes('vmbr0'))).toBe(false);
  });

  it('an autoscaled pool during the surge: old and new machine deployments both without replicas and with the pool’s bounds (two node groups for the autoscaler)', () => {
    const before = lab();
    const surge = lab((d) => ((txl(d).storage.disks = 'ceph-ssd'), (d.tenants[1].previous = { instances: { 'pmox-txl': { storage: { disks: 'ceph-vm' } } } })));
    const old = topologyMds(render(before, 'tenant-b')).filter((m) => m.metadata.labels['node.cluster.x-k8s.io/pool'] === 'workers');
    const mid = topologyMds(render(surge, 'tenant-b')).filter((m) => m.metadata.labels['node.cluster.x-k8s.io/pool'] === 'workers');
    expect(old.length).toBeGreaterThan(0);
    expect(mid.length).toBe(2 * old.length);
    expect(mid.map((m) => m.name)).toEqual(expect.arrayContaining(old.map((m) => m.name)));
    for (const m of mid) {
      expect(m.replicas).toBeUndefined();
      const o = old.find((x) => x.metadata.labels['node.cluster.x-k8s.io/proxmox-node'] === m.metadata.labels['node.cluster.x-k8s.io/proxmox-node'])!;
      for (const key of [AUTOSCALER_MIN, AUTOSCALER_MAX])
        expect({ key, value: m.metadata.annotations[key] }).toEqual({ key, value: o.metadata.annotations[key] });
      expect(m.metadata.annotations[DEFER_UPGRADE]).toBeUndefined();
    }
    // The ledger reserves the retiring group at its max (what the autoscaler may grow it to).
    const plan = planPlacement(surge);
    const b = plan.tenants.find((t) => t.name === 'tenant-b')!.pools.find((p) => p.name === 'workers')!;
    for (const s of plan.surge!.filter((x) => x.tenant === 'tenant-b' && x.pool === 'workers'))
      expect(s.machines).toBe(machinesAtMost(b.placements.find((p) => p.node === s.node)!.scale));
  });

  it("an autoscaled pool's floor (autoscaling.floor): the new machine deployments' min size through the surge and the retire step, the old ones' bounds untouched, gone after", () => {
    const edit = (d: any) => (txl(d).storage.disks = 'ceph-ssd');
    const keep = (d: any) => (d.tenants[1].previous = { instances: { 'pmox-txl': { storage: { disks: 'ceph-vm' } } } });
    const node = (m: any) => m.metadata.labels['node.cluster.x-k8s.io/proxmox-node'];
    const workers = (l: ReturnType<typeof lab>) =>
      topologyMds(render(l, 'tenant-b')).filter((m) => m.metadata.labels['node.cluster.x-k8s.io/pool'] === 'workers');
    const old = workers(lab());
    expect(old.length).toBe(2);
    const [held, free] = old.map(node);
    const declared = Object.fromEntries(old.map((m) => [node(m), m.metadata.annotations[AUTOSCALER_MIN]]));
    const floor = (d: any) => (d.tenants[1].pools[0].autoscaling.floor = { [`pmox-txl/${held}`]: 3 });
    const min = (mds: any[]) => Object.fromEntries(mds.map((m) => [`${m.name} ${node(m)}`, m.metadata.annotations[AUTOSCALER_MIN]]));
    const surge = workers(lab((d) => (edit(d), keep(d), floor(d))));
    const oldNames = new Set(old.map((m) => m.name));
    const fresh = surge.filter((m) => !oldNames.has(m.name));
    // The retiring ones keep their bounds as they were; the new one on the floor's node has min 3, the other its own.
    expect(min(surge.filter((m) => oldNames.has(m.name)))).toEqual(min(old));
    expect(Object.fromEntries(fresh.map((m) => [node(m), m.metadata.annotations[AUTOSCALER_MIN]]))).toEqual({ [held]: '3', [free]: declared[free] });
    for (const m of surge) expect(m.metadata.annotations[AUTOSCALER_MAX]).toBe(old.find((o) => node(o) === node(m))!.metadata.annotations[AUTOSCALER_MAX]);
    // The retire step keeps the floor on the same machine deployments (the floor is no template input: same names).
    const retire = workers(lab((d) => (edit(d), floor(d))));
    expect(min(retire)).toEqual(min(fresh));
    // After the retire, without the floor: the declared min again, on the same names.
    const after = workers(lab(edit));
    expect(Object.fromEntries(after.map((m) => [m.name, m.metadata.annotations[AUTOSCALER_MIN]]))).toEqual(
      Object.fromEntries(fresh.map((m) => [m.name, declared[node(m)]])),
    );
    // The retire guard's step sees the pool as autoscaled on both nodes.
    const steps = retiredGroups(allMds(lab((d) => (edit(d), keep(d), floor(d)))), allMds(lab((d) => (edit(d), floor(d)))));
    expect(steps.filter((g) => g.tenant === 'tenant-b' && g.pool === 'workers').map((g) => g.node)).toEqual([held, free].sort());
  });

  it('refuses a floor on a node group the pool does not have there, or above its max in the plan, at its path', () => {
    const problems = problemsOf(() =>
      render(
        lab((d) => (d.tenants[1].pools[0].autoscaling.floor = { 'pmox-txl/pmox-txl-9': 2, 'pmox-txl/pmox-txl-1': 6 })),
        'tenant-b',
      ),
    );
    expect(problems).toEqual([
      expect.objectContaining({
        path: 'tenants.1.pools.0.autoscaling.floor.pmox-txl/pmox-txl-9',
        fix: expect.stringContaining('pmox-txl/pmox-txl-1, pmox-txl/pmox-txl-2'),
      }),
      expect.objectContaining({
        path: 'tenants.1.pools.0.autoscaling.floor.pmox-txl/pmox-txl-1',
        message: expect.stringContaining("(6) is above the node group's max there (3 in the plan)"),
      }),
    ]);
  });

  it('control: the same edit with previous as it is now keeps nothing (the old names go)', () => {
    const before = lab();
    const wrong = lab((d) => ((txl(d).storage.disks = 'ceph-ssd'), (tenantA(d).previous = { instances: { 'pmox-txl': { storage: { disks: 'ceph-ssd' } } } })));
    const old = topologyMds(render(before, 'tenant-a')).map((m) => m.name);
    expect(topologyMds(render(wrong, 'tenant-a')).filter((m) => old.includes(m.name))).toEqual([]);
  });

  it('refuses previous.instances naming an instance the lab does not have, at its path', () => {
    const problems = problemsOf(() =>
      render(
        lab((d) => (tenantA(d).previous = { instances: { 'pmox-nope': { bridge: 'vmbr1' } } })),
        'tenant-a',
      ),
    );
    expect(problems).toEqual([expect.objectContaining({ path: 'tenants.0.previous.instances.pmox-nope', fix: expect.stringContaining('pmox-txl, pmox-fra') })]);
  });
});

describe('surge, then retire: a per-instance node network (previous.networks)', () => {
  const tenantC = (d: any) => d.tenants.find((t: any) => t.name === 'tenant-c');
  // tenant-c's primary instance (pmox-txl, its topology Cluster) on a networks entry of its own, VLAN 10;
  // its secondary (pmox-fra) on its own entry, VLAN 30.
  const pre = (d: any) => {
    const c = tenantC(d);
    c.networks['pmox-txl'] = { ...c.network, vlan: 10 };
    c.networks['pmox-fra'].vlan = 30;
    delete c.network;
  };
  const edit = (d: any) => (tenantC(d).networks['pmox-txl'].vlan = 20);
  const keep = (d: any) => (tenantC(d).previous = { networks: { 'pmox-txl': { ...tenantC(d).networks['pmox-txl'], vlan: 10 } } });
  const before = lab(pre);
  const after = lab((d) => (pre(d), edit(d)));
  const surge = lab((d) => (pre(d), edit(d), keep(d)));

  it('a new VLAN in networks.<primary instance>: the surge keeps every old machine deployment as it was, beside the retire step’s, byte for byte', () => {
    const old = topologyMds(render(before, 'tenant-c'));
    const mid = topologyMds(render(surge, 'tenant-c'));
    const end = topologyMds(render(after, 'tenant-c'));
    expect(old.length).toBeGreaterThan(0);
    expect(end.filter((m) => old.some((o) => o.name === m.name))).toEqual([]);
    expect(mid.map((m) => m.name).sort()).toEqual([...old, ...end].map((m) => m.name).sort());
    for (const m of end) expect(mid.find((x) => x.name === m.name)).toEqual(m);
    // The old ones on VLAN 10 (an override: the Cluster's is 20), the new ones on the Cluster's.
    for (const o of old) expect(mid.find((x) => x.name === o.name).variables.overrides).toEqual(expect.arrayContaining([{ name: 'vlan', value: 10 }]));
    // CAPI makes the very same worker templates for the old ones: CAPMOX has nothing to refuse.
    const oldTemplates = workerTemplates(before, render(before, 'tenant-c').cluster);
    const midTemplates = workerTemplates(surge, render(surge, 'tenant-c').cluster);
    expect(oldTemplates.size).toBe(old.length);
    for (const [name, t] of oldTemplates) expect({ name, ...midTemplates.get(name) }).toEqual({ name, ...t });
    // The secondary's machine deployments (pmox-fra) are rendered as without the surge.
    expect(render(surge, 'tenant-c').secondaries!.clusters.map((c) => c.machineDeployments.map((m) => m.machineDeployment))).toEqual(
      render(after, 'tenant-c').secondaries!.clusters.map((c) => c.machineDeployments.map((m) => m.machineDeployment)),
    );
    // Placement counts the retiring machines on pmox-txl, and the lists agree.
    const plan = planPlacement(surge);
    const surging = plan.surge!.filter((s) => s.tenant === 'tenant-c');
    expect(surging.length).toBeGreaterThan(0);
    expect(surging.every((s) => s.instance === 'pmox-txl')).toBe(true);
    expect(surging.map((s) => `${s.pool} ${s.node} ${s.machines}`).sort()).toEqual(
      render(surge, 'tenant-c')
        .retiring.map((m) => `${m.pool} ${m.nodes[0]} ${m.scale.kind === 'fixed' ? m.scale.replicas : 0}`)
        .sort(),
    );
  });

  it('control: the old network in previous.network (not the entry the instance uses) keeps nothing, and the names go', () => {
    const wrong = lab((d) => (pre(d), edit(d), (tenantC(d).previous = { network: { ...tenantC(d).networks['pmox-txl'], vlan: 10 } })));
    const old = topologyMds(render(before, 'tenant-c')).map((m) => m.name);
    expect(topologyMds(render(wrong, 'tenant-c')).filter((m) => old.includes(m.name))).toEqual([]);
    expect((planPlacement(wrong).surge ?? []).filter((s) => s.tenant === 'tenant-c')).toEqual([]);
  });

  it('without previous the edit is refused, naming previous.networks.<instance> to write; written as the fix says, it is accepted', () => {
    for (const oldLab of [before, undefined]) {
      const problems = replacementProblems(after, allMds(before), allMds(after), oldLab);
      expect(problems.map((p) => p.path.join('.'))).toEqual(['tenants.2']);
      expect(problems[0].message).toMatch(
        /^tenant tenant-c: this change replaces \d+ node groups? with no surge .* \(pool workers on pmox-txl\/pmox-txl-\d\) by .*: vlan 10 → 20/,
      );
      const fix = /set tenants\[2\]\.previous: (\{.*\}), deploy/.exec(problems[0].fix!)![1];
      expect(fix).toBe(
        '{ networks: { pmox-txl: { addresses: ["10.10.3.10-10.10.3.60"], prefix: 24, gateway: "10.10.3.1", dnsServers: ["10.10.3.1"], vlan: 10 } } }',
      );
      const fixed = lab((d) => (pre(d), edit(d), (tenantC(d).previous = parse(fix))));
      expect(replacementProblems(fixed, allMds(before), allMds(fixed), oldLab)).toEqual([]);
      expect(allMds(fixed).map((m) => m.name)).toEqual(expect.arrayContaining(allMds(before).map((m) => m.name)));
    }
  });

  it("the instance stacks keep the old VLAN's grant until the retire step: the primary's, and a secondary's while its machines roll", () => {
    const grants = (l: ReturnType<typeof lab>, instance: string) =>
      renderInstances(l, planPlacement(l))
        .get(instance)!
        .serviceAccount.tokens.find((t) => t.tenant === 'tenant-c')!
        .grants.map((g) => `${g.path} ${g.roleId}`)
        .filter((g) => g.startsWith('/sdn/'));
    const both = (d: any) => (edit(d), (tenantC(d).networks['pmox-fra'].vlan = 31));
    const keepBoth = (d: any) => (keep(d), (tenantC(d).previous.networks['pmox-fra'] = { ...tenantC(d).networks['pmox-fra'], vlan: 30 }));
    const old = lab(pre);
    const mid = lab((d) => (pre(d), both(d), keepBoth(d)));
    const end = lab((d) => (pre(d), both(d)));
    for (const [instance, was, now] of [
      ['pmox-txl', 10, 20],
      ['pmox-fra', 30, 31],
    ] as const) {
      expect(grants(old, instance)).toEqual([expect.stringMatching(new RegExp(`/${was} `))]);
      expect(grants(end, instance)).toEqual([expect.stringMatching(new RegExp(`/${now} `))]);
      expect(grants(mid, instance).sort()).toEqual([...grants(old, instance), ...grants(end, instance)].sort());
    }
  });

  it('refuses previous.networks naming an unknown instance, or outside secondary-clusters, at its path', () => {
    const unknown = thrownProblems(() => lab((d) => (pre(d), (tenantC(d).previous = { networks: { 'pmox-frx': tenantC(d).networks['pmox-fra'] } }))));
    expect(unknown).toEqual([
      expect.objectContaining({ path: 'tenants.2.previous.networks.pmox-frx', fix: expect.stringContaining('did you mean "pmox-fra"') }),
    ]);
    const proposal = thrownProblems(() =>
      lab((d) => {
        d.capmox.multiInstance = 'proposal';
        delete tenantC(d).networks;
        tenantA(d).previous = { networks: { 'pmox-txl': tenantA(d).network } };
      }),
    );
    expect(proposal).toEqual([expect.objectContaining({ path: 'tenants.0.previous.networks.pmox-txl', fix: expect.stringContaining('previous.network') })]);
  });
});

describe('a change that replaces node groups with no surge is refused', () => {
  const before = lab();
  const storage = lab((d) => (txl(d).storage.disks = 'ceph-ssd'));

  it('names every replaced group of every tenant, what changed, and the exact previous to write (from the old description)', () => {
    const problems = replacementProblems(storage, allMds(before), allMds(storage), before);
    expect(problems.map((p) => p.path.join('.'))).toEqual(['tenants.0', 'tenants.1', 'tenants.2']);
    expect(problems[0].message).toMatch(
      /^tenant tenant-a: this change replaces 2 node groups with no surge .* workers-pmox-txl-1-[0-9a-f]{6} \(pool workers on pmox-txl\/pmox-txl-1\) by workers-pmox-txl-1-[0-9a-f]{6}: proxmoxStorage ceph-vm → ceph-ssd/,
    );
    expect(problems[0].fix).toContain('set tenants[0].previous: { instances: { pmox-txl: { storage: { disks: ceph-vm } } } }');
    // From the old Cluster objects alone (synth's guard): the same fix.
    expect(replacementProblems(storage, allMds(before), allMds(storage)).map((p) => p.fix)).toEqual(problems.map((p) => p.fix));
    // The fix, written, is accepted: nothing replaced, the old machine deployments kept.
    const fixed = lab((d) => {
      txl(d).storage.disks = 'ceph-ssd';
      for (const t of d.tenants) t.previous = { instances: { 'pmox-txl': { storage: { disks: 'ceph-vm' } } } };
    });
    expect(replacementProblems(fixed, allMds(before), allMds(fixed), before)).toEqual([]);
    // The retire step (previous removed) drops the old ones while the new ones carry on: not a replacement.
    expect(replacementProblems(storage, allMds(fixed), allMds(storage), fixed)).toEqual([]);
    expect(
      retiredGroups(allMds(fixed), allMds(storage))
        .filter((g) => g.tenant === 'tenant-a')
        .map((g) => g.node),
    ).toEqual(['pmox-txl-1', 'pmox-txl-2']);
  });

  it('a resize without previous: the fix is previous.pools as they were; a bridge: previous.instances.<name>.bridge', () => {
    const grown = lab((d) => (tenantA(d).pools[0].size.diskGiB = 60));
    const [p] = replacementProblems(grown, allMds(before), allMds(grown));
    expect(p.path).toEqual(['tenants', 0]);
    expect(p.message).toContain('workerSize { cpu: 4, memoryMiB: 8192, diskGiB: 40 } → { cpu: 4, memoryMiB: 8192, diskGiB: 60 }');
    expect(p.fix).toContain('previous: { pools: [{ name: workers, replicas: 3, size: { cpu: 4, memoryMiB: 8192, diskGiB: 40 }');
    const bridged = lab((d) => (txl(d).bridge = 'vmbr7'));
    expect(replacementProblems(bridged, allMds(before), allMds(bridged))[0].fix).toContain('previous: { instances: { pmox-txl: { bridge: vmbr0 } } }');
    // A template change from the Cluster alone: the template as it was, and where to get it exactly.
    const templated = lab((d) => (txl(d).template.templateID = 1005));
    expect(replacementProblems(templated, allMds(before), allMds(templated))[0].fix).toMatch(
      /instances\.pmox-txl: template, images and vmIdRange as they were .*validate -- --config <new> --against <old lab\.yaml>/,
    );
    expect(replacementProblems(templated, allMds(before), allMds(templated), before)[0].fix).toContain(
      'previous: { instances: { pmox-txl: { template: { sourceNode: pmox-txl-1, templateID: 1000',
    );
  });

  it('leaves a change that keeps every name alone (replicas, a new pool), and an upgrade without previous to the upgrade checks', () => {
    const more = lab((d) => (tenantA(d).pools[0].replicas = 4));
    expect(replacedGroups(allMds(before), allMds(more))).toEqual([]);
    const upgraded = allMds(before).map((m) => ({ ...m, version: 'v0.0.0' }));
    expect(replacedGroups(upgraded, allMds(storage)).length).toBeGreaterThan(0);
    expect(replacementProblems(storage, upgraded, allMds(storage)).map((p) => p.path.join('.'))).toEqual([]);
    // Renamed with every template input the same: the class's own worker template changed (a pvekaas release), which previous cannot keep.
    const renamed = allMds(before).map((m) => ({ ...m, name: `${m.name}0` }));
    expect(replacedGroups(renamed, allMds(before)).length).toBeGreaterThan(0);
    expect(replacementProblems(before, renamed, allMds(before))).toEqual([]);
  });

  it("synth's guard reads the Clusters of the tenant stacks written last", () => {
    const dir = mkdtempSync(join(tmpdir(), 'replaced-'));
    const out = join(dir, 'out');
    const plan = planPlacement(before);
    mkdirSync(join(out, 'stacks'), { recursive: true });
    writeFileSync(
      join(out, 'placement.json'),
      JSON.stringify({ tenants: plan.tenants.map((t) => ({ name: t.name, kubernetesVersion: t.kubernetesVersion })) }),
    );
    for (const [name, r] of renderTenants(before, plan)) {
      mkdirSync(join(out, 'stacks', `tenant-${name}`));
      // The shape a tenant stack's cdk.tf.json has: the Cluster is a kubernetes_manifest's manifest.
      writeFileSync(
        join(out, 'stacks', `tenant-${name}`, 'cdk.tf.json'),
        JSON.stringify({ resource: { kubernetes_manifest: { cluster_X: { manifest: r.cluster } } } }),
      );
    }
    expect(machineDeploymentsOfOutput(out).map((m) => m.name)).toEqual(allMds(before).map((m) => m.name));
    const config = join(dir, 'lab.yaml');
    writeFileSync(config, stringify(doc((d) => (txl(d).storage.disks = 'ceph-ssd'))));
    expect(() => refuseUnrollableUpgrades(config, out)).toThrow(
      /lab\.yaml:\d+:\d+ {2}tenants\[0\]: tenant tenant-a: this change replaces 2 node groups with no surge/,
    );
    writeFileSync(config, stringify(doc()));
    expect(() => refuseUnrollableUpgrades(config, out)).not.toThrow();
  });
});
