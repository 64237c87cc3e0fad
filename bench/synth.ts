/**
 * `npm run --silent bench -- [--json] [--sizes 10,100,1000] [--runs 3]`
 *
 * Synth time and memory for labs of 10, 100 and 1000 tenants (3 pools each, 3 instances × 3
 * nodes), each a whole `node` process as a user runs it, against two references measured in the
 * same run: the floor (the same JSON written with JSON.stringify alone) and the baseline (the same
 * resources through bare cdktf constructs). Then, per size, the incremental synth: one tenant's pool
 * changed after a full synth, into the same output (the synth cache rebuilds what changed), with the
 * number of stacks it synthesized. And once, on the example lab, `cdktf synth` through the CLI
 * (cdktf.json's app command, sources unchanged) beside the plain `node dist/scripts/synth.js`, and
 * the `tsc -p` on an unchanged tree that the app command used to pay on every call.
 * With `--parallel`, per size also the full synth in two worker processes (`synth --jobs 2`),
 * compared byte for byte with the one-process synth: whether parallel synthesis pays here.
 *
 * Every figure has its wall-clock seconds and its CPU seconds (user + system of the process and
 * its children): on a shared machine wall time grows with the load, CPU time much less, so ratios
 * are given on both. The 1-minute load average is recorded beside each size.
 * Prints figures, not verdicts; docs/development.md records them.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { childrenCpuSeconds } from './cpu-seconds';
import { benchLab } from './lab-generator';

interface Measure {
  seconds: number;
  cpuSeconds: number;
  maxRssMiB: number;
  rebuilt?: number;
}

function parseArgs(argv: string[]) {
  const args = { json: false, sizes: [10, 100, 1000], runs: 3, cli: true, parallel: false };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--json') args.json = true;
    else if (argv[i] === '--sizes') args.sizes = argv[++i].split(',').map(Number);
    else if (argv[i] === '--runs') args.runs = Number(argv[++i]);
    else if (argv[i] === '--no-cli') args.cli = false;
    else if (argv[i] === '--parallel') args.parallel = true;
    else {
      process.stderr.write(`unknown argument ${argv[i]}\nusage: npm run --silent bench -- [--json] [--sizes 10,100,1000] [--runs 3] [--no-cli] [--parallel]\n`);
      process.exit(1);
    }
  }
  return args;
}

function run(mode: string, input: string, out: string, workers?: number): Measure {
  rmSync(out, { recursive: true, force: true });
  const cpuBefore = childrenCpuSeconds();
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [join(__dirname, 'synth-process.js'), mode, input, out, ...(workers ? [String(workers)] : [])], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  if (r.status !== 0) throw new Error(`${mode} failed:\n${r.stderr}`);
  const { maxRssKiB, rebuilt } = JSON.parse(r.stdout.trim().split('\n').pop()!);
  return { seconds, cpuSeconds: childrenCpuSeconds() - cpuBefore, maxRssMiB: Math.round(maxRssKiB / 1024), rebuilt };
}

/** One timed run into an existing output (the cache in use): nothing is removed first. */
function runInto(input: string, out: string): Measure {
  const cpuBefore = childrenCpuSeconds();
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [join(__dirname, 'synth-process.js'), 'pvekaas', input, out], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  if (r.status !== 0) throw new Error(`incremental synth failed:\n${r.stderr}`);
  const { maxRssKiB, rebuilt } = JSON.parse(r.stdout.trim().split('\n').pop()!);
  return { seconds, cpuSeconds: childrenCpuSeconds() - cpuBefore, maxRssMiB: Math.round(maxRssKiB / 1024), rebuilt };
}

const bestOf = (all: Measure[]): Measure => ({
  seconds: Math.min(...all.map((m) => m.seconds)),
  cpuSeconds: Math.min(...all.map((m) => m.cpuSeconds)),
  maxRssMiB: Math.max(...all.map((m) => m.maxRssMiB)),
  rebuilt: Math.max(...all.map((m) => m.rebuilt ?? 0)),
});
function best(runs: number, f: () => Measure): Measure {
  return bestOf(Array.from({ length: runs }, f));
}

const root = join(__dirname, '..', '..');
/** Wall and CPU seconds (the command and every process it waited for) of one command run from the project root (best of `runs`). */
function timed(runs: number, command: string, args: string[], env: NodeJS.ProcessEnv = process.env): { seconds: number; cpuSeconds: number } {
  let bestSeconds = Infinity;
  let bestCpu = Infinity;
  for (let i = 0; i < runs; i++) {
    const cpuBefore = childrenCpuSeconds();
    const start = process.hrtime.bigint();
    const r = spawnSync(command, args, { cwd: root, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} failed:\n${r.stdout}\n${r.stderr}`);
    bestSeconds = Math.min(bestSeconds, seconds);
    bestCpu = Math.min(bestCpu, childrenCpuSeconds() - cpuBefore);
  }
  return { seconds: bestSeconds, cpuSeconds: bestCpu };
}

/** `cdktf synth` of the example lab through the CLI beside the plain synth, and the compile the app command no longer pays. */
function cliFigures(runs: number, work: string) {
  const env = { ...process.env, CHECKPOINT_DISABLE: '1', CI: '1', FORCE_COLOR: '0', PVEKAAS_CONFIG: 'examples/lab.yaml' };
  const cli = join(root, 'node_modules/cdktf-cli/bundle/bin/cdktf');
  // Once untimed: the launcher compiles if a source is newer than its last compile.
  timed(1, process.execPath, [cli, 'synth', '--output', join(work, 'cli')], env);
  const cliRun = timed(runs, process.execPath, [cli, 'synth', '--output', join(work, 'cli')], env);
  const plain = timed(runs, process.execPath, [join(root, 'dist/scripts/synth.js'), '--config', 'examples/lab.yaml', '--out', join(work, 'plain'), '--full']);
  const compile = timed(runs, process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json']);
  return {
    cliSeconds: +cliRun.seconds.toFixed(3),
    cliCpuSeconds: +cliRun.cpuSeconds.toFixed(2),
    plainSeconds: +plain.seconds.toFixed(3),
    plainCpuSeconds: +plain.cpuSeconds.toFixed(2),
    cliOverPlainSeconds: +(cliRun.seconds - plain.seconds).toFixed(3),
    cliOverPlainCpuSeconds: +(cliRun.cpuSeconds - plain.cpuSeconds).toFixed(2),
    compileSeconds: +compile.seconds.toFixed(3),
    cliLoad: +loadavg()[0].toFixed(1),
  };
}

function collect(outdir: string): { stacks: Record<string, unknown>; resources: number } {
  const stacks: Record<string, unknown> = {};
  let resources = 0;
  for (const stack of readdirSync(join(outdir, 'stacks')).sort()) {
    const json = JSON.parse(readFileSync(join(outdir, 'stacks', stack, 'cdk.tf.json'), 'utf8'));
    stacks[stack] = json;
    for (const byName of Object.values<Record<string, unknown>>(json.resource ?? {})) resources += Object.keys(byName).length;
  }
  return { stacks, resources };
}

/** Whether the parallel synth's stacks and manifest are byte for byte those of the one-process synth. */
function sameStacks(full: string, parallel: string): boolean {
  const expected = readdirSync(join(full, 'stacks')).sort();
  if (JSON.stringify(expected) !== JSON.stringify(readdirSync(join(parallel, 'stacks')).sort())) return false;
  const same = (file: string) => readFileSync(join(parallel, file)).equals(readFileSync(join(full, file)));
  return same('manifest.json') && expected.every((stack) => same(join('stacks', stack, 'cdk.tf.json')));
}

const ratio = (a: number, b: number) => +(a / b).toFixed(2);

function main(): void {
  const args = parseArgs(process.argv.slice(2));
  const work = mkdtempSync(join(tmpdir(), 'pvekaas-bench-'));
  const rows: Record<string, any>[] = [];
  try {
    for (const tenants of args.sizes) {
      const load = +loadavg()[0].toFixed(1);
      const lab = join(work, `lab-${tenants}.yaml`);
      writeFileSync(lab, benchLab(tenants));
      const out = join(work, `out-${tenants}`);
      const pvekaas = best(args.runs, () => run('pvekaas', lab, out));
      const { stacks, resources } = collect(out);
      const stacksFile = join(work, `stacks-${tenants}.json`);
      writeFileSync(stacksFile, JSON.stringify(stacks));
      const baseline = best(args.runs, () => run('baseline', stacksFile, join(work, `baseline-${tenants}`)));
      const floor = best(args.runs, () => run('floor', stacksFile, join(work, `floor-${tenants}`)));
      let parallel: Record<string, unknown> = {};
      if (args.parallel) {
        // A sibling of out-N: the same relative state path from every stack, so the bytes compare.
        const two = best(args.runs, () => run('pvekaas', lab, join(work, `parallel-${tenants}`), 2));
        parallel = {
          parallel2Seconds: +two.seconds.toFixed(3),
          parallel2CpuSeconds: +two.cpuSeconds.toFixed(2),
          parallel2VsFull: ratio(two.seconds, pvekaas.seconds),
          parallel2CpuVsFull: ratio(two.cpuSeconds, pvekaas.cpuSeconds),
          parallel2SameBytes: sameStacks(out, join(work, `parallel-${tenants}`)),
        };
      }
      // One tenant's pool changes, back and forth: each run is a one-tenant edit of the output before it.
      const edited = join(work, `lab-${tenants}-edited.yaml`);
      writeFileSync(edited, benchLab(tenants, { editFirstTenant: true }));
      let flip = false;
      const incremental = best(args.runs, () => runInto((flip = !flip) ? edited : lab, out));
      rows.push({
        tenants,
        load,
        loadAfter: +loadavg()[0].toFixed(1),
        stacks: Object.keys(stacks).length,
        resources,
        seconds: +pvekaas.seconds.toFixed(3),
        cpuSeconds: +pvekaas.cpuSeconds.toFixed(2),
        maxRssMiB: pvekaas.maxRssMiB,
        baselineSeconds: +baseline.seconds.toFixed(3),
        baselineCpuSeconds: +baseline.cpuSeconds.toFixed(2),
        floorSeconds: +floor.seconds.toFixed(3),
        floorCpuSeconds: +floor.cpuSeconds.toFixed(2),
        vsBaseline: ratio(pvekaas.seconds, baseline.seconds),
        cpuVsBaseline: ratio(pvekaas.cpuSeconds, baseline.cpuSeconds),
        vsFloor: ratio(pvekaas.seconds, floor.seconds),
        incrementalSeconds: +incremental.seconds.toFixed(3),
        incrementalCpuSeconds: +incremental.cpuSeconds.toFixed(2),
        changedStacks: incremental.rebuilt,
        incrementalVsFull: ratio(incremental.seconds, pvekaas.seconds),
        incrementalCpuVsFull: ratio(incremental.cpuSeconds, pvekaas.cpuSeconds),
        incrementalMaxRssMiB: incremental.maxRssMiB,
        ...parallel,
      });
      if (!args.json) process.stderr.write(`measured ${tenants} tenants\n`);
    }
  } finally {
    if (!args.cli) rmSync(work, { recursive: true, force: true });
  }
  let cli: ReturnType<typeof cliFigures> | undefined;
  if (args.cli) {
    try {
      cli = cliFigures(args.runs, work);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }
  const at = (n: number) => rows.find((r) => r.tenants === n);
  const growth = at(100) && at(1000) ? ratio(at(1000)!.seconds, at(100)!.seconds) : undefined;
  const result = {
    date: new Date().toISOString().slice(0, 16),
    machine: `${cpus().length} cores, node ${process.version}, load ${loadavg()[0].toFixed(1)}`,
    runs: args.runs,
    sizes: rows,
    growth100to1000: growth,
    ...(cli ?? {}),
  };
  if (args.json) {
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return;
  }
  process.stdout.write(`synth benchmark (${result.machine}, best of ${args.runs}); wall s / CPU s\n`);
  process.stdout.write(
    'tenants  load  stacks  resources        synth  peak RSS     baseline   ×base wall/CPU        floor   incremental  changed  ×full wall/CPU\n',
  );
  const pair = (w: number, c: number) => `${w.toFixed(2)}/${c.toFixed(2)}`;
  for (const r of rows) {
    process.stdout.write(
      `${String(r.tenants).padStart(7)} ${String(r.load).padStart(5)} ${String(r.stacks).padStart(7)} ${String(r.resources).padStart(10)} ${pair(r.seconds, r.cpuSeconds).padStart(12)} ${`${r.maxRssMiB} MiB`.padStart(9)} ${pair(r.baselineSeconds, r.baselineCpuSeconds).padStart(12)} ${pair(r.vsBaseline, r.cpuVsBaseline).padStart(16)} ${pair(r.floorSeconds, r.floorCpuSeconds).padStart(12)} ${pair(r.incrementalSeconds, r.incrementalCpuSeconds).padStart(13)} ${String(r.changedStacks).padStart(8)} ${pair(r.incrementalVsFull, r.incrementalCpuVsFull).padStart(15)}\n`,
    );
    if (r.parallel2Seconds !== undefined) {
      process.stdout.write(
        `        --jobs 2: ${pair(r.parallel2Seconds, r.parallel2CpuSeconds)} s (${pair(r.parallel2VsFull, r.parallel2CpuVsFull)}× the one-process synth), bytes ${r.parallel2SameBytes ? 'identical' : 'DIFFERENT'}\n`,
      );
    }
  }
  if (cli) {
    process.stdout.write(
      `cdktf synth (example lab, load ${cli.cliLoad}): ${pair(cli.cliSeconds, cli.cliCpuSeconds)} s; plain synth: ${pair(cli.plainSeconds, cli.plainCpuSeconds)} s (+${pair(cli.cliOverPlainSeconds, cli.cliOverPlainCpuSeconds)} s); tsc on an unchanged tree: ${cli.compileSeconds.toFixed(2)} s\n`,
    );
  }
  if (growth !== undefined) process.stdout.write(`growth 100 → 1000 tenants: ×${growth} (linear would be ×10)\n`);
}

main();
