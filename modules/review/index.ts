/**
 * The pull-request review of a lab change: what the placement moves, what each stack's plan does,
 * and the warnings a reviewer must not miss. Pure: labs, placement plans and plan JSON in, markdown out.
 */
import type { Lab } from '../config/schema';
import { diffPlacement, renderDiffMarkdown } from '../placement';
import type { PlacementPlan } from '../placement/types';
import { foresightSections } from './foresight-sections';
import { summarizePlan, type PlanSummary, type ResourceChange, type TofuPlanJson } from './plan-json';
import { secondaryClustersSection } from './secondary-clusters';
import { code, visible } from './escape';
import { identitySection } from './identity-changes';
import { storageSection } from './storage-changes';
import { addressSection, type ReviewVip } from './address-changes';

export { summarizePlan, checkPlanJson, PlanFormatError } from './plan-json';
export type { TofuPlanJson, PlanSummary, ResourceChange } from './plan-json';

export interface ReviewInput {
  before: { lab: Lab; plan: PlacementPlan; label: string };
  after: { lab: Lab; plan: PlacementPlan; label: string };
  /** `tofu show -json` of each stack's plan, by stack name. */
  plans?: Record<string, TofuPlanJson>;
  /** Where the placement picture of the new description is, relative to the comment. */
  picture?: string;
  /** Which synthesized stacks differ between the two descriptions (scripts/lib/changes.ts), when known. */
  stackChanges?: { changes: StackChange[]; unchanged: string[] };
  /** Changed stacks that were not planned, with the reason (no credential, provider not served…). */
  notPlanned?: Record<string, string>;
  /** Sections for this review only, after those in `reviewSections`. */
  sections?: ReviewSection[];
  /** The new synth's VIPs and why, and the memory it kept them from (the old synth's), when known. */
  vips?: { after: ReviewVip[]; memory: ReadonlyMap<string, string> };
}

/** One stack whose synthesized bytes differ, with the reasons in lab terms. */
export interface StackChange {
  stack: string;
  change: 'added' | 'changed' | 'removed';
  reasons: string[];
}

/**
 * An extra section of the review (e.g. what happens if one host fails, upgrades): rendered after
 * the plans; its warnings join "Must not miss". Return undefined to leave the section out.
 */
export type ReviewSection = (input: ReviewInput) => { title: string; lines: string[]; warnings?: string[] } | undefined;

/** Sections every review renders after the built-in ones, in this order; modules add theirs here. */
export const reviewSections: ReviewSection[] = [...foresightSections, secondaryClustersSection, identitySection, storageSection, addressSection];

export interface Review {
  markdown: string;
  warnings: string[];
  stacks: Record<string, PlanSummary>;
}

const CREDENTIAL_TYPES = new Set(['proxmox_user_token', 'proxmox_virtual_environment_user_token', 'kubernetes_secret', 'kubernetes_secret_v1']);
const VM_TYPES = new Set(['proxmox_virtual_environment_vm', 'proxmox_vm']);

function versionWarnings(before: Lab, after: Lab): string[] {
  const warnings: string[] = [];
  const old = new Map(before.tenants.map((t) => [t.name, t]));
  for (const tenant of after.tenants) {
    const was = old.get(tenant.name);
    if (was && was.kubernetesVersion !== tenant.kubernetesVersion) {
      warnings.push(
        `Kubernetes version of tenant ${tenant.name} changes ${was.kubernetesVersion} → ${tenant.kubernetesVersion}: its control plane and every worker are upgraded`,
      );
    }
  }
  const oldVersions: Record<string, string | undefined> = { ...before.management.versions };
  const newVersions: Record<string, string | undefined> = { ...after.management.versions };
  const keys = [...new Set([...Object.keys(oldVersions), ...Object.keys(newVersions)])].sort();
  for (const key of keys) {
    const a = oldVersions[key];
    const b = newVersions[key];
    if (a !== b) warnings.push(`management version ${key} changes ${a ?? '(pinned default)'} → ${b ?? '(pinned default)'}`);
  }
  const images = (lab: Lab) => new Set(lab.proxmox.instances.flatMap((i) => i.images.map((img) => `${i.name} ${img.kubernetesVersion}`)));
  const was = images(before);
  const is = images(after);
  for (const img of [...was].filter((x) => !is.has(x)).sort()) warnings.push(`node template ${img.replace(' ', ' for ')} is removed`);
  return warnings;
}

/** A stack name as given (a plan file's name): plain when it is one of pvekaas's (lowercase, digits, dashes), else a code span. */
const stackName = (stack: string) => (/^[a-z0-9][a-z0-9-]*$/.test(stack) ? stack : code(stack));

/** For the one place a plan-given name sits in HTML (`<summary>`, where Markdown is not rendered): entities, one line. */
const escapeHtml = (text: string) => visible(text).replace(/[&<>"'@`]/g, (c) => `&#${c.charCodeAt(0)};`);

const NAMESPACE_TYPES = new Set(['kubernetes_namespace', 'kubernetes_namespace_v1']);
const POOL_TYPES = new Set(['proxmox_virtual_environment_pool', 'proxmox_pool']);

/** The warnings a plan of one stack must not hide (destroys, rotations, version changes): review's "Must not miss", deploy's too. */
export function planWarnings(stack: string, summary: PlanSummary): string[] {
  const warnings: string[] = [];
  /** Destroyed or replaced resources no warning below names: listed together, so a destroy never goes unsaid. */
  const otherDestroys: ResourceChange[] = [];
  const at = stackName(stack);
  for (const c of summary.changes) {
    const address = code(c.address);
    if (c.action === 'unknown') {
      warnings.push(
        `${at}: ${address} has plan actions this review does not know (${c.actions.map(code).join(', ') || 'none'}): read this resource in the plan itself`,
      );
      continue;
    }
    const destroys = c.action === 'delete' || c.action === 'replace';
    const gone = c.action === 'replace' ? 'replaced' : 'destroyed';
    let said = false;
    const warn = (text: string) => {
      warnings.push(text);
      said = true;
    };
    if (VM_TYPES.has(c.type) && destroys) warn(`${at}: VM ${address} is ${gone}`);
    if (CREDENTIAL_TYPES.has(c.type) && c.action !== 'create')
      warn(`${at}: credential ${address} is ${c.action === 'update' ? 'changed' : c.action === 'replace' ? 'rotated' : 'deleted'}`);
    if (c.type === 'kubernetes_manifest' && destroys) {
      const manifest = c.before?.manifest as { kind?: string; metadata?: { name?: string } } | undefined;
      if (manifest?.kind === 'Cluster') warn(`${at}: tenant Cluster ${address} is ${gone} (its VMs and control plane go with it)`);
      if (manifest?.kind === 'Namespace') warn(`${at}: Namespace ${code(manifest.metadata?.name ?? c.address)} is ${gone} (everything in it goes with it)`);
    }
    if (NAMESPACE_TYPES.has(c.type) && destroys) {
      const name = ((c.before?.metadata as { name?: string }[] | undefined) ?? [])[0]?.name;
      warn(`${at}: Namespace ${code(name ?? c.address)} is ${gone} (everything in it goes with it: a tenant's Cluster, credentials and kubeconfig)`);
    }
    if (POOL_TYPES.has(c.type) && destroys) warn(`${at}: Proxmox pool ${code(String(c.before?.pool_id ?? c.address))} is ${gone} (its ACLs go with it)`);
    if (c.type === 'helm_release' && destroys)
      warn(
        `${at}: Helm release ${code(String(c.before?.name ?? c.address))} is ${c.action === 'replace' ? 'reinstalled' : 'uninstalled'} (what it installed goes with it)`,
      );
    if (c.type === 'helm_release' && c.action === 'update' && c.before?.version !== c.after?.version) {
      warn(`${at}: chart ${code(String(c.after?.chart ?? c.address))} changes version ${code(String(c.before?.version))} → ${code(String(c.after?.version))}`);
    }
    if (destroys && !said) otherDestroys.push(c);
  }
  if (otherDestroys.length > 0) {
    const shown = otherDestroys.slice(0, 5).map((c) => `${code(c.address)} (${c.action === 'replace' ? 'replaced' : 'destroyed'})`);
    warnings.push(
      `${at}: ${otherDestroys.length} more resource${otherDestroys.length === 1 ? ' is' : 's are'} destroyed or replaced: ${shown.join(', ')}${otherDestroys.length > 5 ? `, and ${otherDestroys.length - 5} more` : ''}`,
    );
  }
  return warnings;
}

export function review(input: ReviewInput): Review {
  const { before, after } = input;
  const diff = diffPlacement(before.plan, after.plan);
  const warnings: string[] = [];
  const afterTenants = new Set(after.lab.tenants.map((t) => t.name));
  for (const t of before.lab.tenants)
    if (!afterTenants.has(t.name))
      warnings.push(`tenant ${t.name} is deleted: its stack tenant-${t.name} must be destroyed (control plane, VMs, VIP, autoscaler)`);
  const afterInstances = new Set(after.lab.proxmox.instances.map((i) => i.name));
  for (const i of before.lab.proxmox.instances)
    if (!afterInstances.has(i.name)) warnings.push(`instance ${i.name} is removed: its stack proxmox-${i.name} must be destroyed`);
  const oldHa = new Map(before.plan.tenants.map((t) => [t.name, t.ha]));
  for (const t of after.plan.tenants) {
    const was = oldHa.get(t.name);
    if (was?.survivesNodeLoss && !t.ha.survivesNodeLoss) warnings.push(`tenant ${t.name} no longer survives the loss of a node`);
    if (was?.survivesInstanceLoss && !t.ha.survivesInstanceLoss) warnings.push(`tenant ${t.name} no longer survives the loss of an instance`);
  }
  warnings.push(...versionWarnings(before.lab, after.lab));
  const stacks: Record<string, PlanSummary> = {};
  for (const stack of Object.keys(input.plans ?? {}).sort()) {
    stacks[stack] = summarizePlan(input.plans![stack]);
    warnings.push(...planWarnings(stack, stacks[stack]));
  }
  for (const w of after.plan.warnings) if (!before.plan.warnings.includes(w)) warnings.push(`placement: ${w}`);
  const extra = [...reviewSections, ...(input.sections ?? [])].map((section) => section(input)).filter((x) => x !== undefined);
  for (const section of extra) warnings.push(...(section.warnings ?? []));

  const changes = input.stackChanges?.changes;
  const moved = diff.moved.reduce((n, m) => n + m.replicas, 0);
  const added = diff.added.reduce((n, m) => n + m.replicas, 0);
  const removed = diff.removed.reduce((n, m) => n + m.replicas, 0);
  const title = `## pvekaas review: ${before.label} → ${after.label}`;
  if (changes && changes.length === 0 && warnings.length === 0 && moved + added + removed === 0 && extra.length === 0) {
    return {
      markdown: `${title}\n\nNo change: all ${input.stackChanges!.unchanged.length} synthesized stacks are byte-identical to the base; nothing to plan or deploy.\n`,
      warnings,
      stacks,
    };
  }
  const unplanned = (changes ?? []).filter((c) => c.change !== 'removed' && !(c.stack in stacks)).map((c) => c.stack);

  const lines = [title, ''];
  lines.push('### Must not miss', '');
  if (warnings.length > 0) lines.push(...warnings.map((w) => `- ⚠️ ${w}`));
  else if (unplanned.length > 0)
    lines.push(
      `Nothing found in the ${Object.keys(stacks).length} plan(s) read — but ${unplanned.length} changed stack(s) were not planned (${unplanned.join(', ')}): their effect is not checked here.`,
    );
  else lines.push('Nothing destroyed, rotated, downgraded in HA or version-changed.');
  lines.push('');
  if (changes) {
    lines.push('### Stacks', '');
    if (changes.length === 0) lines.push(`No synthesized stack changes (${input.stackChanges!.unchanged.length} byte-identical).`, '');
    else {
      lines.push(`${changes.length} of ${changes.length + input.stackChanges!.unchanged.length} stacks change, in run order:`, '');
      lines.push('| stack | change | why |', '|---|---|---|');
      for (const c of changes) lines.push(`| ${c.stack} | ${c.change} | ${c.reasons.join('; ').replace(/\|/g, '\\|')} |`);
      lines.push('');
    }
  }
  lines.push('### Placement', '');
  lines.push(`${moved} machine${moved === 1 ? '' : 's'} move, ${added} added, ${removed} removed.`, '');
  const diffText = renderDiffMarkdown(diff).trim();
  // The diff's own title repeats this section's; its subsections become this section's.
  const body = diffText
    .replace(/^##? [^\n]*\n+/, '')
    .replace(/^### /gm, '#### ')
    .trim();
  if (body) lines.push(body, '');
  if (input.picture) lines.push(`![placement after the change](${input.picture})`, '');
  lines.push('### Plans', '');
  if (!input.plans) lines.push('No plans were given (run with `--plans <dir>` holding `tofu show -json` output per stack).', '');
  else if (Object.keys(stacks).length === 0) lines.push('No plan files were found in the plans directory.', '');
  else {
    lines.push('| stack | add | change | destroy |', '|---|---:|---:|---:|');
    for (const [stack, s] of Object.entries(stacks)) lines.push(`| ${stackName(stack)} | ${s.add} | ${s.change} | ${s.destroy} |`);
    lines.push('');
    for (const [stack, s] of Object.entries(stacks)) {
      if (s.changes.length === 0) continue;
      lines.push(`<details><summary><code>${escapeHtml(stack)}</code>: ${s.changes.length} resource change${s.changes.length === 1 ? '' : 's'}</summary>`, '');
      lines.push(
        ...s.changes.map((c) => `- ${code(c.action === 'unknown' ? c.actions.join(', ') || 'unknown' : c.action)} ${code(c.address)}`),
        '',
        '</details>',
        '',
      );
    }
  }
  if (unplanned.length > 0) {
    lines.push('**Changed stacks not planned:**', '');
    for (const stack of unplanned) lines.push(`- ${stack}: ${input.notPlanned?.[stack] ?? 'no plan was given for it'}`);
    lines.push('');
  }
  for (const section of extra) lines.push(`### ${section.title}`, '', ...section.lines, '');
  return { markdown: `${lines.join('\n').replace(/\n+$/, '')}\n`, warnings, stacks };
}

export { stackChanges, runOrder, diffValues, type SynthesizedLab } from './stack-changes';
