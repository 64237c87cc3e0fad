/**
 * MetalLB's real controller in the lab twin (go.universe.tf/metallb `controller`, built by
 * `scripts/toolchain install` at the pinned component version): it is what gives each tenant
 * control plane's LoadBalancer Service its VIP, from the IPAddressPool the management-config stack
 * renders (`autoAssign: false`, so only a Service that asks for one of its addresses gets it, by
 * the `metallb.io/loadBalancerIPs` annotation the ClusterClass sets).
 *
 * It runs as its Deployment would: the management stack's `metallb` helm_release is rendered from
 * the real chart (laid out by the toolchain) with exactly the rendered values (`helm template`,
 * schema enforced); the controller's ServiceAccount, its (Cluster)Roles and bindings and its
 * Deployment are applied (the Deployment's Pods stay Pending: no node runs them here; it is there
 * because the controller sets it as the owner of the memberlist Secret it creates,
 * internal/k8s/k8s.go CreateMlSecret); then the binary runs with a token of that ServiceAccount,
 * with the container's arguments and environment (a permission the chart's Role lacks fails here
 * as in a cluster).
 *
 * Deviations (docs/twin.md): the controller's validating webhook is not run (`--webhook-mode`
 * disabled: its serving port 9443 is CAPMOX's fixed port in the twin), so the chart's
 * ValidatingWebhookConfiguration is not applied; the metrics port is a free local one; the speaker
 * (which answers ARP for the assigned address) is not run: the twin takes an address MetalLB
 * assigned, and an L2Advertisement that selects its pool, as announced.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { KubeClient, KubeObject } from '../scripts/lib/kube-apiserver';
import { freePort, stopChild } from '../scripts/lib/ports';
import { helmTemplate, type ChartRelease } from './helm-template';

/** An unstructured object (what the twin reads by path); one reasoned `any`, kept on its own line so formatting cannot move it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an unstructured Kubernetes object read by path, as the controller reads it
type Unstructured = Record<string, any>;

const FIELD_MANAGER = 'helm';

/** The management stack's MetalLB release, as the twin reads it from the synthesized stack. */
export type MetallbRelease = ChartRelease;

/** The `metallb` helm_release of a synthesized management stack (its `cdk.tf.json` config). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a synthesized cdk.tf.json block: untyped JSON read by path, as tofu reads it
export function metallbReleaseOf(config: { resource?: { helm_release?: Record<string, any> } }): MetallbRelease {
  const found = Object.values(config.resource?.helm_release ?? {}).find((r) => r.chart === 'metallb');
  if (!found) throw new Error('the management stack has no metallb release');
  return { name: found.name, namespace: found.namespace, version: found.version, values: (found.values ?? []) as string[] };
}

export interface RunningMetallb {
  stop(): Promise<void>;
  log(lines?: number): string;
}

interface Container {
  name: string;
  args?: string[];
  env?: { name: string; value?: string; valueFrom?: { fieldRef?: { fieldPath: string } } }[];
}

/**
 * The controller's part of the rendered chart: its Deployment, its ServiceAccount, and the roles
 * bound to that ServiceAccount with their bindings. Exported for the tests.
 */
export function controllerObjects(
  objects: KubeObject[],
  namespace: string,
): { deployment: KubeObject; container: Container; serviceAccount: string; rbac: KubeObject[] } {
  const deployment = objects.find(
    (o) => o.kind === 'Deployment' && (o as Unstructured).spec?.template?.spec?.containers?.some((c: Container) => c.name === 'controller'),
  );
  if (!deployment) throw new Error('the rendered metallb chart has no controller Deployment');
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- an unstructured Kubernetes object read by path, as the controller reads it
  const pod = (deployment as any).spec.template.spec as { serviceAccountName?: string; containers: Container[] };
  const serviceAccount = pod.serviceAccountName ?? 'default';
  const container = pod.containers.find((c) => c.name === 'controller')!;
  const bindings = objects.filter(
    (o) =>
      (o.kind === 'RoleBinding' || o.kind === 'ClusterRoleBinding') &&
      ((o as Unstructured).subjects ?? []).some(
        (s: { kind: string; name: string; namespace?: string }) =>
          s.kind === 'ServiceAccount' && s.name === serviceAccount && (s.namespace ?? namespace) === namespace,
      ),
  );
  const roles = objects.filter((o) =>
    bindings.some(
      (b) =>
        (b as Unstructured).roleRef.kind === o.kind &&
        (b as Unstructured).roleRef.name === o.metadata.name &&
        (o.kind === 'ClusterRole' || (o.metadata.namespace ?? namespace) === (b.metadata.namespace ?? namespace)),
    ),
  );
  const account = objects.find((o) => o.kind === 'ServiceAccount' && o.metadata.name === serviceAccount);
  if (!account) throw new Error(`the rendered metallb chart has no ServiceAccount ${serviceAccount} for its controller`);
  return { deployment, container, serviceAccount, rbac: [account, ...roles, ...bindings] };
}

export interface StartMetallbOptions {
  root: string;
  /** Scratch directory for the kubeconfig and the log. */
  dir: string;
  client: KubeClient;
  adminKubeconfig: string;
  release: MetallbRelease;
  kubeVersion: string;
  track: (child: ChildProcess) => void;
}

/** Renders the release, applies the controller's objects and starts the controller with its ServiceAccount's token. */
export async function startMetallb(options: StartMetallbOptions): Promise<RunningMetallb> {
  const { root, dir, client, release } = options;
  const manifest = helmTemplate(root, 'metallb', release, options.kubeVersion);
  const objects = parseAllDocuments(manifest)
    .map((d) => d.toJS() as KubeObject | null)
    .filter((o): o is KubeObject => !!o && typeof o === 'object' && !!o.kind);
  const { deployment, container, serviceAccount, rbac } = controllerObjects(objects, release.namespace);
  const placed = (o: KubeObject): KubeObject =>
    o.kind.startsWith('Cluster') || o.metadata.namespace ? o : { ...o, metadata: { ...o.metadata, namespace: release.namespace } };
  for (const o of [...rbac, deployment]) await client.applyOrThrow(placed(o), { fieldManager: FIELD_MANAGER, force: true });
  const token = await client.post(`/api/v1/namespaces/${release.namespace}/serviceaccounts/${serviceAccount}/token`, {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    spec: { expirationSeconds: 2 * 24 * 3600 },
  });
  if (token.status !== 201 && token.status !== 200)
    throw new Error(`token for ServiceAccount ${release.namespace}/${serviceAccount}: HTTP ${token.status}: ${token.body?.message ?? token.text}`);
  const admin = JSON.parse(readFileSync(options.adminKubeconfig, 'utf8')) as { clusters: unknown[]; contexts: { context: { cluster: string } }[] };
  const kubeconfig = join(dir, 'metallb-controller.kubeconfig');
  writeFileSync(
    kubeconfig,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: admin.clusters,
      users: [{ name: 'metallb-controller', user: { token: token.body.status.token } }],
      contexts: [{ name: 'metallb-controller', context: { cluster: admin.contexts[0].context.cluster, user: 'metallb-controller' } }],
      'current-context': 'metallb-controller',
    }),
    { mode: 0o600 },
  );
  // The container's environment: literal values as rendered; the Pod's namespace for a fieldRef to it.
  const env: Record<string, string> = {};
  for (const e of container.env ?? []) {
    if (e.value !== undefined) env[e.name] = e.value;
    else if (e.valueFrom?.fieldRef?.fieldPath === 'metadata.namespace') env[e.name] = release.namespace;
  }
  const port = await freePort();
  const args = (container.args ?? []).filter((a) => !a.startsWith('--port=') && !a.startsWith('--webhook-mode='));
  args.push(`--port=${port}`, '--webhook-mode=disabled', `--namespace=${release.namespace}`);
  const logFile = join(dir, 'metallb-controller.log');
  const fd = openSync(logFile, 'a');
  const child = spawn(join(root, '.toolchain/bin/metallb-controller'), args, {
    cwd: dir,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, KUBECONFIG: kubeconfig, ...env },
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  options.track(child);
  const log = (lines = 20) => (existsSync(logFile) ? readFileSync(logFile, 'utf8').split('\n').slice(-lines).join('\n') : '(no log)');
  // Up once its metrics endpoint answers (it serves it after the manager started), or failed.
  const deadline = Date.now() + 60000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`the MetalLB controller exited (${child.exitCode ?? child.signalCode}):\n${log(30)}`);
    const ok = await fetch(`http://127.0.0.1:${port}/metrics`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) throw new Error(`the MetalLB controller did not serve its metrics on port ${port} within 60 s:\n${log(30)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  const stop = () => stopChild(child);
  return { stop, log };
}

/**
 * Whether a LoadBalancer Service is reachable at `address` in the twin: MetalLB assigned it that
 * address (its status), and an L2Advertisement in MetalLB's namespace announces a pool that holds
 * it (without one, MetalLB assigns but no speaker answers ARP for it: speaker/layer2 announces
 * only pools an advertisement selects). Returns why not, or undefined.
 */
export async function notAnnounced(
  client: KubeClient,
  service: { namespace: string; name: string },
  address: string,
  metallbNamespace: string,
): Promise<string | undefined> {
  const svc = await client.get(`/api/v1/namespaces/${service.namespace}/services/${service.name}`);
  if (svc.status === 404) return `the Service ${service.namespace}/${service.name} does not exist yet`;
  if (svc.status !== 200) return `reading the Service ${service.namespace}/${service.name}: HTTP ${svc.status}`;
  const ingress = ((svc.body.status?.loadBalancer?.ingress ?? []) as { ip?: string }[]).map((i) => i.ip).filter(Boolean);
  if (!ingress.includes(address)) {
    return `MetalLB has not assigned ${address} to the Service ${service.namespace}/${service.name} (its load-balancer addresses: ${ingress.join(', ') || 'none'}) yet`;
  }
  const pools = (await client.get(`/apis/metallb.io/v1beta1/namespaces/${metallbNamespace}/ipaddresspools`)).body?.items ?? [];
  const ads = (await client.get(`/apis/metallb.io/v1beta1/namespaces/${metallbNamespace}/l2advertisements`)).body?.items ?? [];
  const poolOf = (svc.body.metadata?.annotations?.['metallb.io/ip-allocated-from-pool'] as string | undefined) ?? undefined;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- an unstructured Kubernetes object read by path, as the controller reads it
  const holding = (pools as any[]).filter((p) => (poolOf ? p.metadata.name === poolOf : true)).map((p) => p.metadata.name as string);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- an unstructured Kubernetes object read by path, as the controller reads it
  const announced = (ads as any[]).some((a) => {
    const names = (a.spec?.ipAddressPools ?? []) as string[];
    const selectors = (a.spec?.ipAddressPoolSelectors ?? []) as unknown[];
    // speaker: an advertisement with neither names nor selectors announces every pool.
    return (names.length === 0 && selectors.length === 0) || names.some((n) => holding.includes(n));
  });
  if (!announced)
    return `no L2Advertisement in ${metallbNamespace} announces the pool ${poolOf ?? '(unknown)'} that ${address} comes from (nothing answers ARP for it) yet`;
  return undefined;
}
