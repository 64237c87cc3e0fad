/**
 * Which stacks a lab change touches, and why in lab terms. Pure: the two labs, their placement
 * plans, and a content hash of each synthesized stack in; the stacks added, changed and removed
 * out, in run order. The hashes are the ground truth (bytes differ or not); the reasons come from
 * the lab diff.
 */
import type { Lab } from '../config/schema';
import type { PlacementPlan } from '../placement/types';
import type { StackChange } from './index';

export interface SynthesizedLab {
  lab: Lab;
  plan: PlacementPlan;
  /** A content hash of each stack's synthesized files (and its manifest entry), by stack name. */
  stacks: Record<string, string>;
}

/** Deploy order: every `proxmox-*`, then `management`, `management-config`, then the tenants; by name within a kind. */
export function runOrder(stacks: Iterable<string>): string[] {
  const rank = (s: string) => (s.startsWith('proxmox-') ? 0 : s === 'management' ? 1 : s === 'management-config' ? 2 : s.startsWith('tenant-') ? 3 : 4);
  return [...stacks].sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
}

const plain = (v: unknown): unknown => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));

function show(v: unknown): string {
  if (v === undefined) return '(none)';
  const text = typeof v === 'string' ? v : JSON.stringify(v);
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

/** `pools[workers].replicas` → `pool workers replicas`: list entries by their name, as the lab names them. */
function readable(path: string): string {
  return path
    .replace(/(\w+?)s?\[([^\]]+)\]\.?/g, '$1 $2 ')
    .replace(/\.(?=\w)/g, ' ')
    .trim();
}

/** Differences between two values as `path before → after` lines; lists of named objects are matched by name. */
export function diffValues(a: unknown, b: unknown, path = ''): string[] {
  if (JSON.stringify(a) === JSON.stringify(b)) return [];
  const named = (v: unknown): v is { name: string }[] =>
    Array.isArray(v) && v.every((x) => typeof x === 'object' && x !== null && typeof (x as { name?: unknown }).name === 'string');
  if (named(a) && named(b)) {
    const out: string[] = [];
    const before = new Map(a.map((x) => [x.name, x]));
    const after = new Map(b.map((x) => [x.name, x]));
    for (const [name] of before) if (!after.has(name)) out.push(`${readable(`${path}[${name}]`)} removed`);
    for (const [name, x] of after) {
      if (!before.has(name)) out.push(`${readable(`${path}[${name}]`)} added`);
      else out.push(...diffValues(before.get(name), x, `${path}[${name}]`));
    }
    return out;
  }
  const object = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (object(a) && object(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    return keys.flatMap((k) => diffValues(a[k], b[k], path ? `${path}.${k}` : k));
  }
  return [`${readable(path)} ${show(a)} → ${show(b)}`];
}

function reasonsFor(stack: string, before: SynthesizedLab, after: SynthesizedLab): string[] {
  const a = plain(before.lab) as Lab;
  const b = plain(after.lab) as Lab;
  const prefixed = (prefix: string, lines: string[]) => lines.map((l) => `${prefix}${l}`);
  const shared = [
    ...prefixed('management ', diffValues(a.management, b.management)),
    ...prefixed('capmox ', diffValues(a.capmox, b.capmox)),
    ...prefixed('delivery ', diffValues(a.delivery, b.delivery)),
  ];
  let own: string[] = [];
  if (stack.startsWith('proxmox-')) {
    const name = stack.slice('proxmox-'.length);
    const i = a.proxmox.instances.find((x) => x.name === name);
    const j = b.proxmox.instances.find((x) => x.name === name);
    own = !i ? [`instance ${name} added`] : !j ? [`instance ${name} removed from the description`] : prefixed(`instance ${name}: `, diffValues(i, j));
    own.push(
      ...prefixed(
        'proxmox ',
        diffValues(a.proxmox.reserve, b.proxmox.reserve).map((l) => `reserve ${l}`),
      ),
    );
  } else if (stack === 'management' || stack === 'management-config') {
    const instances = diffValues(
      a.proxmox.instances.map((x) => ({ name: x.name })),
      b.proxmox.instances.map((x) => ({ name: x.name })),
      'instances',
    );
    own = [...shared, ...(stack === 'management' ? instances.map((l) => `proxmox ${l} (the CAPMOX credentials it reads)`) : [])];
  } else if (stack.startsWith('tenant-')) {
    const name = stack.slice('tenant-'.length);
    const t = a.tenants.find((x) => x.name === name);
    const u = b.tenants.find((x) => x.name === name);
    own = !t ? [`tenant ${name} added`] : !u ? [`tenant ${name} removed from the description`] : prefixed(`tenant ${name}: `, diffValues(t, u));
    const p = before.plan.tenants.find((x) => x.name === name);
    const q = after.plan.tenants.find((x) => x.name === name);
    if (t && u && own.length === 0 && JSON.stringify(p) !== JSON.stringify(q))
      own.push(`tenant ${name}: its placement changes (other tenants or nodes changed)`);
    if (t && u && own.length === 0) own.push(...shared);
  }
  if (own.length > 0) return own;
  // Instance and management stacks carry per-tenant parts (a pool and a CAPMOX token per tenant and instance).
  if (!stack.startsWith('tenant-')) {
    const was = new Set(a.tenants.map((t) => t.name));
    const is = new Set(b.tenants.map((t) => t.name));
    const tenants = [
      ...[...is].filter((t) => !was.has(t)).map((t) => `tenant ${t} added`),
      ...[...was].filter((t) => !is.has(t)).map((t) => `tenant ${t} removed`),
    ];
    if (tenants.length > 0) return [`${tenants.join(', ')} (its CAPMOX pool and token)`];
  }
  const lab = [...shared, ...prefixed('proxmox ', diffValues(a.proxmox, b.proxmox))];
  if (lab.length > 0) return [`lab-wide: ${lab.slice(0, 3).join('; ')}${lab.length > 3 ? ` (and ${lab.length - 3} more)` : ''}`];
  return ['pvekaas itself changed (its sources, version or pins): the same description renders differently'];
}

/** Added and changed stacks in run order, then removed ones in reverse run order (destroy tenants first). */
export function stackChanges(before: SynthesizedLab, after: SynthesizedLab): { changes: StackChange[]; unchanged: string[] } {
  const changes: StackChange[] = [];
  const unchanged: string[] = [];
  for (const stack of runOrder(Object.keys(after.stacks))) {
    const was = before.stacks[stack];
    if (was === undefined) changes.push({ stack, change: 'added', reasons: reasonsFor(stack, before, after) });
    else if (was !== after.stacks[stack]) changes.push({ stack, change: 'changed', reasons: reasonsFor(stack, before, after) });
    else unchanged.push(stack);
  }
  for (const stack of runOrder(Object.keys(before.stacks)).reverse()) {
    if (!(stack in after.stacks)) changes.push({ stack, change: 'removed', reasons: reasonsFor(stack, before, after) });
  }
  return { changes, unchanged };
}
