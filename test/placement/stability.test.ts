/** Stability: changes elsewhere in the lab move as few machines as the rules allow. */
import fc from 'fast-check';
import { machinesAtLeast, planPlacement, type PlacementPlan } from '../../modules/placement';
import { labOf, labSpecArb, roomy, type InstanceSpec, type LabSpec, type TenantSpec } from './support';

const placementsOf = (plan: PlacementPlan, tenant: string) => JSON.stringify(plan.tenants.find((t) => t.name === tenant)!.pools);

const newTenantArb = fc.record({
  name: fc.constantFrom('kilo', 'lima', 'mike', 'aardvark', 'zulu'),
  mode: fc.constantFrom('Default' as const, 'SingleInstance' as const, 'MultiInstance' as const),
  replicas: fc.integer({ min: 1, max: 30 }),
});

describe('placement stability', () => {
  it('adding or removing another tenant never moves a tenant while capacity allows', () => {
    fc.assert(
      fc.property(labSpecArb(roomy), newTenantArb, (spec, extra) => {
        fc.pre(!spec.tenants.some((t) => t.name === extra.name));
        const added: TenantSpec = {
          name: extra.name,
          mode: extra.mode,
          pools: [{ name: 'workers', replicas: extra.replicas, size: { cpu: 4, memoryMiB: 8192 } }],
        };
        const before = planPlacement(labOf(spec));
        const after = planPlacement(labOf({ ...spec, tenants: [...spec.tenants, added] }));
        for (const tenant of spec.tenants) expect(placementsOf(after, tenant.name)).toBe(placementsOf(before, tenant.name));
        // Removing it again gives back the first plan, byte for byte.
        expect(JSON.stringify(planPlacement(labOf(spec)))).toBe(JSON.stringify(before));
      }),
      { numRuns: 100 },
    );
  });

  it('adding a machine to a pool adds exactly one machine and moves none while capacity allows', () => {
    fc.assert(
      fc.property(labSpecArb(roomy), fc.nat(), (spec, pick) => {
        const fixed = spec.tenants.flatMap((t) => t.pools.filter((p) => p.replicas !== undefined).map((p) => ({ t, p })));
        fc.pre(fixed.length > 0);
        const { t, p } = fixed[pick % fixed.length];
        const grown: LabSpec = {
          ...spec,
          tenants: spec.tenants.map((x) => (x !== t ? x : { ...x, pools: x.pools.map((y) => (y !== p ? y : { ...y, replicas: y.replicas! + 1 })) })),
        };
        const count = (plan: PlacementPlan) => {
          const pool = plan.tenants.find((x) => x.name === t.name)!.pools.find((x) => x.name === p.name)!;
          return new Map(pool.placements.map((x) => [`${x.instance}/${x.node}`, machinesAtLeast(x.scale)]));
        };
        const before = count(planPlacement(labOf(spec)));
        const after = count(planPlacement(labOf(grown)));
        let added = 0;
        for (const [node, n] of after) {
          expect(n).toBeGreaterThanOrEqual(before.get(node) ?? 0);
          added += n - (before.get(node) ?? 0);
        }
        expect(added).toBe(1);
      }),
      { numRuns: 100 },
    );
  });

  it('adding an instance moves about 1/(n+1) of the SingleInstance tenants, all of them to the new instance', () => {
    const TENANTS = 600;
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), fc.stringMatching(/^[a-z]{1,6}$/), fc.stringMatching(/^[a-z]{1,6}$/), (n, tenantPrefix, instancePrefix) => {
        const instance = (i: number): InstanceSpec => ({
          name: `${instancePrefix}-${i}`,
          nodes: [{ name: `${instancePrefix}-${i}-node`, cpu: 100_000, memoryMiB: 100_000 * 1024 }],
        });
        const tenants: TenantSpec[] = Array.from({ length: TENANTS }, (_, t) => ({
          name: `${tenantPrefix}-${t}`,
          mode: 'SingleInstance',
          pools: [{ name: 'workers', replicas: 2, size: { cpu: 2, memoryMiB: 2048 } }],
        }));
        const lab = labOf({ instances: Array.from({ length: n + 1 }, (_, i) => instance(i)), tenants });
        const before = planPlacement({ ...lab, proxmox: { ...lab.proxmox, instances: lab.proxmox.instances.slice(0, n) } });
        const after = planPlacement(lab);
        let moved = 0;
        before.tenants.forEach((t, i) => {
          const was = t.instances[0];
          const is = after.tenants[i].instances[0];
          if (was !== is) {
            moved++;
            expect(is).toBe(instance(n).name);
          }
        });
        // Binomial(600, 1/(n+1)): its standard deviation is at most 0.021 of 600; allow 4 of them.
        expect(Math.abs(moved / TENANTS - 1 / (n + 1))).toBeLessThan(0.085);
      }),
      { numRuns: 20 },
    );
  });

  it('SingleInstance tenants spread over the instances about evenly', () => {
    const tenants: TenantSpec[] = Array.from({ length: 1000 }, (_, t) => ({
      name: `team-${t}`,
      mode: 'SingleInstance',
      pools: [{ name: 'workers', replicas: 1, size: { cpu: 1, memoryMiB: 1024 } }],
    }));
    const instances: InstanceSpec[] = ['pve-a', 'pve-b', 'pve-c', 'pve-d'].map((name) => ({
      name,
      nodes: [{ name: `${name}-1`, cpu: 10_000, memoryMiB: 10_000 * 1024 }],
    }));
    const plan = planPlacement(labOf({ instances, tenants }));
    const counts = new Map<string, number>();
    for (const t of plan.tenants) counts.set(t.instances[0], (counts.get(t.instances[0]) ?? 0) + 1);
    // 250 expected each; binomial standard deviation about 14.
    for (const name of ['pve-a', 'pve-b', 'pve-c', 'pve-d']) expect(Math.abs(counts.get(name)! - 250)).toBeLessThan(60);
  });
});
