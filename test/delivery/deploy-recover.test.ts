/**
 * Issue 42, deterministic: an interrupt left a storage, two API tokens and four ACL entries in
 * Proxmox and not in the state (the requests in flight completed on the server; what depended on
 * them was never created). OpenTofu alone cannot finish the job (`tofu apply` fails: the storage
 * and the tokens exist); the next `deploy` does: it imports the storage and the ACL entries,
 * replaces the tokens (their secrets cannot be read back), says so, converges (second plan empty,
 * the simulator holds exactly what the state holds) and the tokens in the state are the ones
 * Proxmox knows, secret and all. With the real OpenTofu and bpg/proxmox against the simulator.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { desiredObjects, type DesiredObject } from '../../modules/foresight/recover';
import { startSimulatedLab, type SimulatedLab } from '../../scripts/lib/lab-run';
import { runTofu } from '../../scripts/lib/tofu';
import { compareInventory, deployArgv, inventoryKeyList, noneLeftIn, readStackState, runDeploy, simInventory } from '../../scripts/lib/interrupt-runs';
import { compileProject, projectRoot, requireToolchain, tofu, tofuEnv } from '../support/toolchain';

const work = mkdtempSync(join(tmpdir(), 'pvekaas-recover-'));
let run: SimulatedLab;
let baseline: Map<string, Set<string>>;
let env: NodeJS.ProcessEnv;
const stack = 'proxmox-pmox-txl';

beforeAll(async () => {
  requireToolchain();
  compileProject();
  run = await startSimulatedLab({
    labText: readFileSync(join(projectRoot, 'examples/lab.yaml'), 'utf8'),
    labFile: 'examples/lab.yaml',
    work,
    root: projectRoot,
  });
  baseline = new Map(run.sim.names.map((n) => [n, new Set(inventoryKeyList(simInventory(run.sim.snapshot(n))))]));
  env = tofuEnv({ PROXMOX_API_TOKENS: JSON.stringify(Object.fromEntries(run.sim.names.map((n) => [n, run.sim.adminToken(n)]))), NO_COLOR: '1' });
}, 120_000);

afterAll(async () => {
  await run?.sim.stop();
  rmSync(work, { recursive: true, force: true });
});

const deploy = (extra: string[] = []) => runDeploy(projectRoot, work, env, deployArgv(projectRoot, run.labFile, run.out, ['--stacks', stack, ...extra]));
const stackTofu = (args: string[]) => tofu(join(run.out, 'stacks', stack), args, { TF_VAR_proxmox_api_token: run.sim.adminToken('pmox-txl') });

describe('deploy after an interrupt that left objects in Proxmox and not in the state (issue 42)', () => {
  let desired: DesiredObject[];
  const find = (re: RegExp) => desired.filter((d) => re.test(d.address));

  it('applies the instance stack, then is put in the state an interrupt leaves', async () => {
    const first = await deploy();
    expect({ status: first.status, tail: first.status === 0 ? '' : first.stderr.slice(-2000) }).toEqual({ status: 0, tail: '' });
    desired = desiredObjects(JSON.parse(readFileSync(join(run.out, 'stacks', stack, 'cdk.tf.json'), 'utf8')));
    // Orphans: in Proxmox, not in the state.
    const storage = find(/cloudinit-storage-tenant-a$/);
    const tokens = find(/capmox_token-tenant-[ab]_/);
    const userAcls = find(/capmox_acl-user-(pool-capi-tenant-[abc]|root)-/);
    // Never created (they waited for the orphans): neither in Proxmox nor in the state.
    const neverMade = [...find(/capmox_acl-token-tenant-[ab]-/), ...find(/capmox_acl-[a-z-]+-storage-capmox-cloudinit-tenant-a-/)];
    expect([storage.length, tokens.length, userAcls.length]).toEqual([1, 2, 4]);
    const gone = [...storage, ...tokens, ...userAcls, ...neverMade].map((d) => d.address);
    const rm = stackTofu(['state', 'rm', '-no-color', ...new Set(gone)]);
    expect({ status: rm.status, stderr: rm.stderr }).toEqual({ status: 0, stderr: '' });
    const inst = run.sim.instance('pmox-txl');
    const acl = inst.acl.filter((e) => !(/!tenant-tenant-[ab]$/.test(e.ugid) || e.path === '/storage/capmox-cloudinit-tenant-a'));
    inst.acl.splice(0, inst.acl.length, ...acl);
    const { orphans } = compareInventory(run, work, baseline);
    expect(orphans).toHaveLength(7);
  }, 300_000);

  it('deploy --plan says what the apply will recover, and changes nothing', async () => {
    const before = readFileSync(join(work, 'state', `${stack}.tfstate`), 'utf8');
    const plan = await deploy(['--plan']);
    expect(plan.stderr).toContain(`${stack}: an apply would first recover`);
    expect(plan.stderr).toContain('imported: storage capmox-cloudinit-tenant-a (proxmox_storage_directory.cloudinit-storage-tenant-a)');
    expect(plan.stderr).toMatch(
      /replaced: token capmox@pve!tenant-tenant-a \(proxmox_user_token\.[^)]+\) — created by the interrupted run; its secret cannot be read back/,
    );
    expect(plan.stderr).toContain('replaced: token capmox@pve!tenant-tenant-b');
    expect(plan.stderr.match(/ {4}imported: ACL /g)).toHaveLength(4);
    expect(readFileSync(join(work, 'state', `${stack}.tfstate`), 'utf8')).toBe(before);
  }, 300_000);

  it('OpenTofu alone cannot finish it: the apply fails on the objects that exist', async () => {
    // Asynchronously: the simulator answers from this very process.
    const apply = await runTofu(['apply', '-auto-approve', '-input=false', '-no-color'], {
      cwd: join(run.out, 'stacks', stack),
      env: tofuEnv({ TF_VAR_proxmox_api_token: run.sim.adminToken('pmox-txl') }),
      tofu: join(projectRoot, '.toolchain/bin/tofu'),
    });
    expect(apply.code).toBe(1);
    expect(apply.stdout + apply.stderr).toMatch(/already exists/);
  }, 300_000);

  it('the next deploy imports or replaces them, says so, and converges with no orphan left', async () => {
    const again = await deploy();
    expect({ status: again.status, tail: again.status === 0 ? '' : again.stderr.slice(-3000) }).toEqual({ status: 0, tail: '' });
    expect(again.stderr).toContain(`${stack}: recovering`);
    expect(again.stderr).toContain('imported: storage capmox-cloudinit-tenant-a');
    expect(again.stderr).toContain('replaced: token capmox@pve!tenant-tenant-a');
    expect(again.stderr).toContain('replaced: token capmox@pve!tenant-tenant-b');
    for (const n of run.sim.names) expect(again.stderr).not.toContain(run.sim.adminToken(n).split('=')[1]);
    const plan = await deploy(['--plan']);
    expect(plan.stderr).toMatch(new RegExp(`✔ ${stack}: planned — no changes`));
    expect(plan.stderr).not.toContain('recover');
    expect(compareInventory(run, work, baseline)).toEqual({ orphans: [], missing: [] });
    expect(await noneLeftIn(work, 5000)).toEqual([]);
  }, 300_000);

  it('the tokens in the state are the ones Proxmox knows, with their secrets', () => {
    const inst = run.sim.instance('pmox-txl');
    const tokens = readStackState(work, stack).filter((r) => r.type === 'proxmox_user_token');
    expect(tokens).toHaveLength(3);
    for (const t of tokens) {
      const id = `${String(t.attributes.user_id)}!${String(t.attributes.token_name)}`;
      expect({ id, value: t.attributes.value }).toEqual({ id, value: `${id}=${inst.tokens.get(id)?.secret}` });
    }
  }, 300_000);
});
