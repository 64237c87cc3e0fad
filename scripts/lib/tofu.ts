/**
 * The one place pvekaas runs OpenTofu: deploy (scripts/deploy.ts), the simulated lab and the twin
 * (scripts/lib/lab-run.ts), the bindings generator (scripts/gen-bindings.ts) and the tests
 * (test/support/toolchain.ts, the e2e and delivery suites) all start tofu through it.
 *
 * - The environment: `toolchainEnv` is the process environment with `scripts/toolchain env` applied
 *   (the toolchain's tofu first on PATH, its CLI config with the offline provider mirror and plugin
 *   cache); `AUTOMATION` holds the variables every unattended run sets.
 * - `runTofu` / `runTofuSync`: one run, its stdout and stderr captured (init, plan, apply, show,
 *   output, providers schema ...).
 * - `TofuSupervisor`: deploy's runs, which must survive deploy's own end and take interrupts as
 *   OpenTofu expects them (see the class); `firstError` and `errorBlock` read tofu's output.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { alive } from './output-dir';

/** What every unattended run sets: no prompts, no colour, output meant for a log. */
export const AUTOMATION = { TF_INPUT: '0', TF_IN_AUTOMATION: '1', NO_COLOR: '1' } as const;

/** The process environment with `scripts/toolchain env` applied (tofu on PATH, the offline mirror). */
export function toolchainEnv(root: string, base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const dump = execFileSync('bash', ['-c', 'eval "$("$0"/scripts/toolchain env)" && env -0', root], { env: base, encoding: 'utf8' });
  const env: NodeJS.ProcessEnv = {};
  for (const entry of dump.split('\0')) {
    const eq = entry.indexOf('=');
    if (eq > 0) env[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  return env;
}

/** The tofu on `PATH`, or undefined. */
export function tofuOnPath(path: string = process.env.PATH ?? ''): string | undefined {
  for (const dir of path.split(delimiter)) if (dir && existsSync(join(dir, 'tofu'))) return join(dir, 'tofu');
  return undefined;
}

export interface TofuOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The tofu binary; by default `tofu` found on `env.PATH`. */
  tofu?: string;
}

export interface TofuResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** One tofu run, asynchronously (several stacks run at once against the simulator), its output captured. */
export function runTofu(args: string[], options: TofuOptions): Promise<TofuResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(options.tofu ?? 'tofu', args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

/** One tofu run, synchronously (the tests' fmt, init and validate), its output captured; -1 when it did not exit. */
export function runTofuSync(args: string[], options: TofuOptions): TofuResult {
  const r = spawnSync(options.tofu ?? 'tofu', args, { cwd: options.cwd, env: options.env, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** A supervised run's outcome: its exit code, its output (stdout and stderr as written, secrets masked), the signal that ended it. */
export interface SupervisedResult {
  code: number;
  output: string;
  signal?: NodeJS.Signals;
}

/** A file in the stack directory naming the tofu a deploy started there, while it runs. */
const PID_FILE = '.pvekaas-deploy.pid';

/**
 * Interrupts, as OpenTofu expects them. OpenTofu stops gracefully on its first interrupt — it lets
 * the resources in progress finish and writes its state — and stops hard on a second, with state
 * lost (its local backend rewrites the state file in place: opentofu/opentofu,
 * internal/states/statemgr/filesystem.go, persistState truncates the file and writes it anew, after
 * one `<state>.backup` of the run's starting state). So every tofu runs in a process group of its
 * own (Ctrl-C in a terminal reaches deploy only, never tofu and its provider plugins directly), and
 * the supervisor passes on exactly one SIGINT per tofu process, whatever it receives; further
 * signals are not passed on. Its owner starts nothing new once `interrupted` is set and waits for
 * every run to end; each run's process group (provider plugins) is emptied when tofu exits.
 *
 * SIGKILL of the owner cannot be passed on: tofu then runs on alone (its output goes to a file, not
 * to a pipe that would break under it), applies what it started, writes its state and exits; the
 * next supervisor waits for it (the pid file it leaves in the stack directory: `waitForEarlier`;
 * then the state lock, with -lock-timeout) before running that stack again.
 */
export class TofuSupervisor {
  private readonly running = new Set<ChildProcess>();
  private signal?: NodeJS.Signals;

  constructor(
    /** The tofu binary every run starts. */
    readonly tofuBinary: string,
    private readonly log: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
  ) {}

  /** The signal that interrupted the runs, once one came. */
  get interrupted(): NodeJS.Signals | undefined {
    return this.signal;
  }

  /** From now on SIGINT, SIGTERM and SIGHUP of this process interrupt the runs (once: see the class). */
  passInterrupts(): void {
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, (s: NodeJS.Signals) => this.interrupt(s));
  }

  interrupt(signal: NodeJS.Signals): void {
    if (this.signal) {
      this.log(
        `${signal} again: still waiting for ${this.running.size} tofu process(es) to finish and write their state (a second interrupt would make tofu stop without saving it, so none is passed on)`,
      );
      return;
    }
    this.signal = signal;
    this.log(
      `${signal}: stopping — nothing new starts; ${this.running.size} running tofu process(es) asked once to stop: they finish the resources in progress and write their state`,
    );
    for (const child of this.running) child.kill('SIGINT');
  }

  /** Waits for a tofu an earlier supervisor left running in `cwd` (its owner killed with SIGKILL, tofu ran on). */
  async waitForEarlier(cwd: string, stack: string): Promise<void> {
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
      this.log(`  ${stack}: waiting for tofu (pid ${pid}) of an earlier deploy to finish and write its state`);
      while (isTofu()) await new Promise((r) => setTimeout(r, 250));
    }
    rmSync(join(cwd, PID_FILE), { force: true });
  }

  /**
   * Runs tofu in its own process group, its output in a private file (never a pipe: with the owner
   * gone a broken pipe would kill tofu mid-apply), and returns that output with the given secrets
   * masked. When it exits, whatever is left in its process group (a provider plugin) is killed.
   */
  run(args: string[], cwd: string, env: NodeJS.ProcessEnv, secrets: string[]): Promise<SupervisedResult> {
    const logDir = mkdtempSync(join(tmpdir(), 'pvekaas-deploy-'));
    const log = join(logDir, 'tofu.log');
    const fd = openSync(log, 'w', 0o600);
    return new Promise((resolve) => {
      let child: ChildProcess;
      try {
        child = spawn(this.tofuBinary, args, { cwd, env, stdio: ['ignore', fd, fd], detached: true });
      } finally {
        closeSync(fd);
      }
      this.running.add(child);
      if (child.pid) writeFileSync(join(cwd, PID_FILE), `${child.pid}\n`);
      // An interrupt that came while this tofu was being started reaches it too.
      if (this.signal) child.kill('SIGINT');
      const finish = (code: number, signal?: NodeJS.Signals) => {
        this.running.delete(child);
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
}

/** The first error tofu printed, on one line. */
export function firstError(output: string): string {
  const lines = output.split('\n').map((l) => l.replace(/^[│╷╵\s]+/, '').trim());
  const at = lines.findIndex((l) => l.startsWith('Error:'));
  if (at < 0) return lines.filter(Boolean).slice(-1)[0] ?? 'no output';
  return lines[at].slice(0, 300);
}

/** tofu's first error block as it printed it (at most 20 lines), for a failure report. */
export function errorBlock(output: string): string {
  const lines = output.split('\n');
  const at = lines.findIndex((l) => /^[│╷\s]*Error:/.test(l));
  const block = at < 0 ? lines.filter((l) => l.trim()).slice(-10) : lines.slice(at, at + 20);
  // The first error only (tofu repeats one block per resource): up to the next "Error:" or the box's end.
  const end = block.findIndex((l, i) => i > 0 && (/^╵/.test(l) || /^[│╷\s]*Error:/.test(l)));
  const first = end > 0 ? block.slice(0, /^╵/.test(block[end]) ? end + 1 : end) : block;
  const more = lines.filter((l) => /^[│╷\s]*Error:/.test(l)).length - 1;
  return [
    ...first.filter((l, i, all) => l.trim() || (i > 0 && i < all.length - 1)),
    ...(more > 0 ? [`(and ${more} more error${more === 1 ? '' : 's'})`] : []),
  ].join('\n');
}
