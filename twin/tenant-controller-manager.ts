/**
 * REAL in the lab twin (when the KamajiPlayer is asked to run it, option `controllerManager`): the
 * kube-controller-manager of a tenant control plane, beside its kube-apiserver and kube-scheduler,
 * as Kamaji 26.8.2-edge runs it in every TenantControlPlane pod
 * (internal/builders/controlplane/deployment.go setContainers → buildControllerManager). Without
 * it a tenant API server has no clusterrole-aggregation controller, so the aggregated ClusterRoles
 * `view`, `edit` and `admin` stay without rules and a ClusterRoleBinding to them grants nothing; nor
 * a ServiceAccount, namespace, garbage-collector, Deployment or ReplicaSet controller.
 *
 * Its arguments are Kamaji's (buildControllerManager's map, sorted as utilities.ArgsFromMapToSlice
 * sorts them, the TenantControlPlane's `extraArgs.controllerManager` merged over them as
 * utilities.MergeMaps does), with the pod's files pointed at the twin's: the tenant API server's CA
 * (`ca.crt`/`ca.key`, Kamaji's `<tcp>-ca`), its service-account key and a controller-manager
 * kubeconfig with a client certificate for `system:kube-controller-manager` signed by that CA
 * (Kamaji's `controller-manager.conf`, internal/resources/kubeconfig.go, made by kubeadm's
 * kubeconfig phase for that user), so the tenant API server's own RBAC (its bootstrap ClusterRole
 * `system:kube-controller-manager`) decides what it may do; with
 * `--use-service-account-credentials` each controller acts as its own ServiceAccount.
 *
 * Deviations, each for a reason of the twin:
 * - `-node-lifecycle-controller`: the played kubelets (kubelets.ts) post no heartbeats (no Node
 *   Lease renewals), so the real controller would mark every Node Unknown and taint it NoExecute;
 *   its NoSchedule pass for Ready Nodes stays played there.
 * - `--leader-elect=false`: one replica, no peer to elect against (a lease renewal missed under the
 *   shared machine's load would make it exit).
 * - `--bind-address=127.0.0.1 --secure-port=0`: no serving port (nothing probes it; no port to
 *   collide with another tenant's); so no `--authentication-kubeconfig`/`--authorization-kubeconfig`
 *   and no front-proxy CA (`--requestheader-client-ca-file`), which only its serving port uses.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tenantBinary, type KubeServer } from '../scripts/lib/kube-apiserver';
import { selfSignedPair } from './pki';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an unstructured TenantControlPlane read by path, as Kamaji reads it
type Tcp = { metadata: { name: string }; spec?: any };

/** The files the controller-manager container reads, where the twin keeps them. */
export interface ControllerManagerFiles {
  kubeconfig: string;
  caCert: string;
  caKey: string;
  serviceAccountKey: string;
}

/** The controllers Kamaji enables (deployment.go buildControllerManager `--controllers`). */
export const KAMAJI_CONTROLLERS = '*,bootstrapsigner,tokencleaner';
/** What the twin leaves out of them, and why (above). */
export const TWIN_DISABLED_CONTROLLERS = ['node-lifecycle-controller'];

/** utilities.GetEffectiveCIDRs: the plural field when set, else the deprecated singular one. */
function effectiveCidrs(plural: string[] | undefined, singular: string | undefined): string[] {
  return plural?.length ? plural : singular ? [singular] : [];
}

/** Kamaji's kube-controller-manager arguments for a TenantControlPlane, as the twin runs them. */
export function controllerManagerArgs(tcp: Tcp, files: ControllerManagerFiles): string[] {
  const np = tcp.spec?.networkProfile ?? {};
  const args = new Map<string, string>([
    // deployment.go buildControllerManager, in its map's terms (pod paths replaced by the twin's files).
    ['--allocate-node-cidrs', 'true'],
    ['--bind-address', '0.0.0.0'],
    ['--client-ca-file', files.caCert],
    ['--cluster-name', tcp.metadata.name],
    ['--cluster-signing-cert-file', files.caCert],
    ['--cluster-signing-key-file', files.caKey],
    ['--controllers', KAMAJI_CONTROLLERS],
    ['--kubeconfig', files.kubeconfig],
    ['--leader-elect', 'true'],
    ['--service-cluster-ip-range', effectiveCidrs(np.serviceCidrs, np.serviceCidr).join(',')],
    ['--cluster-cidr', effectiveCidrs(np.podCidrs, np.podCidr).join(',')],
    ['--root-ca-file', files.caCert],
    ['--service-account-private-key-file', files.serviceAccountKey],
    ['--use-service-account-credentials', 'true'],
  ]);
  // utilities.MergeMaps(args, ArgsFromSliceToMap(extraArgs.ControllerManager)): the user's win.
  for (const arg of (tcp.spec?.controlPlane?.deployment?.extraArgs?.controllerManager ?? []) as string[]) {
    const i = arg.indexOf('=');
    args.set(i < 0 ? arg : arg.slice(0, i), i < 0 ? '' : arg.slice(i + 1));
  }
  // The twin's deviations (header).
  args.set('--controllers', [args.get('--controllers'), ...TWIN_DISABLED_CONTROLLERS.map((c) => `-${c}`)].join(','));
  args.set('--leader-elect', 'false');
  args.set('--bind-address', '127.0.0.1');
  args.set('--secure-port', '0');
  // utilities.ArgsFromMapToSlice: `flag=value` (a flag without value bare), sorted.
  return [...args].map(([k, v]) => (v === '' ? k : `${k}=${v}`)).sort();
}

export interface TenantControllerManager {
  args: string[];
  /** Its log file. */
  log: string;
  /** Why it exited, once it has. */
  exited(): string | undefined;
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();
let exitHook = false;

/**
 * Starts the tenant's kube-controller-manager against its API server (the binary from the same
 * minor as the tenant's kube-apiserver: `tenantBinary` of its spec.kubernetes.version). It is not waited for: like the pod's
 * container, it comes up on its own; its log is `kube-controller-manager.log` in the server's directory.
 */
export function startTenantControllerManager(tcp: Tcp, server: KubeServer): TenantControllerManager {
  const dir = server.dir;
  const ca = { cert: readFileSync(join(dir, 'ca.crt'), 'utf8'), key: readFileSync(join(dir, 'ca.key'), 'utf8') };
  // kubeadm's controller-manager.conf: user system:kube-controller-manager, no group.
  const client = selfSignedPair('system:kube-controller-manager', false, ca, undefined, '');
  const kubeconfig = join(dir, 'controller-manager.conf');
  writeFileSync(
    kubeconfig,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: tcp.metadata.name, cluster: { server: server.url, 'certificate-authority-data': Buffer.from(ca.cert).toString('base64') } }],
      users: [
        {
          name: 'system:kube-controller-manager',
          user: { 'client-certificate-data': Buffer.from(client.cert).toString('base64'), 'client-key-data': Buffer.from(client.key).toString('base64') },
        },
      ],
      contexts: [{ name: 'default', context: { cluster: tcp.metadata.name, user: 'system:kube-controller-manager' } }],
      'current-context': 'default',
    }),
  );
  const args = controllerManagerArgs(tcp, {
    kubeconfig,
    caCert: join(dir, 'ca.crt'),
    caKey: join(dir, 'ca.key'),
    serviceAccountKey: join(dir, 'service-account.key'),
  });
  const log = join(dir, 'kube-controller-manager.log');
  const fd = openSync(log, 'a');
  const child = spawn(tenantBinary('kube-controller-manager', String(tcp.spec?.kubernetes?.version)), args, { cwd: dir, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  running.add(child);
  if (!exitHook) {
    exitHook = true;
    process.on('exit', () => {
      for (const c of running) c.kill('SIGKILL');
    });
  }
  // Outlives a test process killed without its exit handlers (as the API server's watchdog does).
  const watchdog = spawn(
    'sh',
    ['-c', `while kill -0 ${process.pid} 2>/dev/null && kill -0 ${child.pid} 2>/dev/null; do sleep 2; done; kill -9 ${child.pid} 2>/dev/null`],
    {
      detached: true,
      stdio: 'ignore',
    },
  );
  watchdog.unref();
  let exit: string | undefined;
  child.on('exit', (code, signal) => {
    running.delete(child);
    exit = `kube-controller-manager exited (${code ?? signal})`;
  });
  return {
    args,
    log,
    exited: () => exit,
    async stop() {
      if (exit === undefined) {
        const gone = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([gone, new Promise((r) => (timer = setTimeout(r, 5000)))]);
        clearTimeout(timer);
        if (exit === undefined) child.kill('SIGKILL');
      }
      watchdog.kill('SIGKILL');
    },
  };
}
