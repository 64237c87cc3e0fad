/**
 * `npm run --silent changed -- --config <new lab.yaml> --against <old lab.yaml> [--against-out <dir>] [--json]`
 * The stacks whose synthesized bytes differ between two descriptions — added, changed, removed — in
 * run order (removals last, tenants first), each with the reasons in lab terms.
 */
import { labChanges } from './lib/changes';
import { runCommand, type CommandLine } from './lib/cli';
import { AGAINST_OUT_FLAG, COMPARED_FLAGS, comparedLabs } from './lib/flags';

const usage = 'npm run --silent changed -- --config <new lab.yaml> --against <old lab.yaml> [--against-out <synth output of the old>] [--json]';

const line: CommandLine = {
  usage,
  flags: { ...COMPARED_FLAGS, 'against-out': AGAINST_OUT_FLAG, json: { type: 'boolean', help: 'print JSON instead of text' } },
  about: 'Lists the stacks whose synthesized bytes differ between two descriptions, in run order, each with the reasons.',
};

runCommand(line, (flags) => {
  const result = labChanges({ ...comparedLabs(flags, usage), againstOut: flags['against-out'] as string | undefined });
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
