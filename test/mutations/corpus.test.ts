/**
 * The mutation corpus (twin/mutation-corpus.ts) stays true: at least 25 mistakes, each
 * naming a test that exists in the file it names, and every one in docs/twin.md's table. Running
 * the tests themselves is `npm run test:mutations` (and `npm test`, which runs every file).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MUTATIONS } from '../../twin/mutation-corpus';
import { projectRoot } from '../support/toolchain';

const source = (file: string) => readFileSync(join(projectRoot, file), 'utf8').replace(/\\'/g, "'");

/** Whether the file declares a test of that title: literally, or as an it.each title with %s filled by a case name. */
function declares(text: string, title: string): boolean {
  if (text.includes(title)) return true;
  for (const [, pattern] of text.matchAll(/it\.each\([^)]*\)\(\s*['"`]([^'"`]*%s[^'"`]*)['"`]/g)) {
    const [before, after] = pattern.split('%s');
    if (title.startsWith(before) && title.endsWith(after) && text.includes(title.slice(before.length, title.length - after.length))) return true;
  }
  return false;
}

describe('the mutation corpus', () => {
  it('holds at least 25 realistic rendering mistakes, each with its own id', () => {
    expect(MUTATIONS.length).toBeGreaterThanOrEqual(25);
    expect(new Set(MUTATIONS.map((m) => m.id)).size).toBe(MUTATIONS.length);
  });

  it.each(MUTATIONS.map((m) => [m.id, m] as const))('%s names a test that exists', (_id, m) => {
    expect(existsSync(join(projectRoot, m.file))).toBe(true);
    expect({ file: m.file, test: m.test, declared: declares(source(m.file), m.test) }).toEqual({ file: m.file, test: m.test, declared: true });
  });

  it('is listed in docs/twin.md, every mistake', () => {
    const docs = readFileSync(join(projectRoot, 'docs/twin.md'), 'utf8');
    expect(MUTATIONS.filter((m) => !docs.includes(m.mistake)).map((m) => m.id)).toEqual([]);
  });

  it('a title that is not in the file is told apart (the check can fail)', () => {
    expect(declares(source('test/kube/twin-caaph.test.ts'), 'leaves the Cluster without its CNI with a HelmChartProxy in namespace kube-system')).toBe(false);
    expect(declares(source('test/kube/twin-caaph.test.ts'), 'leaves the Cluster without its CNI with a HelmChartProxy in namespace default')).toBe(true);
  });
});
