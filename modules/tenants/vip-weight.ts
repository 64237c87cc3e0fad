/**
 * The rendezvous weights of the VIP allocator (modules/tenants/vip.ts), fast: the weight of a pool
 * address for a tenant is the first 64 bits of SHA-256(`<tenant>\0<address>`), big-endian — the
 * same number as before, computed here without a crypto call per address. A message of at most 55
 * bytes (every tenant name up to 39 characters) is one SHA-256 block (FIPS 180-4, 5.1.1 padding,
 * 6.2.2 computation), computed in JavaScript on reused buffers; a longer one goes through
 * node:crypto as before. test/tenants/vip.test.ts compares both with node:crypto.
 */
import { createHash } from 'node:crypto';
import { numberToIp } from '../config/ip';

const K = Int32Array.from(
  [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74,
    0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d,
    0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e,
    0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5,
    0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
  ],
  (x) => x | 0,
);
const H0 = 0x6a09e667 | 0;
const H1 = 0xbb67ae85 | 0;

const W = new Int32Array(64);
const BLOCK = new Uint8Array(64);

let outHi = 0;
let outLo = 0;

/** The first two words of the SHA-256 of the one-block message in BLOCK (already padded), as unsigned numbers, in outHi and outLo. */
function compressFirstWords(): void {
  for (let i = 0; i < 16; i++) W[i] = (BLOCK[4 * i] << 24) | (BLOCK[4 * i + 1] << 16) | (BLOCK[4 * i + 2] << 8) | BLOCK[4 * i + 3];
  for (let i = 16; i < 64; i++) {
    const x = W[i - 15];
    const y = W[i - 2];
    W[i] =
      (W[i - 16] +
        (((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3)) +
        W[i - 7] +
        (((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10))) |
      0;
  }
  let a = H0;
  let b = H1;
  let c = 0x3c6ef372 | 0;
  let d = 0xa54ff53a | 0;
  let e = 0x510e527f | 0;
  let f = 0x9b05688c | 0;
  let g = 0x1f83d9ab | 0;
  let h = 0x5be0cd19 | 0;
  for (let i = 0; i < 64; i++) {
    const t1 = (h + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + ((e & f) ^ (~e & g)) + K[i] + W[i]) | 0;
    const t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
    h = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  outHi = (a + H0) >>> 0;
  outLo = (b + H1) >>> 0;
}

/**
 * The dotted text of every address of a pool, as bytes in one flat buffer (16 bytes per address:
 * its length, then the text): made once per allocation, shared by every tenant. Addresses are
 * numbered in pool order (the ranges in order, each from first to last).
 */
export class PoolAddresses {
  readonly size: number;
  private readonly text: Uint8Array;
  constructor(readonly ranges: readonly { first: number; last: number }[]) {
    this.size = ranges.reduce((n, r) => n + (r.last - r.first + 1), 0);
    this.text = new Uint8Array(this.size * 16);
    let i = 0;
    for (const r of ranges)
      for (let a = r.first; a <= r.last; a++, i++) {
        const ip = numberToIp(a);
        this.text[i * 16] = ip.length;
        for (let k = 0; k < ip.length; k++) this.text[i * 16 + 1 + k] = ip.charCodeAt(k);
      }
  }
  /** The text bytes of the i-th address. */
  bytes(i: number): Uint8Array {
    return this.text.subarray(i * 16 + 1, i * 16 + 1 + this.text[i * 16]);
  }
  /** Copies the i-th address's text into `into` at `at`; returns its length. */
  copy(i: number, into: Uint8Array, at: number): number {
    const base = i * 16;
    const n = this.text[base];
    for (let k = 0; k < n; k++) into[at + k] = this.text[base + 1 + k];
    return n;
  }
}

/** Short texts (at most 15 bytes each) by number, weighed as the pool's addresses are: the pool's, or BlockLabels. */
export interface WeighedTexts {
  bytes(i: number): Uint8Array;
  copy(i: number, into: Uint8Array, at: number): number;
}

/** The labels `block <n>` of a large pool's blocks (modules/tenants/vip.ts), n from 0: made once per allocation. */
export class BlockLabels implements WeighedTexts {
  private readonly labels: Buffer[];
  constructor(readonly size: number) {
    this.labels = Array.from({ length: size }, (_, n) => Buffer.from(`block ${n}`, 'utf8'));
  }
  bytes(i: number): Uint8Array {
    return this.labels[i];
  }
  copy(i: number, into: Uint8Array, at: number): number {
    into.set(this.labels[i], at);
    return this.labels[i].length;
  }
}

/** A tenant's weights: `hi`, `lo` are the weight's two 32-bit halves (the weight is hi·2^32 + lo). */
export class TenantWeights {
  private readonly prefix: Buffer;
  hi = 0;
  lo = 0;
  constructor(
    tenant: string,
    private readonly pool: WeighedTexts,
  ) {
    this.prefix = Buffer.concat([Buffer.from(tenant, 'utf8'), Buffer.from([0])]);
  }

  /** Sets hi and lo to the weight of the pool's i-th address. */
  weigh(i: number): void {
    const p = this.prefix.length;
    if (p + 15 > 55) {
      const ip = this.pool.bytes(i);
      if (p + ip.length > 55) {
        const digest = createHash('sha256').update(this.prefix).update(ip).digest();
        this.hi = digest.readUInt32BE(0);
        this.lo = digest.readUInt32BE(4);
        return;
      }
    }
    // BLOCK may hold another tenant's message: the prefix is written each time (a few bytes), the rest padded.
    BLOCK.set(this.prefix, 0);
    const n = p + this.pool.copy(i, BLOCK, p);
    BLOCK[n] = 0x80;
    for (let k = n + 1; k < 62; k++) BLOCK[k] = 0;
    const bits = n * 8;
    BLOCK[62] = bits >>> 8;
    BLOCK[63] = bits & 0xff;
    compressFirstWords();
    this.hi = outHi;
    this.lo = outLo;
  }
}
