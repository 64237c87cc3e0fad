/**
 * The foresight tools on small labs written out in full: the what-if's findings, the upgrade
 * planner's steps and refusals, the quota check's error, the JSON contract's new fields, and the
 * review's sections.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseLab } from '../../modules/config/load';
import { ProblemError } from '../../modules/config/problems';
import type { Lab } from '../../modules/config/schema';
import { machinesAtLeast, planPlacement, renderJson, renderMarkdown } from '../../modules/placement';
import { parseLosses, whatIf } from '../../modules/foresight/what-if';
import { renderWhatIfMarkdown, renderWhatIfSvg, whatIfJson } from '../../modules/foresight/render-what-if';
import { MAX_UPGRADE_MINORS, planUpgrades, upgradeProblems, upgradeStepLabs, versionsOfLab, versionsOfPlanJson } from '../../modules/foresight/upgrade';
import { review } from '../../modules/review';
import { refuseUnrollableUpgrades } from '../../scripts/lib/upgrade-guard';
import { labText } from './support';

const lab = (options: Parameters<typeof labText>[0] = {}): Lab => parseLab(labText(options), 'foresight-lab.yaml');

describe('failure what-if', () => {
  const l = lab();
  const plan = planPlacement(l);

  it('names the machines lost on a node, says their machine deployment cannot move, and where re-synth puts them', () => {
    const { losses, problems } = parseLosses(['node e1'], l);
    expect(problems).toEqual([]);
    const result = whatIf(l, plan, losses);
    expect(result.lostNodes).toEqual([{ instance: 'east', node: 'e1' }]);
    const shop = result.tenants.find((t) => t.tenant === 'shop')!;
    const onE1 = plan.tenants
      .find((t) => t.name === 'shop')!
      .pools.flatMap((p) => p.placements.filter((x) => x.node === 'e1').map((x) => [p.name, machinesAtLeast(x.scale)]));
    expect(shop.pools.map((p) => [p.pool, p.lost])).toEqual(onE1);
    for (const p of shop.pools)
      for (const m of p.on)
        expect(m).toEqual(
          expect.objectContaining({
            node: 'e1',
            instance: 'east',
            stranded: true,
            machineDeployment: expect.stringMatching(new RegExp(`^${p.pool}-e1(-[0-9a-f]+)?$`)),
          }),
        );
    // Nothing goes back onto e1, and the lost machines of shop land on e2 (Default mode: east only) when they fit.
    expect(result.replan.tenants.flatMap((t) => t.pools.flatMap((p) => p.placements)).filter((x) => x.node === 'e1')).toEqual([]);
    const md = renderWhatIfMarkdown(result).join('\n');
    expect(md).toContain('## What if node e1 (east) is lost');
    expect(md).toContain('~~e1~~');
    expect(md).toContain('no: pinned to lost nodes');
  });

  it('reports the pools that go down, the quorum at risk and the HA verdict lost, when an instance is lost', () => {
    const { losses } = parseLosses(['instance east'], l);
    const result = whatIf(l, plan, losses);
    const shop = result.tenants.find((t) => t.tenant === 'shop')!;
    expect(shop.pools.every((p) => p.outage && p.quorumAtRisk && p.survivors === 0)).toBe(true);
    // Default mode keeps shop on the default instance east: with east gone it does not fit anywhere.
    expect(shop.unplaceable.length).toBeGreaterThan(0);
    expect(shop.ha.afterResynth).toBeNull();
    const spread = result.tenants.find((t) => t.tenant === 'spread')!;
    expect(spread.pools[0]).toEqual(expect.objectContaining({ machines: 4, lost: 2, survivors: 2, outage: false, quorumAtRisk: true }));
    expect(spread.ha.before.survivesInstanceLoss).toBe(true);
    expect(spread.ha.afterResynth?.survivesInstanceLoss).toBe(false);
    expect(spread.haLost.map((c) => c.type)).toContain('SurvivesInstanceLoss');
    const json = whatIfJson(result);
    expect(json.lostNodes).toEqual([
      { instance: 'east', node: 'e1' },
      { instance: 'east', node: 'e2' },
    ]);
    expect(json.headroom.filter((n) => n.lost).map((n) => n.node)).toEqual(['e1', 'e2']);
  });

  it('draws the lost nodes struck through', () => {
    const svg = renderWhatIfSvg(whatIf(l, plan, parseLosses(['node w2'], l).losses));
    expect(svg).toMatch(/text-decoration="line-through">w2</);
    expect(svg).not.toMatch(/line-through">w1</);
    expect(svg).toContain('What if node w2 (west) is lost');
  });

  it('marks a tenant left with no machine anywhere (issue 43: losing an instance looked healthy)', () => {
    const lab = parseLab(readFileSync(join(__dirname, '../../examples/lab.yaml'), 'utf8'));
    const result = whatIf(lab, planPlacement(lab), parseLosses(['instance pmox-txl'], lab).losses);
    const svg = renderWhatIfSvg(result);
    const banner = /<g class="unfit">([^]*?)<\/g>/.exec(svg)?.[1] ?? '';
    expect(banner).toContain('NO LONGER FITS');
    // tenant-a (Default) had its 3 machines on pmox-txl; tenant-b and tenant-c move to pmox-fra.
    expect([...banner.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]).slice(1)).toEqual([
      'tenant-a: no machine left anywhere (had 3 machines on the lost nodes)',
    ]);
    expect(svg).toContain('>tenant-a (Default): 0 machines — DOES NOT FIT</text>');
    expect(svg).toContain('>tenant-b (SingleInstance): 2..7 machines</text>');
    // A loss everything survives: nothing marked.
    const fine = renderWhatIfSvg(whatIf(lab, planPlacement(lab), parseLosses(['node pmox-fra-1'], lab).losses));
    expect(fine).not.toContain('class="unfit"');
    expect(fine).not.toContain('DOES NOT FIT');
  });

  it('refuses losses that name nothing in the description, with the known names', () => {
    const { problems } = parseLosses(['node e9', 'instance north', 'rack 3'], l);
    expect(problems).toEqual([
      '--what-if "node e9": no node e9 in the description (known: e1, e2, w1, w2)',
      '--what-if "instance north": no instance north in the description (known: east, west)',
      '--what-if "rack 3": expected "node <name>", "node <instance>/<name>" or "instance <name>"',
    ]);
  });
});

describe('upgrade planner', () => {
  it('plans one minor at a time with the newest patch every instance has, and accepts when templates and surge are there', () => {
    const next = lab({ versions: ['v1.34.2', 'v1.35.0', 'v1.35.4', 'v1.36.3'], westVersions: ['v1.34.2', 'v1.35.0', 'v1.36.3'], shop: 'v1.36.3', eastCpu: 34 });
    const [upgrade] = planUpgrades(
      next,
      planPlacement(next),
      new Map([
        ['shop', 'v1.34.2'],
        ['spread', 'v1.34.2'],
      ]),
    );
    // shop is Default mode: only east counts, so its newest v1.35 patch is taken.
    expect(upgrade.instances).toEqual(['east']);
    expect(upgrade.steps.map((s) => s.version)).toEqual(['v1.35.4', 'v1.36.3']);
    expect(upgrade.steps.map((s) => s.workers.skew)).toEqual([1, 1]);
    expect(upgrade.accepted).toBe(true);
    const labs = upgradeStepLabs(next, upgrade);
    expect(labs.map((x) => x.tenants.find((t) => t.name === 'shop')!.kubernetesVersion)).toEqual(['v1.35.4', 'v1.36.3']);
    // The change itself skips a minor: validate and synth refuse it and name the first step.
    const problems = upgradeProblems(next, planPlacement(next), versionsOfLab(lab({ eastCpu: 34 })));
    expect(problems).toEqual([
      expect.objectContaining({
        path: ['tenants', 0, 'kubernetesVersion'],
        fix: 'deploy the steps one at a time: v1.35.4, then v1.36.3 (npm run upgrade-plan shows each)',
      }),
    ]);
  });

  it('refuses a step without a template, a surge that does not fit, and a downgrade', () => {
    const next = lab({ versions: ['v1.34.2', 'v1.36.3'], shop: 'v1.36.3', eastCpu: 14 });
    const plan = planPlacement(next);
    const [upgrade] = planUpgrades(next, plan, new Map([['shop', 'v1.34.2']]));
    expect(upgrade.accepted).toBe(false);
    expect(upgrade.steps[0]).toEqual(expect.objectContaining({ version: 'v1.35.x', templates: [] }));
    expect(upgrade.refusals[0]).toBe(
      'step 1 (v1.35.x): no instance the tenant may use has a template for any v1.35 patch: add an image for one (e.g. v1.35.<patch>) to east',
    );
    // e1 and e2 have 12 cpu each after the reserve and the plan fills them: no room for one more 4-cpu machine.
    // The rendering puts the version in the machine deployments' names: CAPI creates new ones beside the old.
    expect(upgrade.surgeMode).toBe('replace');
    expect(upgrade.surge.some((s) => !s.fits)).toBe(true);
    expect(
      upgrade.refusals.some((r) =>
        /^e\d \(east\) has no room for the new machine deployments \S+: CAPI creates them beside the old ones, which needs \d+ cpu/.test(r),
      ),
    ).toBe(true);
    const [down] = planUpgrades(lab(), planPlacement(lab()), new Map([['shop', 'v1.35.0']]));
    expect(down.refusals).toEqual(['v1.35.0 → v1.34.2 is a downgrade: Kubernetes and CAPI only upgrade (restore the old version, or rebuild the tenant)']);
  });

  it('walks a bounded number of minors: a far jump, or a huge version read from an old placement.json, is refused at once (issue 26)', () => {
    const l = lab();
    const started = Date.now();
    const [far] = planUpgrades(l, planPlacement(l), new Map([['shop', 'v1.0.5']]));
    // v1.0.5 → v1.34.2 is under the bound: 34 steps, each refused for its missing template.
    expect(far.steps).toHaveLength(34);
    const [huge] = planUpgrades(l, planPlacement(l), new Map([['shop', 'v1.99999999999999999999.0']]));
    expect(huge.refusals).toEqual(['cannot read the versions v1.99999999999999999999.0 → v1.34.2 (expected vMAJOR.MINOR.PATCH)']);
    // validate refuses a tenant on v1.999 (rule versions.tenant-kubernetes): the planner is given one
    // past validation, as an old placement.json can give it the other side.
    expect(() => lab({ versions: ['v1.34.2', 'v1.999.0'], shop: 'v1.999.0' })).toThrow(/versions\.tenant-kubernetes|newer than Kamaji/);
    const next: Lab = { ...l, tenants: l.tenants.map((t) => (t.name === 'shop' ? { ...t, kubernetesVersion: 'v1.999.0' } : t)) };
    const [jump] = planUpgrades(next, planPlacement(l), new Map([['shop', 'v1.34.2']]));
    expect(jump.steps).toEqual([]);
    expect(jump.refusals).toEqual([
      `v1.34.2 → v1.999.0 spans 965 minor versions, more than the ${MAX_UPGRADE_MINORS} an upgrade plan walks: check the version`,
    ]);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('reads the versions a previous synth recorded in placement.json', () => {
    const l = lab();
    const json = JSON.parse(renderJson(planPlacement(l)));
    expect(versionsOfPlanJson(json)).toEqual(
      new Map([
        ['shop', 'v1.34.2'],
        ['spread', 'v1.34.2'],
      ]),
    );
    expect(versionsOfPlanJson({ tenants: [{ name: 'x' }] })).toEqual(new Map());
  });
});

describe('capacity ledger and quota', () => {
  it('puts the ledger in the report and the JSON, and keeps the HA booleans beside the conditions', () => {
    const plan = planPlacement(lab({ quota: '\n    quota: { cpu: 40, memoryMiB: 81920 }' }));
    const json = JSON.parse(renderJson(plan));
    const shop = json.tenants.find((t: { name: string }) => t.name === 'shop');
    expect(Object.keys(shop).slice(0, 5)).toEqual(['name', 'mode', 'kubernetesVersion', 'ha', 'haConditions']);
    expect(shop.ha).toEqual({ survivesNodeLoss: false, survivesInstanceLoss: false });
    expect(shop.haConditions[0]).toEqual({
      type: 'SurvivesNodeLoss',
      status: 'False',
      reason: 'PoolOnOneNode',
      message: expect.stringContaining('pool db has its only machine on'),
      causes: [expect.objectContaining({ pool: 'db', instance: 'east', machines: 1 })],
    });
    expect(shop.quota).toEqual({ cpu: 40, memoryMiB: 81920 });
    expect(json.ledger.tenants.filter((t: { tenant: string }) => t.tenant === 'shop')).toEqual([
      { tenant: 'shop', instance: 'east', machines: 5, cpu: 20, memoryMiB: 40960, diskGiB: 100, quota: { cpu: 40, memoryMiB: 81920 } },
    ]);
    const md = renderMarkdown(plan);
    expect(md).toContain('## Capacity ledger');
    expect(md).toContain('| shop | east | 5 | 20 | 40 GiB | 100 GiB | 40 cpu / 80 GiB (tenant uses 50% / 50%) |');
  });

  it('refuses a tenant over its quota at the pool that takes it over, with file, line, path and fix', () => {
    let error: unknown;
    try {
      lab({ quota: '\n    quota: { cpu: 16, memoryMiB: 81920 }' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ProblemError);
    const message = (error as ProblemError).message;
    // workers (16 cpu) fit the quota of 16; db takes the tenant over it.
    const line =
      labText()
        .split('\n')
        .findIndex((x) => x.includes('{ name: db, replicas: 1')) + 1;
    expect(message).toContain(`foresight-lab.yaml:${line}:`);
    expect(message).toContain(
      'tenants[0].pools[1]: pool db takes tenant shop over its quota: its pools reserve 20 cpu (quota 16), every pool at its max (workers 4 machines × 4 cpu / 8192 MiB, db 1 machine × 4 cpu / 8192 MiB)',
    );
    expect(message).toContain('fix: make pool db (or another pool) smaller, or raise tenants[0].quota to at least { cpu: 20, memoryMiB: 81920 }');
  });
});

describe('review sections', () => {
  it('shows the upgrade, what one host failing does and the ledger for the tenants a change touches', () => {
    const before = lab({ versions: ['v1.34.2', 'v1.35.4'] });
    const after = lab({ versions: ['v1.34.2', 'v1.35.4'], shop: 'v1.35.4', shopReplicas: 5 });
    const r = review({
      before: { lab: before, plan: planPlacement(before), label: 'base.yaml' },
      after: { lab: after, plan: planPlacement(after), label: 'pr.yaml' },
    });
    expect(r.markdown).toContain('### Upgrades');
    expect(r.markdown).toContain('#### shop: v1.34.2 → v1.35.4');
    expect(r.markdown).toContain('### If one host fails');
    expect(r.markdown).toMatch(/\| shop \| e\d \(east\) \| \d \|/);
    expect(r.markdown).toContain('### Capacity ledger');
    // spread is touched too: shop's new machine moves one of spread's.
    expect(r.markdown).toMatch(/\| spread \| e\d \(east\) \|/);
    expect(r.markdown).toMatch(/\| shop \| e2 \(east\) \| 4 \| db \| workers \| does not fit \|/);
    // Without previous the upgrade would replace every worker with no surge: refused first, naming the surge step.
    expect(
      r.warnings.some((w) =>
        /^tenant shop cannot roll from v1\.34\.2 to v1\.35\.4: every machine deployment of the tenant is replaced .* deploy the surge step first .*; e2 \(east\) has no room for the new machine deployments db-e2-[0-9a-f]+, workers-e2-[0-9a-f]+/.test(
          w,
        ),
      ),
    ).toBe(true);
  });
});

describe("synth's upgrade guard", () => {
  it('compares with the versions the previous placement.json in --out records, and refuses a jump of two minors', () => {
    const dir = mkdtempSync(join(tmpdir(), 'upgrade-guard-'));
    const config = join(dir, 'lab.yaml');
    const out = join(dir, 'out');
    writeFileSync(config, labText({ versions: ['v1.34.2', 'v1.35.4', 'v1.36.3'], eastCpu: 34, shop: 'v1.36.3' }));
    // No earlier synth: nothing to compare with.
    expect(() => refuseUnrollableUpgrades(config, out)).not.toThrow();
    mkdirSync(out);
    writeFileSync(join(out, 'placement.json'), renderJson(planPlacement(lab({ versions: ['v1.34.2', 'v1.35.4', 'v1.36.3'], eastCpu: 34 }))));
    expect(() => refuseUnrollableUpgrades(config, out)).toThrow(
      /lab\.yaml:\d+:\d+ {2}tenants\[0\]\.kubernetesVersion: tenant shop runs v1\.34\.2; v1\.36\.3 is 2 minor versions away/,
    );
    // The same versions as the previous synth: no upgrade, nothing refused.
    writeFileSync(join(out, 'placement.json'), renderJson(planPlacement(lab({ versions: ['v1.34.2', 'v1.35.4', 'v1.36.3'], eastCpu: 34, shop: 'v1.36.3' }))));
    expect(() => refuseUnrollableUpgrades(config, out)).not.toThrow();
  });
});
