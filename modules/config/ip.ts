/** IPv4 ranges as integer intervals, for overlap checks and VIP allocation. */
export interface Ipv4Range {
  first: number;
  last: number;
  text: string;
}

export function ipToNumber(ip: string): number | undefined {
  const parts = ip.split('.');
  if (parts.length !== 4) return undefined;
  let n = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part)) return undefined;
    const v = Number(part);
    if (v > 255) return undefined;
    n = n * 256 + v;
  }
  return n;
}

export function numberToIp(n: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join('.');
}

/** Parses "a.b.c.d", "a.b.c.d-e.f.g.h" or "a.b.c.d/n" into an inclusive interval. */
export function parseRange(text: string): Ipv4Range | undefined {
  const dash = text.split('-');
  if (dash.length === 2) {
    const first = ipToNumber(dash[0]);
    const last = ipToNumber(dash[1]);
    return first === undefined || last === undefined ? undefined : { first, last, text };
  }
  const slash = text.split('/');
  if (slash.length === 2) {
    const base = ipToNumber(slash[0]);
    const bits = Number(slash[1]);
    if (base === undefined || !Number.isInteger(bits) || bits < 0 || bits > 32) return undefined;
    const size = 2 ** (32 - bits);
    const first = base - (base % size);
    return { first, last: first + size - 1, text };
  }
  const single = ipToNumber(text);
  return single === undefined ? undefined : { first: single, last: single, text };
}

export function overlaps(a: Ipv4Range, b: Ipv4Range): boolean {
  return a.first <= b.last && b.first <= a.last;
}
