/**
 * `status` as a function (scripts/status.ts and the twin suite call it): the lab's plan and
 * rendering, every tenant asked for read from the management cluster, compared, and the report
 * with its exit code: 0 every tenant shown runs as planned, 2 now differs from the plan.
 * Throws a UserError when the lab is not valid, a tenant is not in it, or the cluster cannot be read.
 */
import { atLabFile, loadLabFile } from '../../modules/config/load';
import { planPlacement } from '../../modules/placement';
import { renderTenants } from '../../modules/tenants';
import { expectedTenant, renderStatusMarkdown, statusJson, tenantStatus, type TenantStatus } from '../../modules/foresight/status';
import { UserError } from './cli';
import { kubeconfigSource, managementAccess } from './kubeconfig';
import { readTenant, runningTenants } from './status-read';

export interface StatusOptions {
  config: string;
  /** Only these tenants (default: every tenant of the lab). */
  tenants?: string[];
  kubeconfig?: string;
  context?: string;
  json?: boolean;
  env?: Readonly<Record<string, string | undefined>>;
}

export interface StatusRun {
  code: 0 | 2;
  statuses: TenantStatus[];
  /** Tenants that run in the management cluster but are not in the lab (only when every tenant is shown). */
  notInLab: string[];
  /** What the command prints: the markdown report, or the JSON document. */
  output: string;
}

export async function runStatus(options: StatusOptions): Promise<StatusRun> {
  const file = options.config;
  const lab = loadLabFile(file);
  const plan = atLabFile(file, () => planPlacement(lab));
  const renderings = atLabFile(file, () => renderTenants(lab, plan));
  const names = options.tenants ?? lab.tenants.map((t) => t.name);
  const unknown = names.filter((n) => !lab.tenants.some((t) => t.name === n));
  if (unknown.length > 0)
    throw new UserError(`${file}: no tenant ${unknown.join(', ')} in the lab\n  fix: --tenant one of ${lab.tenants.map((t) => t.name).join(', ')}`);
  const access = managementAccess(kubeconfigSource(lab, { kubeconfig: options.kubeconfig, context: options.context }, options.env ?? process.env));
  let statuses: TenantStatus[];
  let notInLab: string[];
  try {
    statuses = await Promise.all(
      names.map(async (name) => {
        const expected = expectedTenant(lab, plan, renderings.get(name)!);
        return tenantStatus(expected, await readTenant(access.client, expected.namespace));
      }),
    );
    notInLab = options.tenants ? [] : (await runningTenants(access.client)).filter((n) => !lab.tenants.some((t) => t.name === n));
  } catch (e) {
    throw new UserError(`the management cluster ${access.server} (context ${access.context} of ${access.file}) could not be read: ${(e as Error).message}`);
  } finally {
    access.client.close();
  }
  const output = options.json
    ? `${JSON.stringify(statusJson(statuses, notInLab), null, 2)}\n`
    : `# Status: ${file}, read from ${access.server} (context ${access.context})\n\n${renderStatusMarkdown(statuses, { extraTenants: notInLab })}`;
  return { code: statuses.every((s) => s.asPlanned) && notInLab.length === 0 ? 0 : 2, statuses, notInLab, output };
}
