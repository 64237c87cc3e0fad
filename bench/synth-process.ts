/**
 * One measured synth process of the benchmark (bench/synth.ts starts it with plain node):
 *   pvekaas  <lab> <out>          the real synth (scripts/lib/synthesize), reusing unchanged stacks of <out>
 *   baseline <stacks.json> <out>  the same resources through bare cdktf constructs, no pvekaas logic
 *   floor    <stacks.json> <out>  the same JSON written with JSON.stringify alone
 *   part     <lab> <out> <k> <n>  worker k of n of a parallel synth (a measurement, not a product
 *                                 path): loads, places and renders the whole lab as a full synth
 *                                 does, then builds and synthesizes only its share of the stacks
 *                                 (worker 0: the shared stacks and every n-th tenant from 0; worker
 *                                 k: every n-th tenant from k)
 * Prints {"maxRssKiB": n, "cpuSeconds": s, "rebuilt": n} on stdout when done (rebuilt: stacks
 * synthesized, not reused; cpuSeconds: user + system CPU of this process, whatever the machine's load).
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
    for (const [vname, v] of Object.entries<any>(json.variable ?? {})) new cdktf.TerraformVariable(stack, vname, { type: v.type, sensitive: v.sensitive, description: v.description, nullable: v.nullable });
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
    for (const [oname, o] of Object.entries<any>(json.output ?? {})) new cdktf.TerraformOutput(stack, oname, { value: o.value, sensitive: o.sensitive, description: o.description });
  }
  app.synth();
}

function floor(stacks: Record<string, StackJson>): void {
  for (const [name, json] of Object.entries(stacks)) {
    mkdirSync(join(out, 'stacks', name), { recursive: true });
    writeFileSync(join(out, 'stacks', name, 'cdk.tf.json'), JSON.stringify(json, null, 2));
  }
}

/** Worker k of n: the whole lab loaded, placed and rendered, its share of the stacks built and synthesized as the synth cache's partial synth does. */
function part(lab: string, k: number, n: number): number {
  const { App, TerraformStack } = require('cdktf') as typeof import('cdktf');
  const { loadLabFile, atLabFile } = require('../modules/config/load') as typeof import('../modules/config/load');
  const { planPlacement } = require('../modules/placement') as typeof import('../modules/placement');
  const { buildLab, renderLab } = require('../stacks/app') as typeof import('../stacks/app');
  const { withoutTokenTraces } = require('../scripts/lib/token-traces') as typeof import('../scripts/lib/token-traces');
  const { stateDirFromStackFor } = require('../scripts/lib/synthesize') as typeof import('../scripts/lib/synthesize');
  const parsed = loadLabFile(lab);
  const plan = atLabFile(lab, () => planPlacement(parsed));
  const rendering = atLabFile(lab, () => renderLab(parsed, plan));
  const tenants = [...parsed.tenants].map((t) => `tenant-${t.name}`).sort();
  const mine = new Set(tenants.filter((_, i) => i % n === k));
  const app = new App({ outdir: out, skipValidation: false });
  return withoutTokenTraces(() => {
    buildLab(app, parsed, plan, { rendering, stateDirFromStack: stateDirFromStackFor(parsed.delivery.local.stateDir, out), tenantStacks: (name) => mine.has(name), sharedStacks: k === 0 });
    const stacks = app.node.findAll().filter((c): c is InstanceType<typeof TerraformStack> => TerraformStack.isStack(c) && (k === 0 || c.node.id !== 'management-config'));
    stacks.forEach((stack) => stack.prepareStack());
    const session = { outdir: out, skipValidation: false, manifest: app.manifest };
    stacks.forEach((stack) => stack.synthesizer.synthesize(session));
    app.manifest.writeToFile();
    return stacks.length;
  });
}

let rebuilt: number | undefined;
if (mode === 'part') {
  const [k, n] = process.argv.slice(5).map(Number);
  rebuilt = part(input, k, n);
} else if (mode === 'pvekaas') {
  const { synthesizeLab } = require('../scripts/lib/synthesize') as typeof import('../scripts/lib/synthesize');
  rebuilt = synthesizeLab({ config: input, out }).rebuilt.length;
} else if (mode === 'baseline' || mode === 'floor') {
  const stacks = JSON.parse(readFileSync(input, 'utf8')) as Record<string, StackJson>;
  if (mode === 'baseline') baseline(stacks);
  else floor(stacks);
} else {
  process.stderr.write('usage: synth-process pvekaas|baseline|floor <input> <out> | part <lab> <out> <k> <n>\n');
  process.exit(2);
}
const cpu = process.cpuUsage();
process.stdout.write(`${JSON.stringify({ maxRssKiB: process.resourceUsage().maxRSS, cpuSeconds: (cpu.user + cpu.system) / 1e6, rebuilt })}\n`);
