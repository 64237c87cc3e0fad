/** The lab description reference is generated from the loader's schema and committed current. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { labJsonSchema } from '../../modules/config/json-schema';
import { labReferenceMarkdown } from '../../modules/config/lab-reference';

const root = join(__dirname, '..', '..');

describe('docs/lab-reference.md', () => {
  const page = labReferenceMarkdown();
  const lines = page.split('\n');

  /** The meaning of a field: its row's last cell, or the numbered note under the table that cell names ("see note N"). */
  const meaningOf = (path: string): string | undefined => {
    const at = lines.findIndex((l) => l.startsWith(`| \`${path}\` |`));
    if (at < 0) return undefined;
    const cells = lines[at].split(/(?<!\\)\|/).map((c) => c.trim());
    const meaning = cells[cells.length - 2].replace(/\\\|/g, '|');
    const note = /^see note (\d+)$/.exec(meaning);
    if (!note) return meaning;
    const start = lines.findIndex((l, i) => i > at && l.startsWith(`${note[1]}. **\`${path}\`**`));
    if (start < 0) return undefined;
    let end = start + 1;
    while (end < lines.length && lines[end].startsWith(' ')) end++;
    return lines
      .slice(start, end)
      .map((l) => l.trim())
      .join(' ')
      .replace(/^\d+\. \*\*`[^`]*`\*\*(, meaning)?: /, '');
  };

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
      expect([path, meaningOf(path)]).toEqual([path, expect.stringContaining(description.replace(/\s+/g, ' '))]);
    }
  });

  it('gives each defaulted field its default and each required field as required', () => {
    expect(page).toContain('| `proxmox.reserve.cpu` | integer | default `2` |');
    expect(page).toContain('| `proxmox.instances[].name` | string | required |');
    expect(page).toContain('| `capmox.multiInstance` | "refuse" \\| "proposal" \\| "secondary-clusters" | default `"secondary-clusters"` |');
  });
});
