/**
 * Synth's upgrade guard: when the output directory holds the placement.json of an earlier synth,
 * its tenants' Kubernetes versions are what runs (or is about to); an upgrade from them that cannot
 * roll — a step without a template, a surge that does not fit, more than one minor at once — is
 * refused before anything is written, with the file, line and fix of each tenant. So is any other
 * change that replaces a node group with no surge (a new size, bridge, storage, VLAN, template…):
 * the output's `machine-deployments.json` holds the machine deployments as they were rendered
 * (modules/tenants/replaced.ts; for an output written before that file, the Clusters of its JSON
 * tenant stacks). synth (JSON or --hcl), export-hcl and deploy call it; the review's scratch synths
 * (old, then new, in one directory) do not.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { atLabFile, configErrorAt, loadLabFile } from '../../modules/config/load';
import { upgradeProblems, versionsOfPlanJson } from '../../modules/foresight/upgrade';
import { planPlacement } from '../../modules/placement';
import { renderTenants } from '../../modules/tenants';
import {
  MACHINE_DEPLOYMENTS_FILE,
  machineDeploymentsOfDocument,
  replacementProblems,
  topologyClustersOfStack,
  topologyMachineDeployments,
  type RenderedMachineDeployment,
} from '../../modules/tenants/replaced';
import { vipMemoryOfOutput } from './vip-memory';

export function refuseUnrollableUpgrades(config: string, out: string, applies: (stack: string) => boolean = () => true): void {
  const previous = join(resolve(out), 'placement.json');
  if (!existsSync(previous)) return;
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(previous, 'utf8'));
  } catch {
    return; // Not a plan pvekaas wrote: nothing to compare with.
  }
  const lab = loadLabFile(config);
  const plan = atLabFile(config, () => planPlacement(lab));
  const problems = upgradeProblems(lab, plan, versionsOfPlanJson(json));
  // Every other change that replaces node groups (issue 21): against the machine deployments the output was written with.
  const before = machineDeploymentsOfOutput(out);
  if (before.length > 0) {
    const after = [...atLabFile(config, () => renderTenants(lab, plan, { vipMemory: vipMemoryOfOutput(out) })).values()]
      .filter((t) => applies(`tenant-${t.tenant.name}`))
      .flatMap((t) => topologyMachineDeployments(t.cluster));
    problems.push(...replacementProblems(lab, before, after));
  }
  // deploy: only the tenant stacks it is about to apply (--stacks) matter.
  const mine = problems.filter((p) => p.path[0] !== 'tenants' || typeof p.path[1] !== 'number' || applies(`tenant-${lab.tenants[p.path[1]]?.name}`));
  if (mine.length > 0) throw configErrorAt(config, mine);
}

/**
 * The topology machine deployments an output was synthesized with: its `machine-deployments.json`
 * (synth and export-hcl outputs, any stack format), else — an output written before that file —
 * the Clusters of its JSON tenant stacks (none for HCL stacks or no output).
 */
export function machineDeploymentsOfOutput(out: string): RenderedMachineDeployment[] {
  const file = join(resolve(out), MACHINE_DEPLOYMENTS_FILE);
  if (existsSync(file)) {
    let parsed: RenderedMachineDeployment[] | undefined;
    try {
      parsed = machineDeploymentsOfDocument(JSON.parse(readFileSync(file, 'utf8')));
    } catch {
      parsed = undefined;
    }
    // Not a file pvekaas wrote (or of another format): the stacks below are what is left to read.
    if (parsed) return parsed;
  }
  const stacks = join(resolve(out), 'stacks');
  if (!existsSync(stacks)) return [];
  const mds: RenderedMachineDeployment[] = [];
  for (const stack of readdirSync(stacks).sort()) {
    if (!stack.startsWith('tenant-')) continue;
    const file = join(stacks, stack, 'cdk.tf.json');
    if (!existsSync(file)) continue;
    try {
      for (const cluster of topologyClustersOfStack(JSON.parse(readFileSync(file, 'utf8')))) mds.push(...topologyMachineDeployments(cluster));
    } catch {
      // Not a stack pvekaas wrote: nothing to compare with.
    }
  }
  return mds;
}
