/**
 * A staged surge (`tenants[].previous.stage`, docs/tenants.md "Staged surge"): where the whole
 * surge does not fit a node, the node groups surge one batch at a time — each step's surge, then
 * its retire — while the held-back groups keep their old machine deployments exactly as they are.
 * Checked here: placement refuses the one-step surge and names the staged way with step 1's exact
 * `previous`; each step's own surge is counted and must fit; every step's Cluster is one CAPI's
 * topology controller accepts from the one before it (no existing machine deployment's template
 * changes: the pinned CAPMOX refuses any ProxmoxMachineTemplate change), with no node group
 * replaced without a surge and the retire guard's steps per stage; and mutations (a held-back
 * group rewritten, a step skipped) are caught.
 */
import { parse, stringify } from 'yaml';
import { parseLab } from '../../modules/config/load';
import type { Lab } from '../../modules/config/schema';
import { capacityLedger, planPlacement, planPlacementPartial } from '../../modules/placement';
import { poolShortfalls, previousLab, retiringGroups, stagedSurges } from '../../modules/placement/surge';
import type { PoolPlan } from '../../modules/placement/types';
import { flowYaml } from '../../modules/config/flow-yaml';
import { clusterClass, clusterClassTemplates } from '../../modules/tenants/cluster-class';
import { DEFER_UPGRADE } from '../../modules/tenants/cluster';
import { replacedGroups, retiredGroups, topologyMachineDeployments } from '../../modules/tenants/replaced';
import { retireSteps } from '../../scripts/lib/retire-guard';
import { exampleText, renderPlaced, thrownProblems, topologyMds } from './fixtures';
import { generate } from './topology';
import { LABEL_POOL, LABEL_PROXMOX_NODE } from '../../modules/tenants/names';

const FROM = 'v1.35.4';
const TO = 'v1.36.3';

/**
 * The example lab (released CAPMOX) with a v1.36.3 template on each instance and pmox-txl's nodes at
 * 96 GiB; tenant-a has a second pool, batch (2 × 28 GiB). pmox-txl-1 then holds 2 workers and
 * 1 batch of tenant-a and 36 GiB are free after the plan: the whole surge (44 GiB) does not fit, each
 * pool's alone does.
 */
function lab(change: (a: any) => void = () => {}, batchMiB = 28672): Lab {
  const doc = parse(exampleText);
  const [txl, fra] = doc.proxmox.instances;
  txl.template.versions = [{ kubernetesVersion: TO, templateID: 1001 }];
  fra.images.push({ ...fra.images[0], kubernetesVersion: TO, url: fra.images[0].url.replace(FROM, TO) });
  for (const n of txl.nodes) Object.assign(n, { memoryMiB: 98304, cpu: 64 });
  const a = doc.tenants.find((t: any) => t.name === 'tenant-a');
  a.pools.push({ name: 'batch', replicas: 2, size: { cpu: 4, memoryMiB: batchMiB, diskGiB: 40 } });
  change(a);
  return parseLab(stringify(doc), 'staged.yaml');
}
const upgraded = (previous?: unknown) =>
  lab((a) => {
    a.kubernetesVersion = TO;
    if (previous) a.previous = structuredClone(previous);
  });

const txl1 = (l: Lab) => planPlacement(l).nodes.find((n) => n.node === 'pmox-txl-1')!;

/** The worker templates CAPI makes for a Cluster (the model of topology.ts), by topology name; `current`: each existing MD's version. */
function workerTemplates(l: Lab, cluster: any, current: ReadonlyMap<string, string>) {
  const options = { dataStoreName: 'etcd', multiInstance: l.capmox.multiInstance, healthCheck: l.management.healthCheck };
  const g = generate(clusterClass(options), clusterClassTemplates(options), cluster, current);
  return new Map(
    [...g.machineTemplates].map(([name, t]) => [
      name,
      JSON.stringify({ machine: (t.spec as any).template.spec, bootstrap: (g.bootstrapTemplates.get(name)!.spec as any).template.spec }),
    ]),
  );
}

/**
 * What CAPI's topology controller would refuse or do wrong going from one step's Cluster to the next:
 * an existing machine deployment whose worker templates change (the pinned CAPMOX's webhook refuses
 * any ProxmoxMachineTemplate change), and node groups replaced with no machine deployment kept.
 */
function transition(l1: Lab, c1: any, l2: Lab, c2: any, versions: Map<string, string>) {
  const t1 = workerTemplates(l1, c1, versions);
  const t2 = workerTemplates(l2, c2, versions);
  const changed = [...t1.keys()].filter((name) => t2.has(name) && t1.get(name) !== t2.get(name));
  const replaced = replacedGroups(topologyMachineDeployments(c1), topologyMachineDeployments(c2)).map((g) => `${g.pool}/${g.instance}/${g.node}`);
  // CAPI v1.12 computeMachineDeploymentVersion: an existing machine deployment moves to the Cluster's
  // version unless it is deferred (defer-upgrade keeps its current one).
  const versionOf = (c: any, md: any) =>
    md.metadata?.annotations?.[DEFER_UPGRADE] !== undefined && versions.has(md.name) ? versions.get(md.name) : c.spec.topology.version;
  const mds2 = new Map<string, any>(c2.spec.topology.workers.machineDeployments.map((m: any) => [m.name, m]));
  const rolled = c1.spec.topology.workers.machineDeployments
    .filter((m: any) => mds2.has(m.name) && versionOf(c1, m) !== versionOf(c2, mds2.get(m.name)))
    .map((m: any) => m.name);
  return { changed, replaced, rolled };
}

describe('staged surge: an upgrade whose whole surge does not fit a node', () => {
  const before = lab();
  const oneStep = upgraded({ kubernetesVersion: FROM });
  const staged = stagedSurges(oneStep, planPlacementPartial(oneStep).plan, planPlacement(previousLab(oneStep))).find((s) => s.tenant === 'tenant-a')!;

  it('is refused in one step, naming the staged way with the exact previous of step 1', () => {
    const problems = thrownProblems(() => planPlacement(oneStep));
    expect(problems).toEqual([
      {
        path: 'tenants.0.previous',
        message: expect.stringMatching(
          /^tenant tenant-a: node pmox-txl-1 of pmox-txl cannot hold the new machines and the retiring ones at once: .* 36864 MiB free .* hold 12 cpu and 45056 MiB$/,
        ),
        fix: expect.stringContaining(`surge one node group at a time (docs/tenants.md, "Staged surge"): the surge fits in 2 steps`),
      },
    ]);
    expect(staged.fits).toBe(false);
    expect(staged.stages.map((s) => s.groups)).toEqual([
      ['batch/pmox-txl/pmox-txl-1', 'batch/pmox-txl/pmox-txl-2', 'workers/pmox-txl/pmox-txl-2'],
      ['workers/pmox-txl/pmox-txl-1'],
    ]);
    expect(staged.steps[0].surge).toEqual({
      kubernetesVersion: FROM,
      stage: { surge: ['batch/pmox-txl/pmox-txl-1', 'batch/pmox-txl/pmox-txl-2', 'workers/pmox-txl/pmox-txl-2'], hold: ['workers/pmox-txl/pmox-txl-1'] },
    });
    expect(problems[0].fix).toContain(`set tenants[0].previous: ${flowYaml(staged.steps[0].surge)}`);
    expect(staged.steps.map((s) => s.retire)).toEqual([{ kubernetesVersion: FROM, stage: { hold: ['workers/pmox-txl/pmox-txl-1'] } }, undefined]);
    expect(staged.steps[1].surge).toEqual({ kubernetesVersion: FROM, stage: { surge: ['workers/pmox-txl/pmox-txl-1'] } });
  });

  // The five descriptions deployed in turn: step 1 surge and retire, step 2 surge and retire (no previous).
  const descriptions = () => [
    { step: 'before', lab: before },
    { step: 'step 1 surge', lab: upgraded(staged.steps[0].surge) },
    { step: 'step 1 retire', lab: upgraded(staged.steps[0].retire) },
    { step: 'step 2 surge', lab: upgraded(staged.steps[1].surge) },
    { step: 'step 2 retire', lab: upgraded() },
  ];

  it("counts each step's own surge in the plan and the ledger, and each fits", () => {
    const [, s1, r1, s2] = descriptions();
    const free = txl1(upgraded()).memoryMiB.capacity - txl1(upgraded()).memoryMiB.planned;
    const surgeOn = (l: Lab, node: string) =>
      (planPlacement(l).surge ?? [])
        .filter((r) => r.node === node)
        .map((r) => `${r.pool} ${r.memoryMiB}${r.held ? ' held' : ''}`)
        .sort();
    // Step 1: batch surges on pmox-txl-1 (28 GiB of 36 free); its workers are held (old beside nothing: 0 beyond the plan).
    expect(surgeOn(s1.lab, 'pmox-txl-1')).toEqual(['batch 28672', 'workers 0 held']);
    expect(surgeOn(s1.lab, 'pmox-txl-2')).toEqual(['batch 28672', 'workers 8192']);
    expect(surgeOn(r1.lab, 'pmox-txl-1')).toEqual(['workers 0 held']);
    expect(surgeOn(r1.lab, 'pmox-txl-2')).toEqual([]);
    expect(surgeOn(s2.lab, 'pmox-txl-1')).toEqual(['workers 16384']);
    expect(free).toBe(36864);
    const ledger = capacityLedger(planPlacement(s1.lab)).nodes.find((n) => n.node === 'pmox-txl-1')!;
    expect(ledger.memoryMiB.surge).toBe(28672);
    expect(ledger.memoryMiB.free).toBe(36864 - 28672);
    // The stages say the same numbers (upgrade-plan prints them).
    expect(staged.stages.map((s) => s.nodes.find((n) => n.node === 'pmox-txl-1')!.need.memoryMiB)).toEqual([28672, 16384]);
  });

  it('renders each step as CAPI accepts it from the one before: no existing template changes, no group replaced without a surge', () => {
    const steps = descriptions().map((d) => ({ ...d, cluster: renderPlaced(d.lab, 'tenant-a').cluster as any }));
    const names = steps.map((s) => new Set(topologyMds(renderPlaced(s.lab, 'tenant-a')).map((m) => m.name)));
    const old = names[0];
    const end = names[4];
    // Each machine deployment's version: the old ones keep v1.35.4 (defer-upgrade), the new ones are made at v1.36.3.
    const versions = new Map([...old].map((n) => [n, FROM] as [string, string]));
    for (const n of end) versions.set(n, TO);
    expect([...old].filter((n) => end.has(n))).toEqual([]);
    // Step 1 surge: every old one, and the new ones of the surging groups only.
    const oldOf = (group: string) =>
      topologyMds(renderPlaced(before, 'tenant-a')).filter(
        (m) => `${m.metadata.labels[LABEL_POOL]}/pmox-txl/${m.metadata.labels[LABEL_PROXMOX_NODE]}` === group,
      );
    expect(oldOf('workers/pmox-txl/pmox-txl-1').length).toBe(1);
    const heldOld = oldOf('workers/pmox-txl/pmox-txl-1')[0].name;
    expect([...names[1]].filter((n) => old.has(n)).length).toBe(old.size);
    expect([...names[1]].filter((n) => end.has(n)).length).toBe(end.size - 1);
    expect(names[2]).toEqual(new Set([heldOld, ...[...end].filter((n) => names[1].has(n))]));
    expect([...names[3]].sort()).toEqual([heldOld, ...end].sort());
    for (const m of topologyMds(renderPlaced(steps[1].lab, 'tenant-a')).filter((x) => old.has(x.name)))
      expect(m.metadata.annotations).toEqual({ [DEFER_UPGRADE]: '' });
    expect(steps[1].cluster.spec.topology.version).toBe(TO);
    for (let i = 1; i < steps.length; i++) {
      expect({ step: steps[i].step, ...transition(steps[i - 1].lab, steps[i - 1].cluster, steps[i].lab, steps[i].cluster, versions) }).toEqual({
        step: steps[i].step,
        changed: [],
        replaced: [],
        rolled: [],
      });
    }
    // The held-back group's old machine deployment is byte for byte what it was, through step 2's surge.
    const heldMd = (c: any) => c.spec.topology.workers.machineDeployments.find((m: any) => m.name === heldOld);
    expect(workerTemplates(steps[3].lab, steps[3].cluster, versions).get(heldOld)).toBe(workerTemplates(before, steps[0].cluster, versions).get(heldOld));
    expect(heldMd(steps[1].cluster)).toEqual(heldMd(steps[3].cluster));
    expect(
      renderPlaced(steps[1].lab, 'tenant-a')
        .retiring.filter((m) => m.held)
        .map((m) => m.name),
    ).toEqual([heldOld]);
  });

  it('gives the retire guard each step: the surged groups retire while their new machine deployments carry the pools on, the held one stays', () => {
    const steps = descriptions().map((d) => topologyMachineDeployments(renderPlaced(d.lab, 'tenant-a').cluster));
    expect(retireSteps(steps[0], steps[1])).toEqual([]);
    const r1 = retireSteps(steps[1], steps[2]);
    expect(r1.map((s) => s.tenant)).toEqual(['tenant-a']);
    expect(retiredGroups(steps[1], steps[2]).map((g) => `${g.pool}/${g.instance}/${g.node}`)).toEqual(staged.stages[0].groups);
    expect(r1[0].carried.every((n) => steps[4].some((m) => m.name === n))).toBe(true);
    expect(retireSteps(steps[2], steps[3])).toEqual([]);
    expect(retiredGroups(steps[3], steps[4]).map((g) => `${g.pool}/${g.instance}/${g.node}`)).toEqual(staged.stages[1].groups);
  });

  it('catches mutations: a held-back group rewritten, a held group given its new machine deployment, a step skipped', () => {
    const [b, s1, r1] = descriptions();
    const before1 = renderPlaced(b.lab, 'tenant-a').cluster as any;
    const versions = new Map(topologyMds(renderPlaced(b.lab, 'tenant-a')).map((m) => [m.name, FROM] as [string, string]));
    const heldOld = topologyMds(renderPlaced(b.lab, 'tenant-a')).find(
      (m) => m.metadata.labels[LABEL_POOL] === 'workers' && m.metadata.labels[LABEL_PROXMOX_NODE] === 'pmox-txl-1',
    ).name;
    // 1. The held group's old machine deployment without its defer-upgrade: CAPI would roll it to v1.36.3 (a worker on the old image).
    const rewritten = structuredClone(renderPlaced(s1.lab, 'tenant-a').cluster) as any;
    delete rewritten.spec.topology.workers.machineDeployments.find((m: any) => m.name === heldOld).metadata.annotations;
    expect(transition(b.lab, before1, s1.lab, rewritten, versions).rolled).toEqual([heldOld]);
    expect(transition(b.lab, before1, s1.lab, renderPlaced(s1.lab, 'tenant-a').cluster, versions).rolled).toEqual([]);
    // 2. Its overrides dropped (the Cluster's new template values would reach it).
    const stripped = structuredClone(renderPlaced(s1.lab, 'tenant-a').cluster) as any;
    stripped.spec.topology.workers.machineDeployments.find((m: any) => m.name === heldOld).variables.overrides = [];
    expect(transition(b.lab, before1, s1.lab, stripped, versions).changed).toEqual([heldOld]);
    // 3. A step skipped: previous removed right after step 1's retire replaces the held group with no surge (synth and deploy refuse that).
    const after = upgraded();
    const r1Cluster = renderPlaced(r1.lab, 'tenant-a').cluster as any;
    expect(transition(r1.lab, r1Cluster, after, renderPlaced(after, 'tenant-a').cluster as any, new Map()).replaced).toEqual(['workers/pmox-txl/pmox-txl-1']);
    // 4. The held group given its new machine deployment in step 1 (listed under surge): the node is full again, refused with the staged fix.
    const all = upgraded({ kubernetesVersion: FROM, stage: { surge: [...staged.stages[0].groups, ...staged.stages[1].groups] } });
    expect(thrownProblems(() => planPlacement(all))).toEqual([
      expect.objectContaining({
        path: 'tenants.0.previous',
        message: expect.stringContaining('cannot hold the new machines and the retiring ones at once in this step of its staged surge (previous.stage)'),
        fix: expect.stringContaining('set tenants[0].previous: { kubernetesVersion: v1.35.4, stage: { surge: [batch/pmox-txl/pmox-txl-1'),
      }),
    ]);
  });

  it('refuses a stage naming a node group the change does not replace, or one in both lists, at its path', () => {
    const problems = thrownProblems(() =>
      planPlacement(
        upgraded({
          kubernetesVersion: FROM,
          stage: { surge: ['batch/pmox-txl/pmox-txl-1', 'workers/pmox-txl/pmox-txl-9'], hold: ['batch/pmox-txl/pmox-txl-1'] },
        }),
      ),
    );
    expect(problems).toEqual([
      expect.objectContaining({
        path: 'tenants.0.previous.stage.surge.1',
        message: 'tenant tenant-a: previous.stage.surge names workers/pmox-txl/pmox-txl-9, which is not a node group this change replaces',
        fix: expect.stringContaining(
          'name one of batch/pmox-txl/pmox-txl-1, batch/pmox-txl/pmox-txl-2, workers/pmox-txl/pmox-txl-1, workers/pmox-txl/pmox-txl-2',
        ),
      }),
      expect.objectContaining({
        path: 'tenants.0.previous.stage.hold.0',
        message: expect.stringContaining('both in previous.stage.surge and in previous.stage.hold'),
      }),
    ]);
    expect(thrownProblems(() => upgraded({ kubernetesVersion: FROM, stage: { hold: ['workers'] } }))).toEqual([
      expect.objectContaining({ path: 'tenants.0.previous.stage.hold.0', message: expect.stringContaining('a node group is <pool>/<instance>/<node>') }),
    ]);
  });

  it('cannot stage a node group that alone does not fit: the fix stays "make room"', () => {
    const huge = lab((a) => ((a.kubernetesVersion = TO), (a.previous = { kubernetesVersion: FROM })), 40960);
    const problems = thrownProblems(() => planPlacement(huge));
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.every((p) => !p.fix?.includes('one node group at a time'))).toBe(true);
    expect(problems[0].fix).toMatch(/an upgrade surges every pool of the tenant at once: make room/);
  });
});

describe('staged surge: a resize', () => {
  // batch shrinks from 28 to 24 GiB and workers grow to 12 GiB: the one-step surge needs 52 GiB on pmox-txl-1, which has 36 - 4 + 0 free after the plan.
  const resized = (a: any) => {
    a.pools.find((p: any) => p.name === 'batch').size.memoryMiB = 24576;
    a.pools.find((p: any) => p.name === 'workers').size.memoryMiB = 12288;
  };
  const before = lab();
  const withPrevious = (stage?: unknown) =>
    lab((a) => {
      a.previous = { pools: structuredClone(a.pools), ...(stage ? { stage } : {}) };
      resized(a);
    });

  it('counts a held group that shrinks by what its old machines exceed the new ones, and keeps its old machine deployment as it was', () => {
    expect(thrownProblems(() => planPlacement(withPrevious()))[0]).toEqual(
      expect.objectContaining({ path: 'tenants.0.previous', fix: expect.stringContaining('surge one node group at a time') }),
    );
    const step = withPrevious({
      surge: ['workers/pmox-txl/pmox-txl-1', 'workers/pmox-txl/pmox-txl-2'],
      hold: ['batch/pmox-txl/pmox-txl-1', 'batch/pmox-txl/pmox-txl-2'],
    });
    const held = (planPlacement(step).surge ?? []).filter((r) => r.held).map((r) => `${r.pool}/${r.node} ${r.memoryMiB}`);
    expect(held.sort()).toEqual(['batch/pmox-txl-1 4096', 'batch/pmox-txl-2 4096']);
    const old = topologyMds(renderPlaced(before, 'tenant-a'));
    const mid = topologyMds(renderPlaced(step, 'tenant-a'));
    const batchOld = old.filter((m) => m.metadata.labels[LABEL_POOL] === 'batch');
    // The held batch groups: their old machine deployments only, as before (no defer-upgrade on a resize; the overrides sorted by name).
    const sorted = (ms: any[]) =>
      ms.map((m) => ({ ...m, variables: { overrides: [...m.variables.overrides].sort((x: any, y: any) => (x.name < y.name ? -1 : 1)) } }));
    expect(sorted(mid.filter((m) => m.metadata.labels[LABEL_POOL] === 'batch'))).toEqual(sorted(batchOld));
    expect(mid.filter((m) => m.metadata.labels[LABEL_POOL] === 'workers').length).toBe(
      2 * old.filter((m) => m.metadata.labels[LABEL_POOL] === 'workers').length,
    );
    const versions = new Map(old.map((m) => [m.name, FROM] as [string, string]));
    expect(transition(before, renderPlaced(before, 'tenant-a').cluster, step, renderPlaced(step, 'tenant-a').cluster, versions)).toEqual({
      changed: [],
      replaced: [],
      rolled: [],
    });
  });
});

describe('staged surge: every step keeps each pool', () => {
  // A pool whose machines move between nodes (3 replicas: 2 + 1 before, 1 + 2 after), as a change of size can make placement do.
  const pool = (placements: [string, number][]): PoolPlan => ({
    name: 'workers',
    scale: { kind: 'fixed', replicas: 3 },
    size: { cpu: 4, memoryMiB: 8192, diskGiB: 40 },
    placements: placements.map(([node, replicas]) => ({ instance: 'pmox-txl', node, scale: { kind: 'fixed', replicas } })),
  });
  const before = {
    name: 'tenant-a',
    kubernetesVersion: FROM,
    pools: [
      pool([
        ['pmox-txl-1', 2],
        ['pmox-txl-2', 1],
      ]),
    ],
  } as any;
  const after = {
    name: 'tenant-a',
    kubernetesVersion: TO,
    pools: [
      pool([
        ['pmox-txl-1', 1],
        ['pmox-txl-2', 2],
      ]),
    ],
  } as any;
  const ts = { index: 0, tenant: {} as any, before, after, all: retiringGroups(before, after) };
  const state = (done: string[], hold: string[]) => (id: string) =>
    done.includes(id) ? ('done' as const) : hold.includes(id) ? ('hold' as const) : ('surge' as const);

  it('refuses a step in which a done group has fewer new machines than its held neighbour lost', () => {
    expect(ts.all.map((r) => `${r.pool}/${r.instance}/${r.node}`)).toEqual(['workers/pmox-txl/pmox-txl-1', 'workers/pmox-txl/pmox-txl-2']);
    // pmox-txl-1 done first (1 new) while pmox-txl-2 is held (1 old): 2 serving of 3.
    expect(poolShortfalls(ts, state(['workers/pmox-txl/pmox-txl-1'], ['workers/pmox-txl/pmox-txl-2']))).toEqual([
      'pool workers would have 2 machines serving, fewer than the 3 it asks for',
    ]);
    // The other order keeps 3 (2 new on pmox-txl-2, 2 old on pmox-txl-1 held → 4), and so does every group surging.
    expect(poolShortfalls(ts, state(['workers/pmox-txl/pmox-txl-2'], ['workers/pmox-txl/pmox-txl-1']))).toEqual([]);
    expect(poolShortfalls(ts, state([], []))).toEqual([]);
  });
});
