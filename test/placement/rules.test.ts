/** Property-based tests: every placement rule of the issue, on generated labs. */
import fc from 'fast-check';
import type { Lab } from '../../modules/config/schema';
import { fnv1a, rendezvousWeight } from '../../modules/placement/hash';
import { ProblemError } from '../../modules/config/problems';
import { fixedReplicas, machinesAtLeast, machinesAtMost, planPlacement, renderJson, type PlacementPlan, type PoolPlan } from '../../modules/placement';
import { labOf, labSpecArb, perInstance, perNode, roomy, shuffledArb, tight, type LabSpec } from './support';

const RUNS = { numRuns: 150 };

function attempt(lab: Lab): PlacementPlan | ProblemError {
  try {
    return planPlacement(lab);
  } catch (e) {
    if (e instanceof ProblemError) return e;
    throw e;
  }
}

/** Free room of a node in the final plan, for one machine size: can it take one more machine? */
function hasRoomFor(plan: PlacementPlan, instance: string, node: string, size: PoolPlan['size']): boolean {
  const usage = plan.nodes.find((n) => n.instance === instance && n.node === node)!;
  return usage.cpu.capacity - usage.cpu.planned >= size.cpu && usage.memoryMiB.capacity - usage.memoryMiB.planned >= size.memoryMiB;
}

function instanceHasRoomFor(plan: PlacementPlan, instance: string, size: PoolPlan['size']): boolean {
  return plan.nodes.some((n) => n.instance === instance && hasRoomFor(plan, instance, n.node, size));
}

/** For every pool of the spec, with its spec, tenant spec and plan. */
function* pools(spec: LabSpec, plan: PlacementPlan) {
  for (const tenant of spec.tenants) {
    const tenantPlan = plan.tenants.find((t) => t.name === tenant.name)!;
    for (const pool of tenant.pools) yield { tenant, pool, tenantPlan, poolPlan: tenantPlan.pools.find((p) => p.name === pool.name)! };
  }
}

const eligibleOf = (spec: LabSpec, instances?: string[]) => instances ?? spec.instances.map((i) => i.name);

describe('placement rules (property-based)', () => {
  it('the same description in any order of tenants, pools, nodes and eligible instances gives the same bytes', () => {
    fc.assert(
      fc.property(
        labSpecArb(tight).chain((spec) => fc.tuple(fc.constant(spec), shuffledArb(spec))),
        ([spec, shuffled]) => {
          const a = attempt(labOf(spec));
          const b = attempt(labOf(shuffled));
          if (a instanceof ProblemError || b instanceof ProblemError) {
            expect(b).toBeInstanceOf(ProblemError);
            expect(a).toBeInstanceOf(ProblemError);
            // The sentences are the same; the paths are positions in each description.
            const sentences = (e: ProblemError) => e.problems.map((p) => [p.message, p.fix]);
            expect(sentences(b as ProblemError)).toEqual(sentences(a as ProblemError));
          } else {
            expect(renderJson(b)).toBe(renderJson(a));
          }
        },
      ),
      RUNS,
    );
  });

  it('the order of the instances after the default one changes no decision', () => {
    fc.assert(
      fc.property(
        labSpecArb(tight).filter((s) => s.instances.length >= 3),
        fc.nat(),
        (spec, seed) => {
          const [first, ...rest] = spec.instances;
          const rotated = { ...spec, instances: [first, ...rest.slice(seed % rest.length), ...rest.slice(0, seed % rest.length)] };
          const a = attempt(labOf(spec));
          const b = attempt(labOf(rotated));
          if (a instanceof ProblemError) {
            expect((b as ProblemError).problems).toEqual(a.problems);
            return;
          }
          const plan = b as PlacementPlan;
          expect(JSON.stringify(plan.tenants)).toBe(JSON.stringify(a.tenants));
          const byNode = (p: PlacementPlan) => p.nodes.map((n) => JSON.stringify(n)).sort();
          expect(byNode(plan)).toEqual(byNode(a));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('never plans more cpu or memory onto a node than it has after the reserve, and accounts for every machine', () => {
    fc.assert(
      fc.property(labSpecArb(tight), (spec) => {
        const plan = attempt(labOf(spec));
        if (plan instanceof ProblemError) return;
        const reserve = spec.reserve!;
        for (const instance of spec.instances) {
          for (const node of instance.nodes) {
            const usage = plan.nodes.find((n) => n.instance === instance.name && n.node === node.name)!;
            expect(usage.cpu.capacity).toBe(Math.max(0, node.cpu - reserve.cpu));
            expect(usage.memoryMiB.capacity).toBe(Math.max(0, node.memoryMiB - reserve.memoryMiB));
            // Recomputed from the pools, counting max for autoscaled pools.
            let cpu = 0;
            let memory = 0;
            for (const { poolPlan } of pools(spec, plan)) {
              for (const p of poolPlan.placements) {
                if (p.instance !== instance.name || p.node !== node.name) continue;
                cpu += machinesAtMost(p.scale) * poolPlan.size.cpu;
                memory += machinesAtMost(p.scale) * poolPlan.size.memoryMiB;
              }
            }
            expect(usage.cpu.planned).toBe(cpu);
            expect(usage.memoryMiB.planned).toBe(memory);
            expect(cpu).toBeLessThanOrEqual(usage.cpu.capacity);
            expect(memory).toBeLessThanOrEqual(usage.memoryMiB.capacity);
            expect(usage.tenants.reduce((n, t) => n + t.cpu, 0)).toBe(cpu);
            expect(usage.tenants.reduce((n, t) => n + t.memoryMiB, 0)).toBe(memory);
          }
        }
        for (const { pool, poolPlan } of pools(spec, plan)) {
          const sum = (f: (p: PoolPlan['placements'][number]) => number) => poolPlan.placements.reduce((n, p) => n + f(p), 0);
          if (pool.autoscaling) {
            expect(poolPlan.scale).toEqual({ kind: 'autoscaled', min: pool.autoscaling.min, max: pool.autoscaling.max });
            expect(sum((p) => machinesAtMost(p.scale))).toBe(pool.autoscaling.max);
            expect(sum((p) => machinesAtLeast(p.scale))).toBe(pool.autoscaling.min);
            for (const p of poolPlan.placements) {
              // An autoscaled pool's node groups have bounds and no replicas of their own ("not set").
              expect(p.scale.kind).toBe('autoscaled');
              expect(fixedReplicas(p.scale)).toBeUndefined();
              expect(machinesAtLeast(p.scale)).toBeLessThanOrEqual(machinesAtMost(p.scale));
              expect(machinesAtMost(p.scale)).toBeGreaterThan(0);
            }
          } else {
            expect(poolPlan.scale).toEqual({ kind: 'fixed', replicas: pool.replicas });
            expect(sum((p) => fixedReplicas(p.scale) ?? Number.NaN)).toBe(pool.replicas);
            for (const p of poolPlan.placements) expect(fixedReplicas(p.scale)).toBeGreaterThan(0);
          }
        }
      }),
      RUNS,
    );
  });

  it('a lab that does not fit names every pool or tenant that does not, and one that fits everywhere never fails', () => {
    fc.assert(
      fc.property(labSpecArb(tight), (spec) => {
        const lab = labOf(spec);
        const plan = attempt(lab);
        if (!(plan instanceof ProblemError)) return;
        expect(plan.problems.length).toBeGreaterThan(0);
        for (const problem of plan.problems) {
          expect(problem.message).toMatch(/^tenant [a-z]+/);
          expect(problem.message).toMatch(/pve-[a-e]/);
          expect(problem.message).toMatch(/short of|split over the nodes|larger than any node/);
          expect(problem.fix).toMatch(/^add nodes or capacity/);
          // The path is the tenant (and pool) the sentence names, in the description as given.
          const tenant = lab.tenants[problem.path[1] as number];
          expect(problem.message.startsWith(`tenant ${tenant.name}`)).toBe(true);
          if (problem.path.length === 4) expect(problem.message).toContain(`pool ${tenant.pools[problem.path[3] as number].name} `);
        }
      }),
      RUNS,
    );
    fc.assert(
      fc.property(labSpecArb(roomy), (spec) => {
        expect(attempt(labOf(spec))).not.toBeInstanceOf(ProblemError);
      }),
      { numRuns: 50 },
    );
  });

  it('pinned pools stay on their instance and Default tenants on the default instance', () => {
    fc.assert(
      fc.property(labSpecArb(tight), (spec) => {
        const plan = attempt(labOf(spec));
        if (plan instanceof ProblemError) return;
        for (const { tenant, pool, poolPlan } of pools(spec, plan)) {
          const used = [...perInstance(poolPlan, 'max').keys()];
          if (pool.instance !== undefined) {
            expect(poolPlan.pinned).toBe(pool.instance);
            expect(used).toEqual([pool.instance]);
          } else if (tenant.mode === 'Default') {
            expect(used).toEqual([spec.instances[0].name]);
          } else {
            for (const instance of used) expect(eligibleOf(spec, tenant.instances)).toContain(instance);
          }
        }
      }),
      RUNS,
    );
  });

  it('a SingleInstance tenant puts every unpinned machine on one eligible instance, the best-ranked with room', () => {
    fc.assert(
      fc.property(labSpecArb(tight), (spec) => {
        const plan = attempt(labOf(spec));
        if (plan instanceof ProblemError) return;
        for (const tenant of spec.tenants.filter((t) => t.mode === 'SingleInstance')) {
          const tenantPlan = plan.tenants.find((t) => t.name === tenant.name)!;
          const free = tenant.pools.filter((p) => p.instance === undefined);
          const used = new Set(
            free.flatMap((p) => [
              ...perInstance(
                tenantPlan.pools.find((x) => x.name === p.name)!,
                'max',
              ).keys(),
            ]),
          );
          if (free.length === 0) continue;
          expect(used.size).toBe(1);
          // The ranking is the rendezvous order of (tenant, instance), highest weight first.
          const eligible = [...new Set(eligibleOf(spec, tenant.instances))];
          const weight = (i: string) => rendezvousWeight(fnv1a(tenant.name), fnv1a(i));
          expect(tenantPlan.ranking).toEqual([...eligible].sort((a, b) => weight(b) - weight(a) || (a < b ? -1 : 1)));
          const chosen = [...used][0];
          expect(eligible).toContain(chosen);
          if (chosen !== tenantPlan.ranking![0]) expect(plan.warnings.some((w) => w.startsWith(`tenant ${tenant.name}: placed on ${chosen}`))).toBe(true);
        }
      }),
      RUNS,
    );
  });

  it('with room everywhere, a SingleInstance tenant takes its best-ranked instance', () => {
    fc.assert(
      fc.property(labSpecArb(roomy), (spec) => {
        const plan = planPlacement(labOf(spec));
        for (const tenant of plan.tenants.filter((t) => t.mode === 'SingleInstance')) {
          for (const pool of tenant.pools.filter((p) => p.pinned === undefined)) {
            expect([...perInstance(pool, 'max').keys()]).toEqual([tenant.ranking![0]]);
          }
        }
      }),
      { numRuns: 60 },
    );
  });

  it('a MultiInstance pool differs by at most one machine between eligible instances unless the smaller is full', () => {
    fc.assert(
      fc.property(labSpecArb(tight), (spec) => {
        const plan = attempt(labOf(spec));
        if (plan instanceof ProblemError) return;
        for (const { tenant, pool, poolPlan } of pools(spec, plan)) {
          if (tenant.mode !== 'MultiInstance' || pool.instance !== undefined) continue;
          const eligible = [...new Set(eligibleOf(spec, tenant.instances))];
          const max = perInstance(poolPlan, 'max');
          const min = perInstance(poolPlan, 'replicas');
          for (const a of eligible) {
            for (const b of eligible) {
              if ((max.get(a) ?? 0) > (max.get(b) ?? 0) + 1) expect(instanceHasRoomFor(plan, b, poolPlan.size)).toBe(false);
              // min is split the same way, capped by each instance's max.
              if ((min.get(a) ?? 0) > (min.get(b) ?? 0) + 1) expect(min.get(b) ?? 0).toBe(max.get(b) ?? 0);
            }
          }
        }
      }),
      RUNS,
    );
  });

  it('with room everywhere, MultiInstance splits evenly and the extra machines go to the best-ranked instances', () => {
    fc.assert(
      fc.property(labSpecArb(roomy), (spec) => {
        const plan = planPlacement(labOf(spec));
        for (const tenant of plan.tenants.filter((t) => t.mode === 'MultiInstance')) {
          const ranking = tenant.ranking!;
          for (const pool of tenant.pools.filter((p) => p.pinned === undefined)) {
            const total = machinesAtMost(pool.scale);
            const counts = perInstance(pool, 'max');
            const base = Math.floor(total / ranking.length);
            ranking.forEach((instance, rank) => {
              expect(counts.get(instance) ?? 0).toBe(base + (rank < total - base * ranking.length ? 1 : 0));
            });
          }
        }
      }),
      { numRuns: 60 },
    );
  });

  it('within an instance, a pool differs by at most one machine between nodes unless the smaller node is full', () => {
    fc.assert(
      fc.property(labSpecArb(tight), (spec) => {
        const plan = attempt(labOf(spec));
        if (plan instanceof ProblemError) return;
        for (const { poolPlan } of pools(spec, plan)) {
          for (const instance of spec.instances) {
            const max = perNode(poolPlan, instance.name, 'max');
            const min = perNode(poolPlan, instance.name, 'replicas');
            if (max.size === 0) continue;
            for (const a of instance.nodes) {
              for (const b of instance.nodes) {
                if ((max.get(a.name) ?? 0) > (max.get(b.name) ?? 0) + 1) expect(hasRoomFor(plan, instance.name, b.name, poolPlan.size)).toBe(false);
                if ((min.get(a.name) ?? 0) > (min.get(b.name) ?? 0) + 1) expect(min.get(b.name) ?? 0).toBe(max.get(b.name) ?? 0);
              }
            }
          }
        }
      }),
      RUNS,
    );
  });

  it('the HA verdicts say whether every pool with machines keeps one after losing any node / any instance', () => {
    fc.assert(
      fc.property(labSpecArb(tight), (spec) => {
        const plan = attempt(labOf(spec));
        if (plan instanceof ProblemError) return;
        const allNodes = spec.instances.flatMap((i) => i.nodes.map((n) => ({ instance: i.name, node: n.name })));
        for (const tenant of plan.tenants) {
          const survives = (lost: (p: { instance: string; node: string }) => boolean) =>
            tenant.pools.every((pool) => {
              const total = pool.placements.reduce((n, p) => n + machinesAtLeast(p.scale), 0);
              return total === 0 || pool.placements.some((p) => machinesAtLeast(p.scale) > 0 && !lost(p));
            });
          const nodeLoss = allNodes.every((dead) => survives((p) => p.instance === dead.instance && p.node === dead.node));
          const instanceLoss = spec.instances.every((dead) => survives((p) => p.instance === dead.name));
          expect(tenant.ha).toEqual({ survivesNodeLoss: nodeLoss, survivesInstanceLoss: instanceLoss });
        }
      }),
      RUNS,
    );
  });
});

/**
 * Crowded labs: identical nodes, and a filler tenant (placed first, by name) pinned to each
 * instance that leaves a chosen amount of cpu free per node, so an instance's room for a pool of
 * `cpu`-sized machines is exactly nodes × floor(left / cpu).
 */
const crowdedArb = fc
  .record({
    instances: fc.integer({ min: 2, max: 4 }),
    nodes: fc.integer({ min: 1, max: 3 }),
    left: fc.array(fc.integer({ min: 0, max: 24 }), { minLength: 4, maxLength: 4 }),
    cpu: fc.integer({ min: 1, max: 6 }),
    count: fc.integer({ min: 1, max: 20 }),
    tenant: fc.constantFrom('bravo', 'charlie', 'delta', 'echo', 'kilo', 'lima'),
  })
  .map((c) => {
    const names = ['pve-a', 'pve-b', 'pve-c', 'pve-d'].slice(0, c.instances);
    const spec: LabSpec = {
      reserve: { cpu: 0, memoryMiB: 0 },
      instances: names.map((name) => ({ name, nodes: Array.from({ length: c.nodes }, (_, n) => ({ name: `${name}-${n + 1}`, cpu: 32, memoryMiB: 1 << 20 })) })),
      tenants: names.map((name, i) => ({
        name: `aaa-filler-${i}`,
        mode: 'Default' as const,
        pools: [{ name: 'filler', replicas: c.nodes, size: { cpu: 32 - c.left[i], memoryMiB: 1024 }, instance: name }],
      })),
    };
    const room = (i: number) => c.nodes * Math.floor(c.left[i] / c.cpu);
    return { c, names, spec, room };
  });

describe('placement on crowded instances (property-based)', () => {
  it('a SingleInstance tenant takes the best-ranked instance that can hold it, warns when that is not the first, or fails naming every instance', () => {
    fc.assert(
      fc.property(crowdedArb, ({ c, names, spec, room }) => {
        spec.tenants.push({ name: c.tenant, mode: 'SingleInstance', pools: [{ name: 'workers', replicas: c.count, size: { cpu: c.cpu, memoryMiB: 1024 } }] });
        const plan = attempt(labOf(spec));
        const weight = (i: string) => rendezvousWeight(fnv1a(c.tenant), fnv1a(i));
        const ranking = [...names].sort((a, b) => weight(b) - weight(a) || (a < b ? -1 : 1));
        const first = ranking.find((i) => room(names.indexOf(i)) >= c.count);
        if (first === undefined) {
          expect(plan).toBeInstanceOf(ProblemError);
          const [problem] = (plan as ProblemError).problems.map((p) => p.message);
          expect(problem).toContain(`tenant ${c.tenant} (SingleInstance)`);
          for (const name of names) expect(problem).toContain(`on ${name}, pool workers`);
          return;
        }
        const placed = plan as PlacementPlan;
        const pool = placed.tenants.find((t) => t.name === c.tenant)!.pools[0];
        expect([...perInstance(pool).keys()]).toEqual([first]);
        const warned = placed.warnings.some((w) => w.startsWith(`tenant ${c.tenant}: placed on ${first}, not on its better-ranked`));
        expect(warned).toBe(first !== ranking[0]);
      }),
      { numRuns: 200 },
    );
  });

  it('a MultiInstance pool gives an instance without room for its share only what fits, the rest to the others, with a warning', () => {
    fc.assert(
      fc.property(crowdedArb, ({ c, names, spec, room }) => {
        spec.tenants.push({ name: c.tenant, mode: 'MultiInstance', pools: [{ name: 'workers', replicas: c.count, size: { cpu: c.cpu, memoryMiB: 1024 } }] });
        const plan = attempt(labOf(spec));
        const total = names.reduce((n, _, i) => n + room(i), 0);
        if (total < c.count) {
          expect(plan).toBeInstanceOf(ProblemError);
          expect((plan as ProblemError).problems.map((p) => p.message)).toEqual([
            expect.stringContaining(`tenant ${c.tenant}, pool workers (MultiInstance): does not fit on`),
          ]);
          return;
        }
        const placed = plan as PlacementPlan;
        const tenant = placed.tenants.find((t) => t.name === c.tenant)!;
        const counts = perInstance(tenant.pools[0]);
        const base = Math.floor(c.count / names.length);
        const share = (i: string) => base + (tenant.ranking!.indexOf(i) < c.count - base * names.length ? 1 : 0);
        let short = false;
        for (const [i, name] of names.entries()) {
          const got = counts.get(name) ?? 0;
          expect(got).toBeLessThanOrEqual(room(i));
          if (got < share(name)) {
            short = true;
            expect(got).toBe(room(i));
          }
        }
        expect([...counts.values()].reduce((a, b) => a + b, 0)).toBe(c.count);
        const warning = placed.warnings.find((w) => w.startsWith(`tenant ${c.tenant}, pool workers: `) && w.includes('its share'));
        expect(warning !== undefined).toBe(short);
      }),
      { numRuns: 200 },
    );
  });
});
