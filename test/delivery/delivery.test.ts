/**
 * Delivery against the Proxmox VE API simulator, with the real OpenTofu and bpg/proxmox plugin:
 * - `cdktf deploy` and `cdktf diff` of a single stack work offline through cdktf.json, with the
 *   toolchain's tofu and its local provider mirror;
 * - `npm run review` reads real `tofu show -json` plans of a changed description and leads with what
 *   a reviewer must not miss.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { pointLabAt, startSimulatedLab, type SimulatedLab } from '../../scripts/lib/lab-run';
import { compileProject, projectRoot, requireToolchain, testPluginCache, tofuEnv } from '../support/toolchain';

const work = mkdtempSync(join(tmpdir(), 'pvekaas-delivery-'));
const exampleText = readFileSync(join(projectRoot, 'examples/lab.yaml'), 'utf8');
let run: SimulatedLab;

beforeAll(async () => {
  requireToolchain();
  compileProject();
  run = await startSimulatedLab({ labText: exampleText, labFile: 'examples/lab.yaml', work, root: projectRoot });
  await run.init();
}, 120_000);

afterAll(async () => {
  await run?.sim.stop();
  rmSync(work, { recursive: true, force: true });
});

/**
 * Runs the cdktf CLI without blocking (the simulator it talks to lives in this process), from the
 * scratch directory with a cdktf.json whose app is the project's: the lab's stateDir (relative to
 * the working directory) then lands in the scratch directory, never in the project's state/.
 */
function cdktf(args: string[], token: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const project = JSON.parse(readFileSync(join(projectRoot, 'cdktf.json'), 'utf8'));
  writeFileSync(join(work, 'cdktf.json'), JSON.stringify({ ...project, app: `node ${join(projectRoot, 'scripts/cdktf-launch.js')}` }));
  return new Promise((resolve, reject) => {
    const child = spawn(join(projectRoot, 'node_modules/.bin/cdktf'), args, {
      cwd: work,
      env: tofuEnv({ PVEKAAS_CONFIG: run.labFile, TF_VAR_proxmox_api_token: token, CI: '1', FORCE_COLOR: '0' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 200_000);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

describe('cdktf deploy and diff per workspace', () => {
  const output = () => join(work, 'cdktf.out');

  it('deploys one stack with the toolchain tofu, offline', async () => {
    const r = await cdktf(['deploy', 'proxmox-pmox-txl', '--skip-provider-lock', '--auto-approve', '--output', output()], run.sim.adminToken('pmox-txl'));
    expect({ status: r.status, stderr: r.stderr.split('\n').filter((l) => /error/i.test(l)) }).toEqual({ status: 0, stderr: [] });
    const state = run.sim.snapshot('pmox-txl');
    expect(state.users.map((u: { userid: string }) => u.userid)).toContain('capmox@pve');
    // The other instance was not touched by deploying one stack.
    expect(run.sim.snapshot('pmox-fra').users.map((u: { userid: string }) => u.userid)).not.toContain('capmox@pve');
  }, 240_000);

  it('diffs it afterwards with no changes', async () => {
    const r = await cdktf(['diff', 'proxmox-pmox-txl', '--skip-provider-lock', '--output', output()], run.sim.adminToken('pmox-txl'));
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/No changes/);
  }, 240_000);
});

/** tofu in `<out>/stacks/proxmox-<instance>` with that instance's administrator token, asynchronously. */
async function startPlans(out: string) {
  const { runTofu, toolchainEnv } = await import('../../scripts/lib/tofu');
  return (instance: string, args: string[]) =>
    runTofu(args, {
      cwd: join(out, 'stacks', `proxmox-${instance}`),
      env: {
        ...toolchainEnv(projectRoot),
        TF_PLUGIN_CACHE_DIR: testPluginCache(),
        TF_VAR_proxmox_api_token: run.sim.adminToken(instance),
        TF_INPUT: '0',
        NO_COLOR: '1',
      },
    });
}

describe('review on real plans', () => {
  it('warns about destroyed VMs, removed templates and deleted tenants, with per-stack counts', async () => {
    // Both instances applied (pmox-txl again if `cdktf deploy` above did: no change then).
    for (const instance of ['pmox-fra', 'pmox-txl']) {
      const apply = await run.tofu(instance, ['apply', '-auto-approve', '-input=false', '-no-color']);
      expect(apply.code).toBe(0);
    }

    // The change under review: pmox-fra keeps its built template as an existing one, tenant-b goes.
    const after = parse(exampleText);
    const fra = after.proxmox.instances.find((i: { name: string }) => i.name === 'pmox-fra');
    fra.template = { sourceNode: 'pmox-fra-1', templateID: 9036, kubernetesVersion: 'v1.35.4' };
    // One template on one node serves the others only from shared disks (Proxmox does not clone local disks across nodes).
    fra.storage = { ...(fra.storage ?? {}), disksShared: true };
    fra.images = [];
    // Nothing is built on pmox-fra any more: its range moves off the kept template's id (template.id-in-vmid-range).
    fra.vmIdRange = { start: 9100, end: 9149 };
    after.tenants = after.tenants.filter((t: { name: string }) => t.name !== 'tenant-b');
    const afterFile = join(work, 'after.yaml');
    writeFileSync(afterFile, stringify(after));

    // The same simulator and state as the applied stacks, the new description.
    const endpoints = Object.fromEntries(run.sim.names.map((n) => [n, run.sim.endpoint(n)]));
    const pointed = join(work, 'after-pointed.yaml');
    writeFileSync(pointed, pointLabAt(readFileSync(afterFile, 'utf8'), endpoints));
    const out = join(work, 'after-out');
    // From the scratch directory, so the default stateDir (`state`) is the applied stacks' (run.out's stacks read <work>/state too).
    const synth = spawnSync(process.execPath, [join(projectRoot, 'dist/scripts/synth.js'), '--config', pointed, '--out', out], { cwd: work, encoding: 'utf8' });
    expect(synth.status === 0 ? 'exit 0' : synth.stderr).toBe('exit 0');
    const plans = join(work, 'plans');
    mkdirSync(plans);
    // The same runner as the applied stacks (async: the simulator answers from this process), in the new stacks' directories.
    const plansOf = await startPlans(out);
    for (const instance of ['pmox-fra', 'pmox-txl']) {
      expect((await plansOf(instance, ['init', '-input=false', '-no-color'])).code).toBe(0);
      const plan = await plansOf(instance, ['plan', '-input=false', '-no-color', '-out=plan.tfplan']);
      expect(plan.code).toBe(0);
      writeFileSync(join(plans, `proxmox-${instance}.json`), (await plansOf(instance, ['show', '-json', 'plan.tfplan'])).stdout);
    }

    const comment = join(work, 'review/comment.md');
    const review = spawnSync(
      process.execPath,
      ['dist/scripts/review.js', '--config', afterFile, '--against', 'examples/lab.yaml', '--plans', plans, '--out', comment],
      {
        cwd: projectRoot,
        encoding: 'utf8',
      },
    );
    expect(review.status === 0 ? 'exit 0' : review.stderr).toBe('exit 0');
    const text = readFileSync(comment, 'utf8');
    const start = text.indexOf('### Must not miss');
    const mustNotMiss = text.slice(start, text.indexOf('\n### ', start + 1));
    expect(mustNotMiss).toMatch(/proxmox-pmox-fra: VM `proxmox_virtual_environment_vm\.\S+` is destroyed/);
    expect(mustNotMiss).toContain('node template pmox-fra for v1.35.4 is removed');
    expect(mustNotMiss).toContain('tenant tenant-b is deleted');
    // Each tenant has its own CAPMOX token on the instances it uses: tenant-b's goes, nobody else's.
    expect(mustNotMiss).toMatch(/proxmox-pmox-txl: credential `proxmox_user_token\.\S*tenant-b\S*` is deleted/);
    expect(mustNotMiss).not.toMatch(/credential \S*tenant-[ac]\S*/);
    // Counts as tofu reports them, from the plan JSON.
    const fraRow = text.match(/\| proxmox-pmox-fra \| (\d+) \| (\d+) \| (\d+) \|/);
    expect(fraRow).not.toBeNull();
    expect(Number(fraRow![3])).toBeGreaterThanOrEqual(2); // the template VM and its downloaded image
    expect(text).toMatch(/\| proxmox-pmox-txl \| 0 \| \d+ \| [1-9]\d* \|/);
    // Which stacks change and why, in lab terms, before the plans.
    expect(text).toContain('| tenant-tenant-b | removed | tenant tenant-b removed from the description |');
    expect(text).toContain('| proxmox-pmox-txl | changed | tenant tenant-b removed (its CAPMOX pool and token) |');
    expect(text).toContain('![placement after the change](placement.svg)');
    expect(readFileSync(join(work, 'review/placement.svg'), 'utf8')).toMatch(/^<\?xml[^>]*>\n<svg /);
  }, 240_000);
});
