/**
 * `npm run --silent validate -- --config <file> [--against <old file>]`: checks a lab description
 * without synthesizing; with --against also that every Kubernetes upgrade it makes can roll.
 */
import { atLabFile, configErrorAt, loadLabFile } from '../modules/config/load';
import { upgradeProblems, versionsOfLab } from '../modules/foresight/upgrade';
import { planPlacement } from '../modules/placement';
import { labWarnings } from '../modules/config/safety';
import { renderTenants } from '../modules/tenants';
import { replacementProblems, topologyMachineDeployments } from '../modules/tenants/replaced';
import { supportWarnings } from '../modules/management';
import { versionGuard } from '../modules/versions/lab-guard';
import { parseFlags, printWarnings, runCommand, todayUtc } from './lib/cli';

const usage = 'npm run --silent validate -- --config <lab.yaml> [--against <old lab.yaml>]';

runCommand(() => {
  const flags = parseFlags(
    process.argv.slice(2),
    {
      config: { type: 'string', value: '<lab.yaml>', help: 'the lab description (default: examples/lab.yaml)' },
      against: {
        type: 'string',
        value: '<old lab.yaml>',
        help: 'also check that every change from this description keeps its workers: upgrades can roll, replaced node groups surge',
      },
    },
    usage,
    { about: 'Checks a lab description (schema, rules, placement, rendering) without synthesizing; every problem with its file, line, path and fix.' },
  );
  const config = (flags.config as string | undefined) ?? 'examples/lab.yaml';
  const lab = loadLabFile(config);
  const plan = atLabFile(config, () => planPlacement(lab));
  const renderings = atLabFile(config, () => renderTenants(lab, plan));
  if (flags.against) {
    const against = flags.against as string;
    const old = loadLabFile(against);
    const oldRenderings = atLabFile(against, () => renderTenants(old, planPlacement(old)));
    const mds = (r: typeof renderings) => [...r.values()].flatMap((t) => topologyMachineDeployments(t.cluster));
    // Every node group the change replaces must surge: upgrades (their steps) and every other template change.
    const problems = [...upgradeProblems(lab, plan, versionsOfLab(old)), ...replacementProblems(lab, mds(oldRenderings), mds(renderings), old)];
    if (problems.length > 0) throw configErrorAt(config, problems);
  }
  let machines = 0;
  for (const tenant of plan.tenants) for (const pool of tenant.pools) for (const p of pool.placements) machines += p.max ?? p.replicas;
  process.stdout.write(`${config}: valid — ${lab.proxmox.instances.length} instances, ${lab.tenants.length} tenants, ${machines} machines (at most) placed\n`);
  printWarnings(process.stdout, config, [...labWarnings(lab), ...versionGuard(lab).warnings, ...supportWarnings(lab, todayUtc())], plan.warnings);
});
