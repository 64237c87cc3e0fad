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
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRequest, Agent } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { crdsDir } from './crd-tree';
import { pinnedCrdDirs, resolveToolchain } from '../../modules/versions';
import { projectRoot as findProjectRoot } from '../../sim/toolchain';
import { freePort } from './ports';

const projectRoot = findProjectRoot();

export const toolchainBin = join(projectRoot, '.toolchain/bin');
export const kubeBinaries = ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler'] as const;

/** Where a Kubernetes command the test servers and the twin's tenant control planes run comes from. */
export function kubeBinary(command: (typeof kubeBinaries)[number]): string {
  return join(toolchainBin, command);
}

/** The commands of a Kubernetes control plane the toolchain builds per minor (Kamaji's TenantControlPlane pod runs the three). */
export type KubeCommand = 'kube-apiserver' | 'kube-controller-manager' | 'kube-scheduler';

/**
 * The pinned patch of `version`'s minor (toolchain.json `kubernetes.version` for the management
 * minor, `kubernetes.tenantMinors` for the others): what a tenant of that version runs in the lab
 * twin. Throws naming the pinned minors when its minor has none.
 */
export function pinnedKubernetesFor(version: string): string {
  const minor = (v: string) => /^v?(\d+)\.(\d+)\./.exec(v)?.slice(1, 3).join('.');
  const pinned = Object.keys(resolveToolchain().kubernetes.minors);
  const found = pinned.find((p) => minor(p) === minor(version));
  if (!found)
    throw new Error(
      `the lab twin runs no Kubernetes ${minor(version) ?? version} (${version}): it builds the minors pinned in modules/versions/toolchain.json ` +
        `(kubernetes.version and kubernetes.tenantMinors: ${pinned.join(', ')}); pin that minor's patch there, or declare one of those`,
    );
  return found;
}

/**
 * The binary of `command` a control plane of Kubernetes `version` runs: k8s.io/kubernetes at the
 * pinned patch of its minor (pinnedKubernetesFor), linked by `scripts/toolchain install` as
 * `.toolchain/kube/<patch>/<command>` (part `kube-<patch>`, or the management's own commands for
 * its minor). Throws with the install command when it is not built.
 */
export function tenantBinary(command: KubeCommand, version: string): string {
  const patch = pinnedKubernetesFor(version);
  const path = join(projectRoot, '.toolchain/kube', patch, command);
  if (!existsSync(path)) {
    const part = patch === resolveToolchain().kubernetes.version ? command : `kube-${patch}`;
    throw new Error(`${command} ${patch} (for Kubernetes ${version}) is not built (missing ${path}): run \`scripts/toolchain install ${part}\``);
  }
  return path;
}

/**
 * The toolchain parts the tenant control planes of these Kubernetes versions need beyond the
 * management's (`scripts/toolchain install <part>`): `kube-<patch>` for each other pinned minor,
 * once. Throws (pinnedKubernetesFor) for a minor the toolchain does not pin.
 */
export function tenantKubeParts(versions: readonly string[]): string[] {
  const management = resolveToolchain().kubernetes.version;
  return [...new Set(versions.map(pinnedKubernetesFor))]
    .filter((p) => p !== management)
    .sort()
    .map((p) => `kube-${p}`);
}

/** Throws with the fix when the server binaries are not built: the kube tier is part of the test command. */
export function requireKubeBinaries(): void {
  const missing = kubeBinaries.filter((b) => !existsSync(join(toolchainBin, b)));
  if (missing.length > 0) {
    throw new Error(
      `the Kubernetes test server is not built (missing in .toolchain/bin: ${missing.join(', ')}): run \`scripts/toolchain install\` ` +
        '(the README test command does this; a cold build takes several minutes, see docs/kube-tier.md)',
    );
  }
}

/** The CRD sets installed: those of the pinned management plane (modules/versions), from the CRD tree. */
export const pinnedCrdSets = pinnedCrdDirs();

export const crdRoot = crdsDir(projectRoot, process.env);

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; resourceVersion?: string; [key: string]: unknown };
  [key: string]: unknown;
}

/** Reads the pinned CRDs (or those of `sets`, directories of the CRD tree), with webhook conversion turned off (see below). */
export function loadPinnedCrds(sets: readonly string[] = pinnedCrdSets): KubeObject[] {
  const crds: KubeObject[] = [];
  for (const set of sets) {
    const dir = join(crdRoot, set);
    if (!existsSync(dir)) throw new Error(`pinned CRDs not found: ${dir} (run scripts/toolchain install crds)`);
    for (const file of readdirSync(dir)
      .filter((f) => f.endsWith('.yaml'))
      .sort()) {
      for (const doc of parseAllDocuments(readFileSync(join(dir, file), 'utf8'))) {
        const object = doc.toJS() as KubeObject | null;
        if (object?.kind !== 'CustomResourceDefinition') continue;
        crds.push(withoutConversionWebhook(object));
      }
    }
  }
  return crds;
}

/**
 * No provider webhook runs here. pvekaas writes every object at its CRD's storage version, so the
 * server never needs to convert; a conversion webhook left in place would only turn a wrong
 * apiVersion into an opaque "service not found" error instead of a clear one.
 */
export function withoutConversionWebhook(crd: KubeObject): KubeObject {
  const spec = crd.spec as { conversion?: { strategy?: string } };
  if (spec.conversion?.strategy !== 'Webhook') return crd;
  return { ...crd, spec: { ...spec, conversion: { strategy: 'None' } } };
}

export interface KubeResponse {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the API server's JSON for the path asked; the caller reads the kind it asked for
  body: any;
  text: string;
}

export interface ApplyOptions {
  /** @default 'pvekaas-kube-tier' */
  fieldManager?: string;
  /** Server-side dry run: the server validates and admits the object but stores nothing. @default false */
  dryRun?: boolean;
  /** Take over fields another manager owns. @default false */
  force?: boolean;
}

interface ApiResource {
  name: string;
  kind: string;
  namespaced: boolean;
}

/** A small client for the test server: plain HTTPS with the admin client certificate. */
export class KubeClient {
  private readonly agent: Agent;
  private readonly resources = new Map<string, ApiResource[]>();

  /** `token`: a bearer token (a pod's ServiceAccount) instead of, or beside, a client certificate. */
  constructor(
    readonly url: string,
    tls: { ca?: string; cert?: string; key?: string },
    private readonly token?: string,
  ) {
    this.agent = new Agent({ ca: tls.ca, cert: tls.cert, key: tls.key, keepAlive: true, maxSockets: 4 });
  }

  /**
   * Requests sent by every client of this process, by server and `METHOD path` (namespace and name
   * segments kept, query dropped): where the twin's own polling goes (twin/timeline.ts).
   */
  static readonly sent = new Map<string, number>();

  request(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<KubeResponse> {
    const key = `${this.url} ${method} ${path.split('?')[0]}`;
    KubeClient.sent.set(key, (KubeClient.sent.get(key) ?? 0) + 1);
    const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    return new Promise((resolvePromise, reject) => {
      const req = httpsRequest(
        new URL(path, this.url),
        {
          method,
          agent: this.agent,
          headers: {
            Accept: 'application/json',
            ...(this.token ? { Authorization: `Bearer ${this.token}` } : {}),
            ...(payload === undefined ? {} : { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(payload) }),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed: unknown = text;
            try {
              parsed = JSON.parse(text);
            } catch {
              // Health endpoints answer in plain text.
            }
            resolvePromise({ status: res.statusCode ?? 0, body: parsed, text });
          });
          res.on('error', reject);
        },
      );
      req.setTimeout(60000, () => req.destroy(new Error(`${method} ${path}: no answer within 60 s`)));
      req.on('error', reject);
      if (payload !== undefined) req.write(payload);
      req.end();
    });
  }

  get(path: string): Promise<KubeResponse> {
    return this.request('GET', path);
  }

  post(path: string, body: unknown): Promise<KubeResponse> {
    return this.request('POST', path, body);
  }

  delete(path: string, options: { propagationPolicy?: 'Foreground' | 'Background' | 'Orphan' } = {}): Promise<KubeResponse> {
    return this.request('DELETE', path, { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: options.propagationPolicy ?? 'Background' });
  }

  /** Server-side apply (what the hashicorp/kubernetes provider does for kubernetes_manifest). */
  async apply(object: KubeObject, options: ApplyOptions = {}): Promise<KubeResponse> {
    const query = new URLSearchParams({ fieldManager: options.fieldManager ?? 'pvekaas-kube-tier' });
    if (options.force) query.set('force', 'true');
    if (options.dryRun) query.set('dryRun', 'All');
    return this.request('PATCH', `${await this.objectPath(object)}?${query}`, object, 'application/apply-patch+yaml');
  }

  /** Like apply, but throws with the server's message unless it answered 200 or 201. */
  async applyOrThrow(object: KubeObject, options: ApplyOptions = {}): Promise<KubeObject> {
    const r = await this.apply(object, options);
    if (r.status !== 200 && r.status !== 201) throw new Error(`apply ${describeObject(object)}: HTTP ${r.status}: ${r.body?.message ?? r.text}`);
    return r.body as KubeObject;
  }

  /** The REST path of an object, found through discovery (so it works for every installed CRD). */
  async objectPath(object: Pick<KubeObject, 'apiVersion' | 'kind' | 'metadata'>): Promise<string> {
    const resource = await this.resourceFor(object.apiVersion, object.kind);
    const base = object.apiVersion.includes('/') ? `/apis/${object.apiVersion}` : `/api/${object.apiVersion}`;
    const name = encodeURIComponent(object.metadata.name);
    if (!resource.namespaced) return `${base}/${resource.name}/${name}`;
    const namespace = object.metadata.namespace;
    if (!namespace) throw new Error(`${describeObject(object)} is namespaced (${resource.name}) but has no metadata.namespace`);
    return `${base}/namespaces/${encodeURIComponent(namespace)}/${resource.name}/${name}`;
  }

  async resourceFor(apiVersion: string, kind: string): Promise<ApiResource> {
    for (let attempt = 0; attempt < 2; attempt++) {
      if (attempt > 0 || !this.resources.has(apiVersion)) {
        const r = await this.get(apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`);
        this.resources.set(apiVersion, r.status === 200 ? (r.body.resources as ApiResource[]).filter((x) => !x.name.includes('/')) : []);
      }
      const found = this.resources.get(apiVersion)?.find((x) => x.kind === kind);
      if (found) return found;
    }
    throw new Error(`the server does not serve ${kind} in ${apiVersion} (is its CRD installed, and is that version served?)`);
  }

  close(): void {
    this.agent.destroy();
  }
}

export function describeObject(object: Pick<KubeObject, 'apiVersion' | 'kind' | 'metadata'>): string {
  const ns = object.metadata?.namespace ? `${object.metadata.namespace}/` : '';
  return `${object.kind} ${ns}${object.metadata?.name} (${object.apiVersion})`;
}

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

    if (options.controllerManager ?? true) {
      const kcm = start('kube-controller-manager', [
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
      ]);
      pids.push(kcm.pid as number);
      startWatchdog(pids);
      await waitFor(
        'kube-controller-manager',
        readyTimeout,
        async () => {
          exited(kcm, 'kube-controller-manager');
          return /Started controller|Controller starting\.\.\./.test(readFileSync(logFiles['kube-controller-manager'], 'utf8'));
        },
        logs,
      );
    }

    if (options.scheduler) {
      const scheduler = start('kube-scheduler', [
        `--kubeconfig=${kubeconfig}`,
        `--authentication-kubeconfig=${kubeconfig}`,
        `--authorization-kubeconfig=${kubeconfig}`,
        '--bind-address=127.0.0.1',
        '--secure-port=0',
        '--leader-elect=false',
      ]);
      pids.push(scheduler.pid as number);
      startWatchdog(pids);
      await waitFor(
        'kube-scheduler',
        readyTimeout,
        async () => {
          exited(scheduler, 'kube-scheduler');
          return /Attempting to acquire leader lease|Started|successfully acquired|"Starting Kubernetes Scheduler"/.test(
            readFileSync(logFiles['kube-scheduler'], 'utf8'),
          );
        },
        logs,
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
