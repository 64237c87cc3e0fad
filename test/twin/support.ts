/** Shared by the lab twin suites: start a twin on a lab text, and compare machines with the plan. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { PlacementPlan } from '../../modules/placement/types';
import { LabTwin, type TwinMachine } from '../../scripts/twin/index';

export const projectRoot = resolve(__dirname, '../..');

export async function startTwin(labText: string, name: string, log = false): Promise<LabTwin> {
  const work = mkdtempSync(join(tmpdir(), `pvekaas-twin-${name}-`));
  return LabTwin.start({ root: projectRoot, labText, labFile: `${name}.yaml`, work, log: log || process.env.PVEKAAS_TWIN_LOG ? (l) => process.stderr.write(`[twin] ${l}\n`) : undefined });
}

/** `pool instance/node` → machines, from the plan (fixed pools: replicas; autoscaled: what the MachineDeployments hold). */
export function plannedCounts(plan: PlacementPlan, tenant: string): Map<string, number> {
  const t = plan.tenants.find((x) => x.name === tenant);
  if (!t) throw new Error(`the plan has no tenant ${tenant}`);
  const out = new Map<string, number>();
  for (const pool of t.pools as { name: string; placements: { instance: string; node: string; replicas: number }[] }[]) {
    for (const p of pool.placements) if (p.replicas > 0) out.set(`${pool.name} ${p.instance}/${p.node}`, (out.get(`${pool.name} ${p.instance}/${p.node}`) ?? 0) + p.replicas);
  }
  return out;
}

export function actualCounts(machines: TwinMachine[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of machines) out.set(`${m.pool} ${m.instance}/${m.node}`, (out.get(`${m.pool} ${m.instance}/${m.node}`) ?? 0) + 1);
  return out;
}

/** Whether an IPv4 address lies in one of the lab's ranges (`a.b.c.d-a.b.c.e` or CIDR). */
export function inRanges(address: string, ranges: string[]): boolean {
  const n = (ip: string) => ip.split('.').reduce((acc, o) => acc * 256 + Number(o), 0);
  const a = n(address);
  return ranges.some((r) => {
    if (r.includes('-')) {
      const [lo, hi] = r.split('-');
      return a >= n(lo) && a <= n(hi);
    }
    const [base, bits] = r.split('/');
    const size = 2 ** (32 - Number(bits ?? 32));
    return a >= n(base) && a < n(base) + size;
  });
}
