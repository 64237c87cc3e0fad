/**
 * Synth's upgrade guard: when the output directory holds the placement.json of an earlier synth,
 * its tenants' Kubernetes versions are what runs (or is about to); an upgrade from them that cannot
 * roll — a step without a template, a surge that does not fit, more than one minor at once — is
 * refused before anything is written, with the file, line and fix of each tenant. The synth
 * command calls it; the review's scratch synths (old, then new, in one directory) do not.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { atLabFile, configErrorAt, loadLabFile } from '../../modules/config/load';
import { upgradeProblems, versionsOfPlanJson } from '../../modules/foresight/upgrade';
import { planPlacement } from '../../modules/placement';

export function refuseUnrollableUpgrades(config: string, out: string): void {
  const previous = join(resolve(out), 'placement.json');
  if (!existsSync(previous)) return;
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(previous, 'utf8'));
  } catch {
    return; // Not a plan pvekaas wrote: nothing to compare with.
  }
  const lab = loadLabFile(config);
  const problems = upgradeProblems(lab, atLabFile(config, () => planPlacement(lab)), versionsOfPlanJson(json));
  if (problems.length > 0) throw configErrorAt(config, problems);
}
