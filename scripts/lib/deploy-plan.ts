/**
 * deploy's two phases (scripts/deploy.ts), with the tofu runs and the question injected so the
 * order and the decisions are tested without OpenTofu (test/delivery/deploy-plan.test.ts):
 *
 * 1. `planStacks`: every stack it will change is initialized (all of them first, one at a time),
 *    then planned into a saved plan file, in dependency order. A stack that reads the outputs of a stack this deploy changes first
 *    (cdktf's cross-stack references are terraform_remote_state reads of the dependency's state)
 *    cannot be planned yet: planned now, it would read the outputs as they are before that apply —
 *    none at all on a first deploy — and its plan would be wrong once they change. It is "deferred":
 *    listed, planned once its dependencies are applied, shown then and asked for again (with
 *    `--yes`, shown and applied). A dependency whose plan leaves its outputs as they are does not
 *    defer anything: what the dependent reads is already what it will read.
 * 2. `applyStacks`: the saved plans are applied as they were shown (`tofu apply <planfile>`: tofu
 *    refuses a plan whose state changed since, "Saved plan is stale"), in dependency order; stacks
 *    whose plan has no changes are not run.
 *
 * Every init runs first, one at a time, before any plan or apply: no init ever writes the plugin
 * cache while a plan or an apply of another stack reads it.
 */
import { countsLine, outputsChange, planCounts, type DeployPlanJson } from '../../modules/review/deploy-plan';
import { runInOrder, type RunEvent, type RunResult, type StackOutcome } from './deploy-run';

/** The StackPlan of a saved plan that tofu made. */
function plannedOf(stack: string, planned: PlanResult & { ok: true }): StackPlan {
  return { stack, kind: 'planned', changes: planned.changes, outputsChange: outputsChange(planned.json), json: planned.json, planFile: planned.planFile };
}

export type PlanResult =
  { ok: true; changes: boolean; json: DeployPlanJson; planFile: string } | { ok: false; summary: string; detail?: string; interrupted?: boolean };

export interface StackPlan {
  stack: string;
  /** planned: a saved plan; deferred: planned after `waitsFor` are applied. */
  kind: 'planned' | 'deferred';
  /** Whether applying it changes anything (deferred: taken as yes). */
  changes: boolean;
  /** Whether its outputs change (deferred: taken as yes, for the stacks that read them). */
  outputsChange: boolean;
  json?: DeployPlanJson;
  planFile?: string;
  /** Deferred (and once planned after them): the stacks of this deploy whose changed outputs it reads. */
  waitsFor?: string[];
}

export interface PlanPhaseOptions {
  stacks: string[];
  dependencies: Record<string, string[]>;
  parallel: number;
  init(stack: string): Promise<StackOutcome>;
  plan(stack: string): Promise<PlanResult>;
  onEvent?(event: RunEvent): void;
  stopped?(): string | undefined;
}

export async function planStacks(options: PlanPhaseOptions): Promise<{ plans: Map<string, StackPlan>; result: RunResult }> {
  const selected = new Set(options.stacks);
  const plans = new Map<string, StackPlan>();
  // Every init first, one at a time, before any plan: an init writes the plugin cache that a plan
  // (and an apply) of another stack reads, and OpenTofu does not lock it.
  for (const [i, stack] of options.stacks.entries()) {
    const stop = options.stopped?.();
    const initialized = stop ? { ok: false, interrupted: true, summary: `not initialized: ${stop}` } : await options.init(stack);
    if (initialized.ok) continue;
    const rest = options.stacks.slice(i + 1).map((s) => ({ stack: s, why: `not started: stopped after ${stack}${initialized.interrupted ? '' : ' failed'}` }));
    return initialized.interrupted
      ? { plans, result: { applied: [], notApplied: rest, interrupted: [{ stack, summary: initialized.summary }] } }
      : {
          plans,
          result: {
            applied: [],
            notApplied: rest,
            interrupted: [],
            failed: { stack, summary: initialized.summary, ...(initialized.detail ? { detail: initialized.detail } : {}) },
          },
        };
  }
  const result = await runInOrder({
    stacks: options.stacks,
    dependencies: options.dependencies,
    parallel: options.parallel,
    onEvent: options.onEvent,
    stopped: options.stopped,
    run: async (stack) => {
      const waitsFor = (options.dependencies[stack] ?? []).filter((d) => selected.has(d) && plans.get(d)?.outputsChange);
      if (waitsFor.length > 0) {
        plans.set(stack, { stack, kind: 'deferred', changes: true, outputsChange: true, waitsFor });
        return { ok: true, summary: `planned after ${waitsFor.join(', ')} ${waitsFor.length === 1 ? 'is' : 'are'} applied (it reads their outputs)` };
      }
      const planned = await options.plan(stack);
      if (!planned.ok) return planned;
      plans.set(stack, plannedOf(stack, planned));
      if (!planned.changes) return { ok: true, summary: 'no changes' };
      const counts = planCounts(planned.json);
      return { ok: true, summary: counts.add + counts.change + counts.destroy > 0 ? countsLine(counts) : 'outputs only (no resource changes)' };
    },
  });
  return { plans, result };
}

export interface ApplyPhaseOptions {
  plans: Map<string, StackPlan>;
  /** In run order. */
  stacks: string[];
  dependencies: Record<string, string[]>;
  parallel: number;
  /** Applies a saved plan file as it is. */
  apply(stack: string, planFile: string): Promise<StackOutcome>;
  /** A deferred stack, its dependencies applied: plans it now. */
  plan(stack: string): Promise<PlanResult>;
  /** A deferred stack's fresh plan, shown: whether it may be applied (with --yes: always; else the answer). One question at a time. */
  approve(stack: string, plan: StackPlan): Promise<boolean>;
  onEvent?(event: RunEvent): void;
  stopped?(): string | undefined;
}

/** The stacks that have something to apply (or may have: deferred), in run order. */
export function stacksToApply(plans: Map<string, StackPlan>, stacks: string[]): string[] {
  return stacks.filter((s) => plans.get(s)?.changes);
}

/**
 * Each stack's dependencies among `selected`, through those left out: a stack with an empty plan is
 * not run, yet what depends on it still waits for what it depends on (tenant → management-config →
 * management).
 */
export function dependenciesWithin(selected: string[], dependencies: Record<string, string[]>): Record<string, string[]> {
  const inside = new Set(selected);
  const reach = (stack: string, seen: Set<string>): string[] =>
    (dependencies[stack] ?? []).flatMap((d) => {
      if (seen.has(d)) return [];
      seen.add(d);
      return inside.has(d) ? [d] : reach(d, seen);
    });
  return Object.fromEntries(selected.map((s) => [s, [...new Set(reach(s, new Set()))]]));
}

export async function applyStacks(options: ApplyPhaseOptions): Promise<RunResult> {
  let asking: Promise<unknown> = Promise.resolve();
  const selected = stacksToApply(options.plans, options.stacks);
  return runInOrder({
    stacks: selected,
    dependencies: dependenciesWithin(selected, options.dependencies),
    parallel: options.parallel,
    onEvent: options.onEvent,
    stopped: options.stopped,
    run: async (stack) => {
      let plan = options.plans.get(stack)!;
      if (plan.kind === 'deferred') {
        const planned = await options.plan(stack);
        if (!planned.ok) return planned;
        plan = { ...plannedOf(stack, planned), waitsFor: plan.waitsFor };
        options.plans.set(stack, plan);
        if (!plan.changes) return { ok: true, summary: 'no changes' };
        const current = plan;
        const answer = (asking = asking.then(() => (options.stopped?.() ? false : options.approve(stack, current))));
        if (!(await answer)) {
          return options.stopped?.()
            ? { ok: false, interrupted: true, summary: 'stopped before its plan was applied: nothing applied' }
            : { ok: false, summary: 'its plan was not approved: nothing of it applied' };
        }
      }
      return options.apply(stack, plan.planFile!);
    },
  });
}
