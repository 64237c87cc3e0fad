/** Synthesizes one scratch stack, as JSON or HCL, and returns the file's text (for binding-level tests). */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, TerraformStack } from 'cdktf';

export function synthStack(hcl: boolean, build: (stack: TerraformStack) => void): string {
  const dir = mkdtempSync(join(tmpdir(), 'pvekaas-stack-'));
  // cdktf reads the output format from the environment when the stack is constructed.
  const previous = process.env.SYNTH_HCL_OUTPUT;
  process.env.SYNTH_HCL_OUTPUT = hcl ? 'true' : 'false';
  try {
    // No provider constructs in these scratch stacks: cdktf's provider validation would refuse them.
    const app = new App({ outdir: dir, hclOutput: hcl, skipValidation: true });
    build(new TerraformStack(app, 'scratch'));
    app.synth();
    return readFileSync(join(dir, 'stacks/scratch', hcl ? 'cdk.tf' : 'cdk.tf.json'), 'utf8');
  } finally {
    if (previous === undefined) delete process.env.SYNTH_HCL_OUTPUT;
    else process.env.SYNTH_HCL_OUTPUT = previous;
    rmSync(dir, { recursive: true, force: true });
  }
}
