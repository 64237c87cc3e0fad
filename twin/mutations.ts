/**
 * `npm run test:mutations`: runs the test of every mistake of the mutation corpus
 * (mutation-corpus.ts) and prints, per mistake, whether it was caught. The cheaper tiers run in one
 * jest; the twin's entries run with `--twin` (each twin suite in a network namespace of its own when
 * `unshare -n` is available: CAPMOX's webhook port is fixed), only the corpus's tests of each suite.
 * A mistake is caught when its test ran and passed (the test asserts the refusal); a test that
 * failed or did not run is reported as such, and the exit code is 1.
 *
 *   npm run test:mutations [-- --twin] [-- --json]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { MUTATIONS, type Mutation } from './mutation-corpus';

interface JestJson {
  testResults: { name: string; assertionResults: { fullName: string; title: string; status: string }[] }[];
}

type Outcome = 'caught' | 'test failed' | 'not run';

const root = resolve(__dirname, '../..');
const args = process.argv.slice(2);
const withTwin = args.includes('--twin');
const asJson = args.includes('--json');

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\`]/g, '\\$&');

function runJest(files: string[], titles: string[] | undefined, isolated: boolean): JestJson | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'pvekaas-mutations-'));
  const out = join(dir, 'result.json');
  const jest = [
    join(root, 'node_modules/.bin/jest'),
    '--ci',
    '--json',
    `--outputFile=${out}`,
    ...(titles ? ['-t', titles.map(escape).join('|')] : []),
    ...files,
  ];
  const command = isolated ? ['unshare', '-n', 'sh', '-c', 'ip link set lo up && exec "$@"', 'sh', ...jest] : jest;
  process.stderr.write(`[mutations] ${isolated ? 'unshare -n ' : ''}jest ${files.join(' ')}\n`);
  spawnSync(command[0], command.slice(1), { cwd: root, stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, CHECKPOINT_DISABLE: '1' } });
  try {
    return JSON.parse(readFileSync(out, 'utf8')) as JestJson;
  } catch {
    return undefined;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function outcomes(entries: Mutation[], result: JestJson | undefined): Map<string, Outcome> {
  const out = new Map<string, Outcome>();
  for (const m of entries) {
    const file = result?.testResults.find((r) => relative(root, r.name) === m.file);
    const found = file?.assertionResults.filter((a) => a.title.includes(m.test) || a.fullName.includes(m.test)) ?? [];
    const ran = found.filter((a) => a.status === 'passed' || a.status === 'failed');
    out.set(m.id, ran.length === 0 ? 'not run' : ran.every((a) => a.status === 'passed') ? 'caught' : 'test failed');
  }
  return out;
}

function main(): void {
  const started = Date.now();
  const cheap = MUTATIONS.filter((m) => m.tier !== 'twin');
  const results = outcomes(cheap, runJest([...new Set(cheap.map((m) => m.file))], undefined, false));
  if (withTwin) {
    const isolated = spawnSync('unshare', ['-n', 'true']).status === 0;
    const twin = MUTATIONS.filter((m) => m.tier === 'twin');
    for (const file of [...new Set(twin.map((m) => m.file))]) {
      const mine = twin.filter((m) => m.file === file);
      for (const [id, o] of outcomes(
        mine,
        runJest(
          [file],
          mine.map((m) => m.test),
          isolated,
        ),
      ))
        results.set(id, o);
    }
  }
  const rows = MUTATIONS.map((m) => ({ ...m, result: results.get(m.id) ?? ('not run (twin: --twin)' as const) }));
  const seconds = Math.round((Date.now() - started) / 1000);
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  if (asJson) {
    process.stdout.write(`${JSON.stringify({ date: new Date().toISOString(), seconds, load, mutations: rows }, null, 2)}\n`);
  } else {
    process.stdout.write('| # | mistake | rendered in | caught as | tier: test | result |\n|---|---|---|---|---|---|\n');
    rows.forEach((r, i) =>
      process.stdout.write(`| ${i + 1} | ${r.mistake} | ${r.rendered} | ${r.caughtAs} | ${r.tier}: \`${r.file}\` "${r.test}" | ${r.result} |\n`),
    );
    const caught = rows.filter((r) => r.result === 'caught').length;
    process.stdout.write(
      `\n${caught} of ${rows.length} caught (${rows.filter((r) => r.tier !== 'twin').length} by cheaper tiers, ${rows.filter((r) => r.tier === 'twin').length} by the twin${withTwin ? '' : ', not run without --twin'}) in ${seconds} s, load ${load}\n`,
    );
  }
  const bad = rows.filter((r) => r.result === 'test failed' || r.result === 'not run');
  if (bad.length > 0) {
    process.stderr.write(`[mutations] not caught: ${bad.map((r) => `${r.id} (${r.result})`).join(', ')}\n`);
    process.exitCode = 1;
  }
}

main();
