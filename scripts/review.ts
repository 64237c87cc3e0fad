/**
 * `npm run --silent review -- --config <new> --against <old> [--plans <dir>] [--out <comment.md>]`
 * One markdown comment for a pull request: the placement diff (and picture), per stack what its
 * plan adds, changes and destroys (from `tofu show -json` files `<dir>/<stack>.json`), and the
 * warnings a reviewer must not miss. Without --out the comment goes to stdout.
 */
import { existsSync, readFileSync, readdirSync, writeFileSync, mkdirSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { loadLabFile } from '../modules/config/load';
import { planPlacement, renderSvg } from '../modules/placement';
import { review, type TofuPlanJson } from '../modules/review';
import { parseFlags, runCommand, UsageError, UserError } from './lib/cli';

const usage = 'npm run --silent review -- --config <new lab.yaml> --against <old lab.yaml> [--plans <dir>] [--out <comment.md>]';

function readPlans(dir: string): Record<string, TofuPlanJson> {
  if (!existsSync(dir)) throw new UserError(`--plans ${dir}: no such directory (it should hold <stack>.json files from \`tofu show -json <planfile>\`)`);
  const plans: Record<string, TofuPlanJson> = {};
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
    try {
      plans[basename(file, '.json')] = JSON.parse(readFileSync(join(dir, file), 'utf8'));
    } catch (e) {
      throw new UserError(`${join(dir, file)}: not JSON from \`tofu show -json\` (${(e as Error).message})`);
    }
  }
  return plans;
}

runCommand(() => {
  const flags = parseFlags(process.argv.slice(2), { config: 'string', against: 'string', plans: 'string', out: 'string' }, usage);
  if (!flags.config || !flags.against) throw new UsageError(`--config and --against are both needed\n\nusage: ${usage}`);
  const after = loadLabFile(flags.config as string);
  const before = loadLabFile(flags.against as string);
  const afterPlan = planPlacement(after);
  const beforePlan = planPlacement(before);
  const out = flags.out as string | undefined;
  let picture: string | undefined;
  if (out) {
    mkdirSync(dirname(out), { recursive: true });
    const svg = join(dirname(out), 'placement.svg');
    writeFileSync(svg, renderSvg(afterPlan));
    picture = relative(dirname(out), svg);
  }
  const result = review({
    before: { lab: before, plan: beforePlan, label: flags.against as string },
    after: { lab: after, plan: afterPlan, label: flags.config as string },
    plans: flags.plans ? readPlans(flags.plans as string) : undefined,
    picture,
  });
  if (out) {
    writeFileSync(out, result.markdown);
    process.stderr.write(`review written to ${out}${picture ? ` (picture: ${join(dirname(out), picture)})` : ''}; ${result.warnings.length} warning(s)\n`);
  } else {
    process.stdout.write(result.markdown);
  }
});
