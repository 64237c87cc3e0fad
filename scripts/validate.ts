/**
 * `npm run --silent validate -- --config <file> [--against <old file>] [--out <synth output>]`:
 * checks a lab description without synthesizing; with --against also that every Kubernetes upgrade
 * it makes can roll and every address edit keeps the running machines (modules/foresight/address-edits.ts);
 * the VIPs the old description (or, with --out, the last synth into that output) gave are kept
 * (modules/tenants/vip.ts, "Memory"), as synth keeps them.
 *
 * It takes synth's road (`planAndRenderLab`, modules/rendering: the pure rendering, no cdktf), so it
 * refuses what synth refuses, with the same problems, and reports every one at once.
 */
import { atLabFile, configErrorAt, loadLabFile } from '../modules/config/load';
import { upgradeProblems, versionsOfLab } from '../modules/foresight/upgrade';
import { machinesAtMost, planPlacement } from '../modules/placement';
import { labWarnings } from '../modules/config/safety';
import { planAndRenderLab, renderLab, type LabRendering } from '../modules/rendering';
import type { PlacementPlan } from '../modules/placement/types';
import { replacementProblems, topologyMachineDeployments } from '../modules/tenants/replaced';
import { supportWarnings } from '../modules/management';
import { parseFlags, printWarnings, runCommand, todayUtc } from './lib/cli';
import { ProblemError, type Problem } from '../modules/config/problems';
import { addressEdits } from '../modules/foresight/address-edits';
import { allocateVips, vipMemoryOf, type VipMemory } from '../modules/tenants/vip';
import { vipMemoryOfOutput } from './lib/vip-memory';
import { datastoreMemoryOfOutput } from './lib/datastore-memory';
import { datastoreStorageClass } from '../modules/management/datastore';

const usage = 'npm run --silent validate -- --config <lab.yaml> [--against <old lab.yaml>] [--out <synth output>]';

runCommand(() => {
  const flags = parseFlags(
    process.argv.slice(2),
    {
      config: { type: 'string', value: '<lab.yaml>', help: 'the lab description (default: examples/lab.yaml)' },
      against: {
        type: 'string',
        value: '<old lab.yaml>',
        help: 'also check that every change from this description keeps its workers: upgrades can roll, replaced node groups surge, address edits keep the addresses in use; its VIPs are kept',
      },
      out: {
        type: 'string',
        value: '<synth output>',
        help: 'keep the VIPs the last synth into this output gave (its placement.json) and its datastore storage, as synth --out there would',
      },
    },
    usage,
    { about: 'Checks a lab description (schema, rules, placement, rendering) without synthesizing; every problem with its file, line, path and fix.' },
  );
  const config = (flags.config as string | undefined) ?? 'examples/lab.yaml';
  const lab = loadLabFile(config);
  const against = flags.against as string | undefined;
  const old = against !== undefined ? loadLabFile(against) : undefined;
  const oldPlan = against !== undefined && old ? atLabFile(against, () => planPlacement(old)) : undefined;
  // The VIPs to keep: the last synth's into --out, else the old description's allocation.
  let vipMemory: VipMemory | undefined = flags.out !== undefined ? vipMemoryOfOutput(flags.out as string) : undefined;
  if (vipMemory === undefined && old) vipMemory = vipMemoryOf(allocateVips(old));
  // The datastore's CSI and class: the last synth's into --out, else the old description's (modules/management/datastore.ts).
  const datastoreMemory =
    (flags.out !== undefined ? datastoreMemoryOfOutput(flags.out as string) : undefined) ??
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
    const oldRendering = atLabFile(against as string, () => renderLab(old, oldPlan, vipMemory ? { vipMemory } : {}));
    const mds = (r: LabRendering) => [...r.tenants.values()].flatMap((t) => topologyMachineDeployments(t.cluster));
    // Every node group the change replaces must surge: upgrades (their steps) and every other template change.
    problems.push(...upgradeProblems(lab, plan, versionsOfLab(old)), ...replacementProblems(lab, mds(oldRendering), mds(rendering), old));
  }
  if (problems.length > 0 || !road) throw configErrorAt(config, problems);
  const { plan, rendering } = road;
  let machines = 0;
  for (const tenant of plan.tenants) for (const pool of tenant.pools) for (const p of pool.placements) machines += machinesAtMost(p.scale);
  process.stdout.write(`${config}: valid — ${lab.proxmox.instances.length} instances, ${lab.tenants.length} tenants, ${machines} machines (at most) placed\n`);
  printWarnings(process.stdout, config, [...labWarnings(lab), ...rendering.management.warnings, ...supportWarnings(lab, todayUtc())], plan.warnings);
});
