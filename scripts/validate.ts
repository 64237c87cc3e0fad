/** `npm run --silent validate -- --config <file>`: checks a lab description without synthesizing. */
import { loadLabFile } from '../modules/config/load';
import { planPlacement } from '../modules/placement';
import { parseFlags, runCommand } from './lib/cli';

const usage = 'npm run --silent validate -- --config <lab.yaml>';

runCommand(() => {
  const flags = parseFlags(process.argv.slice(2), { config: 'string' }, usage);
  const config = (flags.config as string | undefined) ?? 'examples/lab.yaml';
  const lab = loadLabFile(config);
  const plan = planPlacement(lab);
  const machines = plan.tenants.reduce((n, t) => n + t.pools.reduce((m, p) => m + p.placements.reduce((k, x) => k + (x.max ?? x.replicas), 0), 0), 0);
  process.stdout.write(
    `${config}: valid — ${lab.proxmox.instances.length} instances, ${lab.tenants.length} tenants, ${machines} machines (at most) placed\n`,
  );
  for (const warning of plan.warnings) process.stdout.write(`warning: ${warning}\n`);
});
