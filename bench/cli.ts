/**
 * `npm run --silent bench:cli [-- --runs <n>]`: what a command costs before its own work starts,
 * the `pvekaas` launcher's no-rebuild path against running the compiled script with node, and the
 * former `npm run` scripts (`tsc -p tsconfig.json && node dist/scripts/<command>.js`). Median of
 * `--runs` whole processes each (default 9; 3 for the `tsc` path), wall time and CPU time (user +
 * system, children included: steady on a loaded machine). Not a test: it prints.
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

/** A shell word, quoted. */
const q = (word: string) => `'${word.replace(/'/g, "'\\''")}'`;

/**
 * The median wall time and the median CPU time (user + system of the process and everything it
 * started, from the shell's `times`), in seconds, of `runs` runs of a command (its exit code must be
 * 0). CPU time hardly moves with the machine's load; wall time does.
 */
function timed(runs: number, command: string): { wall: number; cpu: number } {
  const walls: number[] = [];
  const cpus: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    const run = spawnSync('sh', ['-c', `${command} >/dev/null 2>&1 || exit 99; times`], { cwd: root, encoding: 'utf8' });
    walls.push((performance.now() - start) / 1000);
    if (run.status !== 0) throw new Error(`${command}: exit ${run.status}\n${run.stderr}`);
    // `times`: the shell's own user and system time, then its children's.
    const children = run.stdout.trim().split('\n').pop() ?? '';
    const seconds = [...children.matchAll(/(\d+)m([\d.]+)s/g)].map((m) => Number(m[1]) * 60 + Number(m[2]));
    cpus.push(seconds.reduce((a, b) => a + b, 0));
  }
  return { wall: median(walls), cpu: median(cpus) };
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

  const node = q(process.execPath);
  const tsc = q(join(root, 'node_modules', 'typescript', 'bin', 'tsc'));
  const rows: [string, string, { wall: number; cpu: number }][] = [];
  const load = loadavg()[0];
  for (const args of [
    ['validate', '--help'],
    ['validate', '--config', 'examples/lab.yaml'],
  ]) {
    const label = args.join(' ');
    const script = join('dist', 'scripts', `${args[0]}.js`);
    const rest = args.slice(1).join(' ');
    rows.push([label, `node ${script}`, timed(runs, `${node} ${script} ${rest}`)]);
    rows.push([label, 'bin/pvekaas (no rebuild)', timed(runs, `${node} bin/pvekaas ${label}`)]);
    rows.push([label, 'npm run --silent (through bin/pvekaas)', timed(runs, `npm run --silent ${args[0]} -- ${rest}`)]);
    rows.push([label, 'former npm script: tsc, then node', timed(Math.min(runs, 3), `${node} ${tsc} -p tsconfig.json && ${node} ${script} ${rest}`)]);
  }
  const out = [
    `pvekaas launcher, ${new Date().toISOString().slice(0, 16)} UTC, load average ${load.toFixed(1)} → ${loadavg()[0].toFixed(1)}; median of ${runs} runs (3 for tsc)`,
    `the launcher's check (mtimes of the sources): ${walkMs.toFixed(1)} ms`,
    '',
    '| command | how | wall (s) | CPU (s) |',
    '|---|---|---|---|',
    ...rows.map(([c, how, t]) => `| ${c} | ${how} | ${t.wall.toFixed(2)} | ${t.cpu.toFixed(2)} |`),
  ];
  process.stdout.write(`${out.join('\n')}\n`);
});
