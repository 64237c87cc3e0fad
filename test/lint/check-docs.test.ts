/**
 * The docs part of lint (scripts/check-docs.js): each kind of finding fires on a page that has it,
 * GitHub's anchors are computed as GitHub computes them, and the project's own docs pass.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');
// eslint-disable-next-line @typescript-eslint/no-require-imports -- plain JavaScript (lint runs it before anything is compiled)
const { checkFile, slug, headingText } = require('../../scripts/check-docs.js') as {
  checkFile(file: string): string[];
  slug(text: string): string;
  headingText(raw: string): string;
};

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'pvekaas-check-docs-'));
  writeFileSync(
    join(dir, 'target.md'),
    ['# Target', '', '## The `pvekaas` command: what a command costs to start', '', '## Notes', '', '## Notes', '', '```sh', '# not a heading', '```', ''].join(
      '\n',
    ),
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function page(name: string, text: string): string[] {
  const file = join(dir, name);
  writeFileSync(file, text);
  return checkFile(file);
}

describe('scripts/check-docs.js', () => {
  test("GitHub's slugs: lower case, punctuation dropped, spaces to -, inline code and emphasis as text", () => {
    expect(slug(headingText('The `pvekaas` command: what a command costs to start'))).toBe('the-pvekaas-command-what-a-command-costs-to-start');
    expect(slug(headingText("Benchmark figures (2026-12-03, this project's `go` machine: 2 cores, 24 GiB, Node 20.20.2)"))).toBe(
      'benchmark-figures-2026-12-03-this-projects-go-machine-2-cores-24-gib-node-20202',
    );
    expect(slug(headingText('**Surge**, then retire'))).toBe('surge-then-retire');
  });

  test('a link to a file that exists, and to its headings (a repeated one with -1), passes', () => {
    expect(page('ok.md', '[a](target.md) [b](target.md#the-pvekaas-command-what-a-command-costs-to-start) [c](target.md#notes-1) [d](#top)\n# Top\n')).toEqual(
      [],
    );
  });

  test('a dead link, a dead anchor and a heading inside a code block are findings, with file:line', () => {
    const found = page('bad.md', 'intro\n[gone](missing.md)\n[anchor](target.md#no-such) [fenced](target.md#not-a-heading)\n');
    expect(found).toEqual([
      expect.stringMatching(/bad\.md:2: link to missing\.md: no such file/),
      expect.stringMatching(/bad\.md:3: link to target\.md#no-such: .*target\.md has no heading whose anchor is #no-such/),
      expect.stringMatching(/bad\.md:3: link to target\.md#not-a-heading/),
    ]);
  });

  test('a link inside inline code or a fenced block is not followed; one with a scheme is not either', () => {
    expect(page('code.md', '`[x](missing.md)`\n```\n[y](missing.md)\n```\n[z](https://example.com/missing.md)\n')).toEqual([]);
  });

  test('a page or section named in prose must exist ("docs/<page>.md, \\"<section>\\"")', () => {
    const found = page('prose.md', 'see docs/no-such-page.md; docs/usage.md, "No such section"; docs/usage.md, "Foresight"; docs/x.md in its repository\n');
    expect(found).toEqual([
      expect.stringMatching(/prose\.md:1: names docs\/no-such-page\.md, which does not exist/),
      expect.stringMatching(/prose\.md:1: names the section "No such section" of docs\/usage\.md/),
    ]);
  });

  test('a machine path is a finding; a path of the project or a product path is not', () => {
    expect(page('paths.md', 'ran in /work/main\n')).toEqual([expect.stringMatching(/paths\.md:1: a path of a machine \(\/work\/\)/)]);
    expect(page('tmp.md', '$ sed … > /tmp/small.yaml\n')).toHaveLength(1);
    expect(page('shared.md', 'the design is `../shared/design/ARCHITECTURE.md`\n')).toHaveLength(1);
    expect(page('fine.md', 'the cache is /var/cache/pvekaas/tools; write small.yaml; state/ is ignored\n')).toEqual([]);
  });

  test("the project's README, docs, examples and messages pass", () => {
    const r = spawnSync(process.execPath, [join(ROOT, 'scripts', 'check-docs.js')], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
});
