/**
 * What `deploy` shows before it applies, and when it may apply: pure parts of scripts/deploy.ts
 * (plan JSON and flags in, text and decisions out), so they are tested without OpenTofu.
 *
 * - `planCounts`: a saved plan's resource counts as `tofu plan` reports them (a replacement is one
 *   add and one destroy), and how many of them are replacements.
 * - `outputsChange`: whether a plan changes the stack's outputs — what a stack that reads them
 *   (terraform_remote_state, cdktf's cross-stack references) would see differently once applied.
 * - `confirmation` / `acceptsAnswer`: apply without asking, ask, or refuse.
 */
import { summarizePlan, type ResourceChange, type TofuPlanJson } from './plan-json';

/** The parts of `tofu show -json <planfile>` deploy reads besides `resource_changes`. */
export interface DeployPlanJson extends TofuPlanJson {
  output_changes?: Record<string, { actions?: string[] }>;
}

export interface PlanCounts {
  add: number;
  change: number;
  destroy: number;
  /** Of add and destroy, how many are one resource replaced (counted in both, as tofu does). */
  replace: number;
}

export function planCounts(plan: TofuPlanJson): PlanCounts {
  const s = summarizePlan(plan);
  return { add: s.add, change: s.change, destroy: s.destroy, replace: s.changes.filter((c) => c.action === 'replace').length };
}

/** "3 to add, 0 to change, 3 to destroy (3 replaced)". */
export function countsLine(c: PlanCounts): string {
  return `${c.add} to add, ${c.change} to change, ${c.destroy} to destroy${c.replace ? ` (${c.replace} of them replaced)` : ''}`;
}

/** Whether any output of the stack is created, changed or deleted by the plan. */
export function outputsChange(plan: DeployPlanJson): boolean {
  return Object.values(plan.output_changes ?? {}).some((o) => !(o.actions ?? []).every((a) => a === 'no-op'));
}

const SIGN: Record<ResourceChange['action'], string> = { create: '+', update: '~', delete: '-', replace: '-/+', read: '<=', 'no-op': ' ', unknown: '?' };

/** The resource changes of a plan, one line each (`+ create  <address>`), at most `limit` of them. */
export function resourceLines(plan: TofuPlanJson, limit = 12): string[] {
  const changes = summarizePlan(plan).changes;
  const lines = changes.slice(0, limit).map((c) => `${SIGN[c.action].padStart(3)} ${c.action.padEnd(7)} ${c.address}`);
  if (changes.length > limit) lines.push(`    … and ${changes.length - limit} more`);
  return lines;
}

export type Confirmation = 'plan-only' | 'apply' | 'ask' | 'refuse';

/**
 * Whether deploy applies without asking (`--yes`/`--auto-approve`), asks on the terminal (stdin is
 * one), or refuses: no terminal to ask on and no flag — then nothing is planned or applied.
 */
export function confirmation(options: { planOnly: boolean; yes: boolean; stdinIsTerminal: boolean }): Confirmation {
  if (options.planOnly) return 'plan-only';
  if (options.yes) return 'apply';
  return options.stdinIsTerminal ? 'ask' : 'refuse';
}

/** As OpenTofu's own prompt: only `yes` applies (any case of surrounding blanks); anything else, an empty line or end of input, does not. */
export function acceptsAnswer(answer: string | undefined): boolean {
  return answer !== undefined && answer.trim() === 'yes';
}

export const REFUSED_WITHOUT_TERMINAL =
  'deploy: stdin is not a terminal, so there is no one to ask before the lab is changed; nothing was planned or applied\n' +
  '  fix: pass --yes (or --auto-approve) to apply without asking, as in CI; or run deploy in a terminal to review the plan and type yes; ' +
  '--plan-only shows the plan and applies nothing';

/** `--detailed-exitcode`, as `tofu plan -detailed-exitcode`: 0 no changes, 2 changes present (1 is an error, decided elsewhere). */
export function detailedExitCode(stacks: { changes: boolean }[]): 0 | 2 {
  return stacks.some((s) => s.changes) ? 2 : 0;
}

/** One stack as deploy shows it before asking. */
export interface ShownStack {
  stack: string;
  /** Why it changes, in lab terms (from `changed`), when deploy compared with an old description. */
  reasons?: string[];
  kind: 'planned' | 'deferred';
  changes: boolean;
  json?: DeployPlanJson;
  /** Deferred: the stacks of this deploy whose changed outputs it reads. */
  waitsFor?: string[];
}

/** The plan deploy shows: lab terms first (what changes and why, what must not be missed), then each stack's counts and resources. */
export function renderDeployPlan(input: { stacks: ShownStack[]; warnings: string[]; against?: string; resourceLimit?: number }): string[] {
  const lines: string[] = [];
  const why = input.stacks.filter((s) => s.reasons?.length);
  lines.push(
    input.against ? `In lab terms (changed against ${input.against}):` : 'In lab terms: every stack of the description (no --against to compare with)',
  );
  for (const s of why) for (const r of s.reasons!) lines.push(`  ${s.stack}: ${r}`);
  if (input.warnings.length > 0) {
    lines.push('Must not miss:');
    for (const w of input.warnings) lines.push(`  ⚠ ${w}`);
  }
  lines.push('Per stack, from its saved plan (tofu show -json):');
  const total: PlanCounts = { add: 0, change: 0, destroy: 0, replace: 0 };
  let changing = 0;
  const deferred: string[] = [];
  for (const s of input.stacks) {
    if (s.kind === 'deferred') {
      deferred.push(s.stack);
      lines.push(
        `  ${s.stack}: not planned yet — it reads the outputs of ${s.waitsFor!.join(', ')}, which this deploy changes first; planned once ${s.waitsFor!.length === 1 ? 'that is' : 'those are'} applied, then shown (and asked for) again`,
      );
      continue;
    }
    if (!s.changes || !s.json) {
      lines.push(`  ${s.stack}: no changes`);
      continue;
    }
    const c = planCounts(s.json);
    changing++;
    for (const k of ['add', 'change', 'destroy', 'replace'] as const) total[k] += c[k];
    const resources = resourceLines(s.json, input.resourceLimit);
    lines.push(`  ${s.stack}: ${c.add + c.change + c.destroy === 0 ? 'outputs only (no resource changes)' : countsLine(c)}`);
    lines.push(...resources.map((l) => `    ${l}`));
  }
  lines.push(
    `Plan: ${countsLine(total)} in ${changing} stack(s)${deferred.length ? `; ${deferred.length} stack(s) planned after their dependencies (${deferred.join(', ')})` : ''}`,
  );
  return lines;
}
