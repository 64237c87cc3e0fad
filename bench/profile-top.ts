/**
 * `node dist/bench/profile-top.js <file.cpuprofile> [--top 25] [--by function|file|package] [--total]`
 *
 * The top entries of a V8 CPU profile (`node --cpu-prof`): self time summed by function (name,
 * file, line), by file, or by package (the node_modules package, pvekaas's own top directory,
 * `node:` internals, or V8's (garbage collector), (program), (idle)), with each share of the total
 * and, by function, the total time under it. What docs/development.md quotes before and after a
 * change; it reads only the profile it is given. `--total`: functions sorted by the time under them.
 */
import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const root = resolve(__dirname, '..', '..');

function where(url: string): string {
  if (!url) return '';
  const path = url.startsWith('file://') ? url.slice('file://'.length) : url;
  return path.startsWith('/') ? relative(root, path) : path;
}

function packageOf(url: string, name: string): string {
  if (!url) return name.startsWith('(') ? name : '(native)';
  const path = where(url);
  if (path.startsWith('node:')) return 'node: internals';
  const nm = path.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const parts = path.slice(nm + 'node_modules/'.length).split('/');
    return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
  }
  const [top, second] = path.split('/');
  return top === 'dist' ? `pvekaas ${second}/` : `pvekaas ${top}`;
}

function main(): void {
  const args = process.argv.slice(2);
  const file = args.find((a) => !a.startsWith('--') && !/^\d+$/.test(a));
  const topAt = args.indexOf('--top');
  const top = topAt >= 0 ? Number(args[topAt + 1]) : 25;
  const byAt = args.indexOf('--by');
  const by = byAt >= 0 ? args[byAt + 1] : 'function';
  if (!file || !['function', 'file', 'package'].includes(by)) {
    process.stderr.write('usage: profile-top <file.cpuprofile> [--top 25] [--by function|file|package]\n');
    process.exit(2);
  }
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const total = [...self.values()].reduce((a, b) => a + b, 0);

  const keyOf = (n: ProfileNode): string => {
    const { functionName, url, lineNumber } = n.callFrame;
    const name = functionName || '(anonymous)';
    if (by === 'package') return packageOf(url, name);
    if (by === 'file') return url ? where(url) : name;
    return url ? `${name}  ${where(url)}:${lineNumber + 1}` : name;
  };
  const selfBy = new Map<string, number>();
  for (const [id, t] of self) {
    const key = keyOf(nodes.get(id)!);
    selfBy.set(key, (selfBy.get(key) ?? 0) + t);
  }
  // Total (inclusive) time by function: each node's subtree, a key counted once per path.
  const totalBy = new Map<string, number>();
  if (by === 'function') {
    const subtree = new Map<number, number>();
    const sum = (id: number): number => {
      const known = subtree.get(id);
      if (known !== undefined) return known;
      const n = nodes.get(id)!;
      const t = (self.get(id) ?? 0) + (n.children ?? []).reduce((a, c) => a + sum(c), 0);
      subtree.set(id, t);
      return t;
    };
    const rootId = profile.nodes[0].id;
    sum(rootId);
    const walk = (id: number, open: Set<string>) => {
      const n = nodes.get(id)!;
      const key = keyOf(n);
      const outermost = !open.has(key);
      if (outermost) totalBy.set(key, (totalBy.get(key) ?? 0) + subtree.get(id)!);
      if (outermost) open.add(key);
      for (const c of n.children ?? []) walk(c, open);
      if (outermost) open.delete(key);
    };
    walk(rootId, new Set());
  }
  const sortTotal = args.includes('--total') && by === 'function';
  const ms = (us: number) => `${(us / 1000).toFixed(0)} ms`.padStart(9);
  const pct = (us: number) => `${((100 * us) / total).toFixed(1)} %`.padStart(7);
  process.stdout.write(`${file}: ${(total / 1e6).toFixed(2)} s sampled, ${sortTotal ? 'by total time under each function' : `self time by ${by}`}\n`);
  const order = sortTotal ? [...totalBy].sort((a, b) => b[1] - a[1]).map(([k]) => [k, selfBy.get(k) ?? 0] as const) : [...selfBy].sort((a, b) => b[1] - a[1]);
  for (const [key, t] of order.slice(0, top)) {
    const incl = by === 'function' ? `  total ${ms(totalBy.get(key) ?? t)}` : '';
    process.stdout.write(`${ms(t)} ${pct(t)}${incl}  ${key}\n`);
  }
}

main();
