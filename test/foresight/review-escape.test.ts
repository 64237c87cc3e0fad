/**
 * The review comment shows what a plan says as text only (issue 42, item 6): a resource address or
 * action from `tofu show -json` with a newline, Markdown, raw HTML or a mention cannot become a
 * heading, a link, HTML or a ping; an action the review does not know is listed under "Must not miss".
 */
import { parseLab } from '../../modules/config/load';
import { planPlacement } from '../../modules/placement';
import { review, summarizePlan, type TofuPlanJson } from '../../modules/review';
import { code, visible } from '../../modules/review/escape';
import { labText } from './support';

const lab = parseLab(labText(), 'foresight-lab.yaml');
const side = (label: string) => ({ lab, plan: planPlacement(lab), label });
const planOf = (changes: { address: string; type: string; actions: string[] }[]): TofuPlanJson => ({
  format_version: '1.2',
  resource_changes: changes.map((c) => ({ ...c, name: 'x', change: { actions: c.actions, before: { name: 'n' }, after: null } })),
});
const reviewOf = (plans: Record<string, TofuPlanJson>) => review({ before: side('base.yaml'), after: side('pr.yaml'), plans });

/** The comment without its code spans (CommonMark: a run of n backticks up to the next run of exactly n): what GitHub renders as Markdown. */
function outsideCode(markdown: string): string {
  let out = '';
  let i = 0;
  while (i < markdown.length) {
    if (markdown[i] !== '`') {
      out += markdown[i++];
      continue;
    }
    let n = 0;
    while (markdown[i + n] === '`') n++;
    const fence = '`'.repeat(n);
    let j = markdown.indexOf(fence, i + n);
    while (j !== -1 && (markdown[j + n] === '`' || markdown[j - 1] === '`')) j = markdown.indexOf(fence, j + 1);
    if (j === -1) {
      out += fence;
      i += n;
    } else i = j + n;
  }
  return out;
}

describe('plan-given text in the review comment', () => {
  const evil = 'proxmox_virtual_environment_vm.x["a\n## Approved by security <img src=x onerror=alert(1)> @\u200dplatform-team [link](https://e.example) `x`"]';
  const r = reviewOf({
    'proxmox-east': planOf([
      { address: evil, type: 'proxmox_virtual_environment_vm', actions: ['delete'] },
      { address: 'null_resource.y["@org/admins"]', type: 'null_resource', actions: ['delete'] },
    ]),
  });

  test('a newline in an address cannot open a heading; no raw HTML, no mention outside code', () => {
    expect(r.markdown).not.toMatch(/^#+ Approved/m);
    for (const line of r.markdown.split('\n')) expect(line).not.toMatch(/^\s*#+ .*Approved/);
    const rendered = outsideCode(r.markdown);
    expect(rendered).not.toContain('<img');
    expect(rendered).not.toMatch(/@\S/);
    expect(rendered).not.toContain('](https://e.example)');
    // The address is still there for the reviewer, newline and zero-width joiner spelled out.
    expect(r.markdown).toContain('a\\n## Approved by security');
    expect(r.markdown).toContain('@\\u{200d}platform-team');
  });

  test('the destroyed VM and the other destroy are in "Must not miss", escaped', () => {
    const must = r.markdown.slice(r.markdown.indexOf('### Must not miss'), r.markdown.indexOf('### Placement'));
    expect(must).toContain(`VM ${code(evil)} is destroyed`);
    expect(must).toContain(code('null_resource.y["@org/admins"]'));
    expect(outsideCode(must)).not.toMatch(/@\S/);
  });

  test('an action the review does not know is listed under "Must not miss", not read as no change', () => {
    const plan = planOf([
      { address: 'proxmox_virtual_environment_vm.kept', type: 'proxmox_virtual_environment_vm', actions: ['forget'] },
      { address: 'proxmox_pool.p', type: 'proxmox_virtual_environment_pool', actions: ['create', 'update'] },
    ]);
    expect(summarizePlan(plan).changes.map((c) => c.action)).toEqual(['unknown', 'unknown']);
    const u = reviewOf({ 'proxmox-east': plan });
    const must = u.markdown.slice(u.markdown.indexOf('### Must not miss'), u.markdown.indexOf('### Placement'));
    expect(must).toMatch(/`proxmox_virtual_environment_vm\.kept` has plan actions this review does not know \(`forget`\)/);
    expect(must).toMatch(/`proxmox_pool\.p` has plan actions this review does not know \(`create`, `update`\)/);
    expect(u.markdown).not.toContain('Nothing destroyed');
  });
});

describe('code spans', () => {
  test('backticks, pipes and hidden characters cannot close or break the span', () => {
    expect(code('a`b')).toBe('``a`b``');
    expect(code('`x`')).toBe('`` `x` ``');
    expect(code('a|b')).toBe('`a\\|b`');
    expect(code('a\r\nb\u2028c\u200bd')).toBe('`a\\r\\nb\\u{2028}c\\u{200b}d`');
    expect(visible('line\u0085next')).toBe('line\\u{85}next');
  });
});
