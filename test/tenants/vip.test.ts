import fc from 'fast-check';
import type { Lab } from '../../modules/config/schema';
import { allocateVips, BLOCK, FULL_RANK, vipMemoryOf } from '../../modules/tenants/vip';
import { exampleLab } from './fixtures';

/** A lab with the given tenants (only the fields VIP allocation reads) and VIP pool. */
function lab(pool: string[], tenants: { name: string; vip?: string }[]): Lab {
  const base = exampleLab();
  return {
    ...base,
    management: { ...base.management, loadBalancer: { ...base.management.loadBalancer, addresses: pool } },
    tenants: tenants as Lab['tenants'],
  };
}

const names = fc.uniqueArray(fc.stringMatching(/^[a-z][a-z0-9-]{0,10}[a-z0-9]$/), { minLength: 1, maxLength: 12 });

describe('VIP allocation', () => {
  it('gives every tenant of the example lab a distinct VIP from the pool', () => {
    const { vips, problems } = allocateVips(exampleLab());
    expect(problems).toEqual([]);
    const all = [...vips.values()].map((v) => v.vip);
    expect(new Set(all).size).toBe(3);
    for (const vip of all) expect(vip).toMatch(/^10\.4\.0\.(1[0-4]\d)$/);
  });

  it('keeps a described VIP and marks it as such', () => {
    const { vips, problems } = allocateVips(lab(['10.4.0.100-10.4.0.149'], [{ name: 'a', vip: '10.4.0.101' }, { name: 'b' }]));
    expect(problems).toEqual([]);
    expect(vips.get('a')).toEqual({ tenant: 'a', vip: '10.4.0.101', source: 'description', why: 'described' });
    expect(vips.get('b')?.source).toBe('allocated');
    expect(vips.get('b')?.vip).not.toBe('10.4.0.101');
  });

  it('is stable: adding or removing other tenants never moves a VIP the memory holds, and nothing is refused (property)', () => {
    fc.assert(
      fc.property(names, names, (before, added) => {
        // A /28: small enough that newcomers often rank a deployed tenant's address first.
        const pool = ['10.20.0.0/28'];
        const first = allocateVips(
          lab(
            pool,
            before.map((name) => ({ name })),
          ),
        );
        const all = [...new Set([...before, ...added])];
        if (all.length > 16) return;
        const second = allocateVips(
          lab(
            pool,
            all.map((name) => ({ name })),
          ),
          vipMemoryOf(first),
        );
        expect(second.problems).toEqual([]);
        for (const [name, v] of first.vips) {
          expect(second.vips.get(name)?.vip).toBe(v.vip);
          expect(['first-choice', 'kept', 'collision']).toContain(second.vips.get(name)?.why);
        }
        const given = [...second.vips.values()].map((v) => v.vip);
        expect(new Set(given).size).toBe(given.length);
      }),
      { numRuns: 60 },
    );
  });

  it('gives the same VIPs for the same lab and memory, whatever the order of the tenants (property)', () => {
    fc.assert(
      fc.property(names, fc.integer({ min: 0, max: 1000 }), (tenants, seed) => {
        const pool = ['10.20.0.0/28'];
        const shuffled = [...tenants].sort((a, b) => ((a.charCodeAt(0) * seed) % 7) - ((b.charCodeAt(0) * seed) % 7));
        const a = allocateVips(
          lab(
            pool,
            tenants.map((name) => ({ name })),
          ),
        );
        const b = allocateVips(
          lab(
            pool,
            shuffled.map((name) => ({ name })),
          ),
        );
        expect(Object.fromEntries(b.vips)).toEqual(Object.fromEntries(a.vips));
      }),
      { numRuns: 40 },
    );
  });

  it('never hands out one address twice (property)', () => {
    fc.assert(
      fc.property(names, (tenants) => {
        const { vips, problems } = allocateVips(
          lab(
            ['10.20.0.0/26'],
            tenants.map((name) => ({ name })),
          ),
        );
        if (problems.length > 0) return;
        const all = [...vips.values()].map((v) => v.vip);
        expect(new Set(all).size).toBe(all.length);
      }),
      { numRuns: 60 },
    );
  });

  /** Two tenant names whose first choice in `pool` is the same address, the first sorting before the second. */
  function collidingPair(pool: string[]): { early: string; late: string; target: string } {
    const single = (name: string) => allocateVips(lab(pool, [{ name }])).vips.get(name)?.vip;
    const target = single('t0') as string;
    const other = Array.from({ length: 200 }, (_, i) => `t${i + 1}`).find((n) => single(n) === target) as string;
    return { early: 't0', late: other, target };
  }

  it('resolves two tenants that rank the same address first: the first by name keeps it, the other takes its next choice', () => {
    const pool = ['10.4.0.100-10.4.0.103'];
    const { early, late, target } = collidingPair(pool);
    const { vips, problems } = allocateVips(lab(pool, [{ name: late }, { name: early }]));
    expect(problems).toEqual([]);
    expect(vips.get(early)).toEqual({ tenant: early, vip: target, source: 'allocated', why: 'first-choice' });
    // Its next choice: what it gets when the address is someone else's (a third tenant's vip: there).
    const next = allocateVips(lab(pool, [{ name: 'x', vip: target }, { name: late }])).vips.get(late)?.vip;
    expect(next).toMatch(/^10\.4\.0\.10[0-3]$/);
    expect(next).not.toBe(target);
    expect(vips.get(late)).toEqual({ tenant: late, vip: next, source: 'allocated', why: 'collision', firstChoice: target, heldBy: early });
  });

  it('never moves a tenant the memory holds: the deployed one keeps its address, the newcomer that ranks it first moves on', () => {
    const pool = ['10.4.0.100-10.4.0.103'];
    const { early, late, target } = collidingPair(pool);
    // The later name was there first: the last synth gave it its first choice.
    const deployed = allocateVips(lab(pool, [{ name: late }]));
    expect(deployed.vips.get(late)?.vip).toBe(target);
    const { vips, problems } = allocateVips(lab(pool, [{ name: late }, { name: early }]), vipMemoryOf(deployed));
    expect(problems).toEqual([]);
    // Kept, and its first choice anyway: recorded as that (the bytes do not depend on the memory being there).
    expect(vips.get(late)).toEqual({ tenant: late, vip: target, source: 'allocated', why: 'first-choice' });
    expect(vips.get(early)).toMatchObject({ why: 'collision', firstChoice: target, heldBy: late });
    expect(vips.get(early)?.vip).not.toBe(target);
    // Without the memory the first by name would have taken it: the memory is what keeps it.
    expect(allocateVips(lab(pool, [{ name: late }, { name: early }])).vips.get(late)?.vip).not.toBe(target);
    // The holder goes: the collided tenant stays where it is, though its first choice is free again.
    const afterwards = allocateVips(lab(pool, [{ name: early }]), new Map([[early, vips.get(early)?.vip as string]]));
    expect(afterwards.problems).toEqual([]);
    expect(afterwards.vips.get(early)).toEqual({ tenant: early, vip: vips.get(early)?.vip, source: 'allocated', why: 'kept', firstChoice: target });
  });

  it('moves an allocated tenant off a described VIP when it is new, and refuses the described VIP when the memory gives it to the other', () => {
    const pool = ['10.4.0.100-10.4.0.149'];
    const allocated = allocateVips(lab(pool, [{ name: 'alpha' }])).vips.get('alpha')?.vip as string;
    const fresh = allocateVips(lab(pool, [{ name: 'alpha' }, { name: 'beta', vip: allocated }]));
    expect(fresh.problems).toEqual([]);
    expect(fresh.vips.get('alpha')).toMatchObject({ why: 'collision', firstChoice: allocated, heldBy: 'beta' });
    const { problems } = allocateVips(lab(pool, [{ name: 'alpha' }, { name: 'beta', vip: allocated }]), new Map([['alpha', allocated]]));
    expect(problems).toHaveLength(1);
    expect(problems[0].path).toEqual(['tenants', 1, 'vip']);
    expect(problems[0].message).toContain(
      `VIP ${allocated} of tenant beta is the VIP the last synth gave tenant alpha; both control planes would answer on it`,
    );
  });

  it('refuses a VIP the memory holds moving: pinned elsewhere, or left out of the pool', () => {
    const pinned = allocateVips(lab(['10.4.0.100-10.4.0.149'], [{ name: 'a', vip: '10.4.0.120' }]), new Map([['a', '10.4.0.101']]));
    expect(pinned.problems.map((p) => [p.path, p.fix])).toEqual([[['tenants', 0, 'vip'], expect.stringContaining('keep vip: 10.4.0.101')]]);
    const shrunk = allocateVips(lab(['10.4.0.100-10.4.0.109'], [{ name: 'a' }]), new Map([['a', '10.4.0.140']]));
    expect(shrunk.problems.map((p) => [p.path, p.message])).toEqual([
      [['management', 'loadBalancer', 'addresses'], expect.stringContaining('no longer holds VIP 10.4.0.140 of tenant a')],
    ]);
    // The same VIP pinned as remembered is no move.
    expect(allocateVips(lab(['10.4.0.100-10.4.0.149'], [{ name: 'a', vip: '10.4.0.101' }]), new Map([['a', '10.4.0.101']])).problems).toEqual([]);
  });

  it('fails when the pool is exhausted', () => {
    const { problems } = allocateVips(lab(['10.4.0.100-10.4.0.101'], [{ name: 'a', vip: '10.4.0.100' }, { name: 'b' }, { name: 'c' }]));
    expect(problems).toHaveLength(1);
    expect(problems[0].path).toEqual(['management', 'loadBalancer', 'addresses']);
    expect(problems[0].message).toBe('the load-balancer pool is exhausted: 2 tenants need a VIP (b, c) but 1 of its 2 addresses is free');
  });

  it('resolves every collision of 1000 tenants in a /16 pool: distinct VIPs, no problem, each collided tenant told whose address it ranked first', () => {
    const tenants = Array.from({ length: 1000 }, (_, i) => ({ name: `t-${String(i).padStart(4, '0')}` }));
    const { vips, problems } = allocateVips(lab(['10.20.0.0/16'], tenants));
    expect(problems).toEqual([]);
    const given = [...vips.values()];
    expect(new Set(given.map((v) => v.vip)).size).toBe(1000);
    const collided = given.filter((v) => v.why === 'collision');
    expect(collided.length).toBeGreaterThan(0);
    for (const v of collided) expect(vips.get(v.heldBy as string)?.vip).toBe(v.firstChoice);
  });

  it('refuses a described VIP outside the pool (MetalLB would not announce it)', () => {
    const { problems } = allocateVips(lab(['10.4.0.100-10.4.0.149'], [{ name: 'a', vip: '10.4.1.5' }]));
    expect(problems.map((p) => p.message)).toEqual([expect.stringContaining('VIP 10.4.1.5 is outside the load-balancer pool')]);
  });
});

/** The allocator's weight as it was computed before the fast hash: node:crypto, the first 64 bits of SHA-256(`<tenant>\0<address>`). */
function referenceBest(tenant: string, first: number, last: number): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the reference only
  const { createHash } = require('node:crypto') as typeof import('node:crypto');
  const ip = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
  let best = -1n;
  let at = first;
  for (let a = first; a <= last; a++) {
    const w = createHash('sha256')
      .update(`${tenant}\0${ip(a)}`)
      .digest()
      .readBigUInt64BE(0);
    if (w > best) [best, at] = [w, a];
  }
  return ip(at);
}

/** The two-level ranking of a pool larger than FULL_RANK (modules/tenants/vip.ts), computed independently with node:crypto. */
function referenceLargeBest(tenant: string, first: number, last: number): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the reference only
  const { createHash } = require('node:crypto') as typeof import('node:crypto');
  const h = (text: string) => createHash('sha256').update(text).digest().readBigUInt64BE(0);
  const blocks = Math.ceil((last - first + 1) / BLOCK);
  let bestBlock = 0;
  for (let b = 1; b < blocks; b++) if (h(`${tenant}\0block ${b}`) > h(`${tenant}\0block ${bestBlock}`)) bestBlock = b;
  return referenceBest(tenant, first + bestBlock * BLOCK, Math.min(last, first + bestBlock * BLOCK + BLOCK - 1));
}

describe('VIP weights (the fast SHA-256)', () => {
  it('ranks a pool larger than FULL_RANK in blocks: the best block, then its best address (node:crypto reference)', () => {
    const start = (10 << 24) | (20 << 16);
    const pool = ['10.20.0.0/16'];
    expect(65536).toBeGreaterThan(FULL_RANK);
    for (const name of ['a', 'tenant-a', 'x'.repeat(45)])
      expect(allocateVips(lab(pool, [{ name }])).vips.get(name)?.vip).toBe(referenceLargeBest(name, start, start + 65535));
  });

  it('allocates exactly what the node:crypto weights allocate, for short and long tenant names (one block and two)', () => {
    const start = (10 << 24) | (4 << 16);
    const pool = ['10.4.0.0-10.4.1.255'];
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z][a-z0-9-]{0,61}[a-z0-9]$/), (name) => {
        expect(allocateVips(lab(pool, [{ name }])).vips.get(name)?.vip).toBe(referenceBest(name, start, start + 511));
      }),
      { numRuns: 40 },
    );
    // 39 characters: the longest one-block message; 40 and 63: two blocks (node:crypto).
    for (const name of ['a', 'x'.repeat(39), 'y'.repeat(40), `t${'z'.repeat(61)}0`])
      expect(allocateVips(lab(pool, [{ name }])).vips.get(name)?.vip).toBe(referenceBest(name, start, start + 511));
  });

  it("keeps the example lab's VIPs as they were", () => {
    const { vips } = allocateVips(exampleLab());
    const [first, last] = [(10 << 24) | (4 << 16) | 100, (10 << 24) | (4 << 16) | 149];
    for (const t of ['tenant-a', 'tenant-b', 'tenant-c']) expect(vips.get(t)?.vip).toBe(referenceBest(t, first, last));
  });
});
