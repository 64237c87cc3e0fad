/**
 * SIMULATED in the lab twin: the management stack's providers-ready Job
 * (constructs/capi-providers-ready-job.ts) and the part of the cluster-api-operator it waits for.
 *
 * - The operator (not run: its chart is a Helm release) is played by its outcome only: one provider
 *   object per provider of the operator release's values (kind from modules/versions/providers.ts,
 *   name and namespace from the values), with `status.installedVersion` set ONLY when the twin runs
 *   or plays that provider at that very version (the real controllers it started; Kamaji's provider
 *   and CAAPH at their pinned versions, which it plays) — a provider version the twin does not run is never
 *   reported installed.
 * - The Job's ServiceAccount, ClusterRole and ClusterRoleBinding are applied as the stack renders
 *   them (the kubernetes_*_v1 resources, converted to their API objects), and the Job's pod is run
 *   as rendered (jobs.ts): each container's `kubectl wait --for=jsonpath=...` with a token of that
 *   ServiceAccount, so the ClusterRole decides. A failed run fails the management apply, as the
 *   Job resource (`wait_for_completion`) fails `tofu apply`.
 */
import type { KubeClient, KubeObject } from '../scripts/lib/kube-apiserver';
import { capiProviders } from '../modules/versions/providers';
import { pinnedVersions } from '../modules/versions/pins';
import { runPod, type PodRun } from './jobs';
import type { StackContents } from './stack-objects';

/** An unstructured object (what the twin reads by path); one reasoned `any`, kept on its own line so formatting cannot move it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an unstructured Kubernetes object read by path, as the controller reads it
type Unstructured = Record<string, any>;

const OPERATOR_API = 'operator.cluster.x-k8s.io/v1alpha2';

/** snake_case → camelCase, one level of a kubernetes provider block. */
export const camel = (k: string) => k.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());

/** A kubernetes_*_v1 block (lists of one for nested blocks, snake_case) as the API object's JSON. */
export function fromBlock(value: unknown, rename: Record<string, string> = {}): unknown {
  if (Array.isArray(value)) return value.map((v) => fromBlock(v, rename));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>)
      .filter(([k]) => k !== '//' && k !== 'provider' && k !== 'depends_on' && k !== 'wait_for_completion' && k !== 'timeouts')
      .map(([k, v]) => {
        const key = rename[k] ?? camel(k);
        // Keys inside labels, annotations and env values stay as written.
        if (k === 'labels' || k === 'annotations' || k === 'match_labels') return [key, v];
        return [key, fromBlock(v, rename)];
      }),
  );
}

/** The stack's `${type.name.metadata[0].name}` references, resolved from the stack itself. */
export function resolveRefs(text: string, stack: StackContents): string {
  return text.replace(/\$\{(kubernetes_[a-z0-9_]+)\.([^.}]+)\.metadata\[0\]\.name\}/g, (whole, type: string, name: string) => {
    const found = stack.config.resource?.[type]?.[name]?.metadata?.name;
    if (!found) throw new Error(`${stack.stack}: cannot resolve ${whole}`);
    return String(found);
  });
}

export interface ProvidersReadyJob {
  objects: KubeObject[];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- an unstructured Kubernetes object read by path, as the controller reads it
  job: { name: string; namespace: string; pod: any };
}

/** The Job and its RBAC as the management stack renders them. */
export function providersReadyJob(stack: StackContents): ProvidersReadyJob | undefined {
  const res = stack.config.resource ?? {};
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a synthesized cdk.tf.json block: untyped JSON read by path, as tofu reads it
  const jobs = Object.values((res.kubernetes_job_v1 ?? {}) as Record<string, any>).filter((j) =>
    String(j.metadata?.name).startsWith('pvekaas-capi-providers-ready'),
  );
  if (jobs.length === 0) return undefined;
  const convert = (type: string, apiVersion: string, kind: string, rename: Record<string, string> = {}) =>
    Object.values((res[type] ?? {}) as Record<string, unknown>).map(
      (block) => ({ apiVersion, kind, ...(JSON.parse(resolveRefs(JSON.stringify(fromBlock(block, rename)), stack)) as object) }) as KubeObject,
    );
  const objects = [
    ...convert('kubernetes_service_account_v1', 'v1', 'ServiceAccount'),
    ...convert('kubernetes_cluster_role_v1', 'rbac.authorization.k8s.io/v1', 'ClusterRole', { rule: 'rules' }),
    ...convert('kubernetes_cluster_role_binding_v1', 'rbac.authorization.k8s.io/v1', 'ClusterRoleBinding', { subject: 'subjects' }),
  ];
  const job = JSON.parse(
    resolveRefs(
      JSON.stringify(fromBlock(jobs[0], { container: 'containers', init_container: 'initContainers', volume: 'volumes', volume_mount: 'volumeMounts' })),
      stack,
    ),
  ) as Unstructured;
  return { objects, job: { name: job.metadata.name, namespace: job.metadata.namespace, pod: job.spec.template.spec } };
}

/** The operator's provider objects from its release values, installed only where the twin runs that version. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Helm chart values: free-form YAML read by path, as the chart reads it
export function operatorProviders(operatorValues: Record<string, any>, running: Record<string, string>): KubeObject[] {
  const out: KubeObject[] = [];
  for (const p of capiProviders) {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- Helm chart values: free-form YAML read by path, as the chart reads it
    for (const [name, spec] of Object.entries((operatorValues[p.kind] ?? {}) as Record<string, any>)) {
      const version = String(spec.version);
      const installed = running[`${p.kind}/${name}`] === version;
      out.push({
        apiVersion: OPERATOR_API,
        kind: p.operatorKind,
        metadata: { name, namespace: spec.namespace },
        spec: { version },
        ...(installed ? { status: { installedVersion: version } } : {}),
      } as KubeObject);
    }
  }
  return out;
}

/** What the twin runs or plays, by `<values section>/<provider name>`: the version. */
export function twinProviders(deployed: Record<string, { version: string }>): Record<string, string> {
  const keys: Record<string, string> = {
    'capi-manager': 'core/cluster-api',
    'kubeadm-bootstrap-manager': 'bootstrap/kubeadm',
    'capmox-manager': 'infrastructure/proxmox',
    'ipam-manager': 'ipam/in-cluster',
  };
  const out: Record<string, string> = {};
  for (const [controller, d] of Object.entries(deployed)) if (keys[controller]) out[keys[controller]] = d.version;
  // Played (kamaji/, caaph.ts), from their source at these versions.
  out['controlPlane/kamaji'] = pinnedVersions.kamajiProvider;
  out['addon/helm'] = pinnedVersions.helmAddon;
  return out;
}

/** Plays the operator's provider objects: spec.version from the release values, status.installedVersion where the twin runs that version. */
export async function playOperatorProviders(mgmt: KubeClient, operatorValues: Unstructured, running: Record<string, string>): Promise<void> {
  for (const o of operatorProviders(operatorValues, running)) {
    const { status, ...object } = o as KubeObject & { status?: Record<string, unknown> };
    const r = await mgmt.apply(object, { fieldManager: 'pvekaas-twin-operator', force: true });
    if (r.status !== 200 && r.status !== 201)
      throw new Error(`operator provider ${o.kind} ${o.metadata.namespace}/${o.metadata.name}: HTTP ${r.status}: ${r.body?.message ?? r.text}`);
    const path = await mgmt.objectPath(object);
    const s = await mgmt.request('PATCH', `${path}/status`, { status: status ?? { installedVersion: null } }, 'application/merge-patch+json');
    if (s.status !== 200) throw new Error(`operator provider status ${o.metadata.name}: HTTP ${s.status}: ${s.body?.message ?? s.text}`);
  }
}

/** Plays the operator's provider objects, applies the Job's RBAC, runs the Job's pod. */
export async function runProvidersReady(
  mgmt: KubeClient,
  adminKubeconfig: string,
  root: string,
  stack: StackContents,
  operatorValues: Unstructured,
  running: Record<string, string>,
): Promise<PodRun | undefined> {
  const rendered = providersReadyJob(stack);
  if (!rendered) return undefined;
  await playOperatorProviders(mgmt, operatorValues, running);
  for (const o of rendered.objects) await mgmt.applyOrThrow(o, { fieldManager: 'Terraform', force: true });
  // The authorizer reads RBAC from its informer: let the binding arrive before the pod starts.
  await new Promise((r) => setTimeout(r, 1000));
  return runPod(mgmt, adminKubeconfig, root, rendered.job.namespace, rendered.job.pod, 60000);
}
