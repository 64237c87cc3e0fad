/**
 * `npm run --silent twin -- --config <lab.yaml> [--json] [--timeout <seconds>] [--keep <dir>]`:
 * brings a lab up in the lab twin (twin/index.ts): the proxmox stacks applied with OpenTofu
 * to the Proxmox VE simulator, the management-config and tenant stacks applied to a real
 * kube-apiserver where the real CAPI, kubeadm bootstrap, CAPMOX and IPAM controllers reconcile
 * them; waits until every tenant converged (bounded), prints each machine beside the plan, tears
 * everything down, and exits 0 only if every tenant converged. `--hold`: keeps it running until
 * Ctrl-C (or SIGTERM), printing the management cluster's kubeconfig for `npm run status` and kubectl.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readLabText } from '../modules/config/load';
import { missingToolchain, projectRoot } from '../sim/toolchain';
import { parseFlags, runCommand, UserError, type Flags } from './lib/cli';
import { checkKeptDir, markKeptDir } from './lib/output-dir';
import { LabTwin, type TwinTenant } from '../twin/index';

const usage = 'npm run --silent twin -- --config <lab.yaml> [--json] [--timeout <seconds>] [--keep <dir>] [--hold]';

/** What runs for real and what is simulated: the first line of every twin run. */
export const TWIN_BANNER =
  'pvekaas lab twin: REAL OpenTofu, bpg/proxmox, kube-apiserver, CAPI core, kubeadm bootstrap, CAPMOX, in-cluster IPAM (webhooks on); ' +
  'SIMULATED Proxmox VE, Kamaji and its provider (from their source; a real tenant kube-apiserver stands in for its pods), CAAPH (the real Cilium chart rendered), kubelets, the Jobs (run as their ServiceAccounts), hashicorp/kubernetes (kubernetes_manifest applied and planned by its 2.38.0 rules)';

export function machineTable(tenants: TwinTenant[]): string[] {
  const lines = [
    '| tenant | machine | pool | instance | node | VM | cpu | memory | disk | IP | created by | Node |',
    '|---|---|---|---|---|---:|---:|---:|---:|---|---|---|',
  ];
  for (const t of tenants) {
    for (const m of t.machines) {
      lines.push(
        `| ${t.name} | ${m.name} | ${m.pool} | ${m.instance ?? '-'} | ${m.node ?? '-'} | ${m.vmid ?? '-'} | ${m.cpu ?? '-'} | ${m.memoryMiB !== undefined ? `${m.memoryMiB / 1024} GiB` : '-'} | ${m.diskGiB !== undefined ? `${m.diskGiB} GiB` : '-'} | ${m.ipAddresses.join(', ') || '-'} | ${m.createdBy ?? '-'} | ${m.nodeName ?? '-'} |`,
      );
    }
  }
  return lines;
}

/**
 * The `--json` document: `converged` is true only when every tenant converged as planned (its
 * machines Running and Ready with a Node, placed per pool and node as the plan says, IPs in the
 * tenant's range for the instance, cloned from the template for its version on that node, created
 * with the tenant's own token there); each tenant not converged says why (`waiting`);
 * `controlPlaneVersion` is what the tenant API server answers on `/version`; `cni` the CNI release,
 * with `notRendered` where its chart was not rendered (Calico: no served module carries it).
 */
export function twinJson(tenants: TwinTenant[]): { converged: boolean; tenants: object[] } {
  return {
    converged: tenants.every((t) => t.converged),
    tenants: tenants.map((t) => ({
      name: t.name,
      converged: t.converged,
      ...(t.controlPlaneVersion ? { controlPlaneVersion: t.controlPlaneVersion } : {}),
      ...(t.cni ? { cni: t.cni } : {}),
      ...(t.converged ? {} : { waiting: t.waiting }),
      machines: t.machines,
    })),
  };
}

/**
 * `--hold`: the twin keeps running (its controllers and players go on reconciling) until SIGINT or
 * SIGTERM; then the caller stops it. Prints how to look at it: the management cluster's admin
 * kubeconfig (a file in the twin's scratch directory, removed when it stops) for `npm run status`
 * and kubectl.
 */
async function hold(twin: LabTwin, config: string, write: (text: string) => void): Promise<void> {
  const kubeconfig = twin.management.kubeconfig;
  write(
    [
      '',
      `the twin keeps running until Ctrl-C; its management cluster's kubeconfig: ${kubeconfig}`,
      `  npm run --silent status -- --config ${config} --kubeconfig ${kubeconfig}`,
      `  KUBECONFIG=${kubeconfig} kubectl get clusters,machines -A   (if you have kubectl)`,
      '',
    ].join('\n'),
  );
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  write('stopping the twin\n');
}

/**
 * What a twin run (`twin`, `demo`) reads and checks before anything starts: the lab (`--config`,
 * else the example lab) read like every command reads one — a regular file only, bounded (a FIFO or
 * /dev/zero is refused) —, `--timeout` (seconds, default 900), and the `--keep` directory, which
 * must be new, empty or kept before.
 */
export function twinInputs(flags: Flags): { root: string; config: string; timeout: number; labText: string; kept: string | undefined } {
  const root = projectRoot();
  const config = (flags.config as string | undefined) ?? join(root, 'examples/lab.yaml');
  const timeout = Number(flags.timeout ?? 900);
  if (!Number.isFinite(timeout) || timeout <= 0) throw new UserError(`--timeout must be a positive number of seconds (got ${flags.timeout})`);
  const labText = readLabText(config);
  const keep = flags.keep as string | undefined;
  return { root, config, timeout, labText, kept: keep ? checkKeptDir(keep) : undefined };
}

if (require.main === module) {
  runCommand(async () => {
    const flags = parseFlags(process.argv.slice(2), { config: 'string', json: 'boolean', timeout: 'string', keep: 'string', hold: 'boolean' }, usage);
    const { root, config, timeout, labText, kept } = twinInputs(flags);
    const missing = missingToolchain(root);
    if (missing) throw new UserError(`the twin runs the real toolchain: ${missing}`);
    const work = kept ? markKeptDir(kept) : mkdtempSync(join(tmpdir(), 'pvekaas-twin-'));
    const json = flags.json === true;
    const tty = process.stderr.isTTY && !json;
    const say = (line = '') => (json ? process.stderr : process.stdout).write(`${line}\n`);
    say(TWIN_BANNER);
    const started = Date.now();
    const twin = await LabTwin.start({ root, labText, labFile: config, work, log: (l) => say(`  ${l}`) });
    let tenants: TwinTenant[] = [];
    try {
      await twin.applyKubernetes();
      const names = twin.lab.tenants.map((t) => t.name);
      tenants = await twin.waitConverged(names, timeout * 1000, (ts) => {
        if (!tty) return;
        const done = ts.filter((t) => t.converged).length;
        const machines = ts.reduce((n, t) => n + t.machines.filter((m) => m.nodeName).length, 0);
        process.stderr.write(`\r  ${Math.round((Date.now() - started) / 1000)}s: ${done}/${ts.length} tenants converged, ${machines} machines joined   `);
      });
      if (tty) process.stderr.write('\n');
      if (json) {
        process.stdout.write(`${JSON.stringify(twinJson(tenants), null, 2)}\n`);
        for (const t of tenants) if (!t.converged) say(`NOT converged: ${t.name} — ${t.waiting.join('; ')}`);
      } else {
        say();
        for (const l of machineTable(tenants)) say(l);
        say();
        for (const t of tenants) say(`${t.converged ? 'converged' : 'NOT converged'}: ${t.name}${t.converged ? '' : ` — waiting for ${t.waiting.join('; ')}`}`);
        say(`(${Math.round((Date.now() - started) / 1000)} s; every process is stopped now)`);
      }
      if (!tenants.every((t) => t.converged)) {
        if (!json) say(twin.diagnostics());
        process.exitCode = 1;
      }
      if (flags.hold === true) await hold(twin, config, (json ? process.stderr : process.stdout).write.bind(json ? process.stderr : process.stdout));
    } finally {
      await twin.stop();
      if (!kept) twin.cleanup();
    }
  });
}
