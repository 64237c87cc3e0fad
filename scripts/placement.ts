/**
 * `npm run --silent placement -- --config <file> [--format json|markdown|svg] [--against <old lab file>] [--what-if "node <name>"]...`
 *
 * Prints where every machine of the lab goes (markdown report, JSON contract or SVG picture), with
 * its capacity ledger, with --against what changes compared to another description, and with
 * --what-if what losing nodes or instances does to it. Exit 0 with the output on stdout;
 * exit 1 with every problem on stderr and nothing on stdout.
 */
import { atLabFile, loadLabFile } from '../modules/config/load';
import { problemCount, ProblemError } from '../modules/config/problems';
import { parseFlags, runCommand, UserError } from './lib/cli';
import type { Lab } from '../modules/config/schema';
import { diffPlacement, planPlacement, renderJson, renderMarkdown, renderSvg } from '../modules/placement';
import type { PlacementPlan } from '../modules/placement';
import { parseLosses, whatIf } from '../modules/foresight/what-if';
import { renderWhatIfMarkdown, renderWhatIfSvg, whatIfJson } from '../modules/foresight/render-what-if';
import { renderClustersMarkdown, tenantClusters } from '../modules/tenants/secondary-report';

const usage = 'npm run --silent placement -- --config <lab file> [--format json|markdown|svg] [--against <old lab file>] [--what-if "<loss>"]...';

const flagSpec = {
  config: { type: 'string', value: '<file>', help: 'the lab description to place' },
  format: { type: 'string', value: '<format>', help: 'markdown (default): a report for a pull request; json: the plan other tools read; svg: a picture' },
  against: { type: 'string', value: '<file>', help: 'also show what changes compared to this (older) description (markdown and json only)' },
  'what-if': {
    type: 'string',
    multiple: true,
    value: '<loss>',
    help:
      '"node <name>", "node <instance>/<name>" or "instance <name>"; repeat it or separate losses with commas to lose several at once: ' +
      'shows the machines lost, what cannot move, the plan after re-synth and the headroom left (the svg draws that plan with the lost nodes struck through)',
  },
} as const;

const FORMATS = ['json', 'markdown', 'svg'] as const;
type Format = (typeof FORMATS)[number];

interface Options {
  config: string;
  format: Format;
  against?: string;
  whatIf: string[];
}

/** What placement refuses in its flags besides the parser: a missing --config, a format it has not, views that do not mix. */
function checkFlags(flags: Record<string, string | boolean | string[]>): string[] {
  const problems: string[] = [];
  const format = (flags.format as string | undefined) ?? 'markdown';
  if (flags.config === undefined) problems.push('--config <lab file> is required');
  if (!(FORMATS as readonly string[]).includes(format)) problems.push(`--format must be one of ${FORMATS.join(', ')} (got ${format})`);
  if (flags.against !== undefined && format === 'svg') problems.push('--against shows changes in markdown and json; the svg has no change view');
  if (flags.against !== undefined && flags['what-if'] !== undefined) problems.push('--against and --what-if are separate views; run them one at a time');
  return problems;
}

function parseArguments(args: string[]): Options {
  const flags = parseFlags(args, flagSpec, usage, {
    about: 'Prints where every machine of the lab goes (markdown report, JSON contract or SVG picture), with its capacity ledger.',
    exitCodes: 'exit codes: 0 the output on stdout; 1 every problem on stderr and nothing on stdout',
    check: checkFlags,
  });
  return {
    config: flags.config as string,
    format: ((flags.format as string | undefined) ?? 'markdown') as Format,
    against: flags.against as string | undefined,
    whatIf: (flags['what-if'] as string[] | undefined) ?? [],
  };
}

/** Loads and places one description; errors name the file they come from. */
function place(file: string, role: string): { lab: Lab; plan: PlacementPlan } {
  const lab: Lab = loadLabFile(file);
  const plan = atLabFile(
    file,
    () => planPlacement(lab),
    (count) => `${file}${role}: the lab does not fit its Proxmox instances (${problemCount(count)})`,
  );
  return { lab, plan };
}

runCommand(() => {
  const options = parseArguments(process.argv.slice(2));
  const errors: string[] = [];
  const attempt = (file: string, role: string): { lab: Lab; plan: PlacementPlan } | undefined => {
    try {
      return place(file, role);
    } catch (e) {
      if (e instanceof ProblemError) {
        errors.push(e.message);
        return undefined;
      }
      throw e;
    }
  };
  const placed = attempt(options.config, '');
  const before = options.against !== undefined ? attempt(options.against, ' (--against)') : undefined;
  const losses = placed && options.whatIf.length > 0 ? parseLosses(options.whatIf, placed.lab) : undefined;
  if (losses && losses.problems.length > 0) errors.push(`${options.config}: ${losses.problems.join(`\n${options.config}: `)}`);
  if (errors.length > 0 || placed === undefined) throw new UserError(errors.join('\n'));
  const { plan } = placed;
  const diff = before !== undefined ? diffPlacement(before.plan, plan) : undefined;
  let output: string;
  if (losses) {
    const result = whatIf(placed.lab, plan, losses.losses);
    output =
      options.format === 'json'
        ? `${JSON.stringify({ ...JSON.parse(renderJson(plan)), whatIf: whatIfJson(result) }, null, 2)}\n`
        : options.format === 'svg'
          ? renderWhatIfSvg(result)
          : `${renderMarkdown(plan).replace(/\n+$/, '')}\n\n${renderWhatIfMarkdown(result).join('\n').replace(/\n+$/, '')}\n`;
  } else {
    output = options.format === 'json' ? renderJson(plan, diff) : options.format === 'svg' ? renderSvg(plan) : renderMarkdown(plan, diff);
    // With secondary Clusters a MultiInstance tenant is several CAPI Clusters: say which holds what.
    if (placed.lab.capmox.multiInstance === 'secondary-clusters') {
      if (options.format === 'json') output = `${JSON.stringify({ ...JSON.parse(output), clusters: tenantClusters(placed.lab, plan) }, null, 2)}\n`;
      if (options.format === 'markdown') output = `${output.replace(/\n+$/, '')}\n\n${renderClustersMarkdown(placed.lab, plan)}`;
    }
  }
  process.stdout.write(output);
});
