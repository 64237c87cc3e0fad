/**
 * `npm run --silent upgrade-plan -- --config <new lab.yaml> --against <old lab.yaml> [--format markdown|json]`
 *
 * For every tenant whose Kubernetes version changes: the steps Kubernetes and CAPI require, the
 * template each step needs on each instance the tenant may use, and whether the rolling update's
 * surge fits the nodes; and every other change that replaces node groups without `previous` (a size,
 * an instance's storage, bridge or template, a VLAN), with the `previous` to write. Exit 0 when every
 * upgrade can roll and nothing is replaced without a surge, 1 when something is refused (the output
 * says why) or the descriptions are invalid.
 *
 * Where a surge does not fit a node at once (the tenant's `previous` as written, or the surge step
 * an upgrade without `previous` needs), it prints the staged surge instead (docs/tenants.md, "Staged
 * surge"): the node groups of each step, each node's capacity in each step, and the exact `previous`
 * of each step's surge and retire. The description as written is still refused (exit 1) until it
 * is step 1 of those.
 */
import { atLabFile, loadLabFile } from '../modules/config/load';
import { ProblemError } from '../modules/config/problems';
import type { Lab, Tenant } from '../modules/config/schema';
import { planPlacement, planPlacementPartial, placementTitle } from '../modules/placement';
import { previousLab, stagedSurges } from '../modules/placement/surge';
import { planUpgrades, versionsOfLab } from '../modules/foresight/upgrade';
import { renderStagedMarkdown, renderUpgradeMarkdown, stagedJson, upgradeJson } from '../modules/foresight/render-upgrade';
import { runCommand, type CommandLine } from './lib/cli';
import { COMPARED_FLAGS, REPORT_FORMAT_FLAG, comparedLabs, reportFormat } from './lib/flags';
import { renderTenants } from '../modules/tenants';
import { replacementPrevious, replacementProblems, topologyMachineDeployments } from '../modules/tenants/replaced';

const usage = 'npm run --silent upgrade-plan -- --config <new lab.yaml> --against <old lab.yaml> [--format markdown|json]';

const line: CommandLine = {
  usage,
  flags: { ...COMPARED_FLAGS, format: REPORT_FORMAT_FLAG },
  about: 'For every tenant whose Kubernetes version changes: the steps, the templates each needs, and whether the surge fits.',
  exitCodes: 'exit codes: 0 every upgrade can roll; 1 one is refused (the output says why), or a usage or description error',
};

runCommand(line, (flags) => {
  const labs = comparedLabs(flags, usage);
  const format = reportFormat(flags, usage);
  const lab = loadLabFile(labs.config);
  const old = loadLabFile(labs.against);
  // A surge that does not fit at once is shown staged below; every other placement problem refuses as before.
  const versions = versionsOfLab(old);
  const { plan, problems } = planPlacementPartial(lab);
  const file = labs.config;
  const refuse = (list: typeof problems) =>
    atLabFile(file, () => {
      if (list.length > 0) throw new ProblemError(list, { title: placementTitle(list.length) });
    });
  const surgeFit = (p: (typeof problems)[number]) => p.path.length === 3 && p.path[2] === 'previous' && isSurgeFit(p.value);
  refuse(problems.filter((p) => !surgeFit(p)));
  // Every other change that replaces node groups (a size, an instance's storage, bridge or template, a VLAN) must surge too.
  const mds = (l: typeof lab, p: typeof plan) => [...renderTenants(l, p).values()].flatMap((t) => topologyMachineDeployments(t.cluster));
  const before = mds(
    old,
    atLabFile(labs.against, () => planPlacement(old)),
  );
  const after = mds(lab, plan);
  const replaced = replacementProblems(lab, before, after, old);
  // The surge step each tenant needs (its previous as written, or the one the refusals name), staged where it does not fit.
  const extra = replacementPrevious(lab, before, after, old);
  const staged = stagedSurgesOf(lab, versions, extra);
  const stageable = new Set(staged.filter((s) => s.stages.length > 0).map((s) => s.index));
  refuse(problems.filter((p) => surgeFit(p) && !stageable.has(p.path[1] as number)));
  const upgrades = planUpgrades(lab, plan, versions);
  const stagedTenants = new Set(staged.filter((s) => s.stages.length > 0).map((s) => s.tenant));
  for (const u of upgrades.filter((x) => stagedTenants.has(x.tenant)))
    u.refusals = u.refusals.map((r) =>
      / has no room for /.test(r) ? `${r} — staged one node group at a time it fits: see "${u.tenant}: staged surge" below` : r,
    );
  const replacedJson = replaced.map((p) => ({ path: p.path.join('.'), message: p.message, fix: p.fix }));
  if (format === 'json')
    process.stdout.write(
      `${JSON.stringify(
        {
          upgrades: upgradeJson(upgrades),
          ...(replaced.length > 0 ? { replacedWithoutSurge: replacedJson } : {}),
          ...(staged.length > 0 ? { stagedSurges: stagedJson(staged) } : {}),
        },
        null,
        2,
      )}\n`,
    );
  else {
    const more =
      replaced.length > 0
        ? ['', '## Node groups replaced with no surge (refused)', '', ...replacedJson.flatMap((p) => [`- ⚠️ ${p.path}: ${p.message}`, `  - fix: ${p.fix}`])]
        : [];
    const stagedLines = staged.length > 0 ? [...(more.length > 0 ? [''] : []), ...renderStagedMarkdown(staged, surgeLabOf(lab, versions, extra))] : [];
    process.stdout.write(
      `${[`# Upgrade plan: ${labs.against} → ${labs.config}`, '', ...renderUpgradeMarkdown(upgrades), ...more, ...stagedLines].join('\n').replace(/\n+$/, '')}\n`,
    );
  }
  if (upgrades.some((u) => !u.accepted) || replaced.length > 0 || staged.some((s) => !s.fits)) process.exitCode = 1;
});

/**
 * The lab as its surge step: every tenant without `previous` given the `previous` the refusals ask
 * for — an upgrade's `{ kubernetesVersion: <old> }`, another replacement's from the old description.
 */
function surgeLabOf(lab: Lab, versions: ReadonlyMap<string, string>, replacing: ReadonlyMap<string, Record<string, unknown>>): Lab {
  return {
    ...lab,
    tenants: lab.tenants.map((t) => {
      if (t.previous) return t;
      const upgrade = versions.has(t.name) && versions.get(t.name) !== t.kubernetesVersion ? { kubernetesVersion: versions.get(t.name) } : undefined;
      const other = replacing.get(t.name);
      return upgrade || other ? { ...t, previous: { ...other, ...upgrade } as Tenant['previous'] } : t;
    }),
  };
}

/** The staged surges worth printing: a tenant whose surge does not fit at once, or whose description is a step of one. */
function stagedSurgesOf(lab: Lab, versions: ReadonlyMap<string, string>, replacing: ReadonlyMap<string, Record<string, unknown>>) {
  const surgeLab = surgeLabOf(lab, versions, replacing);
  if (!surgeLab.tenants.some((t) => t.previous)) return [];
  const { plan } = planPlacementPartial(surgeLab);
  const before = planPlacementPartial(previousLab(surgeLab));
  if (before.problems.length > 0) return [];
  return stagedSurges(surgeLab, plan, before.plan).filter((s) => !s.fits || surgeLab.tenants[s.index].previous?.stage);
}

/** A placement problem of a surge that does not fit a node (modules/placement/surge.ts puts the node's numbers in its value). */
function isSurgeFit(value: unknown): boolean {
  return value !== null && typeof value === 'object' && 'retiring' in value;
}
