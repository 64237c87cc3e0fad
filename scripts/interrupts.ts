/**
 * `npm run test:interrupts -- [--runs <n>] [--seed <n>] [--latency-ms <ms>] [--stacks <glob>] [--concurrency <n>] [--keep]`
 *
 * The random-interrupt proof of docs/guarantees.md ("Interrupted deploys"), at any count: each run
 * interrupts a `deploy` of the example lab's instance stacks against the simulator (writes
 * delayed) with SIGINT or SIGKILL at a random moment, then deploys again and plans, and compares
 * a full inventory of the simulator with the states (scripts/lib/interrupt-runs.ts). Prints one
 * line per run and the figure; exit 1 when any run did not converge.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { runCommand, UsageError, type CommandLine } from './lib/cli';
import { interruptRuns } from './lib/interrupt-runs';

const usage = 'npm run test:interrupts -- [--runs <n>] [--seed <n>] [--latency-ms <ms>] [--stacks <glob>] [--concurrency <n>] [--keep]';

const line: CommandLine = {
  usage,
  flags: {
    runs: { type: 'string', value: '<n>', help: 'how many interrupted deploys (default: 30)' },
    seed: { type: 'string', value: '<n>', help: 'the seed of the moments and signals (default: from the clock; printed)' },
    'latency-ms': { type: 'string', value: '<ms>', help: 'latency of every write to the simulator (default: 3000)' },
    stacks: { type: 'string', value: '<glob>', help: 'the stacks deploy applies (default: proxmox-*)' },
    concurrency: { type: 'string', value: '<n>', help: 'runs at once, each with its own simulator (default: 1)' },
    keep: { type: 'boolean', help: 'keep the scratch directory of a run that did not converge' },
  },
  about: 'Interrupts deploy at random moments and checks that the next deploy converges with no orphan left in the simulator.',
};

runCommand(line, async (flags) => {
  const whole = (name: string, fallback: number, min: number) => {
    const raw = flags[name];
    const n = raw === undefined ? fallback : Number(raw);
    if (!Number.isInteger(n) || n < min) throw new UsageError(`--${name} must be a whole number ≥ ${min} (got "${String(raw)}")\n\nusage: ${usage}`);
    return n;
  };
  const root = resolve(__dirname, '../..');
  const runs = whole('runs', 30, 1);
  const seed = whole('seed', Date.now() % 1_000_000, 0);
  const latencyMs = whole('latency-ms', 3000, 0);
  const summary = await interruptRuns({
    root,
    labText: readFileSync(join(root, 'examples/lab.yaml'), 'utf8'),
    labFile: 'examples/lab.yaml',
    runs,
    seed,
    latencyMs,
    stacks: (flags.stacks as string | undefined) ?? 'proxmox-*',
    keep: flags.keep === true,
    concurrency: whole('concurrency', 1, 1),
    log: (line) => process.stderr.write(`${line}\n`),
  });
  const kinds = Object.entries(summary.orphanKinds)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  process.stdout.write(
    `${summary.converged}/${summary.runs} runs converged (seed ${summary.seed}; ${Object.entries(summary.bySignal)
      .map(([s, n]) => `${n} ${s}`)
      .join(', ')}; writes delayed ${latencyMs} ms) in ${summary.seconds.toFixed(0)} s; ` +
      `${summary.runsWithOrphans} run(s) left orphans for the next deploy to recover: ${kinds || 'none'}\n`,
  );
  if (summary.converged !== summary.runs) process.exitCode = 1;
});
