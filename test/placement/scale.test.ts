/** The typed scale of the plan: its helpers, and placement.json read back into the same plan. */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadLabFile } from '../../modules/config/load';
import { fixedReplicas, machinesAtLeast, machinesAtMost, planFromJson, planPlacementPartial, poolScale, renderJson } from '../../modules/placement';

describe('a scale', () => {
  it('fixed: its replicas at most, at least and as replicas', () => {
    const scale = { kind: 'fixed', replicas: 3 } as const;
    expect([machinesAtMost(scale), machinesAtLeast(scale), fixedReplicas(scale)]).toEqual([3, 3, 3]);
  });

  it('autoscaled: max at most, min at least, and no replicas of its own ("not set")', () => {
    const scale = { kind: 'autoscaled', min: 1, max: 6 } as const;
    expect([machinesAtMost(scale), machinesAtLeast(scale), fixedReplicas(scale)]).toEqual([6, 1, undefined]);
  });

  it("a description's pool: its autoscaling bounds, else its replicas", () => {
    expect(poolScale({ replicas: 2 })).toEqual({ kind: 'fixed', replicas: 2 });
    expect(poolScale({ autoscaling: { min: 0, max: 4 } })).toEqual({ kind: 'autoscaled', min: 0, max: 4 });
    expect(poolScale({})).toEqual({ kind: 'fixed', replicas: 0 });
  });
});

describe('placement.json read back (planFromJson)', () => {
  const examples = join(__dirname, '../../examples');
  const loads = (file: string) => {
    try {
      return loadLabFile(join(examples, file));
    } catch {
      return undefined; // refused before placement (examples/lab-mistakes.yaml and the like)
    }
  };
  const labs = readdirSync(examples)
    .filter((f) => f.endsWith('.yaml'))
    .filter((f) => loads(f) !== undefined);

  it('covers the example labs that load', () => expect(labs.length).toBeGreaterThanOrEqual(12));

  it.each(labs)('%s: the same plan, every scale typed again, and the same bytes written from it', (file) => {
    const plan = planPlacementPartial(loads(file)!).plan;
    const json = renderJson(plan);
    const back = planFromJson(json);
    expect(back.tenants).toEqual(plan.tenants);
    expect(renderJson(back)).toBe(json);
  });

  it('the example lab has both kinds, so the round trip covers them', () => {
    const plan = planPlacementPartial(loadLabFile(join(examples, 'lab.yaml'))).plan;
    const kinds = new Set(
      planFromJson(renderJson(plan)).tenants.flatMap((t) => t.pools.flatMap((p) => [p.scale.kind, ...p.placements.map((x) => x.scale.kind)])),
    );
    expect([...kinds].sort()).toEqual(['autoscaled', 'fixed']);
  });

  it('refuses an autoscaled node group written without its bounds', () => {
    const plan = planPlacementPartial(loadLabFile(join(examples, 'lab.yaml'))).plan;
    const document = JSON.parse(renderJson(plan));
    const pool = document.tenants
      .flatMap((t: { pools: { autoscaling?: unknown; placements: { min?: number }[] }[] }) => t.pools)
      .find((p: { autoscaling?: unknown }) => p.autoscaling);
    delete pool.placements[0].min;
    expect(() => planFromJson(JSON.stringify(document))).toThrow(/has no min or max/);
  });
});
