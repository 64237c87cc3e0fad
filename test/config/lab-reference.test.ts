/** The lab description reference is generated from the loader's schema and committed current. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { labJsonSchema } from '../../modules/config/json-schema';
import { labReferenceMarkdown } from '../../modules/config/lab-reference';

const root = join(__dirname, '..', '..');

describe('docs/lab-reference.md', () => {
  const page = labReferenceMarkdown();

  it('is committed and current (regenerate with npm run json-schema)', () => {
    expect(readFileSync(join(root, 'docs/lab-reference.md'), 'utf8')).toBe(page);
  });

  it('lists every field of the schema that has a description, with that description', () => {
    const described: [string, string][] = [];
    const walk = (node: any, path: string) => {
      if (!node || typeof node !== 'object') return;
      if (typeof node.description === 'string' && path !== '') described.push([path, node.description]);
      for (const [key, child] of Object.entries<any>(node.properties ?? {})) walk(child, path === '' ? key : `${path}.${key}`);
      for (const v of [...(node.anyOf ?? []), ...(node.oneOf ?? [])]) walk({ ...v, description: undefined }, path);
      if (node.items) walk({ ...node.items, description: undefined }, `${path}[]`);
      if (typeof node.additionalProperties === 'object') walk(node.additionalProperties, `${path}.<key>`);
    };
    walk(JSON.parse(labJsonSchema()), '');
    expect(described.length).toBeGreaterThan(50); // the walker reached the fields (79 today)
    for (const [path, description] of described) {
      const row = page.split('\n').find((l) => l.startsWith(`| \`${path}\` |`));
      expect([path, row]).toEqual([path, expect.stringContaining(description.replace(/\|/g, '\\|').replace(/\n/g, ' '))]);
    }
  });

  it('gives each defaulted field its default and each required field as required', () => {
    expect(page).toContain('| `proxmox.reserve.cpu` | integer | default `2` |');
    expect(page).toContain('| `proxmox.instances[].name` | string | required |');
    expect(page).toContain('| `capmox.multiInstance` | "refuse" \\| "proposal" \\| "secondary-clusters" | default `"secondary-clusters"` |');
  });
});
