/**
 * The replacement guard on every output format (issue 21): a change that replaces node groups with
 * no surge is refused against what the last synth or export wrote — `synth --hcl` and `export-hcl`
 * too, whose stacks are HCL. They compare with `machine-deployments.json` (modules/tenants/replaced.ts),
 * written beside placement.json in every output: the same bytes for the same lab, whatever format.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { parseLab } from '../../modules/config/load';
import { planPlacement } from '../../modules/placement';
import { renderTenants } from '../../modules/tenants';
import { MACHINE_DEPLOYMENTS_FILE, machineDeploymentsOfDocument, topologyMachineDeployments } from '../../modules/tenants/replaced';
import { machineDeploymentsOfOutput, refuseUnrollableUpgrades } from '../../scripts/lib/upgrade-guard';
import { compileProject, projectRoot } from '../support/toolchain';

const work = mkdtempSync(join(tmpdir(), 'pvekaas-replacement-guard-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The example lab with room on pmox-txl for a surge; `grown`: tenant-a's disks 40 → 50 GiB; `surge`: with previous.pools. */
function labText(step: 'before' | 'grown' | 'surge'): string {
  const doc = parse(readFileSync(join(projectRoot, 'examples/lab.yaml'), 'utf8'));
  for (const n of doc.proxmox.instances[0].nodes) Object.assign(n, { memoryMiB: 524288, cpu: 128 });
  const a = doc.tenants[0];
  if (step === 'surge') a.previous = { pools: structuredClone(a.pools) };
  if (step !== 'before') a.pools[0].size.diskGiB = 50;
  return stringify(doc);
}
const config = (step: 'before' | 'grown' | 'surge') => {
  const file = join(work, `${step}.yaml`);
  writeFileSync(file, labText(step));
  return file;
};
const cli = (command: string, args: string[]) =>
  spawnSync(process.execPath, [join('dist', 'scripts', `${command}.js`), ...args], {
    cwd: projectRoot,
    encoding: 'utf8',
    env: { ...process.env, CHECKPOINT_DISABLE: '1' },
  });
const REFUSED = /tenants\[0\]: tenant tenant-a: this change replaces 2 node groups with no surge/;
const FIX =
  /fix: surge, then retire \(docs\/tenants\.md\): set tenants\[0\]\.previous: \{ pools: \[\{ name: workers, replicas: 3, size: \{ cpu: 4, memoryMiB: 8192, diskGiB: 40 \} \}\] \}/;

beforeAll(() => compileProject(), 600_000);

describe('the replacement guard on HCL outputs', () => {
  const hcl = join(work, 'hcl');

  it('synth --hcl writes machine-deployments.json beside placement.json: the topology machine deployments as rendered', () => {
    const r = cli('synth', ['--config', config('before'), '--out', hcl, '--hcl']);
    expect({ status: r.status, stderr: r.status === 0 ? '' : r.stderr }).toEqual({ status: 0, stderr: '' });
    expect(existsSync(join(hcl, 'stacks', 'tenant-tenant-a', 'cdk.tf'))).toBe(true);
    expect(existsSync(join(hcl, 'stacks', 'tenant-tenant-a', 'cdk.tf.json'))).toBe(false);
    const lab = parseLab(labText('before'), 'before.yaml');
    const rendered = [...renderTenants(lab, planPlacement(lab)).values()].flatMap((t) => topologyMachineDeployments(t.cluster));
    const text = readFileSync(join(hcl, MACHINE_DEPLOYMENTS_FILE), 'utf8');
    expect(machineDeploymentsOfDocument(JSON.parse(text))).toEqual([...rendered].sort((x, y) => (x.tenant + x.name < y.tenant + y.name ? -1 : 1)));
    writeFileSync(join(work, 'hcl-before.json'), text);
  }, 300_000);

  it('synth --hcl a second time with a resize and no previous: refused with the fix, the output left as it was', () => {
    const kept = readFileSync(join(hcl, MACHINE_DEPLOYMENTS_FILE), 'utf8');
    const r = cli('synth', ['--config', config('grown'), '--out', hcl, '--hcl']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(REFUSED);
    expect(r.stderr).toMatch(FIX);
    expect(readFileSync(join(hcl, MACHINE_DEPLOYMENTS_FILE), 'utf8')).toBe(kept);
    // With previous (the surge step) it goes.
    const s = cli('synth', ['--config', config('surge'), '--out', hcl, '--hcl']);
    expect({ status: s.status, stderr: s.status === 0 ? '' : s.stderr }).toEqual({ status: 0, stderr: '' });
    expect(readFileSync(join(hcl, MACHINE_DEPLOYMENTS_FILE), 'utf8')).not.toBe(kept);
  }, 300_000);

  it('export-hcl: refused the same way against the last export, accepted with previous', () => {
    const out = join(work, 'export');
    const first = cli('export-hcl', ['--config', config('before'), '--out', out]);
    expect({ status: first.status, stderr: first.status === 0 ? '' : first.stderr }).toEqual({ status: 0, stderr: '' });
    expect(readdirSync(out)).toEqual(expect.arrayContaining(['placement.json', MACHINE_DEPLOYMENTS_FILE]));
    const refused = cli('export-hcl', ['--config', config('grown'), '--out', out]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(REFUSED);
    expect(refused.stderr).toMatch(FIX);
    const surge = cli('export-hcl', ['--config', config('surge'), '--out', out]);
    expect({ status: surge.status, stderr: surge.status === 0 ? '' : surge.stderr }).toEqual({ status: 0, stderr: '' });
  }, 600_000);

  it('machine-deployments.json: the same bytes for the same lab, from JSON and HCL stacks, cold or cached', () => {
    const json = join(work, 'json');
    for (const args of [[], [], ['--full']]) {
      const r = cli('synth', ['--config', config('before'), '--out', json, ...args]);
      expect(r.status).toBe(0);
      expect(readFileSync(join(json, MACHINE_DEPLOYMENTS_FILE), 'utf8')).toBe(readFileSync(join(work, 'hcl-before.json'), 'utf8'));
    }
  }, 300_000);

  it('an output written before machine-deployments.json: the guard falls back to its JSON tenant stacks', () => {
    const json = join(work, 'json');
    const fromFile = machineDeploymentsOfOutput(json);
    rmSync(join(json, MACHINE_DEPLOYMENTS_FILE));
    expect(machineDeploymentsOfOutput(json)).toEqual(fromFile);
    expect(() => refuseUnrollableUpgrades(config('grown'), json)).toThrow(REFUSED);
    // A file of another format is no record: the stacks are read.
    writeFileSync(join(json, MACHINE_DEPLOYMENTS_FILE), JSON.stringify({ format: 'something else', machineDeployments: [] }));
    expect(machineDeploymentsOfOutput(json)).toEqual(fromFile);
  });
});
