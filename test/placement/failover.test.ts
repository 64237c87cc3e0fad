/**
 * Failover pools (`pools[].failover: true`): synth checks that the loss of any one node holding
 * machines of the pool leaves room for all of them on the survivors, by planning the lab again with
 * that node down — what re-synth after the loss does — and records where they go.
 */
import fc from 'fast-check';
import { ProblemError } from '../../modules/config/problems';
import type { Lab } from '../../modules/config/schema';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseLab } from '../../modules/config/load';
import { whatIf } from '../../modules/foresight/what-if';
import { machinesAtLeast, machinesAtMost, planPlacement, planPlacementPartial, renderJson, renderMarkdown, type NodePlacement } from '../../modules/placement';
import { labOf, labSpecArb, poolOf, tight, type LabSpec } from './support';

const node = (name: string, cpu = 8) => ({ name, cpu, memoryMiB: 65536 });
const size = { cpu: 2, memoryMiB: 1024 };

function withDown(lab: Lab, instance: string, nodeName: string): Lab {
  return {
    ...lab,
    proxmox: {
      ...lab.proxmox,
      instances: lab.proxmox.instances.map((i) =>
        i.name !== instance ? i : { ...i, nodes: i.nodes.map((n) => (n.name === nodeName ? { ...n, down: true } : n)) },
      ),
    },
  };
}

const total = (placements: NodePlacement[]) => placements.reduce((n, p) => n + machinesAtMost(p.scale), 0);
const replicasOf = (p: NodePlacement | undefined) => (p ? machinesAtLeast(p.scale) : undefined);

describe('failover pools', () => {
  const spec = (failover: boolean, nodeCpu = 8): LabSpec => ({
    instances: [{ name: 'a', nodes: [node('a1', nodeCpu), node('a2', nodeCpu), node('a3', nodeCpu)] }],
    tenants: [{ name: 't', mode: 'Default', pools: [{ name: 'w', replicas: 6, size, failover }] }],
  });

  it('records, for each node of the pool, where re-synth with that node down puts its machines', () => {
    const lab = labOf(spec(true));
    const pool = poolOf(planPlacement(lab), 't', 'w');
    expect(pool.placements.map((p) => [p.node, replicasOf(p)])).toEqual([
      ['a1', 2],
      ['a2', 2],
      ['a3', 2],
    ]);
    expect(pool.failover?.map((f) => f.lost.node)).toEqual(['a1', 'a2', 'a3']);
    for (const f of pool.failover ?? []) {
      expect(f.machines).toBe(2);
      expect(f.to.some((t) => t.node === f.lost.node)).toBe(false);
      // The recorded targets are those of a real re-plan with the node down.
      const after = poolOf(planPlacement(withDown(lab, 'a', f.lost.node)), 't', 'w');
      expect(total(after.placements)).toBe(6);
      for (const t of f.to) {
        const before = replicasOf(pool.placements.find((p) => p.node === t.node)) ?? 0;
        expect(replicasOf(after.placements.find((p) => p.node === t.node))).toBe(before + t.replicas);
      }
      expect(f.to.reduce((n, t) => n + t.replicas, 0)).toBe(f.machines);
    }
  });

  it('refuses a pool whose machines would have no room after a node loss, at its failover field; without failover the same lab plans', () => {
    // Three nodes of 4 cpu: 6 machines of 2 cpu fill them; two nodes cannot take them.
    expect(() => planPlacement(labOf(spec(false, 4)))).not.toThrow();
    let error: unknown;
    try {
      planPlacement(labOf(spec(true, 4)));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ProblemError);
    const problems = (error as ProblemError).problems;
    // One problem for the three nodes whose loss leaves the same shortage.
    expect(problems.map((p) => p.path)).toEqual([['tenants', 0, 'pools', 0, 'failover']]);
    expect(problems[0].message).toBe(
      "tenant t, pool w (failover): if any of the nodes a1 (a), a2 (a), a3 (a) is lost, re-synth with it down has no room for the pool's machines: " +
        'does not fit on a: 6 machines of 2 cpu and 1024 MiB need 12 cpu and 6144 MiB; a has 8 cpu and 131072 MiB free after the reserve and earlier placements, room for 4: short of 4 cpu',
    );
    expect(problems[0].fix).toMatch(/add nodes or capacity .* or remove failover/);
  });

  it('plans nothing on a node that is down, and then only warns about a second loss', () => {
    const lab = withDown(labOf(spec(true, 6)), 'a', 'a2');
    const plan = planPlacement(lab);
    const pool = poolOf(plan, 't', 'w');
    expect(pool.placements.map((p) => [p.node, replicasOf(p)])).toEqual([
      ['a1', 3],
      ['a3', 3],
    ]);
    expect(plan.nodes.find((n) => n.node === 'a2')?.cpu).toEqual({ capacity: 0, planned: 0 });
    expect(plan.warnings).toContain('node a2 of a is down: nothing is planned on it until down: true is removed');
    expect(renderMarkdown(plan)).toContain('| w | a1 (a) | 3 | no room (see the warnings) |');
    expect(
      plan.warnings.filter((w) =>
        /^tenant t, pool w \(failover\): if any of the nodes a1 \(a\), a3 \(a\) is lost, .*\(only a warning while a2 \(a\) is down\)/.test(w),
      ),
    ).toHaveLength(1);
  });

  it('warns when a pool without failover would block re-synth after a loss', () => {
    const lab = labOf({
      instances: [{ name: 'a', nodes: [node('a1'), node('a2'), node('a3')] }],
      tenants: [
        { name: 't', mode: 'Default', pools: [{ name: 'w', replicas: 4, size, failover: true }] },
        { name: 'u', mode: 'Default', pools: [{ name: 'w', replicas: 6, size }] },
      ],
    });
    const plan = planPlacement(lab);
    expect(plan.warnings).toContain(
      'if any of the nodes a1 (a), a2 (a), a3 (a) is lost, re-synth with it down is refused: u/w (no failover) would have no room on the surviving nodes; make it or others smaller, add capacity, or give it failover so that synth keeps room for it',
    );
  });

  it('says in the SurvivesNodeLoss condition what failover adds, and leaves plans without failover as they were', () => {
    const withFailover = planPlacement(labOf(spec(true))).tenants[0];
    const without = planPlacement(labOf(spec(false))).tenants[0];
    expect(without.pools[0]).not.toHaveProperty('failover');
    expect(without.haConditions[0].message).toBe('every pool with machines has them on at least two nodes');
    expect(withFailover.haConditions[0].message).toBe(
      'every pool with machines has them on at least two nodes; pool w (failover) gets every lost machine back on the surviving nodes once the node is marked down and the tenant stack is synthesized and applied again',
    );
  });

  it('covers autoscaled pools at their max, and MultiInstance pools over the other instances', () => {
    const lab = labOf({
      instances: [
        { name: 'a', nodes: [node('a1', 4)] },
        { name: 'b', nodes: [node('b1', 16), node('b2', 16)] },
      ],
      tenants: [{ name: 't', mode: 'MultiInstance', pools: [{ name: 'w', autoscaling: { min: 1, max: 4 }, size, failover: true }] }],
    });
    const pool = poolOf(planPlacement(lab), 't', 'w');
    const onA = pool.failover?.find((f) => f.lost.node === 'a1');
    const a1 = pool.placements.find((p) => p.node === 'a1');
    expect(a1?.scale.kind).toBe('autoscaled');
    expect(onA?.machines).toBe(a1 && machinesAtMost(a1.scale));
    expect(onA?.to.every((t) => t.instance === 'b')).toBe(true);
  });

  it('property: a lab that passes the failover check re-plans every failover pool whole after losing any one of its nodes', () => {
    let planned = 0;
    let refused = 0;
    fc.assert(
      fc.property(labSpecArb(tight), (spec) => {
        const lab = labOf({ ...spec, tenants: spec.tenants.map((t) => ({ ...t, pools: t.pools.map((p) => ({ ...p, failover: true })) })) });
        const { plan, problems } = planPlacementPartial(lab);
        if (problems.length > 0) {
          refused++;
          return;
        }
        planned++;
        for (const tenant of plan.tenants) {
          for (const pool of tenant.pools) {
            for (const p of pool.placements.filter((x) => machinesAtMost(x.scale) > 0)) {
              const after = planPlacementPartial(withDown(lab, p.instance, p.node)).plan;
              const again = after.tenants.find((t) => t.name === tenant.name)?.pools.find((x) => x.name === pool.name);
              expect(again && total(again.placements)).toBe(total(pool.placements));
              expect(again?.placements.some((x) => x.instance === p.instance && x.node === p.node)).toBe(false);
            }
          }
        }
      }),
      { numRuns: 60, seed: 14 },
    );
    // Both sides are exercised: labs that pass the check and labs it refuses.
    expect(planned).toBeGreaterThan(5);
    expect(refused).toBeGreaterThan(5);
  });

  describe('the documented lab (test/placement/fixtures/failover.yaml, docs/placement.md)', () => {
    const file = join(__dirname, 'fixtures/failover.yaml');
    const lab = parseLab(readFileSync(file, 'utf8'), file);
    const plan = planPlacement(lab);

    it('lists in the report where each lost node\'s workers go, and says what "survives node loss" means', () => {
      const report = renderMarkdown(plan);
      expect(report).toContain('*survives node loss*: every pool with machines keeps at least one running machine when any one node is lost.');
      expect(report).toContain('| workers | pmox-txl-1 (pmox-txl) | 2 | pmox-txl-2 (pmox-txl) +1, pmox-txl-3 (pmox-txl) +1 |');
      expect(report).toContain(
        '- if any of the nodes pmox-txl-1 (pmox-txl), pmox-txl-2 (pmox-txl), pmox-txl-3 (pmox-txl) is lost, re-synth with it down is refused: tenant-b/gpu (no failover)',
      );
      // The shared-disk template sits on pmox-txl-1: room on the survivors does not help while it is down.
      expect(plan.warnings).toContain(
        "tenant tenant-a, pool workers (failover): pmox-txl-1 holds pmox-txl's v1.35.4 template, and CAPMOX clones through the template's node: " +
          "if pmox-txl-1 is lost, no machine of the tenant on pmox-txl can be created until it is back or the template is on another node (template.sourceNode, or the image's nodes), whatever room the survivors have",
      );
      expect(plan.warnings.filter((w) => w.includes('holds pmox-txl'))).toHaveLength(1);
    });

    it('gives the failover targets in the JSON plan, and nothing new for pools without failover', () => {
      const json = JSON.parse(renderJson(plan));
      const workers = json.tenants[0].pools[0];
      expect(workers.failover[0]).toEqual({
        lost: { instance: 'pmox-txl', node: 'pmox-txl-1' },
        machines: 2,
        to: [
          { instance: 'pmox-txl', node: 'pmox-txl-2', replicas: 1 },
          { instance: 'pmox-txl', node: 'pmox-txl-3', replicas: 1 },
        ],
      });
      expect(json.tenants[1].pools[0]).not.toHaveProperty('failover');
    });

    it('agrees with the what-if: after losing a node, re-synth puts the failover pool whole on the survivors, as the plan recorded', () => {
      for (const f of poolOf(plan, 'tenant-a', 'workers').failover ?? []) {
        const result = whatIf(lab, plan, [{ kind: 'node', instance: f.lost.instance, node: f.lost.node }]);
        const replacements = result.tenants.find((t) => t.tenant === 'tenant-a')?.replacements ?? [];
        expect(replacements.map((r) => ({ instance: r.instance, node: r.node, replicas: r.replicas }))).toEqual(f.to);
        // The second loss is not guaranteed, and only warned about while a node is down.
        expect(result.unplaceable.filter((u) => u.includes('(failover)'))).toEqual([]);
      }
    });
  });

  it('refuses a failover or down that is not a boolean, both at once, at their paths and lines', () => {
    const file = join(__dirname, 'fixtures/failover.yaml');
    const text = readFileSync(file, 'utf8')
      .replace('failover: true ', 'failover: always')
      .replace('{ name: pmox-txl-3, cpu: 16, memoryMiB: 65536 }', '{ name: pmox-txl-3, cpu: 16, memoryMiB: 65536, down: 1 }');
    let error: unknown;
    try {
      parseLab(text, 'failover.yaml');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ProblemError);
    const problems = (error as ProblemError).problems.map((p) => ({ path: p.path.join('.'), message: p.message, line: p.line }));
    const lineOf = (needle: string) => text.split('\n').findIndex((l) => l.includes(needle)) + 1;
    expect(problems).toEqual([
      expect.objectContaining({
        path: 'proxmox.instances.0.nodes.2.down',
        message: expect.stringContaining('down must be true or false'),
        line: lineOf('down: 1'),
      }),
      expect.objectContaining({
        path: 'tenants.0.pools.0.failover',
        message: expect.stringContaining('failover must be true or false'),
        line: lineOf('failover: always'),
      }),
    ]);
    expect((error as ProblemError).message).toContain('failover.yaml:');
  });
});
