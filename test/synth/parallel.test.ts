/**
 * Synthesis in shares: over random lab edits, the output of a synth in 2 or 3 worker processes
 * (scripts/lib/synth-worker.ts) — cold, and reusing the previous output — and of a one-process
 * synth in batches of 1 or 2 tenant stacks (one cdktf App each) is byte for byte that of a cold
 * synth of the whole lab in one App, JSON and HCL. The workers run the compiled
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

describe('synthesis in shares: worker processes and batches', () => {
  beforeAll(() => {
    if (!existsSync(join(projectRoot, 'dist/scripts/lib/synth-worker.js')))
      throw new Error('dist/scripts/lib/synth-worker.js is missing: run `npx tsc -p tsconfig.json` first');
  });

  it('gives the bytes of a one-process cold synth after any sequence of lab edits, cold and incremental', () => {
    let run = 0;
    let parallelRuns = 0;
    fc.assert(
      fc.property(fc.array(edit, { minLength: 1, maxLength: 2 }), fc.constantFrom(2, 3), fc.constantFrom(1, 2), fc.boolean(), (edits, workers, batch, hcl) => {
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
          const batched = join(work, `batched-${run}-${i}`);
          const one = attempt(() => synthesizeLab({ config: file, out: cold, cache: false, workers: 1, hcl }));
          let used = 0;
          const many = attempt(() => (used = synthesizeLab({ config: file, out: parallel, cache: false, workers, hcl }).workers));
          const incremental = attempt(() => synthesizeLab({ config: file, out: warm, workers, hcl }));
          const inBatches = attempt(() => synthesizeLab({ config: file, out: batched, cache: false, batch, hcl }));
          expect([many.ok, incremental.ok, inBatches.ok]).toEqual([one.ok, one.ok, one.ok]);
          if (!one.ok) continue;
          // Fewer tenant stacks than workers: one process (then nothing to compare in parallel).
          if (used > 1) parallelRuns++;
          expectSameTree(parallel, cold, { edits, workers, hcl });
          expectSameTree(warm, cold, { edits, workers, hcl, incremental: true });
          expectSameTree(batched, cold, { edits, batch, hcl });
          rmSync(batched, { recursive: true, force: true });
          rmSync(cold, { recursive: true, force: true });
          rmSync(parallel, { recursive: true, force: true });
        }
        rmSync(warm, { recursive: true, force: true });
      }),
      { numRuns: 4, seed: 17 },
    );
    expect(parallelRuns).toBeGreaterThan(0);
  }, 900_000);

  it('refuses a number of workers or a batch size that is not a whole number from 1, writing nothing', () => {
    const out = join(work, 'refused');
    expect(() => synthesizeLab({ config: join(projectRoot, 'examples/lab.yaml'), out, workers: 0 })).toThrow(/workers 0: .*whole number from 1/);
    expect(() => synthesizeLab({ config: join(projectRoot, 'examples/lab.yaml'), out, batch: 1.5 })).toThrow(/batch 1.5: .*whole number from 1/);
    expect(existsSync(out)).toBe(false);
  });
});
