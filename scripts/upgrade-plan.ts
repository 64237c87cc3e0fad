/**
 * `npm run --silent upgrade-plan -- --config <new lab.yaml> --against <old lab.yaml> [--format markdown|json]`
 *
 * For every tenant whose Kubernetes version changes: the steps Kubernetes and CAPI require, the
 * template each step needs on each instance the tenant may use, and whether the rolling update's
 * surge fits the nodes. Exit 0 when every upgrade can roll, 1 when one is refused (the output says
 * why) or the descriptions are invalid.
 */
import { atLabFile, loadLabFile } from '../modules/config/load';
import { planPlacement } from '../modules/placement';
import { planUpgrades, versionsOfLab } from '../modules/foresight/upgrade';
import { renderUpgradeMarkdown, upgradeJson } from '../modules/foresight/render-upgrade';
import { parseFlags, runCommand, UsageError } from './lib/cli';

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
  const upgrades = planUpgrades(lab, atLabFile(flags.config as string, () => planPlacement(lab)), versionsOfLab(old));
  if (format === 'json') process.stdout.write(`${JSON.stringify({ upgrades: upgradeJson(upgrades) }, null, 2)}\n`);
  else process.stdout.write(`${[`# Upgrade plan: ${flags.against} → ${flags.config}`, '', ...renderUpgradeMarkdown(upgrades)].join('\n').replace(/\n+$/, '')}\n`);
  if (upgrades.some((u) => !u.accepted)) process.exitCode = 1;
});
