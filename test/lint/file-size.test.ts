/**
 * One job a file (issue 40): no tracked source file (.ts, .js, .cjs) over 600 lines, counted as
 * `wc -l` counts them. The generated provider bindings (.gen/) are left out; there is no exception
 * list: a file that grows past the limit is split by what its parts do.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '../..');
const LIMIT = 600;

/** Lines as `wc -l` counts them: newline characters. */
export function lineCount(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

function trackedSources(): string[] {
  return execFileSync('git', ['ls-files', '-z', '--', '*.ts', '*.js', '*.cjs'], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
    .split('\0')
    .filter((path) => path !== '' && !path.startsWith('.gen/'));
}

function overLimit(): { path: string; lines: number }[] {
  return trackedSources()
    .map((path) => {
      let text: string;
      try {
        text = readFileSync(join(root, path), 'utf8');
      } catch {
        return { path, lines: 0 }; // deleted in the working tree, not yet in the index
      }
      return { path, lines: lineCount(text) };
    })
    .filter((f) => f.lines > LIMIT);
}

describe(`no source file over ${LIMIT} lines`, () => {
  it('counts lines as wc -l does', () => {
    expect(lineCount('')).toBe(0);
    expect(lineCount('a')).toBe(0);
    expect(lineCount('a\n')).toBe(1);
    expect(lineCount(`${'x\n'.repeat(LIMIT)}y`)).toBe(LIMIT);
    expect(lineCount('x\n'.repeat(LIMIT + 1))).toBe(LIMIT + 1);
  });

  it(`every tracked .ts, .js and .cjs file outside .gen/ has at most ${LIMIT} lines`, () => {
    const files = trackedSources();
    // The walk sees the sources (so an empty list is not a pass by accident).
    expect(files).toContain('scripts/lib/cli.ts');
    expect(files.some((f) => f.startsWith('.gen/'))).toBe(false);
    const over = overLimit();
    expect(over.map((f) => `${f.path}: ${f.lines} lines`)).toEqual([]);
  });
});
