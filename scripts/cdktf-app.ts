/**
 * The app `cdktf synth|deploy|diff` runs (see cdktf.json). The lab description comes from
 * PVEKAAS_CONFIG (default: the example lab); cdktf chooses the output directory and format.
 */
// First: the code cache and lazy archiver, before anything loads cdktf.
import './lib/fast-start';
import { join, relative, resolve } from 'node:path';
import { App, TerraformStack } from 'cdktf';
import { atLabFile, loadLabFile } from '../modules/config/load';
import { planPlacement } from '../modules/placement';
import { renderLab } from '../modules/rendering';
import { buildLab } from '../stacks/app';
import { runCommand } from './lib/cli';
import { fixHclOutput } from './lib/hcl-fixups';
import { synthesizeOnce } from './lib/lean-synth';
import { withoutTokenTraces } from './lib/token-traces';

runCommand(() => {
  const file = process.env.PVEKAAS_CONFIG ?? 'examples/lab.yaml';
  const lab = loadLabFile(file);
  const app = new App();
  // The CLI picks the output directory (cdktf.json, --output); the state directory is the lab's, relative to here.
  const stateDirFromStack = relative(join(app.outdir, 'stacks', 'any-stack'), resolve(lab.delivery.local.stateDir))
    .split('\\')
    .join('/');
  atLabFile(file, () => buildLab(app, lab, renderLab(lab, planPlacement(lab)), { stateDirFromStack }));
  // What app.synth() does, each element resolved once (scripts/lib/lean-synth.ts): the same bytes.
  withoutTokenTraces(() => synthesizeOnce(app, app.node.findAll().filter(TerraformStack.isStack), app.hclOutput));
  if (app.hclOutput) fixHclOutput(app.outdir);
});
