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
import { errorMessage } from './lib/cli';
import type { Lab } from '../modules/config/schema';
import { diffPlacement, planPlacement, renderJson, renderMarkdown, renderSvg } from '../modules/placement';
import type { PlacementPlan } from '../modules/placement';
import { parseLosses, whatIf } from '../modules/foresight/what-if';
import { renderWhatIfMarkdown, renderWhatIfSvg, whatIfJson } from '../modules/foresight/render-what-if';
import { renderClustersMarkdown, tenantClusters } from '../modules/tenants/secondary-report';

const USAGE = `usage: npm run --silent placement -- --config <lab file> [--format json|markdown|svg] [--against <old lab file>] [--what-if "<loss>"]...
  --config <file>    the lab description to place
  --format <format>  markdown (default): a report for a pull request; json: the plan other tools read; svg: a picture
  --against <file>   also show what changes compared to this (older) description (markdown and json only)
  --what-if <loss>   "node <name>", "node <instance>/<name>" or "instance <name>"; repeat it or separate losses with commas
                     to lose several at once: shows the machines lost, what cannot move, the plan after re-synth
                     and the headroom left (the svg draws that plan with the lost nodes struck through)`;

const FORMATS = ['json', 'markdown', 'svg'] as const;
type Format = (typeof FORMATS)[number];

interface Options {
  config: string;
  format: Format;
  against?: string;
  whatIf: string[];
}

/** A mistake of the person running the command: printed without a stack trace. */
class UsageError extends Error {}

function parseArguments(args: string[]): Options | 'help' {
  const values: Partial<Record<'config' | 'format' | 'against', string>> = {};
  const whatIfs: string[] = [];
  const problems: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--help' || arg === '-h') return 'help';
    const match = /^--(config|format|against|what-if)(?:=(.*))?$/.exec(arg);
    if (!match) {
      problems.push(arg.startsWith('-') ? `unknown option ${arg}` : `unexpected argument ${arg}`);
      continue;
    }
    const value = match[2] ?? args[++i];
    if (value === undefined || (match[2] === undefined && value.startsWith('--'))) {
      problems.push(`--${match[1]} needs a value`);
      if (value !== undefined) i--;
      continue;
    }
    if (match[1] === 'what-if') {
      whatIfs.push(value);
      continue;
    }
    const name = match[1] as keyof typeof values;
    if (values[name] !== undefined) problems.push(`--${name} is given twice`);
    values[name] = value;
  }
  if (values.config === undefined) problems.push('--config <lab file> is required');
  const format = (values.format ?? 'markdown') as Format;
  if (!FORMATS.includes(format)) problems.push(`--format must be one of ${FORMATS.join(', ')} (got ${values.format})`);
  if (values.against !== undefined && format === 'svg') problems.push('--against shows changes in markdown and json; the svg has no change view');
  if (values.against !== undefined && whatIfs.length > 0) problems.push('--against and --what-if are separate views; run them one at a time');
  if (problems.length > 0) throw new UsageError(`${problems.join('\n')}\n${USAGE}`);
  return { config: values.config as string, format, against: values.against, whatIf: whatIfs };
}

/** Loads and places one description; errors name the file they come from. */
function place(file: string, role: string): { lab: Lab; plan: PlacementPlan } {
  const lab: Lab = loadLabFile(file);
  const plan = atLabFile(file, () => planPlacement(lab), (count) => `${file}${role}: the lab does not fit its Proxmox instances (${problemCount(count)})`);
  return { lab, plan };
}

function main(args: string[]): number {
  try {
    const options = parseArguments(args);
    if (options === 'help') {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    const errors: string[] = [];
    const attempt = (file: string, role: string): { lab: Lab; plan: PlacementPlan } | undefined => {
      try {
        return place(file, role);
      } catch (e) {
        if (e instanceof ProblemError || e instanceof UsageError) {
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
    if (errors.length > 0 || placed === undefined) {
      process.stderr.write(`${errors.join('\n')}\n`);
      return 1;
    }
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
    return 0;
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`${e.message}\n`);
      return 1;
    }
    // Anything else (a file that cannot be read, a bug): one line, no stack trace.
    process.stderr.write(`${errorMessage(e)}\n`);
    return 1;
  }
}

process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  // A reader that closes the pipe early (placement | head): stop quietly, exit code 1.
  if (e.code === 'EPIPE') process.exit(1);
});
process.exitCode = main(process.argv.slice(2));
