/**
 * `node dist/scripts/demo.js [--config <lab.yaml>] [--keep <dir>]` (after `tsc`): the main job on
 * a lab without owning a Proxmox cluster. It starts the Proxmox VE API simulator with the lab's
 * instances, synthesizes the lab pointed at it, runs `tofu init` + `apply` on every
 * `proxmox-<instance>` stack with the real bpg/proxmox plugin, checks that a second plan has
 * nothing to do, prints what was created where, and stops the simulator.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import type { InstanceSnapshot } from '../sim';
import { startSimulatedLab, type SimulatedLab } from '../sim/lab-run';
import { missingToolchain, projectRoot, readPins } from '../sim/toolchain';
import { parseFlags, runCommand, UserError } from './lib/cli';

const usage = 'node dist/scripts/demo.js [--config examples/lab.yaml] [--keep <dir>]';

runCommand(async () => {
  const flags = parseFlags(process.argv.slice(2), { config: 'string', keep: 'string' }, usage);
  const root = projectRoot();
  const config = (flags.config as string | undefined) ?? join(root, 'examples/lab.yaml');
  const missing = missingToolchain(root);
  if (missing) throw new UserError(`the demo runs the real OpenTofu and bpg/proxmox plugin: ${missing}`);
  let labText: string;
  try {
    labText = readFileSync(config, 'utf8');
  } catch (e) {
    throw new UserError(`cannot read ${config}: ${(e as Error).message}`);
  }
  const keep = flags.keep as string | undefined;
  const work = keep ? resolve(keep) : mkdtempSync(join(tmpdir(), 'pvekaas-demo-'));
  const pins = readPins(root);
  const say = (line = '') => process.stdout.write(`${line}\n`);

  say('pvekaas demo: the lab\'s Proxmox instance stacks, applied with OpenTofu to the Proxmox VE API SIMULATOR');
  say(`(no real Proxmox is contacted; OpenTofu ${pins.tofu} and bpg/proxmox ${pins.proxmox.version} are real)`);
  const run = await startSimulatedLab({ labText, labFile: config, work, root });
  try {
    const instances = run.lab.proxmox.instances.map((i) => i.name);
    say(`lab: ${relative(process.cwd(), config) || config} — ${instances.length} instance(s), simulated on ${instances.map((n) => run.sim.endpoint(n)).join(', ')}`);
    say();
    await run.init();
    const results = await Promise.all(instances.map((name) => applyInstance(run, name)));
    for (const r of results) printInstance(say, run, r);
    const failed = results.filter((r) => !r.ok);
    if (failed.length > 0) throw new UserError(`apply failed on ${failed.map((r) => `proxmox-${r.name}`).join(', ')} (see above)`);
    const replans = await Promise.all(instances.map((name) => run.tofu(name, ['plan', '-detailed-exitcode', '-input=false', '-lock=false'])));
    const clean = replans.filter((p) => p.code === 0).length;
    say(`second plan: ${clean === instances.length ? 'no changes' : 'CHANGES'} on ${clean}/${instances.length} stacks (the simulator returns what PVE returns)`);
    if (clean !== instances.length) throw new UserError('a second plan still wants changes; this is a bug, please report it');
    say();
    say(`Done: every resource above lives in the simulator's memory only; it has stopped now.`);
    say(keep ? `Synthesized stacks and state kept in ${work}.` : `Real Proxmox: point the lab's endpoints at your clusters and run the same stacks with TF_VAR_proxmox_api_token (docs/proxmox.md).`);
  } finally {
    await run.sim.stop();
    if (!keep) rmSync(work, { recursive: true, force: true });
  }
});

interface InstanceResult {
  name: string;
  ok: boolean;
  seconds: number;
  added: number;
  error?: string;
}

async function applyInstance(run: SimulatedLab, name: string): Promise<InstanceResult> {
  const started = Date.now();
  const apply = await run.tofu(name, ['apply', '-auto-approve', '-input=false', '-parallelism=6']);
  const added = Number(/Resources: (\d+) added/.exec(apply.stdout)?.[1] ?? 0);
  return { name, ok: apply.code === 0, seconds: (Date.now() - started) / 1000, added, error: apply.code === 0 ? undefined : apply.stderr || apply.stdout };
}

function printInstance(say: (line?: string) => void, run: SimulatedLab, result: InstanceResult): void {
  const state: InstanceSnapshot = run.sim.snapshot(result.name);
  say(`proxmox-${result.name} → simulated instance ${result.name} at ${run.sim.endpoint(result.name)} (nodes ${state.nodes.join(', ')})`);
  if (!result.ok) {
    say(`  APPLY FAILED:\n${(result.error ?? '').trim().replace(/^/gm, '    ')}`);
    say();
    return;
  }
  say(`  applied ${result.added} resources in ${result.seconds.toFixed(1)}s`);
  const users = state.users.filter((u) => u.userid !== 'root@pam');
  const tokens = state.tokens.filter((t) => !t.tokenid.startsWith('root@pam!'));
  say(`  user       ${users.map((u) => u.userid).join(', ')}; API token ${tokens.map((t) => `${t.tokenid}${t.privsep ? ' (privilege separation)' : ''}`).join(', ')}`);
  say(`  roles      ${Object.entries(state.roles).map(([id, privs]) => `${id} [${privs.join(', ')}]`).join('; ')}`);
  const byPath = new Map<string, string[]>();
  for (const e of state.acl.filter((e) => e.type === 'token')) byPath.set(e.path, [...(byPath.get(e.path) ?? []), `${e.roleid}${e.propagate ? '' : ' (this path only)'}`]);
  say(`  ACLs       ${[...byPath].map(([p, roles]) => `${p} ${roles.join('+')}`).join('; ')}  (same for the user: a separated token gets the intersection)`);
  say(`  pools      ${state.pools.map((p) => p.poolid).join(', ')}`);
  const templates = state.vms.filter((vm) => vm.template && vm.tags.includes('capi'));
  if (templates.length === 0) {
    const existing = state.vms.filter((vm) => vm.template);
    say(`  templates  none built: the lab keeps the existing template ${existing.map((vm) => `${vm.vmid} on ${vm.node}`).join(', ') || '(none)'}`);
  } else {
    for (const vm of templates) say(`  template   ${vm.vmid} on ${vm.node}: ${vm.name}, tags ${vm.tags.join(';')}, pool ${vm.pool}, disk ${vm.config.scsi0?.split(',')[0]}`);
  }
  const images = state.volumes.filter((v) => v.content === 'import');
  if (images.length > 0) say(`  images     ${images.map((v) => `${v.volid} on ${v.node}`).join('; ')}`);
  say();
}
