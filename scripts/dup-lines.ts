/**
 * `duplicates --most 200 --seconds 120 | node dist/scripts/dup-lines.js`: the measure of duplicated
 * code that docs/development.md records (issue 40 item 4). Reads the rows of the `duplicates`
 * command (a row a pair: `D1 a.ts:10-24 ~ b.ts:40-54 ...`), keeps the pairs where neither side is
 * under test/ or .gen/, and prints how many they are and the lines they share, counted as the first
 * side's line range. `duplicates` is a tool of the development machine, not of pvekaas: no test runs it.
 */
import { readFileSync } from 'node:fs';

/** A row's two places, or undefined for a line that is not a row. */
function places(line: string): [string, string] | undefined {
  const m = /^D\d+ (\S+):\d+-\d+ ~ (\S+):\d+-\d+/.exec(line);
  return m ? [m[1], m[2]] : undefined;
}

/** The pairs outside test/ and .gen/ and the lines they share (first side's range). */
export function duplicatedLines(text: string): { pairs: number; lines: number } {
  let pairs = 0;
  let lines = 0;
  for (const line of text.split('\n')) {
    const sides = places(line);
    if (!sides || sides.some((path) => path.startsWith('test/') || path.startsWith('.gen/'))) continue;
    const [, from, to] = /^D\d+ \S+:(\d+)-(\d+)/.exec(line)!;
    pairs++;
    lines += Number(to) - Number(from) + 1;
  }
  return { pairs, lines };
}

if (require.main === module) {
  const { pairs, lines } = duplicatedLines(readFileSync(0, 'utf8'));
  process.stdout.write(`${pairs} pairs, ${lines} lines (outside test/ and .gen/)\n`);
}
