/**
 * Random interrupts of `deploy` (issue 42): each run starts a fresh simulated lab (every write
 * answered only after `latencyMs`, so requests are in flight when the signal comes), starts
 * `deploy` of the instance stacks, sends it SIGINT or SIGKILL at a random moment, waits until no
 * process of it is left (after SIGKILL, tofu runs on alone and finishes), then runs `deploy` once
 * more and `deploy --plan`. A run converged when that deploy succeeded, the plan has no changes,
 * and a full inventory of the simulator — every user, token, ACL entry, custom role, pool,
 * storage, VM and downloaded file that was not there before — equals what the states hold: no
 * orphan left, nothing missing. Moments and signals come from a seed, printed, so a failing run
 * can be replayed. Used by test/delivery/deploy-interrupt.test.ts (a few runs) and by
 * `npm run test:interrupts -- --runs 30` (scripts/interrupts.ts). Harness code, like lab-run.ts.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { desiredObjects, orphansOf, stateKey, stateResources, type ProxmoxInventory, type StateResource } from '../../modules/foresight/recover';
import type { InstanceSnapshot } from '../../sim/simulator';
import { startSimulatedLab, type SimulatedLab } from './lab-run';
import { toolchainEnv } from './tofu';

/**
 * The argv of one `deploy` run (after `node`), in one place for every test and harness that runs
 * deploy: flags deploy gains (a confirmation flag for runs without a terminal) are added here.
 */
export function deployArgv(root: string, config: string, out: string, extra: string[] = []): string[] {
  // No terminal here: deploy applies without asking only with --yes (a plan-only run asks nothing).
  const CONFIRM = extra.some((f) => f === '--plan' || f === '--plan-only') ? [] : ['--yes'];
  return [join(root, 'dist/scripts/deploy.js'), '--config', config, '--out', out, ...CONFIRM, ...extra];
}

/** mulberry32: a small seeded generator. */
export function seeded(state: number): () => number {
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface DeployRun {
  status: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

/** Starts deploy in `cwd` with the environment given; `kill.atMs` later sends `kill.signal`. */
export function runDeploy(
  root: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
  args: string[],
  kill?: { signal: NodeJS.Signals; atMs: number; after?: Promise<unknown> },
  onStderr?: (chunk: string) => void,
): Promise<DeployRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      onStderr?.(d.toString());
    });
    child.stdout.resume();
    let timer: NodeJS.Timeout | undefined;
    let ended = false;
    if (kill) void (kill.after ?? Promise.resolve()).then(() => (timer = ended ? undefined : setTimeout(() => child.kill(kill.signal), kill.atMs)));
    const guard = setTimeout(() => child.kill('SIGKILL'), 600_000);
    child.on('error', reject);
    child.on('close', (status, signal) => {
      ended = true;
      clearTimeout(timer);
      clearTimeout(guard);
      resolve({ status, signal, stderr });
    });
  });
}

/** Every process (but this one) whose working directory is inside `dir`: deploy, tofu, provider plugins. */
export function processesIn(dir: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    if (Number(pid) === process.pid) continue;
    try {
      if (readlinkSync(`/proc/${pid}/cwd`).startsWith(dir))
        found.push(`${pid} ${readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').slice(0, 120)}`);
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

export async function noneLeftIn(dir: string, withinMs: number): Promise<string[]> {
  const until = Date.now() + withinMs;
  let left = processesIn(dir);
  while (left.length > 0 && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 250));
    left = processesIn(dir);
  }
  return left;
}

/** An instance's objects as recovery keys them, from the simulator's own view (not through the API). */
export function simInventory(snapshot: InstanceSnapshot): ProxmoxInventory {
  return {
    users: snapshot.users.map((u) => u.userid),
    tokens: snapshot.tokens.map((t) => t.tokenid),
    acl: snapshot.acl.map((e) => ({ path: e.path, type: e.type, ugid: e.ugid, roleid: e.roleid })),
    roles: Object.keys(snapshot.roles),
    pools: snapshot.pools.map((p) => p.poolid),
    storages: snapshot.storages.map((s) => s.storage),
    vms: snapshot.vms.map((v) => ({ vmid: v.vmid, node: v.node })),
    files: snapshot.volumes.filter((v) => v.vmid === undefined && v.node).map((v) => ({ node: v.node!, volid: v.volid })),
  };
}

/** Every object key of an inventory (the forms `stateKey` gives). */
export function inventoryKeyList(inv: ProxmoxInventory): string[] {
  return [
    ...inv.users.map((u) => `user:${u}`),
    ...inv.tokens.map((t) => `token:${t}`),
    ...inv.acl.map((e) => `acl:${e.path}|${e.type}|${e.ugid}|${e.roleid}`),
    ...inv.roles.map((r) => `role:${r}`),
    ...inv.pools.map((p) => `pool:${p}`),
    ...inv.storages.map((s) => `storage:${s}`),
    ...inv.vms.map((v) => `vm:${v.vmid}`),
    ...inv.files.map((f) => `file:${f.node}/${f.volid}`),
  ].sort();
}

/** The state of one stack (local backend, in `<work>/state`). */
export function readStackState(work: string, stack: string): StateResource[] {
  const file = join(work, 'state', `${stack}.tfstate`);
  return existsSync(file) ? stateResources(JSON.parse(readFileSync(file, 'utf8'))) : [];
}

/**
 * What the simulator holds beyond its start and the states do not (orphans), and what the states
 * hold that the simulator does not (missing); plus disks left of VMs that are gone.
 */
export function compareInventory(lab: SimulatedLab, work: string, baseline: Map<string, Set<string>>): { orphans: string[]; missing: string[] } {
  const orphans: string[] = [];
  const missing: string[] = [];
  for (const name of lab.sim.names) {
    const snapshot = lab.sim.snapshot(name);
    const held = inventoryKeyList(simInventory(snapshot)).filter((k) => !baseline.get(name)!.has(k));
    const state = new Set(
      readStackState(work, `proxmox-${name}`)
        .map(stateKey)
        .filter((k): k is string => k !== undefined),
    );
    for (const k of held) if (!state.has(k)) orphans.push(`${name} ${k}`);
    const all = new Set(inventoryKeyList(simInventory(snapshot)));
    for (const k of state) if (!all.has(k)) missing.push(`${name} ${k}`);
    const vmids = new Set(snapshot.vms.map((v) => v.vmid));
    for (const v of snapshot.volumes) if (v.vmid !== undefined && !vmids.has(v.vmid)) orphans.push(`${name} disk:${v.volid} (VM ${v.vmid} is gone)`);
  }
  return { orphans: orphans.sort(), missing: missing.sort() };
}

export interface InterruptOptions {
  root: string;
  labText: string;
  labFile: string;
  /** Runs to make. */
  runs: number;
  seed: number;
  /** Latency of every write (POST, PUT, DELETE) while deploy is interrupted. @default 3000 */
  latencyMs?: number;
  /** `--stacks` of the interrupted deploy. @default 'proxmox-*' */
  stacks?: string;
  /** A moment from deploy's start is drawn from [minMs, maxMs]. @default 2000, 30000 */
  minMs?: number;
  maxMs?: number;
  /** A moment from the first write is drawn from [0, applyMs]. @default 30000 */
  applyMs?: number;
  log?: (line: string) => void;
  /** Runs at once (each its own simulator and scratch directory). @default 1 */
  concurrency?: number;
  /** Keep each run's scratch directory (for a failure): its path is in the result. */
  keep?: boolean;
}

export interface RunResult {
  run: number;
  signal: NodeJS.Signals;
  atMs: number;
  /** `atMs` counted from the first write to the simulator (else from deploy's start). */
  fromApply: boolean;
  /** What the interrupted deploy had done: stopped before tofu, interrupted, done, or killed. */
  how: string;
  /** Orphans found after the interrupt, by kind (`token`, `acl`, ...), before the rerun. */
  orphanKinds: Record<string, number>;
  /** Objects recovery said it imported / replaced on the rerun (lines of its output). */
  recovered: string[];
  converged: boolean;
  /** Why not, when not. */
  failure?: string;
  seconds: number;
  work?: string;
}

/** One run, as described in the module comment. */
/**
 * A run's moment: `fromApply` — `atMs` after the first write reaches the simulator (tofu applying,
 * requests in flight); otherwise `atMs` after deploy starts (synthesis, init or the apply).
 */
export interface Moment {
  signal: NodeJS.Signals;
  atMs: number;
  fromApply: boolean;
}

export async function interruptOnce(o: InterruptOptions, run: number, moment: Moment): Promise<RunResult> {
  const { signal, atMs } = moment;
  const began = Date.now();
  const work = mkdtempSync(join(tmpdir(), 'pvekaas-interrupts-'));
  const latencyMs = o.latencyMs ?? 3000;
  const result: RunResult = { run, signal, atMs, fromApply: moment.fromApply, how: '', orphanKinds: {}, recovered: [], converged: false, seconds: 0 };
  let lab: SimulatedLab | undefined;
  try {
    lab = await startSimulatedLab({ labText: o.labText, labFile: o.labFile, work, root: o.root, simulator: { taskDurationMs: 250 } });
    const sim = lab.sim;
    const baseline = new Map(sim.names.map((n) => [n, new Set(inventoryKeyList(simInventory(sim.snapshot(n))))]));
    const env = {
      ...toolchainEnv(o.root),
      PROXMOX_API_TOKENS: JSON.stringify(Object.fromEntries(sim.names.map((n) => [n, sim.adminToken(n)]))),
      NO_COLOR: '1',
      TF_PLUGIN_CACHE_DIR: join(work, 'plugin-cache'),
    };
    const args = (extra: string[] = []) => deployArgv(o.root, lab!.labFile, lab!.out, ['--stacks', o.stacks ?? 'proxmox-*', ...extra]);
    sim.faults.set({ routes: ['POST', 'PUT', 'DELETE'].map((method) => ({ method, path: '^/', latencyMs })) });
    const firstWrite = new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        if (sim.requests.some((r) => r.method !== 'GET')) {
          clearInterval(poll);
          resolve();
        }
      }, 100);
      poll.unref();
    });
    const first = await runDeploy(o.root, work, env, args(), { signal, atMs, ...(moment.fromApply ? { after: firstWrite } : {}) });
    result.how =
      first.status === 0
        ? 'done before the signal'
        : !first.stderr.includes('▶')
          ? 'stopped before tofu'
          : first.signal === 'SIGKILL'
            ? 'killed during tofu'
            : first.status === 130
              ? 'interrupted'
              : `unexpected: ${first.signal ?? first.status}`;
    if (result.how.startsWith('unexpected')) throw new Error(`${result.how}\n${first.stderr.slice(-2500)}`);
    const secrets = sim.names.map((n) => sim.adminToken(n).split('=')[1]);
    if (secrets.some((s) => first.stderr.includes(s))) throw new Error('the interrupted deploy printed an administrator token');
    // After SIGKILL tofu runs on alone: wait until it has finished (every process of the run gone).
    const left = await noneLeftIn(work, signal === 'SIGINT' ? 10_000 : 300_000);
    if (left.length) throw new Error(`processes left after ${signal}: ${left.join('; ')}`);
    // A write whose client is gone still completes on the server (after its delay): the rerun comes
    // once the server has done what it was sent, as an operator's rerun after a real Proxmox VE has
    // (a rerun racing a request still running on the server is not what this measures).
    await sim.settled(latencyMs + 30_000);
    sim.faults.clear();
    // The orphans the interrupt left, by kind (what the rerun must recover).
    for (const name of sim.names) {
      const stackFile = join(lab.out, 'stacks', `proxmox-${name}`, 'cdk.tf.json');
      if (!existsSync(stackFile)) continue;
      const desired = desiredObjects(JSON.parse(readFileSync(stackFile, 'utf8')));
      for (const d of orphansOf(desired, readStackState(work, `proxmox-${name}`), simInventory(sim.snapshot(name))))
        result.orphanKinds[d.kind] = (result.orphanKinds[d.kind] ?? 0) + 1;
    }
    const again = await runDeploy(o.root, work, env, args());
    result.recovered = again.stderr.split('\n').filter((l) => /^ {4}(imported|replaced|left to the apply): /.test(l));
    if (again.status !== 0) throw new Error(`the deploy after the interrupt failed (exit ${again.status ?? again.signal}):\n${again.stderr.slice(-3000)}`);
    if (secrets.some((s) => again.stderr.includes(s))) throw new Error('the deploy after the interrupt printed an administrator token');
    const plan = await runDeploy(o.root, work, env, args(['--plan']));
    const planned = plan.stderr.match(/✔ proxmox-\S+: planned — no changes/g) ?? [];
    const selected = (o.stacks ?? 'proxmox-*') === 'proxmox-*' ? sim.names.length : 1;
    if (plan.status !== 0 || planned.length !== selected) throw new Error(`the second plan is not empty:\n${plan.stderr.slice(-3000)}`);
    const { orphans, missing } = compareInventory(lab, work, baseline);
    if (orphans.length || missing.length)
      throw new Error(`the simulator and the states differ: orphans ${orphans.join(', ') || 'none'}; missing ${missing.join(', ') || 'none'}`);
    const stillRunning = await noneLeftIn(work, 10_000);
    if (stillRunning.length) throw new Error(`processes left after the rerun: ${stillRunning.join('; ')}`);
    result.converged = true;
  } catch (e) {
    result.failure = (e as Error).message;
  } finally {
    await lab?.sim.stop();
    result.seconds = (Date.now() - began) / 1000;
    if (o.keep && !result.converged) result.work = work;
    else rmSync(work, { recursive: true, force: true });
  }
  return result;
}

export interface InterruptSummary {
  seed: number;
  runs: number;
  converged: number;
  seconds: number;
  /** Orphans met over all runs, by kind. */
  orphanKinds: Record<string, number>;
  /** Runs that left orphans. */
  runsWithOrphans: number;
  bySignal: Record<string, number>;
  results: RunResult[];
}

export async function interruptRuns(o: InterruptOptions): Promise<InterruptSummary> {
  const next = seeded(o.seed);
  const log = o.log ?? (() => undefined);
  const began = Date.now();
  const results: RunResult[] = [];
  log(
    `random interrupts: ${o.runs} run(s), ${o.concurrency ?? 1} at a time, seed ${o.seed} (--seed ${o.seed} replays them), writes delayed ${o.latencyMs ?? 3000} ms`,
  );
  // Every run's signal and moment drawn first: the same seed gives the same runs at any concurrency.
  const min = o.minMs ?? 2000;
  // One run in five at any moment from deploy's start (synthesis, init, apply); the others during the apply.
  const draws: Moment[] = Array.from({ length: o.runs }, () => {
    const signal: NodeJS.Signals = next() < 0.5 ? 'SIGINT' : 'SIGKILL';
    const fromApply = next() >= 0.2;
    return fromApply
      ? { signal, fromApply, atMs: Math.round(next() * (o.applyMs ?? 30000)) }
      : { signal, fromApply, atMs: Math.round(min + next() * ((o.maxMs ?? 30000) - min)) };
  });
  let taken = 0;
  const worker = async () => {
    while (taken < o.runs) {
      const run = ++taken;
      const r = await interruptOnce(o, run, draws[run - 1]);
      results.push(r);
      report(r);
    }
  };
  const report = (r: RunResult) => {
    const kinds = Object.entries(r.orphanKinds)
      .map(([k, n]) => `${n} ${k}`)
      .join(', ');
    log(
      `  run ${r.run}/${o.runs}: ${r.signal} ${r.atMs} ms after ${r.fromApply ? 'the first write' : 'the start'} — ${r.how}; orphans: ${kinds || 'none'}` +
        `${r.recovered.length ? ` (${r.recovered.length} recovery line(s))` : ''}; ${r.converged ? 'converged' : `NOT converged: ${r.failure}`} (${r.seconds.toFixed(0)} s)${r.work ? `; kept ${r.work}` : ''}`,
    );
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(o.concurrency ?? 1, o.runs)) }, worker));
  results.sort((a, b) => a.run - b.run);
  const orphanKinds: Record<string, number> = {};
  for (const r of results) for (const [k, n] of Object.entries(r.orphanKinds)) orphanKinds[k] = (orphanKinds[k] ?? 0) + n;
  const bySignal: Record<string, number> = {};
  for (const r of results) bySignal[r.signal] = (bySignal[r.signal] ?? 0) + 1;
  return {
    seed: o.seed,
    runs: results.length,
    converged: results.filter((r) => r.converged).length,
    seconds: (Date.now() - began) / 1000,
    orphanKinds,
    runsWithOrphans: results.filter((r) => Object.keys(r.orphanKinds).length > 0).length,
    bySignal,
    results,
  };
}
