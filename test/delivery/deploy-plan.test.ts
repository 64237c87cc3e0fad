/**
 * deploy's pure parts, without OpenTofu: the plan summary read from `tofu show -json`, the
 * confirmation decision, the answer, the detailed exit code, and the two phases (plan every stack,
 * then apply the saved plans) with fake tofu runs — in particular what a stack that reads another's
 * outputs gets planned against.
 */
import {
  acceptsAnswer,
  confirmation,
  detailedExitCode,
  outputsChange,
  planCounts,
  renderDeployPlan,
  type DeployPlanJson,
} from '../../modules/review/deploy-plan';
import { existsSync, readFileSync } from 'node:fs';
import { applyStacks, planStacks, type PlanResult, type StackPlan } from '../../scripts/lib/deploy-plan';
import { deployArgv, testPluginCache, tofuEnv } from '../support/toolchain';

const rc = (address: string, actions: string[], after: unknown = {}, mode = 'managed') => ({
  address,
  type: address.split('.')[0],
  name: address.split('.')[1],
  mode,
  change: { actions, before: actions[0] === 'create' ? null : {}, after },
});
const planJson = (changes: ReturnType<typeof rc>[], outputs: Record<string, string[]> = {}): DeployPlanJson =>
  ({
    format_version: '1.2',
    terraform_version: '1.12.6',
    planned_values: {},
    resource_changes: changes,
    output_changes: Object.fromEntries(Object.entries(outputs).map(([k, actions]) => [k, { actions }])),
  }) as DeployPlanJson;

const fraPlan = planJson(
  [
    rc('proxmox_virtual_environment_pool.capi', ['delete', 'create']),
    rc('proxmox_virtual_environment_acl.a', ['create']),
    rc('proxmox_virtual_environment_user.u', ['update']),
    rc('proxmox_virtual_environment_user.v', ['no-op']),
    rc('proxmox_virtual_environment_role.r', ['delete']),
    rc('data.proxmox_virtual_environment_nodes.n', ['read'], {}, 'data'),
  ],
  { capmox_token: ['update'], endpoint: ['no-op'] },
);

describe('the plan deploy shows', () => {
  it('counts as tofu does (a replacement is one add and one destroy), with the replacements, data sources and no-ops left out', () => {
    expect(planCounts(fraPlan)).toEqual({ add: 2, change: 1, destroy: 2, replace: 1 });
    expect(planCounts(planJson([]))).toEqual({ add: 0, change: 0, destroy: 0, replace: 0 });
  });

  it('tells whether a plan changes the outputs other stacks read', () => {
    expect(outputsChange(fraPlan)).toBe(true);
    expect(outputsChange(planJson([rc('a.b', ['update'])], { x: ['no-op'] }))).toBe(false);
    expect(outputsChange(planJson([], { x: ['create'] }))).toBe(true);
  });

  it('shows lab terms first, then the warnings, then per stack the counts and the resources', () => {
    const lines = renderDeployPlan({
      against: 'lab.yaml',
      warnings: ['proxmox-pmox-fra: Proxmox pool capi is replaced (its ACLs go with it)'],
      stacks: [
        { stack: 'proxmox-pmox-fra', kind: 'planned', changes: true, json: fraPlan, reasons: ['instance pmox-fra: pools vms capi → capi-fra'] },
        { stack: 'proxmox-pmox-txl', kind: 'planned', changes: false, json: planJson([]) },
        { stack: 'management', kind: 'deferred', changes: true, waitsFor: ['proxmox-pmox-fra'] },
      ],
    });
    expect(lines).toEqual([
      'In lab terms (changed against lab.yaml):',
      '  proxmox-pmox-fra: instance pmox-fra: pools vms capi → capi-fra',
      'Must not miss:',
      '  ⚠ proxmox-pmox-fra: Proxmox pool capi is replaced (its ACLs go with it)',
      'Per stack, from its saved plan (tofu show -json):',
      '  proxmox-pmox-fra: 2 to add, 1 to change, 2 to destroy (1 of them replaced)',
      '      + create  proxmox_virtual_environment_acl.a',
      '    -/+ replace proxmox_virtual_environment_pool.capi',
      '      - delete  proxmox_virtual_environment_role.r',
      '      ~ update  proxmox_virtual_environment_user.u',
      '  proxmox-pmox-txl: no changes',
      '  management: not planned yet — it reads the outputs of proxmox-pmox-fra, which this deploy changes first; planned once that is applied, then shown (and asked for) again',
      'Plan: 2 to add, 1 to change, 2 to destroy (1 of them replaced) in 1 stack(s); 1 stack(s) planned after their dependencies (management)',
    ]);
  });

  it('cuts a long resource list', () => {
    const many = planJson(Array.from({ length: 25 }, (_, i) => rc(`t.r${String(i).padStart(2, '0')}`, ['create'])));
    const lines = renderDeployPlan({ warnings: [], stacks: [{ stack: 's', kind: 'planned', changes: true, json: many }], resourceLimit: 20 });
    expect(lines[0]).toBe('In lab terms: every stack of the description (no --against to compare with)');
    expect(lines).toContain('        … and 5 more');
    expect(lines.filter((l) => l.includes('+ create')).length).toBe(20);
  });
});

describe('when deploy may apply', () => {
  it('asks on a terminal, applies without asking with --yes, refuses with neither, never asks for a plan-only run', () => {
    expect(confirmation({ planOnly: false, yes: false, stdinIsTerminal: true })).toBe('ask');
    expect(confirmation({ planOnly: false, yes: true, stdinIsTerminal: false })).toBe('apply');
    expect(confirmation({ planOnly: false, yes: true, stdinIsTerminal: true })).toBe('apply');
    expect(confirmation({ planOnly: false, yes: false, stdinIsTerminal: false })).toBe('refuse');
    expect(confirmation({ planOnly: true, yes: false, stdinIsTerminal: false })).toBe('plan-only');
  });

  it('takes only "yes" as yes, as OpenTofu does', () => {
    expect(acceptsAnswer('yes')).toBe(true);
    expect(acceptsAnswer('  yes \r')).toBe(true);
    for (const no of ['no', 'y', 'YES', 'Yes', 'yes please', '', undefined]) expect(acceptsAnswer(no)).toBe(false);
  });

  it('exits 2 when any stack changes (a deferred one is taken as changing), 0 when none does', () => {
    expect(detailedExitCode([{ changes: false }, { changes: false }])).toBe(0);
    expect(detailedExitCode([{ changes: false }, { changes: true }])).toBe(2);
    expect(detailedExitCode([])).toBe(0);
  });
});

/** Fake tofu: per stack a plan (changes, outputs change), recording inits, plans and applies in order. */
function fakeTofu(plans: Record<string, { changes: boolean; outputs: boolean }>) {
  const log: string[] = [];
  const applied = new Set<string>();
  const plan = async (stack: string): Promise<PlanResult> => {
    log.push(`plan ${stack}`);
    const p = plans[stack];
    const json = planJson(p.changes ? [rc(`t.${stack.replace(/-/g, '_')}`, ['create'])] : [], { out: [p.outputs ? 'update' : 'no-op'] });
    return { ok: true, changes: p.changes || p.outputs, json, planFile: `/plans/${stack}` };
  };
  return {
    log,
    applied,
    init: async (stack: string) => (log.push(`init ${stack}`), { ok: true, summary: 'initialized' }),
    plan,
    apply: async (stack: string, planFile: string) => {
      log.push(`apply ${stack} ${planFile}`);
      applied.add(stack);
      return { ok: true, summary: '1 added, 0 changed, 0 destroyed' };
    },
  };
}

const stacks = ['proxmox-a', 'proxmox-b', 'management', 'management-config', 'tenant-x'];
const dependencies = { management: ['proxmox-a', 'proxmox-b'], 'management-config': ['management'], 'tenant-x': ['management-config'] };

describe('deploy: plan every stack, then apply the saved plans', () => {
  it('initializes every stack before anything is applied, and plans a dependent now when its dependencies leave their outputs alone', async () => {
    const t = fakeTofu({
      'proxmox-a': { changes: true, outputs: false },
      'proxmox-b': { changes: false, outputs: false },
      management: { changes: true, outputs: false },
      'management-config': { changes: false, outputs: false },
      'tenant-x': { changes: true, outputs: false },
    });
    const { plans, result } = await planStacks({ stacks, dependencies, parallel: 2, init: t.init, plan: t.plan });
    expect(result.failed).toBeUndefined();
    expect([...plans.values()].map((p) => [p.stack, p.kind, p.changes])).toEqual([
      ['proxmox-a', 'planned', true],
      ['proxmox-b', 'planned', false],
      ['management', 'planned', true],
      ['management-config', 'planned', false],
      ['tenant-x', 'planned', true],
    ]);
    const approve = jest.fn(async () => true);
    const applied = await applyStacks({ plans, stacks, dependencies, parallel: 2, apply: t.apply, plan: t.plan, approve });
    expect(applied.applied.map((a) => a.stack)).toEqual(['proxmox-a', 'management', 'tenant-x']);
    // Exactly the saved plans, no second plan, no question; every init came before the first apply.
    expect(t.log.filter((l) => l.startsWith('apply'))).toEqual([
      'apply proxmox-a /plans/proxmox-a',
      'apply management /plans/management',
      'apply tenant-x /plans/tenant-x',
    ]);
    expect(t.log.filter((l) => l.startsWith('plan')).length).toBe(5);
    expect(approve).not.toHaveBeenCalled();
    // Every init before the first plan (an init writes the plugin cache a plan reads), so before any apply too.
    const firstPlan = t.log.findIndex((l) => l.startsWith('plan'));
    expect(t.log.slice(0, firstPlan)).toEqual(stacks.map((s) => `init ${s}`));
    expect(t.log.slice(firstPlan).some((l) => l.startsWith('init'))).toBe(false);
  });

  it('defers a stack that reads outputs this deploy changes — and what reads it — then plans, shows and asks for it after its dependencies are applied', async () => {
    const t = fakeTofu({
      'proxmox-a': { changes: true, outputs: true },
      'proxmox-b': { changes: false, outputs: false },
      management: { changes: true, outputs: true },
      'management-config': { changes: true, outputs: false },
      'tenant-x': { changes: true, outputs: false },
    });
    const { plans } = await planStacks({ stacks, dependencies, parallel: 2, init: t.init, plan: t.plan });
    expect(plans.get('management')).toMatchObject({ kind: 'deferred', waitsFor: ['proxmox-a'] });
    expect(plans.get('management-config')).toMatchObject({ kind: 'deferred', waitsFor: ['management'] });
    expect(plans.get('tenant-x')).toMatchObject({ kind: 'deferred', waitsFor: ['management-config'] });
    // Deferred stacks are initialized now, not planned against outputs that are about to change.
    expect(t.log.filter((l) => l.startsWith('init')).length).toBe(5);
    expect(t.log.filter((l) => l.startsWith('plan'))).toEqual(['plan proxmox-a', 'plan proxmox-b']);

    const asked: string[] = [];
    const approve = async (stack: string, p: StackPlan) => {
      asked.push(`${stack} ${p.kind} ${p.planFile}`);
      // Asked only once its dependencies are applied, with the fresh plan.
      expect(t.applied.has(dependencies[stack as keyof typeof dependencies][0])).toBe(true);
      return stack !== 'tenant-x';
    };
    const t2 = t.log.length;
    const result = await applyStacks({ plans, stacks, dependencies, parallel: 2, apply: t.apply, plan: t.plan, approve });
    expect(asked).toEqual(['management planned /plans/management', 'management-config planned /plans/management-config', 'tenant-x planned /plans/tenant-x']);
    expect(t.log.slice(t2)).toEqual([
      'apply proxmox-a /plans/proxmox-a',
      'plan management',
      'apply management /plans/management',
      'plan management-config',
      'apply management-config /plans/management-config',
      'plan tenant-x',
    ]);
    // A "no" for a deferred stack stops there: nothing of it applied, reported as not approved.
    expect(result.failed).toEqual({ stack: 'tenant-x', summary: 'its plan was not approved: nothing of it applied' });
  });

  it('applies nothing of a stack whose plan is empty, and stops planning at the first failing plan', async () => {
    const t = fakeTofu({
      'proxmox-a': { changes: false, outputs: false },
      'proxmox-b': { changes: false, outputs: false },
      management: { changes: false, outputs: false },
      'management-config': { changes: false, outputs: false },
      'tenant-x': { changes: false, outputs: false },
    });
    const { plans } = await planStacks({ stacks, dependencies, parallel: 2, init: t.init, plan: t.plan });
    const none = await applyStacks({ plans, stacks, dependencies, parallel: 2, apply: t.apply, plan: t.plan, approve: async () => true });
    expect(none.applied).toEqual([]);
    expect(t.log.some((l) => l.startsWith('apply'))).toBe(false);

    const failing = fakeTofu({
      'proxmox-a': { changes: true, outputs: false },
      'proxmox-b': { changes: true, outputs: false },
      management: { changes: true, outputs: false },
      'management-config': { changes: true, outputs: false },
      'tenant-x': { changes: true, outputs: false },
    });
    const plan = async (stack: string): Promise<PlanResult> => (stack === 'proxmox-b' ? { ok: false, summary: 'tofu plan: Error: 401' } : failing.plan(stack));
    const badInit = await planStacks({
      stacks,
      dependencies,
      parallel: 1,
      init: async (stack) => (stack === 'proxmox-b' ? { ok: false, summary: 'tofu init: Error: no provider' } : failing.init(stack)),
      plan: failing.plan,
    });
    expect(badInit.result.failed).toEqual({ stack: 'proxmox-b', summary: 'tofu init: Error: no provider' });
    expect(failing.log).toEqual(['init proxmox-a']); // nothing planned when an init fails
    const r = await planStacks({ stacks, dependencies, parallel: 1, init: failing.init, plan });
    expect(r.result.failed).toEqual({ stack: 'proxmox-b', summary: 'tofu plan: Error: 401' });
    expect(r.result.notApplied.map((n) => n.stack)).toEqual(['management', 'management-config', 'tenant-x']);
  });
});

describe('the tests’ OpenTofu', () => {
  it('gets a plugin cache of this test process, never the toolchain’s shared one (parallel jest workers must not share it)', () => {
    const env = tofuEnv();
    const shared = /plugin_cache_dir = "([^"]+)"/.exec(readFileSync(env.TF_CLI_CONFIG_FILE ?? '/dev/null', 'utf8'))?.[1];
    expect(env.TF_PLUGIN_CACHE_DIR).toBe(testPluginCache());
    expect(env.TF_PLUGIN_CACHE_DIR).toContain(`pvekaas-plugin-cache-${process.pid}-`);
    expect(existsSync(env.TF_PLUGIN_CACHE_DIR!)).toBe(true);
    expect(env.TF_PLUGIN_CACHE_DIR).not.toBe(shared);
    expect(deployArgv(['--config', 'lab.yaml']).slice(-3)).toEqual(['--config', 'lab.yaml', '--yes']);
    expect(deployArgv(['--config', 'lab.yaml', '--plan-only'])).not.toContain('--yes');
  });
});
