/** `npm run --silent synth -- --config <file> --out <dir> [--hcl]` */
import { relative } from 'node:path';
import { parseFlags, runCommand } from './lib/cli';
import { synthesizeLab } from './lib/synthesize';

const usage = 'npm run --silent synth -- --config <lab.yaml> --out <dir> [--hcl]';

runCommand(() => {
  const flags = parseFlags(process.argv.slice(2), { config: 'string', out: 'string', hcl: 'boolean' }, usage);
  const config = (flags.config as string | undefined) ?? 'examples/lab.yaml';
  const out = (flags.out as string | undefined) ?? 'cdktf.out';
  const result = synthesizeLab({ config, out, hcl: flags.hcl === true });
  const file = flags.hcl ? 'cdk.tf' : 'cdk.tf.json';
  for (const stack of result.stacks) process.stderr.write(`  ${relative(process.cwd(), result.out) || '.'}/stacks/${stack}/${file}\n`);
  process.stderr.write(`synthesized ${result.stacks.length} stacks from ${config}; placement plan in ${relative(process.cwd(), result.out) || '.'}/placement.json\n`);
  for (const warning of [...result.warnings, ...result.plan.warnings]) process.stderr.write(`warning: ${warning}\n`);
});
