/**
 * What `scripts/toolchain install <job>` builds and how its progress lines count the time left
 * (scripts/lib/toolchain-plan.ts), and that the bash script asks that plan: the same parts, in the
 * same order, at the cache paths the toolchain has always used (a changed path would rebuild cold).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import ts from 'typescript';
import { resolveToolchain } from '../../modules/versions';
import {
  defaultsFromRecord,
  duration,
  endedLine,
  expectation,
  JOBS,
  pace,
  parts,
  planParts,
  recordBuild,
  recordKey,
  runningLine,
  timeLeft,
  type DefaultTimes,
  type PlanPins,
  type RunPart,
  type TimesTable,
} from '../../scripts/lib/toolchain-plan';
import defaultTimes from '../../scripts/lib/toolchain-times.json';

const root = resolve(__dirname, '../..');
const pins = resolveToolchain() as unknown as PlanPins & ReturnType<typeof resolveToolchain>;
const names = (requests: string[]) => planParts(pins, requests).map((p) => p.name);

describe('the parts of each job', () => {
  it('builds for the demo the engine first, then the management server, the charts, the controllers (the providers, the default core) and MetalLB — not the backup tools', () => {
    const demo = names(['demo']);
    expect(demo).toEqual([
      'tofu',
      'terraform-provider-proxmox',
      'crds',
      'etcd',
      ...pins.kubernetes.commands,
      'kustomize',
      'helm',
      'charts',
      'controllers',
      'capi-core',
      'metallb-controller',
    ]);
    for (const absent of ['etcdctl', 'etcdutl', 'bbolt', 'rclone']) expect(demo).not.toContain(absent);
  });

  it('adds for the twin suites every tenant minor and the backup tools; the kube tier has no engine or controllers; unit only the CRD tree', () => {
    // Every tenant minor other than the management's: its own part, after the management's commands.
    const minors = Object.keys(pins.kubernetes.minors)
      .filter((v) => v !== pins.kubernetes.version)
      .sort()
      .map((v) => `kube-${v}`);
    expect(minors.length).toBeGreaterThan(0);
    const demo = names(['demo']);
    const at = demo.indexOf('kustomize');
    expect(names(['twin'])).toEqual([...demo.slice(0, at), ...minors, ...demo.slice(at), 'etcdctl', 'etcdutl', 'bbolt', 'rclone']);
    const kube = names(['kube']);
    expect(kube).toEqual([
      'crds',
      'etcd',
      ...pins.kubernetes.commands,
      ...minors,
      'kustomize',
      'helm',
      'charts',
      'metallb-controller',
      'etcdctl',
      'etcdutl',
      'bbolt',
    ]);
    expect(names(['unit'])).toEqual(['crds']);
    expect(names(['engine'])).toEqual(['tofu', 'terraform-provider-proxmox', 'crds']);
  });

  it('builds everything for all or no request, and a part with what it needs (the charts: kustomize); jobs and parts combine in build order', () => {
    const every = parts(pins).map((p) => p.name);
    expect(names([])).toEqual(every);
    expect(names(['all'])).toEqual(every);
    expect(names(['charts'])).toEqual(['kustomize', 'charts']);
    expect(names(['capi-core', 'engine'])).toEqual(['tofu', 'terraform-provider-proxmox', 'crds', 'capi-core']);
    // Every part belongs to some job short of all (nothing is built for no one).
    const used = new Set(
      Object.keys(JOBS)
        .filter((j) => j !== 'all')
        .flatMap((j) => names([j])),
    );
    expect(every.filter((p) => !used.has(p))).toEqual([]);
  });

  it('refuses an unknown job or part, naming the jobs and parts there are', () => {
    expect(() => planParts(pins, ['demo', 'dmeo'])).toThrow(
      /no job or part dmeo; jobs: unit, engine, kube, demo, twin, all; parts: tofu, terraform-provider-proxmox, crds/,
    );
  });

  it('keys each part by the version of its pins: a plugin the proxy does not serve is no part; no capiCore, no core part', () => {
    const byName = Object.fromEntries(parts(pins).map((p) => [p.name, p.version]));
    expect(byName.tofu).toBe(pins.tofu.version);
    expect(byName['kube-apiserver']).toBe(pins.kubernetes.version);
    expect(byName.controllers).toBe(
      Object.entries(pins.controllers.modules)
        .map(([m, v]) => `${m.split('/').pop()}-${v}`)
        .join('_'),
    );
    expect(byName['capi-core']).toBe(pins.capiCore!.version);
    expect(Object.keys(byName)).not.toContain('terraform-provider-kubernetes');
    const { capiCore: _core, ...withoutCore } = pins;
    expect(parts(withoutCore as PlanPins).map((p) => p.name)).not.toContain('capi-core');
    const bumped = JSON.parse(JSON.stringify(pins)) as PlanPins;
    bumped.tofu.version = 'v9.9.9';
    expect(parts(bumped).find((p) => p.name === 'tofu')!.version).toBe('v9.9.9');
  });
});

describe('expected times', () => {
  const defaults: DefaultTimes = { parts: { tofu: { seconds: 600 }, helm: { seconds: 200 } } };
  const table: TimesTable = {
    'tofu@v0.91.0': { seconds: 300, at: '2026-12-01T00:00:00Z' },
    'tofu@v0.92.0': { seconds: 400, at: '2026-12-05T00:00:00Z' },
    'tofu@v0.93.0': { seconds: 500, at: '2026-12-03T00:00:00Z' },
  };

  it("takes this machine's record of the version, else its newest record of another version, else the committed default, else none", () => {
    expect(expectation({ name: 'tofu', version: 'v0.91.0' }, table, defaults)).toEqual({ seconds: 300, from: 'record' });
    expect(expectation({ name: 'tofu', version: 'v0.94.0' }, table, defaults)).toEqual({ seconds: 400, from: 'other version' });
    expect(expectation({ name: 'helm', version: 'v3' }, table, defaults)).toEqual({ seconds: 200, from: 'default' });
    expect(expectation({ name: 'rclone', version: 'v1' }, table, defaults)).toBeUndefined();
  });

  it('records a cold build per part and version, replacing the last one of that version only', () => {
    const next = recordBuild(table, { name: 'tofu', version: 'v0.91.0' }, { seconds: 280, cpuSeconds: 500 });
    expect(next['tofu@v0.91.0']).toEqual({ seconds: 280, cpuSeconds: 500 });
    expect(next['tofu@v0.92.0']).toEqual(table['tofu@v0.92.0']);
    expect(Object.keys(recordBuild({ 'z@1': { seconds: 1 } }, { name: 'a', version: '1' }, { seconds: 1 }))).toEqual(['a@1', 'z@1']);
  });

  it('refreshes the committed defaults from a record: the parts at their pinned version, the others kept', () => {
    const tofu = { name: 'tofu', version: pins.tofu.version };
    const table: TimesTable = { [recordKey(tofu)]: { seconds: 321, load: [1, 2] }, 'tofu@v0.91.0': { seconds: 999 } };
    const refreshed = defaultsFromRecord(pins, table, { parts: { tofu: { seconds: 5 }, helm: { seconds: 7 } } }, 'note');
    expect(refreshed).toEqual({ '//': 'note', parts: { tofu: { seconds: 321, load: [1, 2] }, helm: { seconds: 7 } } });
  });

  it('has a committed default for every part', () => {
    const missing = planParts(pins, ['all']).filter((p) => !expectation(p, {}, defaultTimes as unknown as DefaultTimes));
    expect(missing.map((p) => p.name)).toEqual([]);
  });
});

describe('time left', () => {
  const run = (): RunPart[] => [
    { name: 'tofu', version: 'v1', expected: 600 },
    { name: 'etcd', version: 'v3', expected: 100 },
    { name: 'helm', version: 'v3', expected: 300 },
    { name: 'new', version: 'v0' },
  ];

  it('sums what is not built at the pace of the record until a part ends, and counts the parts without an estimate apart', () => {
    expect(timeLeft(run(), undefined)).toEqual({ seconds: 1000, unknown: 1, pace: 1 });
    // tofu building for 4 minutes of its 10: 6 left of it, plus etcd and helm.
    expect(timeLeft(run(), 0, 240)).toEqual({ seconds: 360 + 100 + 300, unknown: 1, pace: 1 });
    // Over its expected time the current part counts nothing more (not a negative).
    expect(timeLeft(run(), 0, 900).seconds).toBe(400);
  });

  it('scales what is left by how the ended parts compared with their expectation, within ¼..4', () => {
    const r = run();
    r[0].actual = 1200; // twice as slow as the record: a busy machine
    expect(pace(r)).toBe(2);
    expect(timeLeft(r, 1, 50)).toEqual({ seconds: 200 - 50 + 600, unknown: 1, pace: 2 });
    r[0].actual = 60000;
    expect(pace(r)).toBe(4);
    r[0].actual = 1;
    expect(pace(r)).toBe(0.25);
    // A part without an estimate does not move the pace.
    const s = run();
    s[3].actual = 5000;
    expect(pace(s)).toBe(1);
  });

  it('writes durations short and the progress lines with the expected, elapsed and total time left', () => {
    expect([duration(0), duration(44.6), duration(185), duration(3600 + 125)]).toEqual(['0s', '45s', '3m05s', '1h02m']);
    const r = run();
    expect(runningLine(r, 0, 0)).toBe('1/4 tofu v1: building, expected 10m00s; about 16m40s left in all (+ 1 without an estimate)');
    expect(runningLine(r, 0, 130)).toBe('1/4 tofu v1: building 2m10s of ~10m00s; about 14m30s left in all (+ 1 without an estimate)');
    expect(runningLine(r, 0, 700)).toBe('1/4 tofu v1: building 11m40s of ~10m00s, 1m40s over; about 6m40s left in all (+ 1 without an estimate)');
    r[0].actual = 540;
    expect(endedLine(r, 0, { cpuSeconds: 1012.4, bytes: 83_400_000 })).toBe(
      '1/4 tofu v1: built in 9m00s (1012 CPU s, 83.4 MB), expected 10m00s; about 6m00s left in all (+ 1 without an estimate)',
    );
    expect(runningLine(r, 3, 10)).toMatch(/^4\/4 new v0: building 10s of \?; /);
  });
});

/** The plan as the bash script runs it: this file transpiled alone (scripts/toolchain plan_js). */
function transpiledPlan(dir: string): string {
  const source = readFileSync(join(root, 'scripts/lib/toolchain-plan.ts'), 'utf8');
  const out = join(dir, 'toolchain-plan.js');
  writeFileSync(out, ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 } }).outputText);
  return out;
}

describe('the progress lines of a build (no terminal: a line per part start and end)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'pvekaas-plan-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('announces the plan, starts and ends each part, records each ended part by version in the table, and names a part that failed', () => {
    const plan = transpiledPlan(dir);
    const pinsFile = join(dir, 'pins.json');
    writeFileSync(pinsFile, JSON.stringify(pins));
    const table = join(dir, 'build-times.json');
    const tofu = `tofu@${pins.tofu.version}`;
    writeFileSync(table, JSON.stringify({ [tofu]: { seconds: 100 } }));
    const defaults = join(dir, 'defaults.json');
    writeFileSync(defaults, JSON.stringify({ parts: { etcd: { seconds: 50 } } }));
    const args = ['progress', '--pins', pinsFile, '--table', table, '--defaults', defaults, '--request', 'demo', '--todo', 'tofu,etcd', '--cached', 'crds'];
    const r = spawnSync(process.execPath, [plan, ...args], {
      input: 'start tofu\nlog building tofu from its module\nended tofu 12.5 1000000\nstart etcd\n',
      encoding: 'utf8',
    });
    expect(r.status).toBe(0);
    const lines = r.stderr.trim().split('\n');
    expect(lines[0]).toBe('[toolchain] demo: 2 part(s) to build (tofu, etcd), about 2m30s left in all; cached: crds');
    expect(lines[1]).toBe(`[toolchain] 1/2 tofu ${pins.tofu.version}: building, expected 1m40s; about 2m30s left in all`);
    expect(lines[2]).toBe('[toolchain] building tofu from its module');
    expect(lines[3]).toMatch(
      new RegExp(`^\\[toolchain\\] 1/2 tofu ${pins.tofu.version}: built in 0s \\(13 CPU s, 1\\.0 MB\\), expected 1m40s; about 13s left in all$`),
    );
    expect(lines[4]).toMatch(/^\[toolchain\] 2\/2 etcd \S+: building, expected 50s; about 13s left in all$/);
    expect(lines[5]).toMatch(/^\[toolchain\] 2\/2 etcd \S+: FAILED after 0s$/);
    const recorded = JSON.parse(readFileSync(table, 'utf8')) as TimesTable;
    expect(recorded[tofu]).toMatchObject({ cpuSeconds: 12.5, bytes: 1000000, cores: expect.any(Number), load: [expect.any(Number), expect.any(Number)] });
    expect(recorded[tofu].seconds).toBeLessThan(100);
    expect(Object.keys(recorded)).toEqual([tofu]);
  });
});

describe('scripts/toolchain asks the plan', () => {
  let cache: string;
  beforeAll(() => {
    cache = mkdtempSync(join(tmpdir(), 'pvekaas-cache-'));
  });
  afterAll(() => rmSync(cache, { recursive: true, force: true }));
  const partsOf = (args: string[]) =>
    execFileSync(join(root, 'scripts/toolchain'), ['parts', ...args], { cwd: root, encoding: 'utf8', env: { ...process.env, PVEKAAS_TOOL_CACHE: cache } })
      .trim()
      .split('\n')
      .map((l) => l.split(/\s+/));

  it('lists the parts of a job in the plan order, and finds each binary part at the cache path it has always been built to', () => {
    expect(partsOf(['demo']).map(([, name]) => name)).toEqual(names(['demo']));
    // An empty cache: no binary part is built (the trees, crds and charts, live in .toolchain/, not the cache).
    expect(partsOf(['demo']).filter(([state, name]) => state === 'built' && name !== 'crds' && name !== 'charts')).toEqual([]);
    // The cache layout, written out: <name>-<version>/<binary> (the lead's and CI's caches are keyed so).
    const k = pins.kubernetes;
    const etcd = k.etcd.version;
    const controllersKey = parts(pins).find((p) => p.name === 'controllers')!.version;
    const raw = JSON.parse(JSON.stringify(pins)) as { controllers: { binaries: Record<string, string> }; capiCore: { controllers: string[]; cache: string } };
    const files = [
      `tofu-${pins.tofu.version}/tofu`,
      `terraform-provider-proxmox-${pins.providers.proxmox.version}/terraform-provider-proxmox_v${pins.providers.proxmox.version}`,
      `etcd-${etcd}/etcd`,
      `etcd-${etcd}/etcdctl`,
      `etcd-${etcd}/etcdutl`,
      `bbolt-${k.etcd.bbolt.version}/bbolt`,
      ...k.commands.map((c) => `kubernetes-${k.version}/${c}`),
      // A tenant minor's three commands, each under its own version.
      ...Object.keys(k.minors)
        .filter((v) => v !== k.version)
        .flatMap((v) => k.commands.map((c) => `kubernetes-${v}/${c}`)),
      `helm-${pins.helmCli.helm.version}/helm`,
      `kustomize-${pins.helmCli.kustomize.version}/kustomize`,
      ...Object.keys(raw.controllers.binaries).map((b) => `controllers-${controllersKey}/${b}`),
      ...raw.capiCore.controllers.map((b) => `${raw.capiCore.cache}/${b}`),
      `metallb-controller-v${(pins.components.metallb as { version: string }).version}/metallb-controller`,
      `rclone-v${(pins.components.rclone as { version: string }).version}/rclone`,
    ];
    for (const f of files) {
      mkdirSync(dirname(join(cache, f)), { recursive: true });
      writeFileSync(join(cache, f), '');
      chmodSync(join(cache, f), 0o755);
    }
    const states = Object.fromEntries(partsOf(['all']).map(([state, name]) => [name, state]));
    // Every binary part found; the trees (crds, charts) are laid out in .toolchain/, not cached.
    expect(Object.entries(states).filter(([name, state]) => state !== 'built' && name !== 'crds' && name !== 'charts')).toEqual([]);
    rmSync(join(cache, files[0]));
    expect(partsOf(['engine']).find(([, name]) => name === 'tofu')![0]).toBe('missing');
  }, 120000);

  it('builds nothing under PVEKAAS_TOOLCHAIN_NO_BUILD: exit 1 naming what is missing, with nothing linked', () => {
    const dest = join(cache, 'dest');
    const r = spawnSync(join(root, 'scripts/toolchain'), ['install', 'engine'], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, PVEKAAS_TOOL_CACHE: join(cache, 'empty'), PVEKAAS_TOOLCHAIN_DIR: dest, PVEKAAS_TOOLCHAIN_NO_BUILD: '1' },
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/not building \(PVEKAAS_TOOLCHAIN_NO_BUILD is set\): engine needs tofu terraform-provider-proxmox crds, not built in /);
    expect(spawnSync('ls', [join(dest, 'bin')]).status).not.toBe(0);
  }, 60000);

  it('refuses an unknown job with exit 2, naming the jobs', () => {
    const r = spawnSync(join(root, 'scripts/toolchain'), ['install', 'everything'], { cwd: root, encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/no job or part everything; jobs: unit, engine, kube, demo, twin, all/);
  }, 60000);
});
