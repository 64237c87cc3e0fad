/** `npm run --silent synth -- --config <file> --out <dir> [--hcl] [--full]` */
import { relative } from 'node:path';
import { labWarnings } from '../modules/config/safety';
import { parseFlags, runCommand } from './lib/cli';
import { synthesizeLab } from './lib/synthesize';
import { refuseUnrollableUpgrades } from './lib/upgrade-guard';

const usage = 'npm run --silent synth -- --config <lab.yaml> --out <dir> [--hcl] [--full]';

runCommand(() => {
  const flags = parseFlags(process.argv.slice(2), { config: 'string', out: 'string', hcl: 'boolean', full: 'boolean' }, usage);
  const config = (flags.config as string | undefined) ?? 'examples/lab.yaml';
  const out = (flags.out as string | undefined) ?? 'cdktf.out';
  // An upgrade from the versions the previous synth in --out recorded must be able to roll.
  refuseUnrollableUpgrades(config, out);
  const result = synthesizeLab({ config, out, hcl: flags.hcl === true, cache: flags.full !== true });
  const file = flags.hcl ? 'cdk.tf' : 'cdk.tf.json';
  const where = relative(process.cwd(), result.out) || '.';
  const reused = new Set(result.reused);
  for (const stack of result.stacks) process.stderr.write(`  ${where}/stacks/${stack}/${file}${reused.has(stack) ? ' (unchanged, reused)' : ''}\n`);
  const cache = result.reused.length > 0 ? ` (${result.rebuilt.length} synthesized, ${result.reused.length} unchanged and reused)` : '';
  process.stderr.write(`synthesized ${result.stacks.length} stacks from ${config}${cache}; placement plan in ${where}/placement.json\n`);
  for (const warning of [...labWarnings(result.lab), ...result.warnings, ...result.plan.warnings]) process.stderr.write(`warning: ${warning}\n`);
});
