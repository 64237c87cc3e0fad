/**
 * `npm run --silent review -- --config <new> --against <old> [--against-out <dir>] [--plans <dir>] [--out <comment.md>]`
 * One markdown comment for a pull request: which stacks change and why, the placement diff (and
 * picture), per stack what its plan adds, changes and destroys (from `tofu show -json` files
 * `<dir>/<stack>.json`), which changed stacks were not planned and why (`<dir>/<stack>.skipped`
 * holds the reason), and the warnings a reviewer must not miss. Without --out the comment goes to stdout.
 */
import { closeSync, constants, existsSync, lstatSync, mkdirSync, openSync, readdirSync, renameSync, statSync, writeSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { FileReadError, readRegularFile } from '../modules/config/load';
import { renderSvg } from '../modules/placement';
import { checkPlanJson, PlanFormatError, review, type TofuPlanJson } from '../modules/review';
import { labChanges } from './lib/changes';
import { runCommand, UserError, type CommandLine } from './lib/cli';
import { AGAINST_OUT_FLAG, COMPARED_FLAGS, comparedLabs } from './lib/flags';
import { MAX_INPUT_BYTES, readInputFile } from './lib/read-input';

const usage = 'npm run --silent review -- --config <new lab.yaml> --against <old lab.yaml> [--against-out <dir>] [--plans <dir>] [--out <comment.md>]';

/** Every `<stack>.json` plan and `<stack>.skipped` reason of a directory; all bad files reported at once. */
function readPlans(dir: string): { plans: Record<string, TofuPlanJson>; skipped: Record<string, string> } {
  if (!existsSync(dir) || !statSync(dir).isDirectory())
    throw new UserError(`--plans ${dir}: no such directory (it should hold <stack>.json files from \`tofu show -json <planfile>\`)`);
  const plans: Record<string, TofuPlanJson> = {};
  const skipped: Record<string, string> = {};
  const problems: string[] = [];
  for (const file of readdirSync(dir).sort()) {
    const path = join(dir, file);
    if (file.endsWith('.skipped')) {
      skipped[basename(file, '.skipped')] =
        readInputFile(path, '--plans', 'write a .skipped file with the reason a stack was not planned', 64 * 1024)
          .trim()
          .split('\n')[0]
          .slice(0, 300) || 'skipped (no reason given)';
      continue;
    }
    if (!file.endsWith('.json')) continue;
    let value: unknown;
    let text: string;
    try {
      text = readRegularFile(path, MAX_INPUT_BYTES);
    } catch (e) {
      if (!(e instanceof FileReadError)) throw e;
      problems.push(`${path}: cannot read it: ${e.reason}\n  fix: write it with \`tofu show -json <planfile>\``);
      continue;
    }
    try {
      value = JSON.parse(text);
    } catch (e) {
      problems.push(`${path}: not a plan: not JSON (${(e as Error).message.slice(0, 200)})\n  fix: write it with \`tofu show -json <planfile>\``);
      continue;
    }
    try {
      plans[basename(file, '.json')] = checkPlanJson(value, path);
    } catch (e) {
      if (e instanceof PlanFormatError) problems.push(e.message);
      else throw e;
    }
  }
  if (problems.length > 0) throw new UserError(`${problems.length} plan file${problems.length === 1 ? '' : 's'} cannot be read:\n${problems.join('\n')}`);
  return { plans, skipped };
}

/**
 * Refuses to replace anything but a regular file at `path` (a symbolic link is not followed: a link
 * at placement.svg pointing at ~/.bashrc would have been overwritten through).
 */
function checkReplaceable(path: string): void {
  let stat;
  try {
    stat = lstatSync(path);
  } catch {
    return; // absent: written new
  }
  if (!stat.isFile()) {
    const what = stat.isSymbolicLink() ? 'a symbolic link' : stat.isDirectory() ? 'a directory' : 'not a regular file';
    throw new UserError(
      `--out: refusing to replace ${path}: it is ${what}; review writes only regular files, never through a link\n  fix: remove it, or choose another --out path`,
    );
  }
}

/** Writes a file whole, in place of a regular file or nothing: a temporary file beside it, then a rename (a link there is replaced, never followed). */
function writeWhole(path: string, text: string): void {
  checkReplaceable(path);
  const temporary = join(dirname(path), `.${basename(path)}.pvekaas-${process.pid}`);
  const fd = openSync(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, path);
}

const line: CommandLine = {
  usage,
  flags: {
    ...COMPARED_FLAGS,
    'against-out': AGAINST_OUT_FLAG,
    plans: { type: 'string', value: '<dir>', help: 'tofu show -json files <stack>.json (and <stack>.skipped reasons)' },
    out: { type: 'string', value: '<comment.md>', help: 'write the comment here instead of stdout' },
  },
  about: 'One markdown comment for a pull request: which stacks change and why, the placement diff, each plan, and the warnings.',
};

runCommand(line, (flags) => {
  const labs = comparedLabs(flags, usage);
  // Plan files first: a bad one stops the review before any synthesis.
  const given = flags.plans ? readPlans(flags.plans as string) : undefined;
  const out = flags.out as string | undefined;
  // Before any work: the comment and the picture replace regular files only.
  if (out) for (const path of [out, join(dirname(out), 'placement.svg')]) checkReplaceable(path);
  const changed = labChanges({ ...labs, againstOut: flags['against-out'] as string | undefined });
  let picture: string | undefined;
  if (out) {
    mkdirSync(dirname(out), { recursive: true });
    const svg = join(dirname(out), 'placement.svg');
    writeWhole(svg, renderSvg(changed.after.plan));
    picture = relative(dirname(out), svg);
  }
  const result = review({
    before: { lab: changed.before.lab, plan: changed.before.plan, label: labs.against },
    after: { lab: changed.after.lab, plan: changed.after.plan, label: labs.config },
    plans: given?.plans,
    notPlanned: given?.skipped,
    stackChanges: { changes: changed.changes, unchanged: changed.unchanged },
    picture,
    vips: { after: changed.after.synth.vips, memory: changed.after.synth.vipMemory },
  });
  if (out) {
    writeWhole(out, result.markdown);
    process.stderr.write(
      `review written to ${out}${picture ? ` (picture: ${join(dirname(out), picture)})` : ''}; ${changed.changes.length} stack change(s), ${result.warnings.length} warning(s)\n`,
    );
  } else {
    process.stdout.write(result.markdown);
  }
});
