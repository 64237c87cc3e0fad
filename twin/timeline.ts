/**
 * Where a twin's time goes: named phases with their wall seconds, the CPU seconds of this process
 * and everything it started (the process tree, read from /proc), and the machine's busy share over
 * the phase (from /proc/stat). Printed by the suites (test/twin/support.ts) so that a slow suite
 * says which part was slow and whether it was waiting or working (docs/twin.md, "Where the time
 * goes"). Linux only; elsewhere the CPU columns are absent.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's utime/stime (USER_HZ: 100 on every Linux architecture pvekaas runs on). */
const HZ = 100;

function readStat(pid: number | 'self'): { ppid: number; ticks: number; childTicks: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: the fields after its last ')'.
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
    // f[0] is field 3 (state): ppid is field 4, utime 14, stime 15, cutime 16, cstime 17.
    return { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]), childTicks: Number(f[13]) + Number(f[14]) };
  } catch {
    return undefined;
  }
}

/**
 * CPU seconds of this process and its descendants: each live process's own time plus what its
 * reaped children used (cutime/cstime), so a tofu run that ended still counts.
 */
export function treeCpuSeconds(root: number = process.pid): number | undefined {
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((e) => /^\d+$/.test(e));
  } catch {
    return undefined;
  }
  const children = new Map<number, number[]>();
  const stats = new Map<number, { ticks: number; childTicks: number }>();
  for (const e of entries) {
    const s = readStat(Number(e));
    if (!s) continue;
    stats.set(Number(e), s);
    children.set(s.ppid, [...(children.get(s.ppid) ?? []), Number(e)]);
  }
  if (!stats.has(root)) return undefined;
  let ticks = 0;
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.pop()!;
    const s = stats.get(pid);
    if (s) ticks += s.ticks + s.childTicks;
    queue.push(...(children.get(pid) ?? []));
  }
  return ticks / HZ;
}

/**
 * CPU seconds per command of this process's tree, live processes only (their own time), plus what
 * reaped children used (the `reaped` entry: tofu runs, jobs, openssl...).
 */
export function cpuByCommand(root: number = process.pid): Map<string, number> {
  const out = new Map<string, number>();
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((e) => /^\d+$/.test(e));
  } catch {
    return out;
  }
  const info = new Map<number, { ppid: number; comm: string; ticks: number; childTicks: number }>();
  for (const e of entries) {
    try {
      const text = readFileSync(`/proc/${e}/stat`, 'utf8');
      const comm = text.slice(text.indexOf('(') + 1, text.lastIndexOf(')'));
      const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
      info.set(Number(e), { ppid: Number(f[1]), comm, ticks: Number(f[11]) + Number(f[12]), childTicks: Number(f[13]) + Number(f[14]) });
    } catch {
      // gone meanwhile
    }
  }
  const children = new Map<number, number[]>();
  for (const [pid, i] of info) children.set(i.ppid, [...(children.get(i.ppid) ?? []), pid]);
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.pop()!;
    const i = info.get(pid);
    if (i) {
      out.set(i.comm, (out.get(i.comm) ?? 0) + i.ticks / HZ);
      out.set('reaped', (out.get('reaped') ?? 0) + i.childTicks / HZ);
    }
    queue.push(...(children.get(pid) ?? []));
  }
  return out;
}

/** The machine's busy and total jiffies so far (/proc/stat's cpu line). */
function machineTicks(): { busy: number; total: number } | undefined {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0];
    const v = line.trim().split(/\s+/).slice(1).map(Number);
    const idle = v[3] + (v[4] ?? 0);
    const total = v.reduce((a, b) => a + b, 0);
    return { busy: total - idle, total };
  } catch {
    return undefined;
  }
}

function loadAverage(): string {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
  } catch {
    return '?';
  }
}

export interface Phase {
  name: string;
  wallSeconds: number;
  cpuSeconds?: number;
  /** Share of the machine's CPU busy during the phase (every process, not only this tree), 0..1. */
  machineBusy?: number;
  loadAtEnd: string;
}

/** Consecutive phases: `mark(name)` ends the running phase under that name and starts the next. */
export class Timeline {
  readonly phases: Phase[] = [];
  private started = Date.now();
  private cpu = treeCpuSeconds();
  private machine = machineTicks();
  private readonly origin = this.started;
  private readonly originCpu = this.cpu;

  mark(name: string): Phase {
    const now = Date.now();
    const cpu = treeCpuSeconds();
    const machine = machineTicks();
    const phase: Phase = {
      name,
      wallSeconds: (now - this.started) / 1000,
      cpuSeconds: cpu !== undefined && this.cpu !== undefined ? cpu - this.cpu : undefined,
      machineBusy:
        machine && this.machine && machine.total > this.machine.total ? (machine.busy - this.machine.busy) / (machine.total - this.machine.total) : undefined,
      loadAtEnd: loadAverage(),
    };
    this.phases.push(phase);
    this.started = now;
    this.cpu = cpu;
    this.machine = machine;
    return phase;
  }

  /** A part of the running phase that ran beside another (wall only: CPU is the tree's, not the part's). */
  note(name: string, since: number): void {
    this.phases.push({ name: `  ∥ ${name}`, wallSeconds: (Date.now() - since) / 1000, loadAtEnd: loadAverage() });
  }

  /** Total wall and CPU seconds since the timeline began. */
  total(): { wallSeconds: number; cpuSeconds?: number } {
    const cpu = treeCpuSeconds();
    return { wallSeconds: (Date.now() - this.origin) / 1000, cpuSeconds: cpu !== undefined && this.originCpu !== undefined ? cpu - this.originCpu : undefined };
  }

  /** One line per phase: wall, CPU of the tree, the machine's busy share, the load at its end. */
  report(title: string): string {
    const t = this.total();
    const fmt = (p: Phase) =>
      `  ${p.name.padEnd(44)} ${p.wallSeconds.toFixed(1).padStart(7)} s wall ${p.cpuSeconds !== undefined ? `${p.cpuSeconds.toFixed(1).padStart(7)} s CPU` : ''}${p.machineBusy !== undefined ? `  machine ${Math.round(p.machineBusy * 100)}% busy` : ''}  load ${p.loadAtEnd}`;
    const commands = [...cpuByCommand()].filter(([, v]) => v >= 0.5).sort((a, b) => b[1] - a[1]);
    return [
      `[twin times] ${title}: ${t.wallSeconds.toFixed(1)} s wall${t.cpuSeconds !== undefined ? `, ${t.cpuSeconds.toFixed(1)} s CPU (this process and its children)` : ''}`,
      ...this.phases.map(fmt),
      `  CPU seconds by command (the whole process lifetime): ${commands.map(([c, v]) => `${c} ${v.toFixed(0)}`).join(', ')}`,
    ].join('\n');
  }
}
