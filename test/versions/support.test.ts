/**
 * End-of-life warnings: the support windows (modules/versions/support.ts) on a given day, the
 * warnings a lab gets (modules/management supportWarnings), and the validate command printing them
 * at their lines with the day it was told (PVEKAAS_TODAY).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseLab } from '../../modules/config/load';
import { supportWarnings } from '../../modules/management';
import {
  capiPreviousLane,
  capiReleaseCalendar,
  capiSupportFinding,
  capiSupportOn,
  componentSupport,
  kubernetesSupport,
  pinnedVersions,
  seriesOf,
  supportOf,
  supportedKubernetesMinors,
  SOON_DAYS,
} from '../../modules/versions';

const root = join(__dirname, '../..');
const example = () => parseLab(readFileSync(join(root, 'examples/lab.yaml'), 'utf8'), 'examples/lab.yaml');
/** The two Cluster API releases pvekaas runs: the previous lane (1.12) and the default (1.13). */
const PREVIOUS = capiPreviousLane()!.version;
const DEFAULT = pinnedVersions.clusterApi;

describe('support windows', () => {
  it('reads the series of a version, with or without v', () => {
    expect(seriesOf('v1.30.5')).toBe('1.30');
    expect(seriesOf('1.18.3')).toBe('1.18');
    expect(seriesOf('latest')).toBeUndefined();
  });

  it('says past the day after the end of life, soon within SOON_DAYS before it, nothing earlier', () => {
    const eol = kubernetesSupport['1.34'].endOfLife; // 2026-10-27
    expect(supportOf(kubernetesSupport, 'v1.34.2', '2026-10-28')).toMatchObject({ state: 'past', endOfLife: eol });
    expect(supportOf(kubernetesSupport, 'v1.34.2', eol)).toMatchObject({ state: 'soon' });
    const soonStart = new Date(Date.parse(`${eol}T00:00:00Z`) - SOON_DAYS * 86_400_000).toISOString().slice(0, 10);
    expect(supportOf(kubernetesSupport, 'v1.34.2', soonStart)).toMatchObject({ state: 'soon' });
    const before = new Date(Date.parse(`${soonStart}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
    expect(supportOf(kubernetesSupport, 'v1.34.2', before)).toBeUndefined();
  });

  it('takes a series older than the table as past, and one newer than the table as supported', () => {
    expect(supportOf(kubernetesSupport, 'v1.29.9', '2020-01-01')).toEqual({ series: '1.29', state: 'past', scheduled: false });
    expect(supportOf(kubernetesSupport, 'v1.99.0', '2026-12-03')).toBeUndefined();
    expect(supportOf(componentSupport.certManager, 'v1.17.0', '2026-12-03')).toMatchObject({ state: 'past' });
    expect(supportOf(componentSupport.certManager, 'v1.22.1', '2026-12-03')).toBeUndefined();
  });

  it('lists the supported minors of a day', () => {
    expect(supportedKubernetesMinors('2026-12-03')).toEqual(['1.35', '1.36', '1.37']);
    expect(supportedKubernetesMinors('2026-06-01')).toEqual(['1.33', '1.34', '1.35', '1.36', '1.37']);
  });
});

describe('the Cluster API release calendar', () => {
  it("derives each minor's maintenance and end of life from the release of the minor two and three after it", () => {
    expect([seriesOf(PREVIOUS), seriesOf(DEFAULT)]).toEqual(['1.12', '1.13']);
    // 1.12: maintenance with v1.14.0, end of life with v1.15.0 (scheduled).
    expect(capiSupportOn(PREVIOUS, '2026-08-17')).toMatchObject({ phase: 'standard', maintenance: { release: 'v1.14.0', date: '2026-08-18' } });
    expect(capiSupportOn(PREVIOUS, '2026-08-18')?.phase).toBe('maintenance');
    expect(capiSupportOn(PREVIOUS, '2026-12-07')).toMatchObject({
      phase: 'maintenance',
      endOfLife: { release: 'v1.15.0', date: '2026-12-08', scheduled: true },
    });
    expect(capiSupportOn(PREVIOUS, '2026-12-08')?.phase).toBe('end-of-life');
    // 1.13: standard until v1.15.0, then maintenance; its end of life (v1.16.0) has no date yet, so never past it.
    expect(capiSupportOn(DEFAULT, '2026-12-07')?.phase).toBe('standard');
    expect(capiSupportOn(DEFAULT, '2026-12-08')).toMatchObject({ phase: 'maintenance', endOfLife: { release: 'v1.16.0', scheduled: false } });
    expect(capiSupportOn(DEFAULT, '2026-12-08')?.endOfLife.date).toBeUndefined();
    expect(capiSupportOn(DEFAULT, '2030-01-01')?.phase).toBe('maintenance');
  });

  it('agrees with the rows of the upstream support table (versions.md: each "EOL since <date> - v1.N.0 release date")', () => {
    const eolSince: Record<string, string> = { '1.8': '2025-08-12', '1.9': '2025-12-18', '1.10': '2026-04-21', '1.11': '2026-08-18' };
    for (const [series, date] of Object.entries(eolSince)) {
      expect(capiSupportOn(`v${series}.0`, date)).toMatchObject({ phase: 'end-of-life', endOfLife: { date } });
      const before = new Date(Date.parse(`${date}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
      expect(capiSupportOn(`v${series}.0`, before)?.phase).toBe('maintenance');
    }
    // A minor older than the calendar is past its end of life when the calendar holds the release that ended it.
    expect(capiSupportOn('v1.6.4', '2026-01-01')).toMatchObject({ phase: 'end-of-life', endOfLife: { release: 'v1.9.0', date: '2024-12-10' } });
    expect(Object.values(capiReleaseCalendar).filter((r) => r.scheduled)).toHaveLength(1);
  });

  it('says what each phase means, with the day and the release, and only from its day on', () => {
    expect(capiSupportFinding(DEFAULT, '2026-12-07')).toBeUndefined();
    expect(capiSupportFinding(DEFAULT, '2026-12-08')).toEqual({
      phase: 'maintenance',
      message:
        'Cluster API 1.13 is in maintenance mode since 2026-12-08 (the release of v1.15.0, as scheduled): upstream back-ports no fix proactively (an emergency patch case by case); its end of life: with the release of v1.16.0, which has no date yet',
    });
    expect(capiSupportFinding(PREVIOUS, '2026-10-01')?.phase).toBe('maintenance');
    expect(capiSupportFinding(PREVIOUS, '2026-12-07')).toEqual({
      phase: 'soon',
      message:
        'Cluster API 1.12 reaches its end of life on 2026-12-08 (the release of v1.15.0, as scheduled); it is in maintenance mode since 2026-08-18 (the release of v1.14.0)',
    });
    expect(capiSupportFinding(PREVIOUS, '2026-12-08')).toEqual({
      phase: 'end-of-life',
      message:
        'Cluster API 1.12 is past its end of life since 2026-12-08 (the release of v1.15.0, as scheduled): upstream fixes nothing in it, not even security issues',
    });
    // The day comes from the caller, and a calendar in which v1.15.0 slipped moves the end with it.
    const slipped = { ...capiReleaseCalendar, '1.15': { released: '2026-12-15', scheduled: true } };
    expect(capiSupportFinding(PREVIOUS, '2026-12-08', slipped)?.phase).toBe('soon');
  });
});

describe('supportWarnings', () => {
  it('warns for each tenant past its end of life, at its kubernetesVersion, with the date and the supported minors', () => {
    // The example runs 1.35 (supported today): the day after its end of life (2027-02-28).
    const lab = example();
    expect(supportWarnings(lab, '2026-12-03').filter((w) => w.path[0] === 'tenants')).toEqual([]);
    const warnings = supportWarnings(lab, '2027-03-01');
    const tenants = warnings.filter((w) => w.path[0] === 'tenants');
    expect(tenants.map((w) => w.path)).toEqual(lab.tenants.map((_, i) => ['tenants', i, 'kubernetesVersion']));
    for (const w of tenants) {
      expect(w.severity).toBe('warning');
      expect(w.message).toMatch(/Kubernetes 1\.35 is past its end of life \(2027-02-28\).*as of 2027-03-01/);
      // 1.37 is supported upstream that day, but the pinned Kamaji (KubeadmVersion v1.36) cannot run it: not offered.
      expect(w.fix).toMatch(/to a supported minor: 1\.36$/);
    }
  });

  it('is silent for a tenant on a supported minor, and names an overridden component at its override', () => {
    const lab = example();
    const supported = {
      ...lab,
      tenants: lab.tenants.map((t) => ({ ...t, kubernetesVersion: 'v1.36.1' })),
      management: { ...lab.management, versions: { ...lab.management.versions, certManager: 'v1.18.3' } },
    };
    const warnings = supportWarnings(supported, '2026-12-03');
    expect(warnings.filter((w) => w.path[0] === 'tenants')).toEqual([]);
    const cm = warnings.find((w) => w.path.join('.') === 'management.versions.certManager');
    expect(cm).toMatchObject({ value: 'v1.18.3', severity: 'warning' });
    expect(cm!.message).toContain('certManager 1.18 is past its end of life (2026-03-10)');
  });

  it('warns for a pool that may scale to 0 on a minor whose pinned autoscaler cannot (1.30–1.32), and not on 1.33 or later', () => {
    const lab = example();
    const withMin = (version: string) => ({
      ...lab,
      tenants: lab.tenants.map((t) => ({
        ...t,
        kubernetesVersion: version,
        pools: t.pools.map((p) => (p.autoscaling ? { ...p, autoscaling: { ...p.autoscaling, min: 0 } } : p)),
      })),
    });
    const autoscaled = lab.tenants
      .flatMap((t, i) => t.pools.map((p, j) => (p.autoscaling ? `tenants.${i}.pools.${j}.autoscaling.min` : undefined)))
      .filter(Boolean);
    expect(autoscaled.length).toBeGreaterThan(0);
    for (const version of ['v1.30.5', 'v1.31.2', 'v1.32.9']) {
      const found = supportWarnings(withMin(version), '2026-12-03').filter((w) => w.path.includes('autoscaling'));
      expect(found.map((w) => w.path.join('.'))).toEqual(autoscaled);
      expect(found[0].message).toMatch(/cannot scale a Cluster API node group to 0 \(kubernetes\/autoscaler#8412/);
    }
    for (const version of ['v1.33.4', 'v1.35.2'])
      expect(supportWarnings(withMin(version), '2026-12-03').filter((w) => w.path.includes('autoscaling'))).toEqual([]);
    // min 1 says what the autoscaler does: no warning.
    expect(supportWarnings(lab, '2026-12-03').filter((w) => w.path.includes('autoscaling'))).toEqual([]);
  });

  it("says the pinned Cluster API's maintenance as pvekaas's from its day on, and a lab on the previous lane its end of life at the override, with the move", () => {
    const lab = example();
    const capi = (l: typeof lab, day: string) => supportWarnings(l, day).filter((w) => w.path.join('.') === 'management.versions.clusterApi');
    expect(capi(lab, '2026-12-07')).toEqual([]);
    const [maintenance] = capi(lab, '2026-12-08');
    expect(maintenance).toMatchObject({ origin: 'pvekaas', severity: 'warning' });
    expect(maintenance.message).toBe(
      `its pinned clusterApi ${pinnedVersions.clusterApi}: ${capiSupportFinding(pinnedVersions.clusterApi, '2026-12-08')!.message} (as of 2026-12-08)`,
    );
    const previous = capiPreviousLane()!.version;
    const onPrevious = { ...lab, management: { ...lab.management, versions: { ...lab.management.versions, clusterApi: previous } } };
    const [soon] = capi(onPrevious, '2026-12-07');
    expect(soon).toMatchObject({ value: previous, severity: 'warning' });
    expect(soon.origin).toBeUndefined();
    expect(soon.message).toContain('Cluster API 1.12 reaches its end of life on 2026-12-08');
    expect(soon.fix).toBe(
      `move to pvekaas's default ${pinnedVersions.clusterApi}: remove management.versions.clusterApi (or set it to ${pinnedVersions.clusterApi}) and deploy the management stack, then the rest as written in docs/management.md, "Moving from Cluster API 1.12 to 1.13"`,
    );
    const [past] = capi(onPrevious, '2027-01-01');
    expect(past.message).toContain('Cluster API 1.12 is past its end of life since 2026-12-08');
    expect(past.fix).toBe(soon.fix);
    // Months before: in maintenance already, the move a plan.
    expect(capi(onPrevious, '2026-09-01')[0].fix).toBe(`plan the move: ${soon.fix}`);
  });

  it('gives the same warnings for the same lab and day', () => {
    expect(supportWarnings(example(), '2027-03-01')).toEqual(supportWarnings(example(), '2027-03-01'));
  });
});

describe('validate prints the end-of-life warnings of the day it is told', () => {
  beforeAll(() => {
    execFileSync('npx', ['tsc', '-p', 'tsconfig.json'], { cwd: root, stdio: 'pipe' });
  }, 180_000);

  const validate = (today: string) =>
    spawnSync(process.execPath, [join(root, 'dist/scripts/validate.js'), '--config', 'examples/lab.yaml'], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, PVEKAAS_TODAY: today },
    });

  it('at the tenant line, and refuses a malformed day', () => {
    const r = validate('2027-03-01');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(
      /^warning: examples\/lab\.yaml:\d+:\d+ {2}tenants\[0\]\.kubernetesVersion: tenant \S+: Kubernetes 1\.\d+ is past its end of life/m,
    );
    const bad = validate('03.12.2026');
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain('PVEKAAS_TODAY is "03.12.2026"');
  });
});
