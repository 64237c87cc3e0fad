/**
 * Placement problems (`PlacementError`, plain sentences naming a tenant and a pool) as a
 * `ConfigError`: each pointed at the tenant's pool (or its placement) in the description, with
 * the file and line, the path and the fix the sentence carries.
 */
import { configErrorAt } from '../../modules/config/load';
import type { ConfigError, ConfigProblem } from '../../modules/config/problems';
import type { Lab } from '../../modules/config/schema';

const SUBJECT = /^tenant ([a-z0-9-]+)(?:, pool ([a-z0-9-]+))?/;

export function placementProblem(lab: Lab, sentence: string): ConfigProblem {
  const [what, ...fix] = sentence.split('; fix: ');
  const match = SUBJECT.exec(what);
  const ti = match ? lab.tenants.findIndex((t) => t.name === match[1]) : -1;
  let path: (string | number)[] = [];
  if (ti >= 0) {
    const pi = match?.[2] !== undefined ? lab.tenants[ti].pools.findIndex((p) => p.name === match[2]) : -1;
    path = pi >= 0 ? ['tenants', ti, 'pools', pi] : what.includes('placement.instances') ? ['tenants', ti, 'placement', 'instances'] : ['tenants', ti];
  }
  return {
    path,
    message: what,
    fix: fix.length > 0 ? fix.join('; fix: ') : 'see the placement report (npm run --silent placement) for the capacity of each node',
  };
}

/** The placement problems of a lab file as one error with lines. */
export function placementConfigError(file: string, lab: Lab, sentences: readonly string[]): ConfigError {
  return configErrorAt(file, sentences.map((s) => placementProblem(lab, s)));
}
