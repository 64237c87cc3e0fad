/**
 * The warning `surge.held-cannot-heal` (modules/config/held-version.ts): a held-back node group of a
 * staged surge of an upgrade cannot replace a lost machine until its own step (CAPI v1.13.6
 * MachineSet preflight), said at tenants[i].previous.stage.hold[j] with the previous that surges it
 * next — the same previous upgrade-plan prints in its step list.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { parseLab } from '../../modules/config/load';
import { labWarnings } from '../../modules/config/safety';
import { formatPath } from '../../modules/config/problems';
import { planPlacement, planPlacementPartial } from '../../modules/placement';
import { previousLab, stagedSurges } from '../../modules/placement/surge';
import { renderStagedMarkdown } from '../../modules/foresight/render-upgrade';

const root = join(__dirname, '../..');
const stagedText = readFileSync(join(root, 'examples/lab-staged.yaml'), 'utf8');

/** examples/lab-staged.yaml (tenant-a v1.35.4 → v1.36.3) with tenant-a changed by `edit`. */
function labWith(edit: (tenant: Record<string, unknown>) => void, versions?: unknown[]) {
  const doc = parse(stagedText) as { tenants: Record<string, unknown>[]; proxmox: { instances: { template: Record<string, unknown> }[] } };
  if (versions) doc.proxmox.instances[0].template.versions = versions;
  edit(doc.tenants[0]);
  return parseLab(stringify(doc), 'lab-staged.yaml');
}
const held = (lab: ReturnType<typeof labWith>) => labWarnings(lab).filter((w) => w.rule === 'surge.held-cannot-heal');

// The steps upgrade-plan proposes for the one-step description (previous without stage).
const oneStep = labWith((t) => (t.previous = { kubernetesVersion: 'v1.35.4' }));
const staged = stagedSurges(oneStep, planPlacementPartial(oneStep).plan, planPlacement(previousLab(oneStep))).find((s) => s.tenant === 'tenant-a')!;
const step1 = staged.steps[0].surge as { kubernetesVersion: string; stage: { surge: string[]; hold: string[] } };

describe('surge.held-cannot-heal', () => {
  it('warns once per held group of a step of a minor upgrade, at its path, naming both refusing preflight checks', () => {
    expect(step1.stage.hold).toEqual(['workers/pmox-txl/pmox-txl-1']);
    const warnings = held(labWith((t) => (t.previous = step1)));
    expect(warnings.map((w) => [formatPath(w.path), w.severity, w.value])).toEqual([
      ['tenants[0].previous.stage.hold[0]', 'warning', 'workers/pmox-txl/pmox-txl-1'],
    ]);
    expect(warnings[0].message).toContain('stays at v1.35.4 while the control plane runs v1.36.3');
    expect(warnings[0].message).toContain('(ControlPlaneVersionSkew, KubeadmVersionSkew)');
  });

  it('names as fix the previous that upgrade-plan prints for the held group, surging it next', () => {
    const [w] = held(labWith((t) => (t.previous = step1)));
    const markdown = renderStagedMarkdown([staged], oneStep).join('\n');
    const printed = /- workers\/pmox-txl\/pmox-txl-1: set `tenants\[0\]\.previous: (\{.*?\})`/.exec(markdown);
    expect(printed).not.toBeNull();
    expect(printed![1]).toBe('{ kubernetesVersion: v1.35.4, stage: { surge: [workers/pmox-txl/pmox-txl-1] } }');
    expect(w.fix).toContain(`set tenants[0].previous: ${printed![1]} and deploy`);
    expect(w.fix!.length).toBeLessThanOrEqual(400); // printed whole (formatWarning bounds a fix at 400)
  });

  it('keeps the other held groups held in the fix, one warning each', () => {
    const stage = { surge: ['batch/pmox-txl/pmox-txl-1'], hold: ['workers/pmox-txl/pmox-txl-1', 'batch/pmox-txl/pmox-txl-2'] };
    const warnings = held(labWith((t) => (t.previous = { kubernetesVersion: 'v1.35.4', stage })));
    expect(warnings.map((w) => formatPath(w.path))).toEqual(['tenants[0].previous.stage.hold[0]', 'tenants[0].previous.stage.hold[1]']);
    expect(warnings[1].fix).toContain('{ kubernetesVersion: v1.35.4, stage: { surge: [batch/pmox-txl/pmox-txl-2], hold: [workers/pmox-txl/pmox-txl-1] } }');
  });

  it('says nothing of a step with no held group, nor of a staged resize (the held group is on the control plane version)', () => {
    expect(held(labWith((t) => (t.previous = { kubernetesVersion: 'v1.35.4', stage: { surge: ['workers/pmox-txl/pmox-txl-1'] } })))).toEqual([]);
    expect(held(labWith((t) => (t.previous = { kubernetesVersion: 'v1.35.4', stage: {} })))).toEqual([]);
    const resize = labWith((t) => {
      t.kubernetesVersion = 'v1.35.4';
      t.previous = { pools: [{ name: 'workers', replicas: 3, size: { cpu: 2, memoryMiB: 8192, diskGiB: 40 } }], stage: step1.stage };
    });
    expect(held(resize)).toEqual([]);
    // The same, previous naming the unchanged version.
    const sameVersion = labWith((t) => {
      t.kubernetesVersion = 'v1.35.4';
      t.previous = {
        kubernetesVersion: 'v1.35.4',
        pools: [{ name: 'workers', replicas: 3, size: { cpu: 2, memoryMiB: 8192, diskGiB: 40 } }],
        stage: step1.stage,
      };
    });
    expect(held(sameVersion)).toEqual([]);
  });

  it('on a patch upgrade warns too, with ControlPlaneVersionSkew alone (a topology MachineSet must match the control plane exactly)', () => {
    const patch = labWith(
      (t) => (t.previous = { kubernetesVersion: 'v1.36.1', stage: step1.stage }),
      [
        { kubernetesVersion: 'v1.36.1', templateID: 1002 },
        { kubernetesVersion: 'v1.36.3', templateID: 1001 },
      ],
    );
    const warnings = held(patch);
    expect(warnings.map((w) => formatPath(w.path))).toEqual(['tenants[0].previous.stage.hold[0]']);
    expect(warnings[0].message).toContain('(ControlPlaneVersionSkew)');
  });

  it('upgrade-plan prints, per step, the held groups and the previous that surges each next', () => {
    const r = spawnSync(
      process.execPath,
      [join(root, 'bin/pvekaas'), 'upgrade-plan', '--config', 'examples/lab-staged.yaml', '--against', 'examples/lab-staged-before.yaml'],
      { cwd: root, encoding: 'utf8' },
    );
    expect(r.stdout).toContain(
      '   **Held back in step 1** — workers/pmox-txl/pmox-txl-1 stays at v1.35.4 beside the control plane at v1.36.3: a machine lost there is not replaced',
    );
    expect(r.stdout).toContain(
      '   - workers/pmox-txl/pmox-txl-1: set `tenants[0].previous: { kubernetesVersion: v1.35.4, stage: { surge: [workers/pmox-txl/pmox-txl-1] } }`, deploy (it fits: alone it holds no more than step 2, which fits).',
    );
    expect(r.stdout).not.toContain('Held back in step 2');
  }, 120_000);
});
