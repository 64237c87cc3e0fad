/**
 * What the safety suites (safety.test.ts: the description; command-safety.test.ts: the commands)
 * share: the example lab, a command run with bounded heap, time and CPU, and a refusal caught.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { parseLab } from '../../modules/config/load';
import { ProblemError } from '../../modules/config/problems';

export const root = join(__dirname, '../..');
export const corpusDir = join(__dirname, 'corpus');
export const exampleText = readFileSync(join(root, 'examples/lab.yaml'), 'utf8');

/** CPU milliseconds (user + system) of this process's reaped children so far, from /proc/self/stat (cutime, cstime). */
export function childrenCpuMs(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

/** CPU milliseconds (user + system, every thread) this process spends in `work`, and its result. */
export function cpuOf<T>(work: () => T): { value: T; cpuMs: number } {
  const before = process.cpuUsage();
  const value = work();
  const used = process.cpuUsage(before);
  return { value, cpuMs: (used.user + used.system) / 1000 };
}

/**
 * Runs a pvekaas command with at most 200 MiB of heap and 60 s of wall time (a hang: an alias bomb
 * took minutes). `cpuMs` is the CPU time the command used: the bounds below are on it, not on wall
 * time, which a shared machine stretches several-fold while a quadratic blow-up shows in CPU too.
 */
export function cli(script: string, args: string[]): { status: number | null; stdout: string; stderr: string; cpuMs: number } {
  const started = childrenCpuMs();
  const r = spawnSync(process.execPath, ['--max-old-space-size=200', join(root, 'dist/scripts', script), ...args], {
    cwd: root,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, cpuMs: childrenCpuMs() - started };
}

/** No JavaScript stack trace in what a command printed. */
export const noStackTrace = (text: string) => expect(text).not.toMatch(/^\s+at .+[(:]\d+/m);

export function refusal(text: string, file = 'lab.yaml'): ProblemError {
  try {
    parseLab(text, file);
  } catch (e) {
    expect(e).toBeInstanceOf(ProblemError);
    return e as ProblemError;
  }
  throw new Error('expected the description to be refused');
}

export function exampleWith(change: (lab: any) => void, options?: Parameters<typeof stringify>[2]): string {
  const lab = parse(exampleText);
  change(lab);
  return stringify(lab, null, options);
}
