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
import { RULE_FIXTURES } from './rule-fixtures';

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

describe('docs/rules.md', () => {
  it('is the rule table (regenerate with npm run docs:rules)', () => {
    expect(readFileSync(join(root, 'docs/rules.md'), 'utf8')).toBe(rulesDoc(RULE_HOMES));
  });

  it('names every rule id', () => {
    const doc = readFileSync(join(root, 'docs/rules.md'), 'utf8');
    for (const rule of RULE_TABLE) expect(doc).toContain(`\`${rule.id}\``);
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
