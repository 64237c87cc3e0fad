/**
 * `npm run --silent bench:twin -- [--json] [--tenants 30] [--timeout 30]` (minutes to wait for convergence)
 *
 * A generated lab of 30 tenants over 3 Proxmox instances (SingleInstance, Default and MultiInstance
 * tenants, every fourth with an autoscaled pool) brought up through the lab twin (twin/):
 * the real CAPI core, kubeadm bootstrap, CAPMOX and IPAM controllers with the flags the management
 * stack renders. Per tenant, the seconds from its stack applied to converged as planned (twin
 * `converged`: placements, IPs, templates, tokens); p50/p95/max; whether all converged. Per
 * management process (each controller, kube-apiserver, etcd, kube-controller-manager) its CPU
 * seconds and peak RSS over the run, and per tenant. The load average beside each figure.
 *
 * Run it alone (CAPMOX's webhook port 9443 is fixed): in a network namespace of its own when other
 * twins run, `unshare -n sh -c 'ip link set lo up && npm run --silent bench:twin'`.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { stringify } from 'yaml';
import { CONTROLLERS } from '../twin/controllers';
import { LabTwin } from '../twin/index';
import { tenantNamespace } from '../modules/tenants/names';
import { BRING_UP_PHASES, bringUpSplit, type BringUpObjects, type BringUpSplit } from './bring-up';

const INSTANCES = ['pve-a', 'pve-b', 'pve-c'];

/**
 * The bench lab: `n` tenants, one small pool each (two for every fourth, autoscaled), modes mixed.
 * Disks of 20 GiB, the size of the simulator's existing templates: CAPMOX resizes each clone to its
 * bootVolume and PVE refuses to shrink a disk, so a smaller disk never boots (a first run at 8 GiB:
 * every machine stuck at "shrinking disks is not supported"). Thin pools take them all, as PVE's do.
 */
export function twinBenchLab(n: number): string {
  const instances = INSTANCES.map((name) => ({
    name,
    endpoint: `https://${name}.lab.example:8006/`,
    nodes: [{ name: `${name}-1`, cpu: 512, memoryMiB: 4_194_304 }],
    template: { sourceNode: `${name}-1`, templateID: 1000, kubernetesVersion: 'v1.35.4' },
  }));
  const tenants = Array.from({ length: n }, (_, i) => {
    const name = `t${String(i).padStart(2, '0')}`;
    const mode = i % 5 === 4 ? 'MultiInstance' : i % 2 === 0 ? 'SingleInstance' : 'Default';
    const net = (k: number) => ({
      addresses: [`10.${40 + k}.${i}.10-10.${40 + k}.${i}.40`],
      prefix: 24,
      gateway: `10.${40 + k}.${i}.1`,
      dnsServers: [`10.${40 + k}.${i}.1`],
    });
    const pools: Record<string, unknown>[] = [{ name: 'workers', replicas: mode === 'MultiInstance' ? 2 : 1, size: { cpu: 2, memoryMiB: 2048, diskGiB: 20 } }];
    if (i % 4 === 3) pools.push({ name: 'burst', autoscaling: { min: 1, max: 3 }, size: { cpu: 2, memoryMiB: 2048, diskGiB: 20 } });
    return {
      name,
      kubernetesVersion: 'v1.35.4',
      placement: mode === 'MultiInstance' ? { mode, instances: [INSTANCES[i % 3], INSTANCES[(i + 1) % 3]] } : { mode },
      pools,
      network: net(0),
      ...(mode === 'MultiInstance' ? { networks: { [INSTANCES[(i + 1) % 3]]: net(1) } } : {}),
      vip: `10.4.0.${100 + i}`,
    };
  });
  return stringify({
    proxmox: { reserve: { cpu: 2, memoryMiB: 8192 }, instances },
    management: { kubernetes: { configPath: '~/.kube/lab-mgmt.yaml', context: 'lab-mgmt' }, loadBalancer: { addresses: ['10.4.0.100-10.4.0.199'] } },
    capmox: { multiInstance: 'secondary-clusters' },
    tenants,
  });
}

interface ProcessFigure {
  name: string;
  pid: number;
  cpuSeconds: number;
  peakRssMiB: number;
}

/** The management plane's processes: every process whose command line or working directory is the twin's management directory. */
function managementProcesses(dir: string): ProcessFigure[] {
  const out: ProcessFigure[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      let cwd = '';
      try {
        cwd = readlinkSync(`/proc/${entry}/cwd`);
      } catch {
        /* gone or not ours */
      }
      if (!cmdline.some((a) => a.includes(dir)) && cwd !== dir) continue;
      const binary = basename(cmdline[0] ?? '');
      if (!/^(kube-apiserver|etcd|kube-controller-manager|capi-manager|kubeadm-bootstrap-manager|capmox-manager|ipam-manager)$/.test(binary)) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${entry}/status`, 'utf8'));
      out.push({
        name: binary,
        pid: Number(entry),
        cpuSeconds: (Number(fields[11]) + Number(fields[12])) / 100,
        peakRssMiB: hwm ? Math.round(Number(hwm[1]) / 1024) : 0,
      });
    } catch {
      /* the process ended while read */
    }
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};
const load = () => loadavg().map((l) => Number(l.toFixed(2)));

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const json = args.includes('--json');
  const n = Number(args[args.indexOf('--tenants') + 1]) || 30;
  const root = resolve(__dirname, '../..');
  const log = (l: string) => process.stderr.write(`[bench:twin] ${l}\n`);
  const started = Date.now();
  const twin = await LabTwin.start({
    root,
    labText: twinBenchLab(n),
    labFile: 'bench-twin.yaml',
    work: mkdtempSync(join(tmpdir(), 'pvekaas-bench-twin-')),
    log: args.includes('--verbose') ? log : undefined,
  });
  try {
    const startedIn = (Date.now() - started) / 1000;
    log(`twin up in ${startedIn.toFixed(0)} s (proxmox stacks applied, controllers running); applying the Kubernetes stacks of ${n} tenants`);
    const applied = new Map<string, number>();
    const applyStart = new Map<string, number>();
    const converged = new Map<string, number>();
    const loadAt = new Map<string, number[]>();
    const names = twin.lab.tenants.map((t) => t.name);
    const applying = twin.applyKubernetes((t, at, phase) => (phase === 'started' ? applyStart : applied).set(t, at));
    const timeoutMinutes = Number(args[args.indexOf('--timeout') + 1]) || 30;
    const deadline = Date.now() + timeoutMinutes * 60 * 1000;
    let last = '';
    const poll = async () => {
      for (const name of names) {
        if (!applied.has(name) || converged.has(name)) continue;
        const t = await twin.tenant(name);
        if (t.converged) {
          converged.set(name, Date.now());
          loadAt.set(name, load());
        } else last = `${name}: ${t.waiting.slice(0, 2).join('; ')}`;
      }
    };
    let applyError: unknown;
    void applying.catch((e) => (applyError = e));
    while (converged.size < names.length && Date.now() < deadline && !applyError) {
      await poll();
      process.stderr.write(`\r[bench:twin] ${applied.size}/${n} applied, ${converged.size}/${n} converged, load ${load()[0]}   `);
      await new Promise((r) => setTimeout(r, 2000));
    }
    process.stderr.write('\n');
    if (applyError) throw applyError;
    const perTenant = names.map((name) => ({
      tenant: name,
      mode: twin.lab.tenants.find((t) => t.name === name)!.placement.mode,
      seconds: converged.has(name) ? Math.round((converged.get(name)! - applied.get(name)!) / 100) / 10 : null,
      /** From the start of its stack's apply (the control plane's bring-up, which the apply waits for, included). */
      fromApplyStartSeconds: converged.has(name) ? Math.round((converged.get(name)! - applyStart.get(name)!) / 100) / 10 : null,
      loadAverage: loadAt.get(name) ?? null,
    }));
    // Who waited, per tenant: from the objects the real controllers wrote (bench/bring-up.ts).
    const mgmt = twin.management.client;
    const items = async (path: string) => {
      const r = await mgmt.get(path);
      return (r.status === 200 ? r.body.items : []) as never[];
    };
    const splits = new Map<string, BringUpSplit | string>();
    for (const name of names) {
      if (!applyStart.has(name)) continue;
      const ns = encodeURIComponent(tenantNamespace({ name }));
      const cluster = await mgmt.get(`/apis/cluster.x-k8s.io/v1beta2/namespaces/${ns}/clusters/${encodeURIComponent(name)}`);
      const objects: BringUpObjects = {
        ...(cluster.status === 200 ? { cluster: cluster.body } : {}),
        machines: await items(`/apis/cluster.x-k8s.io/v1beta2/namespaces/${ns}/machines`),
        ipAddressClaims: await items(`/apis/ipam.cluster.x-k8s.io/v1beta2/namespaces/${ns}/ipaddressclaims`),
        ipAddresses: await items(`/apis/ipam.cluster.x-k8s.io/v1beta2/namespaces/${ns}/ipaddresses`),
      };
      splits.set(name, bringUpSplit(applyStart.get(name)!, objects));
    }
    const split = [...splits.values()].filter((x): x is BringUpSplit => typeof x !== 'string');
    const bringUp = {
      tenants: split.length,
      unsplit: Object.fromEntries([...splits].filter(([, x]) => typeof x === 'string')),
      firstReadyNode: {
        p50: percentile(
          split.map((x) => x.total),
          50,
        ),
        p95: percentile(
          split.map((x) => x.total),
          95,
        ),
      },
      phases: Object.fromEntries(
        BRING_UP_PHASES.map((p) => [
          p,
          {
            p50: percentile(
              split.map((x) => x.seconds[p]),
              50,
            ),
            p95: percentile(
              split.map((x) => x.seconds[p]),
              95,
            ),
          },
        ]),
      ),
    };
    const seconds = perTenant.map((t) => t.seconds).filter((s): s is number => s !== null);
    const fromStart = perTenant.map((t) => t.fromApplyStartSeconds).filter((s): s is number => s !== null);
    const processes = managementProcesses(twin.management.dir).map((p) => ({
      ...p,
      cpuSecondsPerTenant: Number((p.cpuSeconds / n).toFixed(2)),
      peakRssMiBPerTenant: Number((p.peakRssMiB / n).toFixed(1)),
    }));
    // client-go logs a request its client-side rate limit (QPS/burst) held back for over a second
    // through its throttled logger, at -v=2 (the twin's) at most once a second (client-go v0.34
    // rest/request.go `tryThrottleWithInfo`, `globalThrottledLogger`): so each line is a second
    // in which a controller's requests waited more than a second for its own rate limit.
    const throttledLogLines = Object.fromEntries(
      CONTROLLERS.map((c) => {
        const file = join(twin.management.dir, `${c}.log`);
        const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
        return [c, (text.match(/client-side throttling/g) ?? []).length];
      }),
    );
    const result = {
      date: new Date().toISOString(),
      tenants: n,
      allConverged: seconds.length === n,
      notConverged: perTenant.filter((t) => t.seconds === null).map((t) => t.tenant),
      lastWaiting: seconds.length === n ? undefined : last,
      twinStartSeconds: Math.round(startedIn),
      totalSeconds: Math.round((Date.now() - started) / 1000),
      appliedToConverged: { p50: percentile(seconds, 50), p95: percentile(seconds, 95), max: Math.max(...seconds) },
      applyStartToConverged: { p50: percentile(fromStart, 50), p95: percentile(fromStart, 95), max: Math.max(...fromStart) },
      loadAverageAtEnd: load(),
      processes,
      throttledLogLines,
      bringUp,
      perTenant: perTenant.map((t) => ({ ...t, bringUp: splits.get(t.tenant) ?? null })),
    };
    if (json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    else {
      process.stdout.write(
        `${n} tenants over ${INSTANCES.length} instances: ${result.allConverged ? 'all converged as planned' : `NOT converged: ${result.notConverged.join(', ')} (${last})`}\n`,
      );
      process.stdout.write(
        `applied → converged: p50 ${result.appliedToConverged.p50} s, p95 ${result.appliedToConverged.p95} s, max ${result.appliedToConverged.max} s (twin start ${result.twinStartSeconds} s, total ${result.totalSeconds} s; load ${result.loadAverageAtEnd.join(' ')})\n`,
      );
      process.stdout.write(
        `apply started → converged: p50 ${result.applyStartToConverged.p50} s, p95 ${result.applyStartToConverged.p95} s, max ${result.applyStartToConverged.max} s\n`,
      );
      for (const p of processes)
        process.stdout.write(
          `  ${p.name.padEnd(26)} CPU ${p.cpuSeconds.toFixed(1).padStart(7)} s (${p.cpuSecondsPerTenant} s/tenant), peak RSS ${String(p.peakRssMiB).padStart(5)} MiB (${p.peakRssMiBPerTenant} MiB/tenant)\n`,
        );
      process.stdout.write(
        `  client-side throttling (seconds with a wait over 1 s, from the logs): ${Object.entries(throttledLogLines)
          .map(([c, k]) => `${c} ${k}`)
          .join(', ')}\n`,
      );
      process.stdout.write(
        `apply started → first Ready Node (${bringUp.tenants} tenants): p50 ${bringUp.firstReadyNode.p50} s, p95 ${bringUp.firstReadyNode.p95} s; who waits (p50 / p95 s): ${BRING_UP_PHASES.map(
          (p) => `${p} ${bringUp.phases[p].p50} / ${bringUp.phases[p].p95}`,
        ).join(', ')}\n`,
      );
      for (const [t, why] of Object.entries(bringUp.unsplit)) process.stdout.write(`  ${t}: not split (${why})\n`);
      for (const t of perTenant) process.stdout.write(`  ${t.tenant} ${t.mode.padEnd(14)} ${t.seconds ?? '—'} s (load ${t.loadAverage?.join(' ') ?? '—'})\n`);
    }
    if (!result.allConverged) process.exitCode = 1;
  } finally {
    await twin.stop();
    twin.cleanup();
  }
}

if (require.main === module) {
  main().catch((e) => {
    process.stderr.write(`${(e as Error).stack ?? e}\n`);
    process.exit(1);
  });
}
