/**
 * `npm run --silent deploy -- --config <lab.yaml> [--against <old lab.yaml> | --against-out <dir>]
 *    [--stacks <glob,…>] [--out <dir>] [--parallel <n>] [--plan] [--phase retire]`
 *
 * Synthesizes the description into `--out` (through the synth cache), then runs OpenTofu on the
 * stacks that changed (all stacks without --against), filtered by --stacks: `tofu init` and
 * `tofu apply` (or `tofu plan` with --plan) in each stack's directory, in dependency order
 * (manifest.json), up to --parallel at once where the order allows, with progress on stderr. It
 * stops at the first failure and says what was applied, what failed and what was not applied.
 * Removed stacks are listed, never destroyed.
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
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, relative } from 'node:path';
import { runOrder } from '../modules/review';
import { labChanges } from './lib/changes';
import { parseFlags, runCommand, UsageError, UserError } from './lib/cli';
import { runInOrder, stackGlob, type StackOutcome } from './lib/deploy-run';
import { alive } from './lib/output-dir';
import { synthesizeLab } from './lib/synthesize';
import { guardRetire, retireSteps } from './lib/retire-guard';
import { machineDeploymentsOfOutput, refuseUnrollableUpgrades } from './lib/upgrade-guard';
import { loadLabFile } from '../modules/config/load';

const usage = 'npm run --silent deploy -- --config <lab.yaml> [--against <old lab.yaml> | --against-out <dir>] [--stacks <glob,…>] [--out <dir>] [--parallel <n>] [--plan] [--phase retire]';

function tofuOnPath(): string {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) if (dir && existsSync(join(dir, 'tofu'))) return join(dir, 'tofu');
  throw new UserError('tofu is not on the PATH\n  fix: eval "$(scripts/toolchain env)" (after scripts/toolchain install), or install OpenTofu');
}

function tokens(): Record<string, string> {
  const text = process.env.PROXMOX_API_TOKENS;
  if (!text) return {};
  try {
    const value = JSON.parse(text);
    if (typeof value === 'object' && value && !Array.isArray(value) && Object.values(value).every((v) => typeof v === 'string')) return value as Record<string, string>;
  } catch {
    // reported below
  }
  throw new UserError('PROXMOX_API_TOKENS is not a JSON object of tokens by instance name\n  fix: PROXMOX_API_TOKENS=\'{"pmox-txl": "root@pam!pvekaas=<secret>"}\'');
}

/**
 * Interrupts, as OpenTofu expects them. OpenTofu stops gracefully on its first interrupt — it lets
 * the resources in progress finish and writes its state — and stops hard on a second, with state
 * lost (its local backend rewrites the state file in place: opentofu/opentofu,
 * internal/states/statemgr/filesystem.go, persistState truncates the file and writes it anew, after
 * one `<state>.backup` of the run's starting state). So every tofu runs in a process group of its
 * own (Ctrl-C in a terminal reaches deploy only, never tofu and its provider plugins directly), and
 * deploy passes on exactly one SIGINT per tofu process, whatever it receives; further signals are
 * not passed on. Deploy starts nothing new, waits for every tofu to exit, removes anything left in
 * their process groups (provider plugins), says what was applied, interrupted and not started, and
 * exits 130 (SIGINT), 143 (SIGTERM) or 129 (SIGHUP).
 *
 * SIGKILL of deploy cannot be passed on: tofu then runs on alone (its output goes to a file, not to
 * a pipe that would break under it), applies what it started, writes its state and exits; the next
 * deploy waits for it (the pid file it leaves in the stack directory, then the state lock with
 * -lock-timeout) before running that stack again.
 */
const running = new Set<ChildProcess>();
let interrupted: NodeJS.Signals | undefined;
const EXIT_CODES: Partial<Record<NodeJS.Signals, number>> = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 };

function onSignal(signal: NodeJS.Signals): void {
  if (interrupted) {
    process.stderr.write(`${signal} again: still waiting for ${running.size} tofu process(es) to finish and write their state (a second interrupt would make tofu stop without saving it, so none is passed on)\n`);
    return;
  }
  interrupted = signal;
  process.stderr.write(`${signal}: stopping — nothing new starts; ${running.size} running tofu process(es) asked once to stop: they finish the resources in progress and write their state\n`);
  for (const child of running) child.kill('SIGINT');
}

/** A file in the stack directory naming the tofu a deploy started there, while it runs. */
const PID_FILE = '.pvekaas-deploy.pid';


/** Waits for a tofu an earlier deploy left running in `cwd` (killed with SIGKILL, its tofu ran on). */
async function waitForEarlierTofu(cwd: string, stack: string): Promise<void> {
  let pid: number;
  try {
    pid = Number(readFileSync(join(cwd, PID_FILE), 'utf8').trim());
  } catch {
    return;
  }
  const isTofu = () => {
    try {
      return alive(pid) && /tofu/.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
    } catch {
      return false;
    }
  };
  if (Number.isInteger(pid) && pid > 0 && isTofu()) {
    process.stderr.write(`  ${stack}: waiting for tofu (pid ${pid}) of an earlier deploy to finish and write its state\n`);
    while (isTofu()) await new Promise((r) => setTimeout(r, 250));
  }
  rmSync(join(cwd, PID_FILE), { force: true });
}

/**
 * Runs tofu in its own process group, its output in a private file (never a pipe: with deploy gone
 * a broken pipe would kill tofu mid-apply), and returns that output with the given secrets masked.
 * When it exits, whatever is left in its process group (a provider plugin) is killed.
 */
function tofu(tofuPath: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, secrets: string[]): Promise<{ code: number; output: string; signal?: NodeJS.Signals }> {
  const logDir = mkdtempSync(join(tmpdir(), 'pvekaas-deploy-'));
  const log = join(logDir, 'tofu.log');
  const fd = openSync(log, 'w', 0o600);
  return new Promise((resolve) => {
    let child: ChildProcess;
    try {
      child = spawn(tofuPath, args, { cwd, env, stdio: ['ignore', fd, fd], detached: true });
    } finally {
      closeSync(fd);
    }
    running.add(child);
    if (child.pid) writeFileSync(join(cwd, PID_FILE), `${child.pid}\n`);
    // An interrupt that came while this tofu was being started reaches it too.
    if (interrupted) child.kill('SIGINT');
    const finish = (code: number, signal?: NodeJS.Signals) => {
      running.delete(child);
      if (child.pid) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          // nothing left in its group
        }
      }
      rmSync(join(cwd, PID_FILE), { force: true });
      let output = '';
      try {
        output = readFileSync(log, 'utf8');
      } catch {
        // no output
      }
      rmSync(logDir, { recursive: true, force: true });
      resolve({ code, output: secrets.reduce((text, s) => (s ? text.split(s).join('***') : text), output), ...(signal ? { signal } : {}) });
    };
    child.on('error', () => finish(127));
    child.on('close', (code, signal) => finish(code ?? 1, signal ?? undefined));
  });
}

/** The first error tofu printed, on one line. */
function firstError(output: string): string {
  const lines = output.split('\n').map((l) => l.replace(/^[│╷╵\s]+/, '').trim());
  const at = lines.findIndex((l) => l.startsWith('Error:'));
  if (at < 0) return lines.filter(Boolean).slice(-1)[0] ?? 'no output';
  return lines[at].slice(0, 300);
}

/** tofu's first error block as it printed it (at most 20 lines), for the failure report. */
function errorBlock(output: string): string {
  const lines = output.split('\n');
  const at = lines.findIndex((l) => /^[│╷\s]*Error:/.test(l));
  const block = at < 0 ? lines.filter((l) => l.trim()).slice(-10) : lines.slice(at, at + 20);
  // The first error only (tofu repeats one block per resource): up to the next "Error:" or the box's end.
  const end = block.findIndex((l, i) => i > 0 && (/^╵/.test(l) || /^[│╷\s]*Error:/.test(l)));
  const first = end > 0 ? block.slice(0, /^╵/.test(block[end]) ? end + 1 : end) : block;
  const more = lines.filter((l) => /^[│╷\s]*Error:/.test(l)).length - 1;
  return [...first.filter((l, i, all) => l.trim() || (i > 0 && i < all.length - 1)), ...(more > 0 ? [`(and ${more} more error${more === 1 ? "" : "s"})`] : [])].join('\n');
}

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
  const tofuPath = tofuOnPath();
  const byInstance = tokens();
  const config = flags.config as string;
  const out = (flags.out as string | undefined) ?? 'out';
  const verb = flags.plan ? 'plan' : 'apply';

  // A tofu an earlier deploy left running (that deploy was killed) finishes before its stack
  // directory is synthesized anew: replacing the directory under it would break its last state writes.
  const stacksDir = join(out, 'stacks');
  if (existsSync(stacksDir)) for (const stack of readdirSync(stacksDir).sort()) await waitForEarlierTofu(join(stacksDir, stack), stack);

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
  for (const stack of removed) process.stderr.write(`  ${stack}: removed from the description — deploy never destroys; run \`tofu destroy\` in its directory first (see docs/usage.md, "Tenants")\n`);
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
    const env: NodeJS.ProcessEnv = { ...process.env, TF_IN_AUTOMATION: '1', TF_INPUT: '0', NO_COLOR: '1', ...(token ? { TF_VAR_proxmox_api_token: token } : {}) };
    const secrets = [token ?? '', ...Object.values(byInstance)];
    await waitForEarlierTofu(cwd, stack);
    const init = (initLock = initLock.then(() => (interrupted ? { code: 1, output: '' } : tofu(tofuPath, ['init', '-input=false', '-no-color'], cwd, env, secrets))));
    const initialized = (await init) as { code: number; output: string };
    if (interrupted) return { ok: false, interrupted: true, summary: `stopped by ${interrupted} before tofu apply started: nothing applied` };
    if (initialized.code !== 0) return { ok: false, summary: `tofu init: ${firstError(initialized.output)}`, detail: errorBlock(initialized.output) };
    // -lock-timeout: a tofu an earlier deploy left running (deploy killed) may still hold the state.
    const args = flags.plan ? ['plan', '-input=false', '-no-color', '-detailed-exitcode', '-lock-timeout=10m'] : ['apply', '-auto-approve', '-input=false', '-no-color', '-lock-timeout=10m'];
    const result = await tofu(tofuPath, args, cwd, env, secrets);
    if (interrupted && !(result.code === 0 || (flags.plan && result.code === 2))) {
      const made = (result.output.match(/: (Creation|Modifications|Destruction) complete after/g) ?? []).length;
      return { ok: false, interrupted: true, summary: `tofu stopped by ${interrupted} after ${made} resource change(s), its state written${result.signal ? ` (tofu ended by ${result.signal})` : ''}`, detail: errorBlock(result.output) };
    }
    if (flags.plan && result.code === 0) return { ok: true, summary: 'no changes' };
    if (result.code !== 0 && !(flags.plan && result.code === 2)) return { ok: false, summary: `tofu ${verb}: ${firstError(result.output)}`, detail: errorBlock(result.output) };
    const counts = /(\d+) to add, (\d+) to change, (\d+) to destroy/.exec(result.output) ?? /Resources: (\d+) added, (\d+) changed, (\d+) destroyed/.exec(result.output);
    return { ok: true, summary: counts ? `${counts[1]} added, ${counts[2]} changed, ${counts[3]} destroyed${flags.plan ? ' (planned)' : ''}` : /No changes/.test(result.output) ? 'no changes' : 'done' };
  };

  // From here on an interrupt is passed on to tofu, once (see onSignal); before, nothing ran yet.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, onSignal);

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
    stopped: () => (interrupted ? `interrupted (${interrupted})` : undefined),
    onEvent: (e) => {
      if (e.kind === 'start') process.stderr.write(`[${stamp()}] [${e.index}/${e.total}] ▶ ${e.stack}: init, ${verb}\n`);
      else process.stderr.write(`[${stamp()}] [${e.index}/${e.total}] ${e.outcome.ok ? '✔' : e.outcome.interrupted ? '■' : '✘'} ${e.stack}: ${e.outcome.ok ? (flags.plan ? 'planned' : 'applied') + ' — ' : e.outcome.interrupted ? 'interrupted — ' : 'failed — '}${e.outcome.summary} (${e.seconds.toFixed(1)} s)\n`);
    },
  });
  const done = flags.plan ? 'planned' : 'applied';
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
