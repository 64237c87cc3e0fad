/**
 * The `status` report (modules/foresight/status.ts compares): the readable one and the `--json`
 * document.
 */
import type { ConditionView, TenantStatus } from './status';

/** A condition in a line: its type and status, and why. */
export const describe = (c: ConditionView) =>
  `${c.type} ${c.status}${c.reason ? ` (${c.reason}${c.message ? `: ${c.message}` : ''})` : c.message ? ` (${c.message})` : ''}`;

const cell = (text: string | number | undefined) => (text === undefined || text === '' ? '-' : String(text).replace(/\|/g, '\\|'));

/** The readable report: per tenant, the control plane, the VIP, the node groups beside the plan, every machine, what is under way and what differs. */
export function renderStatusMarkdown(statuses: readonly TenantStatus[], options: { extraTenants?: readonly string[] } = {}): string {
  const lines: string[] = [];
  for (const t of statuses) {
    const cp = t.controlPlane;
    lines.push(
      `## ${t.name} (${t.mode}): ${t.asPlanned ? 'as planned' : `${t.differences.length} difference${t.differences.length === 1 ? '' : 's'} from the plan`}`,
      '',
    );
    const tcp = cp.tenantControlPlane ? `; TenantControlPlane ${cell(cp.tenantControlPlane.version)} ${cell(cp.tenantControlPlane.status)}` : '';
    const cpBad = cp.conditions.filter((c) => c.status !== 'True');
    lines.push(
      `- control plane: ${cp.version ?? 'no version'} (plan ${cp.plan}${cp.version === cp.plan ? ' ✓' : ' ✗'}), ${cp.ready ? 'ready' : 'NOT ready'}${tcp}${cpBad.length ? `; ${cpBad.map(describe).join(', ')}` : ''}`,
    );
    const addresses = t.vip.service
      ? `Service ${t.vip.service.name} ${t.vip.service.type ?? ''} ${t.vip.service.addresses.join(', ') || 'no address'}`.replace(/ +/g, ' ')
      : 'no Service';
    const vipOk = t.vip.endpoint?.split(':')[0] === t.vip.plan && (t.vip.service?.addresses.includes(t.vip.plan) ?? false);
    lines.push(`- VIP: endpoint ${t.vip.endpoint ?? 'not set'}, ${addresses} (plan ${t.vip.plan}${vipOk ? ' ✓' : ' ✗'})`);
    for (const c of t.clusters) {
      const available = c.conditions.find((x) => x.type === 'Available');
      const bad = c.conditions.filter((x) => x.status !== 'True' && x.type !== 'Available');
      lines.push(
        `- Cluster ${c.name} (${c.role}${c.instance ? `, ${c.instance}` : ''}): ${c.phase ?? 'not found'}${available ? `, Available ${available.status}` : ''}${bad.length ? `; ${bad.map(describe).join(', ')}` : ''}`,
      );
    }
    lines.push('', '| pool | instance/node | machines | plan | Ready Nodes | retiring |', '|---|---|---:|---:|---:|---:|');
    for (const g of t.groups) {
      const plan = g.plan ? (g.plan.autoscaling ? `${g.plan.autoscaling.min}..${g.plan.autoscaling.max}` : String(g.plan.replicas)) : 'none';
      const ok = g.plan
        ? g.plan.autoscaling
          ? g.machines >= g.plan.autoscaling.min && g.machines <= g.plan.autoscaling.max
          : g.machines === g.plan.replicas
        : g.machines === 0;
      lines.push(`| ${g.pool} | ${g.instance}/${g.node} | ${g.machines}${ok ? '' : ' ✗'} | ${plan} | ${g.readyNodes} | ${g.retiring || '-'} |`);
    }
    lines.push('', '| machine | pool | instance/node | VM | IP | phase | Node | Ready | version |', '|---|---|---|---:|---|---|---|---|---|');
    for (const m of t.machines) {
      const where = `${m.instance ?? '?'}/${m.node ?? '?'}`;
      const moved = m.node !== undefined && m.node !== m.group.node;
      const ready = m.nodeReady ? `${m.nodeReady.status}${m.nodeReady.status !== 'True' && m.nodeReady.reason ? ` (${m.nodeReady.reason})` : ''}` : '-';
      const tag = m.deleting ? ' (deleting)' : m.role !== 'plan' ? ` (${m.role})` : '';
      lines.push(
        `| ${cell(m.name)}${tag} | ${cell(m.pool)} | ${where}${moved ? ` ✗ (group ${m.group.node})` : ''} | ${cell(m.vmid)} | ${cell(m.addresses.join(', '))} | ${cell(m.phase)} | ${cell(m.nodeName)} | ${ready} | ${cell(m.version)} |`,
      );
    }
    if (t.machines.length === 0) lines.push('| (none) | | | | | | | | |');
    if (t.inProgress.length > 0) lines.push('', 'In progress:', ...t.inProgress.map((x) => `- ${x}`));
    if (t.differences.length > 0) lines.push('', 'Now ≠ plan:', ...t.differences.map((x) => `- ${x}`));
    lines.push('');
  }
  for (const name of options.extraTenants ?? [])
    lines.push(`Tenant ${name} runs in the management cluster but is not in the lab (deleted from it and not deployed, or another lab's).`, '');
  return `${lines.join('\n').replace(/\n+$/, '')}\n`;
}

/** The `--json` document: every tenant's status, and whether all are as planned. */
export function statusJson(
  statuses: readonly TenantStatus[],
  extraTenants: readonly string[] = [],
): { asPlanned: boolean; tenants: TenantStatus[]; notInLab: string[] } {
  return { asPlanned: statuses.every((s) => s.asPlanned) && extraTenants.length === 0, tenants: [...statuses], notInLab: [...extraTenants] };
}
