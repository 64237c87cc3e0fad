/**
 * Repairs for cdktf 0.21's HCL output, applied to every `cdk.tf` right after synthesis:
 * - `depends_on` entries and a resource's `provider` are rendered as quoted strings, which
 *   OpenTofu and Terraform accept only with a "Quoted references are deprecated" warning; they are
 *   written as bare references.
 * - the file is indented by nesting depth (cdktf writes every line flush left), so a reviewer can
 *   read it in a pull request.
 */
import { readFileSync, readdirSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';

/** The line with string literals blanked out, so braces inside strings are not counted. */
function structural(line: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '#') break;
    else out += c;
  }
  return out;
}

export function fixHcl(text: string): string {
  const lines = text.split('\n');
  const out: string[] = [];
  let depth = 0;
  let inDependsOn = false;
  let blank = 0;
  for (const raw of lines) {
    let line = raw.trim();
    if (line === '') {
      // cdktf leaves runs of empty lines inside the terraform block; keep at most one.
      if (++blank > 1) continue;
      out.push('');
      continue;
    }
    blank = 0;
    if (/^depends_on = \[$/.test(line)) inDependsOn = true;
    else if (inDependsOn && /^\]/.test(line)) inDependsOn = false;
    else if (inDependsOn) line = line.replace(/^"([A-Za-z0-9_.\-[\]]+)"(,?)$/, '$1$2');
    else if (depth > 0) line = line.replace(/^provider = "([A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)?)"$/, 'provider = $1');
    const code = structural(line);
    const opens = (code.match(/[{[(]/g) ?? []).length;
    const closes = (code.match(/[}\])]/g) ?? []).length;
    const leadingCloses = (code.match(/^[}\])]+/) ?? [''])[0].length;
    const indent = Math.max(0, depth - leadingCloses);
    out.push(`${'  '.repeat(indent)}${line}`);
    depth = Math.max(0, depth + opens - closes);
  }
  return out.join('\n').replace(/\n{3,}/g, '\n\n');
}

/** Applies `fixHcl` to `<out>/stacks/<stack>/cdk.tf` for every stack. */
export function fixHclOutput(outdir: string): void {
  const stacks = join(outdir, 'stacks');
  if (!existsSync(stacks)) return;
  for (const stack of readdirSync(stacks)) {
    const file = join(stacks, stack, 'cdk.tf');
    if (existsSync(file)) writeFileSync(file, fixHcl(readFileSync(file, 'utf8')));
  }
}
