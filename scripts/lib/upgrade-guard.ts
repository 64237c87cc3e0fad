/**
 * Synth's upgrade guard: when the output directory holds the placement.json of an earlier synth,
 * its tenants' Kubernetes versions are what runs (or is about to); an upgrade from them that cannot
 * roll — a step without a template, a surge that does not fit, more than one minor at once — is
 * refused before anything is written, with the file, line and fix of each tenant.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { configErrorAt } from '../../modules/config/load';
import type { Lab } from '../../modules/config/schema';
import { upgradeProblems, versionsOfPlanJson } from '../../modules/foresight/upgrade';
import type { PlacementPlan } from '../../modules/placement/types';

export function refuseUnrollableUpgrades(config: string, out: string, lab: Lab, plan: PlacementPlan): void {
  const previous = join(out, 'placement.json');
  if (!existsSync(previous)) return;
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(previous, 'utf8'));
  } catch {
    return; // Not a plan pvekaas wrote: nothing to compare with.
  }
  const problems = upgradeProblems(lab, plan, versionsOfPlanJson(json));
  if (problems.length > 0) throw configErrorAt(config, problems);
}
