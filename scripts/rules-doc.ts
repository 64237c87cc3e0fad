/**
 * `npm run docs:rules`: writes docs/rules.md from the rule table (modules/config/rule-table.ts), the
 * plan rules (modules/config/plan-rule-table.ts), the warning rules and the edit rules.
 * test/config/rules.test.ts fails when the page and the tables differ.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LabRule } from '../modules/config/rule';
import { RULE_HOMES } from '../modules/config/rule-table';
import { WARNING_HOMES } from '../modules/config/warning-rules';
import { EDIT_HOMES, type EditRule } from '../modules/foresight/edit-rules';
import { wrapItem } from '../modules/config/markdown-text';
import { PLAN_RULE_HOMES, type PlanRuleHome } from '../modules/config/plan-rule-table';

/**
 * One rule as a list item, wrapped at 120 (a table of these would hold cells of hundreds of
 * characters): the id, what it refuses (or warns about), and its fix as a sub-item.
 */
const ruleItem = (rule: { id: string; refuses: string; fix: string }, verb: string) => [
  ...wrapItem('- ', `\`${rule.id}\` ${verb} ${rule.refuses}`, 120),
  ...wrapItem('  - ', `fix: ${rule.fix}`, 120),
];

/** The page, from the table's homes and rules. */
export function rulesDoc(
  homes: readonly { home: string; rules: readonly LabRule[] }[],
  warningHomes: readonly { home: string; rules: readonly LabRule[] }[] = [],
  editHomes: readonly { home: string; rules: readonly EditRule[] }[] = [],
  planHomes: readonly PlanRuleHome[] = [],
): string {
  const count = homes.reduce((n, h) => n + h.rules.length, 0);
  const lines = [
    '# Validation rules',
    '',
    '<!-- Generated from modules/config/rule-table.ts by `npm run docs:rules`; test/config/rules.test.ts checks it. Do not edit. -->',
    '',
    'Before anything is synthesized, `npm run validate` (and every command that reads a lab description) checks the',
    'description in two steps and reports every problem at once, each with the file, the line, the path inside the',
    'description and a fix. First the schema (modules/config/schema.ts: types, formats, bounds) and the string checks',
    '(modules/config/safety.ts); then the rules below, which relate several fields. Each rule has one id, one home (the',
    'file that defines it) and a fixture that fires exactly it (test/config/rule-fixtures.ts, run by',
    'test/config/rules.test.ts through the real loader). Rules that need the placement plan (node networks large enough for',
    'every pool at its maximum, VIP allocation, templates on every node a machine lands on) are the plan rules, after these;',
    '`validate` and `synth` take one road through them (placement, then the rendering: `planAndRenderLab` in',
    'modules/rendering), so they refuse the same descriptions with the same problems, each carrying its rule id.',
    '',
    `${count} rules:`,
    '',
  ];
  for (const { home, rules } of homes) {
    lines.push(`## ${home}`, '');
    for (const rule of rules) lines.push(...ruleItem(rule, 'refuses'));
    lines.push('');
  }
  if (planHomes.length > 0) {
    const plan = planHomes.reduce((n, h) => n + h.rules.length, 0);
    lines.push(
      '# Plan rules',
      '',
      'These need the placement plan: once the description passed the rules above, `validate` and `synth` place it',
      '(modules/placement) and render it (modules/rendering, `renderLab`: every tenant, the management plane, the datastore',
      'memory), collect every problem of both and report them at once, in the same format, each with its rule id. The',
      'placement problems come first and alone: nothing is rendered without the plan. Each rule has one home (the file that',
      'finds it, the only one that raises its id: test/lint/problems-in-tables.test.ts) and a fixture that fires it through',
      'that road (test/config/plan-rule-fixtures.ts, run by test/config/plan-rules.test.ts).',
      '',
      `${plan} plan rule${plan === 1 ? '' : 's'}:`,
      '',
    );
    for (const { home, rules } of planHomes) {
      lines.push(`## ${home}`, '');
      for (const rule of rules) lines.push(...ruleItem(rule, 'refuses'));
      lines.push('');
    }
  }
  if (warningHomes.length > 0) {
    const warnings = warningHomes.reduce((n, h) => n + h.rules.length, 0);
    lines.push(
      '# Warning rules',
      '',
      'These never refuse a description: every command that reads it prints each as a `warning:` line, with the file, the',
      'line, the path and the fix, and goes on. Each has a fixture that fires it (test/config/rule-fixtures.ts, WARNING_FIXTURES).',
      '',
      `${warnings} warning rule${warnings === 1 ? '' : 's'}:`,
      '',
    );
    for (const { home, rules } of warningHomes) {
      lines.push(`## ${home}`, '');
      for (const rule of rules) lines.push(...ruleItem(rule, 'warns about'));
      lines.push('');
    }
  }
  if (editHomes.length > 0) {
    const edits = editHomes.reduce((n, h) => n + h.rules.length, 0);
    lines.push(
      '# Edit rules',
      '',
      'These compare the new description with what runs: the VIPs the last synth into the output gave (its',
      '`placement.json`, docs/placement.md "Control-plane VIPs"), the datastore storage of its management stack',
      '(docs/management.md "Datastore storage") and the old description (`validate --against`, `review`).',
      '`synth` and `deploy` check them against the output, `validate` with `--out <synth output>` or `--against <old lab>`;',
      'same problem format. Each has a fixture that fires it (test/foresight/address-edits.test.ts).',
      '',
      `${edits} edit rule${edits === 1 ? '' : 's'}:`,
      '',
    );
    for (const { home, rules } of editHomes) {
      lines.push(`## ${home}`, '');
      for (const rule of rules) lines.push(...ruleItem(rule, 'refuses'));
      lines.push('');
    }
  }
  return lines.join('\n');
}

if (require.main === module) {
  const file = join(__dirname, '..', '..', 'docs', 'rules.md');
  writeFileSync(file, rulesDoc(RULE_HOMES, WARNING_HOMES, EDIT_HOMES, PLAN_RULE_HOMES));
  console.log(`wrote ${file}`);
}
