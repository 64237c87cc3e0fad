/**
 * Address edits (issue 42, item 4; modules/foresight/address-edits.ts) and the edit rules
 * (modules/foresight/edit-rules.ts): a node range edited below the addresses running machines may
 * hold is refused — those are the lowest of the old IPAM pool, without the subnet's network and
 * broadcast addresses and the gateway (the in-cluster IPAM provider's FindFreeAddress and
 * PoolSpecToIPSet) — and every other edit of ranges, gateway or DNS is explained. Each edit rule
 * fires with its own fixture; `validate --against` reports it with the file, the line and the fix.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { formatPath, ProblemError, type Problem } from '../../modules/config/problems';
import { upgradeProblems } from '../../modules/foresight/upgrade';
import { renderLab } from '../../modules/rendering';
import { replacementProblems, topologyMachineDeployments } from '../../modules/tenants/replaced';
import { refuseConfiguredPathsInside } from '../../scripts/lib/output-dir';
import type { Lab } from '../../modules/config/schema';
import { addressEdits } from '../../modules/foresight/address-edits';
import { EDIT_HOMES } from '../../modules/foresight/edit-rules';
import { machinesAtMost, planPlacement } from '../../modules/placement';
import { allocateVips, vipMemoryOf } from '../../modules/tenants/vip';
import { datastoreMemoryProblems, datastoreStorageClass } from '../../modules/management/datastore';
import { compileProject, projectRoot } from '../support/toolchain';
import { exampleLab } from '../tenants/fixtures';

/** tenant-a of the example lab: 3 workers, so 3 + one surge machine per placement at most. */
function machinesOfTenantA(lab: Lab): number {
  const plan = planPlacement(lab).tenants.find((t) => t.name === 'tenant-a')!;
  return plan.pools.flatMap((p) => p.placements).reduce((n, p) => n + machinesAtMost(p.scale) + 1, 0);
}

/** The problems refuseConfiguredPathsInside raises for `lab` and the output `<root>/generated`. */
function outputProblems(lab: Lab): Problem[] {
  try {
    refuseConfiguredPathsInside(join(projectRoot, 'examples/lab.yaml'), lab, join(projectRoot, 'generated'), '--out', projectRoot);
  } catch (e) {
    if (e instanceof ProblemError) return e.problems;
    throw e;
  }
  return [];
}

function edited(edit: (lab: Lab) => void): Lab {
  const lab = structuredClone(exampleLab());
  edit(lab);
  return lab;
}

const ip = (n: number) => `10.10.1.${n}`;

describe('address edits of a running tenant', () => {
  const before = exampleLab();
  const plan = planPlacement(before);
  const n = machinesOfTenantA(before);

  it('refuses a node range shrunk from below: the lowest addresses are the ones IPAM handed out', () => {
    const after = edited((l) => (l.tenants[0].network!.addresses = [`${ip(12)}-${ip(60)}`]));
    const { problems } = addressEdits(before, plan, after);
    expect(problems.map((p) => [p.rule, formatPath(p.path)])).toEqual([['edit.node-range-in-use', 'tenants[0].network.addresses']]);
    expect(problems[0].message).toContain(`no longer holds ${ip(10)}-${ip(11)}`);
    expect(problems[0].message).toContain(`up to ${n} machines`);
    expect(problems[0].fix).toContain(`keep ${ip(10)}-${ip(10 + n - 1)} in network.addresses`);
  });

  it('lets a range shrink from above while it keeps every address in use, and says what running machines keep', () => {
    const after = edited((l) => (l.tenants[0].network!.addresses = [`${ip(10)}-${ip(10 + n - 1)}`]));
    const { problems, notes } = addressEdits(before, plan, after);
    expect(problems).toEqual([]);
    expect(notes).toEqual([{ tenant: 'tenant-a', network: 'network', lines: [expect.stringContaining('running machines keep their addresses')] }]);
    // One address fewer is one in use.
    const tight = edited((l) => (l.tenants[0].network!.addresses = [`${ip(10)}-${ip(10 + n - 2)}`]));
    expect(addressEdits(before, plan, tight).problems.map((p) => p.message)).toEqual([expect.stringContaining(`no longer holds ${ip(10 + n - 1)},`)]);
  });

  it("counts the pool as IPAM does: the subnet's network address and the gateway are never handed out", () => {
    // Old range from .0 with the gateway .1 inside it: IPAM's first addresses are .2, .3, …
    const wide = edited((l) => (l.tenants[0].network!.addresses = [`${ip(0)}-${ip(60)}`]));
    const fromTwo = edited((l) => (l.tenants[0].network!.addresses = [`${ip(2)}-${ip(60)}`]));
    expect(addressEdits(wide, plan, fromTwo).problems).toEqual([]);
    const fromThree = edited((l) => (l.tenants[0].network!.addresses = [`${ip(3)}-${ip(60)}`]));
    expect(addressEdits(wide, plan, fromThree).problems.map((p) => p.message)).toEqual([expect.stringContaining(`no longer holds ${ip(2)},`)]);
  });

  it('explains a gateway and DNS edit: no machine rolled, running machines keep the old ones', () => {
    const after = edited((l) => {
      l.tenants[0].network!.gateway = '10.10.1.254';
      l.tenants[0].network!.dnsServers = ['10.10.1.53'];
    });
    const { problems, notes } = addressEdits(before, plan, after);
    expect(problems).toEqual([]);
    expect(notes[0].lines).toEqual([
      expect.stringMatching(/^gateway 10\.10\.1\.1\/24 → 10\.10\.1\.254\/24: no machine is rolled for it; running machines keep the old gateway/),
      expect.stringMatching(/^DNS servers 10\.10\.1\.1 → 10\.10\.1\.53: no machine is rolled for it/),
    ]);
  });

  it('says nothing of a tenant that is new, or unchanged', () => {
    expect(addressEdits(before, plan, before)).toEqual({ problems: [], notes: [] });
    const renamed = edited((l) => (l.tenants[0].name = 'tenant-z'));
    expect(addressEdits(before, plan, renamed)).toEqual({ problems: [], notes: [] });
  });
});

describe('the edit rules (docs/rules.md), each fired by its own fixture', () => {
  const withPool = (lab: Lab, addresses: string[]) => ({
    ...lab,
    management: { ...lab.management, loadBalancer: { ...lab.management.loadBalancer, addresses } },
  });
  const before = exampleLab();
  const memory = vipMemoryOf(allocateVips(before));
  const a = memory.get('tenant-a') as string;
  const other = ['10.4.0.100', '10.4.0.101', '10.4.0.102', '10.4.0.104'].find((v) => ![...memory.values()].includes(v)) as string;
  const fixtures: Record<string, () => { rule?: string }[]> = {
    'vip.memory-moved': () =>
      allocateVips(
        edited((l) => (l.tenants[0].vip = other)),
        memory,
      ).problems,
    'vip.memory-left-pool': () => allocateVips(withPool(before, ['10.4.0.150-10.4.0.160']), memory).problems,
    // A new tenant pinned to tenant-a's address.
    'vip.memory-taken': () =>
      allocateVips(
        edited((l) => l.tenants.push({ ...l.tenants[2], name: 'tenant-d', vip: a })),
        memory,
      ).problems,
    // The example lab deployed on OpenEBS LocalPV, then switched to local-path (its default class changes with it).
    'datastore.memory-changed': () =>
      datastoreMemoryProblems(edited((l) => (l.management.datastore.csi = 'local-path')).management, {
        csi: before.management.datastore.csi,
        storageClass: datastoreStorageClass(before.management.datastore),
      }),
    'edit.node-range-in-use': () =>
      addressEdits(
        before,
        planPlacement(before),
        edited((l) => (l.tenants[0].network!.addresses = ['10.10.1.30-10.10.1.60'])),
      ).problems,
    // tenant-a's workers get bigger machines with no previous: every node group of the pool is replaced at once.
    'replace.no-surge': () => {
      const after = edited((l) => (l.tenants[0].pools[0].size.cpu = 8));
      const mds = (l: Lab) => [...renderLab(l, planPlacement(l)).tenants.values()].flatMap((t) => topologyMachineDeployments(t.cluster));
      return replacementProblems(after, mds(before), mds(after), before);
    },
    // tenant-a (one small worker) ran 1.33 and surges (previous), with a template of every version: 1.35 is still two minors away.
    'upgrade.minor-jump': () => {
      const after = edited((l) => {
        const template = l.proxmox.instances[0].template as { versions?: unknown[] };
        template.versions = [
          { kubernetesVersion: 'v1.33.5', templateID: 1001 },
          { kubernetesVersion: 'v1.34.3', templateID: 1002 },
        ];
        l.tenants[0].pools[0].replicas = 1;
        l.tenants[0].pools[0].size.cpu = 1;
        l.tenants[0].previous = { kubernetesVersion: 'v1.33.5' } as Lab['tenants'][number]['previous'];
      });
      return upgradeProblems(after, planPlacement(after), new Map([['tenant-a', 'v1.33.5']]));
    },
    // tenant-a ran 1.34 on pmox-txl, whose one template is 1.35's: the surge machines clone it, so the roll needs previous.
    'upgrade.cannot-roll': () => upgradeProblems(before, planPlacement(before), new Map([['tenant-a', 'v1.34.3']])),
    'output.state-inside': () => outputProblems(edited((l) => (l.delivery = { backend: 'local', local: { stateDir: 'generated/state' } }))),
    'output.kubeconfig-inside': () =>
      outputProblems(edited((l) => (l.management.kubernetes = { configPath: join(projectRoot, 'generated/mgmt.yaml'), context: 'lab-mgmt' }))),
  };

  for (const { rules } of EDIT_HOMES)
    for (const rule of rules)
      it(`${rule.id}`, () => {
        const problems = fixtures[rule.id]();
        expect(problems.length).toBeGreaterThan(0);
        expect(problems.map((p) => p.rule)).toEqual(problems.map(() => rule.id));
      });
});

describe('validate --against', () => {
  const work = mkdtempSync(join(projectRoot, '.test-address-edits-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));
  beforeAll(() => compileProject());

  it("refuses a shrunk node range with the file, the line of the tenant's addresses and the fix", () => {
    const text = readFileSync(join(projectRoot, 'examples/lab.yaml'), 'utf8');
    expect(text).toContain('addresses: [10.10.1.10-10.10.1.60]');
    const file = join(work, 'shrunk.yaml');
    writeFileSync(file, text.replace('addresses: [10.10.1.10-10.10.1.60]', 'addresses: [10.10.1.20-10.10.1.60]'));
    const r = spawnSync(process.execPath, ['dist/scripts/validate.js', '--config', relative(projectRoot, file), '--against', 'examples/lab.yaml'], {
      cwd: projectRoot,
      encoding: 'utf8',
    });
    expect(r.status).toBe(1);
    const line = text.split('\n').findIndex((l) => l.includes('addresses: [10.10.1.10-10.10.1.60]')) + 1;
    expect(r.stderr).toMatch(
      new RegExp(`shrunk\\.yaml:${line}:\\d+ +tenants\\[0\\]\\.network\\.addresses: tenant tenant-a's network no longer holds 10\\.10\\.1\\.10-10\\.10\\.1\\.`),
    );
    expect(r.stderr).toContain('fix: keep 10.10.1.10-10.10.1.');
    // Without --against there is nothing to compare with: the range alone is valid.
    expect(
      spawnSync(process.execPath, ['dist/scripts/validate.js', '--config', relative(projectRoot, file)], { cwd: projectRoot, encoding: 'utf8' }).status,
    ).toBe(0);
  });
});
