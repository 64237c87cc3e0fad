/** The duplicated-lines measure of docs/development.md (scripts/dup-lines.ts), on rows as `duplicates` prints them. */
import { duplicatedLines } from '../../scripts/dup-lines';

describe('dup-lines', () => {
  it('sums the first side of each pair outside test/ and .gen/, and counts those pairs', () => {
    const rows = [
      '5 pairs of places (9 files read), each sharing runs of 6 or more identical or same-shape lines',
      'D1 scripts/a.ts:10-24 ~ scripts/b.ts:40-54 shape (+2 more runs)',
      'D2 .gen/x/index.ts:1-50 ~ .gen/y/index.ts:1-50',
      'D3 modules/c.ts:3-8 ~ test/c.test.ts:3-8',
      'D4 sim/d.ts:100-107 ~ sim/d.ts:200-207 shape boilerplate',
      'D5 test/e.test.ts:1-9 ~ scripts/e.ts:1-9',
      '(+3 more pairs)',
      'left out: 137 runs of 6 lines that stand in more than 8 places each (too common to list)',
    ].join('\n');
    expect(duplicatedLines(rows)).toEqual({ pairs: 2, lines: 15 + 8 });
  });

  it('finds nothing in text without rows', () => {
    expect(duplicatedLines('no duplicates (3 files read)\n')).toEqual({ pairs: 0, lines: 0 });
  });
});
