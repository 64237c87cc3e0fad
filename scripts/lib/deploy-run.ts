/**
 * Runs a step (tofu init + apply) on stacks in dependency order, several at once where the order
 * allows, and stops at the first failure: stacks already running finish, none is started after it.
 * The result says what was applied, what failed and what was not applied, and why.
 */

export interface StackOutcome {
  ok: boolean;
  /** One line: "3 added, 0 changed, 0 destroyed" or the error. */
  summary: string;
  /** On failure: the tool's own words (its error block), secrets masked. */
  detail?: string;
  /** Stopped by an interrupt (tofu stopped gracefully and wrote its state): neither applied nor failed. */
  interrupted?: boolean;
}

export type RunEvent =
  | { kind: 'start'; stack: string; index: number; total: number }
  | { kind: 'done'; stack: string; outcome: StackOutcome; seconds: number; index: number; total: number };

export interface RunResult {
  applied: { stack: string; summary: string }[];
  failed?: { stack: string; summary: string; detail?: string };
  /** Stacks not run, with why ("depends on X, which failed", "not started: stopped after X failed"). */
  notApplied: { stack: string; why: string }[];
  /** Stacks whose run an interrupt stopped (what tofu applied before stopping is in their state). */
  interrupted: { stack: string; summary: string }[];
}

export interface RunOptions {
  /** In run order (ties keep this order). */
  stacks: string[];
  /** Each stack's dependencies; those not in `stacks` are taken as already applied. */
  dependencies: Record<string, string[]>;
  parallel: number;
  run(stack: string): Promise<StackOutcome>;
  onEvent?(event: RunEvent): void;
  /** Why no further stack may start (an interrupt), or undefined: the stacks running finish, none starts after. */
  stopped?(): string | undefined;
}

export async function runInOrder(options: RunOptions): Promise<RunResult> {
  const selected = new Set(options.stacks);
  const deps = new Map(options.stacks.map((s) => [s, (options.dependencies[s] ?? []).filter((d) => selected.has(d))]));
  const done = new Set<string>();
  const running = new Map<string, Promise<void>>();
  const result: RunResult = { applied: [], notApplied: [], interrupted: [] };
  let started = 0;
  const waiting = [...options.stacks];
  const startable = () => waiting.filter((s) => deps.get(s)!.every((d) => done.has(d)));
  while (!result.failed && (waiting.length > 0 || running.size > 0)) {
    if (options.stopped?.() && running.size === 0) break;
    for (const stack of startable()) {
      if (running.size >= Math.max(1, options.parallel) || options.stopped?.()) break;
      waiting.splice(waiting.indexOf(stack), 1);
      const index = ++started;
      options.onEvent?.({ kind: 'start', stack, index, total: options.stacks.length });
      const begin = Date.now();
      running.set(
        stack,
        options
          .run(stack)
          .catch((e: unknown): StackOutcome => ({ ok: false, summary: (e as Error).message }))
          .then((outcome) => {
            running.delete(stack);
            options.onEvent?.({ kind: 'done', stack, outcome, seconds: (Date.now() - begin) / 1000, index, total: options.stacks.length });
            if (outcome.ok) {
              done.add(stack);
              result.applied.push({ stack, summary: outcome.summary });
            } else if (outcome.interrupted) {
              result.interrupted.push({ stack, summary: outcome.summary });
            } else if (!result.failed) {
              result.failed = { stack, summary: outcome.summary, ...(outcome.detail ? { detail: outcome.detail } : {}) };
            } else {
              result.notApplied.push({ stack, why: `failed too: ${outcome.summary}` });
            }
          }),
      );
    }
    if (running.size === 0) break; // nothing can start: a dependency cycle (cannot happen with cdktf's manifest)
    await Promise.race(running.values());
  }
  // Stacks still running when the first failure came finish before the result is told.
  await Promise.all(running.values());
  for (const stack of waiting) {
    const blocked = deps.get(stack)!.filter((d) => !done.has(d));
    const stop = options.stopped?.();
    const why =
      result.failed && blocked.includes(result.failed.stack)
        ? `depends on ${result.failed.stack}, which failed`
        : result.failed
          ? `not started: stopped after ${result.failed.stack} failed`
          : stop
            ? `not started: ${stop}`
            : `waits for ${blocked.join(', ')}`;
    result.notApplied.push({ stack, why });
  }
  return result;
}

/** `a,b*,tenant-*` → a matcher of stack names (`*` matches any run of characters). */
export function stackGlob(globs: string): (stack: string) => boolean {
  const patterns = globs
    .split(',')
    .map((g) => g.trim())
    .filter(Boolean)
    .map(
      (g) =>
        new RegExp(
          `^${g
            .split('*')
            .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
            .join('.*')}$`,
        ),
    );
  return (stack) => patterns.some((p) => p.test(stack));
}
