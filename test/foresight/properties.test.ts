/**
 * Properties of the foresight tools on random labs (fast-check): a what-if never places onto a lost
 * node; the upgrade planner never accepts a step without a template; the capacity ledger adds up to
 * the plan; the HA conditions agree with the HA booleans.
 */
import fc from 'fast-check';
import type { Lab } from '../../modules/config/schema';
import { hasTemplateFor } from '../../modules/config/rules';
import { ProblemError } from '../../modules/config/problems';
import { capacityLedger, machinesAtLeast, machinesAtMost, planPlacement, type PlacementPlan } from '../../modules/placement';
import { whatIf, type Loss } from '../../modules/foresight/what-if';
import { planTenantUpgrade } from '../../modules/foresight/upgrade';
import { labOf, labSpecArb, roomy, tight } from '../placement/support';

/** The plan, or undefined when the random lab does not fit (then the property does not apply). */
function planOf(lab: Lab): PlacementPlan | undefined {
  try {
    return planPlacement(lab);
  } catch (e) {
    if (e instanceof ProblemError) return undefined;
    throw e;
  }
}

const labArb = fc.oneof(labSpecArb(roomy), labSpecArb(tight)).map(labOf);

/** A lab and a non-empty set of losses among its nodes and instances. */
const lossesArb = labArb.chain((lab) => {
  const nodes: Loss[] = lab.proxmox.instances.flatMap((i) => i.nodes.map((n) => ({ kind: 'node' as const, instance: i.name, node: n.name })));
  const instances: Loss[] = lab.proxmox.instances.map((i) => ({ kind: 'instance' as const, instance: i.name }));
  return fc.tuple(fc.constant(lab), fc.subarray([...nodes, ...instances], { minLength: 1 }));
});

describe('foresight properties', () => {
  it('a what-if never places onto a lost node, and counts exactly the machines that were there', () => {
    fc.assert(
      fc.property(lossesArb, ([lab, losses]) => {
        const plan = planOf(lab);
        fc.pre(plan !== undefined);
        const result = whatIf(lab, plan!, losses);
        const lost = new Set(result.lostNodes.map((n) => `${n.instance}/${n.node}`));
        const expected = new Set(
          lab.proxmox.instances.flatMap((i) =>
            i.nodes.filter((n) => losses.some((l) => l.instance === i.name && (l.kind === 'instance' || l.node === n.name))).map((n) => `${i.name}/${n.name}`),
          ),
        );
        expect(lost).toEqual(expected);
        for (const tenant of result.replan.tenants) {
          for (const pool of tenant.pools) for (const p of pool.placements) expect(lost.has(`${p.instance}/${p.node}`)).toBe(false);
        }
        for (const n of result.replan.nodes) if (lost.has(`${n.instance}/${n.node}`)) expect(n.cpu.planned + n.memoryMiB.planned).toBe(0);
        for (const n of result.headroom) expect(n.lost).toBe(lost.has(`${n.instance}/${n.node}`));
        // Machines lost per tenant: exactly those the plan had on lost nodes.
        for (const tenant of plan!.tenants) {
          const had = tenant.pools
            .flatMap((pool) => pool.placements.filter((p) => lost.has(`${p.instance}/${p.node}`)).map((p) => machinesAtLeast(p.scale)))
            .reduce((a, b) => a + b, 0);
          const impact = result.tenants.find((t) => t.tenant === tenant.name);
          expect(impact?.pools.reduce((n, p) => n + p.lost, 0) ?? 0).toBe(had);
          // Every machine deployment is pinned to one node here, so each lost group is stranded.
          for (const p of impact?.pools ?? []) for (const m of p.on) expect(m.stranded).toBe(true);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('the upgrade planner never accepts a step without a template on every instance the tenant may use', () => {
    const versions = ['v1.30.5', 'v1.30.9', 'v1.31.2', 'v1.31.4', 'v1.32.1', 'v1.33.0', 'v1.34.3', 'v1.35.0'];
    const arb = fc.tuple(
      labSpecArb(roomy),
      fc.array(fc.subarray(versions), { minLength: 4, maxLength: 4 }),
      fc.constantFrom(...versions),
      fc.constantFrom(...versions),
    );
    let accepted = 0;
    fc.assert(
      fc.property(arb, ([spec, tagSets, from, to]) => {
        const base = labOf(spec);
        // Each instance selects templates by tags: the versions it has templates for.
        const lab: Lab = {
          ...base,
          proxmox: {
            ...base.proxmox,
            instances: base.proxmox.instances.map((i, n) => ({ ...i, template: { templateSelector: { matchTags: ['capi', ...tagSets[n]] } } })),
          },
          tenants: base.tenants.map((t) => ({ ...t, kubernetesVersion: to })),
        };
        const plan = planOf(lab);
        fc.pre(plan !== undefined && lab.tenants.length > 0);
        for (const tenant of lab.tenants) {
          const upgrade = planTenantUpgrade(lab, plan!, tenant, from);
          const instances = lab.proxmox.instances.filter((i) => upgrade.instances.includes(i.name));
          const missing = upgrade.steps.some((s) => instances.some((i) => !hasTemplateFor(i, s.version)));
          if (missing) expect(upgrade.accepted).toBe(false);
          if (upgrade.accepted) {
            accepted++;
            for (const step of upgrade.steps) {
              for (const i of instances) expect(hasTemplateFor(i, step.version)).toBe(true);
              expect(step.templates.map((t) => t.instance).sort()).toEqual([...upgrade.instances].sort());
            }
            // One minor per step, never backwards.
            const minors = [from, ...upgrade.steps.map((s) => s.version)].map((v) => Number(v.split('.')[1]));
            for (let k = 1; k < minors.length; k++) expect(minors[k] - minors[k - 1]).toBeLessThanOrEqual(1);
          }
        }
      }),
      { numRuns: 200 },
    );
    expect(accepted).toBeGreaterThan(0);
  });

  it('the capacity ledger adds up to the plan, and the HA conditions agree with the booleans', () => {
    fc.assert(
      fc.property(labArb, (lab) => {
        const plan = planOf(lab);
        fc.pre(plan !== undefined);
        const ledger = capacityLedger(plan!);
        for (const instance of ledger.instances) {
          const nodes = plan!.nodes.filter((n) => n.instance === instance.instance);
          const entries = ledger.tenants.filter((t) => t.instance === instance.instance);
          expect(entries.reduce((s, t) => s + t.cpu, 0)).toBe(nodes.reduce((s, n) => s + n.cpu.planned, 0));
          expect(entries.reduce((s, t) => s + t.memoryMiB, 0)).toBe(nodes.reduce((s, n) => s + n.memoryMiB.planned, 0));
          expect(instance.cpu.reserved).toBe(nodes.reduce((s, n) => s + n.cpu.planned, 0));
          expect(instance.cpu.capacity).toBe(nodes.reduce((s, n) => s + n.cpu.capacity, 0));
        }
        const machines = plan!.tenants.flatMap((t) => t.pools.flatMap((p) => p.placements.map((x) => machinesAtMost(x.scale)))).reduce((a, b) => a + b, 0);
        expect(ledger.tenants.reduce((s, t) => s + t.machines, 0)).toBe(machines);
        for (const n of ledger.nodes) {
          expect(n.cpu.free).toBeGreaterThanOrEqual(0);
          expect(n.memoryMiB.free).toBeGreaterThanOrEqual(0);
        }
        for (const tenant of plan!.tenants) {
          const byType = new Map(tenant.haConditions.map((c) => [c.type, c]));
          expect(byType.get('SurvivesNodeLoss')!.status).toBe(tenant.ha.survivesNodeLoss ? 'True' : 'False');
          expect(byType.get('SurvivesInstanceLoss')!.status).toBe(tenant.ha.survivesInstanceLoss ? 'True' : 'False');
          for (const c of tenant.haConditions) expect(c.causes.length > 0).toBe(c.status === 'False');
        }
      }),
      { numRuns: 200 },
    );
  });
});
