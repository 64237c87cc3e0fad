/**
 * One road (issue 40): `validate` and `synth` refuse the same labs with the same problems — the same
 * rule ids, paths, messages and fixes, in the same order — over random lab edits: a platform team's
 * edits (./lab-edits.ts) on top of up to two fixtures of the rule table and the plan rules, so that
 * both the valid and the refused sides are drawn. Every problem either refuses names a rule id that
 * docs/rules.md lists. A lab both accept is synthesized for real (cdktf), so the runs are few.
 */
import fc from 'fast-check';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { ProblemError } from '../../modules/config/problems';
import { synthesizeLab } from '../../scripts/lib/synthesize';
import { validateLab } from '../../scripts/lib/validate-lab';
import { PLAN_RULE_FIXTURES } from '../config/plan-rule-fixtures';
import { RULE_FIXTURES } from '../config/rule-fixtures';
import { projectRoot } from '../support/toolchain';
import { apply, edit } from './lab-edits';

const work = mkdtempSync(join(projectRoot, '.test-one-road-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const exampleText = readFileSync(join(projectRoot, 'examples/lab.yaml'), 'utf8');
const rulesPage = readFileSync(join(projectRoot, 'docs/rules.md'), 'utf8');
const fixtures: Record<string, (doc: unknown) => void> = { ...RULE_FIXTURES, ...PLAN_RULE_FIXTURES };

/** What a command refused, problem by problem (or `accepted`); anything but a ProblemError is rethrown. */
function refusal(run: () => unknown): 'accepted' | { message: string; problems: { rule?: string; path: string; message: string; fix?: string }[] } {
  try {
    run();
    return 'accepted';
  } catch (e) {
    if (!(e instanceof ProblemError)) throw e;
    return { message: e.message, problems: e.problems.map((p) => ({ rule: p.rule, path: p.path.join('.'), message: p.message, fix: p.fix })) };
  }
}

describe('validate and synth: one road', () => {
  it('refuse the same labs with the same problems, each with a rule id of docs/rules.md', () => {
    let run = 0;
    const seen = { accepted: 0, refused: 0 };
    fc.assert(
      fc.property(fc.subarray(Object.keys(fixtures).sort(), { maxLength: 2 }), fc.array(edit, { maxLength: 2 }), (picked, edits) => {
        run++;
        const doc = parse(exampleText);
        for (const id of picked) fixtures[id](doc);
        for (const e of edits) apply(doc, e);
        const config = join(work, `lab-${run}.yaml`);
        writeFileSync(config, stringify(doc));
        const validated = refusal(() => validateLab({ config }));
        const synthesized = refusal(() => synthesizeLab({ config, out: join(work, `out-${run}`), cache: false }));
        expect({ picked, edits, synthesized }).toEqual({ picked, edits, synthesized: validated });
        if (validated === 'accepted') seen.accepted++;
        else {
          seen.refused++;
          for (const p of validated.problems)
            expect({ picked, problem: p, listed: rulesPage.includes(`\`${p.rule}\``) }).toEqual({ picked, problem: p, listed: true });
        }
      }),
      { numRuns: 14, seed: 40 },
    );
    // Both sides drawn: a property over refusals only (or acceptances only) would prove half of it.
    expect(seen.accepted).toBeGreaterThan(0);
    expect(seen.refused).toBeGreaterThan(0);
  });
});
