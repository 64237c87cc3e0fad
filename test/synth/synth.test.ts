/**
 * The synth command on the example lab: every stack, the placement plan beside them, the same bytes
 * every time and whatever the order of lists in the file, no path of this machine, nothing written
 * when the description is bad.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse, stringify } from 'yaml';
import { compileProject, projectRoot } from '../support/toolchain';
import { tree } from './lab-edits';

const example = join(projectRoot, 'examples/lab.yaml');
const work = mkdtempSync(join(projectRoot, '.test-synth-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
beforeAll(() => compileProject());

function synth(config: string, out: string, ...extra: string[]) {
  return spawnSync(process.execPath, ['dist/scripts/synth.js', '--config', config, '--out', out, ...extra], { cwd: projectRoot, encoding: 'utf8' });
}

describe('npm run synth', () => {
  it('writes every stack and the placement plan, and says where', () => {
    const out = relative(projectRoot, join(work, 'a'));
    const r = synth('examples/lab.yaml', out);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('synthesized 7 stacks');
    expect(readdirSync(join(work, 'a/stacks')).sort()).toEqual([
      'management',
      'management-config',
      'proxmox-pmox-fra',
      'proxmox-pmox-txl',
      'tenant-tenant-a',
      'tenant-tenant-b',
      'tenant-tenant-c',
    ]);
    const plan = JSON.parse(readFileSync(join(work, 'a/placement.json'), 'utf8'));
    expect(plan.tenants.map((t: { name: string }) => t.name)).toEqual(['tenant-a', 'tenant-b', 'tenant-c']);
  });

  it('gives the same bytes twice, and for a file whose lists are in another order', () => {
    const first = relative(projectRoot, join(work, 'b1'));
    const second = relative(projectRoot, join(work, 'b2'));
    expect(synth('examples/lab.yaml', first).status).toBe(0);
    const lab = parse(readFileSync(example, 'utf8'));
    lab.tenants.reverse();
    for (const t of lab.tenants) t.pools.reverse();
    for (const i of lab.proxmox.instances) i.nodes.reverse();
    const shuffled = join(work, 'shuffled.yaml');
    writeFileSync(shuffled, stringify(lab));
    expect(synth(shuffled, first).status).toBe(0);
    const once = tree(join(projectRoot, first));
    expect(synth('examples/lab.yaml', second).status).toBe(0);
    const twice = tree(join(projectRoot, second));
    expect(Object.keys(twice).sort()).toEqual(Object.keys(once).sort());
    // The cache index hashes the description as written: a reordered one is synthesized again, to the same stacks.
    delete once['.pvekaas-cache.json'];
    for (const file of Object.keys(once)) expect({ file, text: twice[file] }).toEqual({ file, text: once[file] });
  });

  it('writes no path of the machine that synthesized', () => {
    const out = relative(projectRoot, join(work, 'c'));
    expect(synth('examples/lab.yaml', out).status).toBe(0);
    expect(synth('examples/lab.yaml', `${out}-hcl`, '--hcl').status).toBe(0);
    for (const dir of [out, `${out}-hcl`]) {
      for (const [file, text] of Object.entries(tree(join(projectRoot, dir)))) {
        expect({ file, hasRoot: text.includes(projectRoot) }).toEqual({ file, hasRoot: false });
      }
    }
  });

  it('marks every credential output and token variable sensitive', () => {
    const out = join(work, 'a/stacks');
    for (const stack of readdirSync(out)) {
      const json = JSON.parse(readFileSync(join(out, stack, 'cdk.tf.json'), 'utf8'));
      for (const [name, v] of Object.entries<{ sensitive?: boolean }>(json.variable ?? {})) {
        if (/token|secret|password|kubeconfig|ca_cert|client_key/.test(name))
          expect({ stack, name, sensitive: v.sensitive }).toEqual({ stack, name, sensitive: true });
      }
      const sensitiveVars = Object.entries<{ sensitive?: boolean }>(json.variable ?? {})
        .filter(([, v]) => v.sensitive)
        .map(([n]) => n);
      const carriesSecret = (value: unknown) => {
        const text = JSON.stringify(value);
        return /user_token\.[^.}]+\.value|kubernetes_secret[^.}]*\.[^.}]+\.data/.test(text) || sensitiveVars.some((v) => text.includes(`var.${v}`));
      };
      for (const [name, o] of Object.entries<{ sensitive?: boolean; value: unknown }>(json.output ?? {})) {
        if (carriesSecret(o.value) || /credential/.test(name)) {
          expect({ stack, name, sensitive: o.sensitive }).toEqual({ stack, name, sensitive: true });
        }
      }
    }
  });

  it('writes nothing when the description is bad, and names every problem', () => {
    const lab = parse(readFileSync(example, 'utf8'));
    lab.tenants[0].pools[0].instance = 'nowhere';
    lab.tenants[1].kubernetesVersion = 'latest';
    const bad = join(work, 'bad.yaml');
    writeFileSync(bad, stringify(lab));
    const out = join(work, 'never');
    const r = synth(bad, out);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('tenants[0].pools[0].instance');
    expect(r.stderr).toContain('tenants[1].kubernetesVersion');
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(work).filter((f) => f.startsWith('.pvekaas-synth-'))).toEqual([]);
  });

  it('refuses unknown flags with the usage', () => {
    const r = spawnSync(process.execPath, ['dist/scripts/synth.js', '--confg', 'x'], { cwd: projectRoot, encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('unknown argument "--confg"');
    expect(r.stderr).toContain('usage: npm run --silent synth');
  });
});
