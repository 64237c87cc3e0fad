#!/usr/bin/env node
/**
 * The docs part of `npm run lint`: every relative link of the documentation resolves, and no
 * documentation names a path of the machine it was written on.
 *
 * - Markdown links `[text](target)` and `[text](target#anchor)` in README.md, docs/ and examples/
 *   (and images `![alt](file.svg)`): the file exists (relative to the page), the anchor is the
 *   slug of one of the target page's headings by GitHub's rules (lower case; punctuation but `-`
 *   and `_` dropped; each space a `-`; a repeated heading gets `-1`, `-2` …). Links with a scheme
 *   (https:, mailto:) are not followed.
 * - References in prose, comments and messages, `docs/<page>.md` or `README.md` optionally followed by
 *   `, "<section>"` (the project's way to name a section in text: examples/ comments, a rule's fix in
 *   modules/ and scripts/): the page exists, and the section is one of its headings (or the start of one,
 *   before a `:` or ` (`). A page of another repository is named as such ("… in its repository").
 * - Machine paths: `/work/`, `/tmp/`, `/home/`, `/root/` and `../shared` never appear in README.md, docs/
 *   or examples/ (a doc shows what a user's own clone prints; a temporary file is named relative to it).
 *
 * Plain JavaScript: lint runs before anything is compiled. Exit 1 with every finding, file:line first.
 * `node scripts/check-docs.js [files...]` checks those files only (test/lint/check-docs.test.ts).
 */
'use strict';
const { existsSync, readFileSync, readdirSync, statSync } = require('node:fs');
const { dirname, join, relative, resolve } = require('node:path');

const root = resolve(__dirname, '..');

/** GitHub's heading slug (github-slugger): lower case, punctuation dropped but `-` and `_`, spaces to `-`. */
function slug(text) {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The rendered text of a heading: inline code, emphasis and links reduced to their text. */
function headingText(raw) {
  return raw
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`([^`]*)`/g, '$1')
    .replace(/\*\*|__|\*/g, '')
    .replace(/<[^>]+>/g, '')
    .trim();
}

const headingCache = new Map();
/** The headings of a Markdown file: their texts and their anchors (with GitHub's -1, -2 for repeats). */
function headings(file) {
  if (headingCache.has(file)) return headingCache.get(file);
  const texts = new Set();
  const anchors = new Set();
  const seen = new Map();
  let fence = null;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const f = /^\s*(```+|~~~+)/.exec(line);
    if (f) {
      if (fence === null) fence = f[1][0];
      else if (f[1][0] === fence) fence = null;
      continue;
    }
    if (fence !== null) continue;
    const h = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!h) continue;
    const text = headingText(h[1]);
    texts.add(text);
    const base = slug(text);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  const result = { texts, anchors };
  headingCache.set(file, result);
  return result;
}

const MACHINE_PATH = /(?<![\w.~-])(\/work\/|\/tmp\/|\/home\/|\/root\/)|\.\.\/shared\b/;

function rel(file) {
  return relative(root, file);
}

/** The findings of one file: `file:line: what` strings. */
function checkFile(file) {
  const findings = [];
  const text = readFileSync(file, 'utf8');
  const lines = text.split('\n');
  const isMarkdown = file.endsWith('.md');
  const isDoc = isMarkdown || rel(file).startsWith('examples/');
  let fence = null;
  lines.forEach((line, i) => {
    const at = `${rel(file)}:${i + 1}`;
    const f = /^\s*(```+|~~~+)/.exec(line);
    if (f) {
      if (fence === null) fence = f[1][0];
      else if (f[1][0] === fence) fence = null;
    }
    if (isDoc && MACHINE_PATH.test(line)) {
      findings.push(
        `${at}: a path of a machine (${MACHINE_PATH.exec(line)[0]}): docs show a user's clone; name the file relative to the project (or describe it)`,
      );
    }
    if (isMarkdown && fence === null) {
      // Inline code is not a link: drop it before looking for links.
      const prose = line.replace(/`[^`]*`/g, '');
      for (const m of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
        const target = m[1];
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
        const [path, anchor] = target.split('#');
        const dest = path === '' ? file : resolve(dirname(file), decodeURI(path));
        if (!existsSync(dest)) {
          findings.push(`${at}: link to ${target}: no such file ${rel(dest)}`);
          continue;
        }
        if (anchor !== undefined) {
          if (!dest.endsWith('.md') || statSync(dest).isDirectory()) {
            findings.push(`${at}: link to ${target}: an anchor into a file that is not Markdown`);
          } else if (!headings(dest).anchors.has(anchor)) {
            findings.push(`${at}: link to ${target}: ${rel(dest)} has no heading whose anchor is #${anchor}`);
          }
        }
      }
    }
    // `docs/x.md, "Section"` and `README.md, "Section"` in prose, comments and messages (the page is named from the project's root).
    // A page of another repository says so ("docs/advanced-setups.md in its repository") and is not followed.
    for (const m of line.matchAll(/(?<![\w/.-])((?:docs\/[\w.-]+|README)\.md)(?:, "([^"]+)")?(?! in (?:its|their) repository)/g)) {
      const dest = join(root, m[1]);
      if (!existsSync(dest)) {
        findings.push(`${at}: names ${m[1]}, which does not exist`);
      } else if (m[2] !== undefined && ![...headings(dest).texts].some((t) => t === m[2] || t.startsWith(`${m[2]}:`) || t.startsWith(`${m[2]} (`))) {
        findings.push(`${at}: names the section "${m[2]}" of ${m[1]}, which has no such heading`);
      }
    }
  });
  return findings;
}

/** The files checked: README.md, docs/ and examples/ (every file), and the sources whose messages name pages. */
function defaultFiles() {
  const files = [join(root, 'README.md')];
  const walk = (dir, keep) => {
    if (!existsSync(dir)) return;
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p, keep);
      else if (keep(e.name)) files.push(p);
    }
  };
  walk(join(root, 'docs'), (n) => /\.(md|yaml|yml)$/.test(n));
  walk(join(root, 'examples'), () => true);
  for (const dir of ['modules', 'scripts', 'stacks', 'constructs']) walk(join(root, dir), (n) => /\.ts$/.test(n) && !n.endsWith('.test.ts'));
  return files;
}

function main(argv) {
  const files = argv.length > 0 ? argv.map((f) => resolve(f)) : defaultFiles();
  const findings = files.flatMap(checkFile);
  if (findings.length > 0) {
    process.stderr.write(`${findings.join('\n')}\ndocs: ${findings.length} problem(s) in links and paths (scripts/check-docs.js)\n`);
    process.exitCode = 1;
  }
}

module.exports = { slug, headingText, checkFile };

if (require.main === module) main(process.argv.slice(2));
