/**
 * `npm run deploy` against the Proxmox VE API simulator with the real OpenTofu and bpg/proxmox:
 * every proxmox stack planned, then applied in parallel with progress (non-interactively: --yes,
 * through deployArgv); after an edit, only the changed stacks; a tenant-only edit applies nothing of
 * the instances; and a plan that fails stops the run before anything is applied, saying what was
 * and was not planned (the failing token never printed).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { startSimulatedLab, type SimulatedLab } from '../../scripts/lib/lab-run';
import { compileProject, deployArgv, projectRoot, requireToolchain, tofuEnv } from '../support/toolchain';

const work = mkdtempSync(join(tmpdir(), 'pvekaas-deploy-'));
const exampleText = readFileSync(join(projectRoot, 'examples/lab.yaml'), 'utf8');
let run: SimulatedLab;
const out = join(work, 'deploy-out');

beforeAll(async () => {
  requireToolchain();
  compileProject();
  run = await startSimulatedLab({ labText: exampleText, labFile: 'examples/lab.yaml', work, root: projectRoot });
}, 120_000);

afterAll(async () => {
  await run?.sim.stop();
  rmSync(work, { recursive: true, force: true });
});

/** The deploy command, without blocking: the simulator it talks to answers from this process. */
function deploy(args: string[], tokens: Record<string, string>): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    // From the scratch directory: the lab's stateDir (`state`, relative to the working directory) lands there, never in the project.
    const [node, ...argv] = deployArgv([...args, '--out', out]);
    const child = spawn(node, argv, {
      cwd: work,
      env: tofuEnv({ PROXMOX_API_TOKENS: JSON.stringify(tokens), NO_COLOR: '1' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 280_000);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

const adminTokens = () => Object.fromEntries(run.sim.names.map((n) => [n, run.sim.adminToken(n)]));
function labWith(name: string, change: (lab: any) => void): string {
  const lab = parse(readFileSync(run.labFile, 'utf8'));
  change(lab);
  const file = join(work, `${name}.yaml`);
  writeFileSync(file, stringify(lab));
  return file;
}
const fra = (lab: any) => lab.proxmox.instances.find((i: { name: string }) => i.name === 'pmox-fra');
const txl = (lab: any) => lab.proxmox.instances.find((i: { name: string }) => i.name === 'pmox-txl');
const poolIds = (instance: string) =>
  run.sim
    .snapshot(instance)
    .pools.map((p: { poolid: string }) => p.poolid)
    .sort();
/** Whether an instance has a VM pool of that prefix (pools are per tenant: `<vms>-<tenant>`). */
const hasPools = (instance: string, prefix: string) => poolIds(instance).some((p: string) => p.startsWith(`${prefix}-`));

describe('npm run deploy', () => {
  it('applies the proxmox stacks in parallel, with progress, leaving the others out by --stacks', async () => {
    const r = await deploy(['--config', run.labFile, '--stacks', 'proxmox-*'], adminTokens());
    expect(r.status === 0 ? 'exit 0' : r.stderr).toBe('exit 0');
    expect(r.stderr).toContain('2 stack(s) to plan; left out by --stacks: management, management-config, tenant-tenant-a, tenant-tenant-b, tenant-tenant-c');
    // Every init first, one at a time, then the plans (in parallel), then the applies.
    expect(r.stderr).toMatch(/▶ proxmox-pmox-fra: init\n.*▶ proxmox-pmox-txl: init\n.*\[1\/2\] ▶ proxmox-pmox-fra: plan\n.*\[2\/2\] ▶ proxmox-pmox-txl: plan/);
    expect(r.stderr).toMatch(/▶ proxmox-pmox-fra: apply \(its saved plan\)/);
    expect(r.stderr).toMatch(/✔ proxmox-pmox-fra: applied — \d+ added, 0 changed, 0 destroyed/);
    expect(r.stderr).toMatch(/✔ proxmox-pmox-txl: applied — \d+ added, 0 changed, 0 destroyed/);
    expect(r.stderr).toContain('deploy complete: 2 stack(s) applied');
    for (const instance of ['pmox-txl', 'pmox-fra']) expect(run.sim.snapshot(instance).users.map((u: { userid: string }) => u.userid)).toContain('capmox@pve');
  }, 300_000);

  it('applies nothing of the instances for a tenant-only edit', async () => {
    const next = labWith('tenant-edit', (lab) => (lab.tenants[0].pools[0].replicas = 4));
    const r = await deploy(['--config', next, '--against', run.labFile, '--stacks', 'proxmox-*'], adminTokens());
    expect(r.status).toBe(0);
    expect(r.stderr).toContain('0 stack(s) to plan (changed against');
    expect(r.stderr).toContain('left out by --stacks: tenant-tenant-a');
    expect(r.stderr).toContain('nothing to apply');
  }, 300_000);

  it('applies only the changed instance stack after an edit of one instance', async () => {
    const txlBefore = run.sim.snapshot('pmox-txl');
    const next = labWith('fra-pool', (lab) => (fra(lab).pools = { vms: 'capi-fra', templates: 'templates' }));
    const r = await deploy(['--config', next, '--against', run.labFile, '--stacks', 'proxmox-*'], adminTokens());
    expect(r.status === 0 ? 'exit 0' : r.stderr).toBe('exit 0');
    expect(r.stderr).toContain('1 stack(s) to plan (changed against');
    expect(r.stderr).toContain('proxmox-pmox-fra: instance pmox-fra: pools vms capi → capi-fra');
    expect(r.stderr).not.toContain('▶ proxmox-pmox-txl');
    expect(r.stderr).toContain('deploy complete: 1 stack(s) applied');
    expect(hasPools('pmox-fra', 'capi-fra')).toBe(true);
    expect(run.sim.snapshot('pmox-txl')).toEqual(txlBefore);
  }, 300_000);

  it('stops when a plan fails: nothing applied, what was planned and what not said, without printing the token', async () => {
    const base = join(work, 'fra-pool.yaml');
    const next = labWith('both', (lab) => {
      fra(lab).pools = { vms: 'capi-fra2', templates: 'templates' };
      txl(lab).pools = { vms: 'capi-txl2', templates: 'templates' };
    });
    const wrong = `${run.sim.adminToken('pmox-txl').split('=')[0]}=00000000-0000-0000-0000-000000000000`;
    const r = await deploy(['--config', next, '--against', base, '--stacks', 'proxmox-*'], { ...adminTokens(), 'pmox-txl': wrong });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/✘ proxmox-pmox-txl: failed — tofu plan: Error: /);
    expect(r.stderr).toContain('deploy stopped: proxmox-pmox-txl failed while planning; nothing applied (deploy applies only once every stack is planned)');
    expect(r.stderr).toMatch(/ {2}planned: +proxmox-pmox-fra\n/);
    expect(r.stderr).not.toContain('apply (its saved plan)');
    expect(r.stderr).not.toContain('00000000-0000-0000-0000-000000000000');
    // Nothing applied, not even the stack whose plan was fine.
    expect(hasPools('pmox-fra', 'capi-fra2')).toBe(false);
    expect(hasPools('pmox-txl', 'capi-txl2')).toBe(false);
  }, 300_000);
});
