/**
 * `node dist/scripts/demo.js [--config <lab.yaml>] [--keep <dir>] [--timeout <seconds>]` (after
 * `tsc`): the main job on a lab without owning a Proxmox cluster, through the lab twin
 * (docs/twin.md). First the product, in seconds and with Node only: the lab validated, placed (the
 * table, the SVG written) and synthesized (every stack with its resource count). Then the toolchain
 * the twin runs (`scripts/toolchain install demo`: built once into the machine-wide cache, with a
 * progress line per part; seconds when cached). Then the twin: it starts the Proxmox VE API
 * simulator with the lab's instances, synthesizes the lab pointed at it, applies every
 * `proxmox-<instance>` stack with the real OpenTofu and bpg/proxmox plugin, then every Kubernetes
 * stack to a real kube-apiserver where the real Cluster API controllers bring each tenant up; prints
 * what was created where beside the plan, checks that a second plan of the instance stacks is
 * empty, and stops everything.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { parseLab } from '../modules/config/load';
import type { Lab } from '../modules/config/schema';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { machinesAtLeast, machinesAtMost, planPlacement, renderMarkdown, renderSvg, type PlacementPlan } from '../modules/placement';
import { atLabFile } from '../modules/config/load';
import type { InstanceSnapshot } from '../sim';
import { missingToolchain, readPins } from '../sim/toolchain';
import { printWarnings, runCommand, UserError, type CommandLine } from './lib/cli';
import { LAB_OR_EXAMPLE_FLAG } from './lib/flags';
import { tenantKubeParts } from './lib/kube-apiserver';
import { markKeptDir } from './lib/output-dir';
import { synthesizeLab } from './lib/synthesize';
import { machineTable, TWIN_BANNER, twinInputs } from './twin';
import { LabTwin } from '../twin/index';

const usage = 'node dist/scripts/demo.js [--config examples/lab.yaml] [--keep <dir>] [--timeout <seconds>]';

const line: CommandLine = {
  usage,
  flags: {
    config: LAB_OR_EXAMPLE_FLAG,
    keep: { type: 'string', value: '<dir>', help: 'work in this directory and keep it (default: a temporary one, removed)' },
    timeout: { type: 'string', value: '<seconds>', help: 'give up after this many seconds (default: 900)' },
  },
  about: 'The main job on a lab through the lab twin (docs/twin.md): every tenant brought up by the real Cluster API controllers, then torn down.',
};

runCommand(line, async (flags) => {
  const { root, config, timeout, labText, kept } = twinInputs(flags);
  const say = (line = '') => process.stdout.write(`${line}\n`);

  // The product first, with Node only (no toolchain): validated, placed, synthesized. Kept after the
  // run (in --keep's lab/, else a temporary directory of its own) so the picture and the stacks stay.
  // A description with problems is refused here, every problem at once, before any directory is made.
  const lab = parseLab(labText, config);
  const work = kept ? markKeptDir(kept) : mkdtempSync(join(tmpdir(), 'pvekaas-demo-'));
  const product = kept ? join(kept, 'lab') : mkdtempSync(join(tmpdir(), 'pvekaas-demo-lab-'));
  showProduct(say, config, product, lab);

  // Then the toolchain the twin runs (the default core and the previous minor's are both in the demo's
  // parts), built once into the machine-wide cache with a progress line per part, seconds when it is there.
  // Each tenant control plane runs its own Kubernetes minor: the lab's minors other than the management's.
  let minors: string[];
  try {
    minors = tenantKubeParts(lab.tenants.flatMap((t) => [t.kubernetesVersion, ...(t.previous?.kubernetesVersion ? [t.previous.kubernetesVersion] : [])]));
  } catch (e) {
    throw new UserError(`${config}: ${(e as Error).message}`);
  }
  const requests = ['demo', ...minors];
  say();
  say(`The lab twin runs the real toolchain: scripts/toolchain install ${requests.join(' ')} (built once, cached machine-wide; progress on stderr)`);
  const code = await installToolchain(root, requests);
  if (code !== 0) {
    throw new UserError(
      `scripts/toolchain install ${requests.join(' ')} ended with exit ${code}: the twin needs it (the lab above is validated, placed and synthesized in ${product})`,
    );
  }
  const missing = missingToolchain(root);
  if (missing) throw new UserError(`the demo runs the real toolchain: ${missing}`);
  const pins = readPins(root);
  say();

  say(TWIN_BANNER);
  say(
    `(no real Proxmox or Kubernetes cluster is contacted; OpenTofu ${pins.tofu}, bpg/proxmox ${pins.proxmox.version} and the Cluster API controllers are real)`,
  );
  const started = Date.now();
  const twin = await LabTwin.start({ root, labText, labFile: config, work, log: (l) => say(`  ${l}`) });
  try {
    const instances = twin.lab.proxmox.instances.map((i) => i.name);
    say(
      `lab: ${relative(process.cwd(), config) || config} — ${instances.length} instance(s), simulated on ${instances.map((n) => twin.sim.endpoint(n)).join(', ')}`,
    );
    say();
    for (const name of instances) printInstance(say, twin.sim.snapshot(name), twin.sim.endpoint(name));
    const replans = await Promise.all(instances.map((name) => twin.tofu(name, ['plan', '-detailed-exitcode', '-input=false', '-lock=false', '-no-color'])));
    const clean = replans.filter((p) => p.code === 0).length;
    say(
      `second plan: ${clean === instances.length ? 'no changes' : 'CHANGES'} on ${clean}/${instances.length} instance stacks (the simulator returns what PVE returns)`,
    );
    if (clean !== instances.length) throw new UserError('a second plan still wants changes; this is a bug, please report it');
    say();
    await twin.applyKubernetes();
    const tenants = await twin.waitConverged(
      twin.lab.tenants.map((t) => t.name),
      timeout * 1000,
    );
    say();
    for (const l of machineTable(tenants)) say(l);
    say();
    for (const t of tenants) {
      const planned = twin.plan.tenants.find((p) => p.name === t.name);
      const where = planned?.pools
        .flatMap((p) => p.placements.filter((x) => machinesAtLeast(x.scale) > 0).map((x) => `${p.name} ${x.instance}/${x.node} ×${machinesAtLeast(x.scale)}`))
        .join(', ');
      say(`${t.converged ? 'converged' : 'NOT converged'}: ${t.name} — plan: ${where}${t.converged ? '' : `; waiting for ${t.waiting.join('; ')}`}`);
    }
    say();
    if (!tenants.every((t) => t.converged)) {
      say(twin.diagnostics());
      throw new UserError(
        `${tenants
          .filter((t) => !t.converged)
          .map((t) => t.name)
          .join(', ')} did not converge within ${timeout} s`,
      );
    }
    say(
      `Done in ${Math.round((Date.now() - started) / 1000)} s: every VM above lives in the simulator's memory only, every object in a throwaway API server; all stopped now.`,
    );
    say(
      kept
        ? `Synthesized stacks and state kept in ${work}.`
        : `Real Proxmox: point the lab's endpoints at your clusters and run the same stacks with TF_VAR_proxmox_api_token (docs/proxmox.md).`,
    );
  } finally {
    await twin.stop();
    if (!kept) twin.cleanup();
  }
});

/** The lab validated, placed (the table; the SVG and the full report written) and synthesized (each stack and its resources), in `dir`. */
function showProduct(say: (line?: string) => void, config: string, dir: string, lab: Lab): void {
  const plan: PlacementPlan = atLabFile(config, () => planPlacement(lab));
  let machines = 0;
  for (const tenant of plan.tenants) for (const pool of tenant.pools) for (const p of pool.placements) machines += machinesAtMost(p.scale);
  const shown = relative(process.cwd(), config) || config;
  say(`${shown}: valid — ${lab.proxmox.instances.length} instances, ${lab.tenants.length} tenants, ${machines} machines (at most) placed`);
  say();
  const report = renderMarkdown(plan);
  const lines = report.split('\n');
  const from = lines.indexOf('## Tenants') + 2;
  const to = lines.findIndex((l, i) => i >= from && !l.startsWith('|'));
  for (const line of lines.slice(from, to)) say(line);
  for (const t of plan.tenants) say(`  ${t.name}: ${whereOf(plan, t.name)}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'placement.svg'), renderSvg(plan));
  writeFileSync(join(dir, 'placement.md'), report);
  say(`placement drawn in ${join(dir, 'placement.svg')} (the whole report, with why and the HA verdicts: ${join(dir, 'placement.md')})`);
  say();
  const started = Date.now();
  const result = synthesizeLab({ config, out: join(dir, 'out') });
  const counts = result.stacks.map((stack) => ({ stack, resources: resourceCount(join(result.out, 'stacks', stack, 'cdk.tf.json')) }));
  say(
    `synthesized ${counts.length} stacks, ${counts.reduce((n, c) => n + c.resources, 0)} resources, in ${((Date.now() - started) / 1000).toFixed(1)} s: ${join(result.out, 'stacks')}`,
  );
  const width = Math.max(...counts.map((c) => c.stack.length));
  for (const c of counts) say(`  ${c.stack.padEnd(width)}  ${String(c.resources).padStart(4)} resources`);
  printWarnings(process.stdout, shown, result.warnings, result.plan.warnings);
}

/** Where each pool of a tenant's plan has machines: `workers pmox-txl/pmox-txl-1 ×2, ...`. */
function whereOf(plan: PlacementPlan, tenant: string): string {
  const planned = plan.tenants.find((p) => p.name === tenant);
  return (
    planned?.pools
      .flatMap((p) =>
        p.placements
          .filter((x) => machinesAtMost(x.scale) > 0)
          .map((x) => `${p.name} ${x.instance}/${x.node} ×${x.scale.kind === 'autoscaled' ? `${x.scale.min}..${x.scale.max}` : x.scale.replicas}`),
      )
      .join(', ') ?? ''
  );
}

/** The resources of a synthesized stack (cdk.tf.json: resource → type → name). */
function resourceCount(file: string): number {
  const config = JSON.parse(readFileSync(file, 'utf8')) as { resource?: Record<string, Record<string, unknown>> };
  return Object.values(config.resource ?? {}).reduce((n, byName) => n + Object.keys(byName).length, 0);
}

/** `scripts/toolchain install <requests>`, its progress on this process's stderr; resolves with its exit code. */
function installToolchain(root: string, requests: string[]): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(join(root, 'scripts/toolchain'), ['install', ...requests], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('error', reject);
    child.on('exit', (code, signal) => resolvePromise(code ?? (signal ? 128 : 1)));
  });
}

function printInstance(say: (line?: string) => void, state: InstanceSnapshot, endpoint: string): void {
  say(`proxmox-${state.name} → simulated instance ${state.name} at ${endpoint} (nodes ${state.nodes.join(', ')})`);
  const users = state.users.filter((u) => u.userid !== 'root@pam');
  const tokens = state.tokens.filter((t) => !t.tokenid.startsWith('root@pam!'));
  say(
    `  user       ${users.map((u) => u.userid).join(', ')}; API token ${tokens.map((t) => `${t.tokenid}${t.privsep ? ' (privilege separation)' : ''}`).join(', ')}`,
  );
  say(
    `  roles      ${Object.entries(state.roles)
      .map(([id, privs]) => `${id} [${privs.join(', ')}]`)
      .join('; ')}`,
  );
  const byPath = new Map<string, string[]>();
  for (const e of state.acl.filter((e) => e.type === 'token'))
    byPath.set(e.path, [...(byPath.get(e.path) ?? []), `${e.roleid}${e.propagate ? '' : ' (this path only)'}`]);
  say(`  ACLs       ${[...byPath].map(([p, roles]) => `${p} ${roles.join('+')}`).join('; ')}  (same for the user: a separated token gets the intersection)`);
  say(`  pools      ${state.pools.map((p) => p.poolid).join(', ')}`);
  const templates = state.vms.filter((vm) => vm.template && vm.tags.includes('capi'));
  if (templates.length === 0) {
    const existing = state.vms.filter((vm) => vm.template);
    say(`  templates  none built: the lab keeps the existing template ${existing.map((vm) => `${vm.vmid} on ${vm.node}`).join(', ') || '(none)'}`);
  } else {
    for (const vm of templates)
      say(`  template   ${vm.vmid} on ${vm.node}: ${vm.name}, tags ${vm.tags.join(';')}, pool ${vm.pool}, disk ${vm.config.scsi0?.split(',')[0]}`);
  }
  const images = state.volumes.filter((v) => v.content === 'import');
  if (images.length > 0) say(`  images     ${images.map((v) => `${v.volid} on ${v.node}`).join('; ')}`);
  say();
}
