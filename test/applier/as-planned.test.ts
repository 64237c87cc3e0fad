/**
 * "Converged as planned" (twin/as-planned.ts), the check behind `twin --json`'s
 * `converged`: machines exactly as the example lab's placement plan puts them pass; each
 * realistic deviation — a machine on another node, one too few, an IP outside the tenant's range
 * for the instance, the wrong template, an old version, another tenant's token — is named.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseLab } from '../../modules/config/load';
import { fixedTemplateFor, nodeTemplateFor } from '../../modules/config/schema';
import { templateVmIds } from '../../modules/config/template-ids';
import { planPlacement } from '../../modules/placement/plan';
import { machinesAtLeast } from '../../modules/placement/scale';
import { asPlannedProblems, inRanges, type PlannedMachineView } from '../../twin/as-planned';

const root = resolve(__dirname, '../..');
const lab = parseLab(readFileSync(join(root, 'examples/lab.yaml'), 'utf8'), 'examples/lab.yaml');
const plan = planPlacement(lab);

/** The machines of a tenant exactly as planned (the first addresses of its range, the right template and token). */
function asPlanned(name: string): PlannedMachineView[] {
  const tenant = lab.tenants.find((t) => t.name === name)!;
  const tp = plan.tenants.find((t) => t.name === name)!;
  const out: PlannedMachineView[] = [];
  let host = 0;
  for (const pool of tp.pools) {
    for (const p of pool.placements) {
      const instance = lab.proxmox.instances.find((i) => i.name === p.instance)!;
      const network = tenant.networks?.[p.instance] ?? tenant.network!;
      const first = network.addresses[0].split('-')[0].split('/')[0];
      const expected =
        nodeTemplateFor(instance, tp.kubernetesVersion, p.node, (v) =>
          templateVmIds(
            instance.name,
            instance.vmIdRange,
            instance.nodes.map((n) => n.name),
            v,
          ),
        ) ?? fixedTemplateFor(instance, tp.kubernetesVersion);
      for (let i = 0; i < machinesAtLeast(p.scale); i++) {
        const octets = first.split('.').map(Number);
        octets[3] += host++;
        out.push({
          name: `${name}-${pool.name}-${p.node}-${i}`,
          pool: pool.name,
          instance: p.instance,
          node: p.node,
          ipAddresses: [octets.join('.')],
          version: tp.kubernetesVersion,
          createdBy: `capmox@pve!tenant-${name}`,
          template: { vmid: expected?.templateID ?? 100, node: expected?.sourceNode ?? p.node, tags: [tp.kubernetesVersion] },
        });
      }
    }
  }
  return out;
}

const check = (name: string, machines: PlannedMachineView[]) =>
  asPlannedProblems({
    plan: plan.tenants.find((t) => t.name === name)!,
    tenant: lab.tenants.find((t) => t.name === name)!,
    instances: lab.proxmox.instances,
    machines,
    tokenOn: () => `capmox@pve!tenant-${name}`,
  });

describe('converged as planned', () => {
  it('every tenant of the example lab, machines exactly as planned: no difference', () => {
    for (const t of lab.tenants) expect({ tenant: t.name, problems: check(t.name, asPlanned(t.name)) }).toEqual({ tenant: t.name, problems: [] });
  });

  it('names each deviation from the plan', () => {
    const name = 'tenant-c';
    const base = asPlanned(name);
    expect(base.length).toBeGreaterThan(1);
    const mutate = (f: (ms: PlannedMachineView[]) => void) => {
      const ms = structuredClone(base);
      f(ms);
      return check(name, ms);
    };
    const otherNode = lab.proxmox.instances
      .find((i) => i.name === base[0].instance)!
      .nodes.map((n) => n.name)
      .find((n) => n !== base[0].node)!;
    expect(mutate((ms) => (ms[0].node = otherNode)).join('\n')).toMatch(/the plan says|where the plan puts none/);
    expect(mutate((ms) => ms.pop()).join('\n')).toMatch(/machine\(s\), the plan says/);
    expect(mutate((ms) => (ms[0].ipAddresses = ['192.0.2.7'])).join('\n')).toMatch(/IP 192.0.2.7 is outside the tenant's range/);
    expect(mutate((ms) => (ms[0].template = { vmid: 4242, node: ms[0].node!, tags: ['v1.29.0'] })).join('\n')).toMatch(/cloned from VM 4242/);
    expect(mutate((ms) => (ms[0].version = 'v1.29.0')).join('\n')).toMatch(/Kubernetes v1.29.0, the tenant's version is/);
    expect(mutate((ms) => (ms[0].createdBy = 'capmox@pve!tenant-a')).join('\n')).toMatch(/not by the tenant's token/);
    expect(mutate((ms) => (ms[0].pool = 'ghost')).join('\n')).toMatch(/pool ghost is not in the plan/);
    expect(mutate((ms) => delete ms[0].instance).join('\n')).toMatch(/no VM/);
  });

  it("a secondary instance's machine must hold an IP of that instance's own network (tenant-c on pmox-fra)", () => {
    const ms = asPlanned('tenant-c');
    const onFra = ms.find((m) => m.instance === 'pmox-fra')!;
    const onTxl = ms.find((m) => m.instance === 'pmox-txl')!;
    expect(onFra && onTxl).toBeTruthy();
    onFra.ipAddresses = [...onTxl.ipAddresses];
    expect(check('tenant-c', ms).join('\n')).toMatch(/IP .* is outside the tenant's range on pmox-fra/);
  });

  it('reads ranges and CIDRs', () => {
    expect(inRanges('10.0.0.5', ['10.0.0.1-10.0.0.9'])).toBe(true);
    expect(inRanges('10.0.0.10', ['10.0.0.1-10.0.0.9'])).toBe(false);
    expect(inRanges('10.0.1.255', ['10.0.0.0/23'])).toBe(true);
    expect(inRanges('10.0.2.0', ['10.0.0.0/23'])).toBe(false);
  });
});
