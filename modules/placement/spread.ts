/**
 * Splitting a number of identical machines over slots (instances, or the nodes of one instance)
 * by counts, never machine by machine, so that the cost does not grow with the number of machines.
 */

/**
 * The slot indices in rank order, best first (its first `slots` entries are read): which slots get
 * the extra machine of an uneven split. Called only when the split is uneven.
 */
export type RankedSlots = () => ArrayLike<number>;

/**
 * Splits `count` machines over the first `slots` slots, slot `i` holding at most `caps[i]`, so that
 * the counts of two slots differ by at most one unless the smaller one is full ("water filling").
 * When the split is uneven, the extra machines go to the best-ranked slots that have room.
 * Writes each slot's count to `out` and returns how many were placed: `count`, or the sum of
 * the caps when they cannot hold `count`, in which case every slot is filled to its cap.
 */
export function spreadCount(count: number, caps: ArrayLike<number>, slots: number, ranked: RankedSlots, out: { [i: number]: number }): number {
  let room = 0;
  for (let i = 0; i < slots; i++) room += caps[i];
  if (room <= count) {
    for (let i = 0; i < slots; i++) out[i] = caps[i];
    return room;
  }
  // The level is the largest L with sum(min(cap, L)) <= count; that sum grows with L, so bisect.
  let low = 0;
  let high = count;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    let filled = 0;
    for (let i = 0; i < slots; i++) filled += caps[i] < mid ? caps[i] : mid;
    if (filled <= count) low = mid;
    else high = mid - 1;
  }
  const level = low;
  let extra = count;
  for (let i = 0; i < slots; i++) {
    out[i] = caps[i] < level ? caps[i] : level;
    extra -= out[i];
  }
  if (extra > 0) {
    // Slots with cap > level outnumber `extra` (else the level would be higher), so this ends.
    const order = ranked();
    for (let r = 0; r < slots && extra > 0; r++) {
      const i = order[r];
      if (caps[i] > level) {
        out[i] = level + 1;
        extra--;
      }
    }
  }
  return count;
}

/** The split `spreadCount` would make if no slot were ever full: each slot's fair share. */
export function fairShare(count: number, slots: number, rankOfSlot: ArrayLike<number>, slot: number): number {
  const base = Math.floor(count / slots);
  return base + (rankOfSlot[slot] < count - base * slots ? 1 : 0);
}
