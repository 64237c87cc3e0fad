/**
 * Synthesizes every stack of a lab into `<out>/stacks/<stack>/cdk.tf.json` (or `cdk.tf`), with
 * the placement plan beside them in `<out>/placement.json`. Everything is built in a scratch
 * directory first and moved into place only when synthesis succeeded, so a failed run never
 * leaves half-written output.
 */
import { mkdtempSync, mkdirSync, renameSync, rmSync, writeFileSync, existsSync, readdirSync, cpSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { App } from 'cdktf';
import { configErrorAt, loadLabFile } from '../../modules/config/load';
import { TenantRenderError } from '../../modules/tenants';
import type { Lab } from '../../modules/config/schema';
import { planPlacement, renderJson } from '../../modules/placement';
import type { PlacementPlan } from '../../modules/placement/types';
import { buildLab } from '../../stacks/app';
import { fixHclOutput } from './hcl-fixups';
import { withoutTokenTraces } from './token-traces';

export interface SynthOptions {
  config: string;
  out: string;
  hcl?: boolean;
}

export interface SynthResult {
  lab: Lab;
  plan: PlacementPlan;
  /** Warnings a person should read (version skews, pins without digests), besides the plan's. */
  warnings: string[];
  stacks: string[];
  out: string;
}

export function synthesizeLab(options: SynthOptions): SynthResult {
  const lab = loadLabFile(options.config);
  const plan = planPlacement(lab);
  const out = resolve(options.out);
  mkdirSync(dirname(out), { recursive: true });
  const scratch = mkdtempSync(join(dirname(out), '.pvekaas-synth-'));
  let stacksBuilt: ReturnType<typeof buildLab> | undefined;
  try {
    // cdktf reads the output format from the environment when a stack is constructed.
    const previous = process.env.SYNTH_HCL_OUTPUT;
    process.env.SYNTH_HCL_OUTPUT = options.hcl ? 'true' : 'false';
    try {
      const app = new App({ outdir: scratch, hclOutput: options.hcl ?? false, skipValidation: false });
      // Stacks are siblings under <out>/stacks/, so one relative path reaches the state directory from all of them.
      const stateDirFromStack = relative(join(out, 'stacks', 'any-stack'), resolve(lab.delivery.local.stateDir)).split('\\').join('/');
      withoutTokenTraces(() => {
        stacksBuilt = buildLab(app, lab, plan, { stateDirFromStack });
        app.synth();
      });
    } finally {
      if (previous === undefined) delete process.env.SYNTH_HCL_OUTPUT;
      else process.env.SYNTH_HCL_OUTPUT = previous;
    }
    if (options.hcl) fixHclOutput(scratch);
    writeFileSync(join(scratch, 'placement.json'), renderJson(plan));
    replaceDir(scratch, out);
  } catch (e) {
    rmSync(scratch, { recursive: true, force: true });
    if (e instanceof TenantRenderError) throw configErrorAt(options.config, e.problems);
    throw e;
  }
  const stacks = readdirSync(join(out, 'stacks')).sort();
  return { lab, plan, stacks, out, warnings: stacksBuilt?.management.warnings ?? [] };
}

/** Swaps `from` into `to`: other files in `to` (state, .terraform) are kept; stacks/ is replaced whole. */
function replaceDir(from: string, to: string): void {
  if (!existsSync(to)) {
    renameSync(from, to);
    return;
  }
  for (const entry of readdirSync(from)) {
    const target = join(to, entry);
    if (entry === 'stacks' && existsSync(target)) {
      mergeStacks(join(from, entry), target);
      continue;
    }
    rmSync(target, { recursive: true, force: true });
    renameSync(join(from, entry), target);
  }
  rmSync(from, { recursive: true, force: true });
}

/** Replaces each stack's synthesized files, keeping its .terraform directory and local state. */
function mergeStacks(from: string, to: string): void {
  const fresh = new Set(readdirSync(from));
  for (const stack of readdirSync(to)) {
    if (!fresh.has(stack)) rmSync(join(to, stack), { recursive: true, force: true });
  }
  for (const stack of fresh) {
    const target = join(to, stack);
    mkdirSync(target, { recursive: true });
    for (const file of readdirSync(target)) {
      if (file === 'cdk.tf.json' || file === 'cdk.tf' || file === 'assets') rmSync(join(target, file), { recursive: true, force: true });
    }
    for (const file of readdirSync(join(from, stack))) cpSync(join(from, stack, file), join(target, file), { recursive: true });
  }
}
