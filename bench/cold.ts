/**
 * `npm run --silent bench:cold -- [--job <job>] [--json] [--keep]`: the first run of a fresh machine
 * for one job of `scripts/toolchain install` (demo by default; engine, kube, twin, unit, all, or parts by
 * name), in empty caches: PVEKAAS_TOOL_CACHE, GOMODCACHE and GOCACHE pointed at fresh temporary
 * directories (and .toolchain/ laid out in one too, PVEKAAS_TOOLCHAIN_DIR, so the checkout keeps its
 * own). Prints per part its seconds, CPU seconds, binary size and the 1-minute load average at its
 * start and end (as the build recorded them in the empty cache's build-times.json), then the whole.
 * A benchmark, not a test: it prints figures. `all` costs ~45 minutes of 2 cores.
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { cpus, getPriority, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseFlags, runCommand, UserError } from '../scripts/lib/cli';
import { duration, parts, planParts, recordKey, type PlanPins, type TimesTable } from '../scripts/lib/toolchain-plan';
import { resolveToolchain } from '../modules/versions';
import { projectRoot } from '../sim/toolchain';

const usage = 'npm run --silent bench:cold -- [--job demo] [--json] [--keep]';

/** Makes the Go module cache (read-only files) removable. */
function writable(dir: string): void {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const stat = statSync(path, { throwIfNoEntry: false });
    if (!stat) continue;
    if (stat.isDirectory()) {
      chmodSync(path, 0o755);
      writable(path);
    }
  }
}

runCommand(async () => {
  const flags = parseFlags(
    process.argv.slice(2),
    {
      job: { type: 'string', multiple: true, value: '<job>', help: 'what to build cold: demo (default), engine, kube, twin, unit, all, or a part by name' },
      json: { type: 'boolean', help: 'one JSON object instead of the table' },
      keep: { type: 'boolean', help: 'keep the temporary caches (their paths are printed)' },
    },
    usage,
    { about: 'The cold path of scripts/toolchain install <job> in empty caches: per part its seconds, CPU seconds, binary size and load average.' },
  );
  const root = projectRoot();
  const requests = (flags.job as string[] | undefined) ?? ['demo'];
  const pins = resolveToolchain() as unknown as PlanPins;
  let plan;
  try {
    plan = planParts(pins, requests);
  } catch (e) {
    throw new UserError((e as Error).message);
  }
  const base = mkdtempSync(join(tmpdir(), 'pvekaas-cold-'));
  const dirs = { cache: join(base, 'tools'), gomodcache: join(base, 'gomodcache'), gocache: join(base, 'gocache'), toolchain: join(base, 'toolchain') };
  for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PVEKAAS_TOOL_CACHE: dirs.cache,
    GOMODCACHE: dirs.gomodcache,
    GOCACHE: dirs.gocache,
    PVEKAAS_TOOLCHAIN_DIR: dirs.toolchain,
  };
  delete env.PVEKAAS_TOOLCHAIN_NO_BUILD;
  const loadStart = loadavg();
  const started = Date.now();
  process.stderr.write(
    `[bench:cold] scripts/toolchain install ${requests.join(' ')} in empty caches under ${base}; load ${loadStart.map((l) => l.toFixed(2)).join(' ')}\n`,
  );
  const code = await new Promise<number>((resolvePromise, reject) => {
    const child = spawn(join(root, 'scripts/toolchain'), ['install', ...requests], { cwd: root, env, stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('error', reject);
    child.on('exit', (c, signal) => resolvePromise(c ?? (signal ? 128 : 1)));
  });
  const wall = (Date.now() - started) / 1000;
  const loadEnd = loadavg();
  try {
    const tableFile = join(dirs.cache, 'build-times.json');
    const table = (existsSync(tableFile) ? JSON.parse(readFileSync(tableFile, 'utf8')) : {}) as TimesTable;
    const versions = new Map(parts(pins).map((p) => [p.name, p.version]));
    const rows = plan.map((p) => ({ part: p.name, version: versions.get(p.name)!, ...table[recordKey(p)] }));
    const summary = {
      job: requests.join(' '),
      exit: code,
      wallSeconds: Math.round(wall),
      cpuSeconds: Math.round(rows.reduce((s, r) => s + (r.cpuSeconds ?? 0), 0)),
      bytes: rows.reduce((s, r) => s + (r.bytes ?? 0), 0),
      cores: cpus().length,
      nice: getPriority(),
      load: { start: loadStart.map((l) => Number(l.toFixed(2))), end: loadEnd.map((l) => Number(l.toFixed(2))) },
      at: new Date(started).toISOString().replace(/\.\d+Z$/, 'Z'),
      parts: rows,
    };
    if (flags.json) {
      process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
    } else {
      const mb = (b?: number) => (b ? (b / 1e6).toFixed(1) : '–');
      process.stdout.write(
        `cold scripts/toolchain install ${summary.job}: exit ${code}, ${duration(wall)} wall (${summary.wallSeconds} s), ${summary.cpuSeconds} CPU s, ` +
          `${mb(summary.bytes)} MB of binaries; ${summary.cores} cores, nice ${summary.nice}; load ${summary.load.start.join(' ')} at the start, ${summary.load.end.join(' ')} at the end (${summary.at})\n\n`,
      );
      process.stdout.write('| part | version | seconds | CPU seconds | size (MB) | load at start → end |\n|---|---|--:|--:|--:|---|\n');
      for (const r of rows) {
        const load = r.load ? `${r.load[0]} → ${r.load[1]}` : '–';
        process.stdout.write(`| ${r.part} | ${r.version} | ${r.seconds ?? 'not built'} | ${r.cpuSeconds ?? '–'} | ${mb(r.bytes)} | ${load} |\n`);
      }
    }
    if (code !== 0) throw new UserError(`scripts/toolchain install ${summary.job} ended with exit ${code} (the parts above that have figures were built)`);
  } finally {
    if (flags.keep) process.stderr.write(`[bench:cold] kept ${base}\n`);
    else {
      if (existsSync(dirs.gomodcache)) writable(dirs.gomodcache);
      rmSync(base, { recursive: true, force: true });
    }
  }
});
