/**
 * Problems the tenant rendering finds at synth time, after the description itself validated:
 * things that depend on the placement plan, on other tenants or on what released CAPMOX can do.
 * Each is a `Problem` at its path in the description, thrown together as one `ProblemError`.
 */
import { problemCount, throwProblems, type Problem } from '../config/problems';

/** The first line of the rendering problems, when no file is known. */
export function renderTitle(problems: number): string {
  return `the lab description cannot be rendered: ${problemCount(problems)}`;
}

/** Throws the rendering problems as one `ProblemError`, when there is anything to report. */
export function throwRenderProblems(problems: readonly Problem[]): void {
  throwProblems(problems, renderTitle(problems.length));
}

/** The index of a tenant in the description, for paths in problems. */
export function tenantPath(tenants: readonly { name: string }[], name: string): (string | number)[] {
  return ['tenants', tenants.findIndex((t) => t.name === name)];
}
