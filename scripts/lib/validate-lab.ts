/**
 * What `npm run validate` checks, as a function (scripts/validate.ts prints it): the description
 * loaded, then synth's road (`planAndRenderLab`, modules/rendering: the pure rendering, no cdktf),
 * with the memories synth would keep (the VIPs and the datastore storage of `out`'s last synth, else
 * of the old description), and with `against` the edit rules (address edits, upgrades, node groups
 * replaced without a surge). Every problem at once, as one `ProblemError` pointed at the file and
 * its lines; test/synth/one-road.test.ts holds that it refuses what synth refuses, with the same problems.
 */
import { atLabFile, configErrorAt, loadLabFile } from '../../modules/config/load';
import { ProblemError, type Problem } from '../../modules/config/problems';
import type { Lab } from '../../modules/config/schema';
import { addressEdits } from '../../modules/foresight/address-edits';
import { upgradeProblems, versionsOfLab } from '../../modules/foresight/upgrade';
import { datastoreStorageClass } from '../../modules/management/datastore';
import { planPlacement } from '../../modules/placement';
import type { PlacementPlan } from '../../modules/placement/types';
import { planAndRenderLab, type LabRendering } from '../../modules/rendering';
import { renderTenants } from '../../modules/tenants';
import { replacementProblems, topologyMachineDeployments } from '../../modules/tenants/replaced';
import { allocateVips, vipMemoryOf, type VipMemory } from '../../modules/tenants/vip';
import { datastoreMemoryOfOutput } from './datastore-memory';
import { vipMemoryOfOutput } from './vip-memory';

export interface ValidateOptions {
  /** The lab description. */
  config: string;
  /** The description deployed before: its VIPs are kept, and every change from it must keep the workers. */
  against?: string;
  /** A synth output: the VIPs and datastore storage its last synth gave are kept, as synth --out there would. */
  out?: string;
}

export interface Validated {
  lab: Lab;
  plan: PlacementPlan;
  rendering: LabRendering;
}

/** The description checked on synth's road; throws one `ProblemError` (at the file's lines) with every problem. */
export function validateLab(options: ValidateOptions): Validated {
  const { config, against, out } = options;
  const lab = loadLabFile(config);
  const old = against !== undefined ? loadLabFile(against) : undefined;
  const oldPlan = against !== undefined && old ? atLabFile(against, () => planPlacement(old)) : undefined;
  // The VIPs to keep: the last synth's into --out, else the old description's allocation.
  let vipMemory: VipMemory | undefined = out !== undefined ? vipMemoryOfOutput(out) : undefined;
  if (vipMemory === undefined && old) vipMemory = vipMemoryOf(allocateVips(old));
  // The datastore's CSI and class: the last synth's into --out, else the old description's (modules/management/datastore.ts).
  const datastoreMemory =
    (out !== undefined ? datastoreMemoryOfOutput(out) : undefined) ??
    (old ? { csi: old.management.datastore.csi, storageClass: datastoreStorageClass(old.management.datastore) } : undefined);
  // Every problem at once: the edits' beside those of synth's road (placement, then the rendering).
  const problems: Problem[] = [];
  if (old && oldPlan) problems.push(...addressEdits(old, oldPlan, lab).problems);
  let road: { plan: PlacementPlan; rendering: LabRendering } | undefined;
  try {
    road = planAndRenderLab(lab, { ...(vipMemory ? { vipMemory } : {}), ...(datastoreMemory ? { datastoreMemory } : {}) });
  } catch (e) {
    if (!(e instanceof ProblemError) || e.file !== undefined) throw e;
    problems.push(...e.problems);
  }
  if (old && oldPlan && road) {
    const { plan, rendering } = road;
    // The old description's node groups only (its tenants: what runs), to compare with the new ones.
    const oldTenants = atLabFile(against as string, () => renderTenants(old, oldPlan, vipMemory ? { vipMemory } : {}));
    const mds = (r: LabRendering['tenants']) => [...r.values()].flatMap((t) => topologyMachineDeployments(t.cluster));
    // Every node group the change replaces must surge: upgrades (their steps) and every other template change.
    problems.push(...upgradeProblems(lab, plan, versionsOfLab(old)), ...replacementProblems(lab, mds(oldTenants), mds(rendering.tenants), old));
  }
  if (problems.length > 0 || !road) throw configErrorAt(config, problems);
  return { lab, ...road };
}
