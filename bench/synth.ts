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
 * Prints figures, not verdicts; the README records them.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchLab } from './lab-generator';

interface Measure {
  seconds: number;
  maxRssMiB: number;
  rebuilt?: number;
}

function parseArgs(argv: string[]) {
  const args = { json: false, sizes: [10, 100, 1000], runs: 3, cli: true };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--json') args.json = true;
    else if (argv[i] === '--sizes') args.sizes = argv[++i].split(',').map(Number);
    else if (argv[i] === '--runs') args.runs = Number(argv[++i]);
    else if (argv[i] === '--no-cli') args.cli = false;
    else {
      process.stderr.write(`unknown argument ${argv[i]}\nusage: npm run --silent bench -- [--json] [--sizes 10,100,1000] [--runs 3] [--no-cli]\n`);
      process.exit(1);
    }
  }
  return args;
}

function run(mode: string, input: string, out: string): Measure {
  rmSync(out, { recursive: true, force: true });
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [join(__dirname, 'synth-process.js'), mode, input, out], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  if (r.status !== 0) throw new Error(`${mode} failed:\n${r.stderr}`);
  const { maxRssKiB, rebuilt } = JSON.parse(r.stdout.trim().split('\n').pop()!);
  return { seconds, maxRssMiB: Math.round(maxRssKiB / 1024), rebuilt };
}

/** One timed run into an existing output (the cache in use): nothing is removed first. */
function runInto(input: string, out: string): Measure {
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [join(__dirname, 'synth-process.js'), 'pvekaas', input, out], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  if (r.status !== 0) throw new Error(`incremental synth failed:\n${r.stderr}`);
  const { maxRssKiB, rebuilt } = JSON.parse(r.stdout.trim().split('\n').pop()!);
  return { seconds, maxRssMiB: Math.round(maxRssKiB / 1024), rebuilt };
}

function best(runs: number, f: () => Measure): Measure {
  const all = Array.from({ length: runs }, f);
  return { seconds: Math.min(...all.map((m) => m.seconds)), maxRssMiB: Math.max(...all.map((m) => m.maxRssMiB)), rebuilt: Math.max(...all.map((m) => m.rebuilt ?? 0)) };
}

const root = join(__dirname, '..', '..');
/** Seconds of one command run from the project root (best of `runs`). */
function timed(runs: number, command: string, args: string[], env: NodeJS.ProcessEnv = process.env): number {
  let bestSeconds = Infinity;
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    const r = spawnSync(command, args, { cwd: root, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} failed:\n${r.stdout}\n${r.stderr}`);
    bestSeconds = Math.min(bestSeconds, seconds);
  }
  return bestSeconds;
}

/** `cdktf synth` of the example lab through the CLI beside the plain synth, and the compile the app command no longer pays. */
function cliFigures(runs: number, work: string) {
  const env = { ...process.env, CHECKPOINT_DISABLE: '1', CI: '1', FORCE_COLOR: '0', PVEKAAS_CONFIG: 'examples/lab.yaml' };
  const cli = join(root, 'node_modules/cdktf-cli/bundle/bin/cdktf');
  // Once untimed: the launcher compiles if a source is newer than its last compile.
  timed(1, process.execPath, [cli, 'synth', '--output', join(work, 'cli')], env);
  const cliSeconds = timed(runs, process.execPath, [cli, 'synth', '--output', join(work, 'cli')], env);
  const plainSeconds = timed(runs, process.execPath, [join(root, 'dist/scripts/synth.js'), '--config', 'examples/lab.yaml', '--out', join(work, 'plain'), '--full']);
  const compileSeconds = timed(runs, process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json']);
  return { cliSeconds: +cliSeconds.toFixed(3), plainSeconds: +plainSeconds.toFixed(3), cliOverPlainSeconds: +(cliSeconds - plainSeconds).toFixed(3), compileSeconds: +compileSeconds.toFixed(3) };
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

const args = parseArgs(process.argv.slice(2));
const work = mkdtempSync(join(tmpdir(), 'pvekaas-bench-'));
const rows: Record<string, unknown>[] = [];
try {
  for (const tenants of args.sizes) {
    const lab = join(work, `lab-${tenants}.yaml`);
    writeFileSync(lab, benchLab(tenants));
    const out = join(work, `out-${tenants}`);
    const pvekaas = best(args.runs, () => run('pvekaas', lab, out));
    const { stacks, resources } = collect(out);
    const stacksFile = join(work, `stacks-${tenants}.json`);
    writeFileSync(stacksFile, JSON.stringify(stacks));
    const baseline = best(args.runs, () => run('baseline', stacksFile, join(work, `baseline-${tenants}`)));
    const floor = best(args.runs, () => run('floor', stacksFile, join(work, `floor-${tenants}`)));
    // One tenant's pool changes, back and forth: each run is a one-tenant edit of the output before it.
    const edited = join(work, `lab-${tenants}-edited.yaml`);
    writeFileSync(edited, benchLab(tenants, { editFirstTenant: true }));
    let flip = false;
    const incremental = best(args.runs, () => runInto((flip = !flip) ? edited : lab, out));
    rows.push({
      tenants,
      stacks: Object.keys(stacks).length,
      resources,
      seconds: +pvekaas.seconds.toFixed(3),
      maxRssMiB: pvekaas.maxRssMiB,
      baselineSeconds: +baseline.seconds.toFixed(3),
      floorSeconds: +floor.seconds.toFixed(3),
      vsBaseline: +(pvekaas.seconds / baseline.seconds).toFixed(2),
      vsFloor: +(pvekaas.seconds / floor.seconds).toFixed(2),
      incrementalSeconds: +incremental.seconds.toFixed(3),
      changedStacks: incremental.rebuilt,
      incrementalVsFull: +(incremental.seconds / pvekaas.seconds).toFixed(2),
      incrementalMaxRssMiB: incremental.maxRssMiB,
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
const at = (n: number) => rows.find((r) => r.tenants === n) as { seconds: number } | undefined;
const growth = at(100) && at(1000) ? +(at(1000)!.seconds / at(100)!.seconds).toFixed(2) : undefined;
const result = { date: new Date().toISOString().slice(0, 10), machine: `${cpus().length} cores, node ${process.version}, load ${loadavg()[0].toFixed(1)}`, runs: args.runs, sizes: rows, growth100to1000: growth, ...(cli ?? {}) };
if (args.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
else {
  process.stdout.write(`synth benchmark (${result.machine}, best of ${args.runs})\n`);
  process.stdout.write('tenants  stacks  resources   synth s  peak RSS   baseline s  floor s  ×baseline  ×floor  incremental s  changed  ×full\n');
  for (const r of rows as any[]) {
    process.stdout.write(
      `${String(r.tenants).padStart(7)} ${String(r.stacks).padStart(7)} ${String(r.resources).padStart(10)} ${r.seconds.toFixed(2).padStart(9)} ${`${r.maxRssMiB} MiB`.padStart(9)} ${r.baselineSeconds.toFixed(2).padStart(12)} ${r.floorSeconds.toFixed(2).padStart(8)} ${r.vsBaseline.toFixed(2).padStart(10)} ${r.vsFloor.toFixed(2).padStart(7)} ${r.incrementalSeconds.toFixed(2).padStart(14)} ${String(r.changedStacks).padStart(8)} ${r.incrementalVsFull.toFixed(2).padStart(6)}\n`,
    );
  }
  if (cli) process.stdout.write(`cdktf synth (example lab): ${cli.cliSeconds.toFixed(2)} s; plain synth: ${cli.plainSeconds.toFixed(2)} s (+${cli.cliOverPlainSeconds.toFixed(2)} s); tsc on an unchanged tree: ${cli.compileSeconds.toFixed(2)} s\n`);
  if (growth !== undefined) process.stdout.write(`growth 100 → 1000 tenants: ×${growth} (linear would be ×10)\n`);
}
