/** `npm run --silent synth -- --config <file> --out <dir> [--hcl] [--full] [--jobs <n>]` */
// First: the code cache and lazy archiver, before anything loads cdktf.
import './lib/fast-start';
import { relative } from 'node:path';
import { UserError, printWarnings, runCommand, type CommandLine } from './lib/cli';
import { LAB_OR_EXAMPLE_FLAG } from './lib/flags';
import { synthesizeLab } from './lib/synthesize';
import { refuseUnrollableUpgrades } from './lib/upgrade-guard';

const usage = 'npm run --silent synth -- --config <lab.yaml> --out <dir> [--hcl] [--full] [--jobs <n>]';

const line: CommandLine = {
  usage,
  flags: {
    config: LAB_OR_EXAMPLE_FLAG,
    out: { type: 'string', value: '<dir>', help: 'where the stacks go, replaced atomically (default: cdktf.out)' },
    hcl: { type: 'boolean', help: 'write HCL (cdk.tf) instead of JSON' },
    full: { type: 'boolean', help: 'synthesize every stack, without the synth cache' },
    jobs: {
      type: 'string',
      value: '<n>',
      help: 'worker processes synthesizing shares of the stacks at once (default 1: this process); less memory per process, more CPU in all',
    },
  },
  about: 'Synthesizes one stack per Proxmox instance, two for the management plane and one per tenant, and the placement plan.',
};

runCommand(line, (flags) => {
  const config = (flags.config as string | undefined) ?? 'examples/lab.yaml';
  const out = (flags.out as string | undefined) ?? 'cdktf.out';
  // An upgrade from the versions the previous synth in --out recorded must be able to roll.
  refuseUnrollableUpgrades(config, out);
  const jobs = flags.jobs === undefined ? undefined : Number(flags.jobs);
  if (jobs !== undefined && !(Number.isInteger(jobs) && jobs >= 1 && jobs <= 64)) {
    throw new UserError(`--jobs ${String(flags.jobs)}: not a number of worker processes; pass a whole number from 1 to 64 (1: no parallel synthesis)`);
  }
  const result = synthesizeLab({ config, out, hcl: flags.hcl === true, cache: flags.full !== true, workers: jobs });
  const file = flags.hcl ? 'cdk.tf' : 'cdk.tf.json';
  const where = relative(process.cwd(), result.out) || '.';
  const reused = new Set(result.reused);
  for (const stack of result.stacks) process.stderr.write(`  ${where}/stacks/${stack}/${file}${reused.has(stack) ? ' (unchanged, reused)' : ''}\n`);
  const cache = result.reused.length > 0 ? ` (${result.rebuilt.length} synthesized, ${result.reused.length} unchanged and reused)` : '';
  process.stderr.write(`synthesized ${result.stacks.length} stacks from ${config}${cache}; placement plan in ${where}/placement.json\n`);
  printWarnings(process.stderr, config, result.warnings, result.plan.warnings);
});
