/**
 * Control-plane VIPs: from the description (`tenants[].vip`) or allocated from the management
 * load-balancer pool.
 *
 * A tenant's allocated VIP is the address of the pool that ranks first for its name (rendezvous
 * hashing: each address gets a weight from the tenant name and the address; the highest wins). It
 * depends on nothing but the tenant's name and the pool, so adding, removing or renaming other
 * tenants never moves it. Two tenants that would get the same address, or a described VIP that is
 * another tenant's allocated one, are refused at synth with the address to pin instead: a stateless
 * allocator cannot keep both a deployed tenant's VIP and hand the same address to a newcomer, and
 * moving a live control plane's endpoint breaks every kubeconfig and the workers' join address.
 * Changing the pool ranges can move allocated VIPs: pin them (`vip:`) before that.
 */
import { ipToNumber, numberToIp, parseRange, type Ipv4Range } from '../config/ip';
import type { Problem } from '../config/problems';
import type { Lab } from '../config/schema';
import { PoolAddresses, TenantWeights } from './vip-weight';

export interface TenantVip {
  tenant: string;
  vip: string;
  /** `description`: the tenant's `vip`; `allocated`: chosen from the pool at synth. */
  source: 'description' | 'allocated';
}

export interface VipAllocation {
  /** By tenant name. */
  vips: Map<string, TenantVip>;
  problems: Problem[];
}

/** The pool as disjoint, sorted integer intervals. */
function poolRanges(lab: Lab): Ipv4Range[] {
  const ranges = lab.management.loadBalancer.addresses
    .map((text) => parseRange(text))
    .filter((r): r is Ipv4Range => r !== undefined && r.first <= r.last)
    .sort((a, b) => a.first - b.first);
  const merged: Ipv4Range[] = [];
  for (const r of ranges) {
    const last = merged[merged.length - 1];
    if (last && r.first <= last.last + 1) last.last = Math.max(last.last, r.last);
    else merged.push({ ...r });
  }
  return merged;
}

function poolSize(ranges: readonly Ipv4Range[]): number {
  return ranges.reduce((n, r) => n + (r.last - r.first + 1), 0);
}

function inPool(ranges: readonly Ipv4Range[], address: number): boolean {
  return ranges.some((r) => r.first <= address && address <= r.last);
}

/** The pool address that weighs most for a tenant, leaving out `taken` (the first of equal weights, in pool order). */
function best(tenant: string, pool: PoolAddresses, taken: ReadonlySet<number> = new Set()): number | undefined {
  const w = new TenantWeights(tenant, pool);
  let bestAddress: number | undefined;
  let bestHi = -1;
  let bestLo = -1;
  let i = 0;
  for (const r of pool.ranges) {
    for (let a = r.first; a <= r.last; a++, i++) {
      if (taken.size > 0 && taken.has(a)) continue;
      w.weigh(i);
      if (w.hi > bestHi || (w.hi === bestHi && w.lo > bestLo)) {
        bestHi = w.hi;
        bestLo = w.lo;
        bestAddress = a;
      }
    }
  }
  return bestAddress;
}

const MAX_POOL = 65536;

export function allocateVips(lab: Lab): VipAllocation {
  const problems: Problem[] = [];
  const vips = new Map<string, TenantVip>();
  const ranges = poolRanges(lab);
  const size = poolSize(ranges);
  const poolPath = ['management', 'loadBalancer', 'addresses'];
  if (size > MAX_POOL) {
    problems.push({
      path: poolPath,
      message: `the load-balancer pool holds ${size} addresses; VIP allocation ranks at most ${MAX_POOL}`,
      fix: 'give management.loadBalancer.addresses a range of at most a /16 for tenant VIPs',
    });
    return { vips, problems };
  }
  const index = new Map(lab.tenants.map((t, i) => [t.name, i]));
  const described = new Map<number, string>();
  for (const tenant of lab.tenants) {
    if (tenant.vip === undefined) continue;
    const address = ipToNumber(tenant.vip) as number;
    if (!inPool(ranges, address)) {
      problems.push({
        path: ['tenants', index.get(tenant.name) as number, 'vip'],
        message: `VIP ${tenant.vip} is outside the load-balancer pool (${lab.management.loadBalancer.addresses.join(', ')}), so MetalLB will not announce it`,
        value: tenant.vip,
        fix: 'take the VIP from management.loadBalancer.addresses, or leave vip out to allocate one',
      });
    }
    // Duplicate described VIPs are reported by the description rules.
    if (!described.has(address)) described.set(address, tenant.name);
    vips.set(tenant.name, { tenant: tenant.name, vip: tenant.vip, source: 'description' });
  }

  const automatic = lab.tenants
    .filter((t) => t.vip === undefined)
    .map((t) => t.name)
    .sort();
  if (automatic.length === 0) return { vips, problems };
  const free = size - [...described.keys()].filter((a) => inPool(ranges, a)).length;
  if (automatic.length > free) {
    problems.push({
      path: poolPath,
      message: `the load-balancer pool is exhausted: ${automatic.length} tenant${automatic.length === 1 ? ' needs' : 's need'} a VIP (${automatic.join(', ')}) but ${free} of its ${size} addresses ${free === 1 ? 'is' : 'are'} free`,
      fix: 'add a range to management.loadBalancer.addresses (pin the allocated VIPs with vip: first, widening the pool can move them)',
    });
    return { vips, problems };
  }

  const pool = new PoolAddresses(ranges);
  const firstChoice = new Map<string, number>();
  const claimants = new Map<number, string[]>();
  for (const name of automatic) {
    const address = best(name, pool) as number;
    firstChoice.set(name, address);
    claimants.set(address, [...(claimants.get(address) ?? []), name]);
  }
  const taken = new Set<number>([...described.keys(), ...firstChoice.values()]);
  const suggestions = new Map<string, string | undefined>();
  const suggestion = (name: string): string | undefined => {
    if (!suggestions.has(name)) {
      const address = best(name, pool, taken);
      suggestions.set(name, address === undefined ? undefined : numberToIp(address));
    }
    return suggestions.get(name);
  };
  for (const [address, names] of [...claimants.entries()].sort((a, b) => a[0] - b[0])) {
    const ip = numberToIp(address);
    const owner = described.get(address);
    if (owner !== undefined) {
      for (const name of names) {
        problems.push({
          path: ['tenants', index.get(owner) as number, 'vip'],
          message: `VIP ${ip} of tenant ${owner} is the address tenant ${name} is allocated from the pool; one of them would have to move`,
          value: ip,
          fix: `if tenant ${name} is already deployed, give tenant ${owner} another VIP${suggestion(owner) ? ` (e.g. vip: ${suggestion(owner)})` : ''}; otherwise pin tenant ${name} with vip: ${suggestion(name) ?? '<a free pool address>'}`,
        });
      }
      continue;
    }
    if (names.length > 1) {
      const [first, ...others] = names;
      problems.push({
        path: ['tenants', index.get(others[0]) as number, 'vip'],
        message: `tenants ${names.join(' and ')} are both allocated VIP ${ip} from the pool`,
        fix: `keep it for the tenant already deployed and pin the other: e.g. vip: ${suggestion(others[0]) ?? '<a free pool address>'} for tenant ${others[0]} (or vip: ${suggestion(first) ?? '<a free pool address>'} for tenant ${first})`,
      });
      continue;
    }
    vips.set(names[0], { tenant: names[0], vip: ip, source: 'allocated' });
  }
  return { vips, problems };
}
