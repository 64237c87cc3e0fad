/** The plan as a report a reviewer reads in a pull request. */
import { machinesAtLeast, machinesAtMost } from '../config/scale';
import { isEmptyDiff } from './diff';
import { explainHa, explainTenant } from './explain';
import { capacityLedger, type LedgerEntry } from './ledger';
import type { NodeUsage, PlacementDiff, PlacementPlan, TenantPlan } from './types';

/** Memory for people: GiB, with one decimal only when it is not whole. */
export function formatMiB(mib: number): string {
  const gib = mib / 1024;
  return `${Number.isInteger(gib) ? gib : gib.toFixed(1)} GiB`;
}

function percent(planned: number, capacity: number): string {
  return capacity === 0 ? '–' : `${Math.round((planned / capacity) * 100)}%`;
}

/** Table cells: a `|` would end the cell, a newline the row. */
function cell(text: string | number): string {
  return String(text).replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

export function table(header: string[], rows: (string | number)[][]): string[] {
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`)];
}

const yesNo = (b: boolean) => (b ? 'yes' : 'no');

function tenantMachines(tenant: TenantPlan): string {
  const min = tenant.pools.reduce((n, p) => n + machinesAtLeast(p.scale), 0);
  const max = tenant.pools.reduce((n, p) => n + machinesAtMost(p.scale), 0);
  return min === max ? String(min) : `${min}..${max}`;
}

function tenantSection(tenant: TenantPlan): string[] {
  const ha = explainHa(tenant);
  const rows: (string | number)[][] = [];
  for (const pool of tenant.pools) {
    const size = `${pool.size.cpu} cpu, ${formatMiB(pool.size.memoryMiB)}, ${pool.size.diskGiB} GiB disk`;
    const label = pool.pinned !== undefined ? `${pool.name} (pinned to ${pool.pinned})` : pool.name;
    for (const p of pool.placements) {
      rows.push([label, size, p.instance, p.node, p.scale.kind === 'autoscaled' ? `${p.scale.min}..${p.scale.max}` : p.scale.replicas]);
    }
  }
  return [
    `### ${tenant.name} (${tenant.mode})`,
    '',
    `**Why:** ${explainTenant(tenant)}`,
    '',
    `**HA:** survives the loss of a node: ${ha.node}. Survives the loss of an instance: ${ha.instance}.`,
    '',
    ...table(['pool', 'machine size', 'instance', 'node', 'machines (min..max when autoscaled)'], rows),
    '',
    ...failoverSection(tenant),
  ];
}

/** Per failover pool: for each node it uses, where re-synth with that node down puts its machines. */
function failoverSection(tenant: TenantPlan): string[] {
  const pools = tenant.pools.filter((p) => p.failover !== undefined);
  if (pools.length === 0) return [];
  const rows = pools.flatMap((pool) =>
    pool.placements
      .filter((p) => machinesAtMost(p.scale) > 0)
      .map((p) => {
        const f = pool.failover!.find((x) => x.lost.instance === p.instance && x.lost.node === p.node);
        const to = f ? f.to.map((t) => `${t.node} (${t.instance}) +${t.replicas}`).join(', ') || '–' : 'no room (see the warnings)';
        return [pool.name, `${p.node} (${p.instance})`, machinesAtMost(p.scale), to];
      }),
  );
  return [
    `**Failover:** if one node is lost and marked \`down: true\`, re-synth puts its machines of ${pools.map((p) => p.name).join(', ')} here (autoscaled: max), checked at every synth:`,
    '',
    ...table(['pool', 'lost node', 'machines there', 're-synth adds them on'], rows),
    '',
  ];
}

const SURVIVES_NODE_LOSS =
  '*survives node loss*: every pool with machines keeps at least one running machine when any one node is lost. ' +
  'The lost machines are not rebuilt elsewhere by themselves (each machine deployment is pinned to its one node); ' +
  'they come back when the node is marked `down: true` and the tenant stacks are synthesized and applied again, ' +
  'for which pools with `failover: true` are guaranteed room.';

function nodeTenants(node: NodeUsage): string {
  return node.tenants.length === 0 ? '–' : node.tenants.map((t) => `${t.name} ${t.cpu} cpu / ${formatMiB(t.memoryMiB)}`).join(', ');
}

/** Only the changes between two plans, as markdown (the section `renderMarkdown` appends for a diff). */
export function renderDiffMarkdown(diff: PlacementDiff): string {
  return `${diffSection(diff).join('\n').replace(/\n+$/, '')}\n`;
}

function diffSection(diff: PlacementDiff): string[] {
  const lines = ['## Changes against the other description', ''];
  if (isEmptyDiff(diff)) return [...lines, 'No machine moves, appears or disappears.', ''];
  if (diff.tenants.length > 0) {
    const list = (l: string[] | null) => (l === null ? '' : l.length === 0 ? '(no machines)' : l.join(', '));
    lines.push('### Tenants', '');
    for (const t of diff.tenants) {
      if (t.before === null) lines.push(`- ${t.name}: new, on ${list(t.after)}`);
      else if (t.after === null) lines.push(`- ${t.name}: removed from ${list(t.before)}`);
      else lines.push(`- ${t.name}: ${list(t.before)} → ${list(t.after)}`);
    }
    lines.push('');
  }
  if (diff.moved.length > 0) {
    lines.push('### Machines that move', '');
    lines.push(
      ...table(
        ['tenant', 'pool', 'from', 'to', 'machines'],
        diff.moved.map((m) => [m.tenant, m.pool, `${m.from.instance}/${m.from.node}`, `${m.to.instance}/${m.to.node}`, m.replicas]),
      ),
      '',
    );
  }
  for (const [title, changes] of [
    ['Machines added', diff.added],
    ['Machines removed', diff.removed],
  ] as const) {
    if (changes.length === 0) continue;
    lines.push(`### ${title}`, '');
    lines.push(
      ...table(
        ['tenant', 'pool', 'instance', 'node', 'machines'],
        changes.map((c) => [c.tenant, c.pool, c.instance, c.node, c.replicas]),
      ),
      '',
    );
  }
  if (diff.bounds.length > 0) {
    lines.push('### Autoscaler bounds that change', '');
    lines.push(
      ...table(
        ['tenant', 'pool', 'instance', 'node', 'before (min..max)', 'after (min..max)'],
        diff.bounds.map((b) => [b.tenant, b.pool, b.instance, b.node, `${b.before.min}..${b.before.max}`, `${b.after.min}..${b.after.max}`]),
      ),
      '',
    );
  }
  if (diff.resized.length > 0) {
    lines.push('### Pools whose machine size changes (every machine is replaced)', '');
    const size = (s: { cpu: number; memoryMiB: number; diskGiB: number }) => `${s.cpu} cpu, ${formatMiB(s.memoryMiB)}, ${s.diskGiB} GiB disk`;
    lines.push(...diff.resized.map((r) => `- ${r.tenant}/${r.pool}: ${size(r.before)} → ${size(r.after)}`), '');
  }
  return lines;
}

/** A ledger entry's first cells (tenant, instance, machines, cpu, memory, disk), as both ledgers show them. */
export function ledgerReservedCells(t: LedgerEntry): (string | number)[] {
  return [t.tenant, t.instance, t.machines, t.cpu, formatMiB(t.memoryMiB), `${t.diskGiB} GiB`];
}

/** A tenant quota in words: `24 cpu / 96 GiB`, with ` / 400 GiB disk` when it names one. */
export function quotaText(q: NonNullable<LedgerEntry['quota']>): string {
  return `${q.cpu} cpu / ${formatMiB(q.memoryMiB)}${q.diskGiB !== undefined ? ` / ${q.diskGiB} GiB disk` : ''}`;
}

/** The capacity ledger as markdown: per tenant and instance what is reserved, per node the headroom. */
export function ledgerSection(plan: PlacementPlan, heading = '##'): string[] {
  const ledger = capacityLedger(plan);
  const lines = [`${heading} Capacity ledger`, '', 'Reserved at max: autoscaled pools count their max, as placement reserves them.', ''];
  const totals = new Map<string, { cpu: number; memoryMiB: number; diskGiB: number }>();
  for (const t of ledger.tenants) {
    const sum = totals.get(t.tenant) ?? { cpu: 0, memoryMiB: 0, diskGiB: 0 };
    sum.cpu += t.cpu;
    sum.memoryMiB += t.memoryMiB;
    sum.diskGiB += t.diskGiB;
    totals.set(t.tenant, sum);
  }
  const quota = (t: (typeof ledger.tenants)[number]) => {
    if (!t.quota) return '–';
    const sum = totals.get(t.tenant)!;
    const diskUse = t.quota.diskGiB !== undefined ? ` / ${percent(sum.diskGiB, t.quota.diskGiB)}` : '';
    return `${quotaText(t.quota)} (tenant uses ${percent(sum.cpu, t.quota.cpu)} / ${percent(sum.memoryMiB, t.quota.memoryMiB)}${diskUse})`;
  };
  // The volume storages column only when a tenant has persistent volumes (docs/storage.md).
  const volumes = ledger.tenants.some((t) => t.volumeStorages);
  if (ledger.tenants.length === 0) lines.push('Nothing reserved.', '');
  else {
    lines.push(
      ...table(
        [
          'tenant',
          'instance',
          'machines at max',
          'cpu reserved',
          'memory reserved',
          'disk reserved',
          ...(volumes ? ["volume storages (the tenant's alone)"] : []),
          'quota (whole tenant)',
        ],
        ledger.tenants.map((t) => [...ledgerReservedCells(t), ...(volumes ? [t.volumeStorages?.join(', ') ?? '–'] : []), quota(t)]),
      ),
      '',
    );
  }
  lines.push(
    ...table(
      ['instance', 'cpu reserved / capacity', 'memory reserved / capacity', 'headroom per node (cpu, memory)'],
      ledger.instances.map((i) => [
        i.instance,
        `${i.cpu.reserved} / ${i.cpu.capacity}`,
        `${formatMiB(i.memoryMiB.reserved)} / ${formatMiB(i.memoryMiB.capacity)}`,
        ledger.nodes
          .filter((n) => n.instance === i.instance)
          .map((n) => `${n.node} ${n.cpu.free} cpu, ${formatMiB(n.memoryMiB.free)}`)
          .join('; '),
      ]),
    ),
    '',
  );
  if (plan.surge && plan.surge.length > 0) {
    lines.push(
      `${heading}# Surge: retiring machines kept until the retire step`,
      '',
      'These previous node groups (`tenants[].previous`) stay beside the new ones until previous is removed; the headroom above already counts them (a held-back group of a staged surge: only what its old machines exceed its new ones by).',
      '',
      ...table(
        ['tenant', 'pool', 'node', 'version', 'machines', 'cpu', 'memory'],
        plan.surge.map((r) => [
          r.tenant,
          r.held ? `${r.pool} (held back: previous.stage.hold)` : r.pool,
          `${r.node} (${r.instance})`,
          r.version,
          r.machines,
          r.cpu,
          formatMiB(r.memoryMiB),
        ]),
      ),
      '',
    );
  }
  return lines;
}

/** The report: summary, per tenant why/HA/machines, per node utilisation, warnings, and the diff. */
export function renderMarkdown(plan: PlacementPlan, diff?: PlacementDiff): string {
  const instances = [...new Set(plan.nodes.map((n) => n.instance))];
  const lines = [
    '# Placement',
    '',
    `${plan.tenants.length} tenant${plan.tenants.length === 1 ? '' : 's'} on ${instances.length} instance${instances.length === 1 ? '' : 's'} ` +
      `(${instances.join(', ')}; the default is ${instances[0]}) with ${plan.nodes.length} node${plan.nodes.length === 1 ? '' : 's'}. ` +
      'Capacity is per node after the reserve; autoscaled pools hold capacity for their max.',
    '',
    '## Tenants',
    '',
  ];
  if (plan.tenants.length === 0) lines.push('No tenants.', '');
  else {
    lines.push(
      ...table(
        ['tenant', 'mode', 'instances', 'machines', 'survives node loss', 'survives instance loss'],
        plan.tenants.map((t) => [
          t.name,
          t.mode,
          t.instances.join(', ') || '–',
          tenantMachines(t),
          yesNo(t.ha.survivesNodeLoss),
          yesNo(t.ha.survivesInstanceLoss),
        ]),
      ),
      '',
      SURVIVES_NODE_LOSS,
      '',
    );
    for (const tenant of plan.tenants) lines.push(...tenantSection(tenant));
  }
  lines.push('## Nodes', '');
  lines.push(
    ...table(
      ['instance', 'node', 'cpu planned / capacity', 'cpu used', 'memory planned / capacity', 'memory used', 'tenants (planned cpu / memory)'],
      plan.nodes.map((n) => [
        n.instance,
        n.node,
        `${n.cpu.planned} / ${n.cpu.capacity}`,
        percent(n.cpu.planned, n.cpu.capacity),
        `${formatMiB(n.memoryMiB.planned)} / ${formatMiB(n.memoryMiB.capacity)}`,
        percent(n.memoryMiB.planned, n.memoryMiB.capacity),
        nodeTenants(n),
      ]),
    ),
    '',
  );
  lines.push(...ledgerSection(plan));
  lines.push('## Warnings', '');
  if (plan.warnings.length === 0) lines.push('None.', '');
  else lines.push(...plan.warnings.map((w) => `- ${w}`), '');
  if (diff) lines.push(...diffSection(diff));
  return `${lines.join('\n').replace(/\n+$/, '')}\n`;
}
