/**
 * `export-hcl` for a lab delivered through Terraform Cloud: one directory per workspace, named
 * <prefix>-<stack>, with its cloud block (project included), a README of its variables, and HCL that
 * passes `tofu init -backend=false` + `tofu validate` with the real providers.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { compileProject, mirrorHas, projectRoot, requireToolchain, tofu } from '../support/toolchain';

const work = mkdtempSync(join(tmpdir(), 'pvekaas-export-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const lab = parse(readFileSync(join(projectRoot, 'examples/lab.yaml'), 'utf8'));
lab.delivery = { backend: 'cloud', cloud: { organization: 'acme', project: 'kaas', workspacePrefix: 'lab' } };
const config = join(work, 'lab.yaml');
writeFileSync(config, stringify(lab));
const out = join(work, 'hcl');

compileProject();
const run = spawnSync(process.execPath, ['dist/scripts/export-hcl.js', '--config', config, '--out', out], { cwd: projectRoot, encoding: 'utf8' });

describe('export-hcl', () => {
  it('writes one directory per workspace and reports progress', () => {
    expect(run.stderr).toContain('[1/7]');
    expect(run.status).toBe(0);
    expect(
      readdirSync(out)
        .filter((f) => f !== '.pvekaas-output')
        .sort(),
    ).toEqual([
      'lab-management',
      'lab-management-config',
      'lab-proxmox-pmox-fra',
      'lab-proxmox-pmox-txl',
      'lab-tenant-tenant-a',
      'lab-tenant-tenant-b',
      'lab-tenant-tenant-c',
      'machine-deployments.json',
      'placement.json',
    ]);
  });

  it('names the workspace and its project in the cloud block', () => {
    const hcl = readFileSync(join(out, 'lab-proxmox-pmox-txl/cdk.tf'), 'utf8');
    expect(hcl).toMatch(/cloud \{\s+organization = "acme"\s+hostname = "app.terraform.io"\s+workspaces \{\s+name = "lab-proxmox-pmox-txl"\s+project = "kaas"/);
  });

  it('lists the variables, marking the sensitive ones', () => {
    const readme = readFileSync(join(out, 'lab-proxmox-pmox-txl/README.md'), 'utf8');
    expect(readme).toContain('| `proxmox_api_token` | string | **yes** |');
    expect(readme).toContain('**proxmox-pmox-txl**');
  });

  for (const dir of ['lab-proxmox-pmox-fra', 'lab-proxmox-pmox-txl']) {
    it(`${dir} passes tofu validate`, () => {
      requireToolchain();
      expect(mirrorHas('bpg/proxmox', '0.111.1')).toBe(true);
      const cwd = join(out, dir);
      const init = tofu(cwd, ['init', '-backend=false', '-input=false', '-no-color']);
      expect(init.stderr).toBe('');
      const validate = JSON.parse(tofu(cwd, ['validate', '-json', '-no-color']).stdout);
      expect(validate.diagnostics).toEqual([]);
      expect(validate.valid).toBe(true);
    }, 120000);
  }
});
