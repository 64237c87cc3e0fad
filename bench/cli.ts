/**
 * `npm run --silent bench:cli [-- --runs <n>]`: what a command costs before its own work starts,
 * the `pvekaas` launcher's no-rebuild path against running the compiled script with node, and the
 * former `npm run` scripts (`tsc -p tsconfig.json && node dist/scripts/<command>.js`). Median of
 * `--runs` whole processes each (default 9; 3 for the `tsc` path). Not a test: it prints.
 *
 * The command timed is `validate --config examples/lab.yaml` (0.5–1 s of real work) and `validate
 * --help` (almost none: the start alone). The launcher's own check, the walk over the sources'
 * modification times, is timed in-process too.
 */
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseFlags, runCommand } from '../scripts/lib/cli';

const root = resolve(__dirname, '../..');

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** The median wall time, in seconds, of `runs` runs of a command (its exit code must be 0). */
function timed(runs: number, command: string, args: string[]): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    const run = spawnSync(command, args, { cwd: root, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
    times.push((performance.now() - start) / 1000);
    if (run.status !== 0) throw new Error(`${command} ${args.join(' ')}: exit ${run.status}\n${run.stderr}`);
  }
  return median(times);
}

runCommand(() => {
  const flags = parseFlags(
    process.argv.slice(2),
    { runs: { type: 'string', value: '<n>', help: 'runs of each fast variant, median printed (default 9)' } },
    'npm run --silent bench:cli -- [--runs <n>]',
    { about: "The pvekaas launcher's start (no rebuild) against node and the former tsc-first npm scripts." },
  );
  const runs = flags.runs === undefined ? 9 : Number(flags.runs);
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- plain JavaScript, not compiled: required from the source tree
  const launcher = require(join(root, 'bin', 'pvekaas')) as { newestSource(): number; builtAt(): number; ensureBuilt(): void };
  launcher.ensureBuilt();
  if (launcher.builtAt() < launcher.newestSource()) throw new Error('the build is not fresh: the launcher would compile');
  const walkRuns = 50;
  const start = performance.now();
  for (let i = 0; i < walkRuns; i++) launcher.newestSource();
  const walkMs = (performance.now() - start) / walkRuns;

  const node = process.execPath;
  const validate = ['validate', '--config', 'examples/lab.yaml'];
  const help = ['validate', '--help'];
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const rows: [string, string, number][] = [];
  const load = loadavg()[0];
  for (const [label, args] of [
    ['validate --help', help],
    ['validate --config examples/lab.yaml', validate],
  ] as const) {
    const script = join('dist', 'scripts', `${args[0]}.js`);
    rows.push([label, `node ${script}`, timed(runs, node, [script, ...args.slice(1)])]);
    rows.push([label, 'node bin/pvekaas (no rebuild)', timed(runs, node, ['bin/pvekaas', ...args])]);
    rows.push([label, 'npm run --silent (through bin/pvekaas)', timed(runs, 'npm', ['run', '--silent', args[0], '--', ...args.slice(1)])]);
    rows.push([
      label,
      'former npm script: tsc, then node',
      timed(Math.min(runs, 3), 'sh', ['-c', `"${node}" "${tsc}" -p tsconfig.json && "${node}" ${script} ${args.slice(1).join(' ')}`]),
    ]);
  }
  const out = [
    `pvekaas launcher, ${new Date().toISOString().slice(0, 16)} UTC, load average ${load.toFixed(1)} → ${loadavg()[0].toFixed(1)}; median of ${runs} runs (3 for tsc)`,
    `the launcher's check (mtimes of the sources): ${walkMs.toFixed(1)} ms`,
    '',
    '| command | how | wall (s) |',
    '|---|---|---|',
    ...rows.map(([c, how, s]) => `| ${c} | ${how} | ${s.toFixed(2)} |`),
  ];
  process.stdout.write(`${out.join('\n')}\n`);
});
