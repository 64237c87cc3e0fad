/**
 * Review section: control-plane VIPs and node addresses (issues 41 and 42). Which tenant got which
 * VIP and why — new (its first choice, or the next free address after a collision), kept from the
 * last synth's memory, described — and what each address edit does to running machines
 * (modules/foresight/address-edits.ts); an edit that would strand them is a warning here (and
 * refused by `validate --against`).
 */
import { addressEdits } from '../foresight/address-edits';
import { code } from './escape';
import type { ReviewInput, ReviewSection } from './index';

/** One tenant's VIP as synth records it (placement.json `vips`; modules/tenants/vip.ts). */
export interface ReviewVip {
  tenant: string;
  vip: string;
  why: 'described' | 'first-choice' | 'collision' | 'kept';
  firstChoice?: string;
  heldBy?: string;
}

function because(v: ReviewVip, was: string | undefined): string {
  const since = was === undefined ? 'new tenant' : was === v.vip ? 'unchanged' : `was ${code(was)}`;
  switch (v.why) {
    case 'described':
      return `${since}: described (vip:)`;
    case 'first-choice':
      return `${since}: its first choice in the pool`;
    case 'collision':
      return `${since}: its first choice ${code(v.firstChoice ?? '')} is tenant ${code(v.heldBy ?? '')}'s — a collision, resolved: the next free address it ranks`;
    case 'kept':
      return `${since}: kept from the last synth (a synth without that memory would rank ${code(v.firstChoice ?? '')} first)`;
  }
}

export const addressSection: ReviewSection = (input: ReviewInput) => {
  const lines: string[] = [];
  const warnings: string[] = [];
  if (input.vips) {
    const memory = input.vips.memory;
    // Every tenant whose VIP is new or changed, and why; the others in one line (a table of every tenant would bury them).
    const rows = input.vips.after.filter((v) => memory.get(v.tenant) !== v.vip);
    if (rows.length > 0) {
      lines.push('| tenant | VIP | why |', '|---|---|---|');
      for (const v of rows) lines.push(`| ${code(v.tenant)} | ${code(v.vip)} | ${because(v, memory.get(v.tenant))} |`);
      const rest = input.vips.after.filter((v) => memory.get(v.tenant) === v.vip);
      const notFirst = rest.filter((v) => v.why === 'kept' || v.why === 'collision');
      if (rest.length > 0)
        lines.push(
          '',
          `${rest.length} other tenant${rest.length === 1 ? ' keeps its' : 's keep their'} VIP${rest.length === 1 ? '' : 's'}` +
            (notFirst.length > 0
              ? `; ${notFirst.length} of them not their first choice (kept from the last synth, or a collision resolved): ${notFirst.map((v) => `${code(v.tenant)} ${code(v.vip)}`).join(', ')}.`
              : '.'),
        );
    }
  }
  const edits = addressEdits(input.before.lab, input.before.plan, input.after.lab);
  if (edits.notes.length > 0 || edits.problems.length > 0) {
    if (lines.length > 0) lines.push('');
    for (const note of edits.notes) for (const line of note.lines) lines.push(`- tenant ${code(note.tenant)}, ${code(note.network)}: ${line}`);
    for (const p of edits.problems) {
      lines.push(`- ⚠️ ${p.message}; fix: ${p.fix}`);
      warnings.push(p.message);
    }
  }
  if (lines.length === 0) return undefined;
  return { title: 'Control-plane VIPs and node addresses', lines, warnings };
};
