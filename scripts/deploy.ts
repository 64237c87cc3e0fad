/**
 * `npm run --silent deploy -- --config <lab.yaml> [--against <old lab.yaml> | --against-out <dir>]
 *    [--stacks <glob,…>] [--out <dir>] [--parallel <n>] [--yes | --plan-only [--detailed-exitcode]] [--phase retire]`
 *
 * Synthesizes the description into `--out` (through the synth cache), then, on the stacks that
 * changed (all stacks without --against), filtered by --stacks, in dependency order (manifest.json),
 * up to --parallel at once where the order allows, with progress on stderr:
 *
 * 1. `tofu init` of every stack (one at a time), then `tofu plan -out=<planfile>`: saved plans. A
 *    stack that reads the outputs of a stack this deploy changes is planned after that one is
 *    applied (scripts/lib/deploy-plan.ts says why), and shown and asked for then.
 * 2. The plans shown: in lab terms first (the reasons of `changed`, the warnings of `review`), then
 *    per stack its resource counts (to add, change, destroy, of them replaced) from `tofu show -json`.
 * 3. Applied only once `yes` is typed on the terminal, or with --yes / --auto-approve; with no
 *    terminal on stdin and no flag deploy refuses before it synthesizes anything. `tofu apply
 *    <planfile>`: exactly the plan shown. --plan-only stops after 2 (--detailed-exitcode: 0 no
 *    changes, 2 changes present, 1 error).
 *
 * It stops at the first failure and says what was applied, what failed and what was not applied.
 * Removed stacks are listed, never destroyed. Before each `proxmox-<instance>` plan, what an
 * interrupted run left in Proxmox but not in the state is imported or replaced, and said
 * (scripts/lib/deploy-recover.ts); with --plan-only it is only said.
 *
 * Surge, then retire (docs/tenants.md): a change that replaces node groups with no surge is refused
 * before anything is synthesized (scripts/lib/upgrade-guard.ts, against the output deployed last),
 * and a retire step — old machine deployments dropped while new ones carry their pools on — is
 * applied only when each new one has its Ready machines (CAPI's readyReplicas: Machines whose Ready
 * condition holds, their Node Ready among it), read live from the management cluster through its
 * kubeconfig, or with `--phase retire` (scripts/lib/retire-guard.ts).
 *
 * tofu comes from PATH (`eval "$(scripts/toolchain env)"` for the offline toolchain). Each
 * `proxmox-<instance>` stack gets its administrator token from PROXMOX_API_TOKENS (a JSON object of
 * tokens by instance name, as the review workflow's secret) or else from TF_VAR_proxmox_api_token.
 * Saved plans hold those values: they live in a private temporary directory, removed at the end.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import { checkPlanJson, planWarnings, review, runOrder, summarizePlan } from '../modules/review';
import {
  acceptsAnswer,
  confirmation,
  detailedExitCode,
  REFUSED_WITHOUT_TERMINAL,
  renderDeployPlan,
  type DeployPlanJson,
  type ShownStack,
} from '../modules/review/deploy-plan';
import { labChanges } from './lib/changes';
import { runCommand, UsageError, UserError, type CommandLine } from './lib/cli';
import { applyStacks, planStacks, stacksToApply, type PlanResult, type StackPlan } from './lib/deploy-plan';
import { stackGlob, type RunEvent, type RunResult, type StackOutcome } from './lib/deploy-run';
import { recoverStack } from './lib/deploy-recover';
import { synthesizeLab } from './lib/synthesize';
import { guardRetire, retireSteps } from './lib/retire-guard';
import { machineDeploymentsOfOutput, refuseUnrollableUpgrades } from './lib/upgrade-guard';
import { loadLabFile } from '../modules/config/load';
import { AUTOMATION, errorBlock, firstError, runTofu, tofuOnPath, TofuSupervisor } from './lib/tofu';

const usage =
  'npm run --silent deploy -- --config <lab.yaml> [--against <old lab.yaml> | --against-out <dir>] [--stacks <glob,…>] [--out <dir>] [--parallel <n>] [--yes | --plan-only [--detailed-exitcode]] [--phase retire]';

function tofuPathOrFail(): string {
  const found = tofuOnPath();
  if (found) return found;
  throw new UserError('tofu is not on the PATH\n  fix: eval "$(scripts/toolchain env)" (after scripts/toolchain install), or install OpenTofu');
}

function tokens(): Record<string, string> {
  const text = process.env.PROXMOX_API_TOKENS;
  if (!text) return {};
  try {
    const value = JSON.parse(text);
    if (typeof value === 'object' && value && !Array.isArray(value) && Object.values(value).every((v) => typeof v === 'string'))
      return value as Record<string, string>;
  } catch {
    // reported below
  }
  throw new UserError(
    'PROXMOX_API_TOKENS is not a JSON object of tokens by instance name\n  fix: PROXMOX_API_TOKENS=\'{"pmox-txl": "root@pam!pvekaas=<secret>"}\'',
  );
}

// Interrupts: every tofu runs under a TofuSupervisor (scripts/lib/tofu.ts): in a process group of
// its own, exactly one SIGINT passed on per tofu whatever deploy receives, its state always written;
// deploy then starts nothing new, waits for every tofu, says what was applied, interrupted and not
// started, and exits 130 (SIGINT), 143 (SIGTERM) or 129 (SIGHUP). A tofu left running by a deploy
// killed with SIGKILL is waited for by the next deploy.
const EXIT_CODES: Partial<Record<NodeJS.Signals, number>> = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 };

const line: CommandLine = {
  usage,
  flags: {
    config: { type: 'string', value: '<lab.yaml>', help: 'the lab description (required: deploy never falls back to the example lab)' },
    against: { type: 'string', value: '<old lab.yaml>', help: 'deploy only the stacks that changed since this description' },
    'against-out': { type: 'string', value: '<dir>', help: 'the synth output of the old description (with --against)' },
    stacks: { type: 'string', value: '<glob,…>', help: 'only the stacks matching these globs' },
    out: { type: 'string', value: '<dir>', help: 'where the stacks are synthesized (default: out)' },
    parallel: { type: 'string', value: '<n>', help: 'run up to n stacks at once where the order allows (default: 2)' },
    yes: { type: 'boolean', help: 'apply the plans without asking (CI); without it deploy asks on the terminal, and refuses with no terminal' },
    'auto-approve': { type: 'boolean', help: 'the same as --yes' },
    'plan-only': { type: 'boolean', help: 'plan and show every stack, apply nothing' },
    plan: { type: 'boolean', help: 'the same as --plan-only' },
    'detailed-exitcode': { type: 'boolean', help: 'with --plan-only: exit 0 when nothing changes, 2 when something does, 1 on an error' },
    phase: {
      type: 'string',
      value: 'retire',
      help: 'retire: apply a retire step without reading the management cluster (you checked); by default deploy reads each new machine deployment live and refuses the step until its machines are Ready (their Nodes Ready)',
    },
  },
  about:
    'Synthesizes the description, plans every stack that changed (saved plan files) in dependency order and shows the plans — in lab terms first, then ' +
    'per stack the resources to add, change, destroy and replace — and applies exactly those plans once you type yes (or with --yes); stops at the first failure. ' +
    'A retire step (surge, then retire) is applied only when every new machine deployment has as many Ready machines (their Nodes Ready) as it wants, read live ' +
    'from the management cluster (refused until then), or with --phase retire.',
  exitCodes:
    'exit codes: 0 done (with --plan-only --detailed-exitcode: no changes); 1 refused, failed or not approved (nothing applied after that); ' +
    '2 with --plan-only --detailed-exitcode: changes present; 130/143/129 interrupted by SIGINT/SIGTERM/SIGHUP (each tofu wrote its state)',
  check: (f) => [
    ...(f.config
      ? []
      : [
          '--config <lab.yaml> is required: deploy changes a real lab, so it never falls back to examples/lab.yaml\n' +
            '  fix: npm run --silent deploy -- --config <your lab.yaml> (the `--` hands the flags to deploy, not to npm)',
        ]),
    ...(f['detailed-exitcode'] && !f['plan-only'] && !f.plan ? ['--detailed-exitcode needs --plan-only (it tells whether a plan has changes)'] : []),
    ...((f['plan-only'] || f.plan) && (f.yes || f['auto-approve']) ? ['--plan-only applies nothing: --yes/--auto-approve make no sense with it'] : []),
  ],
};

runCommand(line, async (flags) => {
  if (flags.phase !== undefined && flags.phase !== 'retire') throw new UsageError(`--phase must be retire (got "${flags.phase}")\n\nusage: ${usage}`);
  if (flags['against-out'] && !flags.against) throw new UsageError(`--against-out needs --against (the old description, for the reasons)\n\nusage: ${usage}`);
  const parallel = flags.parallel === undefined ? 2 : Number(flags.parallel);
  if (!Number.isInteger(parallel) || parallel < 1) throw new UsageError(`--parallel must be a whole number ≥ 1 (got "${flags.parallel}")\n\nusage: ${usage}`);
  const planOnly = Boolean(flags['plan-only'] || flags.plan);
  // Before anything else: with no terminal to ask on and no --yes, nothing is synthesized, planned or applied.
  const decision = confirmation({ planOnly, yes: Boolean(flags.yes || flags['auto-approve']), stdinIsTerminal: Boolean(process.stdin.isTTY) });
  if (decision === 'refuse') throw new UserError(REFUSED_WITHOUT_TERMINAL);
  const supervisor = new TofuSupervisor(tofuPathOrFail());
  const byInstance = tokens();
  const config = flags.config as string;
  const out = (flags.out as string | undefined) ?? 'out';

  // A tofu an earlier deploy left running (that deploy was killed) finishes before its stack
  // directory is synthesized anew: replacing the directory under it would break its last state writes.
  const stacksDir = join(out, 'stacks');
  if (existsSync(stacksDir)) for (const stack of readdirSync(stacksDir).sort()) await supervisor.waitForEarlier(join(stacksDir, stack), stack);

  // Surge, then retire (docs/tenants.md): what was deployed last, to see which machine deployments go.
  const againstOut = flags['against-out'] as string | undefined;
  const deployedBefore = machineDeploymentsOfOutput(out);
  const before = deployedBefore.length > 0 || !againstOut ? deployedBefore : machineDeploymentsOfOutput(againstOut);
  // Every node group a change replaces must surge (synth's own guard, against the output deployed
  // last), for the tenant stacks this deploy applies; checked before the synth replaces that output.
  refuseUnrollableUpgrades(config, out, flags.stacks ? stackGlob(flags.stacks as string) : () => true);

  let candidates: string[];
  let removed: string[] = [];
  const reasons = new Map<string, string[]>();
  const warnings: string[] = [];
  if (flags.against) {
    const changes = labChanges({ config, against: flags.against as string, againstOut: flags['against-out'] as string | undefined, out });
    candidates = changes.changes.filter((c) => c.change !== 'removed').map((c) => c.stack);
    removed = changes.changes.filter((c) => c.change === 'removed').map((c) => c.stack);
    for (const c of changes.changes) reasons.set(c.stack, c.reasons);
    // The lab-level warnings of `review` (HA lost, versions changed, tenants deleted…), without plans: those come below.
    warnings.push(
      ...review({
        before: { lab: changes.before.lab, plan: changes.before.plan, label: flags.against as string },
        after: { lab: changes.after.lab, plan: changes.after.plan, label: config },
        stackChanges: { changes: changes.changes, unchanged: changes.unchanged },
      }).warnings,
    );
  } else {
    candidates = runOrder(synthesizeLab({ config, out }).stacks);
  }
  const filter = flags.stacks ? stackGlob(flags.stacks as string) : () => true;
  const stacks = candidates.filter(filter);
  const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as { stacks: Record<string, { dependencies: string[] }> };
  const dependencies = Object.fromEntries(Object.entries(manifest.stacks).map(([s, m]) => [s, m.dependencies]));
  const where = relative(process.cwd(), out) || '.';

  // The retire step goes only when the new machine deployments are Ready (live, or --phase retire).
  if (!planOnly) {
    const steps = retireSteps(before, machineDeploymentsOfOutput(out)).filter((s) => stacks.includes(`tenant-${s.tenant}`));
    for (const line of await guardRetire(loadLabFile(config), steps, flags.phase as string | undefined)) process.stderr.write(`  ${line}\n`);
  }

  const skipped = candidates.filter((s) => !filter(s));
  process.stderr.write(
    `${stacks.length} stack(s) to plan${flags.against ? ` (changed against ${flags.against})` : ''}${skipped.length ? `; left out by --stacks: ${skipped.join(', ')}` : ''}, from ${where}/stacks\n`,
  );
  for (const stack of removed)
    process.stderr.write(
      `  ${stack}: removed from the description — deploy never destroys; run \`tofu destroy\` in its directory first (see docs/usage.md, "Tenants")\n`,
    );
  if (stacks.length === 0) {
    process.stderr.write(`nothing to ${planOnly ? 'plan' : 'apply'}\n`);
    return;
  }

  // Saved plans hold the variables' values (the tokens): in a private directory, removed at the end.
  const planDir = mkdtempSync(join(tmpdir(), 'pvekaas-plans-'));
  const removePlans = () => rmSync(planDir, { recursive: true, force: true });
  process.on('exit', removePlans);
  const envOf = (stack: string) => {
    const instance = stack.startsWith('proxmox-') ? stack.slice('proxmox-'.length) : undefined;
    const token = instance ? (byInstance[instance] ?? process.env.TF_VAR_proxmox_api_token) : undefined;
    const env: NodeJS.ProcessEnv = { ...process.env, ...AUTOMATION, ...(token ? { TF_VAR_proxmox_api_token: token } : {}) };
    return { env, secrets: [token ?? '', ...Object.values(byInstance)], instance, token };
  };
  const cwdOf = (stack: string) => join(out, 'stacks', stack);
  const stoppedBeforeStart = (what: string): StackOutcome & { ok: false } => ({
    ok: false,
    interrupted: true,
    summary: `stopped by ${supervisor.interrupted} before tofu ${what} started: nothing applied`,
  });

  // Every init runs first, one at a time (planStacks): the plugin cache is not safe for an init
  // while another stack's plan or apply reads it.
  const init = async (stack: string): Promise<StackOutcome> => {
    const { env, secrets } = envOf(stack);
    await supervisor.waitForEarlier(cwdOf(stack), stack);
    if (supervisor.interrupted) return stoppedBeforeStart('init');
    process.stderr.write(`[${stamp()}] ▶ ${stack}: init\n`);
    const initialized = await supervisor.run(['init', '-input=false', '-no-color'], cwdOf(stack), env, secrets);
    if (supervisor.interrupted) return stoppedBeforeStart('plan');
    if (initialized.code !== 0) return { ok: false, summary: `tofu init: ${firstError(initialized.output)}`, detail: errorBlock(initialized.output) };
    return { ok: true, summary: 'initialized' };
  };
  let plans = 0;
  const plan = async (stack: string): Promise<PlanResult> => {
    if (supervisor.interrupted) return stoppedBeforeStart('plan');
    const { env, secrets, instance, token } = envOf(stack);
    // After an interrupted run: objects in Proxmox that the state lacks are imported or replaced
    // before the plan (scripts/lib/deploy-recover.ts), so the saved plan is made from the recovered state.
    if (instance && token) {
      const log = (l: string) => process.stderr.write(`${l}\n`);
      const recovery = await recoverStack({ stack, cwd: cwdOf(stack), token, supervisor, env, secrets, dryRun: planOnly, log });
      if (recovery && !recovery.ok) return { ok: false, summary: recovery.summary, detail: recovery.detail, interrupted: recovery.interrupted };
    }
    const planFile = join(planDir, `${stack}.${++plans}.tfplan`);
    // -lock-timeout: a tofu an earlier deploy left running (deploy killed) may still hold the state.
    const args = ['plan', '-input=false', '-no-color', '-detailed-exitcode', '-lock-timeout=10m', `-out=${planFile}`];
    const result = await supervisor.run(args, cwdOf(stack), env, secrets);
    if (supervisor.interrupted && result.code !== 0 && result.code !== 2)
      return { ok: false, interrupted: true, summary: `tofu plan stopped by ${supervisor.interrupted}: nothing applied` };
    if (result.code !== 0 && result.code !== 2) return { ok: false, summary: `tofu plan: ${firstError(result.output)}`, detail: errorBlock(result.output) };
    const shown = await runTofu(['show', '-json', '-no-color', planFile], { cwd: cwdOf(stack), env, tofu: supervisor.tofuBinary });
    let json: DeployPlanJson;
    try {
      if (shown.code !== 0) throw new Error(firstError(shown.stderr || shown.stdout));
      json = checkPlanJson(JSON.parse(shown.stdout), `${stack} plan`) as DeployPlanJson;
    } catch (e) {
      return { ok: false, summary: `tofu show -json of its plan: ${(e as Error).message.split('\n')[0]}` };
    }
    return { ok: true, changes: result.code === 2, json, planFile };
  };

  // One turn of the event loop first: the synth output's own signal handlers (output-dir.ts) go in a
  // setImmediate, and a signal that came during the synchronous synth is delivered now, while no tofu
  // runs (exit 130, nothing started), never after an init was spawned that nobody would stop.
  await new Promise((resolve) => setImmediate(resolve));
  // From here on an interrupt is passed on to tofu, once (TofuSupervisor); before, nothing ran yet.
  supervisor.passInterrupts();

  const clock = Date.now();
  const stamp = () => {
    const s = Math.round((Date.now() - clock) / 1000);
    return `${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
  };
  const stopped = () => (supervisor.interrupted ? `interrupted (${supervisor.interrupted})` : undefined);
  const progress = (verb: string, done: string) => (e: RunEvent) => {
    if (e.kind === 'start') process.stderr.write(`[${stamp()}] [${e.index}/${e.total}] ▶ ${e.stack}: ${verb}\n`);
    else
      process.stderr.write(
        `[${stamp()}] [${e.index}/${e.total}] ${e.outcome.ok ? '✔' : e.outcome.interrupted ? '■' : '✘'} ${e.stack}: ${e.outcome.ok ? `${done} — ` : e.outcome.interrupted ? 'interrupted — ' : 'failed — '}${e.outcome.summary} (${e.seconds.toFixed(1)} s)\n`,
      );
  };

  // 1. Plan every stack, in dependency order (scripts/lib/deploy-plan.ts: what a dependent can know).
  const planned = await planStacks({ stacks, dependencies, parallel, init, plan, stopped, onEvent: progress('plan', 'planned') });
  if (supervisor.interrupted || planned.result.failed || planned.result.interrupted.length > 0) {
    report(planned.result, 'planned', supervisor.interrupted);
    removePlans();
    if (supervisor.interrupted) process.exit(EXIT_CODES[supervisor.interrupted] ?? 130);
    process.exitCode = 1;
    return;
  }
  const shown = (stack: string): ShownStack => {
    const p = planned.plans.get(stack)!;
    return { stack, reasons: reasons.get(stack), kind: p.kind, changes: p.changes, json: p.json, waitsFor: p.waitsFor };
  };
  const planWarningsOf = (stack: string) => {
    const p = planned.plans.get(stack)!;
    return p.json ? planWarnings(stack, summarizePlan(p.json)) : [];
  };
  const shownStacks = stacks.map(shown);
  const allWarnings = [...warnings, ...stacks.flatMap(planWarningsOf)];
  process.stderr.write(`\n${renderDeployPlan({ stacks: shownStacks, warnings: allWarnings, against: flags.against as string | undefined }).join('\n')}\n\n`);
  const toApply = stacksToApply(planned.plans, stacks);
  if (planOnly) {
    process.stderr.write(`plan only: nothing applied${toApply.length ? ` (${toApply.length} stack(s) would change: ${toApply.join(', ')})` : ''}\n`);
    removePlans();
    if (flags['detailed-exitcode']) process.exitCode = detailedExitCode(shownStacks);
    return;
  }
  if (toApply.length === 0) {
    process.stderr.write('nothing to apply: every plan is empty\n');
    removePlans();
    return;
  }
  if (decision === 'ask' && !(await ask(`Apply these plans to the lab (${toApply.join(', ')})? Only 'yes' is accepted: `, supervisor))) {
    process.stderr.write('apply cancelled: nothing applied\n');
    removePlans();
    if (supervisor.interrupted) process.exit(EXIT_CODES[supervisor.interrupted] ?? 130);
    process.exitCode = 1;
    return;
  }

  // 2. Apply exactly the plans shown; a deferred stack is planned, shown and approved once its dependencies are applied.
  const apply = async (stack: string, planFile: string): Promise<StackOutcome> => {
    if (supervisor.interrupted) return stoppedBeforeStart('apply');
    const { env, secrets } = envOf(stack);
    const result = await supervisor.run(['apply', '-input=false', '-no-color', '-lock-timeout=10m', planFile], cwdOf(stack), env, secrets);
    const interrupted = supervisor.interrupted;
    if (interrupted && result.code !== 0) {
      const made = (result.output.match(/: (Creation|Modifications|Destruction) complete after/g) ?? []).length;
      return {
        ok: false,
        interrupted: true,
        summary: `tofu stopped by ${interrupted} after ${made} resource change(s), its state written${result.signal ? ` (tofu ended by ${result.signal})` : ''}`,
        detail: errorBlock(result.output),
      };
    }
    if (result.code !== 0) return { ok: false, summary: `tofu apply: ${firstError(result.output)}`, detail: errorBlock(result.output) };
    const counts = /Resources: (\d+) added, (\d+) changed, (\d+) destroyed/.exec(result.output);
    return { ok: true, summary: counts ? `${counts[1]} added, ${counts[2]} changed, ${counts[3]} destroyed` : 'done' };
  };
  const approve = async (stack: string, p: StackPlan): Promise<boolean> => {
    const waited = planned.plans.get(stack)?.waitsFor ?? [];
    const text = renderDeployPlan({
      stacks: [{ ...shown(stack), kind: 'planned', changes: p.changes, json: p.json }],
      warnings: planWarnings(stack, summarizePlan(p.json!)),
    });
    process.stderr.write(`\n${stack}, planned now that ${waited.join(', ')} ${waited.length === 1 ? 'is' : 'are'} applied:\n${text.slice(1).join('\n')}\n`);
    if (decision === 'apply') return true;
    return ask(`Apply the plan of ${stack}? Only 'yes' is accepted: `, supervisor);
  };
  const result = await applyStacks({
    plans: planned.plans,
    stacks,
    dependencies,
    parallel,
    apply,
    plan: async (stack) => plan(stack),
    approve,
    stopped,
    onEvent: progress('apply (its saved plan)', 'applied'),
  });
  removePlans();
  report(result, 'applied', supervisor.interrupted);
  if (supervisor.interrupted) process.exit(EXIT_CODES[supervisor.interrupted] ?? 130);
  if (result.failed) process.exitCode = 1;
});

/** What was done, what failed and what was not: the last lines of a deploy (of its plan phase: nothing was applied). */
function report(result: RunResult, done: 'planned' | 'applied', interrupted: NodeJS.Signals | undefined): void {
  const planning = done === 'planned';
  const lines = [
    interrupted
      ? planning
        ? `deploy interrupted by ${interrupted} while planning: nothing applied (${result.applied.length} stack(s) planned, ${result.interrupted.length} stopped)`
        : `deploy interrupted by ${interrupted}: ${result.applied.length} stack(s) applied, ${result.interrupted.length} stopped with their state written`
      : result.failed
        ? `deploy stopped: ${result.failed.stack} failed${planning ? ' while planning; nothing applied (deploy applies only once every stack is planned)' : ''}`
        : `deploy complete: ${result.applied.length} stack(s) ${done}`,
  ];
  lines.push(`  ${done}:${' '.repeat(Math.max(1, 12 - done.length))}${result.applied.length ? result.applied.map((a) => a.stack).join(', ') : '(none)'}`);
  if (result.failed) {
    lines.push(`  failed:      ${result.failed.stack} — ${result.failed.summary}`);
    if (result.failed.detail) lines.push(...result.failed.detail.split('\n').map((l) => `      ${l}`));
  }
  for (const i of result.interrupted) lines.push(`  interrupted: ${i.stack} — ${i.summary}${planning ? '' : '; run deploy again to finish it'}`);
  if (result.notApplied.length) lines.push(`  not ${done}: ${result.notApplied.map((n) => `${n.stack} (${n.why})`).join(', ')}`);
  process.stderr.write(`${lines.join('\n')}\n`);
}

/**
 * One line typed on the terminal (stdin is one: `confirmation` said so): whether it is `yes`.
 * An interrupt while waiting answers no.
 */
function ask(question: string, supervisor: TofuSupervisor): Promise<boolean> {
  return new Promise((resolve) => {
    const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: false });
    let answered = false;
    const finish = (answer: string | undefined) => {
      if (answered) return;
      answered = true;
      clearInterval(poll);
      rl.close();
      process.stdin.pause();
      resolve(acceptsAnswer(answer) && !supervisor.interrupted);
    };
    // Ctrl-C reaches deploy as SIGINT (the terminal stays in line mode), which the supervisor records.
    const poll = setInterval(() => supervisor.interrupted && finish(undefined), 100);
    rl.on('line', finish);
    rl.on('close', () => finish(undefined));
    process.stderr.write(question);
  });
}
