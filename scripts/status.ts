/**
 * `npm run --silent status -- --config <lab.yaml> [--tenant <name>]... [--kubeconfig <file>] [--context <name>] [--json]`
 *
 * What runs now, per tenant, beside the plan: read from the management cluster (scripts/lib/status-read.ts:
 * the Clusters, KamajiControlPlane and TenantControlPlane, the control plane Service, MachineDeployments,
 * Machines and ProxmoxMachines of the tenant's namespace; never a Secret), compared with the lab's
 * placement plan and rendering (modules/foresight/status.ts). Exit 0: every tenant shown runs as
 * planned; 2: now differs from the plan somewhere (as `audit` says 2 for drift); 1: the management
 * cluster could not be read, or a usage or description error.
 */
import { runCommand, type CommandLine } from './lib/cli';
import { MANAGEMENT_KUBECONFIG_FLAG } from './lib/flags';
import { runStatus } from './lib/status-run';

const usage = 'npm run --silent status -- --config <lab.yaml> [--tenant <name>]... [--kubeconfig <file>] [--context <name>] [--json]';

const line: CommandLine = {
  usage,
  flags: {
    config: { type: 'string', value: '<lab.yaml>', help: 'the lab description (the plan to compare with)' },
    tenant: { type: 'string', value: '<name>', multiple: true, help: 'only this tenant (default: every tenant of the lab)' },
    kubeconfig: MANAGEMENT_KUBECONFIG_FLAG,
    context: { type: 'string', value: '<name>', help: "its context (default: management.kubernetes.context for the lab's file, else current-context)" },
    json: { type: 'boolean', help: 'one JSON document: every tenant with its machines, groups, conditions, in progress and differences' },
  },
  about:
    'What runs now, per tenant, from the management cluster: control plane version and readiness, VIP, machines per pool and node with phase and Node Ready, ' +
    'what is being upgraded or retired, beside the plan, with every difference. Reads no Secret.',
  exitCodes:
    'exit codes: 0 every tenant shown runs as planned; 2 now differs from the plan; 1 the management cluster could not be read, or a usage or description error',
  check: (f) => (f.config === undefined ? ['--config <lab.yaml> is required'] : []),
};

runCommand(line, async (flags) => {
  const run = await runStatus({
    config: flags.config as string,
    tenants: flags.tenant as string[] | undefined,
    kubeconfig: flags.kubeconfig as string | undefined,
    context: flags.context as string | undefined,
    json: flags.json === true,
  });
  process.stdout.write(run.output);
  process.exitCode = run.code;
});
