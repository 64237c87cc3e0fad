/**
 * No `any` in what ships without a reason (eslint.config.mjs): the rule fires on a probe in every
 * production folder, and every comment that turns it off for a line says why.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';

const root = join(__dirname, '../..');
const FOLDERS = ['modules', 'constructs', 'stacks', 'scripts', 'twin', 'sim'];

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return tsFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

describe('no explicit any in production code', () => {
  const probe = 'export const probe = (x: any): unknown => x;\n';
  const reasoned = `// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a probe\n${probe}`;
  const cases: [string, string][] = [
    ...FOLDERS.map((f): [string, string] => [`${f}/lint-probe.ts`, probe]),
    ['modules/lint-probe.ts', reasoned],
    ['test/lint-probe.ts', probe],
  ];
  /** The rule ids the project's ESLint config reports for each case (one node process: jest cannot load eslint.config.mjs). */
  let reported: string[][];
  beforeAll(() => {
    const script = `const { ESLint } = require('eslint');
      (async () => {
        const eslint = new ESLint({ cwd: process.cwd() });
        const out = [];
        for (const [path, source] of JSON.parse(process.argv[1])) out.push((await eslint.lintText(source, { filePath: path }))[0].messages.map((m) => String(m.ruleId)));
        process.stdout.write(JSON.stringify(out));
      })();`;
    const r = spawnSync(process.execPath, ['-e', script, JSON.stringify(cases.map(([f, src]) => [join(root, f), src]))], { cwd: root, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`eslint failed: ${r.stderr}`);
    reported = JSON.parse(r.stdout) as string[][];
  });

  it.each(FOLDERS.map((f, i) => [f, i] as const))('%s/: an `any` fails lint', (_folder, i) => {
    expect(reported[i]).toContain('@typescript-eslint/no-explicit-any');
  });

  it('the same line passes with a disable comment, and test code may use any', () => {
    expect(reported[FOLDERS.length]).toEqual([]);
    expect(reported[FOLDERS.length + 1]).toEqual([]);
  });

  it('every comment that turns the rule off says why (`-- reason`)', () => {
    const unexplained: string[] = [];
    let comments = 0;
    for (const folder of FOLDERS) {
      for (const file of tsFiles(join(root, folder))) {
        readFileSync(file, 'utf8')
          .split('\n')
          .forEach((line, i) => {
            if (!/eslint-disable(-next-line|-line)?\b[^\n]*no-explicit-any/.test(line)) return;
            comments++;
            if (!/no-explicit-any\s+--\s+\S/.test(line)) unexplained.push(`${relative(root, file)}:${i + 1}: ${line.trim()}`);
          });
      }
    }
    expect(comments).toBeGreaterThan(0);
    expect(unexplained).toEqual([]);
  });
});
