/**
 * `npm run --silent changed -- --config <new lab.yaml> --against <old lab.yaml> [--against-out <dir>] [--json]`
 * The stacks whose synthesized bytes differ between two descriptions — added, changed, removed — in
 * run order (removals last, tenants first), each with the reasons in lab terms.
 */
import { labChanges } from './lib/changes';
import { parseFlags, runCommand, UsageError } from './lib/cli';

const usage = 'npm run --silent changed -- --config <new lab.yaml> --against <old lab.yaml> [--against-out <synth output of the old>] [--json]';

runCommand(() => {
  const flags = parseFlags(
    process.argv.slice(2),
    {
      config: { type: 'string', value: '<new lab.yaml>', help: 'the new lab description' },
      against: { type: 'string', value: '<old lab.yaml>', help: 'the old lab description' },
      'against-out': { type: 'string', value: '<dir>', help: 'the synth output of the old description (instead of synthesizing it)' },
      json: { type: 'boolean', help: 'print JSON instead of text' },
    },
    usage,
    { about: 'Lists the stacks whose synthesized bytes differ between two descriptions, in run order, each with the reasons.' },
  );
  if (!flags.config || !flags.against) throw new UsageError(`--config and --against are both needed\n\nusage: ${usage}`);
  const result = labChanges({ config: flags.config as string, against: flags.against as string, againstOut: flags['against-out'] as string | undefined });
  if (flags.json) {
    process.stdout.write(`${JSON.stringify({ changes: result.changes, unchanged: result.unchanged }, null, 2)}\n`);
    return;
  }
  const count = (kind: string) => result.changes.filter((c) => c.change === kind).length;
  const total = result.changes.filter((c) => c.change !== 'removed').length + result.unchanged.length;
  if (result.changes.length === 0) {
    process.stdout.write(`no stack changes: all ${total} stacks are byte-identical\n`);
    return;
  }
  process.stdout.write(
    `${count('changed')} changed, ${count('added')} added, ${count('removed')} removed, ${result.unchanged.length} unchanged — in run order:\n`,
  );
  const width = Math.max(...result.changes.map((c) => c.stack.length));
  for (const c of result.changes) {
    process.stdout.write(`  ${c.change.padEnd(7)}  ${c.stack.padEnd(width)}  ${c.reasons[0]}\n`);
    for (const r of c.reasons.slice(1)) process.stdout.write(`  ${''.padEnd(7)}  ${''.padEnd(width)}  ${r}\n`);
  }
});
