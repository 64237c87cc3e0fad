/**
 * The lean synthesis (scripts/lib/lean-synth.ts) against cdktf's own: its resolver gives what
 * cdktf's gives for values holding every kind of cdktf token (strings, numbers, lists, maps,
 * references, functions, escapes, number-like text, undefined in lists and maps), in both modes;
 * and over random lab edits, `synthesizeOnce` writes byte for byte what `App.synth()` writes for
 * the same construct tree, JSON and HCL.
 */
import fc from 'fast-check';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { App, Fn, TerraformOutput, TerraformStack, TerraformVariable, Token } from 'cdktf';
import { parse, stringify } from 'yaml';
import { parseLab } from '../../modules/config/load';
import { planPlacement } from '../../modules/placement';
import { buildLab } from '../../stacks/app';
import { renderLab } from '../../modules/rendering';
import { NUMBER_TOKEN_PATTERN, numberTokenLike, resolvers, synthesizeOnce } from '../../scripts/lib/lean-synth';
import { withoutTokenTraces } from '../../scripts/lib/token-traces';
import { projectRoot } from '../support/toolchain';
import { apply, attempt, edit, tree } from './lab-edits';

const work = mkdtempSync(join(projectRoot, '.test-lean-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const exampleText = readFileSync(join(projectRoot, 'examples/lab.yaml'), 'utf8');

describe('the lean resolver', () => {
  it('resolves every kind of value as cdktf does, preparing or not', () => {
    const app = new App({ outdir: join(work, 'values') });
    const stack = new TerraformStack(app, 'values');
    const other = new TerraformStack(app, 'other');
    const variable = new TerraformVariable(stack, 'v', { type: 'string' });
    const list = new TerraformVariable(stack, 'l', { type: 'list(string)' });
    const map = new TerraformVariable(stack, 'm', { type: 'map(string)' });
    const remote = new TerraformVariable(other, 'r', { type: 'string' });
    const values: unknown[] = [
      'plain',
      '',
      'with ${literal} and %{directive}',
      '1e5 and 2.5e+3 look like encoded numbers',
      42,
      -1.5,
      Number.NaN,
      true,
      null,
      undefined,
      new Date(0),
      variable.stringValue,
      `prefix-${variable.stringValue}-suffix`,
      variable.numberValue,
      list.listValue,
      ['a', undefined, { k: undefined, v: variable.stringValue }],
      Token.asList(list.listValue),
      map.value,
      { [variable.stringValue]: 'token key', plain: 'x' },
      Fn.join(',', list.listValue),
      Fn.lookup(map.value, 'k', 'default'),
      { nested: { deeper: [1, 'two', { three: variable.numberValue, four: undefined }] } },
      { manifest: { apiVersion: 'v1', kind: 'ConfigMap', data: { a: 'b', c: '${not a token}' } } },
      // A reference into another stack: a cross-stack reference when preparing.
      { ref: remote.stringValue },
    ];
    const resolveAll = (f: typeof resolvers.cdktf, preparing: boolean) => values.map((v) => withoutTokenTraces(() => f(stack, v, preparing)));
    for (const preparing of [true, false]) {
      const lean = resolveAll(resolvers.lean, preparing);
      const cdktf = resolveAll(resolvers.cdktf, preparing);
      expect(lean).toEqual(cdktf);
      // toEqual treats undefined members as absent: the serialized forms must match too.
      expect(JSON.stringify(lean)).toBe(JSON.stringify(cdktf));
    }
    // Errors are cdktf's: a function is not a value, a map token's value is no string.
    expect(() => resolvers.lean(stack, { f: () => 1 }, false)).toThrow(/function/i);
    expect(() => resolvers.cdktf(stack, { f: () => 1 }, false)).toThrow(/function/i);
    expect(() => resolvers.lean(stack, ['String Map Token Value'], false)).toThrow(/map token/i);
    expect(() => resolvers.cdktf(stack, ['String Map Token Value'], false)).toThrow(/map token/i);
    // The cross-stack reference registered an output in the other stack, as cdktf does.
    expect(other.node.children.some((c) => c instanceof TerraformOutput)).toBe(true);
  });
});

describe("the scan that stands for cdktf's number-token pattern", () => {
  it('agrees with the pattern on random and number-like strings', () => {
    const near = fc.string({ unit: fc.constantFrom('e', 'E', '-', '|', '.', '+', '1', '9', '0', 'x', ' ', '$', '{'), maxLength: 12 });
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          near,
          fc.double().map(String),
          fc.integer().map((n) => `${n}e${n}`),
        ),
        (s) => {
          expect(numberTokenLike(s)).toBe(NUMBER_TOKEN_PATTERN.test(s));
        },
      ),
      { numRuns: 5000, seed: 25 },
    );
    for (const s of ['1e5', '-1.8881545897087626e+289', 'e5', '5e', 'name', 'size 1e', '|e|', '.eE', 'abc-e-x', 'x+ee']) {
      expect({ s, scan: numberTokenLike(s) }).toEqual({ s, scan: NUMBER_TOKEN_PATTERN.test(s) });
    }
  });
});

describe('synthesizeOnce', () => {
  it('writes the bytes App.synth() writes for the same stacks, over random lab edits, JSON and HCL', () => {
    let run = 0;
    fc.assert(
      fc.property(fc.array(edit, { minLength: 0, maxLength: 2 }), fc.boolean(), (edits, hcl) => {
        run++;
        const doc = parse(exampleText);
        for (const e of edits) apply(doc, e);
        const text = stringify(doc);
        const valid = attempt(() => parseLab(text, 'lab.yaml'));
        if (!valid.ok) return;
        const synth = (dir: string, how: (app: App) => void) => {
          const previous = process.env.SYNTH_HCL_OUTPUT;
          process.env.SYNTH_HCL_OUTPUT = hcl ? 'true' : 'false';
          try {
            const lab = parseLab(text, 'lab.yaml');
            const app = new App({ outdir: dir, hclOutput: hcl });
            const built = attempt(() => buildLab(app, lab, renderLab(lab, planPlacement(lab)), { stateDirFromStack: '../../../state' }));
            if (!built.ok) return false;
            withoutTokenTraces(() => how(app));
            return true;
          } finally {
            if (previous === undefined) delete process.env.SYNTH_HCL_OUTPUT;
            else process.env.SYNTH_HCL_OUTPUT = previous;
          }
        };
        const cdktf = join(work, `cdktf-${run}`);
        const lean = join(work, `lean-${run}`);
        if (!synth(cdktf, (app) => app.synth())) return;
        synth(lean, (app) => synthesizeOnce(app, app.node.findAll().filter(TerraformStack.isStack), hcl));
        const a = tree(cdktf);
        const b = tree(lean);
        expect(Object.keys(b).sort()).toEqual(Object.keys(a).sort());
        for (const f of Object.keys(a)) expect({ file: f, hcl, edits, text: b[f] }).toEqual({ file: f, hcl, edits, text: a[f] });
        rmSync(cdktf, { recursive: true, force: true });
        rmSync(lean, { recursive: true, force: true });
      }),
      { numRuns: 8, seed: 25 },
    );
  });
});
