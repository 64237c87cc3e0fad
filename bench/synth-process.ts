/**
 * One measured synth process of the benchmark (bench/synth.ts starts it with plain node):
 *   pvekaas  <lab> <out> [<n>]    the real synth (scripts/lib/synthesize), reusing unchanged stacks of <out>,
 *                                 in n worker processes if given (`synth --jobs n`)
 *   baseline <stacks.json> <out>  the same resources through bare cdktf constructs, no pvekaas logic
 *   floor    <stacks.json> <out>  the same JSON written with JSON.stringify alone
 * Prints {"maxRssKiB": n, "rebuilt": n} on stdout when done (rebuilt: stacks synthesized, not
 * reused; maxRssKiB: this process's peak, its workers' not included).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const [mode, input, out] = process.argv.slice(2);

type StackJson = Record<string, any>;

function baseline(stacks: Record<string, StackJson>): void {
  // Loaded here, not at the top: the floor process must not pay for cdktf.
  const cdktf = require('cdktf') as typeof import('cdktf');
  const { Manifest } = require('@cdktf/provider-kubernetes/lib/manifest') as typeof import('@cdktf/provider-kubernetes/lib/manifest');
  const app = new cdktf.App({ outdir: out, skipValidation: true });
  const copy = (element: { addOverride(path: string, value: unknown): void }, body: Record<string, unknown>) => {
    for (const [key, value] of Object.entries(body)) if (key !== '//') element.addOverride(key, value);
  };
  for (const [name, json] of Object.entries(stacks)) {
    const stack = new cdktf.TerraformStack(app, name);
    const { backend, ...terraform } = json.terraform ?? {};
    for (const [type, config] of Object.entries<any>(backend ?? {})) if (type === 'local') new cdktf.LocalBackend(stack, config);
    stack.addOverride('terraform', terraform);
    for (const [type, configs] of Object.entries<any[]>(json.provider ?? {})) {
      for (const config of configs) {
        const provider = new (class extends cdktf.TerraformProvider {})(stack, `${type}-${config.alias ?? 'default'}`, { terraformResourceType: type });
        copy(provider, config);
      }
    }
    for (const [vname, v] of Object.entries<any>(json.variable ?? {}))
      new cdktf.TerraformVariable(stack, vname, { type: v.type, sensitive: v.sensitive, description: v.description, nullable: v.nullable });
    for (const [type, sources] of Object.entries<any>(json.data ?? {})) {
      for (const [dname, body] of Object.entries<any>(sources)) copy(new cdktf.TerraformDataSource(stack, dname, { terraformResourceType: type }), body);
    }
    for (const [type, resources] of Object.entries<any>(json.resource ?? {})) {
      for (const [rname, body] of Object.entries<any>(resources)) {
        if (type === 'kubernetes_manifest') {
          const { manifest, ...rest } = body;
          copy(new Manifest(stack, rname, { manifest }), rest);
        } else {
          copy(new cdktf.TerraformResource(stack, rname, { terraformResourceType: type }), body);
        }
      }
    }
    for (const [oname, o] of Object.entries<any>(json.output ?? {}))
      new cdktf.TerraformOutput(stack, oname, { value: o.value, sensitive: o.sensitive, description: o.description });
  }
  app.synth();
}

function floor(stacks: Record<string, StackJson>): void {
  for (const [name, json] of Object.entries(stacks)) {
    mkdirSync(join(out, 'stacks', name), { recursive: true });
    writeFileSync(join(out, 'stacks', name, 'cdk.tf.json'), JSON.stringify(json, null, 2));
  }
}

let rebuilt: number | undefined;
if (mode === 'pvekaas') {
  // As `synth` starts (scripts/synth.ts): the code cache and lazy archiver first.
  require('../scripts/lib/fast-start');
  const { synthesizeLab } = require('../scripts/lib/synthesize') as typeof import('../scripts/lib/synthesize');
  const workers = process.argv[5] === undefined ? undefined : Number(process.argv[5]);
  rebuilt = synthesizeLab({ config: input, out, workers }).rebuilt.length;
} else if (mode === 'baseline' || mode === 'floor') {
  const stacks = JSON.parse(readFileSync(input, 'utf8')) as Record<string, StackJson>;
  if (mode === 'baseline') baseline(stacks);
  else floor(stacks);
} else {
  process.stderr.write('usage: synth-process pvekaas|baseline|floor <input> <out> [<workers>]\n');
  process.exit(2);
}
process.stdout.write(`${JSON.stringify({ maxRssKiB: process.resourceUsage().maxRSS, rebuilt })}\n`);
