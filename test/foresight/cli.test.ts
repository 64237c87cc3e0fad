/** The commands, compiled, on files: placement --what-if, upgrade-plan, validate --against, audit's usage errors. */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { labText } from './support';
import { exampleText } from '../tenants/fixtures';

const root = join(__dirname, '../..');
let scratch: string;
let base: string;

beforeAll(() => {
  try {
    execFileSync('npx', ['tsc', '-p', 'tsconfig.json'], { cwd: root, stdio: 'pipe' });
  } catch (e) {
    // Type errors elsewhere in the tree still emit JavaScript; only ours must stop this suite.
    const output = String((e as { stdout?: Buffer }).stdout ?? '');
    if (/^(modules\/(foresight|placement)|scripts\/(placement|upgrade-plan|audit|validate))/m.test(output)) throw new Error(`does not compile:\n${output}`);
  }
  scratch = mkdtempSync(join(tmpdir(), 'foresight-cli-'));
  base = file('base.yaml', labText({ versions: ['v1.34.2', 'v1.35.4', 'v1.36.3'], eastCpu: 34 }));
}, 180_000);

function file(name: string, text: string): string {
  const path = join(scratch, name);
  writeFileSync(path, text);
  return path;
}

function run(script: string, ...args: string[]) {
  const r = spawnSync(process.execPath, [join(root, 'dist/scripts', `${script}.js`), ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, PVEKAAS_AUDIT_TOKENS: '' },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('foresight commands', () => {
  it('placement --what-if prints the report with the what-if, as markdown, json and svg', () => {
    const md = run('placement', '--config', base, '--what-if', 'node e1', '--what-if', 'instance west');
    expect(md.status).toBe(0);
    expect(md.stdout).toContain('## Capacity ledger');
    expect(md.stdout).toContain('## What if node e1 (east), instance west are lost');
    const json = run('placement', '--config', base, '--format', 'json', '--what-if', 'node e1,node w1');
    expect(json.status).toBe(0);
    const doc = JSON.parse(json.stdout);
    expect(doc.whatIf.lostNodes).toEqual([
      { instance: 'east', node: 'e1' },
      { instance: 'west', node: 'w1' },
    ]);
    expect(doc.tenants[0].ha).toBeDefined();
    const svg = run('placement', '--config', base, '--format', 'svg', '--what-if', 'node w1');
    expect(svg.stdout).toMatch(/line-through">w1</);
  });

  it('placement --what-if with unknown names exits 1 naming them, with nothing on stdout', () => {
    const r = run('placement', '--config', base, '--what-if', 'node nope');
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('--what-if "node nope": no node nope in the description (known: e1, e2, w1, w2)');
  });

  it('upgrade-plan exits 0 for an upgrade that can roll and 1 for one that cannot; validate --against refuses the jump', () => {
    // The surge step (previous: the old machine deployments stay until the retire step).
    const oneMinor = file('one.yaml', labText({ versions: ['v1.34.2', 'v1.35.4', 'v1.36.3'], eastCpu: 34, shop: 'v1.35.4', shopPrevious: 'v1.34.2' }));
    const ok = run('upgrade-plan', '--config', oneMinor, '--against', base);
    expect(ok.status).toBe(0);
    expect(ok.stdout).toContain('## shop: v1.34.2 → v1.35.4 — can roll');
    expect(ok.stdout).toContain('1. **Surge** — this description, deploy.');
    expect(ok.stdout).toContain('3. **Retire** — remove `previous`, deploy.');
    expect(run('validate', '--config', oneMinor, '--against', base).status).toBe(0);
    // The same upgrade without previous would leave the tenant without workers: refused, naming the surge step.
    const noSurge = file('nosurge.yaml', labText({ versions: ['v1.34.2', 'v1.35.4', 'v1.36.3'], eastCpu: 34, shop: 'v1.35.4' }));
    const outage = run('validate', '--config', noSurge, '--against', base);
    expect(outage.status).toBe(1);
    expect(outage.stderr).toContain(
      'without previous CAPI deletes the old ones before the new ones exist: deploy the surge step first — kubernetesVersion v1.35.4 with previous: { kubernetesVersion: v1.34.2 }',
    );
    const twoMinors = file('two.yaml', labText({ versions: ['v1.34.2', 'v1.35.4', 'v1.36.3'], eastCpu: 18, shop: 'v1.36.3' }));
    const refused = run('upgrade-plan', '--config', twoMinors, '--against', base, '--format', 'json');
    expect(refused.status).toBe(1);
    const [upgrade] = JSON.parse(refused.stdout).upgrades;
    expect(upgrade.steps.map((s: { version: string }) => s.version)).toEqual(['v1.35.4', 'v1.36.3']);
    expect(upgrade.accepted).toBe(false);
    const validate = run('validate', '--config', twoMinors, '--against', base);
    expect(validate.status).toBe(1);
    expect(validate.stderr).toMatch(/two\.yaml:\d+:\d+ {2}tenants\[0\]\.kubernetesVersion: tenant shop runs v1\.34\.2; v1\.36\.3 is 2 minor versions away/);
  });

  it('validate --against and upgrade-plan refuse an instance-level edit that replaces node groups with no surge, with the previous to write', () => {
    const text = labText({ versions: ['v1.34.2', 'v1.35.4', 'v1.36.3'], eastCpu: 34 }).replace('    - name: east\n', '    - name: east\n      bridge: vmbr9\n');
    const bridged = file('bridged.yaml', text);
    const validate = run('validate', '--config', bridged, '--against', base);
    expect(validate.status).toBe(1);
    expect(validate.stderr).toMatch(/bridged\.yaml:\d+:\d+ {2}tenants\[\d\]: tenant \S+: this change replaces \d+ node groups? with no surge/);
    expect(validate.stderr).toContain('previous: { instances: { east: { bridge: vmbr0 } } }');
    const plan = run('upgrade-plan', '--config', bridged, '--against', base);
    expect(plan.status).toBe(1);
    expect(plan.stdout).toContain('## Node groups replaced with no surge (refused)');
  });

  it('upgrade-plan prints a staged surge where the one-step surge does not fit, and the step it names validates', () => {
    // The example lab, pmox-txl's nodes at 96 GiB, tenant-a with a second pool of 2 × 28 GiB (test/tenants/surge-staged.test.ts).
    const doc = parse(exampleText);
    const [txl, fra] = doc.proxmox.instances;
    txl.template.versions = [{ kubernetesVersion: 'v1.36.3', templateID: 1001 }];
    fra.images.push({ ...fra.images[0], kubernetesVersion: 'v1.36.3', url: fra.images[0].url.replace('v1.35.4', 'v1.36.3') });
    for (const n of txl.nodes) Object.assign(n, { memoryMiB: 98304, cpu: 64 });
    doc.tenants[0].pools.push({ name: 'batch', replicas: 2, size: { cpu: 4, memoryMiB: 28672, diskGiB: 40 } });
    const old = file('staged-old.yaml', stringify(doc));
    doc.tenants[0].kubernetesVersion = 'v1.36.3';
    const next = file('staged-next.yaml', stringify(doc));
    const md = run('upgrade-plan', '--config', next, '--against', old);
    expect(md.status).toBe(1);
    expect(md.stdout).toContain('## tenant-a: staged surge — the one-step surge does not fit');
    expect(md.stdout).toContain(
      '| 1 | batch/pmox-txl/pmox-txl-1, batch/pmox-txl/pmox-txl-2, workers/pmox-txl/pmox-txl-2 | workers/pmox-txl/pmox-txl-1 | 4 cpu, 28 GiB of 46 cpu, 36 GiB | 8 cpu, 36 GiB of 50 cpu, 44 GiB |',
    );
    const json = JSON.parse(run('upgrade-plan', '--config', next, '--against', old, '--format', 'json').stdout);
    const [staged] = json.stagedSurges;
    expect(staged.stages.map((s: { groups: string[] }) => s.groups.length)).toEqual([3, 1]);
    // Step 1 as upgrade-plan prints it: it validates, and upgrade-plan then calls it a step and exits 0.
    doc.tenants[0].previous = staged.stages[0].previous.surge;
    const step1 = file('staged-step1.yaml', stringify(doc));
    expect(run('validate', '--config', step1, '--against', old).status).toBe(0);
    const again = run('upgrade-plan', '--config', step1, '--against', old);
    expect(again.status).toBe(0);
    expect(again.stdout).toContain('## tenant-a: staged surge — this description is a step of it');
    // The one-step surge is refused, naming step 1.
    doc.tenants[0].previous = { kubernetesVersion: 'v1.35.4' };
    const oneStep = run('validate', '--config', file('staged-one.yaml', stringify(doc)), '--against', old);
    expect(oneStep.status).toBe(1);
    expect(oneStep.stderr).toContain('surge one node group at a time');
    // A resize without previous: staged from the previous the refusal names (the pools as they were).
    const resize = parse(readFileSync(old, 'utf8'));
    resize.tenants[0].pools[0].size.memoryMiB = 12288;
    resize.tenants[0].pools[1].size.memoryMiB = 24576;
    const resized = run('upgrade-plan', '--config', file('staged-resize.yaml', stringify(resize)), '--against', old);
    expect(resized.status).toBe(1);
    expect(resized.stdout).toContain('## Node groups replaced with no surge (refused)');
    expect(resized.stdout).toContain('## tenant-a: staged surge — the one-step surge does not fit');
    expect(resized.stdout).toContain(
      '1. **Surge 1** — set `tenants[0].previous: { pools: [{ name: workers, replicas: 3, size: { cpu: 4, memoryMiB: 8192, diskGiB: 40 } }, { name: batch, replicas: 2, size: { cpu: 4, memoryMiB: 28672, diskGiB: 40 } }], stage: { surge: [',
    );
  });

  it('audit without tokens names every instance it could not read and exits 1', () => {
    const r = run('audit', '--config', base);
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('- east: no read-only token');
    expect(r.stdout).toContain('- west: no read-only token');
    const bad = run('audit', '--config', base, '--tokens', file('tokens.json', '[1]'));
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain('expected an object of tokens (strings) by instance name');
  });
});
