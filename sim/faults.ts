/**
 * Fault injection: errors and latency per route, failed and stalled tasks. Decisions come from a
 * seeded generator, so a run with the same faults and the same requests fails the same way.
 */

export interface RouteFault {
  /** Only this instance. @default every instance */
  instance?: string;
  /** HTTP method. @default any */
  method?: string;
  /** Regular expression matched against the API path, e.g. `^/nodes/[^/]+/qemu$` (no /api2/json). */
  path: string;
  /** Share of matching requests that fail, 0..1. @default 0 (latency only) when latencyMs is set, else 1 */
  errorRate?: number;
  /** Status of an injected error. @default 500 */
  status?: number;
  /** Reason of an injected error. @default 'simulated fault' (for 596: 'Connection timed out') */
  message?: string;
  /** Delay before answering a matching request. @default 0 */
  latencyMs?: number;
  /** Stop after this many injected errors. @default unlimited */
  times?: number;
}

export interface TaskFault {
  instance?: string;
  /** Regular expression matched against the task type (qmcreate, download, qmtemplate, resize, qmdestroy, ...). */
  type: string;
  /** Hold matching tasks this much longer, or until released through the admin API. */
  stallMs?: number | 'forever';
  /** Share of matching tasks that end with an error, 0..1. @default 0 */
  failRate?: number;
  /** Exit status of a failed task. @default 'simulated task failure' */
  message?: string;
  /** Stop after this many injected failures. @default unlimited */
  times?: number;
}

export interface FaultSpec {
  routes?: RouteFault[];
  tasks?: TaskFault[];
  /** Seed of the generator that decides which requests fail. @default 1 */
  seed?: number;
}

export interface InjectedFault {
  instance: string;
  kind: 'route-error' | 'latency' | 'task-failure' | 'task-stall';
  what: string;
}

/** Bounds that keep a fault spec from freezing the simulator (issue 13: a regex could). */
export const MAX_PATTERN = 200;
const MAX_SUBJECT = 512;
const MAX_FAULTS = 100;

/**
 * A pattern that cannot backtrack catastrophically: bounded length, no backreferences or
 * lookarounds, and no quantified group that itself holds a quantifier (`(a+)+`, `(a|aa)*`'s kin
 * `(x*)*`) — the star height stays 1, so matching a bounded path stays fast.
 */
function safePattern(value: unknown, where: string, problems: string[]): RegExp {
  const never = /$^/;
  if (typeof value !== 'string') {
    problems.push(`${where} must be a string (a regular expression)`);
    return never;
  }
  if (value.length > MAX_PATTERN) {
    problems.push(`${where} is ${value.length} characters long; at most ${MAX_PATTERN}`);
    return never;
  }
  if (/\\[1-9]|\\k<|\(\?<?[=!]/.test(value)) {
    problems.push(`${where}: backreferences and lookarounds are not allowed (got ${JSON.stringify(value)})`);
    return never;
  }
  if (nestedQuantifier(value)) {
    problems.push(
      `${where}: a quantified group that contains a quantifier can take exponential time; rewrite ${JSON.stringify(value)} without nesting (e.g. (a+)+ → a+)`,
    );
    return never;
  }
  try {
    return new RegExp(value);
  } catch (e) {
    problems.push(`${where}: ${(e as Error).message}`);
    return never;
  }
}

/** Whether a group holding a quantifier (or an alternation) is itself quantified. */
function nestedQuantifier(pattern: string): boolean {
  const stack: { quantified: boolean }[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '[') {
      // Skip a character class.
      i++;
      while (i < pattern.length && pattern[i] !== ']') i += pattern[i] === '\\' ? 2 : 1;
      continue;
    }
    if (c === '(') stack.push({ quantified: false });
    else if (c === ')') {
      const group = stack.pop();
      const next = pattern[i + 1];
      const quantifiedAfter = next === '*' || next === '+' || next === '?' || next === '{';
      if (group?.quantified && quantifiedAfter && next !== '?') return true;
      if (group?.quantified && stack.length) stack[stack.length - 1].quantified = true;
    } else if ((c === '*' || c === '+' || c === '{' || c === '|') && stack.length) stack[stack.length - 1].quantified = true;
  }
  return false;
}

export class FaultPlan {
  private routes: (RouteFault & { fired: number; re: RegExp })[] = [];
  private tasks: (TaskFault & { fired: number; re: RegExp })[] = [];
  private state = 1;
  /** Every fault injected so far, oldest first. */
  readonly injected: InjectedFault[] = [];

  constructor(spec: FaultSpec = {}) {
    this.set(spec);
  }

  /** Replaces the plan; refuses (naming every problem) a spec with unsafe or invalid patterns. */
  set(spec: FaultSpec): void {
    const problems: string[] = [];
    if (spec === null || typeof spec !== 'object' || Array.isArray(spec))
      throw new Error('a fault spec is an object: { routes?: [...], tasks?: [...], seed?: number }');
    const routes = Array.isArray(spec.routes) ? spec.routes : spec.routes === undefined ? [] : (problems.push('routes must be a list'), []);
    const tasks = Array.isArray(spec.tasks) ? spec.tasks : spec.tasks === undefined ? [] : (problems.push('tasks must be a list'), []);
    if (routes.length + tasks.length > MAX_FAULTS) problems.push(`at most ${MAX_FAULTS} faults (got ${routes.length + tasks.length})`);
    const compiled = <T>(list: T[], field: 'path' | 'type', where: string) =>
      list.slice(0, MAX_FAULTS).map((f, i) => {
        const re = safePattern((f as Record<string, unknown>)[field], `${where}[${i}].${field}`, problems);
        return { ...f, fired: 0, re };
      });
    const r = compiled(routes, 'path', 'routes');
    const k = compiled(tasks, 'type', 'tasks');
    if (problems.length) throw new Error(`invalid fault spec: ${problems.join('; ')}`);
    this.routes = r as (RouteFault & { fired: number; re: RegExp })[];
    this.tasks = k as (TaskFault & { fired: number; re: RegExp })[];
    this.state = Number(spec.seed ?? 1) >>> 0 || 1;
  }

  clear(): void {
    this.set({});
  }

  describe(): FaultSpec {
    const strip = <T extends { fired: number; re: RegExp }>({ fired: _f, re: _r, ...rest }: T) => rest;
    return { routes: this.routes.map(strip), tasks: this.tasks.map(strip) };
  }

  /** mulberry32: small, seedable, good enough to spread failures. */
  private random(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** What to do with a request: wait, then maybe fail. */
  forRequest(instance: string, method: string, path: string): { latencyMs: number; error?: { status: number; message: string } } {
    let latencyMs = 0;
    let error: { status: number; message: string } | undefined;
    for (const f of this.routes) {
      if ((f.instance && f.instance !== instance) || (f.method && f.method.toUpperCase() !== method) || !f.re.test(path.slice(0, MAX_SUBJECT))) continue;
      if (f.latencyMs) {
        latencyMs = Math.max(latencyMs, f.latencyMs);
        this.injected.push({ instance, kind: 'latency', what: `${method} ${path} +${f.latencyMs}ms` });
      }
      const rate = f.errorRate ?? (f.latencyMs ? 0 : 1);
      if (!error && (f.times === undefined || f.fired < f.times) && rate > 0 && this.random() < rate) {
        f.fired++;
        const status = f.status ?? 500;
        error = { status, message: f.message ?? (status === 596 ? 'Connection timed out' : 'simulated fault') };
        this.injected.push({ instance, kind: 'route-error', what: `${method} ${path} -> ${status} ${error.message}` });
      }
    }
    return { latencyMs, error };
  }

  /** The exit status to fail a task with, or undefined to let it run. */
  taskFailure(instance: string, type: string): string | undefined {
    for (const f of this.tasks) {
      if ((f.instance && f.instance !== instance) || !f.re.test(type.slice(0, MAX_SUBJECT)) || !f.failRate) continue;
      if (f.times !== undefined && f.fired >= f.times) continue;
      if (this.random() < f.failRate) {
        f.fired++;
        const message = f.message ?? 'simulated task failure';
        this.injected.push({ instance, kind: 'task-failure', what: `${type}: ${message}` });
        return message;
      }
    }
    return undefined;
  }

  /** Extra time a task is held, 'forever' until released, or undefined. */
  taskStall(instance: string, type: string): number | 'forever' | undefined {
    for (const f of this.tasks) {
      if ((f.instance && f.instance !== instance) || !f.re.test(type.slice(0, MAX_SUBJECT)) || f.stallMs === undefined) continue;
      if (f.times !== undefined && f.fired >= f.times) continue;
      if (!f.failRate) f.fired++;
      this.injected.push({ instance, kind: 'task-stall', what: `${type}: ${f.stallMs === 'forever' ? 'held until released' : `+${f.stallMs}ms`}` });
      return f.stallMs;
    }
    return undefined;
  }
}
