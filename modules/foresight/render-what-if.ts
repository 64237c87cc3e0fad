/** The what-if as markdown (a section after the placement report), as JSON, and as the picture. */
import { formatMiB, machinesAtMost, renderSvg, type PlacementPlan } from '../placement';
import type { UnfitTenant } from '../placement/render-svg';
import { table } from '../placement/render-markdown';
import type { Loss, WhatIfResult } from './what-if';

const yesNo = (b: boolean) => (b ? 'yes' : 'no');
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export function describeLosses(losses: readonly Loss[]): string {
  return losses.map((l) => (l.kind === 'instance' ? `instance ${l.instance}` : `node ${l.node} (${l.instance})`)).join(', ');
}

function verdict(before: boolean, after: boolean | undefined): string {
  if (after === undefined) return `${yesNo(before)} → does not fit`;
  return before === after ? yesNo(after) : `${yesNo(before)} → **${yesNo(after)}**`;
}

export function renderWhatIfMarkdown(result: WhatIfResult, heading = '##'): string[] {
  const h3 = `${heading}#`;
  const lines = [`${heading} What if ${describeLosses(result.losses)} ${result.losses.length === 1 ? 'is' : 'are'} lost`, ''];
  lines.push(
    `Lost nodes: ${result.lostNodes.map((n) => `~~${n.node}~~ (${n.instance})`).join(', ') || 'none'}. ` +
      'Tenant control planes are Kamaji pods in the management cluster, not on these nodes: what is lost here are workers.',
    '',
  );
  if (result.tenants.length === 0) {
    lines.push('No tenant has machines on the lost nodes, and everything still fits.', '');
  } else {
    lines.push(`${h3} Machines lost`, '');
    const rows: (string | number)[][] = [];
    for (const t of result.tenants) {
      for (const p of t.pools) {
        for (const m of p.on) {
          rows.push([
            t.tenant,
            p.pool,
            m.machineDeployment,
            `${m.node} (${m.instance})`,
            m.max !== undefined ? `${m.replicas}..${m.max}` : m.replicas,
            `${p.survivors} of ${p.machines}`,
            m.stranded ? 'no: pinned to lost nodes' : 'yes',
          ]);
        }
      }
    }
    lines.push(...table(['tenant', 'pool', 'machine deployment', 'node', 'machines lost', 'pool keeps', 'can recreate elsewhere'], rows), '');
    const stranded = result.tenants.flatMap((t) => t.pools.flatMap((p) => p.on.filter((m) => m.stranded).map((m) => ({ t, p, m }))));
    if (stranded.length > 0) {
      lines.push(
        `Every machine deployment is pinned to its node (\`allowedNodes\`), so ${plural(stranded.length, 'machine deployment')} ` +
          'cannot bring ' +
          (stranded.length === 1 ? 'its' : 'their') +
          ' machines back anywhere else: CAPI recreates them on the dead node and they stay pending until the node returns, ' +
          'or until the node is marked `down: true` in the description and the tenant stacks are synthesized and deployed again — which places them as below.',
        '',
      );
    }
    lines.push(`${h3} Tenants`, '');
    lines.push(
      ...table(
        [
          'tenant',
          'pools down',
          'quorum at risk (half or more lost)',
          'survives node loss (today → after re-synth)',
          'survives instance loss (today → after re-synth)',
        ],
        result.tenants.map((t) => [
          t.tenant,
          t.pools
            .filter((p) => p.outage)
            .map((p) => p.pool)
            .join(', ') || '–',
          t.pools
            .filter((p) => p.quorumAtRisk)
            .map((p) => `${p.pool} (${p.survivors} of ${p.machines} left)`)
            .join(', ') || '–',
          verdict(t.ha.before.survivesNodeLoss, t.ha.afterResynth?.survivesNodeLoss),
          verdict(t.ha.before.survivesInstanceLoss, t.ha.afterResynth?.survivesInstanceLoss),
        ]),
      ),
      '',
    );
    const lostHa = result.tenants.flatMap((t) => t.haLost.map((c) => `- ${t.tenant} loses ${c.type} after re-synth: ${c.message}`));
    if (lostHa.length > 0) lines.push(...lostHa, '');
  }
  lines.push(`${h3} After re-synth without the lost nodes`, '');
  const replacements = result.tenants.flatMap((t) => t.replacements.map((r) => [t.tenant, r.pool, r.instance, r.node, r.replicas] as (string | number)[]));
  const moving = result.diff.tenants.filter((t) => t.before !== null && t.after !== null);
  if (moving.length > 0)
    lines.push(...moving.map((t) => `- ${t.name} changes instances: ${t.before!.join(', ') || '(none)'} → ${t.after!.join(', ') || '(none)'}`), '');
  if (replacements.length > 0)
    lines.push(
      'Where machines go that are not where they were today (autoscaled pools: min):',
      '',
      ...table(['tenant', 'pool', 'instance', 'node', 'machines'], replacements),
      '',
    );
  else lines.push('No machine needs a new place.', '');
  if (result.unplaceable.length > 0) lines.push('What no longer fits:', '', ...result.unplaceable.map((p) => `- ⚠️ ${p}`), '');
  lines.push(`${h3} Headroom per node after re-synth`, '');
  lines.push(
    ...table(
      ['instance', 'node', 'cpu free / capacity', 'memory free / capacity'],
      result.headroom.map((n) =>
        n.lost
          ? [n.instance, `~~${n.node}~~`, 'lost', 'lost']
          : [n.instance, n.node, `${n.cpu.free} / ${n.cpu.capacity}`, `${formatMiB(n.memoryMiB.free)} / ${formatMiB(n.memoryMiB.capacity)}`],
      ),
    ),
    '',
  );
  return lines;
}

/** The what-if as JSON-ready data with a fixed key order (the `whatIf` key of `placement --format json --what-if`). */
export function whatIfJson(result: WhatIfResult) {
  const ha = (h: { survivesNodeLoss: boolean; survivesInstanceLoss: boolean }) => ({
    survivesNodeLoss: h.survivesNodeLoss,
    survivesInstanceLoss: h.survivesInstanceLoss,
  });
  return {
    losses: result.losses.map((l) => (l.kind === 'instance' ? { kind: l.kind, instance: l.instance } : { kind: l.kind, instance: l.instance, node: l.node })),
    lostNodes: result.lostNodes.map((n) => ({ instance: n.instance, node: n.node })),
    tenants: result.tenants.map((t) => ({
      tenant: t.tenant,
      pools: t.pools.map((p) => ({
        pool: p.pool,
        machines: p.machines,
        lost: p.lost,
        survivors: p.survivors,
        outage: p.outage,
        quorumAtRisk: p.quorumAtRisk,
        on: p.on.map((m) => ({
          machineDeployment: m.machineDeployment,
          instance: m.instance,
          node: m.node,
          replicas: m.replicas,
          ...(m.max !== undefined ? { max: m.max } : {}),
          stranded: m.stranded,
        })),
      })),
      ha: { before: ha(t.ha.before), survivors: ha(t.ha.survivors), afterResynth: t.ha.afterResynth ? ha(t.ha.afterResynth) : null },
      haLost: t.haLost.map((c) => ({ type: c.type, reason: c.reason, message: c.message })),
      replacements: t.replacements.map((r) => ({ pool: r.pool, instance: r.instance, node: r.node, replicas: r.replicas })),
      unplaceable: [...t.unplaceable],
    })),
    unplaceable: [...result.unplaceable],
    headroom: result.headroom.map((n) => ({
      instance: n.instance,
      node: n.node,
      lost: n.lost,
      cpu: { capacity: n.cpu.capacity, free: n.cpu.free },
      memoryMiB: { capacity: n.memoryMiB.capacity, free: n.memoryMiB.free },
    })),
  };
}

/**
 * What no longer fits after re-synth, per tenant: `no machine left anywhere` when none of its machines
 * is planned, else each pool left out (re-synth drops a pool that does not fit).
 */
export function unfitTenants(result: WhatIfResult): UnfitTenant[] {
  const out: UnfitTenant[] = [];
  for (const t of result.tenants) {
    const after = result.replan.tenants.find((x) => x.name === t.tenant);
    const planned = (after?.pools ?? []).reduce((n, p) => n + p.placements.reduce((m, x) => m + machinesAtMost(x.scale), 0), 0);
    if (t.unplaceable.length === 0 && after !== undefined) continue;
    const lostPools = t.pools.filter((p) => !(after?.pools ?? []).some((q) => q.name === p.pool));
    const was = t.pools.reduce((n, p) => n + p.machines, 0);
    if (planned === 0) out.push({ tenant: t.tenant, what: `no machine left anywhere${was > 0 ? ` (had ${plural(was, 'machine')} on the lost nodes)` : ''}` });
    else if (lostPools.length > 0)
      out.push(...lostPools.map((p) => ({ tenant: t.tenant, what: `pool ${p.pool} does not fit (${plural(p.machines, 'machine')})` })));
    else out.push({ tenant: t.tenant, what: 'some machines do not fit' });
  }
  return out;
}

/** The plan after re-synth, with the lost nodes struck through and what no longer fits marked. */
export function renderWhatIfSvg(result: WhatIfResult): string {
  return renderSvg(result.replan as PlacementPlan, {
    lost: result.lostNodes,
    unfit: unfitTenants(result),
    title: `What if ${describeLosses(result.losses)} ${result.losses.length === 1 ? 'is' : 'are'} lost: the plan after re-synth`,
  });
}
