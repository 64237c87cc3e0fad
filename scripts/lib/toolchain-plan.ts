/**
 * What `scripts/toolchain install <job>` builds, in which order, and how long it should take.
 *
 * - The parts: every binary (or laid-out tree) the toolchain makes, named as on `.toolchain/bin`,
 *   each with the version its cache entry is keyed by, derived from the resolved pins
 *   (`scripts/toolchain pins`, the shape of modules/versions resolveToolchain) — no version here.
 * - The jobs: which parts a job needs (the demo, the twin suites, the unit and kube tiers, all),
 *   in the order it needs them (`planParts`).
 * - The expected time of each part: the machine's own record (`build-times.json` in the tool cache,
 *   written by every cold build, per part and version), else the committed defaults
 *   (scripts/lib/toolchain-times.json, measured on a 2-core machine), and the arithmetic of the
 *   progress lines: time left in all, scaled by how this run compares with the record so far.
 *
 * The bash script runs this file through node (transpiled on its own, so it imports node builtins
 * only): `plan --pins <file> [job|part]...` prints the parts, `progress ...` draws the progress
 * from the events the script writes on stdin. Everything above `main` is pure.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';

/** The resolved pins, as far as the plan reads them (`scripts/toolchain pins`). */
export interface PlanPins {
  tofu: { version: string };
  providers: Record<string, { version: string; binary: string; served?: boolean }>;
  kubernetes: { version: string; commands: string[]; minors?: Record<string, { version: string }>; etcd: { version: string; bbolt: { version: string } } };
  helmCli: { helm: { version: string }; kustomize: { version: string } };
  controllers: { modules: Record<string, string> };
  twinControllers: Record<string, { component: string } | string>;
  capiCore?: { version: string };
  rclone: { component: string };
  components: Record<string, { version: string } | string>;
  crds: Record<string, unknown>;
  charts: Record<string, unknown>;
}

export type Group = 'engine' | 'crds' | 'kube-server' | 'kube-tenant' | 'helm' | 'charts' | 'controllers' | 'twin-controllers' | 'etcd-tools' | 'rclone';

/** One part the toolchain makes: its name (a binary on `.toolchain/bin`, or a tree), the version its cache is keyed by. */
export interface Part {
  name: string;
  version: string;
  group: Group;
  /** Parts this one needs built first (charts: kustomize renders one of them). */
  needs: string[];
}

/** What each job is for, and the groups of parts it needs, in the order it needs them. */
export const JOBS = {
  unit: { about: 'the unit tier (npm run test:unit): the CRD tree only', groups: ['crds'] },
  engine: { about: 'OpenTofu and the provider plugins (synth validation, the simulator tests, npm run test:e2e)', groups: ['engine', 'crds'] },
  kube: {
    about: 'the Kubernetes tier (test/kube, test/helm): the test API server, the tenant minors, etcd and its tools, the Helm CLI, the charts, MetalLB',
    groups: ['crds', 'kube-server', 'kube-tenant', 'helm', 'charts', 'twin-controllers', 'etcd-tools'],
  },
  demo: {
    about:
      "npm run demo: the engine, the management API server, the Helm CLI and charts, the Cluster API controllers (the providers, the default core), MetalLB (plus the lab's other tenant minors, kube-<version>, which the demo asks for)",
    groups: ['engine', 'crds', 'kube-server', 'helm', 'charts', 'controllers', 'twin-controllers'],
  },
  twin: {
    about: 'the lab twin suites (npm run test:twin): the demo, every tenant minor, the backup tools',
    groups: ['engine', 'crds', 'kube-server', 'kube-tenant', 'helm', 'charts', 'controllers', 'twin-controllers', 'etcd-tools', 'rclone'],
  },
  all: { about: 'everything (npm test, CI)', groups: [] },
} as const satisfies Record<string, { about: string; groups: readonly Group[] }>;

export type Job = keyof typeof JOBS;

const isJob = (name: string): name is Job => Object.prototype.hasOwnProperty.call(JOBS, name);

const digest = (value: unknown) => `sha-${createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 12)}`;
const withV = (version: string) => (version.startsWith('v') ? version : `v${version}`);
const entries = <T>(o: Record<string, T | string>): [string, T][] =>
  Object.entries(o).filter((e): e is [string, T] => e[0] !== '//' && typeof e[1] !== 'string');

function componentVersion(pins: PlanPins, name: string): string {
  const row = pins.components[name];
  if (row === undefined || typeof row === 'string') throw new Error(`toolchain.json: no component ${name}`);
  return row.version;
}

/** Every part, in build order: the engine first (the demo's first use), then the management server, its charts and controllers, then what only suites use. */
export function parts(pins: PlanPins): Part[] {
  const out: Part[] = [];
  const add = (group: Group, name: string, version: string, needs: string[] = []) => out.push({ name, version, group, needs });
  add('engine', 'tofu', pins.tofu.version);
  for (const [, p] of entries(pins.providers)) if (p.served !== false) add('engine', p.binary, p.version);
  add('crds', 'crds', digest(pins.crds));
  add('kube-server', 'etcd', pins.kubernetes.etcd.version);
  for (const command of pins.kubernetes.commands) add('kube-server', command, pins.kubernetes.version);
  // The tenant minors other than the management's (its commands above serve its minor's tenants):
  // one part per pinned patch, its three commands (scripts/toolchain tenant_kube).
  for (const version of Object.keys(pins.kubernetes.minors ?? {}).sort())
    if (version !== pins.kubernetes.version) add('kube-tenant', tenantKubePart(version), version);
  add('charts', 'kustomize', pins.helmCli.kustomize.version);
  add('helm', 'helm', pins.helmCli.helm.version);
  add('charts', 'charts', digest([pins.charts, pins.helmCli.kustomize]), ['kustomize']);
  // The cache key scripts/toolchain gives the controllers' one wrapper module.
  add(
    'controllers',
    'controllers',
    Object.entries(pins.controllers.modules)
      .map(([m, v]) => `${m.split('/').pop()}-${v}`)
      .join('_'),
  );
  // The default core and kubeadm bootstrap, built alone (toolchain.json capiCore).
  if (pins.capiCore) add('controllers', 'capi-core', pins.capiCore.version);
  for (const [name, c] of entries(pins.twinControllers)) add('twin-controllers', name, withV(componentVersion(pins, c.component)));
  add('etcd-tools', 'etcdctl', pins.kubernetes.etcd.version);
  add('etcd-tools', 'etcdutl', pins.kubernetes.etcd.version);
  add('etcd-tools', 'bbolt', pins.kubernetes.etcd.bbolt.version);
  add('rclone', 'rclone', withV(componentVersion(pins, pins.rclone.component)));
  return out;
}

/** The part of a tenant minor's commands: `kube-<pinned patch>` (its minor's tenant binaries, .toolchain/kube/<version>/). */
export const tenantKubePart = (version: string) => `kube-${version}`;

/**
 * The parts `requests` need (jobs or part names; none: `all`), with what they need, in build order.
 * Throws naming the jobs and parts there are for an unknown request.
 */
export function planParts(pins: PlanPins, requests: readonly string[]): Part[] {
  const every = parts(pins);
  const wanted = new Set<string>();
  const unknown: string[] = [];
  for (const request of requests.length === 0 ? ['all'] : requests) {
    if (request === 'all') every.forEach((p) => wanted.add(p.name));
    else if (isJob(request)) {
      const groups: readonly Group[] = JOBS[request].groups;
      every.filter((p) => groups.includes(p.group)).forEach((p) => wanted.add(p.name));
    } else if (every.some((p) => p.name === request)) wanted.add(request);
    else unknown.push(request);
  }
  if (unknown.length > 0) {
    throw new Error(
      `scripts/toolchain install: no job or part ${unknown.join(', ')}; jobs: ${Object.keys(JOBS).join(', ')}; parts: ${every.map((p) => p.name).join(', ')}`,
    );
  }
  for (const p of every) if (wanted.has(p.name)) p.needs.forEach((n) => wanted.add(n));
  return every.filter((p) => wanted.has(p.name));
}

/** One cold build of a part, as recorded. */
export interface BuildRecord {
  seconds: number;
  cpuSeconds?: number;
  bytes?: number;
  /** The 1-minute load average when it started and when it ended. */
  load?: [number, number];
  cores?: number;
  /** When it ended (ISO 8601, UTC). */
  at?: string;
  /** Where a committed figure comes from, when not from a record of this build. */
  note?: string;
}

/** The machine's record: `<part>@<version>` → its last cold build. */
export type TimesTable = Record<string, BuildRecord>;

/** The committed defaults: part → a cold build on a 2-core machine (version-free: an estimate for any version). */
export interface DefaultTimes {
  parts: Record<string, BuildRecord>;
}

export const recordKey = (part: Pick<Part, 'name' | 'version'>) => `${part.name}@${part.version}`;

export interface Expectation {
  seconds: number;
  /** `record`: this machine built this version; `other version`: this machine built another version; `default`: the committed figures. */
  from: 'record' | 'other version' | 'default';
}

/** The expected seconds of a cold build of `part`: this machine's record of that version, of another version, or the committed default. */
export function expectation(part: Pick<Part, 'name' | 'version'>, table: TimesTable, defaults: DefaultTimes): Expectation | undefined {
  const exact = table[recordKey(part)];
  if (exact) return { seconds: exact.seconds, from: 'record' };
  const others = Object.entries(table)
    .filter(([k]) => k.slice(0, k.lastIndexOf('@')) === part.name)
    .map(([, r]) => r)
    .sort((a, b) => (b.at ?? '').localeCompare(a.at ?? ''));
  if (others.length > 0) return { seconds: others[0].seconds, from: 'other version' };
  // A tenant minor's part (kube-<version>) has one version-free default: its three commands.
  const d = defaults.parts[part.name] ?? (/^kube-v\d/.test(part.name) ? defaults.parts['kube-tenant'] : undefined);
  return d ? { seconds: d.seconds, from: 'default' } : undefined;
}

/** The table with one more cold build recorded (replacing that part and version's last one). */
export function recordBuild(table: TimesTable, part: Pick<Part, 'name' | 'version'>, record: BuildRecord): TimesTable {
  const next = { ...table, [recordKey(part)]: record };
  return Object.fromEntries(Object.entries(next).sort(([a], [b]) => a.localeCompare(b)));
}

/** A part of this run: its expectation, and once it ended, how long it took. */
export interface RunPart {
  name: string;
  version: string;
  expected?: number;
  actual?: number;
}

/**
 * How this run compares with the record: the time the ended parts took over what they were
 * expected to take (1 until one has ended), kept within ¼..4 so one odd part does not swing it.
 */
export function pace(run: readonly RunPart[]): number {
  const ended = run.filter((p) => p.actual !== undefined && p.expected !== undefined && p.expected > 0);
  const expected = ended.reduce((s, p) => s + p.expected!, 0);
  if (expected === 0) return 1;
  const ratio = ended.reduce((s, p) => s + p.actual!, 0) / expected;
  return Math.min(4, Math.max(0.25, ratio));
}

export interface Left {
  /** Seconds left in all: what the current part still should take, plus every part not started, at this run's pace. */
  seconds: number;
  /** Parts not ended that have no expectation (not counted in `seconds`). */
  unknown: number;
  pace: number;
}

/** Time left, with `current` (an index into `run`) running for `elapsed` seconds; parts before it ended. */
export function timeLeft(run: readonly RunPart[], current: number | undefined, elapsed = 0): Left {
  const p = pace(run);
  let seconds = 0;
  let unknown = 0;
  run.forEach((part, i) => {
    if (part.actual !== undefined) return;
    if (part.expected === undefined) {
      unknown += 1;
      return;
    }
    const expected = part.expected * p;
    seconds += i === current ? Math.max(expected - elapsed, 0) : expected;
  });
  return { seconds, unknown, pace: p };
}

/** 45s, 3m05s, 1h02m. */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

const leftText = (left: Left) =>
  left.seconds === 0 && left.unknown > 0
    ? `${left.unknown} part(s) left without an estimate`
    : `about ${duration(left.seconds)} left in all${left.unknown > 0 ? ` (+ ${left.unknown} without an estimate)` : ''}`;

const bytesText = (bytes: number) => (bytes >= 1e6 ? `${(bytes / 1e6).toFixed(1)} MB` : `${Math.round(bytes / 1e3)} kB`);

/** The trees (crds, charts) are laid out from downloaded modules, not built. */
const tree = (part: RunPart) => part.name === 'crds' || part.name === 'charts';
const label = (run: readonly RunPart[], i: number) => `${i + 1}/${run.length} ${run[i].name} ${run[i].version}`;
const expectedText = (part: RunPart) => (part.expected === undefined ? 'no estimate yet' : `expected ${duration(part.expected)}`);

/** The line a part starts with (and, on a terminal, the line that updates while it builds). */
export function runningLine(run: readonly RunPart[], i: number, elapsed: number): string {
  const part = run[i];
  const left = timeLeft(run, i, elapsed);
  const scaled = part.expected === undefined ? undefined : part.expected * left.pace;
  const over = scaled !== undefined && elapsed > scaled ? `, ${duration(elapsed - scaled)} over` : '';
  const doing = tree(part) ? 'laying out' : 'building';
  const time =
    elapsed === 0
      ? `${doing}, ${expectedText(part)}`
      : `${doing} ${duration(elapsed)} of ${part.expected === undefined ? '?' : `~${duration(scaled!)}`}${over}`;
  return `${label(run, i)}: ${time}; ${leftText(left)}`;
}

/** The line a part ends with. */
export function endedLine(run: readonly RunPart[], i: number, figures: { cpuSeconds?: number; bytes?: number }): string {
  const part = run[i];
  const extra = [figures.cpuSeconds !== undefined ? `${Math.round(figures.cpuSeconds)} CPU s` : '', figures.bytes ? bytesText(figures.bytes) : '']
    .filter(Boolean)
    .join(', ');
  const left = timeLeft(run, undefined);
  const rest = run.some((p) => p.actual === undefined) ? `; ${leftText(left)}` : '';
  return `${label(run, i)}: ${tree(part) ? 'laid out' : 'built'} in ${duration(part.actual ?? 0)}${extra ? ` (${extra})` : ''}, ${expectedText(part)}${rest}`;
}

/** The first line: what the request builds and what is cached already. */
export function planLine(request: string, run: readonly RunPart[], cached: readonly string[]): string {
  const left = timeLeft(run, undefined);
  const what = run.map((p) => p.name).join(', ');
  return `${request}: ${run.length} part(s) to build (${what}), ${leftText(left)}${cached.length > 0 ? `; cached: ${cached.join(', ')}` : ''}`;
}

/**
 * The committed defaults made from a machine's record: each part of `pins` at its version (parts
 * this machine has not built at that version keep `previous`'s figure), version-free.
 */
export function defaultsFromRecord(pins: PlanPins, table: TimesTable, previous: DefaultTimes, note: string): DefaultTimes & { '//': string } {
  const out: Record<string, BuildRecord> = {};
  for (const part of parts(pins)) {
    const r = table[recordKey(part)] ?? previous.parts[part.name];
    if (r) out[part.name] = r;
  }
  return { '//': note, parts: out };
}

// ---------------------------------------------------------------------------------------------
// The command line of the bash script (I/O from here on).

function flagValue(args: string[], name: string): string | undefined {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
}

function readJson<T>(file: string | undefined, fallback: T): T {
  if (!file || !existsSync(file)) return fallback;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch {
    return fallback;
  }
}

/**
 * `progress --pins <file> --table <file> --defaults <file> --request <text> --todo a,b --cached c,d`:
 * reads `start <part>`, `ended <part> <cpu seconds> <bytes>`, `log <text>` lines on stdin and draws
 * them on stderr — on a terminal one line that updates every second, in a log a line per start and
 * end; records each ended part in the table.
 */
function progress(args: string[]): void {
  const pins = readJson<PlanPins | undefined>(flagValue(args, 'pins'), undefined);
  if (!pins) throw new Error('progress: --pins <file> is required');
  const tableFile = flagValue(args, 'table');
  let table = readJson<TimesTable>(tableFile, {});
  const defaults = readJson<DefaultTimes>(flagValue(args, 'defaults'), { parts: {} });
  const todo = (flagValue(args, 'todo') ?? '').split(',').filter(Boolean);
  const cached = (flagValue(args, 'cached') ?? '').split(',').filter(Boolean);
  const byName = new Map(parts(pins).map((p) => [p.name, p]));
  const run: RunPart[] = todo.map((name) => {
    const part = byName.get(name) ?? { name, version: '?' };
    return { name, version: part.version, expected: expectation(part, table, defaults)?.seconds };
  });
  const tty = process.stderr.isTTY === true && process.env.TERM !== 'dumb';
  const out = (line: string) => process.stderr.write(`[toolchain] ${line}\n`);
  let current: { index: number; started: number; load: number } | undefined;
  let drawn = false;
  const clear = () => {
    if (drawn) process.stderr.write('\r\x1b[2K');
    drawn = false;
  };
  const draw = () => {
    if (!tty || !current) return;
    const line = `[toolchain] ${runningLine(run, current.index, (Date.now() - current.started) / 1000)}`;
    process.stderr.write(`\r\x1b[2K${line.slice(0, (process.stderr.columns || 160) - 1)}`);
    drawn = true;
  };
  const load = () => Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
  const timer = tty ? setInterval(draw, 1000) : undefined;
  out(planLine(flagValue(args, 'request') || 'all', run, cached));
  let pending = '';
  const handle = (line: string) => {
    const [event, name, ...rest] = line.split(' ');
    if (event === 'log') {
      clear();
      out([name, ...rest].join(' '));
      draw();
    } else if (event === 'start') {
      const index = run.findIndex((p) => p.name === name);
      if (index < 0) return;
      current = { index, started: Date.now(), load: load() };
      clear();
      if (tty) draw();
      else out(runningLine(run, index, 0));
    } else if (event === 'ended' && current && run[current.index].name === name) {
      const part = run[current.index];
      part.actual = (Date.now() - current.started) / 1000;
      const cpuSeconds = rest[0] !== undefined && rest[0] !== '' ? Number(rest[0]) : undefined;
      const bytes = rest[1] !== undefined && rest[1] !== '' ? Number(rest[1]) : undefined;
      clear();
      out(endedLine(run, current.index, { cpuSeconds, bytes }));
      const record: BuildRecord = {
        seconds: Math.round(part.actual * 10) / 10,
        ...(cpuSeconds !== undefined ? { cpuSeconds } : {}),
        ...(bytes ? { bytes } : {}),
        load: [current.load, load()],
        cores: cpus().length,
        at: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      };
      table = recordBuild(table, part, record);
      if (tableFile) {
        try {
          writeFileSync(`${tableFile}.${process.pid}`, `${JSON.stringify(table, null, 2)}\n`);
          renameSync(`${tableFile}.${process.pid}`, tableFile);
        } catch (e) {
          out(`(could not record the build time in ${tableFile}: ${(e as Error).message})`);
        }
      }
      current = undefined;
    }
  };
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk: string) => {
    pending += chunk;
    let nl: number;
    while ((nl = pending.indexOf('\n')) >= 0) {
      handle(pending.slice(0, nl));
      pending = pending.slice(nl + 1);
    }
  });
  process.stdin.on('end', () => {
    if (pending) handle(pending);
    if (timer) clearInterval(timer);
    clear();
    if (current) out(`${label(run, current.index)}: FAILED after ${duration((Date.now() - current.started) / 1000)}`);
    const built = run.filter((p) => p.actual !== undefined);
    if (built.length > 0 && built.length === run.length) out(`built ${built.length} part(s) in ${duration(built.reduce((s, p) => s + p.actual!, 0))}`);
  });
}

function main(args: string[]): void {
  const [command, ...rest] = args;
  if (command === 'plan') {
    const pins = readJson<PlanPins | undefined>(flagValue(rest, 'pins'), undefined);
    if (!pins) throw new Error('plan: --pins <file> is required');
    const requests = rest.filter((a, i) => a !== '--pins' && rest[i - 1] !== '--pins');
    for (const part of planParts(pins, requests)) process.stdout.write(`${part.name}\n`);
  } else if (command === 'progress') progress(rest);
  else if (command === 'defaults') {
    // `defaults --pins <file> --table <build-times.json> --defaults <toolchain-times.json>`: the committed defaults refreshed from a record.
    const pins = readJson<PlanPins | undefined>(flagValue(rest, 'pins'), undefined);
    if (!pins) throw new Error('defaults: --pins <file> is required');
    const previous = readJson<DefaultTimes & { '//'?: string }>(flagValue(rest, 'defaults'), { parts: {} });
    const table = readJson<TimesTable>(flagValue(rest, 'table'), {});
    process.stdout.write(`${JSON.stringify(defaultsFromRecord(pins, table, previous, previous['//'] ?? ''), null, 2)}\n`);
  } else throw new Error(`usage: toolchain-plan plan --pins <file> [job|part]... | progress --pins <file> ...`);
}

if (require.main === module) {
  try {
    main(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n`);
    process.exit(2);
  }
}
