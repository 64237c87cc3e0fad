/**
 * Synthesizes every stack of a lab into `<out>/stacks/<stack>/cdk.tf.json` (or `cdk.tf`), with
 * the placement plan beside them in `<out>/placement.json`.
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
 */
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { App, TerraformStack } from 'cdktf';
import { atLabFile, loadLabFile } from '../../modules/config/load';
import type { Lab } from '../../modules/config/schema';
import { formatWarning, type Problem } from '../../modules/config/problems';
import { labWarnings } from '../../modules/config/safety';
import { planPlacement, renderJson } from '../../modules/placement';
import type { PlacementPlan } from '../../modules/placement/types';
import { buildLab, renderLab, type LabRendering } from '../../stacks/app';
import { fixHclOutput } from './hcl-fixups';
import { checkOutputDir, isOutputDir, synthOutput, writeOutputDir } from './output-dir';
import { withoutTokenTraces } from './token-traces';
import { tenantsOnInstance } from '../../modules/config/proxmox-access';

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
      else if (/\.(js|ts|json)$/.test(entry.name) && !entry.name.endsWith('.test.ts')) hash.update(`${relative(base, path)}\0`).update(readFileSync(path)).update('\0');
    }
  };
  for (const dir of ['modules', 'stacks', 'constructs', '.gen', 'scripts/lib']) walk(join(base, dir));
  for (const root of [base, dirname(base)]) {
    for (const file of ['package.json', 'package-lock.json']) if (existsSync(join(root, file))) hash.update(`${file}\0`).update(readFileSync(join(root, file)));
  }
  fingerprint = hash.digest('hex');
  return fingerprint;
}

/** manifest.json as cdktf writes it: with the json-stable-stringify cdktf itself uses (its layout of empty arrays included). */
function stableJson(value: unknown): string {
  const stringify = require(require.resolve('json-stable-stringify', { paths: [dirname(require.resolve('cdktf'))] })) as (v: unknown, o: { space: number }) => string;
  return stringify(value, { space: 2 });
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

/** Whether the previous output still holds exactly the files recorded for a stack. */
function intact(out: string, stack: string, cached: CachedStack): boolean {
  const dir = join(out, 'stacks', stack);
  return Object.entries(cached.files).every(([file, hash]) => {
    const path = join(dir, file);
    return existsSync(path) && statSync(path).isFile() && sha256(readFileSync(path)) === hash;
  });
}

/** The default state path of a stack synthesized into `out`: the lab's stateDir against the working directory, from `<out>/stacks/<stack>/`. */
export function stateDirFromStackFor(stateDir: string, out: string): string {
  return relative(join(resolve(out), 'stacks', 'any-stack'), resolve(stateDir)).split('\\').join('/');
}

export function synthesizeLab(options: SynthOptions): SynthResult {
  const out = resolve(options.out);
  const hcl = options.hcl ?? false;
  // Before any work: an output directory pvekaas may not replace is refused at once.
  checkOutputDir(options.out, synthOutput);
  const lab = loadLabFile(options.config);
  // Placement and rendering problems with the file and the line of the tenant's pool.
  const plan: PlacementPlan = atLabFile(options.config, () => planPlacement(lab));
  const rendering: LabRendering = atLabFile(options.config, () => renderLab(lab, plan));
  const renderings = rendering.tenants;
  // Stacks are siblings under <out>/stacks/, so one relative path reaches the state directory from all of them.
  const stateDirFromStack =
    options.stateDirFromStack ?? stateDirFromStackFor(lab.delivery.local.stateDir, out);

  // The inputs of each stack, hashed.
  const { tenants: _tenants, ...shared } = lab;
  // The instance and management stacks also depend on which tenants have machines on each
  // instance (one pool and one CAPMOX token per tenant and instance).
  const tenantsPerInstance = lab.proxmox.instances.map((i) => [i.name, tenantsOnInstance(plan, i.name)]);
  const sharedInput = sha256(JSON.stringify([sourcesFingerprint(), hcl, stateDirFromStack, shared, tenantsPerInstance]));
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
  const warnings: Problem[] = [...labWarnings(lab), ...rendering.management.warnings];

  writeOutputDir(options.out, synthOutput, (scratch) => {
    let manifest: { version: string; stacks: Record<string, unknown> } = { version: '', stacks: {} };
    if (rebuilt.length > 0) {
      // cdktf reads the output format from the environment when a stack is constructed.
      const previousFormat = process.env.SYNTH_HCL_OUTPUT;
      process.env.SYNTH_HCL_OUTPUT = hcl ? 'true' : 'false';
      try {
        const app = new App({ outdir: scratch, hclOutput: hcl, skipValidation: false });
        withoutTokenTraces(() => {
          // Reusing the shared stacks, only the changed tenant stacks are built, with an empty stack of
          // the same name standing in for their dependency management-config.
          buildLab(app, lab, plan, { stateDirFromStack, rendering, tenantStacks: (name) => !reused.has(name), sharedStacks: !reuseShared });
          if (reused.size === 0) {
            app.synth();
            return;
          }
          // What App.synth does, for the stacks that changed only.
          const stacks = app.node.findAll().filter((c): c is TerraformStack => TerraformStack.isStack(c) && !reused.has(c.node.id));
          stacks.forEach((stack) => stack.prepareStack());
          const session = { outdir: scratch, skipValidation: false, manifest: app.manifest };
          stacks.forEach((stack) => stack.synthesizer.synthesize(session));
          const validations = app.node.validate();
          if (validations.length > 0) throw new Error(`Validation failed with the following errors:\n  ${validations.join('\n  ')}`);
          app.manifest.writeToFile();
        });
      } finally {
        if (previousFormat === undefined) delete process.env.SYNTH_HCL_OUTPUT;
        else process.env.SYNTH_HCL_OUTPUT = previousFormat;
      }
      if (hcl) fixHclOutput(scratch);
      manifest = JSON.parse(readFileSync(join(scratch, 'manifest.json'), 'utf8'));
    }
    const index: CacheIndex = { format: CACHE_FORMAT, manifestVersion: manifest.version || previous!.manifestVersion, stacks: {}, warnings: rendering.management.warnings.map((w) => formatWarning(w)) };
    for (const stack of [...keys.keys()].sort()) {
      const dir = join(scratch, 'stacks', stack);
      if (reused.has(stack)) {
        const cached = previous!.stacks[stack];
        for (const file of Object.keys(cached.files)) {
          mkdirSync(dirname(join(dir, file)), { recursive: true });
          copyFileSync(join(out, 'stacks', stack, file), join(dir, file));
        }
        manifest.stacks[stack] = cached.manifest;
        manifest.version ||= previous!.manifestVersion;
        index.stacks[stack] = cached;
      } else {
        index.stacks[stack] = { key: keys.get(stack)!, files: stackFiles(dir), manifest: manifest.stacks[stack] };
      }
    }
    if (reused.size > 0) writeFileSync(join(scratch, 'manifest.json'), stableJson(manifest));
    writeFileSync(join(scratch, 'placement.json'), renderJson(plan));
    writeFileSync(join(scratch, CACHE_FILE), `${JSON.stringify(index)}\n`);
  });
  return { lab, plan, stacks: [...keys.keys()].sort(), rebuilt, reused: [...reused].sort(), out, warnings };
}

