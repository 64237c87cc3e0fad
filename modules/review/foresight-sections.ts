/**
 * The review's foresight sections (issue 16), for the tenants a pull request touches: what one
 * host failing does to them, their upgrades (steps, templates, surge; refusals join "Must not
 * miss"), and their capacity ledger. Each returns undefined when no tenant is concerned.
 */
import { diffPlacement, capacityLedger, formatMiB } from '../placement';
import { ledgerReservedCells, quotaText, table } from '../placement/render-markdown';
import type { NodeRef } from '../placement/types';
import { whatIf, type WhatIfResult } from '../foresight/what-if';
import { planUpgrades, upgradeProblems, versionsOfLab } from '../foresight/upgrade';
import { renderUpgradeMarkdown } from '../foresight/render-upgrade';
import type { ReviewInput, ReviewSection } from './index';

/** Tenants of the new description that the change touches: new, moved, resized, rescaled, re-versioned or re-quota'd. */
export function touchedTenants(input: ReviewInput): string[] {
  const { before, after } = input;
  const diff = diffPlacement(before.plan, after.plan);
  const names = new Set<string>([
    ...diff.tenants.map((t) => t.name),
    ...[...diff.moved, ...diff.added, ...diff.removed, ...diff.bounds, ...diff.resized].map((c) => c.tenant),
  ]);
  const old = new Map(before.lab.tenants.map((t) => [t.name, t]));
  for (const t of after.lab.tenants) {
    const was = old.get(t.name);
    if (!was || was.kubernetesVersion !== t.kubernetesVersion || JSON.stringify(was.quota) !== JSON.stringify(t.quota)) names.add(t.name);
  }
  const present = new Set(after.plan.tenants.map((t) => t.name));
  return [...names].filter((n) => present.has(n)).sort();
}

export const ifOneHostFails: ReviewSection = (input) => {
  const touched = touchedTenants(input);
  if (touched.length === 0) return undefined;
  const { lab, plan } = input.after;
  const cache = new Map<string, WhatIfResult>();
  const rows: (string | number)[][] = [];
  for (const name of touched) {
    const tenant = plan.tenants.find((t) => t.name === name)!;
    const nodes: NodeRef[] = [];
    for (const pool of tenant.pools)
      for (const p of pool.placements)
        if (!nodes.some((n) => n.instance === p.instance && n.node === p.node)) nodes.push({ instance: p.instance, node: p.node });
    let worst: { node: NodeRef; result: WhatIfResult; lost: number } | undefined;
    for (const node of nodes) {
      const key = `${node.instance}/${node.node}`;
      let result = cache.get(key);
      if (!result) cache.set(key, (result = whatIf(lab, plan, [{ kind: 'node', instance: node.instance, node: node.node }])));
      const impact = result.tenants.find((t) => t.tenant === name);
      const lost = impact?.pools.reduce((n, p) => n + p.lost, 0) ?? 0;
      if (!worst || lost > worst.lost) worst = { node, result, lost };
    }
    if (!worst) {
      rows.push([name, '–', 0, '–', '–', 'nothing to lose (no machines at min)']);
      continue;
    }
    const impact = worst.result.tenants.find((t) => t.tenant === name);
    const down = impact?.pools.filter((p) => p.outage).map((p) => p.pool) ?? [];
    const quorum = impact?.pools.filter((p) => p.quorumAtRisk && !p.outage).map((p) => p.pool) ?? [];
    const after = impact?.ha.afterResynth;
    rows.push([
      name,
      `${worst.node.node} (${worst.node.instance})`,
      worst.lost,
      down.join(', ') || '–',
      quorum.join(', ') || '–',
      impact?.unplaceable.length
        ? 'does not fit'
        : after
          ? `node loss: ${after.survivesNodeLoss ? 'yes' : 'no'}, instance loss: ${after.survivesInstanceLoss ? 'yes' : 'no'}`
          : '–',
    ]);
  }
  return {
    title: 'If one host fails',
    lines: [
      'For each tenant this change touches, the node whose loss costs it the most machines (`npm run placement -- --what-if "node <name>"` shows all of it). Machine deployments are pinned to their node: lost machines come back only with the node or after re-synth.',
      '',
      ...table(['tenant', 'worst host to lose', 'machines lost', 'pools down', 'quorum at risk', 'after re-synth without it survives'], rows),
    ],
  };
};

const trimEnd = (lines: string[]) => {
  const out = [...lines];
  while (out.length > 0 && out[out.length - 1] === '') out.pop();
  return out;
};

export const upgradeSection: ReviewSection = (input) => {
  const previous = versionsOfLab(input.before.lab);
  const upgrades = planUpgrades(input.after.lab, input.after.plan, previous);
  if (upgrades.length === 0) return undefined;
  const problems = upgradeProblems(input.after.lab, input.after.plan, previous);
  return {
    title: 'Upgrades',
    lines: trimEnd(renderUpgradeMarkdown(upgrades, '####')),
    warnings: problems.map((p) => `${p.message}; fix: ${p.fix}`),
  };
};

export const capacitySection: ReviewSection = (input) => {
  const touched = new Set(touchedTenants(input));
  if (touched.size === 0) return undefined;
  const ledger = capacityLedger(input.after.plan);
  const entries = ledger.tenants.filter((t) => touched.has(t.tenant));
  if (entries.length === 0) return undefined;
  const used = new Set(
    input.after.plan.tenants.filter((t) => touched.has(t.name)).flatMap((t) => t.pools.flatMap((p) => p.placements.map((x) => `${x.instance}/${x.node}`))),
  );
  return {
    title: 'Capacity ledger',
    lines: [
      'Reserved at max by the tenants this change touches, and the headroom of the nodes they use:',
      '',
      ...table(
        ['tenant', 'instance', 'machines at max', 'cpu', 'memory', 'disk', 'quota (whole tenant)'],
        entries.map((t) => [...ledgerReservedCells(t), t.quota ? quotaText(t.quota) : '–']),
      ),
      '',
      ...table(
        ['instance', 'node', 'cpu free / capacity', 'memory free / capacity'],
        ledger.nodes
          .filter((n) => used.has(`${n.instance}/${n.node}`))
          .map((n) => [n.instance, n.node, `${n.cpu.free} / ${n.cpu.capacity}`, `${formatMiB(n.memoryMiB.free)} / ${formatMiB(n.memoryMiB.capacity)}`]),
      ),
    ],
  };
};

export const foresightSections: ReviewSection[] = [upgradeSection, ifOneHostFails, capacitySection];
