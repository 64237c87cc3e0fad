/**
 * What deploy's plan phase assumes about a stack that reads another's outputs, checked with the real
 * OpenTofu on two small stacks joined as cdktf joins them (`terraform_remote_state` of the local
 * state; only built-in providers, `terraform_data`): planned before its dependency is applied, the
 * dependent's plan is wrong — it fails on a first deploy (no outputs yet) and shows "no changes" after
 * the dependency's output changed — so deploy defers it; planned after, it sees the new value. A
 * dependency whose plan leaves its outputs alone defers nothing, and its dependent's saved plan is
 * applied as it was shown.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DeployPlanJson } from '../../modules/review/deploy-plan';
import { applyStacks, planStacks, type PlanResult, type StackPlan } from '../../scripts/lib/deploy-plan';
import { runTofu } from '../../scripts/lib/tofu';
import { requireToolchain, tofuEnv } from '../support/toolchain';

const work = mkdtempSync(join(tmpdir(), 'pvekaas-dependent-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const dir = (stack: string) => join(work, stack);
function writeStacks(token: string, extra = false): void {
  for (const s of ['a', 'b']) mkdirSync(dir(s), { recursive: true });
  const backend = (s: string) => ({ backend: { local: { path: join(work, `${s}.tfstate`) } } });
  writeFileSync(
    join(dir('a'), 'main.tf.json'),
    JSON.stringify({
      terraform: backend('a'),
      resource: { terraform_data: { token: { input: token }, ...(extra ? { other: { input: 'x' } } : {}) } },
      output: { token: { value: '${terraform_data.token.output}' } },
    }),
  );
  writeFileSync(
    join(dir('b'), 'main.tf.json'),
    JSON.stringify({
      terraform: backend('b'),
      data: { terraform_remote_state: { a: { backend: 'local', config: { path: join(work, 'a.tfstate') } } } },
      resource: { terraform_data: { uses: { input: '${data.terraform_remote_state.a.outputs.token}' } } },
    }),
  );
}

const tofu = (stack: string, args: string[]) => runTofu(args, { cwd: dir(stack), env: tofuEnv({ NO_COLOR: '1' }) });
let plans = 0;
const plan = async (stack: string): Promise<PlanResult> => {
  const file = join(work, `${stack}.${++plans}.tfplan`);
  const r = await tofu(stack, ['plan', '-input=false', '-no-color', '-detailed-exitcode', `-out=${file}`]);
  if (r.code !== 0 && r.code !== 2) return { ok: false, summary: r.stderr.split('\n').find((l) => l.includes('Error')) ?? r.stderr };
  const shown = await tofu(stack, ['show', '-json', file]);
  return { ok: true, changes: r.code === 2, json: JSON.parse(shown.stdout) as DeployPlanJson, planFile: file };
};
const init = async (stack: string) => {
  const r = await tofu(stack, ['init', '-input=false', '-no-color']);
  return r.code === 0 ? { ok: true, summary: 'initialized' } : { ok: false, summary: r.stderr };
};
const applied: string[] = [];
const apply = async (stack: string, planFile: string) => {
  const r = await tofu(stack, ['apply', '-input=false', '-no-color', planFile]);
  applied.push(stack);
  return r.code === 0 ? { ok: true, summary: 'applied' } : { ok: false, summary: r.stderr };
};
const dependencies = { b: ['a'] };
/** What b's resource was planned with: the value it read from a's outputs. */
const readValue = (p: StackPlan | undefined) =>
  (p?.json?.resource_changes?.find((rc) => rc.address === 'terraform_data.uses')?.change.after as { input?: string })?.input;
const bState = async () =>
  (JSON.parse((await tofu('b', ['show', '-json'])).stdout).values.root_module.resources as { address: string; values: { input?: string } }[]).find(
    (r) => r.address === 'terraform_data.uses',
  )?.values.input;

async function deploy(): Promise<{ shown: Map<string, StackPlan>; asked: [string, string | undefined][] }> {
  const planned = await planStacks({ stacks: ['a', 'b'], dependencies, parallel: 2, init, plan });
  expect(planned.result.failed).toBeUndefined();
  const shown = new Map([...planned.plans].map(([k, v]) => [k, { ...v }]));
  const asked: [string, string | undefined][] = [];
  const result = await applyStacks({
    plans: planned.plans,
    stacks: ['a', 'b'],
    dependencies,
    parallel: 2,
    apply,
    plan,
    approve: async (stack, p) => (asked.push([stack, readValue(p)]), true),
  });
  expect(result.failed).toBeUndefined();
  return { shown, asked };
}

describe('a stack that reads the outputs of another (real OpenTofu)', () => {
  beforeAll(() => requireToolchain());

  it('first deploy: planned before its dependency it fails; deploy defers it and plans it once a is applied', async () => {
    writeStacks('v1');
    for (const s of ['a', 'b']) expect((await init(s)).ok).toBe(true);
    const early = await plan('b');
    expect(early.ok).toBe(false); // a's state has no outputs yet: the plan cannot even be made
    const { shown, asked } = await deploy();
    expect(shown.get('b')).toMatchObject({ kind: 'deferred', waitsFor: ['a'] });
    expect(asked).toEqual([['b', 'v1']]);
    expect(await bState()).toBe('v1');
  }, 120_000);

  it('a changed output: an early plan of b says "no changes" (wrong); deploy defers b and applies the new value', async () => {
    writeStacks('v2');
    const early = await plan('b');
    expect(early.ok && early.changes).toBe(false); // reads v1, as a is not applied yet
    const { shown, asked } = await deploy();
    expect(shown.get('b')?.kind).toBe('deferred');
    expect(asked).toEqual([['b', 'v2']]);
    expect(await bState()).toBe('v2');
  }, 120_000);

  it('a change that leaves the outputs alone defers nothing: b is planned up front and nothing of it needs applying', async () => {
    writeStacks('v2', true);
    applied.length = 0;
    const { shown, asked } = await deploy();
    expect(shown.get('a')).toMatchObject({ kind: 'planned', changes: true, outputsChange: false });
    expect(shown.get('b')).toMatchObject({ kind: 'planned', changes: false });
    expect(asked).toEqual([]);
    expect(applied).toEqual(['a']);
    expect(await bState()).toBe('v2');
  }, 120_000);
});
