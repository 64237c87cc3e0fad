/**
 * The core promise, as a property over random labs: what the tenant stacks render is the placement
 * plan. For every tenant and pool, read back from the rendered Cluster topology:
 *
 * - every machine deployment is exactly one node group of the plan (pool, instance, allowed node),
 *   and every node group of the plan has exactly one machine deployment;
 * - a fixed pool's machine deployment replicas add up to the pool's replicas, node group by node group;
 * - an autoscaled pool's machine deployments set no replicas, and their autoscaler annotations are
 *   the node group's min and max (adding up to the pool's bounds).
 *
 * Expectations come from the lab and the plan only, never from the rendering's own helpers.
 */
import fc from 'fast-check';
import type { Lab } from '../../modules/config/schema';
import { planPlacement } from '../../modules/placement';
import type { PlacementPlan } from '../../modules/placement/types';
import { renderTenants } from '../../modules/tenants';
import { AUTOSCALER_MAX, AUTOSCALER_MIN } from '../../modules/tenants/machine-deployments';
import { LABEL_INSTANCE, LABEL_POOL, LABEL_PROXMOX_NODE } from '../../modules/tenants/names';
import { labOf, labSpecArb, roomy } from '../placement/support';

/** A random placement lab made renderable: a network per tenant, templates for the version, spans allowed. */
function renderable(lab: Lab, multiInstance: Lab['capmox']['multiInstance'] = 'proposal'): Lab {
  return {
    ...lab,
    capmox: { ...lab.capmox, multiInstance },
    proxmox: {
      ...lab.proxmox,
      // Shared disks: the one template clones to every node (local disks need a copy per node, B2).
      instances: lab.proxmox.instances.map((i) => ({
        ...i,
        storage: { ...i.storage, disksShared: true },
        template: { ...(i.template as { sourceNode: string; templateID: number }), kubernetesVersion: 'v1.35.4' },
      })),
    },
    tenants: lab.tenants.map((t, k) => ({
      ...t,
      network: { addresses: [`10.${k + 1}.0.10-10.${k + 1}.250.250`], prefix: 16, gateway: `10.${k + 1}.0.1`, dnsServers: [`10.${k + 1}.0.1`] },
    })),
  };
}

interface Group {
  pool: string;
  instance: string;
  node: string;
  replicas?: number;
  min?: number;
  max?: number;
}

const key = (g: { pool: string; instance: string; node: string }) => `${g.pool}/${g.instance}/${g.node}`;

/** Every way the rendered topology of `lab` departs from `plan`; empty when it renders the plan. */
export function contractViolations(lab: Lab, plan: PlacementPlan, rendered = renderTenants(lab, plan)): string[] {
  const out: string[] = [];
  for (const tenant of lab.tenants) {
    const rendering = rendered.get(tenant.name)!;
    const cluster = rendering.cluster as any;
    // The primary's topology, and (capmox.multiInstance: secondary-clusters) each secondary Cluster's
    // MachineDeployments, read the same way: labels, replicas, autoscaler annotations, allowed node.
    const mds: any[] = [
      ...cluster.spec.topology.workers.machineDeployments.map((md: any) => ({
        ...md,
        allowed: md.variables.overrides.find((v: any) => v.name === 'allowedNodes')?.value,
      })),
      ...(rendering.secondaries?.clusters ?? []).flatMap((sc) =>
        sc.machineDeployments.map((m) => {
          const object = m.machineDeployment as any;
          return {
            name: object.metadata.name,
            metadata: object.metadata,
            replicas: object.spec.replicas,
            allowed: (m.machineTemplate as any).spec.template.spec.allowedNodes,
          };
        }),
      ),
    ];
    const seen = new Map<string, Group>();
    for (const md of mds) {
      const labels = md.metadata.labels;
      const allowed = md.allowed;
      const group: Group = { pool: labels[LABEL_POOL], instance: labels[LABEL_INSTANCE], node: labels[LABEL_PROXMOX_NODE] };
      if (JSON.stringify(allowed) !== JSON.stringify([group.node]))
        out.push(`${tenant.name}/${md.name}: allowedNodes ${JSON.stringify(allowed)} is not its node group's node ${group.node}`);
      if (md.failureDomain !== undefined && md.failureDomain !== group.instance)
        out.push(`${tenant.name}/${md.name}: failureDomain ${md.failureDomain} is not ${group.instance}`);
      const annotations = md.metadata.annotations ?? {};
      if (md.replicas !== undefined) group.replicas = md.replicas;
      if (annotations[AUTOSCALER_MIN] !== undefined) group.min = Number(annotations[AUTOSCALER_MIN]);
      if (annotations[AUTOSCALER_MAX] !== undefined) group.max = Number(annotations[AUTOSCALER_MAX]);
      if (seen.has(key(group))) out.push(`${tenant.name}: two machine deployments for node group ${key(group)}`);
      seen.set(key(group), group);
    }
    const tenantPlan = plan.tenants.find((t) => t.name === tenant.name)!;
    const planned = new Set<string>();
    for (const poolPlan of tenantPlan.pools) {
      const pool = tenant.pools.find((p) => p.name === poolPlan.name)!;
      let replicas = 0;
      let min = 0;
      let max = 0;
      for (const p of poolPlan.placements) {
        const k = key({ pool: pool.name, ...p });
        planned.add(k);
        const g = seen.get(k);
        if (!g) {
          out.push(`${tenant.name}: no machine deployment for node group ${k}`);
          continue;
        }
        if (p.scale.kind === 'autoscaled') {
          if (g.replicas !== undefined) out.push(`${tenant.name}: autoscaled node group ${k} sets replicas ${g.replicas}`);
          if (g.min !== p.scale.min || g.max !== p.scale.max)
            out.push(`${tenant.name}: node group ${k} autoscales ${g.min}..${g.max}, the plan says ${p.scale.min}..${p.scale.max}`);
          min += g.min ?? 0;
          max += g.max ?? 0;
        } else {
          if (g.replicas !== p.scale.replicas) out.push(`${tenant.name}: node group ${k} has ${g.replicas} replicas, the plan says ${p.scale.replicas}`);
          if (g.min !== undefined || g.max !== undefined) out.push(`${tenant.name}: fixed node group ${k} has autoscaler bounds`);
          replicas += g.replicas ?? 0;
        }
      }
      if (pool.autoscaling) {
        if (min !== pool.autoscaling.min || max !== pool.autoscaling.max)
          out.push(`${tenant.name}/${pool.name}: rendered bounds ${min}..${max}, the lab says ${pool.autoscaling.min}..${pool.autoscaling.max}`);
      } else if (replicas !== pool.replicas) {
        out.push(`${tenant.name}/${pool.name}: rendered ${replicas} replicas, the lab says ${pool.replicas}`);
      }
    }
    for (const k of seen.keys()) if (!planned.has(k)) out.push(`${tenant.name}: machine deployment for ${k}, which the plan does not have`);
  }
  return out;
}

describe('the rendered topology is the placement plan', () => {
  it.each(['proposal', 'secondary-clusters'] as const)(
    'for random labs (multiInstance: %s): replicas add up, one machine deployment per node group, autoscaler bounds equal min/max',
    (multiInstance) => {
      let ran = 0;
      let skipped = 0;
      let secondaries = 0;
      fc.assert(
        fc.property(labSpecArb(roomy), (spec) => {
          const lab = renderable(labOf(spec), multiInstance);
          let plan: PlacementPlan;
          try {
            plan = planPlacement(lab);
          } catch {
            skipped += 1; // a lab placement refuses (it has its own properties); nothing to render
            return;
          }
          ran += 1;
          const rendered = renderTenants(lab, plan);
          for (const r of rendered.values()) secondaries += r.secondaries?.clusters.reduce((n, sc) => n + sc.machineDeployments.length, 0) ?? 0;
          expect(contractViolations(lab, plan, rendered)).toEqual([]);
        }),
        { numRuns: 150, seed: 20261202 },
      );
      // The property must have run on real labs, not only on ones it skipped.
      expect(ran).toBeGreaterThanOrEqual(100);
      // secondary-clusters: the secondaries' own MachineDeployments were among what was checked.
      if (multiInstance === 'secondary-clusters') expect(secondaries).toBeGreaterThan(0);
      console.log(
        `topology contract (${multiInstance}): ${ran} random labs rendered and checked (${secondaries} secondary machine deployments), ${skipped} skipped (placement refused them)`,
      );
    },
  );

  it('finds a departure when one is made (the check can fail)', () => {
    const lab = renderable(
      labOf({
        instances: [
          {
            name: 'pve-a',
            nodes: [
              { name: 'pve-a-1', cpu: 64, memoryMiB: 262144 },
              { name: 'pve-a-2', cpu: 64, memoryMiB: 262144 },
            ],
          },
        ],
        tenants: [
          {
            name: 'tenant-a',
            mode: 'Default',
            pools: [
              { name: 'workers', replicas: 3, size: { cpu: 2, memoryMiB: 4096 } },
              { name: 'batch', autoscaling: { min: 1, max: 4 }, size: { cpu: 2, memoryMiB: 4096 } },
            ],
          },
        ],
      }),
    );
    const plan = planPlacement(lab);
    expect(contractViolations(lab, plan)).toEqual([]);
    // The rendering with one departure at a time: each is found.
    const mutations: [string, (mds: any[]) => void, RegExp][] = [
      ['a fixed pool forced to 1', (mds) => mds.filter((m) => m.replicas !== undefined).forEach((m) => (m.replicas = 1)), /the lab says 3/],
      ['replicas + 1', (mds) => (mds.find((m) => m.replicas !== undefined).replicas += 1), /has \d+ replicas, the plan says/],
      [
        'autoscaler min 0',
        (mds) => mds.filter((m) => m.metadata.annotations).forEach((m) => (m.metadata.annotations[AUTOSCALER_MIN] = '0')),
        /autoscales 0\.\./,
      ],
      [
        'autoscaler max + 1',
        (mds) => {
          const m = mds.find((x) => x.metadata.annotations);
          m.metadata.annotations[AUTOSCALER_MAX] = String(Number(m.metadata.annotations[AUTOSCALER_MAX]) + 1);
        },
        /the plan says \d+\.\.\d+/,
      ],
      ['a node group dropped', (mds) => mds.pop(), /no machine deployment for node group/],
      [
        'another allowed node',
        (mds) => (mds[0].variables.overrides.find((v: any) => v.name === 'allowedNodes').value = ['pve-a-9']),
        /is not its node group's node/,
      ],
    ];
    for (const [what, mutate, expected] of mutations) {
      const rendered = renderTenants(lab, plan);
      mutate((rendered.get('tenant-a')!.cluster as any).spec.topology.workers.machineDeployments);
      const found = contractViolations(lab, plan, rendered).join('\n');
      expect({ what, found: expected.test(found) }).toEqual({ what, found: true });
    }
  });
});
