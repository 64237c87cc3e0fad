import fc from 'fast-check';
import type { Lab } from '../../modules/config/schema';
import { allocateVips } from '../../modules/tenants/vip';
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
    expect(vips.get('a')).toEqual({ tenant: 'a', vip: '10.4.0.101', source: 'description' });
    expect(vips.get('b')?.source).toBe('allocated');
    expect(vips.get('b')?.vip).not.toBe('10.4.0.101');
  });

  it('is stable: adding or removing other tenants never moves an allocated VIP (property)', () => {
    fc.assert(
      fc.property(names, names, (before, added) => {
        const pool = ['10.20.0.0/20'];
        const first = allocateVips(
          lab(
            pool,
            before.map((name) => ({ name })),
          ),
        );
        const second = allocateVips(
          lab(
            pool,
            [...new Set([...before, ...added])].map((name) => ({ name })),
          ),
        );
        for (const [name, v] of first.vips) {
          // Either the tenant keeps its VIP, or synth refuses (a newcomer collides) — never a silent move.
          if (second.problems.length === 0) expect(second.vips.get(name)?.vip).toBe(v.vip);
        }
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

  it('refuses two tenants that hash to the same address, naming both and a free address to pin', () => {
    // Find two names that collide in a 4-address pool.
    const pool = ['10.4.0.100-10.4.0.103'];
    const single = (name: string) => allocateVips(lab(pool, [{ name }])).vips.get(name)?.vip;
    const target = single('t0');
    const other = Array.from({ length: 200 }, (_, i) => `t${i + 1}`).find((n) => single(n) === target) as string;
    const { problems } = allocateVips(lab(pool, [{ name: 't0' }, { name: other }]));
    expect(problems).toHaveLength(1);
    expect(problems[0].message).toContain(`tenants t0 and ${other} are both allocated VIP ${target}`);
    expect(problems[0].fix).toMatch(/pin the other: e\.g\. vip: 10\.4\.0\.10[0-3]/);
    expect(problems[0].fix).not.toContain(`vip: ${target}`);
  });

  it("refuses a described VIP that is another tenant's allocated one", () => {
    const pool = ['10.4.0.100-10.4.0.149'];
    const allocated = allocateVips(lab(pool, [{ name: 'alpha' }])).vips.get('alpha')?.vip as string;
    const { problems } = allocateVips(lab(pool, [{ name: 'alpha' }, { name: 'beta', vip: allocated }]));
    expect(problems).toHaveLength(1);
    expect(problems[0].path).toEqual(['tenants', 1, 'vip']);
    expect(problems[0].message).toContain(`VIP ${allocated} of tenant beta is the address tenant alpha is allocated`);
  });

  it('fails when the pool is exhausted', () => {
    const { problems } = allocateVips(lab(['10.4.0.100-10.4.0.101'], [{ name: 'a', vip: '10.4.0.100' }, { name: 'b' }, { name: 'c' }]));
    expect(problems).toHaveLength(1);
    expect(problems[0].path).toEqual(['management', 'loadBalancer', 'addresses']);
    expect(problems[0].message).toBe('the load-balancer pool is exhausted: 2 tenants need a VIP (b, c) but 1 of its 2 addresses is free');
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

describe('VIP weights (the fast SHA-256)', () => {
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
