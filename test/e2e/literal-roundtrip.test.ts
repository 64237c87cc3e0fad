/**
 * No Terraform interpolation from data, proven with the real OpenTofu: random strings (template
 * sequences, escapes, quotes, backslashes, newlines, any Unicode) go through the escaping pvekaas
 * applies to manifest literals (constructs/providers/kubernetes-manifest.ts) into a synthesized stack — JSON
 * as cdktf writes it, and HCL as KubernetesManifest writes it — and also into a bpg/proxmox
 * resource's attribute; tofu must hand back exactly the original text, while a real reference in
 * the same manifest still resolves.
 *
 * Needs `scripts/toolchain install` (tofu and the bpg/proxmox plugin); skipped with the reason
 * without it, an error in CI.
 */
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, LocalBackend, TerraformOutput, TerraformStack, TerraformVariable } from 'cdktf';
import fc from 'fast-check';
import { hclExpression, literalManifest } from '../../constructs/providers/kubernetes-manifest';
import { checkStrings } from '../../modules/config/safety';
import { fixHclOutput } from '../../scripts/lib/hcl-fixups';
import { VirtualEnvironmentPool } from '../../.gen/providers/proxmox/virtual-environment-pool';
import { ProxmoxProvider } from '../../.gen/providers/proxmox/provider';
import { runTofu, toolchainEnv } from '../../scripts/lib/tofu';
import { missingToolchain, projectRoot } from '../../sim/toolchain';
import { testPluginCache } from '../support/toolchain';

const root = projectRoot();
const missing = missingToolchain(root);
if (missing && process.env.CI) throw new Error(`the literal round-trip suite must run in CI, but the toolchain is missing: ${missing}`);
if (missing) process.stderr.write(`test/e2e/literal-roundtrip: SKIPPED — ${missing}\n`);
const suite = missing ? describe.skip : describe;

/**
 * Strings that look like Terraform, plus arbitrary text (any code point but lone surrogates).
 * Left out: cdktf's own token encoding (`${TfToken[…]}`), which is cdktf's internal form of a
 * reference, not text — the lab description cannot hold it (every `${` is refused there).
 */
const tricky = fc
  .oneof(
    fc.constantFrom(
      '${var.secret}',
      '%{ if true }x%{ endif }',
      '$${x}',
      '%%{x}',
      '$$${x}',
      '${',
      '%{',
      '$',
      '%',
      '{}',
      '\\${x}',
      '"${x}"',
      '\n${\n}',
      '${TfToken',
    ),
    fc.string({ unit: 'binary', maxLength: 24 }),
    fc.array(fc.constantFrom('$', '%', '{', '}', '\\', '"', '\n', 'a', '\u0001', '\u2028', '😀'), { maxLength: 16 }).map((a) => a.join('')),
  )
  .filter((s) => !/[$#]\{TfToken\[/.test(s));

suite('literal strings round-trip through tofu unchanged', () => {
  const work = mkdtempSync(join(tmpdir(), 'pvekaas-literal-'));
  const env = missing ? {} : { ...toolchainEnv(root), TF_PLUGIN_CACHE_DIR: testPluginCache(), TF_INPUT: '0', NO_COLOR: '1', CHECKPOINT_DISABLE: '1' };
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  /** `tofu init`, `plan` and `show -json` in a synthesized stack: each planned resource's `comment`, by resource name. */
  const plannedComments = async (dir: string): Promise<Map<string, string>> => {
    const init = await runTofu(['init', '-input=false'], { cwd: dir, env });
    if (init.code !== 0) throw new Error(init.stderr);
    const plan = await runTofu(['plan', '-input=false', '-refresh=false', '-out=plan.bin'], { cwd: dir, env });
    if (plan.code !== 0) throw new Error(`${plan.stderr}\n${plan.stdout.slice(-2000)}`);
    const show = await runTofu(['show', '-json', 'plan.bin'], { cwd: dir, env });
    const planned = JSON.parse(show.stdout) as { resource_changes: { name: string; change: { after: { comment: string } } }[] };
    return new Map(planned.resource_changes.map((c) => [c.name, c.change.after.comment]));
  };

  // One batch of samples (tofu takes seconds per run): values and keys of one manifest-like object.
  const samples = fc.sample(tricky, { numRuns: 80, seed: 13 });
  const keys = fc.sample(
    tricky.filter((k) => k !== ''),
    { numRuns: 20, seed: 14 },
  );
  const original: Record<string, unknown> = {
    values: samples,
    keyed: Object.fromEntries(keys.map((k, i) => [k, `v${i}`])),
    nested: { list: [samples.slice(0, 5), { deeper: samples.slice(5, 10) }] },
  };

  const applyAndRead = async (dir: string): Promise<Record<string, { value: unknown }>> => {
    for (const args of [
      ['init', '-input=false'],
      ['apply', '-auto-approve', '-input=false'],
    ]) {
      const r = await runTofu(args, { cwd: dir, env });
      if (r.code !== 0) throw new Error(`tofu ${args[0]} in ${dir} failed:\n${r.stderr}\n${r.stdout.slice(-2000)}`);
    }
    const out = await runTofu(['output', '-json'], { cwd: dir, env });
    if (out.code !== 0) throw new Error(out.stderr);
    return JSON.parse(out.stdout);
  };

  it('in JSON as cdktf synthesizes it, next to a reference that still resolves', async () => {
    const app = new App({ outdir: join(work, 'json') });
    const stack = new TerraformStack(app, 'literals');
    // State beside the stack, not cdktf's default in the project root.
    new LocalBackend(stack, { path: join(work, 'literals.tfstate') });
    const reference = new TerraformVariable(stack, 'reference', { type: 'string', default: 'resolved' });
    new TerraformOutput(stack, 'manifest', { value: literalManifest({ ...original, reference: `[${reference.stringValue}]` }) });
    app.synth();
    const dir = join(work, 'json/stacks/literals');
    const outputs = await applyAndRead(dir);
    expect(outputs.manifest.value).toEqual({ ...original, reference: '[resolved]' });
  }, 120_000);

  it('in HCL as KubernetesManifest writes it', async () => {
    const dir = join(work, 'hcl');
    mkdirSync(dir, { recursive: true });
    // cdktf writes a token's expression into the HCL after KubernetesManifest rendered the
    // literals; a placeholder stands for the token here and is replaced the same way.
    const expression = hclExpression(literalManifest({ ...original, reference: '[@@reference@@]' })).replace('@@reference@@', '${var.reference}');
    writeFileSync(join(dir, 'main.tf'), `variable "reference" {\n  default = "resolved"\n}\noutput "manifest" {\n  value = ${expression}\n}\n`);
    const outputs = await applyAndRead(dir);
    expect(outputs.manifest.value).toEqual({ ...original, reference: '[resolved]' });
  }, 120_000);

  it('without the escaping, tofu would evaluate them (the test can fail)', async () => {
    const app = new App({ outdir: join(work, 'raw') });
    const stack = new TerraformStack(app, 'raw');
    new LocalBackend(stack, { path: join(work, 'raw.tfstate') });
    new TerraformOutput(stack, 'raw', { value: '${upper("evaluated")}' });
    app.synth();
    const outputs = await applyAndRead(join(work, 'raw/stacks/raw'));
    expect(outputs.raw.value).toBe('EVALUATED');
  }, 120_000);

  it('to the bpg/proxmox provider: a resource attribute in the plan', async () => {
    const app = new App({ outdir: join(work, 'bpg') });
    const stack = new TerraformStack(app, 'bpg');
    new ProxmoxProvider(stack, 'proxmox', { endpoint: 'https://127.0.0.1:1/', apiToken: 'root@pam!x=00000000-0000-0000-0000-000000000000', insecure: true });
    const comments = samples.filter((s) => s.length > 0).slice(0, 20);
    comments.forEach((comment, i) => new VirtualEnvironmentPool(stack, `pool-${i}`, { poolId: `p${i}`, comment: literalManifest(comment) as string }));
    app.synth();
    const dir = join(work, 'bpg/stacks/bpg');
    const byIndex = await plannedComments(dir);
    const synthesized = JSON.parse(readFileSync(join(dir, 'cdk.tf.json'), 'utf8')).resource.proxmox_virtual_environment_pool as Record<string, unknown>;
    const names = Object.keys(synthesized).sort((a, b) => Number(a.split('-')[1]) - Number(b.split('-')[1]));
    expect(names.map((n) => byIndex.get(n))).toEqual(comments);
  }, 120_000);

  it('to the bpg/proxmox provider through HCL as cdktf writes it (synth --hcl, export-hcl): every string the lab accepts, unchanged', async () => {
    // cdktf's HCL renderer escapes a double quote only when no backslash precedes it and never
    // escapes a backslash, so the lab refuses backslashes (modules/config/safety.ts); every other
    // string it accepts — quotes, dollars, percents, braces, any Unicode — must reach the provider as written.
    const hclTricky = fc.oneof(
      tricky,
      fc
        .array(fc.constantFrom('\\', '"', '\\"', '\\\\"', 'a', '$', '%', '{', '}', '#', '//', '/*', ' ', '\u00e9', '\u{1F600}'), {
          minLength: 1,
          maxLength: 12,
        })
        .map((a) => a.join('')),
    );
    const samples = fc.sample(hclTricky, { numRuns: 400, seed: 15 });
    // Most samples hold a backslash or a quote: without the lab's refusal they would reach the HCL.
    expect(samples.filter((s) => s.includes('\\')).length).toBeGreaterThan(50);
    const accepted = samples.filter((s) => s.length > 0 && checkStrings(s).length === 0);
    expect(accepted.filter((s) => s.includes('"')).length).toBeGreaterThan(10);
    const comments = [...new Set(accepted)].slice(0, 60);
    const previous = process.env.SYNTH_HCL_OUTPUT;
    process.env.SYNTH_HCL_OUTPUT = 'true';
    try {
      const app = new App({ outdir: join(work, 'bpg-hcl'), hclOutput: true });
      const stack = new TerraformStack(app, 'bpg');
      new ProxmoxProvider(stack, 'proxmox', { endpoint: 'https://127.0.0.1:1/', apiToken: 'root@pam!x=00000000-0000-0000-0000-000000000000', insecure: true });
      comments.forEach((comment, i) => new VirtualEnvironmentPool(stack, `pool-${i}`, { poolId: `p${i}`, comment }));
      app.synth();
    } finally {
      if (previous === undefined) delete process.env.SYNTH_HCL_OUTPUT;
      else process.env.SYNTH_HCL_OUTPUT = previous;
    }
    const dir = join(work, 'bpg-hcl/stacks/bpg');
    fixHclOutput(join(work, 'bpg-hcl'));
    expect(readFileSync(join(dir, 'cdk.tf'), 'utf8')).toContain('resource "proxmox_virtual_environment_pool" "pool-0"');
    const byName = await plannedComments(dir);
    expect(comments.map((_, i) => byName.get(`pool-${i}`))).toEqual(comments);
  }, 120_000);

  it("refuses, in the lab, the strings cdktf's HCL would change or end early", () => {
    // And text HCL would normalize to NFC (U+F91D becomes U+6B04; a decomposed é becomes one code point).
    for (const s of ['a\\"b', 'c\\d', '\\', '\uF91D', 'e\u0301']) expect({ s, problems: checkStrings(s).length }).toEqual({ s, problems: 1 });
    expect(checkStrings('e"f')).toEqual([]);
  });
});
