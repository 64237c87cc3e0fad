/**
 * Docs tables an editor and a diff can read (issue 40 item 5): no cell of a table in README.md or
 * docs/*.md is over TABLE_CELL_MAX characters; a longer explanation goes under the table, as prose,
 * a list or a numbered note ("see note N"). Commands blocks (```) are not tables.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { TABLE_CELL_MAX } from '../../modules/config/markdown-text';
import { docFiles } from './doc-commands';

const ROOT = resolve(__dirname, '../..');

/** Pages not yet done: each still has longer cells. Remove a page once its tables are; the test fails on a page listed that no longer needs it. */
const NOT_YET: string[] = [];

/** The cells of a table row: split on unescaped pipes, the outer ones dropped, trimmed. */
export function rowCells(line: string): string[] {
  return line
    .trim()
    .replace(/^\|/, '')
    .replace(/(?<!\\)\|$/, '')
    .split(/(?<!\\)\|/)
    .map((c) => c.trim());
}

/** Every table cell over `max` characters: the line of its row and its length. Rows inside fenced blocks and separator rows are skipped. */
export function longCells(text: string, max = TABLE_CELL_MAX): { line: number; length: number }[] {
  const found: { line: number; length: number }[] = [];
  let fence: string | null = null;
  text.split('\n').forEach((l, i) => {
    const f = /^\s*(```+|~~~+)/.exec(l);
    if (f) {
      if (fence === null) fence = f[1][0];
      else if (f[1][0] === fence) fence = null;
      return;
    }
    if (fence !== null || !l.startsWith('|')) return;
    const cells = rowCells(l);
    if (cells.every((c) => /^:?-+:?$/.test(c))) return;
    for (const c of cells) if (c.length > max) found.push({ line: i + 1, length: c.length });
  });
  return found;
}

describe(`docs tables: no cell over ${TABLE_CELL_MAX} characters`, () => {
  test('the finder sees a long cell, and not a fenced block, a separator or an escaped pipe', () => {
    const long = 'x'.repeat(TABLE_CELL_MAX + 1);
    expect(longCells(`| a | b |\n|---|---|\n| a | ${long} |\n`)).toEqual([{ line: 3, length: TABLE_CELL_MAX + 1 }]);
    expect(longCells(`\`\`\`text\n| a | ${long} |\n\`\`\`\n| ${'-'.repeat(200)} |\n`)).toEqual([]);
    expect(longCells(`| ${'y'.repeat(70)} \\| ${'y'.repeat(70)} |\n`)).toEqual([{ line: 1, length: 144 }]);
    expect(longCells(`| ${'y'.repeat(70)} | ${'y'.repeat(70)} |\n`)).toEqual([]);
  });

  const files = docFiles(ROOT);
  test.each(files.filter((f) => !NOT_YET.includes(f)))('%s', (file) => {
    expect(longCells(readFileSync(join(ROOT, file), 'utf8')).map((c) => `${file}:${c.line} (${c.length})`)).toEqual([]);
  });

  // jest refuses test.each of an empty list: the check runs once per listed page, when there is one.
  if (NOT_YET.length > 0)
    test.each(NOT_YET)('%s is still to do (remove it from NOT_YET once it is done)', (file) => {
      expect(files).toContain(file);
      expect(longCells(readFileSync(join(ROOT, file), 'utf8')).length).toBeGreaterThan(0);
    });
});
