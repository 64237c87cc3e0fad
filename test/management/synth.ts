/** Synthesizes a lab with the real App wiring into a scratch directory and reads the stacks back. */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { labSchema } from '../../modules/config/schema';
import { join, resolve } from 'node:path';
import { App } from 'cdktf';
import { parse } from 'yaml';
import { loadLabFile, parseLab } from '../../modules/config/load';
import type { Lab } from '../../modules/config/schema';
import { planPlacement } from '../../modules/placement';
import { buildLab } from '../../stacks/app';
import { renderLab } from '../../modules/rendering';

export const projectRoot = resolve(__dirname, '../..');
export const exampleLabFile = join(projectRoot, 'examples/lab.yaml');

/** The example lab, parsed; `edit` changes the raw YAML document before validation. */
export function exampleLab(edit?: (raw: any) => void): Lab {
  if (!edit) return loadLabFile(exampleLabFile);
  const raw = parse(readFileSync(exampleLabFile, 'utf8'));
  edit(raw);
  return parseLab(JSON.stringify(raw), 'examples/lab.yaml (edited)');
}

/** Like `exampleLab`, with the schema only: no cross-field rules, to test what the stacks do on their own. */
export function exampleLabSchemaOnly(edit: (raw: any) => void): Lab {
  const raw = parse(readFileSync(exampleLabFile, 'utf8'));
  edit(raw);
  return labSchema.parse(raw);
}

export interface Synthesized {
  readonly dir: string;
  readonly stacks: string[];
  /** The parsed cdk.tf.json of a stack. */
  stack(name: string): any;
  /** Raw text of a stack's cdk.tf.json. */
  text(name: string): string;
  /** Every file under the output directory, as text. */
  allText(): string;
  cleanup(): void;
}

export function synthesize(lab: Lab): Synthesized {
  const dir = mkdtempSync(join(tmpdir(), 'pvekaas-mgmt-'));
  const previous = process.env.SYNTH_HCL_OUTPUT;
  process.env.SYNTH_HCL_OUTPUT = 'false';
  try {
    const app = new App({ outdir: dir, hclOutput: false });
    buildLab(app, lab, renderLab(lab, planPlacement(lab)));
    app.synth();
  } finally {
    if (previous === undefined) delete process.env.SYNTH_HCL_OUTPUT;
    else process.env.SYNTH_HCL_OUTPUT = previous;
  }
  const text = (name: string) => readFileSync(join(dir, 'stacks', name, 'cdk.tf.json'), 'utf8');
  const walk = (d: string): string[] => readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(d, e.name)) : [join(d, e.name)]));
  return {
    dir,
    stacks: readdirSync(join(dir, 'stacks')).sort(),
    stack: (name) => JSON.parse(text(name)),
    text,
    allText: () =>
      walk(dir)
        .map((f) => readFileSync(f, 'utf8'))
        .join('\n'),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
