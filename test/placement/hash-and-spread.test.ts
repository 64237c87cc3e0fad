/** The fixed hash (pinned to values from an independent implementation) and the count splitter. */
import fc from 'fast-check';
import { fnv1a, rendezvousWeight } from '../../modules/placement/hash';
import { spreadCount } from '../../modules/placement/spread';

describe('the placement hash', () => {
  it('is FNV-1a over UTF-8: the published test vectors', () => {
    expect(fnv1a('')).toBe(0x811c9dc5);
    expect(fnv1a('a')).toBe(0xe40c292c);
    expect(fnv1a('foobar')).toBe(0xbf9cf968);
    expect(fnv1a('ünïcode')).toBe(0x45f2402b);
  });

  it('gives the rendezvous weights a separate Python implementation computes, so plans never change under us', () => {
    expect(rendezvousWeight(fnv1a('test'), fnv1a('pmox-txl'))).toBe(2009293845);
    expect(rendezvousWeight(fnv1a('test'), fnv1a('pmox-fra'))).toBe(3465524215);
    expect(rendezvousWeight(fnv1a('tenant-c'), fnv1a('pmox-fra'))).toBe(3902819787);
  });
});

describe('spreading a count over slots', () => {
  const identity = (n: number) => () => Array.from({ length: n }, (_, i) => i);

  it('5 over two roomy slots is 3 + 2, the 3 on the best-ranked slot', () => {
    const out: number[] = [];
    expect(spreadCount(5, [100, 100], 2, () => [1, 0], out)).toBe(5);
    expect(out).toEqual([2, 3]);
  });

  it('a full slot keeps its cap and the rest goes to the others', () => {
    const out: number[] = [];
    expect(spreadCount(9, [1, 100, 100], 3, identity(3), out)).toBe(9);
    expect(out).toEqual([1, 4, 4]);
  });

  it('places what fits and reports it when the slots cannot hold the count', () => {
    const out: number[] = [];
    expect(spreadCount(10, [2, 3], 2, identity(2), out)).toBe(5);
    expect(out).toEqual([2, 3]);
  });

  it('holds for any caps, count and ranking: sum, caps, skew at most one unless full, extras by rank', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 50 }), { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 0, max: 400 }),
        fc.nat(),
        (caps, count, seed) => {
          const order = caps.map((_, i) => i).sort((a, b) => ((a * 7919 + seed) % 101) - ((b * 7919 + seed) % 101) || a - b);
          const out: number[] = [];
          const placed = spreadCount(count, caps, caps.length, () => order, out);
          const room = caps.reduce((a, b) => a + b, 0);
          expect(placed).toBe(Math.min(count, room));
          expect(out.reduce((a, b) => a + b, 0)).toBe(placed);
          out.forEach((n, i) => {
            expect(n).toBeGreaterThanOrEqual(0);
            expect(n).toBeLessThanOrEqual(caps[i]);
          });
          for (let a = 0; a < caps.length; a++) {
            for (let b = 0; b < caps.length; b++) {
              if (out[a] > out[b] + 1) expect(out[b]).toBe(caps[b]);
              // Between two slots with room left, the better-ranked one never has fewer.
              if (out[a] < caps[a] && out[b] < caps[b] && order.indexOf(a) < order.indexOf(b)) expect(out[a]).toBeGreaterThanOrEqual(out[b]);
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
