/**
 * `npm run --silent validate -- --config <file> [--against <old file>] [--out <synth output>]`:
 * checks a lab description without synthesizing; with --against also that every Kubernetes upgrade
 * it makes can roll and every address edit keeps the running machines (modules/foresight/address-edits.ts);
 * the VIPs the old description (or, with --out, the last synth into that output) gave are kept
 * (modules/tenants/vip.ts, "Memory"), as synth keeps them.
 *
 * It takes synth's road (scripts/lib/validate-lab.ts: `planAndRenderLab`, modules/rendering, the
 * pure rendering, no cdktf), so it refuses what synth refuses, with the same problems, and reports
 * every one at once.
 */
import { machinesAtMost } from '../modules/placement';
import { labWarnings } from '../modules/config/safety';
import { supportWarnings } from '../modules/management';
import { parseFlags, printWarnings, runCommand, todayUtc } from './lib/cli';
import { validateLab } from './lib/validate-lab';

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
  const { lab, plan, rendering } = validateLab({
    config,
    ...(flags.against !== undefined ? { against: flags.against as string } : {}),
    ...(flags.out !== undefined ? { out: flags.out as string } : {}),
  });
  let machines = 0;
  for (const tenant of plan.tenants) for (const pool of tenant.pools) for (const p of pool.placements) machines += machinesAtMost(p.scale);
  process.stdout.write(`${config}: valid — ${lab.proxmox.instances.length} instances, ${lab.tenants.length} tenants, ${machines} machines (at most) placed\n`);
  printWarnings(process.stdout, config, [...labWarnings(lab), ...rendering.management.warnings, ...supportWarnings(lab, todayUtc())], plan.warnings);
});
