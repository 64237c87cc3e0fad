/**
 * The defaults the docs state are the code's: a sentence or table row of README.md, docs/*.md or
 * examples/*.yaml that says which `capmox.multiInstance` is the default (or is not) agrees with the
 * schema's default. (docs/usage.md once called secondary-clusters "not the default" while the schema
 * defaulted to it.)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { labSchema } from '../../modules/config/schema';

const ROOT = resolve(__dirname, '../..');

/** Every statement of the default: `capmox.multiInstance: <mode>`, (not) the default; or a table row `| \`<mode>\` (default) |`. */
export function multiInstanceDefaultClaims(text: string): { line: number; mode: string; isDefault: boolean }[] {
  const claims: { line: number; mode: string; isDefault: boolean }[] = [];
  text.split('\n').forEach((l, i) => {
    for (const m of l.matchAll(/multiInstance:?\s*`?"?([a-z-]+)"?`?\)?,?\s+(not\s+)?the default/g)) claims.push({ line: i + 1, mode: m[1], isDefault: !m[2] });
    for (const m of l.matchAll(/^\|\s*`([a-z-]+)`\s*\(default\)/g)) claims.push({ line: i + 1, mode: m[1], isDefault: true });
  });
  return claims.filter((c) => ['refuse', 'proposal', 'secondary-clusters'].includes(c.mode));
}

describe('the capmox.multiInstance default, as the docs state it', () => {
  const actual = labSchema.shape.capmox.parse(undefined).multiInstance;
  const files = ['README.md', ...readdirSync(join(ROOT, 'docs')).map((f) => `docs/${f}`), ...readdirSync(join(ROOT, 'examples')).map((f) => `examples/${f}`)];

  test('the finder sees a claim and its negation (what made the docs contradict each other)', () => {
    expect(multiInstanceDefaultClaims('(`capmox.multiInstance: secondary-clusters`, not the default\nuntil)')).toEqual([
      { line: 1, mode: 'secondary-clusters', isDefault: false },
    ]);
    expect(multiInstanceDefaultClaims('| `secondary-clusters` (default) | released')).toEqual([{ line: 1, mode: 'secondary-clusters', isDefault: true }]);
  });

  test(`every statement agrees with the schema (${actual})`, () => {
    const claims = files.flatMap((f) => multiInstanceDefaultClaims(readFileSync(join(ROOT, f), 'utf8')).map((c) => ({ file: f, ...c })));
    expect(claims.length).toBeGreaterThan(1);
    const wrong = claims.filter((c) => (c.mode === actual) !== c.isDefault);
    expect(wrong).toEqual([]);
  });
});
