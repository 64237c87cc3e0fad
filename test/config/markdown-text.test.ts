/** The Markdown of the generated pages (modules/config/markdown-text.ts): wrapped items, tables with notes. */
import { tableWithNotes, wrapItem } from '../../modules/config/markdown-text';

describe('wrapItem', () => {
  it('wraps at the width, continuation lines under the text', () => {
    expect(wrapItem('1. ', 'aaaa bbbb cccc dddd', 12)).toEqual(['1. aaaa bbbb', '   cccc dddd']);
  });

  it('breaks no code span, link text or docs/<page>.md, "<section>" reference, and starts no line with a block marker', () => {
    expect(wrapItem('- ', 'x `a b c d` y', 6)).toEqual(['- x', '  `a b c d`', '  y']);
    expect(wrapItem('- ', 'x [a b c](p.md#a) y', 6)).toEqual(['- x', '  [a b c](p.md#a)', '  y']);
    expect(wrapItem('- ', 'see docs/tenants.md, "Staged surge" now', 10)).toEqual(['- see', '  docs/tenants.md, "Staged surge"', '  now']);
    expect(wrapItem('- ', 'aaaa - b', 7)).toEqual(['- aaaa -', '  b']);
  });
});

describe('tableWithNotes', () => {
  it('keeps short cells, and moves a long one to a numbered note naming its row', () => {
    const long = `${'word '.repeat(30)}end`;
    expect(
      tableWithNotes(
        ['key', 'meaning'],
        [
          ['`a`', 'short | piped'],
          ['`b`', long],
        ],
        120,
        200,
      ),
    ).toEqual(['| key | meaning |', '|---|---|', '| `a` | short \\| piped |', '| `b` | see note 1 |', '', `1. **\`b\`**: ${long}`]);
  });

  it('names the column in a note when several columns have notes', () => {
    const long = 'z'.repeat(130);
    expect(tableWithNotes(['k', 'x', 'y'], [['a', long, long]], 120, 400).slice(3)).toEqual(['', `1. **a**, x: ${long}`, `2. **a**, y: ${long}`]);
  });
});
