/**
 * A real Kubernetes API server (the test tier and the lab twin): etcd, kube-apiserver and kube-controller-manager from
 * the toolchain (scripts/toolchain install), on loopback with random free ports, state in a temp
 * directory, and the pinned upstream CRDs from the CRD tree (.toolchain/crds) installed (CRDs only: no webhooks,
 * no controllers of their own). See docs/kube-tier.md.
 *
 *   const server = await startKubeServer();   // in beforeAll, with a generous timeout
 *   await server.client.apply(object);
 *   await server.stop();                      // in afterAll; a watchdog cleans up if the test process dies
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports';
import { type KubeCommand, kubeBinaries, kubeBinary, loadPinnedCrds, requireKubeBinaries, tenantBinary } from './kube-binaries';
import { KubeClient, type KubeObject } from './kube-client';

// The binaries and CRDs, and the client, have files of their own; importers find them here too.
export * from './kube-binaries';
export * from './kube-client';

export interface KubeServer {
  /** https://127.0.0.1:<port> */
  url: string;
  /** Admin client (system:masters) with a client certificate. */
  client: KubeClient;
  /** Temp directory holding certificates, etcd data, logs and an admin kubeconfig. */
  dir: string;
  /** An admin kubeconfig (client certificate), e.g. for a Terraform kubernetes provider. */
  kubeconfig: string;
  /** The CRDs installed, by name. */
  crds: string[];
  /** The last lines of each component's log, for failure messages. */
  logs(): string;
  /**
   * Stops kube-apiserver and starts it again on the same port and etcd data (etcd keeps running);
   * resolves once /readyz answers. It is stopped as the kubelet stops a pod: SIGTERM, then SIGKILL
   * once `gracePeriodMs` has passed (default 30 s, a pod's default `terminationGracePeriodSeconds`).
   * kube-apiserver's own graceful shutdown would wait up to its `ShutdownTimeout` (the 60 s request
   * timeout) for open watches; a real kubelet does not let it. `gracePeriodMs: 0` is a crash (SIGKILL
   * at once, as when its machine fails).
   */
  restartApiServer(options?: { gracePeriodMs?: number }): Promise<void>;
  stop(): Promise<void>;
}

export interface KubeServerOptions {
  /** Install the pinned CRDs from the CRD tree. @default true */
  crds?: boolean;
  /** Which directories of the CRD tree to install (e.g. a lab on the second CAPI lane: modules/versions `crdDirsFor`). @default pinnedCrdSets */
  crdSets?: readonly string[];
  /** Run kube-controller-manager (namespace finalisation, garbage collection). @default true */
  controllerManager?: boolean;
  /**
   * Run kube-scheduler (k8s.io/kubernetes, the same version as kube-apiserver) with the admin
   * kubeconfig: Pods are bound to Nodes that fit them, and those that fit none are marked
   * `PodScheduled=False` with reason `Unschedulable`, as in a real cluster. @default false
   */
  scheduler?: boolean;
  /** How long to wait for each component to become ready. @default 120000 */
  readyTimeoutMs?: number;
  /** Changes the test copy of each CRD before it is installed (e.g. fields of a proposed API). @default none */
  transformCrd?: (crd: KubeObject) => KubeObject;
  /** More kube-apiserver flags, after the defaults (a later flag wins), e.g. a tenant control plane's. @default none */
  apiServerArgs?: string[];
  /**
   * Go runtime settings of kube-apiserver (`GOGC`, `GOMEMLIMIT`): the lab twin's management API
   * server spends a quarter of its CPU in Go's garbage collector at the default GOGC=100 (a pprof
   * of the day-two suite, docs/development.md, "Where the time goes"). Runtime tuning only: what the
   * server answers does not change. @default Go's defaults
   */
  goRuntime?: { gogc?: number; memoryLimitMiB?: number };
  /**
   * A shared etcd instead of one of its own (the lab twin's datastore): its URL, the key prefix and
   * the TLS files. @default its own etcd
   */
  etcd?: { url: string; prefix: string; caFile: string; certFile: string; keyFile: string };
  /**
   * The Kubernetes version whose binaries run (tenantBinary: the pinned patch of its minor), e.g. a
   * tenant control plane's. @default the management's (`.toolchain/bin`, toolchain.json `kubernetes.version`)
   */
  kubernetesVersion?: string;
  /**
   * The certificates and keys of another server's directory (its CA, serving and admin
   * certificates, service-account keys) instead of new ones: a new control-plane pod of the same
   * TenantControlPlane mounts the same Secrets. @default new ones
   */
  certificatesFrom?: string;
  /**
   * kube-controller-manager's `--controllers` when it runs. @default the test tier's (namespace,
   * garbage collector, ClusterRole aggregation, ServiceAccount controllers)
   */
  controllers?: string[];
}

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
}

/** A CA, a serving certificate for 127.0.0.1, an admin client certificate and the service-account key pair. */
function makeCertificates(dir: string): void {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
  } catch {
    throw new Error('the openssl command is needed to make the test server certificates: apt-get install openssl');
  }
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl(dir, ['req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=pvekaas-kube-tier-ca']);
  const sign = (name: string, subject: string, extensions: string) => {
    openssl(dir, ['req', '-new', ...ec, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', subject]);
    writeFileSync(join(dir, `${name}.ext`), extensions);
    openssl(dir, [
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-days',
      '2',
      '-out',
      `${name}.crt`,
      '-extfile',
      `${name}.ext`,
    ]);
  };
  sign('server', '/CN=kube-apiserver', 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\nkeyUsage=digitalSignature,keyEncipherment\n');
  sign('admin', '/O=system:masters/CN=pvekaas-kube-tier-admin', 'extendedKeyUsage=clientAuth\nkeyUsage=digitalSignature,keyEncipherment\n');
  openssl(dir, ['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', 'service-account.key']);
  openssl(dir, ['pkey', '-in', 'service-account.key', '-pubout', '-out', 'service-account.pub']);
}

/** What makeCertificates writes, which a server started with `certificatesFrom` takes from the other's directory. */
const CERTIFICATE_FILES = ['ca.crt', 'ca.key', 'server.crt', 'server.key', 'admin.crt', 'admin.key', 'service-account.key', 'service-account.pub'];

export function kubeconfigFor(url: string, dir: string): string {
  const b64 = (f: string) => readFileSync(join(dir, f)).toString('base64');
  return JSON.stringify(
    {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'kube-tier', cluster: { server: url, 'certificate-authority-data': b64('ca.crt') } }],
      users: [{ name: 'admin', user: { 'client-certificate-data': b64('admin.crt'), 'client-key-data': b64('admin.key') } }],
      contexts: [{ name: 'kube-tier', context: { cluster: 'kube-tier', user: 'admin' } }],
      'current-context': 'kube-tier',
    },
    null,
    2,
  );
}

const running = new Set<ChildProcess>();
const stateDirs = new Set<string>();
let exitHookInstalled = false;

/** Kills the components when the test process exits without calling stop (a crash, process.exit). */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const child of running) child.kill('SIGKILL');
    for (const dir of stateDirs) rmSync(dir, { recursive: true, force: true });
  });
}

function tail(file: string, lines = 30): string {
  if (!existsSync(file)) return '(no log)';
  return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor(what: string, timeoutMs: number, check: () => Promise<boolean>, log: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError = '';
  while (Date.now() < deadline) {
    try {
      if (await check()) return;
    } catch (e) {
      // A process that exited will not come up: say so now, with the logs, not after the timeout.
      if ((e as { fatal?: boolean }).fatal) throw new Error(`${what}: ${(e as Error).message}\n${log()}`);
      lastError = (e as Error).message;
    }
    await sleep(250);
  }
  throw new Error(`${what} not ready after ${timeoutMs / 1000} s${lastError ? ` (last error: ${lastError})` : ''}\n${log()}`);
}

/**
 * Starts etcd, kube-apiserver (and kube-controller-manager). The ports are free when chosen but
 * taken only when each process binds: another process of the machine (or another server started
 * at the same moment, as the lab twin's tenant control planes are) may bind one in between. Such a
 * start is retried on fresh ports, twice.
 */
export async function startKubeServer(options: KubeServerOptions = {}): Promise<KubeServer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startKubeServerOnce(options);
    } catch (e) {
      if (attempt >= 3 || !/address already in use/.test((e as Error).message)) throw e;
    }
  }
}

async function startKubeServerOnce(options: KubeServerOptions): Promise<KubeServer> {
  requireKubeBinaries();
  installExitHook();
  const readyTimeout = options.readyTimeoutMs ?? 120000;
  const dir = mkdtempSync(join(tmpdir(), 'pvekaas-kube-'));
  stateDirs.add(dir);
  const children: ChildProcess[] = [];
  let watchdog: ChildProcess | undefined;
  const logFiles: Record<string, string> = {};

  const start = (name: (typeof kubeBinaries)[number], args: string[]): ChildProcess => {
    logFiles[name] = join(dir, `${name}.log`);
    const fd = openSync(logFiles[name], 'a');
    const go = name === 'kube-apiserver' ? options.goRuntime : undefined;
    const env = go
      ? {
          ...process.env,
          ...(go.gogc !== undefined ? { GOGC: String(go.gogc) } : {}),
          ...(go.memoryLimitMiB !== undefined ? { GOMEMLIMIT: `${go.memoryLimitMiB}MiB` } : {}),
        }
      : process.env;
    const binary = options.kubernetesVersion && name !== 'etcd' ? tenantBinary(name as KubeCommand, options.kubernetesVersion) : kubeBinary(name);
    const child = spawn(binary, args, { cwd: dir, env, stdio: ['ignore', fd, fd] });
    closeSync(fd);
    running.add(child);
    children.push(child);
    child.on('exit', () => running.delete(child));
    return child;
  };
  const logs = () =>
    Object.entries(logFiles)
      .map(([name, file]) => `--- ${name} (${file}) ---\n${tail(file)}`)
      .join('\n');
  const exited = (child: ChildProcess, name: string) => {
    if (child.exitCode !== null || child.signalCode !== null)
      throw Object.assign(new Error(`${name} exited (${child.exitCode ?? child.signalCode})`), { fatal: true });
  };

  const stop = async () => {
    for (const child of [...children].reverse()) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      let timer: NodeJS.Timeout | undefined;
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([gone, new Promise((r) => (timer = setTimeout(r, 5000)))]);
      clearTimeout(timer);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    client?.close();
    watchdog?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    stateDirs.delete(dir);
  };

  let client: KubeClient | undefined;
  try {
    if (options.certificatesFrom) {
      for (const f of CERTIFICATE_FILES) writeFileSync(join(dir, f), readFileSync(join(options.certificatesFrom, f)));
    } else makeCertificates(dir);
    const [etcdClient, etcdPeer, apiPort] = [await freePort(), await freePort(), await freePort()];

    const shared = options.etcd;
    const etcdUrl = shared?.url ?? `http://127.0.0.1:${etcdClient}`;
    const peerUrl = `http://127.0.0.1:${etcdPeer}`;
    const etcd: ChildProcess | undefined = shared
      ? undefined
      : start('etcd', [
          '--name=kube-tier',
          `--data-dir=${join(dir, 'etcd')}`,
          `--listen-client-urls=${etcdUrl}`,
          `--advertise-client-urls=${etcdUrl}`,
          `--listen-peer-urls=${peerUrl}`,
          `--initial-advertise-peer-urls=${peerUrl}`,
          `--initial-cluster=kube-tier=${peerUrl}`,
          '--log-level=warn',
          // Several CRDs are close to etcd's default 1.5 MiB request limit.
          '--max-request-bytes=10485760',
          // Throwaway data: fsync would only make a shared 2-core machine slower.
          '--unsafe-no-fsync',
        ]);

    const url = `https://127.0.0.1:${apiPort}`;
    const apiserverArgs = [
      `--etcd-servers=${etcdUrl}`,
      ...(shared
        ? [
            `--etcd-prefix=${shared.prefix}`,
            `--etcd-cafile=${shared.caFile}`,
            `--etcd-certfile=${shared.certFile}`,
            `--etcd-keyfile=${shared.keyFile}`,
            '--etcd-compaction-interval=0',
          ]
        : []),
      '--bind-address=127.0.0.1',
      '--advertise-address=127.0.0.1',
      `--secure-port=${apiPort}`,
      `--cert-dir=${dir}`,
      `--tls-cert-file=${join(dir, 'server.crt')}`,
      `--tls-private-key-file=${join(dir, 'server.key')}`,
      `--client-ca-file=${join(dir, 'ca.crt')}`,
      `--service-account-key-file=${join(dir, 'service-account.pub')}`,
      `--service-account-signing-key-file=${join(dir, 'service-account.key')}`,
      '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
      '--service-cluster-ip-range=10.0.0.0/24',
      '--authorization-mode=RBAC',
      '--endpoint-reconciler-type=none',
      // PVEKAAS_KUBE_PROFILING=1: Go's /debug/pprof on the secure port (admin certificate), to find
      // where a twin's API server spends its CPU (docs/development.md, "Where the time goes").
      `--profiling=${process.env.PVEKAAS_KUBE_PROFILING === '1'}`,
      ...(options.apiServerArgs ?? []),
    ];
    let apiserver = start('kube-apiserver', apiserverArgs);

    const tls = {
      ca: readFileSync(join(dir, 'ca.crt'), 'utf8'),
      cert: readFileSync(join(dir, 'admin.crt'), 'utf8'),
      key: readFileSync(join(dir, 'admin.key'), 'utf8'),
    };
    client = new KubeClient(url, tls);
    const kubeconfig = join(dir, 'admin.kubeconfig');
    writeFileSync(kubeconfig, kubeconfigFor(url, dir));

    // The watchdog outlives a test process killed without running afterAll or exit handlers.
    const pids = [etcd?.pid, apiserver.pid].filter((p): p is number => p !== undefined);
    const startWatchdog = (all: number[]) => {
      watchdog?.kill('SIGKILL');
      watchdog = spawn('sh', ['-c', `while kill -0 ${process.pid} 2>/dev/null; do sleep 2; done; kill -9 ${all.join(' ')} 2>/dev/null; rm -rf '${dir}'`], {
        detached: true,
        stdio: 'ignore',
      });
      watchdog.unref();
    };
    startWatchdog(pids);

    const api = client;
    await waitFor(
      'kube-apiserver /readyz',
      readyTimeout,
      async () => {
        if (etcd) exited(etcd, 'etcd');
        exited(apiserver, 'kube-apiserver');
        return (await api.get('/readyz')).status === 200;
      },
      logs,
    );

    // A controller process started beside the API server, watched, and waited for until its log says it runs.
    const startLogged = async (command: 'kube-controller-manager' | 'kube-scheduler', args: string[], running: RegExp) => {
      const child = start(command, args);
      pids.push(child.pid as number);
      startWatchdog(pids);
      await waitFor(
        command,
        readyTimeout,
        async () => {
          exited(child, command);
          return running.test(readFileSync(logFiles[command], 'utf8'));
        },
        logs,
      );
    };

    if (options.controllerManager ?? true) {
      await startLogged(
        'kube-controller-manager',
        [
          `--kubeconfig=${kubeconfig}`,
          '--bind-address=127.0.0.1',
          '--secure-port=0',
          '--leader-elect=false',
          // Only what the tier needs: namespaces are finalised, owned objects collected, and aggregated
          // ClusterRoles filled (CAPI core's manager role aggregates those labelled for it).
          // The ServiceAccount controller gives every namespace its `default` ServiceAccount (a pod
          // that names none, like the datastore backup CronJob's, runs as it).
          `--controllers=${(options.controllers ?? ['namespace-controller', 'garbage-collector-controller', 'clusterrole-aggregation-controller', 'serviceaccount-controller']).join(',')}`,
          `--service-account-private-key-file=${join(dir, 'service-account.key')}`,
          // 1.35 and 1.36 log a controller's start at level 1 only ("Controller starting...",
          // cmd/kube-controller-manager/app/controllermanager.go RunControllers); 1.34 said "Started controller" at 0.
          '--v=1',
        ],
        /Started controller|Controller starting\.\.\./,
      );
    }

    if (options.scheduler) {
      await startLogged(
        'kube-scheduler',
        [
          `--kubeconfig=${kubeconfig}`,
          `--authentication-kubeconfig=${kubeconfig}`,
          `--authorization-kubeconfig=${kubeconfig}`,
          '--bind-address=127.0.0.1',
          '--secure-port=0',
          '--leader-elect=false',
        ],
        /Attempting to acquire leader lease|Started|successfully acquired|"Starting Kubernetes Scheduler"/,
      );
    }

    const crds = options.crds === false ? [] : await installCrds(api, readyTimeout, logs, options.transformCrd ?? ((crd) => crd), options.crdSets);
    const restartApiServer = async (options: { gracePeriodMs?: number } = {}) => {
      const old = apiserver;
      const grace = options.gracePeriodMs ?? 30000;
      if (old.exitCode === null && old.signalCode === null) {
        const gone = new Promise((r) => old.once('exit', r));
        if (grace > 0) old.kill('SIGTERM');
        const kill = setTimeout(() => old.kill('SIGKILL'), grace);
        await gone;
        clearTimeout(kill);
      }
      children.splice(children.indexOf(old), 1);
      apiserver = start('kube-apiserver', apiserverArgs);
      pids.splice(pids.indexOf(old.pid as number), 1, apiserver.pid as number);
      startWatchdog(pids);
      await waitFor(
        'kube-apiserver /readyz after its restart',
        readyTimeout,
        async () => {
          exited(apiserver, 'kube-apiserver');
          return (await api.get('/readyz')).status === 200;
        },
        logs,
      );
    };
    return { url, client: api, dir, kubeconfig, crds, logs, restartApiServer, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

async function installCrds(
  client: KubeClient,
  timeoutMs: number,
  logs: () => string,
  transform: (crd: KubeObject) => KubeObject,
  sets?: readonly string[],
): Promise<string[]> {
  const crds = loadPinnedCrds(sets).map(transform);
  const names = crds.map((c) => c.metadata.name);
  const duplicate = names.find((n, i) => names.indexOf(n) !== i);
  if (duplicate) throw new Error(`two pinned CRD sets define ${duplicate}: pin one of them in pinnedCrdSets`);
  for (const crd of crds) {
    const r = await client.post('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
    if (r.status !== 201) throw new Error(`installing CRD ${crd.metadata.name}: HTTP ${r.status}: ${r.body?.message ?? r.text}`);
  }
  const pending = new Set(names);
  await waitFor(
    `${pending.size} CRDs Established`,
    timeoutMs,
    async () => {
      for (const name of [...pending]) {
        const r = await client.get(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`);
        const conditions = (r.body?.status?.conditions ?? []) as { type: string; status: string }[];
        if (conditions.some((c) => c.type === 'Established' && c.status === 'True')) pending.delete(name);
      }
      return pending.size === 0;
    },
    () => `still pending: ${[...pending].join(', ')}\n${logs()}`,
  );
  return names.sort();
}
