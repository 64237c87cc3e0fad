/** Shared by the lab twin suites: start a twin on a lab text, and compare machines with the plan. */
import { appendFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { machinesAtLeast } from '../../modules/placement/scale';
import type { PlacementPlan } from '../../modules/placement/types';
import { Worker } from 'node:worker_threads';
import { LabTwin, type TwinMachine, type TwinOptions } from '../../twin/index';
import { KubeClient } from '../../scripts/lib/kube-apiserver';
import { guardRetire, type RetireStep } from '../../scripts/lib/retire-guard';

export const projectRoot = resolve(__dirname, '../..');

export async function startTwin(
  labText: string,
  name: string,
  log = false,
  options: Partial<Omit<TwinOptions, 'root' | 'labText' | 'labFile' | 'work' | 'log'>> = {},
): Promise<LabTwin> {
  const work = mkdtempSync(join(tmpdir(), `pvekaas-twin-${name}-`));
  const twin = await LabTwin.start({
    ...options,
    root: projectRoot,
    labText,
    labFile: `${name}.yaml`,
    work,
    log: log || process.env.PVEKAAS_TWIN_LOG ? (l) => process.stderr.write(`[twin] ${l}\n`) : undefined,
  });
  return timed(twin, name);
}

/** Marks a twin's cases on its timeline and prints it at the end (startTwin does it; for a twin started otherwise). */
export function timed(twin: LabTwin, name: string): LabTwin {
  running.set(twin, { name, cases: 0 });
  return twin;
}

/**
 * Where each running twin's time goes (twin/timeline.ts): the bring-up parts LabTwin marks,
 * the rest of `beforeAll` (to converged), then each case; printed when the file's cases are done.
 */
const running = new Map<LabTwin, { name: string; cases: number }>();
const printed = new Set<LabTwin>();
beforeEach(() => {
  for (const [twin, t] of running) twin.timeline.mark(t.cases === 0 ? 'bring-up: to converged (rest of beforeAll)' : 'between cases');
});
afterEach(() => {
  for (const [twin, t] of running) {
    t.cases++;
    twin.timeline.mark(`case: ${(expect.getState().currentTestName ?? '?').slice(0, 90)}`);
  }
});
/** Prints a twin's timeline (once); the suites call it before stopping a twin, and afterAll does for the rest. */
export function printTimes(twin: LabTwin | undefined): void {
  if (!twin || printed.has(twin) || !running.has(twin)) return;
  printed.add(twin);
  process.stderr.write(`${twin.timeline.report(running.get(twin)!.name)}\n`);
  // The twin's own requests (this process: players, waits, samplers' thread apart), busiest first.
  const sent = [...KubeClient.sent].sort((a, b) => b[1] - a[1]);
  const total = sent.reduce((n, [, c]) => n + c, 0);
  process.stderr.write(
    `  requests sent by this process: ${total}; busiest:\n${sent
      .slice(0, 25)
      .map(([k, c]) => `    ${c} ${k}`)
      .join('\n')}\n`,
  );
  running.delete(twin);
}
afterAll(() => {
  for (const twin of [...running.keys()]) printTimes(twin);
});

/** `pool instance/node` → machines, from the plan (fixed pools: replicas; autoscaled: what the MachineDeployments hold). */
/** Waits until every named tenant converged as planned, else fails with what each still waits for and the twin's diagnostics. */
export async function convergedOrThrow(twin: LabTwin, names: string[], timeoutMs: number): Promise<Awaited<ReturnType<LabTwin['waitConverged']>>> {
  const converged = await twin.waitConverged(names, timeoutMs);
  if (!converged.every((t) => t.converged)) throw new Error(`${converged.map((t) => `${t.name}: ${t.waiting.join('; ')}`).join('\n')}\n${twin.diagnostics()}`);
  return converged;
}

export function plannedCounts(plan: PlacementPlan, tenant: string): Map<string, number> {
  const t = plan.tenants.find((x) => x.name === tenant);
  if (!t) throw new Error(`the plan has no tenant ${tenant}`);
  const out = new Map<string, number>();
  for (const pool of t.pools) {
    for (const p of pool.placements) {
      const replicas = machinesAtLeast(p.scale);
      if (replicas > 0) out.set(`${pool.name} ${p.instance}/${p.node}`, (out.get(`${pool.name} ${p.instance}/${p.node}`) ?? 0) + replicas);
    }
  }
  return out;
}

export function actualCounts(machines: TwinMachine[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of machines) out.set(`${m.pool} ${m.instance}/${m.node}`, (out.get(`${m.pool} ${m.instance}/${m.node}`) ?? 0) + 1);
  return out;
}

/** Whether an IPv4 address lies in one of the lab's ranges (`a.b.c.d-a.b.c.e` or CIDR): the twin's own check. */
export { inRanges } from '../../twin/as-planned';

export interface ReadySamples {
  /** Node events the watcher took the fewest Ready Nodes after (each tenant's list counts as one). */
  events: number;
  /** Watches that could not resume (410 Gone) and were listed again: states in between were not seen. */
  lost: string[];
  /**
   * Node watches that could not resume and were listed again with the gap bridged: each pool's fewest
   * in it taken as its Nodes Ready through it (same object, Ready before and after, not transitioned since).
   */
  bridged: string[];
  /** `tenant/pool` → the fewest Ready, schedulable Nodes seen at once, and what the pool asks for. */
  pools: Map<string, { min: number; replicas: number; at?: string }>;
  /** Every moment a Node's kubelet (its Machine's version) was newer than its control plane's status.version. */
  skew: string[];
  /** What was seen when something was wrong (for the failure message). */
  notes: string[];
  /** Per tenant: its API server asked every second through its Service — samples, the versions it answered in order, the seconds it did not answer. */
  api: Map<string, { samples: number; versions: string[]; failures: string[] }>;
}

/**
 * Watches, until stopped, every pool's Ready Nodes in each tenant's own API server (the Node's
 * Ready condition True and not cordoned, its pool from the `node.cluster.x-k8s.io/pool` label CAPI
 * copies from its Machine) and the version of every Machine with a Node against the control
 * plane's `status.version` (the KamajiControlPlane's): the no-outage guarantee of surge, then
 * retire. Every state the API servers went through is seen, in order, whatever the load
 * (test/twin/ready-sampler.cjs, a worker thread: the test's thread synthesizes stacks for seconds
 * at a time). `replicas`: `tenant` → `pool` → what the pool asks for. Resolves once every watch has
 * its first list.
 */
export async function sampleReadyNodes(
  twin: LabTwin,
  replicas: Map<string, Map<string, number>>,
): Promise<{ phase(name: string): void; stop(): Promise<ReadySamples> }> {
  const tenants = [...replicas].map(([name, pools]) => {
    const plane = [...twin.kamaji.planes.values()].find((p) => p.namespace === name && p.cluster === name);
    if (!plane) throw new Error(`no tenant control plane for ${name}`);
    return { name, url: plane.server.client.url, dir: plane.server.dir, pools: Object.fromEntries(pools) };
  });
  return watchReadyNodes({ url: twin.management.client.url, dir: twin.management.dir }, tenants);
}

/** The watcher itself, on any API servers (test/kube/ready-sampler.test.ts runs it on one). */
export async function watchReadyNodes(
  mgmt: { url: string; dir: string },
  tenants: { name: string; url: string; dir: string; pools: Record<string, number> }[],
): Promise<{ phase(name: string): void; stop(): Promise<ReadySamples> }> {
  const worker = new Worker(join(__dirname, 'ready-sampler.cjs'), { workerData: { mgmt, tenants } });
  const messages: any[] = [];
  const waiters: ((m: any) => void)[] = [];
  worker.on('message', (m) => (waiters.length ? waiters.shift()!(m) : messages.push(m)));
  const failed = new Promise<never>((_, reject) => worker.once('error', reject));
  const next = () => Promise.race([failed, new Promise<any>((r) => (messages.length ? r(messages.shift()) : waiters.push(r)))]);
  const first = await next();
  if (first.error) {
    await worker.terminate();
    throw new Error(`the Ready-Node watcher did not start: ${first.error}`);
  }
  return {
    phase(name: string) {
      worker.postMessage({ phase: name });
    },
    async stop() {
      worker.postMessage({ stop: true });
      const r = await next();
      await worker.terminate();
      return {
        events: r.events,
        lost: r.lost,
        bridged: r.bridged ?? [],
        pools: new Map(Object.entries(r.pools)) as ReadySamples['pools'],
        skew: r.skew,
        notes: r.notes,
        api: new Map(Object.entries(r.api ?? {})) as ReadySamples['api'],
      };
    },
  };
}

/**
 * The sampled minimum per pool and the step durations, as lines for the test log. With
 * `PVEKAAS_DAY_TWO_FIGURES` set (bench/upgrade.ts), the same figures are also appended to that file
 * as one JSON line, with the suite that measured them: the day-two table's rows.
 */
export function readyReport(title: string, samples: ReadySamples, steps: { step: string; seconds: number }[]): string {
  const figures = process.env.PVEKAAS_DAY_TWO_FIGURES;
  if (figures) {
    const record = {
      suite: (expect.getState().testPath ?? '').split('/').pop(),
      title,
      pools: [...samples.pools].map(([pool, p]) => ({ pool, fewest: p.min, replicas: p.replicas, at: p.at })),
      api: [...samples.api].map(([tenant, a]) => ({ tenant, samples: a.samples, unanswered: a.failures.length, versions: a.versions })),
      steps: steps.map((s) => ({ step: s.step, seconds: Math.round(s.seconds) })),
      unseen: samples.lost.length,
    };
    appendFileSync(figures, `${JSON.stringify(record)}\n`);
  }
  return [
    `${title}: ${samples.events} Node events watched${samples.lost.length ? `, ${samples.lost.length} watches listed again (states unseen)` : ', none unseen'}${samples.bridged.length ? `; ${samples.bridged.length} Node watch gap(s) bridged by the Nodes Ready through them` : ''}`,
    ...[...samples.pools].map(([pool, p]) => `  ${pool}: fewest Ready Nodes ${p.min} (asks for ${p.replicas})${p.at ? `, first seen during ${p.at}` : ''}`),
    ...[...samples.api].map(([t, a]) => `  ${t} API server: ${a.samples} seconds asked, ${a.failures.length} unanswered, versions ${a.versions.join(' → ')}`),
    ...steps.map((s) => `  step ${s.step}: ${s.seconds.toFixed(0)} s`),
  ].join('\n');
}

/** Every Machine of the tenants: `namespace/name` → uid. */
export async function machineUids(twin: LabTwin, tenants: string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const ns of tenants) {
    const r = await twin.management.client.get(`/apis/cluster.x-k8s.io/v1beta2/namespaces/${ns}/machines`);
    for (const m of r.body.items as { metadata: { name: string; uid: string } }[]) out.set(`${ns}/${m.metadata.name}`, m.metadata.uid);
  }
  return out;
}

/** Every Cluster of the tenants (primary and secondary): `namespace/name` → its Available condition's status. */
export async function clusterAvailability(twin: LabTwin, tenants: string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const ns of tenants) {
    const r = await twin.management.client.get(`/apis/cluster.x-k8s.io/v1beta2/namespaces/${ns}/clusters`);
    if (r.status !== 200) {
      out.set(`${ns}/*`, `HTTP ${r.status}`);
      continue;
    }
    for (const c of r.body.items as {
      metadata: { name: string };
      status?: { conditions?: { type: string; status: string; reason?: string; message?: string }[] };
    }[]) {
      const available = c.status?.conditions?.find((x) => x.type === 'Available');
      out.set(
        `${ns}/${c.metadata.name}`,
        available ? `${available.status}${available.status === 'True' ? '' : ` (${available.reason}: ${available.message})`}` : 'no Available condition',
      );
    }
  }
  return out;
}

/** Samples the Clusters' Available condition every second until stopped: every state other than True seen. */
export function sampleAvailability(twin: LabTwin, tenants: string[]): { stop(): Promise<{ samples: number; notTrue: string[] }> } {
  let stopped = false;
  const notTrue: string[] = [];
  let samples = 0;
  const loop = (async () => {
    while (!stopped) {
      for (const [cluster, status] of await clusterAvailability(twin, tenants))
        if (status !== 'True') notTrue.push(`${new Date().toISOString().slice(11, 19)} ${cluster}: ${status}`);
      samples++;
      await new Promise((r) => setTimeout(r, 1000));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return { samples, notTrue };
    },
  };
}

/** Waits up to 2 minutes for every Cluster of `tenants` to be Available; what is not, then. */
export async function everyClusterAvailable(twin: LabTwin, tenants: string[]): Promise<[string, string][]> {
  let notAvailable: [string, string][] = [];
  await twin
    .waitFor('every Cluster Available', 120000, async () => {
      notAvailable = [...(await clusterAvailability(twin, tenants))].filter(([, s]) => s !== 'True');
      return notAvailable.length === 0;
    })
    .catch(() => undefined);
  return notAvailable;
}

/** A CRD's served versions and its status.storedVersions. */
export async function crdVersions(twin: LabTwin, name: string): Promise<{ versions: string[]; stored: string[] }> {
  const crd = (await twin.management.client.get(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`)).body;
  return { versions: (crd.spec.versions as { name: string }[]).map((v) => v.name), stored: crd.status.storedVersions as string[] };
}

/**
 * Waits, as deploy does before the retire step, until its retire guard passes on the live
 * MachineDeployments the real CAPI made, with every old VM still there (the surge held them).
 * `onRefusal` gets each refusal, for the timeout's message.
 */
export async function waitForRetireGuard(
  twin: LabTwin,
  what: string,
  timeoutMs: number,
  steps: RetireStep[],
  oldVms: ReadonlySet<string | undefined>,
  onRefusal: (message: string) => void,
): Promise<void> {
  await twin.waitFor(what, timeoutMs, async () => {
    try {
      await guardRetire(twin.lab, steps, undefined, twin.management.client);
      return twin.sim.listVms().filter((v) => oldVms.has(v.uuid)).length === oldVms.size;
    } catch (e) {
      onRefusal((e as Error).message);
      return false;
    }
  });
}

/** The uuids of the VMs (templates apart) the simulator holds on an instance now: the machines a surge must keep until retire. */
export function workerVmUuids(twin: LabTwin, instance: string): Set<string | undefined> {
  return new Set(
    twin.sim
      .listVms()
      .filter((v) => !v.template && v.instance === instance)
      .map((v) => v.uuid),
  );
}

/**
 * The tenant's `default` ServiceAccount in `default`, as the ServiceAccount controller of the
 * tenant's kube-controller-manager would make it (the twin runs none there): a Pod needs it.
 */
export async function ensureDefaultServiceAccount(api: KubeClient): Promise<void> {
  const sa = await api.post('/api/v1/namespaces/default/serviceaccounts', {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: 'default', namespace: 'default' },
  });
  if (sa.status !== 201 && sa.status !== 409) throw new Error(`ServiceAccount default: HTTP ${sa.status}: ${sa.body?.message}`);
}

/**
 * What a failed step said, without the twin's diagnostics its message may carry (the caller adds them
 * once): every line up to the first `--- <part> ---` log section, at most 40. A tofu apply's errors
 * span lines; its first line alone ("tofu apply of management failed:") says nothing.
 */
export function whatFailed(e: unknown): string {
  const lines = String((e as Error)?.message ?? e).split('\n');
  const end = lines.findIndex((l, i) => i > 0 && /^--- .* ---$/.test(l));
  return lines.slice(0, Math.min(end < 0 ? lines.length : end, 40)).join('\n');
}
