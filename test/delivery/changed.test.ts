/**
 * Change-aware delivery without the toolchain: `changed` lists exactly the stacks whose bytes differ,
 * with reasons in lab terms and in run order; `review` refuses plan files that are not plans (never a
 * false all-clear), names the changed stacks it has no plan for, and says "no change" in one line.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { compileProject, projectRoot } from '../support/toolchain';
import { loadLabFile } from '../../modules/config/load';
import { planPlacement } from '../../modules/placement';
import { review, type TofuPlanJson } from '../../modules/review';

const work = mkdtempSync(join(tmpdir(), 'pvekaas-changed-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
beforeAll(() => compileProject());
const example = join(projectRoot, 'examples/lab.yaml');

function cli(script: string, args: string[]) {
  return spawnSync(process.execPath, [join(projectRoot, 'dist/scripts', script), ...args], { cwd: projectRoot, encoding: 'utf8' });
}
function labWith(name: string, change: (lab: any) => void): string {
  const lab = parse(readFileSync(example, 'utf8'));
  change(lab);
  const file = join(work, `${name}.yaml`);
  writeFileSync(file, stringify(lab));
  return file;
}

describe('npm run changed', () => {
  it('lists the one stack a one-tenant edit changes, with the reason in lab terms', () => {
    const next = labWith('replicas', (lab) => (lab.tenants[0].pools[0].replicas = 4));
    const r = cli('changed.js', ['--config', next, '--against', example]);
    expect(r.status).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe('1 changed, 0 added, 0 removed, 6 unchanged — in run order:');
    expect(r.stdout).toMatch(/^ {2}changed +tenant-tenant-a +tenant tenant-a: pool workers replicas 3 → 4$/m);
    const json = JSON.parse(cli('changed.js', ['--config', next, '--against', example, '--json']).stdout);
    expect(json.changes).toEqual([{ stack: 'tenant-tenant-a', change: 'changed', reasons: ['tenant tenant-a: pool workers replicas 3 → 4'] }]);
    expect(json.unchanged).toHaveLength(6);
  });

  it('orders additions and changes for deploy, removals for destroy (tenants first)', () => {
    const next = labWith('mixed', (lab) => {
      lab.tenants = lab.tenants.filter((t: { name: string }) => t.name !== 'tenant-b');
      lab.management.kubernetes.configPath = '~/.kube/other.yaml';
      lab.proxmox.instances[1].bridge = 'vmbr1';
    });
    const json = JSON.parse(cli('changed.js', ['--config', next, '--against', example, '--json']).stdout);
    const order = json.changes.map((c: { stack: string; change: string }) => `${c.change} ${c.stack}`);
    expect(order).toEqual([
      'changed proxmox-pmox-fra',
      'changed proxmox-pmox-txl',
      'changed management',
      'changed management-config',
      'changed tenant-tenant-a',
      'changed tenant-tenant-c',
      'removed tenant-tenant-b',
    ]);
    const reasons = Object.fromEntries(json.changes.map((c: { stack: string; reasons: string[] }) => [c.stack, c.reasons.join('; ')]));
    expect(reasons['proxmox-pmox-fra']).toBe('instance pmox-fra: bridge vmbr0 → vmbr1');
    expect(reasons['proxmox-pmox-txl']).toBe('tenant tenant-b removed (its CAPMOX pool and token)');
    expect(reasons['management']).toContain('management kubernetes configPath ~/.kube/lab-mgmt.yaml → ~/.kube/other.yaml');
    expect(reasons['tenant-tenant-b']).toBe('tenant tenant-b removed from the description');
  });

  describe('--against-out (issue 26)', () => {
    // The base revision synthesized in its own checkout with `--out out`, as the review workflow does.
    const base = join(work, 'base');
    const baseOut = join(base, 'out');
    beforeAll(() => {
      mkdirSync(base, { recursive: true });
      const r = spawnSync(process.execPath, [join(projectRoot, 'dist/scripts/synth.js'), '--config', example, '--out', 'out'], { cwd: base, encoding: 'utf8' });
      expect(r.status).toBe(0);
    });

    it('finds no change for the same description (every stack used to differ by its state path)', () => {
      const r = cli('changed.js', ['--config', example, '--against', example, '--against-out', baseOut]);
      expect({ status: r.status, stdout: r.stdout, stderr: r.stderr }).toEqual({
        status: 0,
        stdout: 'no stack changes: all 7 stacks are byte-identical\n',
        stderr: '',
      });
    });

    it('refuses a FIFO or a link to /dev/zero in the output at once, instead of waiting or reading without end', () => {
      for (const [name, plant] of [
        ['fifo-stack', (dir: string) => spawnSync('mkfifo', [join(dir, 'stacks/management/cdk.tf.json')])],
        ['zero-stack', (dir: string) => symlinkSync('/dev/zero', join(dir, 'stacks/management/cdk.tf.json'))],
        ['fifo-index', (dir: string) => spawnSync('mkfifo', [join(dir, '.pvekaas-cache.json')])],
        ['fifo-marker', (dir: string) => spawnSync('mkfifo', [join(dir, '.pvekaas-output')])],
      ] as const) {
        const dir = join(work, name);
        cpSync(baseOut, dir, { recursive: true });
        rmSync(join(dir, name.endsWith('stack') ? 'stacks/management/cdk.tf.json' : name === 'fifo-index' ? '.pvekaas-cache.json' : '.pvekaas-output'));
        plant(dir);
        const started = Date.now();
        const r = spawnSync(process.execPath, [join(projectRoot, 'dist/scripts/changed.js'), '--config', example, '--against', example, '--against-out', dir], {
          cwd: projectRoot,
          encoding: 'utf8',
          timeout: 60_000,
        });
        expect({ name, status: r.status, signal: r.signal }).toEqual({ name, status: 1, signal: null });
        expect(r.stderr).toMatch(
          name === 'fifo-marker' ? /not a synth output of pvekaas/ : /cannot read .*: it is (a named pipe \(FIFO\)|a device), not a regular file/,
        );
        expect(Date.now() - started).toBeLessThan(45_000);
      }
    });
  });

  it('says so in one line when nothing changes', () => {
    const r = cli('changed.js', ['--config', labWith('same', () => undefined), '--against', example]);
    expect(r.stdout).toBe('no stack changes: all 7 stacks are byte-identical\n');
  });
});

describe('npm run review with plan files', () => {
  const next = () => labWith('review', (lab) => (lab.tenants[0].pools[0].replicas = 4));

  it('refuses every file that is not a plan, at once, with exit 1 and no stack trace', () => {
    const plans = join(work, 'bad-plans');
    mkdirSync(plans);
    writeFileSync(join(plans, 'proxmox-pmox-txl.json'), '{}');
    writeFileSync(join(plans, 'proxmox-pmox-fra.json'), '{"format_version":"1.2","terraform_version":"1.12.6","values":{}}');
    writeFileSync(join(plans, 'management.json'), '{"format_version":"1.2","terraform_version":"1.12.6","planned_values":{},"resource_changes":[{}]}');
    writeFileSync(join(plans, 'tenant-tenant-a.json'), '{"format_ver');
    const r = cli('review.js', ['--config', next(), '--against', example, '--plans', plans]);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('4 plan files cannot be read');
    expect(r.stderr).toContain('proxmox-pmox-txl.json: not a plan: it has no format_version and terraform_version');
    expect(r.stderr).toContain('proxmox-pmox-fra.json: not a plan: it is the JSON of a state');
    expect(r.stderr).toContain('management.json: not a plan: resource_changes[0] has no address, type or change.actions');
    expect(r.stderr).toContain('tenant-tenant-a.json: not a plan: not JSON');
    expect(r.stderr).toContain('fix: write it with `tofu show -json <planfile>`');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('names the changed stacks it has no plan for, with the reason, and gives no all-clear', () => {
    const plans = join(work, 'no-plans');
    mkdirSync(plans);
    writeFileSync(join(plans, 'tenant-tenant-a.skipped'), 'the hashicorp/kubernetes provider is not served to this runner\n');
    const r = cli('review.js', ['--config', next(), '--against', example, '--plans', plans]);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('| tenant-tenant-a | changed | tenant tenant-a: pool workers replicas 3 → 4 |');
    expect(r.stdout).toContain('- tenant-tenant-a: the hashicorp/kubernetes provider is not served to this runner');
    expect(r.stdout).toContain('1 changed stack(s) were not planned (tenant-tenant-a)');
    expect(r.stdout).not.toContain('Nothing destroyed');
  });

  it('never writes through a symbolic link at placement.svg or the comment: refused before any work, the link target untouched (issue 26)', () => {
    const next = labWith('svg-link', (lab) => (lab.tenants[0].pools[0].replicas = 4));
    for (const victim of ['placement.svg', 'comment.md']) {
      const dir = join(work, `review-link-${victim}`);
      mkdirSync(dir, { recursive: true });
      const target = join(work, `precious-${victim}.txt`);
      writeFileSync(target, 'keep me\n');
      symlinkSync(target, join(dir, victim));
      const r = cli('review.js', ['--config', next, '--against', example, '--out', join(dir, 'comment.md')]);
      expect({ victim, status: r.status }).toEqual({ victim, status: 1 });
      expect(r.stderr).toContain(`refusing to replace ${join(dir, victim)}: it is a symbolic link`);
      expect(readFileSync(target, 'utf8')).toBe('keep me\n');
    }
    // A regular file there is replaced, whole.
    const dir = join(work, 'review-plain');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'placement.svg'), 'old');
    const ok = cli('review.js', ['--config', next, '--against', example, '--out', join(dir, 'comment.md')]);
    expect(ok.status).toBe(0);
    expect(readFileSync(join(dir, 'placement.svg'), 'utf8')).toMatch(/<svg/);
    expect(readFileSync(join(dir, 'comment.md'), 'utf8')).toMatch(/^## pvekaas review/);
  });

  it('says "no change" in one line for a description that renders the same', () => {
    const r = cli('review.js', ['--config', labWith('same2', () => undefined), '--against', example]);
    expect(r.stdout).toBe(
      `## pvekaas review: ${example} → ${join(work, 'same2.yaml')}\n\nNo change: all 7 synthesized stacks are byte-identical to the base; nothing to plan or deploy.\n`,
    );
  });
});

describe('review: what a plan destroys is never an all-clear (issue 26)', () => {
  const lab = loadLabFile(example);
  const plan = planPlacement(lab);
  const planOf = (changes: { address: string; type: string; actions: string[]; before?: unknown }[]): TofuPlanJson => ({
    format_version: '1.2',
    resource_changes: changes.map((c) => ({
      address: c.address,
      type: c.type,
      name: c.address.split('.')[1],
      change: { actions: c.actions, before: c.before ?? {}, after: c.actions.includes('create') ? {} : null },
    })),
  });
  const run = (plans: Record<string, TofuPlanJson>) =>
    review({
      before: { lab, plan, label: 'a.yaml' },
      after: { lab, plan, label: 'b.yaml' },
      plans,
      stackChanges: { changes: Object.keys(plans).map((stack) => ({ stack, change: 'changed' as const, reasons: ['x'] })), unchanged: [] },
    });

  it('names a tenant Namespace, a Proxmox pool and a Helm release that a plan deletes, and says no "Nothing destroyed"', () => {
    const r = run({
      'tenant-tenant-a': planOf([
        { address: 'kubernetes_namespace_v1.ns', type: 'kubernetes_namespace_v1', actions: ['delete'], before: { metadata: [{ name: 'tenant-a' }] } },
        {
          address: 'kubernetes_manifest.ns2',
          type: 'kubernetes_manifest',
          actions: ['delete'],
          before: { manifest: { kind: 'Namespace', metadata: { name: 'tenant-a-extra' } } },
        },
      ]),
      'proxmox-pmox-txl': planOf([
        {
          address: 'proxmox_virtual_environment_pool.capi-tenant-a',
          type: 'proxmox_virtual_environment_pool',
          actions: ['delete'],
          before: { pool_id: 'capi-tenant-a' },
        },
      ]),
      management: planOf([{ address: 'helm_release.metallb', type: 'helm_release', actions: ['delete'], before: { name: 'metallb' } }]),
    });
    expect(r.warnings).toEqual([
      'management: Helm release `metallb` is uninstalled (what it installed goes with it)',
      'proxmox-pmox-txl: Proxmox pool `capi-tenant-a` is destroyed (its ACLs go with it)',
      'tenant-tenant-a: Namespace `tenant-a-extra` is destroyed (everything in it goes with it)',
      "tenant-tenant-a: Namespace `tenant-a` is destroyed (everything in it goes with it: a tenant's Cluster, credentials and kubeconfig)",
    ]);
    expect(r.markdown).not.toContain('Nothing destroyed');
    expect(r.markdown).toMatch(/### Must not miss\n\n- ⚠️ management: Helm release `metallb` is uninstalled/);
  });

  it('lists any other destroyed or replaced resource too, and gives the all-clear only for a plan that destroys nothing', () => {
    const r = run({
      'proxmox-pmox-txl': planOf([
        { address: 'proxmox_acl.a', type: 'proxmox_acl', actions: ['delete'] },
        { address: 'proxmox_acl.b', type: 'proxmox_acl', actions: ['create', 'delete'] },
        { address: 'proxmox_acl.c', type: 'proxmox_acl', actions: ['create'] },
      ]),
    });
    expect(r.warnings).toEqual(['proxmox-pmox-txl: 2 more resources are destroyed or replaced: `proxmox_acl.a` (destroyed), `proxmox_acl.b` (replaced)']);
    expect(r.markdown).not.toContain('Nothing destroyed');
    const clear = run({ 'proxmox-pmox-txl': planOf([{ address: 'proxmox_acl.c', type: 'proxmox_acl', actions: ['create'] }]) });
    expect(clear.markdown).toContain('Nothing destroyed, rotated, downgraded in HA or version-changed.');
  });
});
