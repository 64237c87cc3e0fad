/**
 * One tofu runner: scripts/lib/tofu.ts is the only file that starts OpenTofu; deploy, the simulated
 * lab, the bindings generator and the tests go through it. A new start of tofu elsewhere fails here.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(__dirname, '../..');
const RUNNER = 'scripts/lib/tofu.ts';

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return tsFiles(path);
    return /\.[cm]?[jt]s$/.test(name) ? [path] : [];
  });
}

/** A child-process call whose command names tofu (a literal, a path ending in bin/tofu, or a tofu variable). */
const STARTS_TOFU = /\b(spawn|spawnSync|exec|execSync|execFile|execFileSync|fork)\(\s*(join\([^)]*tofu[^)]*\)|[^,)]*tofu[^,)]*)[,)]/i;

describe('one tofu runner', () => {
  it(`only ${RUNNER} starts tofu`, () => {
    const starts: string[] = [];
    for (const dir of ['scripts', 'twin', 'sim', 'bench', 'test', 'modules', 'constructs', 'stacks']) {
      for (const file of tsFiles(join(root, dir))) {
        const path = relative(root, file);
        readFileSync(file, 'utf8')
          .split('\n')
          .forEach((line, i) => {
            if (STARTS_TOFU.test(line)) starts.push(`${path}:${i + 1}`);
          });
      }
    }
    expect(starts.filter((s) => !s.startsWith(`${RUNNER}:`))).toEqual([]);
    // The runner itself is seen by the check (so the pattern still matches a real start).
    expect(starts.filter((s) => s.startsWith(`${RUNNER}:`)).length).toBeGreaterThanOrEqual(3);
  });
});
