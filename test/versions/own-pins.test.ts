/**
 * Warnings about pvekaas's own pins (issue 43, finding 5): said as pvekaas's (`pvekaas: …`), never at
 * a line of the user's file, each once, never asking the user to edit pvekaas's source; a fix names
 * only what pvekaas accepts. A warning an override of the lab makes stays at that override's line.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { parseLab } from '../../modules/config/load';
import { formatWarning } from '../../modules/config/problems';
import { supportWarnings } from '../../modules/management';
import { versionGuard } from '../../modules/versions/lab-guard';
import { capiPreviousLane } from '../../modules/versions/pins';

const root = join(__dirname, '../..');
const exampleText = readFileSync(join(root, 'examples/lab.yaml'), 'utf8');
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the raw YAML document
const exampleWith = (change: (d: any) => void) => {
  const d = parse(exampleText);
  change(d);
  return parseLab(stringify(d), 'lab.yaml');
};
/** The day of the docs' examples (test/docs/commands.test.ts). */
const DAY = '2026-12-06';

describe("the version guard's warnings of the example lab", () => {
  const lab = parseLab(exampleText, 'examples/lab.yaml');
  const own = [...versionGuard(lab).warnings, ...supportWarnings(lab, DAY).filter((w) => w.path[0] === 'management')];

  it('are all pvekaas\'s own, printed as "pvekaas: …" without file, line or path', () => {
    expect(own.length).toBeGreaterThanOrEqual(4);
    for (const w of own) {
      expect(w.origin).toBe('pvekaas');
      expect(formatWarning(w, 'examples/lab.yaml')).toMatch(/^pvekaas: /);
      expect(formatWarning(w, 'examples/lab.yaml')).not.toContain('examples/lab.yaml');
    }
  });

  it("never ask the user to edit pvekaas's source", () => {
    for (const w of own) expect(`${w.message} ${w.fix ?? ''}`).not.toMatch(/modules\/|record it in|pinnedVersions/);
  });

  it('recommend only a release pvekaas accepts: a lab on the previous CAPI lane past its end of life is sent to the default, and that lab validates without a version error or an end of life', () => {
    const after = '2026-12-09';
    const onPrevious = exampleWith((d) => (d.management.versions = { clusterApi: capiPreviousLane()!.version }));
    const eol = supportWarnings(onPrevious, after).find((w) => /Cluster API 1\.12 is past its end of life/.test(w.message))!;
    const [, to] = /or set it to (v\d+\.\d+\.\d+)/.exec(eol.fix!)!;
    const moved = exampleWith((d) => (d.management.versions = { clusterApi: to }));
    expect(supportWarnings(moved, after).filter((w) => w.path[0] === 'management' && /(past|reaches) its end of life/.test(w.message))).toEqual([]);
    expect(versionGuard(moved).problems).toEqual([]);
  });
});

describe('a warning an override makes', () => {
  it('stays at the override (the user can act on it), with no source edit in its fix', () => {
    const lab = exampleWith((d) => (d.management.versions = { kamajiImage: '26.8.3-edge' }));
    // At the kamajiImage override: the digest recorded belongs to pvekaas's tag, not this one.
    const digest = versionGuard(lab).warnings.find((w) => /pinned by tag only/.test(w.message))!;
    expect([digest.origin, digest.path.join('.')]).toEqual([undefined, 'management.versions.kamajiImage']);
    expect(digest.fix).toBe(
      'read it with `crane digest docker.io/clastix/kamaji:26.8.3-edge` (or `docker buildx imagetools inspect`) and set management.versions.kamajiImageDigest: sha256:<digest>',
    );
    // A skew the core's override makes is at that override, not at the providers the lab does not name.
    const moved = exampleWith((d) => (d.management.versions = { clusterApi: capiPreviousLane()!.version }));
    const skews = versionGuard(moved).warnings.filter((w) => /known and contract-compatible/.test(w.message));
    expect(skews.length).toBeGreaterThan(0);
    for (const w of skews) expect([w.origin, w.path.join('.')]).toEqual([undefined, 'management.versions.clusterApi']);
  });
});

describe("validate prints them once, as pvekaas's", () => {
  const work = mkdtempSync(join(tmpdir(), 'pvekaas-own-pins-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));
  beforeAll(() => execFileSync('npx', ['tsc', '-p', 'tsconfig.json'], { cwd: root, stdio: 'pipe' }), 180_000);

  it('with no warning at the management: line of the description', () => {
    const r = spawnSync(process.execPath, [join(root, 'dist/scripts/validate.js'), '--config', 'examples/lab.yaml'], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, PVEKAAS_TODAY: DAY },
    });
    expect(r.status).toBe(0);
    const lines = r.stdout.split('\n').filter((l) => l.startsWith('warning: '));
    expect(lines.filter((l) => /management\.versions/.test(l) && /examples\/lab\.yaml:\d+/.test(l))).toEqual([]);
    const own = lines.filter((l) => l.startsWith('warning: pvekaas: '));
    expect(own.length).toBeGreaterThanOrEqual(4);
    expect(new Set(own).size).toBe(own.length);
  });

  it('and a lab of the user with an override gets that warning at its line', () => {
    const file = join(work, 'lab.yaml');
    writeFileSync(file, exampleText.replace('  datastore: { size: 10Gi }', '  datastore: { size: 10Gi }\n  versions: { kamajiImage: 26.8.3-edge }'));
    const r = spawnSync(process.execPath, [join(root, 'dist/scripts/validate.js'), '--config', file], { cwd: root, encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(
      new RegExp(`^warning: ${file.replace(/[.]/g, '\\.')}:\\d+:\\d+  management\\.versions\\.kamajiImage: the Kamaji image is pinned by tag only`, 'm'),
    );
  });
});
