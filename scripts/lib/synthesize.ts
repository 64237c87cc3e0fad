/**
 * Synthesizes every stack of a lab into `<out>/stacks/<stack>/cdk.tf.json` (or `cdk.tf`), with
 * the placement plan beside them in `<out>/placement.json` and the tenants' topology machine
 * deployments in `<out>/machine-deployments.json` (the replacement guard's, modules/tenants/replaced.ts).
 *
 * Tenant stacks in JSON with a local backend are written by the lean writer (lean-writer.ts),
 * without cdktf's runtime, byte for byte as cdktf writes them (test/synth/lean-writer.test.ts);
 * every other stack, HCL output and Terraform Cloud backends go through cdktf, which is loaded only
 * then. `cdktfOnly` puts every stack through cdktf (the reference).
 *
 * Output: built in a scratch directory and put in place only when synthesis succeeded, in a
 * directory pvekaas made (see output-dir.ts): a failed or killed run never leaves half-written
 * output, and files pvekaas did not write (`.terraform/`, state) are never deleted.
 *
 * Cache: each stack's synthesized files are reused from the previous output when the content hash
 * of everything the stack is built from is unchanged — pvekaas's own compiled sources and pins
 * (package-lock included), the output format and state path, the lab without its tenants, and for
 * a tenant stack its tenant, its rendering and its placement. The shared stacks (`proxmox-*`,
 * `management`, `management-config`) are one unit: they reference each other. Reused files are
 * checked against the hashes recorded when they were written. Output is byte-identical to a cold
 * synth (test/synth/cache.test.ts compares them over random lab edits).
 *
 * Parallel, on request (`workers`, `synth --jobs N`): worker processes (synth-worker.ts) each
 * synthesize a share of the stacks to build from the same lab text, and the shares are merged
 * here; the bytes are those of a one-process synth (test/synth/parallel.test.ts). Not the default:
 * on the 2-core machine it was measured on it costs more CPU than it saves and was slower in wall
 * time, but it bounds each process's memory (docs/development.md "Benchmark figures").
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, linkSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import type { TerraformStack } from 'cdktf';
import { atLabFile, parseLab, readLabText } from '../../modules/config/load';
import type { Lab } from '../../modules/config/schema';
import { formatWarning, type Problem } from '../../modules/config/problems';
import { labWarnings } from '../../modules/config/safety';
import { planPlacement, renderJson } from '../../modules/placement';
import type { PlacementPlan } from '../../modules/placement/types';
import { planAndRenderLab, renderLab, tenantsOnInstance, type LabRendering } from '../../modules/rendering';
import { UserError, todayUtc } from './cli';
import { supportWarnings } from '../../modules/management';
import { fixHclOutput } from './hcl-fixups';
import { checkOutputDir, isOutputDir, refuseConfiguredPathsInside, synthOutput, writeOutputDir } from './output-dir';
import { cdktfVersion, leanTenantStack, stableStringify, type LeanStack } from './lean-writer';
import { tenantVlanOn } from '../../modules/config/proxmox-access';
import { MACHINE_DEPLOYMENTS_FILE, machineDeploymentsDocument } from '../../modules/tenants/replaced';
import { previousTenant } from '../../modules/placement/surge';
import { vipsJson, type TenantVip, type VipMemory } from '../../modules/tenants/vip';
import { vipMemoryOfOutput } from './vip-memory';
import { datastoreMemoryOfOutput } from './datastore-memory';

export interface SynthOptions {
  config: string;
  out: string;
  hcl?: boolean;
  /** Reuse unchanged stacks from the previous output in `out`. @default true */
  cache?: boolean;
  /**
   * The state directory as seen from a stack's directory. @default the lab's `delivery.local.stateDir`
   * resolved against the working directory, made relative to `<out>/stacks/<stack>/`
   */
  stateDirFromStack?: string;
  /**
   * Worker processes synthesizing the stacks to build, each a share (the first with the instance
   * and management stacks); with fewer tenant stacks to build than workers, this process does it.
   * @default 1 (this process)
   */
  workers?: number;
  /** In one process, the tenant stacks are built and synthesized this many at a time (each batch its own cdktf App). @default BATCH */
  batch?: number;
  /**
   * What the last synth gave each tenant as its VIP (modules/tenants/vip.ts, "Memory").
   * @default the memory of the output in `out` (scripts/lib/vip-memory.ts)
   */
  vipMemory?: VipMemory;
  /** Every stack through cdktf, none through the lean writer (lean-writer.ts): the reference it is compared with. @default false */
  cdktfOnly?: boolean;
}

/** Tenant stacks per cdktf App in a one-process synth: the construct trees of a whole 1,000-tenant lab at once held the peak memory. */
export const BATCH = 100;

/** What a worker process is given (synth-worker.ts): the lab as the parent read it, and each share's stacks. */
export interface SynthJob {
  config: string;
  labText: string;
  hcl: boolean;
  stateDirFromStack: string;
  scratch: string;
  /** Share k goes to `<scratch>/.part-<k>`; `shared`: the instance and management stacks are in it. */
  shares: { shared: boolean; tenantStacks: string[] }[];
  /** The VIP memory the parent read, as [tenant, VIP] pairs. */
  vipMemory: [string, string][];
}

export interface SynthResult {
  lab: Lab;
  plan: PlacementPlan;
  /**
   * Warnings a person should read, besides the plan's: the lab's (plain http, insecure: true) and
   * the version guard's (version skews, pins without digests), as problems of severity `warning`.
   */
  warnings: Problem[];
  /** Every stack, sorted by name. */
  stacks: string[];
  /** Stacks synthesized in this run, and stacks whose files were reused from the previous output. */
  rebuilt: string[];
  reused: string[];
  out: string;
  /** Processes that synthesized the rebuilt stacks: 1 (this one), or the worker processes of a parallel synth. */
  workers: number;
  /** Every tenant's VIP and why (recorded in placement.json as the next synth's memory). */
  vips: TenantVip[];
  /** The memory this synth was given (the previous output's). */
  vipMemory: VipMemory;
}

const CACHE_FILE = '.pvekaas-cache.json';
const CACHE_FORMAT = 1;

interface CachedStack {
  key: string;
  /** sha256 of each file of the stack's directory that synthesis wrote, by path relative to it. */
  files: Record<string, string>;
  /** The stack's entry in manifest.json. */
  manifest: unknown;
}

interface CacheIndex {
  format: number;
  /** manifest.json's `version` (cdktf's). */
  manifestVersion: string;
  stacks: Record<string, CachedStack>;
  /** The management plane's warnings (the version guard's), kept with the cache. */
  warnings: string[];
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

let fingerprint: string | undefined;
/**
 * A hash of pvekaas itself as it runs: every compiled module synthesis can load (stacks,
 * constructs, modules with their pins, bindings, this directory), and the locked dependencies.
 */
export function sourcesFingerprint(): string {
  if (fingerprint) return fingerprint;
  const base = resolve(__dirname, '../..');
  const hash = createHash('sha256');
  const walk = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.(js|ts|json)$/.test(entry.name) && !entry.name.endsWith('.test.ts'))
        hash
          .update(`${relative(base, path)}\0`)
          .update(readFileSync(path))
          .update('\0');
    }
  };
  for (const dir of ['modules', 'stacks', 'constructs', '.gen', 'scripts/lib']) walk(join(base, dir));
  for (const root of [base, dirname(base)]) {
    for (const file of ['package.json', 'package-lock.json']) if (existsSync(join(root, file))) hash.update(`${file}\0`).update(readFileSync(join(root, file)));
  }
  fingerprint = hash.digest('hex');
  return fingerprint;
}

/**
 * manifest.json as cdktf writes it: json-stable-stringify's layout (empty arrays included), by the
 * lean writer's equal serializer (plain JSON data; test/synth/lean-writer.test.ts), which loads
 * none of json-stable-stringify's 45 modules.
 */
function stableJson(value: unknown): string {
  return stableStringify(value);
}

function readCache(out: string): CacheIndex | undefined {
  if (!isOutputDir(out, 'synth')) return undefined;
  try {
    const index = JSON.parse(readFileSync(join(out, CACHE_FILE), 'utf8')) as CacheIndex;
    return index.format === CACHE_FORMAT ? index : undefined;
  } catch {
    return undefined;
  }
}

function stackFiles(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const entry of readdirSync(join(dir, rel), { withFileTypes: true })) {
      const path = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(path);
      else files[path] = sha256(readFileSync(join(dir, path)));
    }
  };
  walk('');
  return files;
}

/**
 * Whether the previous output still holds exactly the files recorded for a stack (each file read
 * and hashed: 3 MB and 10–15 ms of CPU at 100 tenants. A stat signature beside each hash would
 * save that, but the index would then differ from a cold synth's, byte for byte).
 */
function intact(out: string, stack: string, cached: CachedStack): boolean {
  const dir = join(out, 'stacks', stack);
  return Object.entries(cached.files).every(([file, hash]) => {
    const path = join(dir, file);
    return existsSync(path) && statSync(path).isFile() && sha256(readFileSync(path)) === hash;
  });
}

/** `to` as a second name of `from` (no bytes copied), or a copy where a hard link cannot be made. */
function linkOrCopy(from: string, to: string): void {
  try {
    linkSync(from, to);
  } catch {
    copyFileSync(from, to);
  }
}

/** The default state path of a stack synthesized into `out`: the lab's stateDir against the working directory, from `<out>/stacks/<stack>/`. */
export function stateDirFromStackFor(stateDir: string, out: string): string {
  return relative(join(resolve(out), 'stacks', 'any-stack'), resolve(stateDir))
    .split('\\')
    .join('/');
}

interface StacksToSynthesize {
  outdir: string;
  lab: Lab;
  plan: PlacementPlan;
  rendering: LabRendering;
  stateDirFromStack: string;
  hcl: boolean;
  /** The tenant stacks to build, by stack name. */
  tenantStacks: (stackName: string) => boolean;
  /** Whether the instance and management stacks are built (else an empty `management-config` stands in for the tenants' dependency, and is not written). */
  sharedStacks: boolean;
  /** Every stack of the lab is built (and the stand-in `management-config` is not needed). */
  everything: boolean;
}

/** Builds the chosen stacks of a lab and synthesizes them (cdktf's files and manifest.json) into `outdir`. */
function synthesizeStacks(o: StacksToSynthesize): void {
  // cdktf reads the output format from the environment when a stack is constructed.
  const previousFormat = process.env.SYNTH_HCL_OUTPUT;
  process.env.SYNTH_HCL_OUTPUT = o.hcl ? 'true' : 'false';
  try {
    // cdktf and the stacks load here, only when a stack goes through cdktf: the lean writer's stacks need neither.
    /* eslint-disable @typescript-eslint/no-require-imports */
    const { App, TerraformStack } = require('cdktf') as typeof import('cdktf');
    const { buildLab } = require('../../stacks/app') as typeof import('../../stacks/app');
    const { withoutTokenTraces } = require('./token-traces') as typeof import('./token-traces');
    const { synthesizeOnce } = require('./lean-synth') as typeof import('./lean-synth');
    /* eslint-enable @typescript-eslint/no-require-imports */
    const app = new App({ outdir: o.outdir, hclOutput: o.hcl, skipValidation: false });
    withoutTokenTraces(() => {
      // Reusing the shared stacks, only the changed tenant stacks are built, with an empty stack of
      // the same name standing in for their dependency management-config (built, not written).
      buildLab(app, o.lab, o.rendering, { stateDirFromStack: o.stateDirFromStack, tenantStacks: o.tenantStacks, sharedStacks: o.sharedStacks });
      const stacks = app.node
        .findAll()
        .filter((c): c is TerraformStack => TerraformStack.isStack(c) && (o.everything || o.sharedStacks || c.node.id !== 'management-config'));
      // What App.synth does (for every stack, or for the stacks built here only), each element resolved once.
      synthesizeOnce(app, stacks, o.hcl);
    });
  } finally {
    if (previousFormat === undefined) delete process.env.SYNTH_HCL_OUTPUT;
    else process.env.SYNTH_HCL_OUTPUT = previousFormat;
  }
}

/** Share k of a parallel synth (run by synth-worker.ts): the lab from the parent's text, its stacks into `<scratch>/.part-<k>`. */
export function synthesizeShare(job: SynthJob, k: number): void {
  const lab = parseLab(job.labText, job.config);
  const plan = atLabFile(job.config, () => planPlacement(lab));
  const rendering = atLabFile(job.config, () => renderLab(lab, plan, { vipMemory: new Map(job.vipMemory) }));
  const share = job.shares[k];
  const part = join(job.scratch, `.part-${k}`);
  // The share's tenant stacks the lean writer writes; the rest through cdktf, as in one process.
  const lean = job.hcl ? new Map<string, LeanStack>() : leanStacks(lab, rendering, share.tenantStacks, job.stateDirFromStack);
  const mine = new Set(share.tenantStacks.filter((name) => !lean.has(name)));
  let manifest: { version: string; stacks: Record<string, unknown> } = { version: '', stacks: {} };
  if (share.shared || mine.size > 0) {
    synthesizeStacks({
      outdir: part,
      lab,
      plan,
      rendering,
      stateDirFromStack: job.stateDirFromStack,
      hcl: job.hcl,
      tenantStacks: (name) => mine.has(name),
      sharedStacks: share.shared,
      everything: false,
    });
    manifest = JSON.parse(readFileSync(join(part, 'manifest.json'), 'utf8')) as typeof manifest;
  }
  mkdirSync(join(part, 'stacks'), { recursive: true });
  writeLeanStacks(part, lean, manifest);
  writeFileSync(join(part, 'manifest.json'), stableJson(manifest));
}

/** The lean writer's tenant stacks among `names` (lean-writer.ts): those it can write, by stack name. */
function leanStacks(lab: Lab, rendering: LabRendering, names: Iterable<string>, stateDirFromStack: string): Map<string, LeanStack> {
  const lean = new Map<string, LeanStack>();
  const options = { access: lab.management.kubernetes, delivery: lab.delivery, stateDirFromStack, version: cdktfVersion() };
  const byStack = new Map(lab.tenants.map((t) => [`tenant-${t.name}`, t.name]));
  for (const name of names) {
    const tenant = byStack.get(name);
    if (tenant === undefined) continue;
    const written = leanTenantStack(name, rendering.tenants.get(tenant)!, options);
    if (written) lean.set(name, written);
  }
  return lean;
}

/** The lean stacks' files into `<dir>/stacks/`, their entries into `manifest` (after cdktf's stacks: its App owns the directory while it synthesizes). */
function writeLeanStacks(dir: string, lean: Map<string, LeanStack>, manifest: { version: string; stacks: Record<string, unknown> }): void {
  for (const [name, written] of lean) {
    mkdirSync(join(dir, 'stacks', name), { recursive: true });
    writeFileSync(join(dir, 'stacks', name, 'cdk.tf.json'), stableStringify(written.json));
    manifest.stacks[name] = written.manifest;
  }
  if (lean.size > 0) manifest.version ||= cdktfVersion();
}

/** The shares synthesized by worker processes, then merged into `<scratch>/stacks` and one manifest.json as cdktf writes it. */
function synthesizeInWorkers(job: SynthJob): void {
  const jobFile = join(job.scratch, '.synth-job.json');
  writeFileSync(jobFile, JSON.stringify(job));
  const worker = join(__dirname, 'synth-worker.js');
  const script = existsSync(worker) ? worker : resolve(__dirname, '../../dist/scripts/lib/synth-worker.js');
  const r = spawnSync(process.execPath, [script, jobFile], {
    encoding: 'utf8',
    stdio: ['ignore', 'ignore', 'pipe'],
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, PVEKAAS_SYNTH_PARENT: String(process.pid) },
  });
  if (r.status !== 0) throw new Error(`parallel synthesis failed (${r.signal ?? `exit ${r.status}`}):\n${r.error?.message ?? r.stderr}`);
  // What cdktf prints while synthesizing (annotations), as a one-process synth prints it.
  if (r.stderr) process.stderr.write(r.stderr);
  rmSync(jobFile, { force: true });
  mergeParts(job.scratch, job.shares.length);
}

/** `<scratch>/.part-<k>` (k < parts) moved into `<scratch>/stacks`, with one manifest.json as cdktf writes it. */
function mergeParts(scratch: string, parts: number): void {
  const manifest: { version: string; stacks: Record<string, unknown> } = { version: '', stacks: {} };
  mkdirSync(join(scratch, 'stacks'), { recursive: true });
  for (let k = 0; k < parts; k++) {
    const part = join(scratch, `.part-${k}`);
    const partManifest = JSON.parse(readFileSync(join(part, 'manifest.json'), 'utf8')) as typeof manifest;
    manifest.version ||= partManifest.version;
    Object.assign(manifest.stacks, partManifest.stacks);
    for (const stack of readdirSync(join(part, 'stacks'))) renameSync(join(part, 'stacks', stack), join(scratch, 'stacks', stack));
    rmSync(part, { recursive: true, force: true });
  }
  writeFileSync(join(scratch, 'manifest.json'), stableJson(manifest));
}

export function synthesizeLab(options: SynthOptions): SynthResult {
  const out = resolve(options.out);
  const hcl = options.hcl ?? false;
  if (options.batch !== undefined && !(Number.isInteger(options.batch) && options.batch >= 1)) {
    throw new UserError(`batch ${String(options.batch)}: not a number of stacks; give a whole number from 1`);
  }
  if (options.workers !== undefined && !(Number.isInteger(options.workers) && options.workers >= 1)) {
    throw new UserError(`workers ${String(options.workers)}: not a number of worker processes; give a whole number from 1 (1: synthesize in this process)`);
  }
  // Before any work: an output directory pvekaas may not replace is refused at once.
  checkOutputDir(options.out, synthOutput);
  const labText = readLabText(options.config);
  const lab = parseLab(labText, options.config);
  // Nothing configured inside the directory about to be replaced (state, a kubeconfig).
  if (options.stateDirFromStack === undefined) refuseConfiguredPathsInside(options.config, lab, options.out);
  // What the last synth into this output gave each tenant as its VIP: kept (modules/tenants/vip.ts).
  const vipMemory = options.vipMemory ?? vipMemoryOfOutput(options.out);
  // What the last synth into this output gave the datastore's volumes: a StatefulSet cannot change it (modules/management/datastore.ts).
  const datastoreMemory = datastoreMemoryOfOutput(options.out);
  // validate's road (planAndRenderLab): placement, then every rendering problem at once, with the file and the line of each.
  const { plan, rendering }: { plan: PlacementPlan; rendering: LabRendering } = atLabFile(options.config, () =>
    planAndRenderLab(lab, { vipMemory, ...(datastoreMemory ? { datastoreMemory } : {}) }),
  );
  const renderings = rendering.tenants;
  const vips = [...renderings.values()].map((t) => t.vip);
  // Stacks are siblings under <out>/stacks/, so one relative path reaches the state directory from all of them.
  const stateDirFromStack = options.stateDirFromStack ?? stateDirFromStackFor(lab.delivery.local.stateDir, out);

  // The inputs of each stack, hashed.
  const { tenants: _tenants, ...shared } = lab;
  // The instance and management stacks also depend on which tenants have machines on each
  // instance (one pool, cloud-init storage and CAPMOX token per tenant and instance) and on the
  // VLAN each of them uses there (its token's SDN grant).
  const vlanOf = (tenant: string, instance: string) => {
    const t = lab.tenants.find((x) => x.name === tenant);
    return t ? (tenantVlanOn(t, instance) ?? null) : null;
  };
  const tenantsPerInstance = lab.proxmox.instances.map((i) => [i.name, tenantsOnInstance(plan, i.name).map((t) => [t, vlanOf(t, i.name)])]);
  // And, for a tenant in the surge step (`previous`), the instance fields and VLAN its retiring machines
  // were made with: their grants stay until the retire step (modules/rendering/instance.ts, renderInstances).
  const surging = lab.tenants.flatMap((t) => {
    const before = previousTenant(t);
    return before ? [[t.name, lab.proxmox.instances.map((i) => [i.name, t.previous?.instances?.[i.name] ?? null, tenantVlanOn(before, i.name) ?? null])]] : [];
  });
  const sharedInput = sha256(JSON.stringify([sourcesFingerprint(), hcl, stateDirFromStack, shared, tenantsPerInstance, surging]));
  const keys = new Map<string, string>();
  const sharedStacks = [...lab.proxmox.instances.map((i) => `proxmox-${i.name}`), 'management', 'management-config'];
  for (const s of sharedStacks) keys.set(s, sharedInput);
  const placements = new Map(plan.tenants.map((t) => [t.name, t]));
  for (const tenant of lab.tenants) {
    keys.set(`tenant-${tenant.name}`, sha256(JSON.stringify([sharedInput, tenant, renderings.get(tenant.name), placements.get(tenant.name)])));
  }

  const previous = options.cache === false ? undefined : readCache(out);
  const reusable = (stack: string) => {
    const cached = previous?.stacks[stack];
    return cached !== undefined && cached.key === keys.get(stack) && intact(out, stack, cached);
  };
  const reuseShared = sharedStacks.every(reusable);
  const reused = new Set([...keys.keys()].filter((s) => (sharedStacks.includes(s) ? reuseShared : reusable(s))));
  const rebuilt = [...keys.keys()].filter((s) => !reused.has(s)).sort();
  const warnings: Problem[] = [...labWarnings(lab), ...rendering.management.warnings, ...supportWarnings(lab, todayUtc())];

  let used = 1;
  writeOutputDir(options.out, synthOutput, (scratch) => {
    let manifest: { version: string; stacks: Record<string, unknown> } = { version: '', stacks: {} };
    const workers = options.workers ?? 1;
    const rebuiltTenants = rebuilt.filter((s) => !sharedStacks.includes(s));
    // With worker processes, each writes its share's lean stacks (synthesizeShare).
    const inWorkers = workers > 1 && rebuiltTenants.length >= workers;
    // The tenant stacks the lean writer writes (JSON output, a local backend, plain data): without cdktf (lean-writer.ts).
    const lean = hcl || options.cdktfOnly || inWorkers ? new Map<string, LeanStack>() : leanStacks(lab, rendering, rebuiltTenants, stateDirFromStack);
    const throughCdktf = rebuilt.filter((s) => !lean.has(s));
    if (throughCdktf.length > 0) {
      const batch = options.batch ?? BATCH;
      const tenantStacks = throughCdktf.filter((s) => !sharedStacks.includes(s));
      if (workers > 1 && tenantStacks.length >= workers) {
        const shares = Array.from({ length: workers }, (_, k) => ({
          shared: k === 0 && !reuseShared,
          tenantStacks: tenantStacks.filter((_, i) => i % workers === k),
        }));
        synthesizeInWorkers({ config: options.config, labText, hcl, stateDirFromStack, scratch, shares, vipMemory: [...vipMemory] });
        used = workers;
      } else if (tenantStacks.length > batch) {
        // In batches, each its own cdktf App that is garbage once written: memory bounded by a batch, not the lab.
        const batches = Math.ceil(tenantStacks.length / batch);
        for (let k = 0; k < batches; k++) {
          const mine = new Set(tenantStacks.slice(k * batch, (k + 1) * batch));
          const sharedHere = k === 0 && !reuseShared;
          synthesizeStacks({
            outdir: join(scratch, `.part-${k}`),
            lab,
            plan,
            rendering,
            stateDirFromStack,
            hcl,
            tenantStacks: (name) => mine.has(name),
            sharedStacks: sharedHere,
            everything: false,
          });
        }
        mergeParts(scratch, batches);
      } else {
        synthesizeStacks({
          outdir: scratch,
          lab,
          plan,
          rendering,
          stateDirFromStack,
          hcl,
          tenantStacks: (name) => !reused.has(name) && !lean.has(name),
          sharedStacks: !reuseShared,
          everything: reused.size === 0 && lean.size === 0,
        });
      }
      if (hcl) fixHclOutput(scratch);
      const written = JSON.parse(readFileSync(join(scratch, 'manifest.json'), 'utf8')) as typeof manifest;
      manifest = { version: written.version, stacks: { ...manifest.stacks, ...written.stacks } };
    }
    writeLeanStacks(scratch, lean, manifest);
    const index: CacheIndex = {
      format: CACHE_FORMAT,
      manifestVersion: manifest.version || previous!.manifestVersion,
      stacks: {},
      warnings: rendering.management.warnings.map((w) => formatWarning(w)),
    };
    for (const stack of [...keys.keys()].sort()) {
      const dir = join(scratch, 'stacks', stack);
      if (reused.has(stack)) {
        const cached = previous!.stacks[stack];
        // The previous output's files, hard-linked into the new one (they were checked above;
        // the old names are removed with the old output).
        mkdirSync(dir, { recursive: true });
        for (const file of Object.keys(cached.files)) {
          if (file.includes('/')) mkdirSync(dirname(join(dir, file)), { recursive: true });
          linkOrCopy(join(out, 'stacks', stack, file), join(dir, file));
        }
        manifest.stacks[stack] = cached.manifest;
        manifest.version ||= previous!.manifestVersion;
        index.stacks[stack] = cached;
      } else {
        index.stacks[stack] = { key: keys.get(stack)!, files: stackFiles(dir), manifest: manifest.stacks[stack] };
      }
    }
    if (reused.size > 0 || lean.size > 0) writeFileSync(join(scratch, 'manifest.json'), stableJson(manifest));
    // With every tenant's VIP: the memory of the next synth into this output.
    writeFileSync(join(scratch, 'placement.json'), renderJson(plan, undefined, { vips: vipsJson(vips) }));
    // What the replacement guard of the next synth, export-hcl or deploy compares with, in any stack format.
    writeFileSync(join(scratch, MACHINE_DEPLOYMENTS_FILE), machineDeploymentsDocument([...renderings.values()].map((t) => t.cluster)));
    writeFileSync(join(scratch, CACHE_FILE), `${JSON.stringify(index)}\n`);
  });
  return { lab, plan, stacks: [...keys.keys()].sort(), rebuilt, reused: [...reused].sort(), out, warnings, workers: used, vips, vipMemory };
}
