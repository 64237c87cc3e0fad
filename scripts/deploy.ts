/**
 * `npm run --silent deploy -- --config <lab.yaml> [--against <old lab.yaml> | --against-out <dir>]
 *    [--stacks <glob,…>] [--out <dir>] [--parallel <n>] [--plan] [--phase retire]`
 *
 * Synthesizes the description into `--out` (through the synth cache), then runs OpenTofu on the
 * stacks that changed (all stacks without --against), filtered by --stacks: `tofu init` and
 * `tofu apply` (or `tofu plan` with --plan) in each stack's directory, in dependency order
 * (manifest.json), up to --parallel at once where the order allows, with progress on stderr. It
 * stops at the first failure and says what was applied, what failed and what was not applied.
 * Removed stacks are listed, never destroyed. Before each `proxmox-<instance>` apply, what an
 * interrupted run left in Proxmox but not in the state is imported or replaced, and said
 * (scripts/lib/deploy-recover.ts); with --plan it is only said.
 *
 * Surge, then retire (docs/tenants.md): a change that replaces node groups with no surge is refused
 * before anything is synthesized (scripts/lib/upgrade-guard.ts, against the output deployed last),
 * and a retire step — old machine deployments dropped while new ones carry their pools on — is
 * applied only when those new ones are Ready in the management cluster, read live through its
 * kubeconfig, or with `--phase retire` (scripts/lib/retire-guard.ts).
 *
 * tofu comes from PATH (`eval "$(scripts/toolchain env)"` for the offline toolchain). Each
 * `proxmox-<instance>` stack gets its administrator token from PROXMOX_API_TOKENS (a JSON object of
 * tokens by instance name, as the review workflow's secret) or else from TF_VAR_proxmox_api_token.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { runOrder } from '../modules/review';
import { labChanges } from './lib/changes';
import { parseFlags, runCommand, UsageError, UserError } from './lib/cli';
import { runInOrder, stackGlob, type StackOutcome } from './lib/deploy-run';
import { recoverStack } from './lib/deploy-recover';
import { synthesizeLab } from './lib/synthesize';
import { guardRetire, retireSteps } from './lib/retire-guard';
import { machineDeploymentsOfOutput, refuseUnrollableUpgrades } from './lib/upgrade-guard';
import { loadLabFile } from '../modules/config/load';
import { AUTOMATION, errorBlock, firstError, tofuOnPath, TofuSupervisor } from './lib/tofu';

const usage =
  'npm run --silent deploy -- --config <lab.yaml> [--against <old lab.yaml> | --against-out <dir>] [--stacks <glob,…>] [--out <dir>] [--parallel <n>] [--plan] [--phase retire]';

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

runCommand(async () => {
  const flags = parseFlags(
    process.argv.slice(2),
    {
      config: { type: 'string', value: '<lab.yaml>', help: 'the lab description' },
      against: { type: 'string', value: '<old lab.yaml>', help: 'deploy only the stacks that changed since this description' },
      'against-out': { type: 'string', value: '<dir>', help: 'the synth output of the old description (with --against)' },
      stacks: { type: 'string', value: '<glob,…>', help: 'only the stacks matching these globs' },
      out: { type: 'string', value: '<dir>', help: 'where the stacks are synthesized (default: cdktf.out)' },
      parallel: { type: 'string', value: '<n>', help: 'run up to n stacks at once where the order allows (default: 1)' },
      plan: { type: 'boolean', help: 'tofu plan instead of tofu apply' },
      phase: { type: 'string', value: 'retire', help: 'retire: the new machine deployments of a retire step are Ready (checked by you, not read live)' },
    },
    usage,
    { about: 'Synthesizes the description and runs OpenTofu on the stacks that changed, in dependency order; stops at the first failure.' },
  );
  if (!flags.config) throw new UsageError(`--config is needed\n\nusage: ${usage}`);
  if (flags.phase !== undefined && flags.phase !== 'retire') throw new UsageError(`--phase must be retire (got "${flags.phase}")\n\nusage: ${usage}`);
  if (flags['against-out'] && !flags.against) throw new UsageError(`--against-out needs --against (the old description, for the reasons)\n\nusage: ${usage}`);
  const parallel = flags.parallel === undefined ? 2 : Number(flags.parallel);
  if (!Number.isInteger(parallel) || parallel < 1) throw new UsageError(`--parallel must be a whole number ≥ 1 (got "${flags.parallel}")\n\nusage: ${usage}`);
  const supervisor = new TofuSupervisor(tofuPathOrFail());
  const byInstance = tokens();
  const config = flags.config as string;
  const out = (flags.out as string | undefined) ?? 'out';
  const verb = flags.plan ? 'plan' : 'apply';

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
  const reasons = new Map<string, string>();
  if (flags.against) {
    const changes = labChanges({ config, against: flags.against as string, againstOut: flags['against-out'] as string | undefined, out });
    candidates = changes.changes.filter((c) => c.change !== 'removed').map((c) => c.stack);
    removed = changes.changes.filter((c) => c.change === 'removed').map((c) => c.stack);
    for (const c of changes.changes) reasons.set(c.stack, c.reasons.join('; '));
  } else {
    candidates = runOrder(synthesizeLab({ config, out }).stacks);
  }
  const filter = flags.stacks ? stackGlob(flags.stacks as string) : () => true;
  const stacks = candidates.filter(filter);
  const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as { stacks: Record<string, { dependencies: string[] }> };
  const dependencies = Object.fromEntries(Object.entries(manifest.stacks).map(([s, m]) => [s, m.dependencies]));
  const where = relative(process.cwd(), out) || '.';

  // The retire step goes only when the new machine deployments are Ready (live, or --phase retire).
  if (!flags.plan) {
    const steps = retireSteps(before, machineDeploymentsOfOutput(out)).filter((s) => stacks.includes(`tenant-${s.tenant}`));
    for (const line of await guardRetire(loadLabFile(config), steps, flags.phase as string | undefined)) process.stderr.write(`  ${line}\n`);
  }

  const skipped = candidates.filter((s) => !filter(s));
  process.stderr.write(
    `${stacks.length} stack(s) to ${verb}${flags.against ? ` (changed against ${flags.against})` : ''}${skipped.length ? `; left out by --stacks: ${skipped.join(', ')}` : ''}, from ${where}/stacks\n`,
  );
  for (const stack of stacks) if (reasons.has(stack)) process.stderr.write(`  ${stack}: ${reasons.get(stack)}\n`);
  for (const stack of removed)
    process.stderr.write(
      `  ${stack}: removed from the description — deploy never destroys; run \`tofu destroy\` in its directory first (see docs/usage.md, "Tenants")\n`,
    );
  if (stacks.length === 0) {
    process.stderr.write(`nothing to ${verb}\n`);
    return;
  }

  // The toolchain's plugin cache is not safe for concurrent inits: one at a time, applies in parallel.
  let initLock: Promise<unknown> = Promise.resolve();
  const run = async (stack: string): Promise<StackOutcome> => {
    const cwd = join(out, 'stacks', stack);
    const instance = stack.startsWith('proxmox-') ? stack.slice('proxmox-'.length) : undefined;
    const token = instance ? (byInstance[instance] ?? process.env.TF_VAR_proxmox_api_token) : undefined;
    const env: NodeJS.ProcessEnv = { ...process.env, ...AUTOMATION, ...(token ? { TF_VAR_proxmox_api_token: token } : {}) };
    const secrets = [token ?? '', ...Object.values(byInstance)];
    await supervisor.waitForEarlier(cwd, stack);
    const init = (initLock = initLock.then(() =>
      supervisor.interrupted ? { code: 1, output: '' } : supervisor.run(['init', '-input=false', '-no-color'], cwd, env, secrets),
    ));
    const initialized = (await init) as { code: number; output: string };
    if (supervisor.interrupted)
      return { ok: false, interrupted: true, summary: `stopped by ${supervisor.interrupted} before tofu apply started: nothing applied` };
    if (initialized.code !== 0) return { ok: false, summary: `tofu init: ${firstError(initialized.output)}`, detail: errorBlock(initialized.output) };
    // After an interrupted run: objects in Proxmox that the state lacks are imported or replaced first (scripts/lib/deploy-recover.ts).
    if (instance && token) {
      const recovery = await recoverStack({ stack, cwd, token, supervisor, env, secrets, dryRun: !!flags.plan, log: (l) => process.stderr.write(`${l}\n`) });
      if (recovery) return recovery;
    }
    // -lock-timeout: a tofu an earlier deploy left running (deploy killed) may still hold the state.
    const args = flags.plan
      ? ['plan', '-input=false', '-no-color', '-detailed-exitcode', '-lock-timeout=10m']
      : ['apply', '-auto-approve', '-input=false', '-no-color', '-lock-timeout=10m'];
    const result = await supervisor.run(args, cwd, env, secrets);
    const interrupted = supervisor.interrupted;
    if (interrupted && !(result.code === 0 || (flags.plan && result.code === 2))) {
      const made = (result.output.match(/: (Creation|Modifications|Destruction) complete after/g) ?? []).length;
      return {
        ok: false,
        interrupted: true,
        summary: `tofu stopped by ${interrupted} after ${made} resource change(s), its state written${result.signal ? ` (tofu ended by ${result.signal})` : ''}`,
        detail: errorBlock(result.output),
      };
    }
    if (flags.plan && result.code === 0) return { ok: true, summary: 'no changes' };
    if (result.code !== 0 && !(flags.plan && result.code === 2))
      return { ok: false, summary: `tofu ${verb}: ${firstError(result.output)}`, detail: errorBlock(result.output) };
    const counts =
      /(\d+) to add, (\d+) to change, (\d+) to destroy/.exec(result.output) ?? /Resources: (\d+) added, (\d+) changed, (\d+) destroyed/.exec(result.output);
    return {
      ok: true,
      summary: counts
        ? `${counts[1]} added, ${counts[2]} changed, ${counts[3]} destroyed${flags.plan ? ' (planned)' : ''}`
        : /No changes/.test(result.output)
          ? 'no changes'
          : 'done',
    };
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
  const result = await runInOrder({
    stacks,
    dependencies,
    parallel,
    run,
    stopped: () => (supervisor.interrupted ? `interrupted (${supervisor.interrupted})` : undefined),
    onEvent: (e) => {
      if (e.kind === 'start') process.stderr.write(`[${stamp()}] [${e.index}/${e.total}] ▶ ${e.stack}: init, ${verb}\n`);
      else
        process.stderr.write(
          `[${stamp()}] [${e.index}/${e.total}] ${e.outcome.ok ? '✔' : e.outcome.interrupted ? '■' : '✘'} ${e.stack}: ${e.outcome.ok ? (flags.plan ? 'planned' : 'applied') + ' — ' : e.outcome.interrupted ? 'interrupted — ' : 'failed — '}${e.outcome.summary} (${e.seconds.toFixed(1)} s)\n`,
        );
    },
  });
  const done = flags.plan ? 'planned' : 'applied';
  const interrupted = supervisor.interrupted;
  const lines = [
    interrupted
      ? `deploy interrupted by ${interrupted}: ${result.applied.length} stack(s) ${done}, ${result.interrupted.length} stopped with their state written`
      : result.failed
        ? `deploy stopped: ${result.failed.stack} failed`
        : `deploy complete: ${result.applied.length} stack(s) ${done}`,
  ];
  lines.push(`  ${done}:${' '.repeat(Math.max(1, 12 - done.length))}${result.applied.length ? result.applied.map((a) => a.stack).join(', ') : '(none)'}`);
  if (result.failed) {
    lines.push(`  failed:      ${result.failed.stack} — ${result.failed.summary}`);
    if (result.failed.detail) lines.push(...result.failed.detail.split('\n').map((l) => `      ${l}`));
  }
  for (const i of result.interrupted) lines.push(`  interrupted: ${i.stack} — ${i.summary}; run deploy again to finish it`);
  if (result.notApplied.length) lines.push(`  not ${done}: ${result.notApplied.map((n) => `${n.stack} (${n.why})`).join(', ')}`);
  process.stderr.write(`${lines.join('\n')}\n`);
  if (interrupted) process.exit(EXIT_CODES[interrupted] ?? 130);
  if (result.failed) process.exitCode = 1;
});
