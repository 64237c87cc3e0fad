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
import { componentSupport, kubernetesSupport, seriesOf, supportOf, supportedKubernetesMinors, SOON_DAYS } from '../../modules/versions';

const root = join(__dirname, '../..');
const example = () => parseLab(readFileSync(join(root, 'examples/lab.yaml'), 'utf8'), 'examples/lab.yaml');

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
      expect(w.fix).toContain('1.36, 1.37');
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
