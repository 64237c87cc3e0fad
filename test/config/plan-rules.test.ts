/**
 * The plan rules (modules/config/plan-rule-table.ts): each fires on its own fixture
 * (test/config/plan-rule-fixtures.ts) on the road validate and synth share — the real loader, then
 * `planAndRenderLab` — after the description passed the schema and the rule table; every problem
 * on that road names a rule id that docs/rules.md lists.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { parseLab } from '../../modules/config/load';
import { PLAN_RULE_HOMES, PLAN_RULE_IDS } from '../../modules/config/plan-rule-table';
import { ProblemError, type Problem } from '../../modules/config/problems';
import { planAndRenderLab } from '../../modules/rendering';
import { PLAN_RULE_FIXTURES, WITHOUT_FIXTURE } from './plan-rule-fixtures';

const root = join(__dirname, '../..');
const exampleText = readFileSync(join(root, 'examples/lab.yaml'), 'utf8');
const rulesPage = readFileSync(join(root, 'docs/rules.md'), 'utf8');

/** The road's problems for the example lab changed by `change`; throws when the loader refuses it (the fixture is wrong). */
function roadProblems(change: (doc: unknown) => void): Problem[] {
  const doc = parse(exampleText);
  change(doc);
  const lab = parseLab(stringify(doc), 'lab.yaml');
  try {
    planAndRenderLab(lab);
  } catch (e) {
    if (e instanceof ProblemError) return e.problems;
    throw e;
  }
  return [];
}

describe('the plan rules', () => {
  it('names each once, with what it refuses and a fix, apart from every other table', () => {
    expect(new Set(PLAN_RULE_IDS).size).toBe(PLAN_RULE_IDS.length);
    for (const { rules } of PLAN_RULE_HOMES) for (const r of rules) expect([r.id, r.refuses.length > 10, r.fix.length > 5]).toEqual([r.id, true, true]);
  });

  it('has a fixture for every rule but the ones listed without, and no fixture without a rule', () => {
    expect([...Object.keys(PLAN_RULE_FIXTURES), ...Object.keys(WITHOUT_FIXTURE)].sort()).toEqual([...PLAN_RULE_IDS].sort());
  });

  it('lets the example lab through', () => {
    expect(roadProblems(() => undefined)).toEqual([]);
  });

  it.each(Object.keys(PLAN_RULE_FIXTURES))('%s fires on its fixture, past the schema and the rule table', (id) => {
    const problems = roadProblems(PLAN_RULE_FIXTURES[id]);
    expect(problems.map((p) => p.rule)).toContain(id);
    // Every problem on the road has an id docs/rules.md lists.
    for (const p of problems) expect(rulesPage).toContain(`\`${p.rule}\``);
  });

  it('lists every rule in docs/rules.md', () => {
    for (const id of PLAN_RULE_IDS) expect(rulesPage).toContain(`\`${id}\``);
  });
});
