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
import { atLabFile, loadLabFile } from '../modules/config/load';
import { planPlacement } from '../modules/placement';
import { renderTenants } from '../modules/tenants';
import { expectedTenant, renderStatusMarkdown, statusJson, tenantStatus, type TenantStatus } from '../modules/foresight/status';
import { parseFlags, runCommand, UserError } from './lib/cli';
import { kubeconfigSource, managementAccess } from './lib/kubeconfig';
import { readTenant, runningTenants } from './lib/status-read';

const usage = 'npm run --silent status -- --config <lab.yaml> [--tenant <name>]... [--kubeconfig <file>] [--context <name>] [--json]';

runCommand(async () => {
  const flags = parseFlags(
    process.argv.slice(2),
    {
      config: { type: 'string', value: '<lab.yaml>', help: 'the lab description (the plan to compare with)' },
      tenant: { type: 'string', value: '<name>', multiple: true, help: 'only this tenant (default: every tenant of the lab)' },
      kubeconfig: { type: 'string', value: '<file>', help: 'the management cluster (default: KUBECONFIG, else management.kubernetes.configPath)' },
      context: { type: 'string', value: '<name>', help: "its context (default: management.kubernetes.context for the lab's file, else current-context)" },
      json: { type: 'boolean', help: 'one JSON document: every tenant with its machines, groups, conditions, in progress and differences' },
    },
    usage,
    {
      about:
        'What runs now, per tenant, from the management cluster: control plane version and readiness, VIP, machines per pool and node with phase and Node Ready, ' +
        'what is being upgraded or retired, beside the plan, with every difference. Reads no Secret.',
      exitCodes:
        'exit codes: 0 every tenant shown runs as planned; 2 now differs from the plan; 1 the management cluster could not be read, or a usage or description error',
      check: (f) => (f.config === undefined ? ['--config <lab.yaml> is required'] : []),
    },
  );
  const file = flags.config as string;
  const lab = loadLabFile(file);
  const plan = atLabFile(file, () => planPlacement(lab));
  const renderings = atLabFile(file, () => renderTenants(lab, plan));
  const names = (flags.tenant as string[] | undefined) ?? lab.tenants.map((t) => t.name);
  const unknown = names.filter((n) => !lab.tenants.some((t) => t.name === n));
  if (unknown.length > 0)
    throw new UserError(`${file}: no tenant ${unknown.join(', ')} in the lab\n  fix: --tenant one of ${lab.tenants.map((t) => t.name).join(', ')}`);
  const access = managementAccess(
    kubeconfigSource(lab, { kubeconfig: flags.kubeconfig as string | undefined, context: flags.context as string | undefined }, process.env),
  );
  let statuses: TenantStatus[];
  let extra: string[];
  try {
    statuses = await Promise.all(
      names.map(async (name) => {
        const expected = expectedTenant(lab, plan, renderings.get(name)!);
        return tenantStatus(expected, await readTenant(access.client, expected.namespace));
      }),
    );
    // Tenants running that the lab no longer has: only when every tenant is shown.
    extra = flags.tenant ? [] : (await runningTenants(access.client)).filter((n) => !lab.tenants.some((t) => t.name === n));
  } catch (e) {
    throw new UserError(`the management cluster ${access.server} (context ${access.context} of ${access.file}) could not be read: ${(e as Error).message}`);
  } finally {
    access.client.close();
  }
  if (flags.json) process.stdout.write(`${JSON.stringify(statusJson(statuses, extra), null, 2)}\n`);
  else
    process.stdout.write(
      `# Status: ${file}, read from ${access.server} (context ${access.context})\n\n${renderStatusMarkdown(statuses, { extraTenants: extra })}`,
    );
  process.exitCode = statuses.every((s) => s.asPlanned) && extra.length === 0 ? 0 : 2;
});
