/**
 * Every stack of the example lab, synthesized as JSON and as HCL, passes `tofu init -backend=false`
 * and `tofu validate` with the real provider plugins from the local mirror. Stacks whose providers
 * the Go module proxy does not serve (see docs/development.md, "Toolchain") are listed as skipped, by name.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileProject, mirrorHas, projectRoot, providerPins, requireToolchain, tofu } from '../support/toolchain';

const lab = join(projectRoot, 'examples/lab.yaml');

function synth(out: string, hcl: boolean): void {
  const r = spawnSync(process.execPath, [join(projectRoot, 'dist/scripts/synth.js'), '--config', lab, '--out', out, ...(hcl ? ['--hcl'] : [])], {
    cwd: projectRoot,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`synth failed (${r.status}):\n${r.stderr}`);
}

function requiredProviders(stackDir: string): { source: string; version: string }[] {
  const json = JSON.parse(readFileSync(join(stackDir, 'cdk.tf.json'), 'utf8'));
  // An unqualified source ("helm") means hashicorp/helm, as OpenTofu and Terraform resolve it.
  return (Object.values(json.terraform?.required_providers ?? {}) as { source: string; version: string }[]).map((p) => ({
    ...p,
    source: p.source.includes('/') ? p.source : `hashicorp/${p.source}`,
  }));
}

const work = mkdtempSync(join(tmpdir(), 'pvekaas-validate-'));
const jsonOut = join(work, 'json');
const hclOut = join(work, 'hcl');
compileProject();
synth(jsonOut, false);
synth(hclOut, true);
const stacks = readdirSync(join(jsonOut, 'stacks')).sort();

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('tofu validate with the real providers', () => {
  beforeAll(() => requireToolchain());

  it('synthesizes every stack of the example lab', () => {
    const expected = ['management', 'management-config', 'proxmox-pmox-fra', 'proxmox-pmox-txl', 'tenant-tenant-a', 'tenant-tenant-b', 'tenant-tenant-c'];
    expect(stacks).toEqual(expected);
    expect(readdirSync(join(hclOut, 'stacks')).sort()).toEqual(expected);
  });

  it('asks only for pinned provider versions', () => {
    const pins = Object.values(providerPins());
    for (const stack of stacks) {
      for (const p of requiredProviders(join(jsonOut, 'stacks', stack))) {
        const pin = pins.find((x) => x.source === p.source);
        expect({ stack, source: p.source, version: pin?.version }).toEqual({ stack, source: p.source, version: p.version });
      }
    }
  });

  // tofu parses HCL without provider schemas: every stack's HCL must at least be well-formed.
  for (const stack of stacks) {
    it(`${stack} (hcl): parses (tofu fmt)`, () => {
      const r = tofu(join(hclOut, 'stacks', stack), ['fmt', '-write=false', '-list=false', '-no-color', 'cdk.tf']);
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
    });
  }

  for (const stack of stacks) {
    const providers = requiredProviders(join(jsonOut, 'stacks', stack));
    const missing = providers.filter((p) => !mirrorHas(p.source, p.version));
    const unserved = missing.filter((p) => Object.values(providerPins()).find((x) => x.source === p.source)?.served === false);
    const title = (format: string) => `${stack} (${format})`;
    if (unserved.length > 0 && unserved.length === missing.length) {
      // Not buildable here: the module proxy serves no version of these providers (docs/development.md, "Toolchain").
      it.skip(`${title('json+hcl')}: blocked, ${unserved.map((p) => `${p.source} ${p.version}`).join(', ')} not served by the Go module proxy`, () =>
        undefined);
      continue;
    }
    for (const [format, dir] of [
      ['json', jsonOut],
      ['hcl', hclOut],
    ] as const) {
      it(
        title(format),
        () => {
          const cwd = join(dir, 'stacks', stack);
          const init = tofu(cwd, ['init', '-backend=false', '-input=false', '-no-color']);
          expect(init.stderr).toBe('');
          expect(init.status).toBe(0);
          const validate = tofu(cwd, ['validate', '-json', '-no-color']);
          const result = JSON.parse(validate.stdout);
          expect(result.diagnostics).toEqual([]);
          expect(result.valid).toBe(true);
        },
        120000,
      );
    }
  }
});
