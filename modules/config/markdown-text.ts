/**
 * Markdown for the generated pages (docs/lab-reference.md, docs/rules.md) that an editor and a diff
 * can read: list items wrapped to a width, and tables whose cells stay short (a longer cell becomes
 * "see note N", its text a numbered note under the table). test/docs/table-cells.test.ts holds
 * every page to cells of at most TABLE_CELL_MAX characters. Pure.
 */

/** The longest table cell a page may have (test/docs/table-cells.test.ts). */
export const TABLE_CELL_MAX = 120;

/**
 * The words of a text, each a unit a line may break after: an inline code span, a link's text and a
 * reference `docs/<page>.md, "<section>"` are kept whole (scripts/check-docs.js reads those per line).
 */
function units(text: string): string[] {
  const words = text.split(/\s+/).filter((w) => w !== '');
  const open = (s: string) => {
    const code = (s.match(/`/g) ?? []).length % 2 === 1;
    const plain = s.replace(/`[^`]*`/g, '');
    return code || (plain.match(/\[/g) ?? []).length > (plain.match(/\]/g) ?? []).length;
  };
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    let unit = words[i];
    while (open(unit) && i + 1 < words.length) unit += ` ${words[++i]}`;
    if (/\.md,$/.test(unit) && words[i + 1]?.startsWith('"')) {
      unit += ` ${words[++i]}`;
      while (!/^"[^"]*"/.test(unit.slice(unit.lastIndexOf(' "') + 1)) && i + 1 < words.length) unit += ` ${words[++i]}`;
    }
    out.push(unit);
  }
  return out;
}

/** A word that would start a list, a heading, a quote or a setext underline at the start of a line. */
const BLOCK_START = /^([-+*]|#+|>.*|\d+[.)]|=+)$/;

/** One list item (or any block led by `marker`), wrapped at `width`; continuation lines indented under the text. */
export function wrapItem(marker: string, text: string, width = 100): string[] {
  const indent = ' '.repeat(marker.length);
  const lines: string[] = [];
  let line = '';
  for (const unit of units(text)) {
    if (line === '') line = marker + unit;
    else if (line.length + 1 + unit.length > width && !BLOCK_START.test(unit)) {
      lines.push(line);
      line = indent + unit;
    } else line += ` ${unit}`;
  }
  lines.push(line === '' ? marker.trimEnd() : line);
  return lines;
}

/** A table cell: no line breaks, no unescaped pipes. */
export const tableCell = (text: string) => text.replace(/\s+/g, ' ').replace(/\|/g, '\\|');

/**
 * A table of `header` and `rows` (plain text, escaped here), then, for every cell over `max`
 * characters, a numbered note under it: the cell says "see note N"; the note names the row by its
 * first cell (and the column, when several columns have notes). The first cells must be short.
 */
export function tableWithNotes(header: readonly string[], rows: readonly (readonly string[])[], max = TABLE_CELL_MAX, width = 100): string[] {
  const long = (text: string) => tableCell(text).length > max;
  const columns = new Set(rows.flatMap((r) => r.flatMap((c, i) => (i > 0 && long(c) ? [i] : []))));
  const notes: string[][] = [];
  const lines = [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`];
  for (const row of rows) {
    const cells = row.map((c, i) => {
      if (i === 0 || !long(c)) return tableCell(c);
      const label = columns.size > 1 && header[i] !== '' ? `, ${header[i]}` : '';
      notes.push(wrapItem(`${notes.length + 1}. `, `**${row[0].replace(/\s+/g, ' ')}**${label}: ${c.replace(/\s+/g, ' ')}`, width));
      return `see note ${notes.length}`;
    });
    lines.push(`| ${cells.join(' | ')} |`);
  }
  return notes.length === 0 ? lines : [...lines, '', ...notes.flat()];
}
