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

/** A Kubernetes version's [major, minor, patch], for comparing. */
function versionParts(v: string): number[] {
  return v.replace(/^v/, '').split('.').map(Number);
}
function newer(a: string, b: string): boolean {
  const [x, y] = [versionParts(a), versionParts(b)];
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] > y[i];
  return false;
}

export interface ReadySamples {
  /** Samples taken, and the longest time between two of them. */
  samples: number;
  maxGapMs: number;
  /** `tenant/pool` → the fewest Ready, schedulable Nodes seen at once, and what the pool asks for. */
  pools: Map<string, { min: number; replicas: number; at?: string }>;
  /** Every moment a Node's kubelet (its Machine's version) was newer than its control plane's status.version. */
  skew: string[];
  /** What was seen when something was wrong (for the failure message). */
  notes: string[];
}

/**
 * Samples, every `everyMs` until stopped, every pool's Ready Nodes in each tenant's own API server
 * (the Node's Ready condition True and not cordoned, matched to its Machine's pool through the
 * Machine's nodeRef) and the version of every Machine with a Node against the control plane's
 * `status.version` (the KamajiControlPlane's): the no-outage guarantee of surge, then retire.
 * `replicas`: `tenant` → `pool` → what the pool asks for.
 */
export function sampleReadyNodes(twin: LabTwin, replicas: Map<string, Map<string, number>>, everyMs = 1000): { phase(name: string): void; stop(): Promise<ReadySamples> } {
  const result: ReadySamples = { samples: 0, maxGapMs: 0, pools: new Map(), skew: [], notes: [] };
  for (const [tenant, pools] of replicas) for (const [pool, n] of pools) result.pools.set(`${tenant}/${pool}`, { min: Number.POSITIVE_INFINITY, replicas: n });
  let stopped = false;
  let phase = 'start';
  const mgmt = twin.management.client;
  const loop = (async () => {
    let last = Date.now();
    while (!stopped) {
      const started = Date.now();
      for (const tenant of replicas.keys()) {
        const t = await twin.tenant(tenant);
        const kcps = await mgmt.get(`/apis/controlplane.cluster.x-k8s.io/v1alpha2/namespaces/${tenant}/kamajicontrolplanes`);
        const cpVersion: string | undefined = kcps.status === 200 ? kcps.body.items[0]?.status?.version : undefined;
        const plane = [...twin.kamaji.planes.values()].find((p) => p.namespace === tenant && p.cluster === tenant);
        const nodes = plane ? await plane.server.client.get('/api/v1/nodes') : undefined;
        const ready = new Set(
          ((nodes?.status === 200 ? nodes.body.items : []) as any[])
            .filter((n) => !n.spec?.unschedulable && (n.status?.conditions ?? []).some((c: any) => c.type === 'Ready' && c.status === 'True'))
            .map((n) => n.metadata.name as string),
        );
        const counts = new Map<string, number>();
        for (const m of t.machines) if (m.nodeName && ready.has(m.nodeName)) counts.set(m.pool, (counts.get(m.pool) ?? 0) + 1);
        for (const [pool] of replicas.get(tenant)!) {
          const entry = result.pools.get(`${tenant}/${pool}`)!;
          const n = counts.get(pool) ?? 0;
          if (n < entry.min) {
            entry.min = n;
            entry.at = phase;
            if (n < entry.replicas) result.notes.push(`${phase}: ${tenant}/${pool} has ${n} Ready Nodes (${t.machines.filter((m) => m.pool === pool).map((m) => `${m.name} ${m.phase} ${m.nodeName ?? '-'} ${m.version}`).join(', ')})`);
          }
        }
        for (const m of t.machines) {
          if (m.nodeName && m.version && cpVersion && newer(m.version, cpVersion)) result.skew.push(`${phase}: ${tenant} Node ${m.nodeName} (${m.name}) runs ${m.version}, the control plane ${cpVersion}`);
        }
      }
      const now = Date.now();
      result.samples++;
      result.maxGapMs = Math.max(result.maxGapMs, now - last);
      last = now;
      await new Promise((r) => setTimeout(r, Math.max(0, everyMs - (now - started))));
    }
  })();
  return {
    phase(name: string) {
      phase = name;
    },
    async stop() {
      stopped = true;
      await loop;
      return result;
    },
  };
}

/** The sampled minimum per pool and the step durations, as lines for the test log. */
export function readyReport(title: string, samples: ReadySamples, steps: { step: string; seconds: number }[]): string {
  return [
    `${title}: ${samples.samples} samples, at most ${(samples.maxGapMs / 1000).toFixed(1)} s apart`,
    ...[...samples.pools].map(([pool, p]) => `  ${pool}: fewest Ready Nodes ${p.min} (asks for ${p.replicas})${p.at ? `, first seen during ${p.at}` : ''}`),
    ...steps.map((s) => `  step ${s.step}: ${s.seconds.toFixed(0)} s`),
  ].join('\n');
}
