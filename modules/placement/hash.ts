/**
 * The fixed hash behind every ranking in placement. It is written out here rather than taken from
 * a library or the runtime so that a plan is the same on every machine, Node version and in any
 * other language that reimplements it: FNV-1a (32 bit) over the UTF-8 bytes of a name, and the
 * MurmurHash3 finaliser to mix two such hashes into a rendezvous weight.
 */

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const encoder = new TextEncoder();

/** FNV-1a over the UTF-8 bytes of `text`, as an unsigned 32-bit integer. */
export function fnv1a(text: string): number {
  let hash = FNV_OFFSET;
  let ascii = true;
  for (let i = 0; i < text.length && ascii; i++) ascii = text.charCodeAt(i) < 0x80;
  if (ascii) {
    // For ASCII, UTF-8 bytes and UTF-16 code units coincide: skip encoding (and its allocation).
    for (let i = 0; i < text.length; i++) {
      hash ^= text.charCodeAt(i);
      hash = Math.imul(hash, FNV_PRIME);
    }
    return hash >>> 0;
  }
  for (const byte of encoder.encode(text)) {
    hash ^= byte;
    hash = Math.imul(hash, FNV_PRIME);
  }
  return hash >>> 0;
}

/** MurmurHash3's 32-bit finaliser: every input bit flips about half of the output bits. */
export function fmix32(value: number): number {
  let h = value >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * The rendezvous (highest-random-weight) weight of a candidate for a key, both given as
 * `fnv1a` hashes. A key ranks its candidates by descending weight; because each weight depends
 * only on the key and that one candidate, adding a candidate changes no other candidate's weight,
 * so a key moves only when the new candidate outranks its current choice.
 */
export function rendezvousWeight(keyHash: number, candidateHash: number): number {
  // The golden-ratio constants keep a candidate whose hash equals the key's from weighing 0.
  return fmix32(Math.imul(keyHash ^ 0x9e3779b9, 0xcc9e2d51) ^ fmix32(candidateHash + 0x7f4a7c15));
}
