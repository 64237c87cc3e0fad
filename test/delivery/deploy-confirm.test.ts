/**
 * `deploy` shows the plan and asks before it changes a lab (issue 43, item 1), against the Proxmox
 * VE API simulator with the real OpenTofu and bpg/proxmox: refused with no terminal and no flag
 * (nothing synthesized, the simulator unchanged); `--config` required; a plan-only run with
 * --detailed-exitcode exits 2 with changes and 0 once applied; `--yes` applies; on a terminal (a
 * pseudo-terminal from util-linux `script`) the plan is shown in lab terms with its counts, a typed
 * `no` applies nothing and a typed `yes` applies exactly that plan.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { startSimulatedLab, type SimulatedLab } from '../../scripts/lib/lab-run';
import { compileProject, deployArgv, projectRoot, requireToolchain, tofuEnv } from '../support/toolchain';

const work = mkdtempSync(join(tmpdir(), 'pvekaas-deploy-confirm-'));
const exampleText = readFileSync(join(projectRoot, 'examples/lab.yaml'), 'utf8');
const out = join(work, 'deploy-out');
let run: SimulatedLab;

beforeAll(async () => {
  requireToolchain();
  compileProject();
  run = await startSimulatedLab({ labText: exampleText, labFile: 'examples/lab.yaml', work, root: projectRoot });
}, 120_000);

afterAll(async () => {
  await run?.sim.stop();
  rmSync(work, { recursive: true, force: true });
});

const env = () => tofuEnv({ PROXMOX_API_TOKENS: JSON.stringify(Object.fromEntries(run.sim.names.map((n) => [n, run.sim.adminToken(n)]))), NO_COLOR: '1' });
const snapshots = () => Object.fromEntries(run.sim.names.map((n) => [n, run.sim.snapshot(n)]));
const poolIds = (instance: string): string[] => run.sim.snapshot(instance).pools.map((p: { poolid: string }) => p.poolid);

interface Ran {
  status: number | null;
  output: string;
}

/** A command without a terminal (stdin not a TTY), from the scratch directory (the lab's stateDir lands there). */
function plain(argv: string[]): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0], argv.slice(1), { cwd: work, env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const guard = setTimeout(() => child.kill('SIGKILL'), 280_000);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(guard);
      resolve({ status, output });
    });
  });
}

/** deploy on a pseudo-terminal (`script -qec`): once it asks, `answer` is typed. */
function onTerminal(args: string[], answer: string): Promise<Ran & { asked: boolean }> {
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const command = [process.execPath, join(projectRoot, 'dist/scripts/deploy.js'), ...args].map(quote).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], { cwd: work, env: env(), stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    let asked = false;
    const read = (d: Buffer) => {
      output += d.toString().replace(/\r\n/g, '\n');
      if (!asked && output.includes("Only 'yes' is accepted: ")) {
        asked = true;
        child.stdin.write(`${answer}\n`);
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    const guard = setTimeout(() => child.kill('SIGKILL'), 280_000);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(guard);
      resolve({ status, output, asked });
    });
  });
}

function labWith(name: string, change: (lab: any) => void): string {
  const lab = parse(readFileSync(run.labFile, 'utf8'));
  change(lab);
  const file = join(work, `${name}.yaml`);
  writeFileSync(file, stringify(lab));
  return file;
}
const fraPool = () =>
  labWith(
    'fra-pool',
    (lab) => (lab.proxmox.instances.find((i: { name: string }) => i.name === 'pmox-fra').pools = { vms: 'capi-fra', templates: 'templates' }),
  );

describe('deploy asks before it changes the lab', () => {
  it('needs --config, and says so naming the flag', async () => {
    const r = await plain(deployArgv(['--stacks', 'proxmox-*', '--out', out]));
    expect(r.status).toBe(1);
    expect(r.output).toContain('--config <lab.yaml> is required: deploy changes a real lab, so it never falls back to examples/lab.yaml');
    expect(existsSync(out)).toBe(false);
  }, 60_000);

  it('refuses with no terminal and no --yes, before anything is synthesized or applied', async () => {
    const before = snapshots();
    const r = await plain([process.execPath, join(projectRoot, 'dist/scripts/deploy.js'), '--config', run.labFile, '--stacks', 'proxmox-*', '--out', out]);
    expect(r.status).toBe(1);
    expect(r.output).toContain('stdin is not a terminal');
    expect(r.output).toContain('pass --yes (or --auto-approve)');
    expect(r.output).not.toContain('▶');
    expect(existsSync(out)).toBe(false);
    expect(snapshots()).toEqual(before);
  }, 60_000);

  it('--plan-only --detailed-exitcode: exit 2 with changes, the plan shown, nothing applied', async () => {
    const before = snapshots();
    const r = await plain(deployArgv(['--config', run.labFile, '--stacks', 'proxmox-*', '--out', out, '--plan-only', '--detailed-exitcode']));
    expect(r.status === 2 ? 'exit 2' : r.output).toBe('exit 2');
    expect(r.output).toContain('In lab terms: every stack of the description');
    expect(r.output).toMatch(/ {2}proxmox-pmox-txl: \d+ to add, 0 to change, 0 to destroy\n/);
    expect(r.output).toMatch(/ +\+ create +proxmox_acl\./);
    expect(r.output).toContain('plan only: nothing applied (2 stack(s) would change: proxmox-pmox-fra, proxmox-pmox-txl)');
    expect(snapshots()).toEqual(before);
  }, 300_000);

  it('--yes applies without asking; then a plan-only run exits 0', async () => {
    const r = await plain(deployArgv(['--config', run.labFile, '--stacks', 'proxmox-*', '--out', out]));
    expect(r.status === 0 ? 'exit 0' : r.output).toBe('exit 0');
    expect(r.output).not.toContain("Only 'yes'");
    expect(r.output).toMatch(/✔ proxmox-pmox-txl: applied — \d+ added, 0 changed, 0 destroyed/);
    for (const n of run.sim.names) expect(run.sim.snapshot(n).users.map((u: { userid: string }) => u.userid)).toContain('capmox@pve');
    const again = await plain(deployArgv(['--config', run.labFile, '--stacks', 'proxmox-*', '--out', out, '--plan-only', '--detailed-exitcode']));
    expect(again.status === 0 ? 'exit 0' : again.output).toBe('exit 0');
    expect(again.output).toContain('proxmox-pmox-fra: no changes');
  }, 300_000);

  it('on a terminal: shows the plan in lab terms with its counts; a typed no applies nothing', async () => {
    const before = snapshots();
    const r = await onTerminal(['--config', fraPool(), '--against', run.labFile, '--stacks', 'proxmox-*', '--out', out], 'no');
    expect(r.asked).toBe(true);
    expect(r.output).toContain('In lab terms (changed against');
    expect(r.output).toContain('proxmox-pmox-fra: instance pmox-fra: pools vms capi → capi-fra');
    expect(r.output).toMatch(/ {2}proxmox-pmox-fra: \d+ to add, \d+ to change, \d+ to destroy/);
    expect(r.output).toContain('apply cancelled: nothing applied');
    expect(r.status).toBe(1);
    expect(snapshots()).toEqual(before);
  }, 300_000);

  it('on a terminal: a typed yes applies that plan', async () => {
    const r = await onTerminal(['--config', fraPool(), '--against', run.labFile, '--stacks', 'proxmox-*', '--out', out], 'yes');
    expect(r.asked).toBe(true);
    expect(r.output).toContain('proxmox-pmox-fra: instance pmox-fra: pools vms capi → capi-fra');
    expect(r.output).toMatch(/Must not miss:\n(.*\n)*? {2}⚠ proxmox-pmox-fra: /);
    expect(r.status === 0 ? 'exit 0' : r.output).toBe('exit 0');
    expect(r.output).toContain('deploy complete: 1 stack(s) applied');
    expect(poolIds('pmox-fra').some((p) => p.startsWith('capi-fra-'))).toBe(true);
    const again = await plain(deployArgv(['--config', fraPool(), '--stacks', 'proxmox-*', '--out', out, '--plan-only', '--detailed-exitcode']));
    expect(again.status === 0 ? 'exit 0' : again.output).toBe('exit 0');
  }, 300_000);
});
