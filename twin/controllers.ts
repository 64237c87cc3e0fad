/**
 * The real Cluster API controllers of the lab twin: CAPI core, kubeadm bootstrap, CAPMOX and
 * in-cluster IPAM, built from their pinned Go modules by `scripts/toolchain install`, each run as a
 * process against the twin's management API server with its webhooks on. The webhook
 * configurations are each provider's own (`config/webhook/manifests.yaml` of its module), pointed at
 * the process on loopback with a CA the twin makes; the API server calls them for every object,
 * exactly as in a management cluster.
 *
 * Flags follow what the management stack deploys: the feature gates of each provider come from the
 * cluster-api-operator release values in the synthesized `management` stack, and the versions
 * there must be the versions the twin runs (else the twin would prove something else).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { KubeClient, KubeObject } from '../scripts/lib/kube-apiserver';
import type { CapiCoreBuild } from '../modules/versions/pins';
import { freePort, portOpen, stopChild } from '../scripts/lib/ports';

export type ControllerName = 'capi-manager' | 'kubeadm-bootstrap-manager' | 'capmox-manager' | 'ipam-manager';

/** Operator values section and provider name of each controller (what the management stack deploys). */
const OPERATOR_KEYS: Record<ControllerName, [section: string, provider: string]> = {
  'capi-manager': ['core', 'cluster-api'],
  'kubeadm-bootstrap-manager': ['bootstrap', 'kubeadm'],
  'capmox-manager': ['infrastructure', 'proxmox'],
  'ipam-manager': ['ipam', 'in-cluster'],
};

/** The module (and version pin) each controller is built from. */
const MODULE_OF: Record<ControllerName, string> = {
  'capi-manager': 'sigs.k8s.io/cluster-api',
  'kubeadm-bootstrap-manager': 'sigs.k8s.io/cluster-api',
  'capmox-manager': 'github.com/ionos-cloud/cluster-api-provider-proxmox',
  'ipam-manager': 'sigs.k8s.io/cluster-api-ipam-provider-in-cluster',
};

export const CONTROLLERS = Object.keys(OPERATOR_KEYS) as ControllerName[];

/** CAPMOX's webhook server port is fixed in its main.go (no flag): one twin per machine at a time. */
const CAPMOX_WEBHOOK_PORT = 9443;

export interface ProviderDeployment {
  version: string;
  featureGates: Record<string, boolean>;
  /** Environment variables the deployment sets on the manager (the operator's `manager.env`/`deployment`). */
  env: Record<string, string>;
  /**
   * The manager flags the operator adds to the components' own (cluster-api-operator at its pin,
   * `internal/controller/component_customizer.go`): first the provider's
   * `deployment.containers[manager].args` (`customizeContainer`, each `key=value`, replacing the
   * same key), then its `manager` section (`customizeManagerContainer`:
   * `controller.groupKindConcurrency` as `--<kind>-concurrency`, `maxConcurrentReconciles`,
   * `syncPeriod` in whole seconds, then `additionalArgs`, refused when the key is already set).
   * Read from the provider resources the chart rendered (operator-chart.ts), not from its values.
   */
  args: string[];
}

/** The flags the operator sets on a provider's manager container (see `ProviderDeployment.args`). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the operator's provider spec: free-form chart values read by path
export function managerArgs(spec: { deployment?: any; manager?: any }): string[] {
  const args = new Map<string, string>();
  for (const c of spec.deployment?.containers ?? []) {
    if (c.name !== 'manager') continue;
    for (const [k, v] of Object.entries(c.args ?? {})) args.set(k, String(v));
  }
  const manager = spec.manager;
  if (manager) {
    for (const [kind, n] of Object.entries(manager.controller?.groupKindConcurrency ?? {})) args.set(`--${kind.toLowerCase()}-concurrency`, String(n));
    if (manager.maxConcurrentReconciles) args.set('--max-concurrent-reconciles', String(manager.maxConcurrentReconciles));
    if (manager.syncPeriod) {
      const m = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+(?:\.\d+)?)s)?$/.exec(String(manager.syncPeriod));
      if (!m) throw new Error(`manager.syncPeriod ${manager.syncPeriod} is not a duration`);
      const seconds = Math.round(Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0));
      if (seconds > 0) args.set('--sync-period', `${seconds}s`);
    }
    for (const [k, v] of Object.entries(manager.additionalArgs ?? {})) {
      if (args.has(k)) throw new Error(`arg "${k}" already exists`);
      args.set(k, String(v));
    }
  }
  return [...args].sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => `${k}=${v}`);
}

/** What the management stack's cluster-api-operator release deploys for each controller. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Helm chart values: free-form YAML read by path, as the chart reads it
export function deployedProviders(operatorValues: Record<string, any>): Record<ControllerName, ProviderDeployment> {
  const out = {} as Record<ControllerName, ProviderDeployment>;
  for (const name of CONTROLLERS) {
    const [section, provider] = OPERATOR_KEYS[name];
    const spec = operatorValues[section]?.[provider];
    if (!spec) throw new Error(`the management stack does not deploy the ${section} provider ${provider}`);
    const env: Record<string, string> = {};
    for (const c of spec.deployment?.containers ?? []) for (const e of c.env ?? []) env[e.name] = String(e.value ?? '');
    for (const e of spec.manager?.env ?? []) env[e.name] = String(e.value ?? '');
    out[name] = { version: String(spec.version), featureGates: { ...(spec.manager?.featureGates ?? {}) }, env, args: managerArgs(spec) };
  }
  return out;
}

/**
 * What the operator does to the running controllers for a changed release: `moving`, a new version
 * (the upgrade: scale down, CRDs, role, webhooks, manager); `rolled`, the same version with other
 * manager flags (the operator updates the Deployment, which rolls the manager).
 */
export function operatorChanges(
  deployed: Record<ControllerName, ProviderDeployment>,
  versions: Record<ControllerName, string>,
  args: Record<ControllerName, string[]>,
): { moving: ControllerName[]; rolled: ControllerName[] } {
  const moving = CONTROLLERS.filter((n) => deployed[n].version !== versions[n]);
  const rolled = CONTROLLERS.filter((n) => !moving.includes(n) && JSON.stringify(deployed[n].args) !== JSON.stringify(args[n]));
  return { moving, rolled };
}

/** One build of a controller that scripts/toolchain laid out: its binary, webhook configurations and manager role. */
export interface ControllerBuild {
  version: string;
  bin: string;
  webhooks: string;
  rbac: string;
}

/**
 * The builds of each controller the toolchain lays out: the pinned set (toolchain.json `controllers`,
 * `.toolchain/bin` and `.toolchain/controllers/{webhooks,rbac}`) and, for core and kubeadm bootstrap,
 * the default core's own build (`capiCore`, `.toolchain/controllers/<cache>/{bin,webhooks,rbac}`).
 */
export function controllerBuilds(root: string, builtFrom: Record<string, string>, lane?: CapiCoreBuild): Record<ControllerName, ControllerBuild[]> {
  const out = {} as Record<ControllerName, ControllerBuild[]>;
  for (const name of CONTROLLERS) {
    out[name] = [
      {
        version: builtFrom[MODULE_OF[name]],
        bin: join(root, '.toolchain/bin', name),
        webhooks: join(root, '.toolchain/controllers/webhooks', `${name}.yaml`),
        rbac: join(root, '.toolchain/controllers/rbac', `${name}.yaml`),
      },
    ];
    if (lane && lane.module === MODULE_OF[name] && lane.controllers.includes(name)) {
      const dir = join(root, '.toolchain/controllers', lane.cache);
      out[name].push({
        version: lane.version,
        bin: join(dir, 'bin', name),
        webhooks: join(dir, 'webhooks', `${name}.yaml`),
        rbac: join(dir, 'rbac', `${name}.yaml`),
      });
    }
  }
  return out;
}

/** The build of `name` at the version the management stack deploys, or an error naming the builds there are. */
function buildFor(builds: Record<ControllerName, ControllerBuild[]>, name: ControllerName, version: string): ControllerBuild {
  const build = builds[name].find((b) => b.version === version);
  if (!build) {
    throw new Error(
      `the management stack deploys ${OPERATOR_KEYS[name][1]} ${version}, but the twin has ${MODULE_OF[name]} ${builds[name].map((b) => b.version).join(' and ')} only: ` +
        "the twin runs the pinned versions (modules/versions/toolchain.json, components) and the previous CAPI minor (capiPrevious): drop the lab's management.versions override, or change the pin and rebuild the toolchain",
    );
  }
  for (const file of [build.bin, build.webhooks, build.rbac]) if (!existsSync(file)) throw new Error(`${file} is missing: run scripts/toolchain install`);
  return build;
}

export interface RunningControllers {
  /** The last lines of each controller's log. */
  logs(names?: ControllerName[], lines?: number): string;
  logFile(name: ControllerName): string;
  /**
   * Stops one controller and starts it again with the deployment's environment plus `extraEnv`
   * (negative controls only, e.g. CAPMOX with global credentials; none restores the deployed one),
   * same flags and webhook port; resolves once its webhook server answers.
   */
  restart(name: ControllerName, extraEnv?: Record<string, string>): Promise<void>;
  /** The version each controller runs (its build). */
  versions(): Record<ControllerName, string>;
  /** The flags each controller runs with from its deployment (`ProviderDeployment.args`). */
  args(): Record<ControllerName, string[]>;
  /** Stops controllers (the operator's scale down before an upgrade); they stay down until `install`. */
  scaleDown(names: ControllerName[]): Promise<void>;
  /**
   * The components of another version of one controller, as the operator installs them after the
   * old ones are deleted: its manager role, its webhook configurations, then its process on that
   * version's build (same flags, port and environment); resolves once its webhook server answers.
   */
  install(name: ControllerName, deployment: ProviderDeployment): Promise<void>;
  stop(): Promise<void>;
}

export interface StartControllersOptions {
  root: string;
  dir: string;
  kubeconfig: string;
  client: KubeClient;
  deployed: Record<ControllerName, ProviderDeployment>;
  /** The builds there are of each controller (`controllerBuilds`); each runs the one at its deployed version. */
  builds: Record<ControllerName, ControllerBuild[]>;
  /** Extra environment for a controller (negative controls only, e.g. CAPMOX global credentials). */
  extraEnv?: Partial<Record<ControllerName, Record<string, string>>>;
  track(child: ChildProcess): void;
}

/** A CA and one serving certificate for 127.0.0.1, shared by the webhook servers. */
export function webhookCertificates(dir: string): { caPem: string; certDir: string } {
  const certDir = join(dir, 'webhook-certs');
  mkdirSync(certDir, { recursive: true });
  const run = (args: string[]) => execFileSync('openssl', args, { cwd: certDir, stdio: ['ignore', 'ignore', 'pipe'] });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  run(['req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=pvekaas-twin-webhook-ca']);
  run(['req', '-new', ...ec, '-keyout', 'tls.key', '-out', 'tls.csr', '-subj', '/CN=127.0.0.1']);
  writeFileSync(
    join(certDir, 'tls.ext'),
    'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\nkeyUsage=digitalSignature,keyEncipherment\n',
  );
  run(['x509', '-req', '-in', 'tls.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '2', '-out', 'tls.crt', '-extfile', 'tls.ext']);
  return { caPem: readFileSync(join(certDir, 'ca.crt'), 'utf8'), certDir };
}

/**
 * A provider's webhook configurations, from its module, pointed at its process: the
 * `clientConfig.service` of each webhook becomes `url: https://127.0.0.1:<port><path>` with the
 * twin's CA, and each configuration is named after the controller (every provider calls its own
 * `mutating-webhook-configuration`).
 */
export function webhookConfigurations(file: string, name: string, port: number, caPem: string): KubeObject[] {
  if (!existsSync(file)) throw new Error(`${file} is missing: run scripts/toolchain install`);
  const out: KubeObject[] = [];
  for (const doc of parseAllDocuments(readFileSync(file, 'utf8'))) {
    const o = doc.toJS() as KubeObject | null;
    if (!o || !/WebhookConfiguration$/.test(o.kind)) continue;
    const webhooks = (o.webhooks as { clientConfig: { service?: { path?: string } } }[]).map((w) => ({
      ...w,
      clientConfig: { url: `https://127.0.0.1:${port}${w.clientConfig.service?.path ?? '/'}`, caBundle: Buffer.from(caPem).toString('base64') },
    }));
    out.push({ ...o, metadata: { name: `${name}-${o.metadata.name}` }, webhooks });
  }
  if (out.length === 0) throw new Error(`${file} holds no webhook configuration`);
  return out;
}

function argsFor(name: ControllerName, port: number, certDir: string, deployment: ProviderDeployment): string[] {
  return [...twinArgs(name, port, certDir, deployment.featureGates), ...deployment.args];
}

function twinArgs(name: ControllerName, port: number, certDir: string, gates: Record<string, boolean>): string[] {
  const featureGates = Object.entries(gates)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
  const common = ['--leader-elect=false', '--diagnostics-address=0'];
  // klog's -v and --feature-gates exist in CAPI and CAPMOX, not in the IPAM provider's flag set.
  const klog = ['-v=2', ...(featureGates ? [`--feature-gates=${featureGates}`] : [])];
  switch (name) {
    case 'capi-manager':
    case 'kubeadm-bootstrap-manager':
      return [...common, ...klog, '--health-addr=0', `--webhook-port=${port}`, `--webhook-cert-dir=${certDir}`];
    case 'ipam-manager':
      if (featureGates) throw new Error(`the management stack sets feature gates (${featureGates}) on the IPAM provider, which has none`);
      return [...common, '--health-probe-bind-address=0', `--webhook-port=${port}`, `--webhook-cert-dir=${certDir}`];
    case 'capmox-manager':
      // Port and certificate directory are fixed in CAPMOX's main.go: $TMPDIR/k8s-webhook-server/serving-certs.
      return [...common, ...klog, '--health-probe-bind-address=0', '--enable-webhooks=true'];
  }
}

/** Namespace of the controllers' ServiceAccounts in the twin's management cluster. */
export const CONTROLLERS_NAMESPACE = 'pvekaas-twin-controllers';

/** CAPI core binds its ServiceAccount to an aggregated role (config/default/manager_role_aggregation_patch.yaml). */
const AGGREGATE_TO_CAPI = 'cluster.x-k8s.io/aggregate-to-manager';

/**
 * Each controller's own RBAC, from its module (`config/rbac/role.yaml`), as its deployment has it:
 * a ServiceAccount, the manager ClusterRole and its binding. CAPI core's role is labelled
 * `cluster.x-k8s.io/aggregate-to-manager: "true"` and its ServiceAccount bound to the aggregated
 * role that selects that label (as CAPI's config/default does), so ClusterRoles other projects
 * label for it (pvekaas's static control plane) count. The controller then runs with a token of
 * its ServiceAccount: a permission its role lacks fails in the twin as in a cluster.
 */
export function controllerRbac(file: string, name: ControllerName): KubeObject[] {
  if (!existsSync(file)) throw new Error(`${file} is missing: run scripts/toolchain install`);
  const roles = parseAllDocuments(readFileSync(file, 'utf8'))
    .map((d) => d.toJS() as KubeObject | null)
    .filter((o): o is KubeObject => o?.kind === 'ClusterRole');
  if (roles.length !== 1) throw new Error(`${file} holds ${roles.length} ClusterRoles; expected the manager role alone`);
  const role: KubeObject = {
    ...roles[0],
    metadata: { name: `${name}-manager-role`, ...(name === 'capi-manager' ? { labels: { [AGGREGATE_TO_CAPI]: 'true' } } : {}) },
  };
  const bound = name === 'capi-manager' ? `${name}-aggregated-manager-role` : role.metadata.name;
  return [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: CONTROLLERS_NAMESPACE } },
    role,
    ...(name === 'capi-manager'
      ? [
          {
            apiVersion: 'rbac.authorization.k8s.io/v1',
            kind: 'ClusterRole',
            metadata: { name: bound },
            aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [AGGREGATE_TO_CAPI]: 'true' } }] },
            rules: [],
          } as KubeObject,
        ]
      : []),
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: `${name}-manager-rolebinding` },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: bound },
      subjects: [{ kind: 'ServiceAccount', name, namespace: CONTROLLERS_NAMESPACE }],
    } as KubeObject,
  ];
}

/** A kubeconfig for a controller: the admin kubeconfig's server and CA, the ServiceAccount's token. */
async function serviceAccountKubeconfig(client: KubeClient, adminKubeconfig: string, name: ControllerName, file: string): Promise<void> {
  const r = await client.post(`/api/v1/namespaces/${CONTROLLERS_NAMESPACE}/serviceaccounts/${name}/token`, {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    spec: { expirationSeconds: 2 * 24 * 3600 },
  });
  if (r.status !== 201 && r.status !== 200) throw new Error(`token for ServiceAccount ${name}: HTTP ${r.status}: ${r.body?.message ?? r.text}`);
  const admin = JSON.parse(readFileSync(adminKubeconfig, 'utf8')) as { clusters: unknown[]; contexts: { context: { cluster: string } }[] };
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: admin.clusters,
    users: [{ name, user: { token: r.body.status.token } }],
    contexts: [{ name, context: { cluster: admin.contexts[0].context.cluster, user: name } }],
    'current-context': name,
  };
  writeFileSync(file, JSON.stringify(config, null, 2), { mode: 0o600 });
}

export async function startControllers(options: StartControllersOptions): Promise<RunningControllers> {
  const { dir, kubeconfig, client, builds } = options;
  const deployed = { ...options.deployed };
  const running = {} as Record<ControllerName, ControllerBuild>;
  for (const name of CONTROLLERS) running[name] = buildFor(builds, name, deployed[name].version);
  if (await portOpen(CAPMOX_WEBHOOK_PORT)) throw new Error(`port ${CAPMOX_WEBHOOK_PORT} is taken (CAPMOX's fixed webhook port): is another lab twin running?`);
  const { caPem, certDir } = webhookCertificates(dir);
  await client.applyOrThrow({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: CONTROLLERS_NAMESPACE } }, { fieldManager: 'pvekaas-twin', force: true });
  const kubeconfigs = {} as Record<ControllerName, string>;
  for (const name of CONTROLLERS) {
    for (const o of controllerRbac(running[name].rbac, name)) await client.applyOrThrow(o, { fieldManager: 'pvekaas-twin', force: true });
    kubeconfigs[name] = join(dir, `${name}.kubeconfig`);
    await serviceAccountKubeconfig(client, kubeconfig, name, kubeconfigs[name]);
  }
  const children = new Map<ControllerName, ChildProcess>();
  const logFile = (name: ControllerName) => join(dir, `${name}.log`);
  const ports = {} as Record<ControllerName, number>;
  const spawnController = (name: ControllerName, extraEnv: Record<string, string>) => {
    const tmp = join(dir, `${name}-tmp`);
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      KUBECONFIG: kubeconfigs[name],
      TMPDIR: tmp,
      ...deployed[name].env,
      ...extraEnv,
    };
    const fd = openSync(logFile(name), 'a');
    const child = spawn(running[name].bin, argsFor(name, ports[name], certDir, deployed[name]), {
      cwd: dir,
      env,
      stdio: ['ignore', fd, fd],
    });
    closeSync(fd);
    options.track(child);
    children.set(name, child);
    // A watchdog outlives a test process killed without afterAll (a jest timeout, a kill): the
    // controllers go with it, and CAPMOX's fixed webhook port is free for the next twin.
    if (child.pid !== undefined) {
      const watchdog = spawn(
        'sh',
        ['-c', `while kill -0 ${process.pid} 2>/dev/null && kill -0 ${child.pid} 2>/dev/null; do sleep 2; done; kill -9 ${child.pid} 2>/dev/null`],
        { detached: true, stdio: 'ignore' },
      );
      watchdog.unref();
    }
  };
  for (const name of CONTROLLERS) {
    const port = name === 'capmox-manager' ? CAPMOX_WEBHOOK_PORT : await freePort();
    ports[name] = port;
    const tmp = join(dir, `${name}-tmp`);
    mkdirSync(join(tmp, 'k8s-webhook-server'), { recursive: true });
    // CAPMOX reads its serving certificate from $TMPDIR/k8s-webhook-server/serving-certs.
    execFileSync('cp', ['-r', certDir, join(tmp, 'k8s-webhook-server', 'serving-certs')]);
    spawnController(name, options.extraEnv?.[name] ?? {});
  }
  const tail = (file: string, lines: number) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n') : '(no log)');
  const logs = (names: ControllerName[] = CONTROLLERS, lines = 20) => names.map((n) => `--- ${n} ---\n${tail(logFile(n), lines)}`).join('\n');
  const stopOne = (child: ChildProcess) => stopChild(child);
  const stop = async () => {
    await Promise.all([...children.values()].map(stopOne));
  };
  const scaleDown = async (names: ControllerName[]) => {
    await Promise.all(
      names.map(async (name) => {
        await stopOne(children.get(name)!);
        // The port (CAPMOX's is fixed) must be free again before a new process binds it.
        const freed = Date.now() + 10000;
        while ((await portOpen(ports[name])) && Date.now() < freed) await new Promise((r) => setTimeout(r, 100));
      }),
    );
  };
  const restart = async (name: ControllerName, extraEnv: Record<string, string> = {}) => {
    await scaleDown([name]);
    spawnController(name, extraEnv);
    await serving(name);
  };
  const install = async (name: ControllerName, deployment: ProviderDeployment) => {
    const build = buildFor(builds, name, deployment.version);
    const child = children.get(name)!;
    if (child.exitCode === null && child.signalCode === null) await scaleDown([name]);
    // SSA with the same field manager: what the new role or configurations no longer hold goes.
    for (const o of controllerRbac(build.rbac, name)) await client.applyOrThrow(o, { fieldManager: 'pvekaas-twin', force: true });
    for (const config of webhookConfigurations(build.webhooks, name, ports[name], caPem))
      await client.applyOrThrow(config, { fieldManager: 'pvekaas-twin', force: true });
    running[name] = build;
    deployed[name] = deployment;
    spawnController(name, {});
    await serving(name);
  };
  const serving = async (name: ControllerName) => {
    const deadline = Date.now() + 60000;
    for (;;) {
      const child = children.get(name)!;
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`${name} exited after its restart (${child.exitCode ?? child.signalCode}):\n${tail(logFile(name), 30)}`);
      if (await portOpen(ports[name])) return;
      if (Date.now() > deadline) throw new Error(`${name}'s webhook server did not come up again on port ${ports[name]}:\n${tail(logFile(name), 30)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  };
  try {
    const deadline = Date.now() + 120000;
    for (const name of CONTROLLERS) {
      for (;;) {
        const child = children.get(name)!;
        if (child.exitCode !== null || child.signalCode !== null)
          throw new Error(`${name} exited (${child.exitCode ?? child.signalCode}):\n${tail(logFile(name), 30)}`);
        if (await portOpen(ports[name])) break;
        if (Date.now() > deadline) throw new Error(`${name}'s webhook server did not come up on port ${ports[name]}:\n${tail(logFile(name), 30)}`);
        await new Promise((r) => setTimeout(r, 250));
      }
      for (const config of webhookConfigurations(running[name].webhooks, name, ports[name], caPem))
        await client.applyOrThrow(config, { fieldManager: 'pvekaas-twin', force: true });
    }
  } catch (e) {
    await stop();
    throw e;
  }
  const versions = () => Object.fromEntries(CONTROLLERS.map((n) => [n, running[n].version])) as Record<ControllerName, string>;
  const args = () => Object.fromEntries(CONTROLLERS.map((n) => [n, [...deployed[n].args]])) as Record<ControllerName, string[]>;
  return { logs, logFile, restart, versions, args, scaleDown, install, stop };
}
