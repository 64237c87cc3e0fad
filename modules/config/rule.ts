/**
 * The shape of one validation rule of a lab description. Every rule has an id, one home (the file
 * that defines it, and only that one), a sentence saying what it refuses, the general fix, and a
 * check that returns every problem it finds. The rules are listed once, in the rule table
 * (modules/config/rule-table.ts); `checkLab` walks that table, and docs/rules.md is generated from it.
 */
import type { Problem } from './problems';
import type { Lab } from './schema';

export interface LabRule {
  /** Stable id, `area.what` (kebab case): named in docs/rules.md and carried by each problem it finds. */
  readonly id: string;
  /** What the rule refuses, in a sentence. */
  readonly refuses: string;
  /** The general fix (each problem carries its own, with the names and values of the description). */
  readonly fix: string;
  /**
   * Its problems are the cause of others at the same place (a tenant version no template can have,
   * since pvekaas refuses it): printed first there, before the ones that follow from them.
   */
  readonly cause?: boolean;
  /** Every problem the rule finds; it may run on a description that failed the schema (modules/config/lenient.ts). */
  readonly check: (lab: Lab) => Problem[];
}

/** The problems of `rules`, in table order, each tagged with the id of the rule that found it. */
export function runRules(lab: Lab, rules: readonly LabRule[]): Problem[] {
  return rules.flatMap((rule) => rule.check(lab).map((problem): Problem => ({ ...problem, rule: rule.id })));
}

/** A rule as the table lists it, before its check is attached. */
export type RuleText = Omit<LabRule, 'check'>;

/**
 * The rules of one check function that finds several kinds of problem in one walk (each problem
 * it returns names its rule id): one table entry per id, each keeping the problems of its own id.
 * A problem with an id not in `rules` is a programming error, thrown rather than dropped.
 */
export function rulesOf(check: (lab: Lab) => Problem[], rules: readonly RuleText[]): LabRule[] {
  const ids = new Set(rules.map((r) => r.id));
  const own = (lab: Lab, id: string) =>
    check(lab).filter((p) => {
      if (p.rule === undefined || !ids.has(p.rule)) throw new Error(`a problem without a listed rule id (${String(p.rule)}): ${p.message}`);
      return p.rule === id;
    });
  return rules.map((r) => ({ ...r, check: (lab: Lab) => own(lab, r.id) }));
}
