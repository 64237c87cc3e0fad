/**
 * The documented commands: every fenced block of README.md and docs/*.md with a `$ pvekaas …` or
 * `$ npm run …` line, its `$` lines (a command continued with `\` joined) and the output the doc
 * quotes under each. test/docs/commands.test.ts runs them; this module only reads the docs.
 *
 * How a doc writes it (docs/development.md, "Docs that hold"):
 * - `$ <command>` then the output, up to the next `$` line or the end of the block;
 * - a comment after the command (two spaces, then `# …`): `exit N` in it says the exit code (0
 *   without), `excerpt` that the lines shown appear in this order with others between;
 * - in the output, `…` (or `...`) stands for any text; a line of only `…` (or `...`) for any lines.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface DocCommand {
  /** README.md or docs/<page>.md */
  readonly file: string;
  /** The line of the `$` in the file (1-based). */
  readonly line: number;
  /** The command as pasted, without the `$ ` and the trailing comment. */
  readonly command: string;
  readonly comment: string;
  /** The quoted output (indentation of the block removed, trailing blank lines dropped). */
  readonly output: readonly string[];
  readonly exitCode: number;
  readonly excerpt: boolean;
}

export interface DocBlock {
  readonly file: string;
  readonly line: number;
  readonly commands: readonly DocCommand[];
}

/** A command of pvekaas: `pvekaas …` or `npm run …`, also after `VAR=value` assignments. */
export const PVEKAAS_COMMAND = /^(?:[A-Z_]+=(?:'[^']*'|"[^"]*"|\S+)\s+)*(?:pvekaas|npm run)\s/;

/** The comment of a command line: two or more spaces, `#`, a space, to the end. */
const COMMENT = /\s{2,}#\s(.*)$/;

export function docFiles(root: string): string[] {
  const docs = readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`);
  return ['README.md', ...docs];
}

/** The blocks of one Markdown text that hold a pvekaas command. */
export function docBlocks(file: string, text: string): DocBlock[] {
  const lines = text.split('\n');
  const blocks: DocBlock[] = [];
  let i = 0;
  while (i < lines.length) {
    const open = /^(\s*)(```+|~~~+)/.exec(lines[i]);
    if (!open) {
      i++;
      continue;
    }
    const indent = open[1].length;
    const fence = open[2];
    const start = i;
    const body: string[] = [];
    i++;
    while (i < lines.length && !lines[i].trimStart().startsWith(fence)) body.push(lines[i++].slice(indent));
    i++;
    const commands: DocCommand[] = [];
    let j = 0;
    while (j < body.length) {
      if (!body[j].startsWith('$ ')) {
        j++;
        continue;
      }
      const line = start + 2 + j;
      let raw = body[j].slice(2);
      while (raw.endsWith('\\') && j + 1 < body.length) raw = `${raw.slice(0, -1).trimEnd()} ${body[++j].trim()}`;
      j++;
      const output: string[] = [];
      while (j < body.length && !body[j].startsWith('$ ')) output.push(body[j++].trimEnd());
      while (output.length > 0 && output[output.length - 1] === '') output.pop();
      const c = COMMENT.exec(raw);
      const comment = c ? c[1] : '';
      const command = (c ? raw.slice(0, c.index) : raw).trim();
      // A last line `exit code N` is the doc's note of the exit code, not output.
      const noted = /^exit code (\d+)$/.exec(output[output.length - 1] ?? '');
      if (noted) output.pop();
      const said = /\bexit (\d+)\b/.exec(comment) ?? noted;
      commands.push({ file, line, command, comment, output, exitCode: said ? Number(said[1]) : 0, excerpt: /\bexcerpt\b/.test(comment) });
    }
    if (commands.some((c) => PVEKAAS_COMMAND.test(c.command))) blocks.push({ file, line: start + 1, commands });
  }
  return blocks;
}

export function allDocBlocks(root: string): DocBlock[] {
  return docFiles(root).flatMap((f) => docBlocks(f, readFileSync(join(root, f), 'utf8')));
}

const ELIDED_LINE = /^\s*(…|\.\.\.)\s*$/;

function lineRegex(expected: string): RegExp {
  const parts = expected.split(/…|\.\.\./).map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('.*')}$`);
}

/**
 * Whether the actual output is what the doc quotes: line by line (`…` lines standing for any
 * lines), or for an excerpt the quoted lines in order with any lines between. Undefined when it
 * matches; otherwise the first expected line that could not be matched.
 */
export function outputMismatch(expected: readonly string[], actualText: string, excerpt: boolean): string | undefined {
  const actual = actualText
    .replace(/\n$/, '')
    .split('\n')
    .map((l) => l.trimEnd());
  const wanted = expected.filter((l) => !(excerpt && ELIDED_LINE.test(l)));
  const regexes = wanted.map((l) => (ELIDED_LINE.test(l) ? undefined : lineRegex(l)));
  let furthest = 0;
  const memo = new Map<number, boolean>();
  const match = (i: number, j: number): boolean => {
    const key = i * (actual.length + 1) + j;
    const known = memo.get(key);
    if (known !== undefined) return known;
    furthest = Math.max(furthest, i);
    let ok: boolean;
    if (i === wanted.length) ok = excerpt || j === actual.length;
    else if (regexes[i] === undefined) ok = match(i + 1, j) || (j < actual.length && match(i, j + 1));
    else if (j >= actual.length) ok = false;
    else ok = (regexes[i]!.test(actual[j]) && match(i + 1, j + 1)) || (excerpt && match(i, j + 1));
    memo.set(key, ok);
    return ok;
  };
  if (match(0, 0)) return undefined;
  return furthest < wanted.length ? `expected line ${furthest + 1} of the quoted output: ${wanted[furthest]}` : 'more output than the doc quotes';
}
