/**
 * Parallel synthesis (worker processes, scripts/lib/synth-worker.ts): over random lab edits, the
 * output of a synth in 2 or 3 worker processes — cold, and reusing the previous output — is byte
 * for byte that of a cold synth in one process, JSON and HCL. The workers run the compiled
 * dist/scripts/lib/synth-worker.js (`npm test` compiles first).
 */
import fc from 'fast-check';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { synthesizeLab } from '../../scripts/lib/synthesize';
import { projectRoot } from '../support/toolchain';
import { apply, attempt, edit, tree } from './lab-edits';

const work = mkdtempSync(join(projectRoot, '.test-parallel-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const exampleText = readFileSync(join(projectRoot, 'examples/lab.yaml'), 'utf8');

function expectSameTree(a: string, b: string, context: unknown): void {
  const x = tree(a);
  const y = tree(b);
  expect(Object.keys(x).sort()).toEqual(Object.keys(y).sort());
  for (const f of Object.keys(y)) expect({ file: f, context, text: x[f] }).toEqual({ file: f, context, text: y[f] });
}

describe('parallel synthesis', () => {
  beforeAll(() => {
    if (!existsSync(join(projectRoot, 'dist/scripts/lib/synth-worker.js'))) throw new Error('dist/scripts/lib/synth-worker.js is missing: run `npx tsc -p tsconfig.json` first');
  });

  it('gives the bytes of a one-process cold synth after any sequence of lab edits, cold and incremental', () => {
    let run = 0;
    let parallelRuns = 0;
    fc.assert(
      fc.property(fc.array(edit, { minLength: 1, maxLength: 2 }), fc.constantFrom(2, 3), fc.boolean(), (edits, workers, hcl) => {
        run++;
        const lab = parse(exampleText);
        const file = join(work, `lab-${run}.yaml`);
        const warm = join(work, `warm-${run}`);
        writeFileSync(file, stringify(lab));
        expect(synthesizeLab({ config: file, out: warm, workers, hcl }).workers).toBe(workers);
        for (const [i, e] of edits.entries()) {
          apply(lab, e);
          writeFileSync(file, stringify(lab));
          const cold = join(work, `cold-${run}-${i}`);
          const parallel = join(work, `parallel-${run}-${i}`);
          const one = attempt(() => synthesizeLab({ config: file, out: cold, cache: false, workers: 1, hcl }));
          let used = 0;
          const many = attempt(() => (used = synthesizeLab({ config: file, out: parallel, cache: false, workers, hcl }).workers));
          const incremental = attempt(() => synthesizeLab({ config: file, out: warm, workers, hcl }));
          expect([many.ok, incremental.ok]).toEqual([one.ok, one.ok]);
          if (!one.ok) continue;
          // Fewer tenant stacks than workers: one process (then nothing to compare in parallel).
          if (used > 1) parallelRuns++;
          expectSameTree(parallel, cold, { edits, workers, hcl });
          expectSameTree(warm, cold, { edits, workers, hcl, incremental: true });
          rmSync(cold, { recursive: true, force: true });
          rmSync(parallel, { recursive: true, force: true });
        }
        rmSync(warm, { recursive: true, force: true });
      }),
      { numRuns: 6, seed: 17 },
    );
    expect(parallelRuns).toBeGreaterThan(0);
  }, 900_000);

  it('refuses a number of workers that is not a whole number from 1', () => {
    const out = join(work, 'refused');
    expect(() => synthesizeLab({ config: join(projectRoot, 'examples/lab.yaml'), out, workers: 0 })).toThrow(/workers/);
    expect(existsSync(out)).toBe(false);
  });
});
