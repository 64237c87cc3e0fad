/**
 * `node dist/scripts/demo.js [--config <lab.yaml>] [--keep <dir>] [--timeout <seconds>]` (after
 * `tsc`): the main job on a lab without owning a Proxmox cluster, through the lab twin
 * (docs/twin.md). It starts the Proxmox VE API simulator with the lab's instances, synthesizes the
 * lab pointed at it, applies every `proxmox-<instance>` stack with the real OpenTofu and
 * bpg/proxmox plugin, then every Kubernetes stack to a real kube-apiserver where the real Cluster
 * API controllers bring each tenant up; prints what was created where beside the plan, checks that
 * a second plan of the instance stacks is empty, and stops everything.
 */
import { mkdtempSync } from 'node:fs';
import { readLabText } from '../modules/config/load';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { InstanceSnapshot } from '../sim';
import { missingToolchain, projectRoot, readPins } from '../sim/toolchain';
import { parseFlags, runCommand, UserError } from './lib/cli';
import { checkKeptDir, markKeptDir } from './lib/output-dir';
import { machineTable, TWIN_BANNER } from './twin';
import { LabTwin } from './twin/index';

const usage = 'node dist/scripts/demo.js [--config examples/lab.yaml] [--keep <dir>] [--timeout <seconds>]';

runCommand(async () => {
  const flags = parseFlags(
    process.argv.slice(2),
    {
      config: { type: 'string', value: '<lab.yaml>', help: 'the lab description (default: examples/lab.yaml)' },
      keep: { type: 'string', value: '<dir>', help: 'work in this directory and keep it (default: a temporary one, removed)' },
      timeout: { type: 'string', value: '<seconds>', help: 'give up after this many seconds (default: 900)' },
    },
    usage,
    { about: 'The main job on a lab through the lab twin (docs/twin.md): every tenant brought up by the real Cluster API controllers, then torn down.' },
  );
  const root = projectRoot();
  const config = (flags.config as string | undefined) ?? join(root, 'examples/lab.yaml');
  const timeout = Number(flags.timeout ?? 900);
  if (!Number.isFinite(timeout) || timeout <= 0) throw new UserError(`--timeout must be a positive number of seconds (got ${flags.timeout})`);
  // Read like every command reads a lab: a regular file only, bounded (a FIFO or /dev/zero is refused);
  // a kept directory must be new, empty or kept before. Both before anything starts.
  const labText = readLabText(config);
  const keep = flags.keep as string | undefined;
  const kept = keep ? checkKeptDir(keep) : undefined;
  const missing = missingToolchain(root);
  if (missing) throw new UserError(`the demo runs the real toolchain: ${missing}`);
  const work = kept ? markKeptDir(kept) : mkdtempSync(join(tmpdir(), 'pvekaas-demo-'));
  const pins = readPins(root);
  const say = (line = '') => process.stdout.write(`${line}\n`);

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
        .flatMap((p) => p.placements.filter((x) => x.replicas > 0).map((x) => `${p.name} ${x.instance}/${x.node} ×${x.replicas}`))
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
      keep
        ? `Synthesized stacks and state kept in ${work}.`
        : `Real Proxmox: point the lab's endpoints at your clusters and run the same stacks with TF_VAR_proxmox_api_token (docs/proxmox.md).`,
    );
  } finally {
    await twin.stop();
    if (!keep) twin.cleanup();
  }
});

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
