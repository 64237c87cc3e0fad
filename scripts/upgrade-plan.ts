/**
 * `npm run --silent upgrade-plan -- --config <new lab.yaml> --against <old lab.yaml> [--format markdown|json]`
 *
 * For every tenant whose Kubernetes version changes: the steps Kubernetes and CAPI require, the
 * template each step needs on each instance the tenant may use, and whether the rolling update's
 * surge fits the nodes; and every other change that replaces node groups without `previous` (a size,
 * an instance's storage, bridge or template, a VLAN), with the `previous` to write. Exit 0 when every
 * upgrade can roll and nothing is replaced without a surge, 1 when something is refused (the output
 * says why) or the descriptions are invalid.
 */
import { atLabFile, loadLabFile } from '../modules/config/load';
import { planPlacement } from '../modules/placement';
import { planUpgrades, versionsOfLab } from '../modules/foresight/upgrade';
import { renderUpgradeMarkdown, upgradeJson } from '../modules/foresight/render-upgrade';
import { parseFlags, runCommand, UsageError } from './lib/cli';
import { renderTenants } from '../modules/tenants';
import { replacementProblems, topologyMachineDeployments } from '../modules/tenants/replaced';

const usage = 'npm run --silent upgrade-plan -- --config <new lab.yaml> --against <old lab.yaml> [--format markdown|json]';

runCommand(() => {
  const flags = parseFlags(
    process.argv.slice(2),
    {
      config: { type: 'string', value: '<new lab.yaml>', help: 'the new lab description' },
      against: { type: 'string', value: '<old lab.yaml>', help: 'the old lab description' },
      format: { type: 'string', value: 'markdown|json', help: 'the report format (default: markdown)' },
    },
    usage,
    {
      about: 'For every tenant whose Kubernetes version changes: the steps, the templates each needs, and whether the surge fits.',
      exitCodes: 'exit codes: 0 every upgrade can roll; 1 one is refused (the output says why), or a usage or description error',
    },
  );
  if (!flags.config || !flags.against) throw new UsageError(`--config and --against are both needed\n\nusage: ${usage}`);
  const format = (flags.format as string | undefined) ?? 'markdown';
  if (format !== 'markdown' && format !== 'json') throw new UsageError(`--format must be markdown or json (got ${format})\n\nusage: ${usage}`);
  const lab = loadLabFile(flags.config as string);
  const old = loadLabFile(flags.against as string);
  const plan = atLabFile(flags.config as string, () => planPlacement(lab));
  const upgrades = planUpgrades(lab, plan, versionsOfLab(old));
  // Every other change that replaces node groups (a size, an instance's storage, bridge or template, a VLAN) must surge too.
  const mds = (l: typeof lab, p: typeof plan) => [...renderTenants(l, p).values()].flatMap((t) => topologyMachineDeployments(t.cluster));
  const replaced = replacementProblems(
    lab,
    mds(
      old,
      atLabFile(flags.against as string, () => planPlacement(old)),
    ),
    mds(lab, plan),
    old,
  );
  const replacedJson = replaced.map((p) => ({ path: p.path.join('.'), message: p.message, fix: p.fix }));
  if (format === 'json')
    process.stdout.write(
      `${JSON.stringify({ upgrades: upgradeJson(upgrades), ...(replaced.length > 0 ? { replacedWithoutSurge: replacedJson } : {}) }, null, 2)}\n`,
    );
  else {
    const more =
      replaced.length > 0
        ? ['', '## Node groups replaced with no surge (refused)', '', ...replacedJson.flatMap((p) => [`- ⚠️ ${p.path}: ${p.message}`, `  - fix: ${p.fix}`])]
        : [];
    process.stdout.write(
      `${[`# Upgrade plan: ${flags.against} → ${flags.config}`, '', ...renderUpgradeMarkdown(upgrades), ...more].join('\n').replace(/\n+$/, '')}\n`,
    );
  }
  if (upgrades.some((u) => !u.accepted) || replaced.length > 0) process.exitCode = 1;
});
