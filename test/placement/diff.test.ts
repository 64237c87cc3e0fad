/** The diff between two plans: moves, additions, removals, bound changes and resizes. */
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { parse, stringify } from 'yaml';
import { parseLab } from '../../modules/config/load';
import { diffPlacement, isEmptyDiff, machinesAtLeast, planPlacement, type NodePlacement, type PlacementPlan, type PoolPlan } from '../../modules/placement';
import { poolOf } from './support';

const size = { cpu: 4, memoryMiB: 8192, diskGiB: 40 };

type PoolSpec = Partial<Omit<PoolPlan, 'scale'>> & { autoscaling?: { min: number; max: number }; placements: NodePlacement[] };

function planWith(pools: Record<string, PoolSpec>, tenant = 'shop'): PlacementPlan {
  return {
    tenants: [
      {
        name: tenant,
        mode: 'MultiInstance',
        kubernetesVersion: 'v1.35.4',
        instances: [...new Set(Object.values(pools).flatMap((p) => p.placements.map((x) => x.instance)))].sort(),
        reason: '',
        ha: { survivesNodeLoss: true, survivesInstanceLoss: true },
        haConditions: [],
        pools: Object.entries(pools).map(([name, { autoscaling, ...p }]) => ({
          name,
          scale: autoscaling
            ? { kind: 'autoscaled' as const, ...autoscaling }
            : { kind: 'fixed' as const, replicas: p.placements.reduce((n, x) => n + machinesAtLeast(x.scale), 0) },
          size,
          ...p,
        })),
      },
    ],
    nodes: [],
    warnings: [],
  };
}

const at = (instance: string, node: string, replicas: number, bounds?: { min: number; max: number }): NodePlacement =>
  bounds ? { instance, node, scale: { kind: 'autoscaled', min: bounds.min, max: bounds.max } } : { instance, node, scale: { kind: 'fixed', replicas } };

describe('diffPlacement', () => {
  it('pairs machines that leave a node with those that arrive elsewhere, first within the instance', () => {
    const before = planWith({ workers: { placements: [at('txl', 'txl-1', 3)] } });
    const after = planWith({ workers: { placements: [at('fra', 'fra-1', 1), at('txl', 'txl-1', 1), at('txl', 'txl-2', 1)] } });
    const diff = diffPlacement(before, after);
    expect(diff.moved).toEqual([
      { tenant: 'shop', pool: 'workers', from: { instance: 'txl', node: 'txl-1' }, to: { instance: 'fra', node: 'fra-1' }, replicas: 1 },
      { tenant: 'shop', pool: 'workers', from: { instance: 'txl', node: 'txl-1' }, to: { instance: 'txl', node: 'txl-2' }, replicas: 1 },
    ]);
    expect(diff.added).toEqual([]);
    expect(diff.removed).toEqual([]);
    expect(diff.tenants).toEqual([{ name: 'shop', before: ['txl'], after: ['fra', 'txl'] }]);
  });

  it('prefers a move inside an instance to one across instances', () => {
    const before = planWith({ workers: { placements: [at('fra', 'fra-1', 1), at('txl', 'txl-1', 1)] } });
    const after = planWith({ workers: { placements: [at('ams', 'ams-1', 1), at('fra', 'fra-2', 1)] } });
    expect(diffPlacement(before, after).moved).toEqual([
      { tenant: 'shop', pool: 'workers', from: { instance: 'fra', node: 'fra-1' }, to: { instance: 'fra', node: 'fra-2' }, replicas: 1 },
      { tenant: 'shop', pool: 'workers', from: { instance: 'txl', node: 'txl-1' }, to: { instance: 'ams', node: 'ams-1' }, replicas: 1 },
    ]);
  });

  it('what cannot be paired is added or removed', () => {
    const before = planWith({ workers: { placements: [at('txl', 'txl-1', 1)] }, old: { placements: [at('txl', 'txl-2', 2)] } });
    const after = planWith({ workers: { placements: [at('txl', 'txl-1', 1), at('txl', 'txl-2', 2)] } });
    const diff = diffPlacement(before, after);
    expect(diff.moved).toEqual([]);
    expect(diff.added).toEqual([{ tenant: 'shop', pool: 'workers', instance: 'txl', node: 'txl-2', replicas: 2 }]);
    expect(diff.removed).toEqual([{ tenant: 'shop', pool: 'old', instance: 'txl', node: 'txl-2', replicas: 2 }]);
    expect(diff.tenants).toEqual([]);
  });

  it('a tenant that disappears has all its machines removed and is listed with after = null', () => {
    const before = planWith({ workers: { placements: [at('txl', 'txl-1', 2)] } });
    const after: PlacementPlan = { tenants: [], nodes: [], warnings: [] };
    const diff = diffPlacement(before, after);
    expect(diff.tenants).toEqual([{ name: 'shop', before: ['txl'], after: null }]);
    expect(diff.removed).toEqual([{ tenant: 'shop', pool: 'workers', instance: 'txl', node: 'txl-1', replicas: 2 }]);
    expect(diffPlacement(after, before).added).toEqual([{ tenant: 'shop', pool: 'workers', instance: 'txl', node: 'txl-1', replicas: 2 }]);
  });

  it('lists the autoscaler bounds of node groups that change, and pools whose machine size changes', () => {
    const before = planWith({
      workers: { autoscaling: { min: 1, max: 4 }, placements: [at('txl', 'txl-1', 1, { min: 1, max: 2 }), at('txl', 'txl-2', 0, { min: 0, max: 2 })] },
    });
    const after = planWith({
      workers: {
        autoscaling: { min: 1, max: 5 },
        size: { ...size, cpu: 8 },
        placements: [at('txl', 'txl-1', 1, { min: 1, max: 3 }), at('txl', 'txl-2', 0, { min: 0, max: 2 })],
      },
    });
    const diff = diffPlacement(before, after);
    expect(diff.bounds).toEqual([{ tenant: 'shop', pool: 'workers', instance: 'txl', node: 'txl-1', before: { min: 1, max: 2 }, after: { min: 1, max: 3 } }]);
    expect(diff.resized).toEqual([{ tenant: 'shop', pool: 'workers', before: size, after: { ...size, cpu: 8 } }]);
    expect(diff.moved.length + diff.added.length + diff.removed.length).toBe(0);
  });

  it('a plan against itself is an empty diff', () => {
    const plan = planWith({ workers: { placements: [at('txl', 'txl-1', 3)] } });
    expect(isEmptyDiff(diffPlacement(plan, plan))).toBe(true);
  });

  it('on the example lab: restricting tenant-b to pmox-fra moves its machines there and frees pmox-txl-1 for tenant-c', () => {
    const text = readFileSync(join(__dirname, '../../examples/lab.yaml'), 'utf8');
    const changed = parse(text);
    changed.tenants.find((t: { name: string }) => t.name === 'tenant-b').placement.instances = ['pmox-fra'];
    const before = planPlacement(parseLab(text, 'lab.yaml'));
    const after = planPlacement(parseLab(stringify(changed), 'lab.yaml'));
    const diff = diffPlacement(before, after);
    expect(diff.tenants).toEqual([{ name: 'tenant-b', before: ['pmox-txl'], after: ['pmox-fra'] }]);
    // tenant-b: its gpu machine and its one guaranteed worker leave pmox-txl-1 for pmox-fra.
    const gpuTo = poolOf(after, 'tenant-b', 'gpu').placements[0];
    const workerTo = poolOf(after, 'tenant-b', 'workers').placements.find((p) => machinesAtLeast(p.scale) === 1)!;
    expect(diff.moved).toEqual(
      expect.arrayContaining([
        { tenant: 'tenant-b', pool: 'gpu', from: { instance: 'pmox-txl', node: 'pmox-txl-1' }, to: { instance: 'pmox-fra', node: gpuTo.node }, replicas: 1 },
        {
          tenant: 'tenant-b',
          pool: 'workers',
          from: { instance: 'pmox-txl', node: 'pmox-txl-1' },
          to: { instance: 'pmox-fra', node: workerTo.node },
          replicas: 1,
        },
      ]),
    );
    // tenant-c's two pmox-txl workers were both on pmox-txl-2 because pmox-txl-1 was full; now 1 + 1.
    expect(diff.moved.filter((m) => m.tenant === 'tenant-c')).toEqual([
      {
        tenant: 'tenant-c',
        pool: 'workers',
        from: { instance: 'pmox-txl', node: 'pmox-txl-2' },
        to: { instance: 'pmox-txl', node: 'pmox-txl-1' },
        replicas: 1,
      },
    ]);
    expect(diff.moved.filter((m) => m.tenant === 'tenant-a')).toEqual([]);
    expect(diff.added).toEqual([]);
    expect(diff.removed).toEqual([]);
    // Every node group of tenant-b's autoscaled workers changes: 3 + 3 on pmox-txl become 2 + 2 + 2 on pmox-fra.
    expect(diff.bounds.filter((b) => b.instance === 'pmox-txl').map((b) => b.after)).toEqual([
      { min: 0, max: 0 },
      { min: 0, max: 0 },
    ]);
    expect(diff.bounds.filter((b) => b.instance === 'pmox-fra').map((b) => b.after.max)).toEqual([2, 2, 2]);
  });
});
