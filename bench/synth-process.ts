/**
 * One measured synth process of the benchmark (bench/synth.ts starts it with plain node):
 *   pvekaas  <lab> <out>          the real synth (scripts/lib/synthesize)
 *   baseline <stacks.json> <out>  the same resources through bare cdktf constructs, no pvekaas logic
 *   floor    <stacks.json> <out>  the same JSON written with JSON.stringify alone
 * Prints {"maxRssKiB": n} on stdout when done.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const [mode, input, out] = process.argv.slice(2);

type StackJson = Record<string, any>;

function baseline(stacks: Record<string, StackJson>): void {
  // Loaded here, not at the top: the floor process must not pay for cdktf.
  const { App, TerraformStack, TerraformResource, TerraformOutput, TerraformVariable, LocalBackend } = require('cdktf') as typeof import('cdktf');
  const { Manifest } = require('@cdktf/provider-kubernetes/lib/manifest') as typeof import('@cdktf/provider-kubernetes/lib/manifest');
  const app = new App({ outdir: out, skipValidation: true });
  for (const [name, json] of Object.entries(stacks)) {
    const stack = new TerraformStack(app, name);
    new LocalBackend(stack, { path: `../../state/${name}.tfstate` });
    for (const [vname, v] of Object.entries<any>(json.variable ?? {})) new TerraformVariable(stack, vname, { type: v.type, sensitive: v.sensitive });
    for (const [type, resources] of Object.entries<any>(json.resource ?? {})) {
      for (const [rname, body] of Object.entries<any>(resources)) {
        const { '//': _meta, depends_on: _deps, ...attributes } = body;
        if (type === 'kubernetes_manifest') new Manifest(stack, rname, { manifest: attributes.manifest });
        else {
          const resource = new TerraformResource(stack, rname, { terraformResourceType: type });
          for (const [key, value] of Object.entries(attributes)) resource.addOverride(key, value);
        }
      }
    }
    for (const [oname, o] of Object.entries<any>(json.output ?? {})) new TerraformOutput(stack, oname, { value: o.value, sensitive: o.sensitive });
  }
  app.synth();
}

function floor(stacks: Record<string, StackJson>): void {
  for (const [name, json] of Object.entries(stacks)) {
    mkdirSync(join(out, 'stacks', name), { recursive: true });
    writeFileSync(join(out, 'stacks', name, 'cdk.tf.json'), JSON.stringify(json, null, 2));
  }
}

if (mode === 'pvekaas') {
  const { synthesizeLab } = require('../scripts/lib/synthesize') as typeof import('../scripts/lib/synthesize');
  synthesizeLab({ config: input, out });
} else if (mode === 'baseline' || mode === 'floor') {
  const stacks = JSON.parse(readFileSync(input, 'utf8')) as Record<string, StackJson>;
  if (mode === 'baseline') baseline(stacks);
  else floor(stacks);
} else {
  process.stderr.write('usage: synth-process pvekaas|baseline|floor <input> <out>\n');
  process.exit(2);
}
process.stdout.write(`${JSON.stringify({ maxRssKiB: process.resourceUsage().maxRSS })}\n`);
