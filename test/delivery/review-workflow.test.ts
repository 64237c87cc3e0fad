/**
 * The review workflow never writes a secret inside the checkout or the uploaded review/ (issue 26,
 * item 4). Its "Plan the changed stacks" step is run as GitHub runs it (bash -eo pipefail, in
 * head/, with GITHUB_WORKSPACE and RUNNER_TEMP) on real synthesized stacks of a lab whose
 * kubeconfig path is `review/mgmt.kubeconfig` — the path the workflow used to write the management
 * kubeconfig to, inside the uploaded artifact. OpenTofu is replaced by a stand-in that does what
 * matters here as tofu does it: a plan file holds the variables it was made with (TF_VAR_*), and the
 * kubernetes provider reads the kubeconfig at its config_path, an override file's winning.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { projectRoot } from '../support/toolchain';
import { synthesizeLab } from '../../scripts/lib/synthesize';

const work = mkdtempSync(join(tmpdir(), 'pvekaas-review-wf-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const KUBE_SECRET = 'kube-token-5ecr3t-0f-the-management-cluster';
const PVE_SECRET = 'pve-5ecr3t-plan-token';

/** Every file under `dir` whose bytes contain `needle`. */
function filesHolding(dir: string, needle: string): string[] {
  const found: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, e.name);
      if (e.isDirectory()) walk(path);
      else if (e.isFile() && readFileSync(path).includes(needle)) found.push(path);
    }
  };
  walk(dir);
  return found;
}

it('plans with the kubeconfig and plan files in RUNNER_TEMP only: nothing secret inside the checkout, whatever configPath the lab names', () => {
  const workflow = parse(readFileSync(join(projectRoot, '.github/workflows/review.yml'), 'utf8'));
  const step = workflow.jobs.review.steps.find((s: { name?: string }) => s.name === 'Plan the changed stacks this runner can plan');
  expect(step.run).toBeDefined();
  expect(step.run).not.toContain('${{');

  const workspace = join(work, 'workspace');
  const head = join(workspace, 'head');
  const runnerTemp = join(work, 'runner-temp');
  mkdirSync(join(head, 'scripts'), { recursive: true });
  mkdirSync(runnerTemp);
  // The lab: the example with its management kubeconfig at a path inside the uploaded review/.
  const lab = parse(readFileSync(join(projectRoot, 'examples/lab.yaml'), 'utf8'));
  lab.management.kubernetes = { configPath: 'review/mgmt.kubeconfig', context: 'lab-mgmt' };
  writeFileSync(join(head, 'lab.yaml'), stringify(lab));
  const cwd = process.cwd();
  process.chdir(head);
  try {
    synthesizeLab({ config: 'lab.yaml', out: 'out' });
  } finally {
    process.chdir(cwd);
  }
  const stacks = ['proxmox-pmox-txl', 'management', 'tenant-tenant-a'];
  writeFileSync(join(head, 'changed.json'), JSON.stringify({ changes: stacks.map((stack) => ({ stack, change: 'changed', reasons: ['x'] })), unchanged: [] }));
  writeFileSync(join(head, 'scripts/toolchain'), '#!/bin/sh\necho "export TF_CLI_CONFIG_FILE=/dev/null"\n', { mode: 0o755 });
  // The tofu stand-in: `plan -out=F` writes F with the TF_VAR_* values (a real plan file holds them)
  // and logs which kubeconfig file the kubernetes provider would read and whether it held the secret.
  const bin = join(work, 'bin');
  const log = join(work, 'tofu.log');
  mkdirSync(bin);
  writeFileSync(
    join(bin, 'tofu'),
    `#!${process.execPath}
const fs = require('fs'), path = require('path');
const [verb, ...args] = process.argv.slice(2);
if (verb === 'init') process.exit(0);
if (verb === 'plan') {
  const out = args.find((a) => a.startsWith('-out=')).slice(5);
  fs.writeFileSync(out, Object.entries(process.env).filter(([k]) => k.startsWith('TF_VAR_')).map(([k, v]) => k + '=' + v).join('\\n'));
  const main = JSON.parse(fs.readFileSync('cdk.tf.json', 'utf8')).provider?.kubernetes?.[0]?.config_path;
  const overrides = fs.readdirSync('.').filter((f) => f === 'override.tf.json' || f.endsWith('_override.tf.json'));
  const over = overrides.map((f) => JSON.parse(fs.readFileSync(f, 'utf8')).provider?.kubernetes?.[0]?.config_path).find(Boolean);
  const helm = overrides.map((f) => JSON.parse(fs.readFileSync(f, 'utf8')).provider?.helm?.[0]?.kubernetes).find(Boolean);
  const used = over ?? main;
  if (used) {
    const file = used.replace(/^~/, process.env.HOME);
    const held = fs.existsSync(file) && fs.readFileSync(file, 'utf8').includes(${JSON.stringify(KUBE_SECRET)});
    fs.appendFileSync(${JSON.stringify(log)}, JSON.stringify({ stack: path.basename(process.cwd()), used, held, helm }) + '\\n');
  }
  process.exit(0);
}
if (verb === 'show') {
  process.stdout.write(JSON.stringify({ format_version: '1.2', terraform_version: '0.0.0-stand-in', planned_values: {}, resource_changes: [] }));
  process.exit(0);
}
process.exit(1);
`,
    { mode: 0o755 },
  );
  const script = join(work, 'step.sh');
  writeFileSync(script, step.run);
  const r = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], {
    cwd: head,
    encoding: 'utf8',
    env: {
      PATH: `${bin}:${process.env.PATH}`,
      HOME: join(work, 'home'),
      GITHUB_WORKSPACE: workspace,
      RUNNER_TEMP: runnerTemp,
      PROXMOX_API_TOKENS: JSON.stringify({ 'pmox-txl': `root@pam!ci=${PVE_SECRET}` }),
      PVEKAAS_MGMT_KUBECONFIG: `apiVersion: v1\nkind: Config\nusers: [{ name: ci, user: { token: ${KUBE_SECRET} } }]\n`,
    },
  });
  expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });

  // Nothing secret anywhere in the checkout (review/, the uploaded path, included), nor at the lab's path.
  expect(filesHolding(workspace, KUBE_SECRET)).toEqual([]);
  expect(filesHolding(workspace, PVE_SECRET)).toEqual([]);
  expect(existsSync(join(head, 'review'))).toBe(false);
  // The providers read the kubeconfig, from RUNNER_TEMP, for both Kubernetes stacks (helm's too), while they planned.
  const reads = readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  expect(reads).toEqual([
    {
      stack: 'management',
      used: join(runnerTemp, 'pvekaas/mgmt.kubeconfig'),
      held: true,
      helm: { config_context: 'lab-mgmt', config_path: join(runnerTemp, 'pvekaas/mgmt.kubeconfig') },
    },
    {
      stack: 'tenant-tenant-a',
      used: join(runnerTemp, 'pvekaas/mgmt.kubeconfig'),
      held: true,
      helm: { config_context: 'lab-mgmt', config_path: join(runnerTemp, 'pvekaas/mgmt.kubeconfig') },
    },
  ]);
  // After the step: the plans' JSON for the review, and no kubeconfig, plan file or override left.
  expect(readdirSync(join(runnerTemp, 'pvekaas')).sort()).toEqual(['plans']);
  expect(readdirSync(join(runnerTemp, 'pvekaas/plans')).sort()).toEqual(stacks.map((s) => `${s}.json`).sort());
  for (const stack of stacks) expect(readdirSync(join(head, 'out/stacks', stack)).filter((f) => f.includes('override') || f.endsWith('.tfplan'))).toEqual([]);
  // The review step reads the plans from there.
  const review = workflow.jobs.review.steps.find((s: { name?: string }) => s.name === 'Write the review');
  expect(review.run).toContain('--plans "$RUNNER_TEMP/pvekaas/plans"');
  expect(workflow.jobs.review.steps.find((s: { uses?: string }) => s.uses?.startsWith('actions/upload-artifact')).with.path).toBe('head/review/');
}, 120_000);
