/** The upgrade plan as markdown (the upgrade-plan command and the review) and as JSON. */
import { pinnedVersions } from '../versions/pins';
import { formatMiB } from '../placement/render-markdown';
import { table } from '../placement/render-markdown';
import type { TenantUpgrade } from './upgrade';
import type { StagedSurge } from '../placement/surge';
import type { Lab } from '../config/schema';
import { flowYaml } from '../config/flow-yaml';
import { refusingChecks } from '../config/held-version';

const HOW: Record<string, string> = { image: 'image', tags: 'version tag', templateID: 'template id', missing: '**missing**' };

export function renderUpgradeMarkdown(upgrades: readonly TenantUpgrade[], heading = '##'): string[] {
  const h3 = `${heading}#`;
  const lines: string[] = [];
  if (upgrades.length === 0) return ['No tenant changes its Kubernetes version.', ''];
  for (const u of upgrades) {
    lines.push(`${heading} ${u.tenant}: ${u.from} → ${u.to} — ${u.accepted ? 'can roll' : '**refused**'}`, '');
    if (u.steps.length > 1) {
      lines.push(
        `${u.steps.length} steps, one change of the description each (the control plane moves one minor at a time): ${u.steps.map((s) => s.version).join(' → ')}.`,
        '',
      );
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
    } else if (u.surge.length > 0 || u.surgeMode === 'replace') {
      lines.push(`${h3} Surge, then retire (two deploys)`, '', ...surgeSteps(u), '');
    }
    if (u.surge.length > 0) {
      lines.push(
        ...table(
          [
            u.surgeMode === 'rolling' ? 'machine deployment' : u.surging ? 'kept until the retire step' : 'new machine deployments',
            'node',
            'needs',
            'free after the plan',
            'fits',
          ],
          u.surge.map((s) => [
            s.machineDeployment,
            `${s.node} (${s.instance})`,
            `${s.need.cpu} cpu, ${formatMiB(s.need.memoryMiB)}`,
            `${s.free.cpu} cpu, ${formatMiB(s.free.memoryMiB)}`,
            s.fits ? 'yes' : '**no**',
          ]),
        ),
        '',
      );
    }
    if (u.refusals.length > 0) lines.push(...u.refusals.map((r) => `- ⚠️ ${r}`), '');
  }
  return lines;
}

/**
 * The steps of an upgrade that replaces the machine deployments (docs/tenants.md, "Surge, then
 * retire"): what each deploy does, what it holds of the nodes, what it waits for, how to abort.
 */
export function surgeSteps(u: TenantUpgrade): string[] {
  return [
    `The version is part of each machine deployment's name (its worker template is immutable in CAPMOX ${pinnedVersions.proxmoxProvider}), so every worker is replaced; no pool ever has fewer Ready Nodes than it asks for:`,
    '',
    `1. **Surge** — ${u.surging ? 'this description' : `set \`kubernetesVersion: ${u.to}\` and \`previous: { kubernetesVersion: ${u.from} }\` on the tenant`}, deploy. ` +
      `The control plane goes to ${u.to} first (Kamaji rolls its pods: about a minute); the old machine deployments keep ${u.from} (\`topology.cluster.x-k8s.io/defer-upgrade\`) and all their Nodes; ` +
      `CAPI creates the new machine deployments at ${u.to} once the control plane runs it (a clone, boot and join per machine: minutes). ` +
      `Capacity: each node holds the old and the new machines at once (the table below), and the node range their addresses.`,
    `2. **Wait** until every new machine deployment is ready: \`kubectl -n ${u.tenant} get machinedeployments -l pvekaas.lab/tenant=${u.tenant}\` shows READY = REPLICAS for the new names (those of \`npm run placement\`).`,
    `3. **Retire** — remove \`previous\`, deploy. CAPI deletes the old machine deployments: each Node is drained (its Pods move to the new Nodes) and its VM deleted; the capacity of the old machines is free again. Minutes, as long as the drains take.`,
    '',
    `Abort halfway: the old workers serve until the retire step, whatever happens to the new ones. The control plane cannot go back to ${u.from} (CAPI's Cluster webhook refuses a lower version), so an upgrade is not undone: if new machines do not come up, fix their cause (template, capacity, addresses) and deploy the surge step again — the old Nodes stay Ready meanwhile. (A resize can be undone: put \`pools\` back as \`previous\` has them and remove \`previous\`; the new machine deployments go, the old ones were never touched.)`,
  ];
}

export function upgradeJson(upgrades: readonly TenantUpgrade[]) {
  return upgrades.map((u) => ({
    tenant: u.tenant,
    from: u.from,
    to: u.to,
    accepted: u.accepted,
    instances: [...u.instances],
    surgeMode: u.surgeMode,
    surging: u.surging,
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

/**
 * A staged surge (docs/tenants.md, "Staged surge"): where the surge of every node group at once does
 * not fit a node, the steps that do — which node groups surge in each, what each node then holds
 * beyond the plan, and the exact `previous` to deploy for each step's surge and retire.
 */
export function renderStagedMarkdown(staged: readonly StagedSurge[], lab: Lab, heading = '##'): string[] {
  const lines: string[] = [];
  const gib = (x: { cpu: number; memoryMiB: number }) => `${x.cpu} cpu, ${formatMiB(x.memoryMiB)}`;
  for (const s of staged) {
    const tenant = lab.tenants[s.index];
    const from = tenant.previous?.kubernetesVersion;
    const upgrade = from !== undefined && from !== tenant.kubernetesVersion;
    const full = s.atOnce.filter((n) => !n.fits);
    lines.push(
      `${heading} ${s.tenant}: staged surge — ${s.fits && tenant.previous?.stage ? 'this description is a step of it' : 'the one-step surge does not fit'}`,
      '',
    );
    if (full.length > 0)
      lines.push(
        `The surge of every remaining node group at once does not fit: ${full.map((n) => `${n.node} (${n.instance}) would hold ${gib(n.need)} beyond the plan, with ${gib(n.free)} free`).join('; ')}.`,
        '',
      );
    if (s.stages.length === 0 && s.unsafe.length > 0) {
      lines.push(
        `The steps that fit would leave a pool short (${s.unsafe.join('; ')}): stage it by hand in \`previous.stage\`, surging the node groups where a pool gains machines first, or make room for the one-step surge.`,
        '',
      );
      continue;
    }
    if (s.stages.length === 0) {
      lines.push(
        `It cannot be staged either: ${s.tooBig.map((g) => `node group ${g.group} alone needs ${gib(g.need)}, and its node has ${gib(g.free)} free after the plan`).join('; ')}. Make room there (move or shrink another tenant's pools, add a node), or lower the pool's replicas in a step of its own first.`,
        '',
      );
      continue;
    }
    lines.push(
      `Staged one node group at a time (${s.stages.length} step${s.stages.length === 1 ? '' : 's'}, each a surge and a retire deploy): a node group held back keeps its old machine deployments exactly as they are and gets no new one yet. Per node, what the step holds beyond the plan (the surging groups' old machines, and what a held group's old machines exceed its new ones by) against what is free after the plan:`,
      '',
      ...table(
        ['step', 'node groups surging', 'held back', ...s.atOnce.map((n) => `${n.node} (${n.instance})`)],
        s.stages.map((st, k) => [
          k + 1,
          st.groups.join(', '),
          s.stages
            .slice(k + 1)
            .flatMap((x) => x.groups)
            .join(', ') || '—',
          ...s.atOnce.map((n) => {
            const x = st.nodes.find((y) => y.instance === n.instance && y.node === n.node);
            return x ? `${gib(x.need)} of ${gib(x.free)}${x.fits ? '' : ' **no**'}` : '—';
          }),
        ]),
      ),
      '',
    );
    s.steps.forEach((step, k) => {
      lines.push(
        `${k + 1}. **Surge ${k + 1}** — set \`tenants[${s.index}].previous: ${flowYaml(step.surge)}\`, deploy.` +
          (k === 0 && upgrade
            ? ` The control plane goes to ${tenant.kubernetesVersion} first; the old machine deployments, surging or held back, keep ${from} (defer-upgrade: one minor behind at most, within the kubelet skew; never a worker newer than the control plane), and CAPI creates the new ones once the control plane runs ${tenant.kubernetesVersion}.`
            : ''),
        `   **Retire ${k + 1}** — once the new Nodes of this step are Ready (deploy's retire guard checks): ${step.retire ? `set \`tenants[${s.index}].previous: ${flowYaml(step.retire)}\`` : 'remove `previous`'}, deploy.`,
      );
      lines.push(...heldLines(s, k, from, tenant.kubernetesVersion));
    });
    lines.push(
      '',
      'Abort halfway: the held-back groups were never touched, and every old machine deployment serves until the retire of its own step. An upgrade is not undone (the control plane does not go back): fix what stops the new machines and deploy the same step again. A resize or an instance-level edit goes back as in one step (the description as `previous` has it, `previous` removed) only before the first retire; after it, the retired groups are a change of their own, surged again with `previous`.',
      '',
    );
  }
  return lines;
}

/**
 * Per step of a staged upgrade, the held groups that cannot replace a lost machine until they surge
 * (modules/config/held-version.ts: CAPI's MachineSet preflight), and the `previous` that surges one
 * next. It fits: the group is in a later step that fits, and alone it holds no more than that step.
 */
function heldLines(s: StagedSurge, k: number, from: string | undefined, to: string): string[] {
  const checks = from === undefined ? [] : refusingChecks(from, to);
  const held = s.stages.slice(k + 1).flatMap((x, m) => x.groups.map((g) => ({ g, step: k + m + 2 })));
  if (checks.length === 0 || held.length === 0) return [];
  const base = { ...(s.steps[k].retire ?? {}) };
  delete base.stage;
  return [
    `   **Held back in step ${k + 1}** — ${held.map((h) => h.g).join(', ')} stay${held.length === 1 ? 's' : ''} at ${from} beside the control plane at ${to}: a machine lost there is not replaced (CAPI's MachineSet preflight refuses it: ${checks.join(', ')}) until the group surges. If one loses a machine, surge it next, once this step's new Nodes are Ready:`,
    ...held.map((h) => {
      const rest = held.filter((x) => x.g !== h.g).map((x) => x.g);
      const previous = { ...base, stage: { surge: [h.g], ...(rest.length > 0 ? { hold: rest } : {}) } };
      return `   - ${h.g}: set \`tenants[${s.index}].previous: ${flowYaml(previous)}\`, deploy (it fits: alone it holds no more than step ${h.step}, which fits).`;
    }),
  ];
}

export function stagedJson(staged: readonly StagedSurge[]) {
  return staged.map((s) => ({
    tenant: s.tenant,
    fits: s.fits,
    atOnce: s.atOnce.map((n) => ({ instance: n.instance, node: n.node, need: { ...n.need }, free: { ...n.free }, fits: n.fits })),
    stages: s.stages.map((st, k) => ({
      groups: [...st.groups],
      nodes: st.nodes.map((n) => ({ instance: n.instance, node: n.node, need: { ...n.need }, free: { ...n.free }, fits: n.fits })),
      previous: { surge: s.steps[k].surge, retire: s.steps[k].retire ?? null },
    })),
    tooBig: s.tooBig.map((g) => ({ group: g.group, need: { ...g.need }, free: { ...g.free } })),
    unsafe: [...s.unsafe],
  }));
}
