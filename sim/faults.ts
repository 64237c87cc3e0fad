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

export class FaultPlan {
  private routes: (RouteFault & { fired: number; re: RegExp })[] = [];
  private tasks: (TaskFault & { fired: number; re: RegExp })[] = [];
  private state = 1;
  /** Every fault injected so far, oldest first. */
  readonly injected: InjectedFault[] = [];

  constructor(spec: FaultSpec = {}) {
    this.set(spec);
  }

  set(spec: FaultSpec): void {
    this.routes = (spec.routes ?? []).map((f) => ({ ...f, fired: 0, re: new RegExp(f.path) }));
    this.tasks = (spec.tasks ?? []).map((f) => ({ ...f, fired: 0, re: new RegExp(f.type) }));
    this.state = (spec.seed ?? 1) >>> 0 || 1;
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
      if ((f.instance && f.instance !== instance) || (f.method && f.method.toUpperCase() !== method) || !f.re.test(path)) continue;
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
      if ((f.instance && f.instance !== instance) || !f.re.test(type) || !f.failRate) continue;
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
      if ((f.instance && f.instance !== instance) || !f.re.test(type) || f.stallMs === undefined) continue;
      if (f.times !== undefined && f.fired >= f.times) continue;
      if (!f.failRate) f.fired++;
      this.injected.push({ instance, kind: 'task-stall', what: `${type}: ${f.stallMs === 'forever' ? 'held until released' : `+${f.stallMs}ms`}` });
      return f.stallMs;
    }
    return undefined;
  }
}
