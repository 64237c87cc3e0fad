/**
 * `deploy` interrupted (issue 26, item 1): SIGINT and SIGKILL sent to deploy at random moments of
 * an apply to the Proxmox VE API simulator with the real OpenTofu and bpg/proxmox. After each, no
 * process is left (deploy, tofu, provider plugins: every process whose working directory is in the
 * scratch directory), every state file parses, and a following deploy converges with no error
 * ("pool already exists" when state was lost) and a plan of no changes — state and simulator agree.
 *
 * The moments are random from a seed that is logged (PVEKAAS_INTERRUPT_SEED=<n> repeats a run).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { startSimulatedLab, type SimulatedLab } from '../../scripts/lib/lab-run';
import { compileProject, deployArgv, projectRoot, requireToolchain, tofuEnv } from '../support/toolchain';

const work = mkdtempSync(join(tmpdir(), 'pvekaas-interrupt-'));
const exampleText = readFileSync(join(projectRoot, 'examples/lab.yaml'), 'utf8');
const out = join(work, 'out');
const seed = Number(process.env.PVEKAAS_INTERRUPT_SEED ?? Date.now() % 1_000_000);
let run: SimulatedLab;

/** mulberry32: a small seeded generator, so a failing run can be repeated. */
function random(state: number): () => number {
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const next = random(seed);

beforeAll(async () => {
  requireToolchain();
  compileProject();
  process.stderr.write(`deploy interruption test: seed ${seed} (PVEKAAS_INTERRUPT_SEED=${seed} repeats it)\n`);
  run = await startSimulatedLab({ labText: exampleText, labFile: 'examples/lab.yaml', work, root: projectRoot });
}, 120_000);

afterAll(async () => {
  await run?.sim.stop();
  rmSync(work, { recursive: true, force: true });
});

const tokens = () => JSON.stringify(Object.fromEntries(run.sim.names.map((n) => [n, run.sim.adminToken(n)])));

/** Starts deploy (from the scratch directory: the lab's stateDir `state` lands there); `killAt` ms later sends `signal`. */
function deploy(
  config: string,
  extra: string[] = [],
  kill?: { signal: NodeJS.Signals; atMs: number },
): Promise<{ status: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const [node, ...argv] = deployArgv(['--config', config, '--stacks', 'proxmox-*', '--out', out, ...extra]);
    const child = spawn(node, argv, {
      cwd: work,
      env: tofuEnv({ PROXMOX_API_TOKENS: tokens(), NO_COLOR: '1' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout.resume();
    const timer = kill ? setTimeout(() => child.kill(kill.signal), kill.atMs) : undefined;
    const guard = setTimeout(() => child.kill('SIGKILL'), 280_000);
    child.on('error', reject);
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      clearTimeout(guard);
      resolve({ status, signal, stderr });
    });
  });
}

/** Every process (but this one) whose working directory is inside the scratch directory: deploy, tofu, provider plugins. */
function leftovers(): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    if (Number(pid) === process.pid) continue;
    try {
      if (readlinkSync(`/proc/${pid}/cwd`).startsWith(work))
        found.push(`${pid} ${readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').slice(0, 120)}`);
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

async function noneLeft(withinMs: number): Promise<string[]> {
  const until = Date.now() + withinMs;
  let left = leftovers();
  while (left.length > 0 && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 250));
    left = leftovers();
  }
  return left;
}

/** Every state file parses as a state (a file left at 0 bytes or cut short does not). */
function statesParse(): Record<string, string> {
  const dir = join(work, 'state');
  const verdict: Record<string, string> = {};
  if (!existsSync(dir)) return verdict;
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.tfstate'))) {
    try {
      const state = JSON.parse(readFileSync(join(dir, f), 'utf8'));
      verdict[f] = typeof state.version === 'number' && Array.isArray(state.resources) ? 'ok' : 'not a state';
    } catch (e) {
      verdict[f] = `unparseable: ${(e as Error).message.slice(0, 80)}`;
    }
  }
  return verdict;
}

/** The example lab, or the same with each instance's VM pool renamed (every tenant pool, token and ACL replaced): each round has work to do. */
function lab(variant: number): string {
  const file = join(work, `lab-${variant}.yaml`);
  const doc = parse(readFileSync(run.labFile, 'utf8'));
  if (variant % 2 === 1) for (const i of doc.proxmox.instances) i.pools = { vms: `capi${variant}`, templates: 'templates' };
  writeFileSync(file, stringify(doc));
  return file;
}

describe('deploy interrupted at random moments of an apply', () => {
  const rounds: NodeJS.Signals[] = ['SIGINT', 'SIGKILL', 'SIGINT', 'SIGKILL'];
  it.each(rounds.map((signal, i) => [i, signal] as const))(
    'round %i: %s, then no process left, every state parses, and the next deploy converges',
    async (i, signal) => {
      const config = lab(i);
      // Synthesis, init and the plans take several seconds (deploy plans every stack before it applies any); the applies run for several more.
      const atMs = Math.round(2500 + next() * 16000);
      process.stderr.write(`  round ${i}: ${signal} to deploy after ${atMs} ms (seed ${seed})\n`);
      const first = await deploy(config, [], { signal, atMs });
      if (signal === 'SIGINT') {
        // During synthesis, before any tofu: stopped at once by the signal, as synth is (or, while the
        // output is put in place, just after it, exit 130: output-dir.ts). Once tofu runs:
        // interrupted, each tofu stopped gracefully, exit 130. Or it was done before the signal came (0).
        const how =
          (first.signal === 'SIGINT' || (first.status === 130 && first.stderr.includes('SIGINT: stopped after the output was complete'))) &&
          !first.stderr.includes('▶')
            ? 'stopped before tofu'
            : first.status === 130
              ? 'interrupted'
              : first.status === 0
                ? 'done'
                : `unexpected: ${first.signal ?? first.status}\n${first.stderr.slice(-2000)}`;
        process.stderr.write(`  round ${i}: ${how}\n`);
        expect({ atMs, how: how.startsWith('unexpected') ? how : 'ok' }).toEqual({ atMs, how: 'ok' });
        if (first.status === 130)
          expect(first.stderr).toMatch(
            /deploy interrupted by SIGINT(: \d+ stack\(s\) applied, \d+ stopped with their state written| while planning: nothing applied)/,
          );
        expect(first.stderr).not.toContain(run.sim.adminToken('pmox-txl').split('=')[1]);
      } else {
        expect(first.signal === 'SIGKILL' || first.status === 0).toBe(true);
      }
      // Nothing left: after SIGINT at once; after SIGKILL once the tofu deploy left behind has finished on its own.
      expect({ atMs, left: await noneLeft(signal === 'SIGINT' ? 5_000 : 180_000) }).toEqual({ atMs, left: [] });
      expect({ atMs, states: Object.values(statesParse()).filter((v) => v !== 'ok') }).toEqual({ atMs, states: [] });
      const again = await deploy(config);
      expect({ atMs, status: again.status, tail: again.status === 0 ? '' : again.stderr.slice(-3000) }).toEqual({ atMs, status: 0, tail: '' });
      const plan = await deploy(config, ['--plan']);
      expect({ atMs, status: plan.status, tail: plan.status === 0 ? '' : plan.stderr.slice(-3000) }).toEqual({ atMs, status: 0, tail: '' });
      expect(plan.stderr.match(/✔ proxmox-\S+: planned — no changes/g)).toHaveLength(2);
      expect(await noneLeft(5_000)).toEqual([]);
    },
    600_000,
  );
});
