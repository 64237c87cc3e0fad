/**
 * "Converged as planned" (docs/twin.md `--json`): every difference between a tenant's machines as
 * the twin sees them and the placement plan. Pure: the twin passes the machines and the token of
 * each instance's credentials Secret.
 */
import { fixedTemplateFor, nodeTemplateFor, type Instance, type Tenant } from '../modules/config/schema';
import { tenantTokenName } from '../modules/config/proxmox-access';
import { templateVmIds } from '../modules/config/template-ids';
import { machinesAtLeast, machinesAtMost } from '../modules/placement/scale';
import type { TenantPlan } from '../modules/placement/types';

/** What the check reads of a machine (twin/harness/types.ts TwinMachine). */
export interface PlannedMachineView {
  name: string;
  pool: string;
  instance?: string;
  node?: string;
  ipAddresses: string[];
  version?: string;
  createdBy?: string;
  template?: { vmid: number; node: string; tags: string[] };
}

export interface AsPlannedInput {
  plan: TenantPlan;
  tenant: Tenant;
  instances: Instance[];
  machines: PlannedMachineView[];
  /** The token id in the tenant's credentials Secret for an instance (undefined: no such Secret). */
  tokenOn: (instance: string) => string | undefined;
}

/**
 * Machines per pool and node (a fixed pool exactly each placement's replicas, an autoscaled one
 * within each placement's min..max, none elsewhere); each machine's IPs in the tenant's range for
 * its instance; its VM cloned from the template for the tenant's version on its node (the node's
 * own template on local disks, else the instance's fixed template, else one tagged with the
 * version); the Machine at the tenant's version; the VM created with the tenant's own token for
 * that instance (`capmox@pve!<tenant token name>`, the one in its credentials Secret there).
 */
export function asPlannedProblems(input: AsPlannedInput): string[] {
  const { plan, tenant, machines } = input;
  const problems: string[] = [];
  const version = plan.kubernetesVersion;
  for (const pool of plan.pools) {
    const mine = machines.filter((m) => m.pool === pool.name);
    for (const p of pool.placements) {
      const n = mine.filter((m) => m.instance === p.instance && m.node === p.node).length;
      const [lo, hi] = [machinesAtLeast(p.scale), machinesAtMost(p.scale)];
      if (n < lo || n > hi) problems.push(`pool ${pool.name} on ${p.instance}/${p.node}: ${n} machine(s), the plan says ${lo === hi ? lo : `${lo}..${hi}`}`);
    }
    for (const m of mine) {
      if (!pool.placements.some((p) => p.instance === m.instance && p.node === m.node))
        problems.push(`machine ${m.name} (pool ${pool.name}) on ${m.instance ?? '?'}/${m.node ?? '?'}, where the plan puts none of the pool`);
    }
  }
  for (const m of machines.filter((x) => !plan.pools.some((p) => p.name === x.pool)))
    problems.push(`machine ${m.name}: pool ${m.pool || '(none)'} is not in the plan`);
  for (const m of machines) {
    const instance = input.instances.find((i) => i.name === m.instance);
    if (!m.instance || !m.node || !instance) {
      problems.push(`machine ${m.name}: no VM`);
      continue;
    }
    const network = tenant.networks?.[m.instance] ?? tenant.network;
    if (m.ipAddresses.length === 0) problems.push(`machine ${m.name}: no IP address`);
    for (const ip of m.ipAddresses) {
      if (!network || !inRanges(ip, network.addresses))
        problems.push(`machine ${m.name}: IP ${ip} is outside the tenant's range on ${m.instance} (${network?.addresses.join(', ') ?? 'none'})`);
    }
    if (m.version !== version) problems.push(`machine ${m.name}: Kubernetes ${m.version ?? '?'}, the tenant's version is ${version}`);
    const expected =
      nodeTemplateFor(instance, version, m.node, (versions) =>
        templateVmIds(
          instance.name,
          instance.vmIdRange,
          instance.nodes.map((x) => x.name),
          versions,
        ),
      ) ?? fixedTemplateFor(instance, version);
    if (!m.template) problems.push(`machine ${m.name}: its VM was not cloned from a template`);
    else if (expected && m.template.vmid !== expected.templateID)
      problems.push(
        `machine ${m.name}: cloned from VM ${m.template.vmid} on ${m.template.node}, the template for ${version} on ${m.node} is VM ${expected.templateID}`,
      );
    else if (!expected && !m.template.tags.includes(version))
      problems.push(`machine ${m.name}: cloned from VM ${m.template.vmid}, not a template tagged ${version}`);
    const token = input.tokenOn(m.instance);
    if (!token) problems.push(`machine ${m.name}: no credentials Secret for ${m.instance} in the tenant namespace`);
    else if (m.createdBy !== token || !token.endsWith(`!${tenantTokenName(tenant.name)}`))
      problems.push(`machine ${m.name}: VM created by ${m.createdBy ?? 'nobody known'}, not by the tenant's token on ${m.instance} (${token})`);
  }
  return problems;
}

/** Whether an IPv4 address lies in one of the ranges (`a.b.c.d-a.b.c.e` or CIDR). */
export function inRanges(address: string, ranges: string[]): boolean {
  const n = (ip: string) => ip.split('.').reduce((acc, o) => acc * 256 + Number(o), 0);
  const a = n(address);
  return ranges.some((r) => {
    if (r.includes('-')) {
      const [lo, hi] = r.split('-');
      return a >= n(lo) && a <= n(hi);
    }
    const [base, bits] = r.split('/');
    return a >= n(base) && a < n(base) + 2 ** (32 - Number(bits ?? 32));
  });
}
