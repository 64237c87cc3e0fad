/**
 * One reading of a scale: a pool or node group is fixed (`replicas`) or autoscaled (`min`, `max`),
 * and only modules/config/scale.ts (`machinesAtMost`, `machinesAtLeast`, `fixedReplicas`, `poolScale`)
 * turns that into a number. A `max ?? replicas` (or `min ?? replicas`, `autoscaling?.max ?? …`)
 * anywhere else reads a missing bound as a count that means something else, and fails here.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(__dirname, '../..');
const HELPERS = 'modules/config/scale.ts';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.[cm]?[jt]s$/.test(name) ? [path] : [];
  });
}

/** A bound that falls back to a count, a count that falls back to a bound, or the description's bounds defaulted. */
const READS_SCALE_BY_HAND = [
  /\b(min|max)!?\s*\?\?\s*[\w$.?!()[\]]*\breplicas\b/,
  /\breplicas!?\s*\?\?\s*[\w$.?!()[\]]*\b(min|max)\b/,
  /\bautoscaling\s*\??\.\s*(min|max)\s*\?\?/,
];
const readsScaleByHand = (line: string) => READS_SCALE_BY_HAND.some((re) => re.test(line));

describe('one reading of a scale', () => {
  it('the pattern catches the forms the plan used to be read with, and not a Kubernetes object left unset', () => {
    for (const bad of [
      'const machines = p.max ?? p.replicas;',
      'min: p.min ?? p.replicas, max: p.max ?? p.replicas',
      'n + (x.max ?? x.replicas)',
      'const count = pool.autoscaling?.max ?? pool.replicas ?? 0;',
      'min: pool.autoscaling?.min ?? count',
      'const n = placement.replicas ?? placement.max;',
    ])
      expect([bad, readsScaleByHand(bad)]).toEqual([bad, true]);
    for (const fine of ['const want = md.spec?.replicas ?? 0;', 'min += g.min ?? 0;', 'machines += machinesAtMost(p.scale);'])
      expect([fine, readsScaleByHand(fine)]).toEqual([fine, false]);
  });

  it(`no source outside ${HELPERS} reads a scale by hand`, () => {
    const found: string[] = [];
    let files = 0;
    for (const dir of ['modules', 'constructs', 'stacks', 'scripts', 'twin', 'sim', 'bench', 'test']) {
      for (const file of sourceFiles(join(root, dir))) {
        const path = relative(root, file);
        if (path === relative(root, __filename)) continue;
        files++;
        readFileSync(file, 'utf8')
          .split('\n')
          .forEach((line, i) => {
            if (readsScaleByHand(line)) found.push(`${path}:${i + 1}: ${line.trim()}`);
          });
      }
    }
    expect(found.filter((f) => !f.startsWith(`${HELPERS}:`))).toEqual([]);
    expect(files).toBeGreaterThan(300);
  });
});
