/**
 * No problem is raised outside the tables (issue 40): every place in modules/ and scripts/lib/ that
 * makes a `Problem` (an object literal with a `path` and a `message`) either is a rule of the rule
 * table or the warning rules (their checks: `runRules` tags each problem with its rule's id), or
 * names a rule id of a table in its `rule` field — a plan or edit rule only in that rule's home
 * (modules/config/plan-rule-table.ts, modules/foresight/edit-rules.ts). The placer's `problem(rule,
 * ...)` is the one helper that takes the id from its callers: each call must name one the same way.
 * A static check over the source, so a problem added anywhere without an id fails here, and it is
 * shown to fail on planted raises.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { PLAN_RULE_HOMES } from '../../modules/config/plan-rule-table';
import { RULE_HOMES } from '../../modules/config/rule-table';
import { WARNING_HOMES } from '../../modules/config/warning-rules';
import { EDIT_HOMES } from '../../modules/foresight/edit-rules';

const root = join(__dirname, '../..');

/**
 * The stage before the rules, and where a problem is about no description: the loader (file size,
 * YAML syntax), the schema (zod's issues, mapped in one place), the string checks every value passes
 * (modules/config/safety.ts, before any rule runs) and the output directory checks of the command line.
 */
export const BEFORE_THE_RULES: Record<string, string> = {
  'modules/config/load.ts': 'the loader: the file is too large, its YAML does not parse, the schema issues mapped to problems',
  'modules/config/yaml-syntax.ts': 'YAML syntax errors, before there is a description',
  'modules/config/schema.ts': "the schema's own refinements (types, formats, bounds), reported by the loader",
  'modules/config/safety.ts': 'the string checks every value passes before the rules run',
};

/** Homes whose checks are run by `runRules` (each problem tagged with the id of the rule that found it), and the helpers they share. */
const ruleHomes = new Set([...RULE_HOMES, ...WARNING_HOMES].map((h) => h.home).concat('modules/config/rule-helpers.ts'));
/** Every id, with the home that may raise it (lab and warning ids: any helper of their check, since runRules tags them too). */
const labIds = new Set([...RULE_HOMES, ...WARNING_HOMES].flatMap((h) => h.rules.map((r) => r.id)));
const homeOf = new Map<string, string>([...PLAN_RULE_HOMES, ...EDIT_HOMES].flatMap((h) => h.rules.map((r) => [r.id, h.home] as [string, string])));

export interface Raise {
  file: string;
  line: number;
  why: string;
}

function idProblem(id: string, file: string): string | undefined {
  if (labIds.has(id)) return undefined;
  const home = homeOf.get(id);
  if (home === undefined) return `rule id ${id} is in no table (docs/rules.md)`;
  if (home !== file) return `rule id ${id} belongs to ${home}`;
  return undefined;
}

/** The raises of `text` (the source of `file`, relative to the root) that no table accounts for. */
export function untabledRaises(file: string, text: string): Raise[] {
  if (ruleHomes.has(file) || BEFORE_THE_RULES[file] !== undefined) return [];
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
  const found: Raise[] = [];
  const at = (node: ts.Node, why: string) => found.push({ file, line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1, why });
  const nameOf = (p: ts.ObjectLiteralElementLike) => (p.name && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) ? p.name.text : undefined);
  const visit = (node: ts.Node) => {
    if (ts.isObjectLiteralExpression(node)) {
      const props = new Map(node.properties.map((p) => [nameOf(p), p] as const));
      const severity = props.get('severity');
      const warning = severity && ts.isPropertyAssignment(severity) && /warning/.test(severity.initializer.getText());
      if (props.has('path') && props.has('message') && !warning) {
        const rule = props.get('rule');
        if (rule === undefined) at(node, 'a problem without a rule id');
        else if (ts.isPropertyAssignment(rule) && ts.isStringLiteral(rule.initializer)) {
          const wrong = idProblem(rule.initializer.text, file);
          if (wrong) at(node, wrong);
        } else if (!(file === 'modules/placement/placer.ts' && ts.isShorthandPropertyAssignment(rule))) at(node, 'a rule id that is not written out');
      }
    }
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      node.expression.name.text === 'problem' &&
      file.startsWith('modules/placement/')
    ) {
      const first = node.arguments[0];
      if (!first || !ts.isStringLiteral(first)) at(node, 'placer.problem without a written rule id');
      else {
        const id = first.text;
        const wrong = labIds.has(id) ? undefined : homeOf.get(id) === undefined ? `rule id ${id} is in no table` : undefined;
        if (wrong) at(node, wrong);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

describe('problems are raised in the tables only', () => {
  // The pure modules and the command line's library; the commands' own output shapes (scripts/*.ts) and the twin are no lab's problems.
  const files = [...sources('modules'), ...sources('scripts/lib')];

  it('finds no problem without a rule id of a table, nor an id away from its home', () => {
    const raises = files.flatMap((f) => untabledRaises(relative(root, join(root, f)), readFileSync(join(root, f), 'utf8')));
    expect(raises.map((r) => `${r.file}:${r.line}: ${r.why}`)).toEqual([]);
  });

  it('fails on a planted raise without an id, with an unknown id, or with an id of another home', () => {
    const planted = (body: string) => untabledRaises('modules/tenants/planted.ts', `export const p = () => [${body}];`);
    expect(planted("{ path: ['tenants', 0], message: 'no', fix: 'yes' }")).toHaveLength(1);
    expect(planted("{ path: [], message: 'no', rule: 'no.such-rule' }")[0].why).toMatch(/in no table/);
    expect(planted("{ path: [], message: 'no', rule: 'failover.no-room' }")[0].why).toMatch(/belongs to modules\/placement\/failover.ts/);
    expect(planted("{ path: [], message: 'no', rule: someId }")[0].why).toMatch(/not written out/);
    // The same raise at its home, and a warning, pass.
    expect(untabledRaises('modules/placement/failover.ts', "const p = { path: [], message: 'm', rule: 'failover.no-room' };")).toEqual([]);
    expect(planted("{ path: [], message: 'm', severity: 'warning' }")).toEqual([]);
    expect(untabledRaises('modules/placement/plan.ts', "placer.problem(t, p, 'message', 'fix');")).toHaveLength(1);
  });

  it('lists as homes only files that exist', () => {
    for (const file of [...PLAN_RULE_HOMES.map((h) => h.home), ...Object.keys(BEFORE_THE_RULES)]) expect(files).toContain(file);
  });
});
