/**
 * Control-plane VIPs: from the description (`tenants[].vip`) or allocated from the management
 * load-balancer pool, remembering what the last synth gave (issue 41, item 4).
 *
 * **Ranking.** Each tenant ranks the pool's addresses by rendezvous hashing (each address gets a
 * weight from the tenant name and the address; the highest wins): its ranking depends on nothing but
 * its name and the pool. A pool of at most FULL_RANK addresses is ranked whole, as always (so every
 * VIP allocated before stays where it was). A larger pool is ranked in two levels: its addresses in
 * pool order cut into blocks of BLOCK, the blocks ranked by a weight of the tenant and the block's
 * number, then the addresses of the best block — BLOCK + blocks hashes per tenant instead of one per
 * address (a /16: 512 instead of 65 536), which is what keeps `validate` near-linear at 10 000 tenants.
 *
 * **Memory.** `memory` is what the last synth gave each tenant (its output's `placement.json`,
 * `vips`; for `validate --against`, the old description's allocation): a tenant it names keeps that
 * address, whatever the newcomers' rankings. Only a tenant the memory does not name is allocated.
 *
 * **Collisions, resolved.** A new tenant whose first choice is free takes it. When several new
 * tenants rank one free address first, the first of them by name takes it; an address that is
 * described (`vip:`) or kept from memory is not free. Every other new tenant then takes, in name
 * order, the best-ranked address still free (its next choice). Same lab and memory, same VIPs.
 *
 * **Refused**, because the control plane's endpoint cannot move under running machines (Cluster
 * API copies `spec.controlPlaneEndpoint` from the infrastructure cluster only while it is unset,
 * sigs.k8s.io/cluster-api v1.13.6 internal/controllers/cluster/cluster_controller_phases.go,
 * `reconcileInfrastructure`; every kubeconfig and every worker's kubelet names it): a remembered
 * tenant whose described VIP differs from the remembered one, a described VIP that is another
 * remembered tenant's, and a remembered VIP the pool no longer holds.
 */
import { ipToNumber, numberToIp, parseRange, type Ipv4Range } from '../config/ip';
import type { Problem } from '../config/problems';
import type { Lab } from '../config/schema';
import { BlockLabels, PoolAddresses, TenantWeights } from './vip-weight';

/** Why a tenant has its VIP: its `vip:`, the first choice of its ranking, the next free one after a collision, or kept from memory. */
export type VipReason = 'described' | 'first-choice' | 'collision' | 'kept';

export interface TenantVip {
  tenant: string;
  vip: string;
  /** `description`: the tenant's `vip`; `allocated`: chosen from the pool at synth (first choice, after a collision, or kept from memory). */
  source: 'description' | 'allocated';
  why: VipReason;
  /**
   * `collision`: the address it ranked first, and the tenant that holds it (in the description or
   * memory too); `kept`: the address a synth without memory would rank first.
   */
  firstChoice?: string;
  heldBy?: string;
}

/** What the last synth gave each tenant: tenant name → its VIP. */
export type VipMemory = ReadonlyMap<string, string>;

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

/** The pool address that weighs most for a tenant among pool positions [from, to), leaving out `taken` (the first of equal weights, in pool order). */
function bestIn(w: TenantWeights, pool: PoolAddresses, from: number, to: number, taken: ReadonlySet<number>): number | undefined {
  let bestAddress: number | undefined;
  let bestHi = -1;
  let bestLo = -1;
  let i = 0;
  for (const r of pool.ranges) {
    const n = r.last - r.first + 1;
    if (i + n <= from) {
      i += n;
      continue;
    }
    for (let a = r.first + Math.max(0, from - i), k = Math.max(i, from); a <= r.last && k < to; a++, k++) {
      if (taken.size > 0 && taken.has(a)) continue;
      w.weigh(k);
      if (w.hi > bestHi || (w.hi === bestHi && w.lo > bestLo)) {
        bestHi = w.hi;
        bestLo = w.lo;
        bestAddress = a;
      }
    }
    i += n;
    if (i >= to) break;
  }
  return bestAddress;
}

/** Pools up to this size are ranked whole (one weight per address), as before issue 41. */
export const FULL_RANK = 4096;
/** A larger pool is ranked in blocks of this many addresses (pool order). */
export const BLOCK = 256;

/** A tenant's ranking of the pool: `next(taken)` is its best-ranked address not in `taken`. */
class Ranking {
  private readonly w: TenantWeights;
  /** Large pools: the best block, then (made only when it is full) every block, best first. */
  private bestBlock?: number;
  private blocks?: number[];
  constructor(
    private readonly tenant: string,
    private readonly pool: PoolAddresses,
    private readonly labels: BlockLabels | undefined,
  ) {
    this.w = new TenantWeights(tenant, pool);
  }

  next(taken: ReadonlySet<number>): number | undefined {
    const size = this.pool.size;
    if (!this.labels) return bestIn(this.w, this.pool, 0, size, taken);
    const inBlock = (b: number) => bestIn(this.w, this.pool, b * BLOCK, Math.min(size, (b + 1) * BLOCK), taken);
    this.bestBlock ??= blockOrder(this.tenant, this.labels, true)[0];
    const first = inBlock(this.bestBlock);
    if (first !== undefined) return first;
    this.blocks ??= blockOrder(this.tenant, this.labels, false);
    for (const b of this.blocks) {
      const a = inBlock(b);
      if (a !== undefined) return a;
    }
    return undefined;
  }
}

/**
 * The blocks of a large pool ranked for a tenant: by the first 64 bits of SHA-256(`<tenant>\0block <n>`)
 * (the fast weights of vip-weight.ts), highest first, ties by number; `onlyBest`: the first alone.
 */
function blockOrder(tenant: string, labels: BlockLabels, onlyBest: boolean): number[] {
  const w = new TenantWeights(tenant, labels);
  const hi = new Float64Array(labels.size);
  const lo = new Float64Array(labels.size);
  let best = 0;
  for (let n = 0; n < labels.size; n++) {
    w.weigh(n);
    hi[n] = w.hi;
    lo[n] = w.lo;
    if (hi[n] > hi[best] || (hi[n] === hi[best] && lo[n] > lo[best])) best = n;
  }
  if (onlyBest) return [best];
  return Array.from({ length: labels.size }, (_, n) => n).sort((a, b) => hi[b] - hi[a] || lo[b] - lo[a] || a - b);
}

const MAX_POOL = 65536;
const NONE: ReadonlySet<number> = new Set();

export function allocateVips(lab: Lab, memory: VipMemory = new Map()): VipAllocation {
  const problems: Problem[] = [];
  const vips = new Map<string, TenantVip>();
  const ranges = poolRanges(lab);
  const size = poolSize(ranges);
  const poolPath = ['management', 'loadBalancer', 'addresses'];
  const poolText = lab.management.loadBalancer.addresses.join(', ');
  if (size > MAX_POOL) {
    problems.push({
      path: poolPath,
      message: `the load-balancer pool holds ${size} addresses; VIP allocation ranks at most ${MAX_POOL}`,
      fix: 'give management.loadBalancer.addresses a range of at most a /16 for tenant VIPs',
      rule: 'vip.pool-too-large',
    });
    return { vips, problems };
  }
  const index = new Map(lab.tenants.map((t, i) => [t.name, i]));
  const described = new Map<number, string>();
  for (const tenant of lab.tenants) {
    if (tenant.vip === undefined) continue;
    const address = ipToNumber(tenant.vip) as number;
    const at = ['tenants', index.get(tenant.name) as number, 'vip'];
    if (!inPool(ranges, address)) {
      problems.push({
        path: at,
        message: `VIP ${tenant.vip} is outside the load-balancer pool (${poolText}), so MetalLB will not announce it`,
        value: tenant.vip,
        fix: 'take the VIP from management.loadBalancer.addresses, or leave vip out to allocate one',
        rule: 'vip.outside-pool',
      });
    }
    const remembered = memory.get(tenant.name);
    if (remembered !== undefined && remembered !== tenant.vip) {
      problems.push({
        path: at,
        message: `tenant ${tenant.name} has VIP ${remembered}, which the last synth gave it; vip: ${tenant.vip} would move its control-plane endpoint under its running machines, and Cluster API never changes a Cluster's controlPlaneEndpoint once set: every kubeconfig and every worker's kubelet would keep the old address`,
        value: tenant.vip,
        fix: `keep vip: ${remembered} (or leave vip out: the tenant keeps ${remembered}); to give it another endpoint, remove the tenant and add it back with the new VIP`,
        rule: 'vip.memory-moved',
      });
    }
    // Duplicate described VIPs are reported by the description rules.
    if (!described.has(address)) described.set(address, tenant.name);
    vips.set(tenant.name, { tenant: tenant.name, vip: tenant.vip, source: 'description', why: 'described' });
  }

  const automatic = lab.tenants
    .filter((t) => t.vip === undefined)
    .map((t) => t.name)
    .sort();
  if (automatic.length === 0) return { vips, problems };

  // Kept from memory: the address the last synth gave, whatever the newcomers rank.
  const kept = new Map<number, string>();
  const fresh: string[] = [];
  for (const name of automatic) {
    const remembered = memory.get(name);
    const address = remembered === undefined ? undefined : ipToNumber(remembered);
    if (remembered === undefined || address === undefined || kept.has(address)) {
      fresh.push(name);
      continue;
    }
    if (!inPool(ranges, address)) {
      problems.push({
        path: poolPath,
        message: `the load-balancer pool (${poolText}) no longer holds VIP ${remembered} of tenant ${name}, which the last synth gave it; it would have to move under its running machines, and Cluster API never changes a Cluster's controlPlaneEndpoint once set`,
        fix: `keep ${remembered} in management.loadBalancer.addresses`,
        rule: 'vip.memory-left-pool',
      });
      continue;
    }
    const owner = described.get(address);
    if (owner !== undefined) {
      problems.push({
        path: ['tenants', index.get(owner) as number, 'vip'],
        message: `VIP ${remembered} of tenant ${owner} is the VIP the last synth gave tenant ${name}; both control planes would answer on it`,
        value: remembered,
        fix: `give tenant ${owner} another VIP, or leave its vip out to allocate one`,
        rule: 'vip.memory-taken',
      });
      continue;
    }
    kept.set(address, name);
    vips.set(name, { tenant: name, vip: remembered, source: 'allocated', why: 'kept' });
  }
  // A kept VIP that is the tenant's first choice anyway is recorded as that: the output's bytes do not depend on whether a memory was there.
  if (kept.size > 0) {
    const pool = new PoolAddresses(ranges);
    const labels = pool.size > FULL_RANK ? new BlockLabels(Math.ceil(pool.size / BLOCK)) : undefined;
    for (const [address, name] of kept) {
      const first = new Ranking(name, pool, labels).next(NONE) as number;
      const v = vips.get(name) as TenantVip;
      if (first === address) v.why = 'first-choice';
      else v.firstChoice = numberToIp(first);
    }
  }
  if (fresh.length === 0) return { vips, problems };

  const taken = new Set<number>([...[...described.keys()].filter((a) => inPool(ranges, a)), ...kept.keys()]);
  const free = size - taken.size;
  if (fresh.length > free) {
    problems.push({
      path: poolPath,
      message: `the load-balancer pool is exhausted: ${fresh.length} tenant${fresh.length === 1 ? ' needs' : 's need'} a VIP (${fresh.join(', ')}) but ${free} of its ${size} addresses ${free === 1 ? 'is' : 'are'} free`,
      fix: 'add a range to management.loadBalancer.addresses (the VIPs given stay where they are: the memory keeps them)',
      rule: 'vip.pool-exhausted',
    });
    return { vips, problems };
  }

  // First choices; a free address ranked first by several new tenants goes to the first by name.
  const pool = new PoolAddresses(ranges);
  const labels = pool.size > FULL_RANK ? new BlockLabels(Math.ceil(pool.size / BLOCK)) : undefined;
  const rankings = new Map(fresh.map((name) => [name, new Ranking(name, pool, labels)]));
  const claimants = new Map<number, string[]>();
  for (const name of fresh) {
    const address = (rankings.get(name) as Ranking).next(NONE) as number;
    const list = claimants.get(address);
    if (list) list.push(name);
    else claimants.set(address, [name]);
  }
  const losers: { name: string; firstChoice: number; heldBy: string }[] = [];
  for (const [address, names] of claimants) {
    const holder = described.get(address) ?? kept.get(address);
    if (holder === undefined) {
      taken.add(address);
      vips.set(names[0], { tenant: names[0], vip: numberToIp(address), source: 'allocated', why: 'first-choice' });
    }
    for (const name of holder === undefined ? names.slice(1) : names) losers.push({ name, firstChoice: address, heldBy: holder ?? names[0] });
  }
  // Then each collided tenant, in name order, takes its best-ranked address still free.
  losers.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const { name, firstChoice, heldBy } of losers) {
    const address = (rankings.get(name) as Ranking).next(taken) as number;
    taken.add(address);
    vips.set(name, { tenant: name, vip: numberToIp(address), source: 'allocated', why: 'collision', firstChoice: numberToIp(firstChoice), heldBy });
  }
  return { vips, problems };
}

/** The memory a synth leaves: every tenant's VIP, by name (`placement.json`, `vips`). */
export function vipMemoryOf(allocation: VipAllocation): Map<string, string> {
  return new Map([...allocation.vips.values()].map((v) => [v.tenant, v.vip]));
}

/**
 * The memory recorded in a synth output's `placement.json` (its `vips`: `{ tenant, vip, why }` per
 * tenant), or undefined when it records none (written before issue 41, or not pvekaas's).
 * Entries that are not a tenant name and an IPv4 address are left out.
 */
export function vipMemoryOfPlacementJson(json: unknown): Map<string, string> | undefined {
  const vips = typeof json === 'object' && json !== null ? (json as { vips?: unknown }).vips : undefined;
  if (!Array.isArray(vips)) return undefined;
  const memory = new Map<string, string>();
  for (const entry of vips) {
    if (typeof entry !== 'object' || entry === null) continue;
    const { tenant, vip } = entry as { tenant?: unknown; vip?: unknown };
    if (typeof tenant !== 'string' || typeof vip !== 'string' || ipToNumber(vip) === undefined || memory.has(tenant)) continue;
    memory.set(tenant, vip);
  }
  return memory;
}

/** What synth records in `placement.json` (`vips`): every tenant's VIP and why, by tenant name. */
export function vipsJson(vips: Iterable<TenantVip>): Record<string, unknown>[] {
  return [...vips]
    .sort((a, b) => (a.tenant < b.tenant ? -1 : a.tenant > b.tenant ? 1 : 0))
    .map((v) => ({
      tenant: v.tenant,
      vip: v.vip,
      why: v.why,
      ...(v.firstChoice !== undefined ? { firstChoice: v.firstChoice } : {}),
      ...(v.heldBy !== undefined ? { heldBy: v.heldBy } : {}),
    }));
}
