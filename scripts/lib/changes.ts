/**
 * The stacks a lab change touches: both descriptions synthesized (the old one cold into a scratch
 * directory, the new one into the same directory through the synth cache, so unchanged stacks cost
 * nothing), each stack's files and manifest entry hashed, then compared (modules/review/stack-changes).
 * `againstOut` compares with an existing synth output instead (e.g. the base revision's own synth,
 * so a change to pvekaas itself shows too).
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stackChanges, type StackChange, type SynthesizedLab } from '../../modules/review';
import { FileReadError, atLabFile, loadLabFile, readRegularFile } from '../../modules/config/load';
import { MAX_INPUT_BYTES } from './read-input';
import { planPlacement } from '../../modules/placement';
import { UserError } from './cli';
import { isOutputDir } from './output-dir';
import { stateDirFromStackFor, synthesizeLab, type SynthResult } from './synthesize';
import { vipMemoryOfOutput } from './vip-memory';

/**
 * A file of a synth output, read like any input: a regular file of bounded size (a FIFO or a link to
 * /dev/zero put in the output is refused at once, never waited on or read without end).
 */
function readOutputFile(out: string, path: string): string {
  try {
    return readRegularFile(path, MAX_INPUT_BYTES);
  } catch (e) {
    if (e instanceof FileReadError)
      throw new UserError(`${out}: cannot read ${path}: ${e.reason}\n  fix: give a directory written by \`npm run synth\`, unchanged since`);
    throw e;
  }
}

/** A content hash per stack of a synth output, from its cache index (which lists every file synthesis wrote). */
export function stackHashes(out: string): Record<string, string> {
  if (!isOutputDir(out, 'synth'))
    throw new UserError(`${out}: not a synth output of pvekaas (no .pvekaas-output marker)\n  fix: give a directory written by \`npm run synth\``);
  let index: { stacks: Record<string, { files: Record<string, string>; manifest: unknown }> };
  try {
    index = JSON.parse(readOutputFile(out, join(out, '.pvekaas-cache.json')));
    if (typeof index?.stacks !== 'object' || index.stacks === null) throw new Error('no stacks');
  } catch (e) {
    if (e instanceof UserError) throw e;
    throw new UserError(`${out}: its .pvekaas-cache.json is not the index synth writes\n  fix: give a directory written by \`npm run synth\`, unchanged since`);
  }
  const hashes: Record<string, string> = {};
  for (const [stack, entry] of Object.entries(index.stacks)) {
    if (!/^[A-Za-z0-9._-]+$/.test(stack) || stack.startsWith('.'))
      throw new UserError(
        `${out}: its .pvekaas-cache.json names a stack "${stack.slice(0, 80)}" that is not a stack directory\n  fix: give a directory written by \`npm run synth\``,
      );
    const files = Object.keys(entry.files ?? {})
      .sort()
      .map((f) => {
        if (f.split('/').some((part) => part === '..' || part === ''))
          throw new UserError(
            `${out}: its .pvekaas-cache.json names a file "${f.slice(0, 80)}" outside its stack\n  fix: give a directory written by \`npm run synth\``,
          );
        return `${f}\0${createHash('sha256')
          .update(readOutputFile(out, join(out, 'stacks', stack, f)))
          .digest('hex')}`;
      });
    hashes[stack] = createHash('sha256')
      .update(JSON.stringify([files, entry.manifest]))
      .digest('hex');
  }
  return hashes;
}

export interface LabChanges {
  changes: StackChange[];
  unchanged: string[];
  before: SynthesizedLab;
  after: SynthesizedLab & { synth: SynthResult };
}

export interface ChangeOptions {
  config: string;
  against: string;
  /** Where the new description is synthesized (kept); @default a scratch directory, removed afterwards. */
  out?: string;
  /** An existing synth output of the old description to compare with. */
  againstOut?: string;
}

export function labChanges(options: ChangeOptions): LabChanges {
  const scratch = mkdtempSync(join(tmpdir(), 'pvekaas-changed-'));
  try {
    let before: SynthesizedLab;
    const out = options.out ?? join(scratch, 'out');
    if (options.againstOut) {
      const lab = loadLabFile(options.against);
      before = { lab, plan: atLabFile(options.against, () => planPlacement(lab)), stacks: stackHashes(options.againstOut) };
    } else {
      // The old description synthesized where the new one goes when that is a scratch directory: the cache then rebuilds only what changed.
      const target = options.out ? join(scratch, 'before') : out;
      // Elsewhere than the new output, the old stacks get the state path they would have there: it is part of their bytes.
      const stateDirFromStack = options.out ? stateDirFromStackFor(loadLabFile(options.against).delivery.local.stateDir, out) : undefined;
      const old = synthesizeLab({ config: options.against, out: target, cache: false, stateDirFromStack });
      before = { lab: old.lab, plan: old.plan, stacks: stackHashes(target) };
    }
    // Compared with an existing output, the new stacks get the state path they would have in a synth
    // output one level under the working directory (`--out out`, as the review workflow and deploy
    // write it): it is part of their bytes, and a scratch directory's would differ in every stack.
    const stateDirFromStack = options.againstOut && !options.out ? stateDirFromStackFor(loadLabFile(options.config).delivery.local.stateDir, 'out') : undefined;
    // The new description keeps the VIPs the old synth gave (its placement.json: modules/tenants/vip.ts, "Memory").
    const vipMemory = vipMemoryOfOutput(options.againstOut ?? (options.out ? join(scratch, 'before') : out));
    const synth = synthesizeLab({ config: options.config, out, stateDirFromStack, vipMemory });
    const after = { lab: synth.lab, plan: synth.plan, stacks: stackHashes(out), synth };
    return { ...stackChanges(before, after), before, after };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
