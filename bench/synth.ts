/**
 * `npm run --silent bench -- [--json] [--sizes 10,100,1000] [--runs 3]`
 *
 * Synth time and memory for labs of 10, 100 and 1000 tenants (3 pools each, 3 instances × 3
 * nodes), each a whole `node` process as a user runs it, against two references measured in the
 * same run: the floor (the same JSON written with JSON.stringify alone) and the baseline (the same
 * resources through bare cdktf constructs). Prints figures, not verdicts; the README records them.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchLab } from './lab-generator';

interface Measure {
  seconds: number;
  maxRssMiB: number;
}

function parseArgs(argv: string[]) {
  const args = { json: false, sizes: [10, 100, 1000], runs: 3 };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--json') args.json = true;
    else if (argv[i] === '--sizes') args.sizes = argv[++i].split(',').map(Number);
    else if (argv[i] === '--runs') args.runs = Number(argv[++i]);
    else {
      process.stderr.write(`unknown argument ${argv[i]}\nusage: npm run --silent bench -- [--json] [--sizes 10,100,1000] [--runs 3]\n`);
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
  const { maxRssKiB } = JSON.parse(r.stdout.trim().split('\n').pop()!);
  return { seconds, maxRssMiB: Math.round(maxRssKiB / 1024) };
}

function best(runs: number, f: () => Measure): Measure {
  const all = Array.from({ length: runs }, f);
  return { seconds: Math.min(...all.map((m) => m.seconds)), maxRssMiB: Math.max(...all.map((m) => m.maxRssMiB)) };
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
    });
    if (!args.json) process.stderr.write(`measured ${tenants} tenants\n`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
const at = (n: number) => rows.find((r) => r.tenants === n) as { seconds: number } | undefined;
const growth = at(100) && at(1000) ? +(at(1000)!.seconds / at(100)!.seconds).toFixed(2) : undefined;
const result = { date: new Date().toISOString().slice(0, 10), machine: `${cpus().length} cores, node ${process.version}`, runs: args.runs, sizes: rows, growth100to1000: growth };
if (args.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
else {
  process.stdout.write(`synth benchmark (${result.machine}, best of ${args.runs})\n`);
  process.stdout.write('tenants  stacks  resources   synth s  peak RSS   baseline s  floor s  ×baseline  ×floor\n');
  for (const r of rows as any[]) {
    process.stdout.write(
      `${String(r.tenants).padStart(7)} ${String(r.stacks).padStart(7)} ${String(r.resources).padStart(10)} ${r.seconds.toFixed(2).padStart(9)} ${`${r.maxRssMiB} MiB`.padStart(9)} ${r.baselineSeconds.toFixed(2).padStart(12)} ${r.floorSeconds.toFixed(2).padStart(8)} ${r.vsBaseline.toFixed(2).padStart(10)} ${r.vsFloor.toFixed(2).padStart(7)}\n`,
    );
  }
  if (growth !== undefined) process.stdout.write(`growth 100 → 1000 tenants: ×${growth} (linear would be ×10)\n`);
}
