/**
 * Problems the tenant rendering finds at synth time, after the description itself validated:
 * things that depend on the placement plan, on other tenants or on what released CAPMOX can do.
 * Each carries the path inside the description and a fix, like a config problem.
 */
import { formatPath, type ConfigProblem } from '../config/problems';

export class TenantRenderError extends Error {
  constructor(readonly problems: ConfigProblem[]) {
    super(
      [
        `the lab description cannot be rendered: ${problems.length} problem${problems.length === 1 ? '' : 's'}`,
        ...problems.flatMap((p) => [`  ${formatPath(p.path)}: ${p.message}`, ...(p.fix ? [`      fix: ${p.fix}`] : [])]),
      ].join('\n'),
    );
    this.name = 'TenantRenderError';
  }
}

/** Throws when there is anything to report. */
export function throwProblems(problems: readonly ConfigProblem[]): void {
  if (problems.length > 0) throw new TenantRenderError([...problems]);
}

/** The index of a tenant in the description, for paths in problems. */
export function tenantPath(tenants: readonly { name: string }[], name: string): (string | number)[] {
  return ['tenants', tenants.findIndex((t) => t.name === name)];
}
