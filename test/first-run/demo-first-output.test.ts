/**
 * `npm run demo` shows the product before any toolchain build: the lab validated, the placement
 * table (and the SVG written), the stacks synthesized with their resource counts. Run here with an
 * empty tool cache and the build refused (PVEKAAS_TOOLCHAIN_NO_BUILD: scripts/toolchain exits 1
 * naming what it would build), so everything the demo printed came before, and without, the toolchain.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseLab } from '../../modules/config/load';
import { machinesAtLeast, planPlacement, renderSvg } from '../../modules/placement';
import { TWIN_BANNER } from '../../scripts/twin';
import { compileProject, projectRoot } from '../support/toolchain';

describe('the demo before the toolchain', () => {
  let dir: string;
  let run: { status: number | null; stdout: string; stderr: string };
  const tofuLink = join(projectRoot, '.toolchain/bin/tofu');
  const linkBefore = existsSync(tofuLink) ? readlinkSync(tofuLink) : undefined;

  beforeAll(() => {
    compileProject();
    dir = mkdtempSync(join(tmpdir(), 'pvekaas-demo-first-'));
    run = spawnSync(process.execPath, [join(projectRoot, 'dist/scripts/demo.js'), '--keep', join(dir, 'keep')], {
      cwd: projectRoot,
      encoding: 'utf8',
      env: { ...process.env, PVEKAAS_TOOL_CACHE: join(dir, 'empty-cache'), PVEKAAS_TOOLCHAIN_NO_BUILD: '1' },
    });
  }, 300000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('validates, places and synthesizes the lab, then stops at the refused build with exit 1, the twin never started', () => {
    expect(run.status).toBe(1);
    expect(run.stdout).toContain('examples/lab.yaml: valid — 2 instances, 3 tenants, 15 machines (at most) placed');
    expect(run.stderr).toMatch(
      /not building \(PVEKAAS_TOOLCHAIN_NO_BUILD is set\): demo kube-v1\.35\.4 needs tofu terraform-provider-proxmox .*kube-scheduler kube-v1\.35\.4 .*controllers capi-core metallb-controller/,
    );
    expect(run.stderr).toContain('scripts/toolchain install demo kube-v1.35.4 ended with exit 1: the twin needs it');
    expect(run.stdout).not.toContain(TWIN_BANNER.slice(0, 40));
    // The toolchain refused before linking anything: the checkout's .toolchain is as it was.
    expect(existsSync(tofuLink) ? readlinkSync(tofuLink) : undefined).toBe(linkBefore);
  });

  it("prints the placement table of the plan, every tenant with where its machines go, and writes the SVG it names (the placement command's)", () => {
    const lab = parseLab(readFileSync(join(projectRoot, 'examples/lab.yaml'), 'utf8'), 'examples/lab.yaml');
    const plan = planPlacement(lab);
    expect(run.stdout).toContain('| tenant | mode | instances | machines | survives node loss | survives instance loss |');
    for (const t of plan.tenants) {
      expect(run.stdout).toMatch(new RegExp(`^\\| ${t.name} \\| ${t.mode} \\| ${t.instances.join(', ')} \\|`, 'm'));
      for (const pool of t.pools)
        for (const p of pool.placements.filter((x) => machinesAtLeast(x.scale) > 0)) expect(run.stdout).toContain(`${pool.name} ${p.instance}/${p.node} ×`);
    }
    const svg = join(dir, 'keep/lab/placement.svg');
    expect(run.stdout).toContain(`placement drawn in ${svg}`);
    // The picture `npm run placement -- --format svg` draws of the same plan, byte for byte.
    expect(readFileSync(svg, 'utf8')).toBe(renderSvg(plan));
  });

  it('lists every synthesized stack with the resources its cdk.tf.json holds', () => {
    const stacks = join(dir, 'keep/lab/out/stacks');
    const listed = [...run.stdout.matchAll(/^ {2}(\S+) +(\d+) resources$/gm)].map((m) => [m[1], Number(m[2])]);
    const expected = ['management', 'management-config', 'proxmox-pmox-fra', 'proxmox-pmox-txl', 'tenant-tenant-a', 'tenant-tenant-b', 'tenant-tenant-c'].map(
      (s) => {
        const config = JSON.parse(readFileSync(join(stacks, s, 'cdk.tf.json'), 'utf8')) as { resource: Record<string, object> };
        return [s, Object.values(config.resource).reduce((n, byName) => n + Object.keys(byName).length, 0)];
      },
    );
    expect(listed).toEqual(expected);
    expect(run.stdout).toContain(`synthesized 7 stacks, ${expected.reduce((n, [, c]) => n + (c as number), 0)} resources`);
    // All of it before the build step's line.
    const build = run.stdout.indexOf('The lab twin runs the real toolchain: scripts/toolchain install demo');
    expect(build).toBeGreaterThan(run.stdout.indexOf('synthesized 7 stacks'));
  });
});
