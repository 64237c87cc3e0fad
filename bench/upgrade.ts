/**
 * `npm run --silent bench:upgrade -- [--suite day-two] [--json] [--keep]`: the day-two table. Runs
 * the twin suites that take tenants through day-two changes (by default day-two and
 * multi-instance: a minor upgrade, a resize, a storage move, a MultiInstance upgrade over three
 * instances; any suite of test/twin by name) with `PVEKAAS_DAY_TWO_FIGURES` pointed at a scratch
 * file, where every no-outage case writes what its Ready-Node watcher saw (test/twin/support.ts
 * readyReport): per pool the fewest Ready Nodes against what it asks for, per tenant the seconds its
 * API server did not answer (sampled each second through its Service), and each step's duration.
 * Prints them as one table (or `--json`), with the load average at the start and end. A benchmark,
 * not a test: the suites' own assertions are what fails; this prints their figures side by side.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseFlags, runCommand, UserError } from '../scripts/lib/cli';
import { projectRoot } from '../sim/toolchain';

const usage = 'npm run --silent bench:upgrade -- [--suite day-two] [--json] [--keep]';

/** One no-outage case's figures, as test/twin/support.ts readyReport writes them. */
export interface DayTwoRecord {
  suite: string;
  title: string;
  pools: { pool: string; fewest: number; replicas: number; at?: string }[];
  api: { tenant: string; samples: number; unanswered: number; versions: string[] }[];
  steps: { step: string; seconds: number }[];
  unseen: number;
}

/** The records of a figures file, one JSON object a line. */
export function readRecords(text: string): DayTwoRecord[] {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as DayTwoRecord);
}

/** The table: one row per pool of each case, then each case's API servers and steps as a list. */
export function dayTwoTable(records: DayTwoRecord[]): string {
  const rows = ['| change | pool | fewest Ready / asks | below? | first seen during |', '| --- | --- | --: | --- | --- |'];
  for (const r of records) {
    for (const p of r.pools) rows.push(`| ${r.title} | ${p.pool} | ${p.fewest} / ${p.replicas} | ${p.fewest < p.replicas ? 'yes' : 'no'} | ${p.at ?? '–'} |`);
  }
  const lists = records.map((r) => {
    const api = r.api.map((a) => `${a.tenant} API server ${a.unanswered} s unanswered of ${a.samples} (${a.versions.join(' → ')})`);
    const steps = r.steps.map((s) => `${s.step} ${s.seconds} s`);
    return `- **${r.title}** (${r.suite}${r.unseen ? `, ${r.unseen} watch(es) listed again` : ''}): ${[...api, ...(steps.length ? [`steps: ${steps.join(', ')}`] : [])].join('; ')}`;
  });
  return [...rows, '', ...lists].join('\n');
}

if (require.main === module) {
  runCommand(async () => {
    const flags = parseFlags(
      process.argv.slice(2),
      {
        suite: { type: 'string', multiple: true, value: '<name>', help: 'a twin suite of test/twin by name (default: day-two and multi-instance)' },
        json: { type: 'boolean', help: 'the records as one JSON object instead of the table' },
        keep: { type: 'boolean', help: 'keep the figures file (its path is printed)' },
      },
      usage,
      {
        about:
          'The day-two table: the twin suites of upgrades, resizes and moves, their fewest Ready Nodes per pool, API seconds unanswered and step durations.',
      },
    );
    const root = projectRoot();
    const names = (flags.suite as string[] | undefined) ?? ['day-two', 'multi-instance'];
    const files = names.map((n) => `test/twin/${n.replace(/\.test\.ts$/, '')}.test.ts`);
    for (const f of files) if (!existsSync(join(root, f))) throw new UserError(`no twin suite ${f}; the suites are test/twin/*.test.ts`);
    const dir = mkdtempSync(join(tmpdir(), 'pvekaas-bench-upgrade-'));
    const figures = join(dir, 'figures.jsonl');
    const loadStart = loadavg();
    const started = Date.now();
    process.stderr.write(`[bench:upgrade] twin/suites ${files.join(' ')}; figures in ${figures}; load ${loadStart.map((l) => l.toFixed(2)).join(' ')}\n`);
    const code = await new Promise<number>((resolvePromise, reject) => {
      const child = spawn(join(root, 'twin/suites'), files, {
        cwd: root,
        env: { ...process.env, PVEKAAS_DAY_TWO_FIGURES: figures },
        stdio: ['ignore', 'inherit', 'inherit'],
      });
      child.on('error', reject);
      child.on('exit', (c, signal) => resolvePromise(c ?? (signal ? 128 : 1)));
    });
    const records = existsSync(figures) ? readRecords(readFileSync(figures, 'utf8')) : [];
    const loadEnd = loadavg();
    const head = `bench:upgrade: ${files.length} suite(s), exit ${code}, ${Math.round((Date.now() - started) / 1000)} s; load ${loadStart[0].toFixed(1)} at the start, ${loadEnd[0].toFixed(1)} at the end (${new Date().toISOString()})`;
    if (flags.json) process.stdout.write(`${JSON.stringify({ exit: code, loadStart: loadStart[0], loadEnd: loadEnd[0], records }, null, 2)}\n`);
    else process.stdout.write(`\n${head}\n\n${dayTwoTable(records)}\n`);
    if (!flags.keep) rmSync(dir, { recursive: true, force: true });
    process.exitCode = code === 0 && records.length > 0 ? 0 : 1;
  });
}
