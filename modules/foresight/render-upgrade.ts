/** The upgrade plan as markdown (the upgrade-plan command and the review) and as JSON. */
import { formatMiB } from '../placement/render-markdown';
import { table } from '../placement/render-markdown';
import type { TenantUpgrade } from './upgrade';

const HOW: Record<string, string> = { image: 'image', tags: 'version tag', templateID: 'template id', missing: '**missing**' };

export function renderUpgradeMarkdown(upgrades: readonly TenantUpgrade[], heading = '##'): string[] {
  const h3 = `${heading}#`;
  const lines: string[] = [];
  if (upgrades.length === 0) return ['No tenant changes its Kubernetes version.', ''];
  for (const u of upgrades) {
    lines.push(`${heading} ${u.tenant}: ${u.from} → ${u.to} — ${u.accepted ? 'can roll' : '**refused**'}`, '');
    if (u.steps.length > 1) {
      lines.push(`${u.steps.length} steps, one change of the description each (the control plane moves one minor at a time): ${u.steps.map((s) => s.version).join(' → ')}.`, '');
    }
    if (u.steps.length > 0) {
      lines.push(
        ...table(
          ['step', 'control plane', 'workers (skew during the step)', ...u.instances.map((i) => `template on ${i}`)],
          u.steps.map((s, i) => [
            i + 1,
            `${s.controlPlane.from} → ${s.controlPlane.to}`,
            `${s.workers.from} → ${s.workers.to} (${s.workers.skew} minor${s.workers.skew === 1 ? '' : 's'} behind, 3 allowed)`,
            ...u.instances.map((name) => {
              const t = s.templates.find((x) => x.instance === name);
              return t ? HOW[t.how] : '**none for this minor**';
            }),
          ]),
        ),
        '',
      );
    }
    if (u.surge.length > 0 && u.surgeMode === 'rolling') {
      lines.push(`${h3} Rolling-update surge (one more machine per machine deployment, one machine deployment at a time)`, '');
    } else if (u.surge.length > 0) {
      lines.push(
        `${h3} New machine deployments beside the old`,
        '',
        'The version is part of each machine deployment\'s name (its worker template is immutable in CAPMOX), so every worker is replaced, not rolled: CAPI deletes the old machine deployments at once and creates the new ones once the control plane runs the new version — **the tenant has no workers for those minutes: upgrade in a maintenance window**. VMs still being deleted count against a node\'s memory in CAPMOX\'s scheduler, so each node needs room for the tenant\'s new machines there (autoscaled: their min) beside the old ones.',
        '',
      );
    }
    if (u.surge.length > 0) {
      lines.push(
        ...table(
          [u.surgeMode === 'rolling' ? 'machine deployment' : 'new machine deployments', 'node', 'needs', 'free after the plan', 'fits'],
          u.surge.map((s) => [s.machineDeployment, `${s.node} (${s.instance})`, `${s.need.cpu} cpu, ${formatMiB(s.need.memoryMiB)}`, `${s.free.cpu} cpu, ${formatMiB(s.free.memoryMiB)}`, s.fits ? 'yes' : '**no**']),
        ),
        '',
      );
    }
    if (u.refusals.length > 0) lines.push(...u.refusals.map((r) => `- ⚠️ ${r}`), '');
  }
  return lines;
}

export function upgradeJson(upgrades: readonly TenantUpgrade[]) {
  return upgrades.map((u) => ({
    tenant: u.tenant,
    from: u.from,
    to: u.to,
    accepted: u.accepted,
    instances: [...u.instances],
    surgeMode: u.surgeMode,
    steps: u.steps.map((s) => ({
      version: s.version,
      controlPlane: { from: s.controlPlane.from, to: s.controlPlane.to },
      workers: { from: s.workers.from, to: s.workers.to, skew: s.workers.skew },
      templates: s.templates.map((t) => ({ instance: t.instance, version: t.version, how: t.how })),
      refusals: [...s.refusals],
    })),
    surge: u.surge.map((s) => ({
      machineDeployment: s.machineDeployment,
      pool: s.pool,
      instance: s.instance,
      node: s.node,
      need: { cpu: s.need.cpu, memoryMiB: s.need.memoryMiB },
      free: { cpu: s.free.cpu, memoryMiB: s.free.memoryMiB },
      fits: s.fits,
    })),
    refusals: [...u.refusals],
  }));
}
