/**
 * The rule table (modules/config/rule-table.ts): every rule fires on its own fixture
 * (test/config/rule-fixtures.ts) through the real loader, and only it; docs/rules.md is the table.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { parseLab } from '../../modules/config/load';
import { formatPath, ProblemError, type Problem } from '../../modules/config/problems';
import { RULE_HOMES, RULE_TABLE } from '../../modules/config/rule-table';
import { rulesDoc } from '../../scripts/rules-doc';
import { EDIT_HOMES } from '../../modules/foresight/edit-rules';
import { PLAN_RULE_HOMES } from '../../modules/config/plan-rule-table';
import { labWarnings } from '../../modules/config/safety';
import { WARNING_HOMES, WARNING_RULES } from '../../modules/config/warning-rules';
import { RULE_FIXTURES, WARNING_FIXTURES } from './rule-fixtures';

const root = join(__dirname, '../..');
const exampleText = readFileSync(join(root, 'examples/lab.yaml'), 'utf8');

function problemsOf(change: (doc: unknown) => void): Problem[] {
  const doc = parse(exampleText);
  change(doc);
  try {
    parseLab(stringify(doc), 'lab.yaml');
  } catch (e) {
    if (e instanceof ProblemError) return e.problems;
    throw e;
  }
  return [];
}

describe('the rule table', () => {
  const ids = RULE_TABLE.map((r) => r.id);

  it('names each rule once, with an id, what it refuses and a fix', () => {
    expect(new Set(ids).size).toBe(ids.length);
    for (const rule of RULE_TABLE) {
      expect(rule.id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*\.[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(rule.refuses.length).toBeGreaterThan(10);
      expect(rule.fix.length).toBeGreaterThan(5);
    }
  });

  it('has a fixture for every rule, and a rule for every fixture', () => {
    expect(Object.keys(RULE_FIXTURES).sort()).toEqual([...ids].sort());
  });

  it('accepts the example lab', () => {
    expect(problemsOf(() => undefined)).toEqual([]);
  });

  it.each(ids)('%s fires on its fixture, and nothing else does', (id) => {
    const problems = problemsOf(RULE_FIXTURES[id]);
    // Every problem, with its path, so a failure shows what fired instead.
    const found = problems.map((p) => `${p.rule ?? '(schema)'} at ${formatPath(p.path)}: ${p.message}`);
    expect(problems.length).toBeGreaterThan(0);
    expect(found.filter((f) => !f.startsWith(`${id} at `))).toEqual([]);
    for (const p of problems) expect(p.fix).toMatch(/\S/);
  });
});

describe('the warning rules', () => {
  const ids = WARNING_RULES.map((r) => r.id);
  const warningsOf = (change: (doc: unknown) => void) => {
    const doc = parse(exampleText);
    change(doc);
    return labWarnings(parseLab(stringify(doc), 'lab.yaml'));
  };

  it('names each once, apart from the rules, with a fixture each', () => {
    expect(new Set([...ids, ...RULE_TABLE.map((r) => r.id)]).size).toBe(ids.length + RULE_TABLE.length);
    expect(Object.keys(WARNING_FIXTURES).sort()).toEqual([...ids].sort());
  });

  it('says nothing of the example lab', () => {
    expect(warningsOf(() => undefined).filter((w) => w.rule !== undefined)).toEqual([]);
  });

  it.each(ids)('%s fires on its fixture as a warning (the lab still loads), and no other warning rule does', (id) => {
    const warnings = warningsOf(WARNING_FIXTURES[id]).filter((w) => w.rule !== undefined);
    expect(warnings.length).toBeGreaterThan(0);
    expect(warnings.filter((w) => w.rule !== id)).toEqual([]);
    for (const w of warnings) expect([w.severity, w.fix]).toEqual(['warning', expect.stringMatching(/\S/)]);
  });
});

describe('docs/rules.md', () => {
  it('is the rule table (regenerate with npm run docs:rules)', () => {
    expect(readFileSync(join(root, 'docs/rules.md'), 'utf8')).toBe(rulesDoc(RULE_HOMES, WARNING_HOMES, EDIT_HOMES, PLAN_RULE_HOMES));
  });

  it('names every rule id', () => {
    const doc = readFileSync(join(root, 'docs/rules.md'), 'utf8');
    for (const rule of [...RULE_TABLE, ...WARNING_RULES]) expect(doc).toContain(`\`${rule.id}\``);
  });
});

describe('pool.disk-below-template', () => {
  type Doc = { tenants: { pools: { size: { diskGiB: number } }[] }[]; proxmox: { instances: { template: Record<string, unknown> }[] } };

  it("refuses a pool smaller than the 20 GiB templates pvekaas builds (tenant-c's pool on pmox-fra), with the line's fix", () => {
    const problems = problemsOf((d) => ((d as Doc).tenants[2].pools[0].size.diskGiB = 12));
    expect(problems.map((p) => [p.rule, formatPath(p.path), p.fix])).toEqual([
      ['pool.disk-below-template', 'tenants[2].pools[0].size.diskGiB', 'set tenants[2].pools[0].size.diskGiB to 20 or more'],
    ]);
    expect(problems[0].message).toMatch(
      /the template built from the v1\.35\.4 image \(v1\.35\.4\) on instance pmox-fra has a 20 GiB boot disk.*shrinking disks is not supported/,
    );
  });

  it('accepts a pool exactly the size of the template, and a template whose disk is not given', () => {
    expect(problemsOf((d) => ((d as Doc).tenants[2].pools[0].size.diskGiB = 20))).toEqual([]);
    // pmox-txl's template gives no diskGiB: nothing is known to compare with.
    expect(problemsOf((d) => ((d as Doc).tenants[0].pools[0].size.diskGiB = 5))).toEqual([]);
    expect(problemsOf((d) => ((d as Doc).proxmox.instances[0].template.diskGiB = 40))).toEqual([]);
  });
});

describe('issue 43: mistakes that were not caught, or silently ignored', () => {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the fixtures edit the raw YAML document, before any type applies
  type Doc = { proxmox: { instances: any[] }; tenants: any[] };

  it('refuses an endpoint ending in /api2/json, with the endpoint to write', () => {
    for (const endpoint of ['https://pmox-fra.lab.example:8006/api2/json', 'https://pmox-fra.lab.example:8006/api2/json/']) {
      const problems = problemsOf((d) => ((d as Doc).proxmox.instances[1].endpoint = endpoint));
      expect(problems.map((p) => [p.rule, formatPath(p.path), p.fix])).toEqual([
        ['instance.endpoint-api-path', 'proxmox.instances[1].endpoint', 'write endpoint: https://pmox-fra.lab.example:8006/'],
      ]);
      expect(problems[0].line).toBeGreaterThan(1);
    }
    // A path that merely contains the words stays allowed (a reverse proxy under /pve/).
    expect(problemsOf((d) => ((d as Doc).proxmox.instances[1].endpoint = 'https://proxy.lab.example/pve/'))).toEqual([]);
  });

  it('refuses an existing template inside vmIdRange, suggesting a range clear of it', () => {
    const problems = problemsOf((d) => ((d as Doc).proxmox.instances[0].template.templateID = 9010));
    expect(problems.map((p) => [p.rule, formatPath(p.path), p.value])).toEqual([
      ['template.id-in-vmid-range', 'proxmox.instances[0].template.templateID', 9010],
    ]);
    expect(problems[0].fix).toBe(
      'set proxmox.instances[0].vmIdRange to ids no VM of pmox-txl has, e.g. vmIdRange: { start: 9100, end: 9199 }, or correct the templateID',
    );
    // The range suggested is accepted.
    expect(
      problemsOf((d) => {
        (d as Doc).proxmox.instances[0].template.templateID = 9010;
        (d as Doc).proxmox.instances[0].vmIdRange = { start: 9100, end: 9199 };
      }),
    ).toEqual([]);
  });

  it('refuses images that would never be built (an existing template), naming both ways out', () => {
    const problems = problemsOf(
      (d) => ((d as Doc).proxmox.instances[0].images = [{ kubernetesVersion: 'v1.36.1', url: 'https://images.lab.example/x.qcow2' }]),
    );
    expect(problems.map((p) => [p.rule, formatPath(p.path)])).toEqual([['image.not-built', 'proxmox.instances[0].images']]);
    expect(problems[0].message).toMatch(/its images \(v1\.36\.1\) are never built/);
    expect(problems[0].fix).toMatch(/^remove proxmox\.instances\[0\]\.images; or.*templateSelector: \{ matchTags: \[capi, v1\.36\.1\] \}/);
  });

  it('asks a tenant whose every pool is pinned for a template and a node network on that instance only', () => {
    // tenant-b runs v1.36.1, which only pmox-fra has an image of; its pools are pinned there.
    const pinned = (d: Doc) => {
      (d.proxmox.instances[1].images as Record<string, unknown>[]).push({
        kubernetesVersion: 'v1.36.1',
        nodes: ['pmox-fra-1', 'pmox-fra-2', 'pmox-fra-3'],
        url: 'https://images.lab.example/y.qcow2',
      });
      (d.proxmox.instances[1].template as { templateSelector: { matchTags: string[] } }).templateSelector.matchTags = ['capi'];
      d.tenants[1].kubernetesVersion = 'v1.36.1';
      d.tenants[1].placement = { mode: 'Default', instances: ['pmox-fra'] };
      d.tenants[1].network = undefined;
      d.tenants[1].networks = { 'pmox-fra': { addresses: ['10.20.2.10-10.20.2.60'], prefix: 24, gateway: '10.20.2.1', dnsServers: ['10.20.2.1'] } };
    };
    const pinBoth = (d: Doc) => {
      pinned(d);
      for (const pool of d.tenants[1].pools) pool.instance = 'pmox-fra';
    };
    expect(problemsOf((d) => pinBoth(d as Doc))).toEqual([]);
    // One pool left unpinned: Default places it on pmox-txl, which has neither the template nor a network.
    const unpinned = problemsOf((d) => {
      pinBoth(d as Doc);
      delete (d as Doc).tenants[1].pools[0].instance;
    });
    expect(unpinned.map((p) => p.rule).sort()).toEqual(['networks.missing', 'tenant.no-template']);
  });
});

describe('issue 43: a version out of range — the cause first, and a fix that names only what is accepted', () => {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the raw YAML document
  type Doc = any;
  /** tenant-b (autoscaled, SingleInstance: a template on both instances) on `version`, with templates for it. */
  const tenantBOn = (version: string) => (d: Doc) => {
    d.proxmox.instances[0].template.versions = [{ kubernetesVersion: version, templateID: 1001 }];
    d.proxmox.instances[1].images.push({
      kubernetesVersion: version,
      nodes: ['pmox-fra-1', 'pmox-fra-2', 'pmox-fra-3'],
      url: 'https://images.lab.example/k.qcow2',
    });
    d.tenants[1].kubernetesVersion = version;
  };

  it('prints the version refusal before the missing templates it causes', () => {
    const problems = problemsOf((d: Doc) => (d.tenants[1].kubernetesVersion = 'v1.37.2'));
    expect(problems.map((p) => p.rule)).toEqual(['versions.tenant-kubernetes', 'tenant.no-template', 'tenant.no-template']);
  });

  it('recommends, for an autoscaled tenant, exactly the minors that validate', () => {
    const [fix] = problemsOf((d: Doc) => (d.tenants[1].kubernetesVersion = 'v1.37.2')).map((p) => p.fix!);
    const [, from, to] = /run a Kubernetes minor from 1\.(\d+) to 1\.(\d+) /.exec(fix)!;
    expect([from, to]).toEqual(['30', '36']);
    for (let minor = Number(from); minor <= Number(to); minor++) expect(problemsOf(tenantBOn(`v1.${minor}.1`))).toEqual([]);
    // Just outside, each side: refused by the same rule, with the same range.
    for (const version of ['v1.29.1', 'v1.37.1']) {
      const problems = problemsOf(tenantBOn(version));
      expect(problems.map((p) => [p.rule, p.fix!.slice(0, 40)])).toEqual([['versions.tenant-kubernetes', 'run a Kubernetes minor from 1.30 to 1.36']]);
      expect(problems[0].fix).not.toMatch(/modules\//);
    }
  });
});
