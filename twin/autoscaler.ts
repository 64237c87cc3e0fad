/**
 * SIMULATED in the lab twin: each tenant's cluster-autoscaler release (chart `cluster-autoscaler`
 * of kubernetes/autoscaler at the pinned version, tag `cluster-autoscaler-chart-<autoscalerChart.version>`), its clusterapi cloud
 * provider at the image the tenant stack pins for the tenant's minor: v1.36.1 for Kubernetes 1.36
 * (tag `cluster-autoscaler-1.36.1`), v1.35.2 for 1.35 (tag `cluster-autoscaler-1.35.2`) and v1.34.5
 * for 1.34 (tag `cluster-autoscaler-1.34.5`), paths under `cluster-autoscaler/`. Only those images are
 * played (a release pinning another tag, 1.33 and older, is
 * reported, not played: the provider changed between minors, e.g. 1.30.3 updates the scale
 * subresource and cannot read a v1beta2 `infrastructureRef`). The rules below are those of both
 * unless marked; what 1.35.2 changed in `cloudprovider/clusterapi/` (git diff of the two tags) and
 * the player follows: the infrastructure template's version found by kind
 * (getKindPreferredVersion), the template node's arch/os labels from the template's
 * `status.nodeInfo` (InstanceSystemInfo), and no scale-down of a Node whose MachineDeployment is
 * rolling out (ScaleDownNodeUpgradeProcessor). Not followed, stated: the CSI driver capacity
 * annotation `capacity.cluster-autoscaler.kubernetes.io/csi-driver` (InstanceCSINode, the
 * template's CSINode for volume limits: the fit check models no volumes) and the per-group
 * `maxnodestartuptime` option (no node start-up timeouts are modelled). What 1.36.1 changed in
 * `cloudprovider/clusterapi/` (git diff cluster-autoscaler-1.35.2 cluster-autoscaler-1.36.1) and the
 * player follows: a MachineDeployment/MachinePool/MachineSet annotated `cluster.x-k8s.io/paused` is
 * no node group and its Nodes are in none (isScalableResourceAndPaused), and the template node's
 * taints are `spec.template.spec.taints` with the taints annotation over them (Taints); the rest of
 * that diff is renames (apiv1 → corev1), messages and the provider's builder registration. In the
 * core paths cited below, 1.36.1's changes are behind flags off by default and not passed by the
 * chart (`--salvo-scale-up`, `--fastpath-binpacking-enabled`, `--capacity-quotas-enabled`,
 * `config/flags/flags.go`), the scale-down minimum-limits check rewritten onto a quota tracker
 * (`unneeded/nodes.go`; no resource limits are set, so nothing is skipped either way), and a
 * drainability rule for pods annotated safe-to-evict on completion (`rules/oncompletion`; not
 * modelled, the pods of the tests carry no such annotation); `core/scaleup/orchestrator` is
 * restructured onto that quota tracker and its skipped-group simulation is behind
 * `--scaleup-simulation-for-skipped-node-groups-enabled` (off). The module `k8s.io/autoscaler/cluster-autoscaler` is not served by
 * the Go module proxy and there is no container runtime, so it is played from its source, each
 * rule cited below; what it reads and writes goes through the API servers for real:
 *
 * - the release as Helm would install it, from the values the tenant stack renders: the chart's
 *   ServiceAccount, namespaced Role (with `rbac.additionalRules`) and RoleBinding
 *   (`templates/serviceaccount.yaml`, `role.yaml`, `rolebinding.yaml`, names from `_helpers.tpl`),
 *   applied once per values change with the admin's credentials (Helm's); the container's flags as
 *   `templates/deployment.yaml` renders them (`--node-group-auto-discovery=clusterapi:…` from
 *   `autoDiscovery` through `cluster-autoscaler.capiAutodiscoveryConfig`, `--kubeconfig` for
 *   `clusterAPIMode: kubeconfig-incluster`, `extraArgs` as `--key=value`);
 * - the management cluster with a TokenRequest token of that ServiceAccount only, so the rendered
 *   Role decides: the informers of `clusterapi_controller.go` newMachineController (machinesets,
 *   machinedeployments, machinepools, machines, filtered to `namespaceToWatch`), the infrastructure
 *   template informer of `getInfrastructureResource`, the scale subresource of
 *   `clusterapi_unstructured.go` SetSize (a merge PATCH of `spec.replicas`), the Machine GET and UPDATE of
 *   MarkMachineForDeletion. A list the Role forbids never syncs its informer: upstream waits
 *   forever (WaitForCacheSync), the player does nothing and reports why (`failures`);
 * - the workload cluster through the kubeconfig in the Secret `clusterAPIKubeconfigSecret` (key
 *   `value`, mounted at `/etc/kubernetes/value` by the chart), as the pod would.
 *
 * Node groups (`clusterapi_nodegroup.go` newNodeGroupFromScalableResource, `clusterapi_utils.go`
 * parseScalingBounds, `clusterapi_autodiscovery.go`; `readInfrastructureReferenceResource` reads a
 * v1beta2 `infrastructureRef` by its `apiGroup`, at the group's preferred version in 1.34.5 and at the
 * first version serving its kind in 1.35.2 and 1.36.1): a MachineDeployment (or a MachineSet without
 * one) allowed by a discovery spec (namespace, cluster name from `spec.clusterName`, labels); a
 * missing min annotation is 0, a missing max is 0 and such a group is skipped; at 0 replicas a group
 * counts only if it can scale from zero: its capacity (annotations `capacity.cluster-autoscaler.
 * kubernetes.io/{cpu,memory,ephemeral-disk,maxPods,labels,taints}`, over the infrastructure
 * template's `status.capacity`) has cpu and memory (InstanceCapacity, CanScaleFromZero). Its
 * template node (TemplateNodeInfo, buildTemplateLabels): that capacity (pods 110 when unset),
 * generic labels (`kubernetes.io/os=linux`, `kubernetes.io/arch=amd64`, hostname), in 1.35.2 and 1.36.1 over
 * them the template's `status.nodeInfo` architecture and operatingSystem, then the labels
 * annotation; a group with a registered Node uses that Node instead (core/utils GetNodeInfosForGroups).
 *
 * Scale-up (core/static_autoscaler.go RunOnce, core/scaleup/orchestrator): Pods the REAL
 * kube-scheduler marked `PodScheduled=False`/`Unschedulable`; those that fit on upcoming nodes
 * (replicas not yet registered as Nodes) are taken off first; then per node group the binpacking
 * estimator (`estimator/binpacking_estimator.go` Estimate, tryToScheduleOnNewNodes; pods in
 * decreasing order of `decreasing_pod_orderer.go`'s score): try the last new node, else add a
 * template node while the group has room below its max, and stop at a pod that does not fit on an
 * empty one; the option is the count of new nodes holding pods; expander `random` (main.go's
 * default; the chart passes none); IncreaseSize → SetSize(replicas + n), refused above max.
 *
 * Scale-down (core/scaledown), in every loop, the one of a scale-up too (RunOnce goes on to it): a
 * Ready Node of a group is unneeded when its utilization (the larger of the cpu and memory requests
 * of the snapshot's pods on it — bound ones and pending ones filter_out_schedulable placed there —
 * over allocatable; DaemonSet and mirror pods count unless `--ignore-daemonsets-utilization` /
 * `--ignore-mirror-pods-utilization`, `simulator/utilization/info.go`) is below
 * `--scale-down-utilization-threshold` (0.5) and each of its pods is replicated (a pod no
 * controller owns blocks, drainability rule NotReplicated) and fits on another Node; it stays
 * unneeded from the loop's currentTime it was first found so (`unneeded/nodes.go`). Deletion waits
 * out the cooldown (isScaleDownInCooldown: `--scale-down-delay-after-add`, default 10m, after a
 * scale-up; `--scale-down-delay-after-delete`, default 0, after a deletion) while the tracking goes
 * on; unneeded for `--scale-down-unneeded-time` (default 10m) a Node is deleted (in 1.35.2 and 1.36.1 not while its
 * MachineDeployment rolls out: an older MachineSet still has replicas) (DeleteNodes: the node tainted
 * `ToBeDeletedByClusterAutoscaler`, MarkMachineForDeletion, SetSize(replicas - 1)), never below min.
 *
 * Deviations, stated: the fit check of the simulation is the resource, nodeSelector and taint
 * predicates only (upstream runs the scheduler framework's plugins; affinity and topology spread are
 * not modelled — the pods of the tests use neither); leader election and the status ConfigMap are
 * not written; loops run every `--scan-interval` (default 10s) from the twin's tick.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load as loadYaml } from 'js-yaml';
import { KubeClient } from '../scripts/lib/kube-apiserver';
import { autoscalerImageTags } from '../modules/versions/cni';
import { readStack } from './stack-objects';

/** A tenant's cluster-autoscaler release as its stack renders it. */
export interface AutoscalerRelease {
  stack: string;
  name: string;
  namespace: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- Helm chart values: free-form YAML read by path, as the chart reads it
  values: Record<string, any>;
}

/** Every `cluster-autoscaler` helm_release of the tenant stacks in `out`. */
export function tenantAutoscalerReleases(out: string): AutoscalerRelease[] {
  const dir = join(out, 'stacks');
  const found: AutoscalerRelease[] = [];
  for (const stack of readdirSync(dir)
    .filter((s) => s.startsWith('tenant-'))
    .sort()) {
    const config = readStack(out, stack).config;
    for (const r of Object.values(
      (config.resource?.helm_release ?? {}) as Record<string, { name: string; namespace: string; chart: string; values?: string[] }>,
    )) {
      if (r.chart !== 'cluster-autoscaler') continue;
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- Helm chart values: free-form YAML read by path, as the chart reads it
      const values = Object.assign({}, ...(r.values ?? []).map((v) => (loadYaml(v) ?? {}) as Record<string, any>));
      found.push({ stack, name: r.name, namespace: r.namespace, values });
    }
  }
  return found;
}

// ---- the chart (pinned version), played -------------------------------------------------------------

/** `_helpers.tpl` cluster-autoscaler.fullname. */
export function chartFullname(release: AutoscalerRelease): string {
  const v = release.values;
  if (v.fullnameOverride) return String(v.fullnameOverride).slice(0, 63).replace(/-+$/, '');
  const name = v.nameOverride ?? `${v.cloudProvider ?? 'aws'}-cluster-autoscaler`;
  return (name === release.name ? name : `${release.name}-${name}`).slice(0, 63).replace(/-+$/, '');
}

function rbacValues(release: AutoscalerRelease) {
  const rbac = release.values.rbac ?? {};
  const sa = rbac.serviceAccount ?? {};
  return {
    create: rbac.create ?? true,
    clusterScoped: rbac.clusterScoped ?? true,
    additionalRules: (rbac.additionalRules ?? []) as Record<string, unknown>[],
    saCreate: sa.create ?? true,
    saName: sa.name as string | undefined,
    automount: sa.automountServiceAccountToken ?? true,
  };
}

/** `_helpers.tpl` cluster-autoscaler.serviceAccountName. */
export function chartServiceAccountName(release: AutoscalerRelease): string {
  const r = rbacValues(release);
  return r.saCreate ? r.saName || chartFullname(release) : r.saName || 'default';
}

/** The objects of `serviceaccount.yaml`, `role.yaml`, `rolebinding.yaml` for these values (namespaced mode). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an unstructured Kubernetes object read by path, as the controller reads it
export function chartRbacObjects(release: AutoscalerRelease): Record<string, any>[] {
  const v = release.values;
  const r = rbacValues(release);
  if (!r.create) return [];
  const name = chartFullname(release);
  const ns = release.namespace;
  const extraArgs = (v.extraArgs ?? {}) as Record<string, unknown>;
  const priority = String(extraArgs.expander ?? '')
    .split(',')
    .includes('priority');
  const rules: Record<string, unknown>[] = [
    { apiGroups: [''], resources: ['configmaps'], verbs: ['create', ...(priority ? ['list', 'watch'] : [])] },
    {
      apiGroups: [''],
      resources: ['configmaps'],
      resourceNames: ['cluster-autoscaler-status', ...(priority ? ['cluster-autoscaler-priority-expander'] : [])],
      verbs: ['delete', 'get', 'update', ...(priority ? ['watch'] : [])],
    },
  ];
  if (extraArgs['leader-elect-resource-lock'] === 'configmaps')
    rules.push({ apiGroups: [''], resources: ['configmaps'], resourceNames: ['cluster-autoscaler'], verbs: ['get', 'update'] });
  const mode = v.clusterAPIMode ?? 'incluster-incluster';
  if (v.cloudProvider === 'clusterapi' && !r.clusterScoped && (mode === 'incluster-incluster' || mode === 'kubeconfig-incluster')) {
    rules.push({
      apiGroups: ['cluster.x-k8s.io'],
      resources: ['machinedeployments', 'machinepools', 'machines', 'machinesets'],
      verbs: ['get', 'list', 'update', 'watch'],
    });
    rules.push({ apiGroups: ['cluster.x-k8s.io'], resources: ['machinedeployments/scale', 'machinepools/scale'], verbs: ['get', 'patch', 'update'] });
  }
  if (!r.clusterScoped) {
    rules.push({ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] });
    rules.push({ apiGroups: ['coordination.k8s.io'], resourceNames: ['cluster-autoscaler'], resources: ['leases'], verbs: ['get', 'update'] });
  }
  rules.push(...r.additionalRules);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- an unstructured Kubernetes object read by path, as the controller reads it
  const objects: Record<string, any>[] = [];
  if (r.saCreate)
    objects.push({
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: chartServiceAccountName(release), namespace: ns },
      automountServiceAccountToken: r.automount,
    });
  // The ClusterRole and ClusterRoleBinding of clusterScoped mode are not played: pvekaas renders namespaced mode.
  if (r.clusterScoped) throw new Error(`${release.stack}: the twin plays the chart's namespaced RBAC only (rbac.clusterScoped: false)`);
  objects.push({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name, namespace: ns }, rules });
  objects.push({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name, namespace: ns },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
    subjects: [{ kind: 'ServiceAccount', name: chartServiceAccountName(release), namespace: ns }],
  });
  return objects;
}

/** The container command of `deployment.yaml` for the clusterapi provider, or undefined when the chart renders no Deployment. */
export function chartArgs(release: AutoscalerRelease): string[] | undefined {
  const v = release.values;
  const ad = (v.autoDiscovery ?? {}) as { clusterName?: string; namespace?: string; labels?: Record<string, string>[] };
  if (!(ad.clusterName || ad.namespace || (ad.labels && ad.labels.length) || v.autoscalingGroups)) return undefined;
  const mode = v.clusterAPIMode ?? 'incluster-incluster';
  const args = [`--cloud-provider=${v.cloudProvider}`];
  args.push(
    v.cloudProvider === 'clusterapi' && mode === 'kubeconfig-incluster'
      ? `--namespace=${v.clusterAPIConfigMapsNamespace || 'kube-system'}`
      : `--namespace=${release.namespace}`,
  );
  if (v.cloudProvider === 'clusterapi') {
    // _helpers.tpl capiAutodiscoveryConfig: clusterName=…[,namespace=…][,labels…]
    const labels = (ad.labels ?? [])
      .map((l) =>
        Object.entries(l)
          .map(([k, x]) => `${k}=${x}`)
          .join(','),
      )
      .join(',');
    const parts = [ad.clusterName ? `clusterName=${ad.clusterName}` : '', ad.namespace ? `namespace=${ad.namespace}` : '', labels].filter(Boolean);
    if (ad.clusterName || ad.namespace || labels) args.push(`--node-group-auto-discovery=clusterapi:${parts.join(',')}`);
    if (mode === 'incluster-kubeconfig') args.push(`--cloud-config=${v.clusterAPICloudConfigPath ?? '/etc/kubernetes/mgmt-kubeconfig'}`);
    else if (mode === 'kubeconfig-incluster')
      args.push(`--kubeconfig=${v.clusterAPIWorkloadKubeconfigPath ?? '/etc/kubernetes/value'}`, '--clusterapi-cloud-config-authoritative');
    else if (mode !== 'incluster-incluster') throw new Error(`${release.stack}: clusterAPIMode ${mode} is not played by the twin`);
  }
  const extraArgs = { logtostderr: true, stderrthreshold: 'info', v: 4, ...(v.extraArgs ?? {}) } as Record<string, unknown>;
  for (const [k, x] of Object.entries(extraArgs)) args.push(`--${k}=${x}`);
  return args;
}

// ---- the clusterapi provider (1.34.5, 1.35.2, 1.36.1), played ----------------------------------------------

interface DiscoverySpec {
  clusterName: string;
  namespace: string;
  labels: Record<string, string>;
}

/** `clusterapi_autodiscovery.go` parseAutoDiscoverySpec. */
export function parseAutoDiscoverySpec(spec: string): DiscoverySpec {
  const tokens = spec.split(':');
  if (tokens.length !== 2) throw new Error(`spec "${spec}" should be discoverer:key=value,key=value`);
  if (tokens[0] !== 'clusterapi') throw new Error(`unsupported discoverer specified: ${tokens[0]}`);
  const cfg: DiscoverySpec = { clusterName: '', namespace: '', labels: {} };
  for (const arg of tokens[1].split(',')) {
    if (!arg) continue;
    const kv = arg.split('=');
    if (kv.length !== 2) throw new Error(`invalid key=value pair [${kv.join(' ')}]`);
    if (kv[0] === 'clusterName') cfg.clusterName = kv[1];
    else if (kv[0] === 'namespace') cfg.namespace = kv[1];
    else cfg.labels[kv[0]] = kv[1];
  }
  return cfg;
}

/** Go's time.ParseDuration for the units the flags use. */
export function goDuration(text: string): number {
  let ms = 0;
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/g;
  let m: RegExpExecArray | null;
  let consumed = '';
  while ((m = re.exec(text))) {
    ms += Number(m[1]) * { ms: 1, s: 1000, m: 60000, h: 3600000 }[m[2] as 'ms' | 's' | 'm' | 'h'];
    consumed += m[0];
  }
  if (!text || consumed !== text) throw new Error(`time: invalid duration "${text}"`);
  return ms;
}

const ANN_MIN = 'cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size';
const ANN_MAX = 'cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size';
const CAP = 'capacity.cluster-autoscaler.kubernetes.io';
const DELETE_MACHINE = 'cluster.x-k8s.io/delete-machine';
const TO_BE_DELETED = 'ToBeDeletedByClusterAutoscaler';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an unstructured Kubernetes object read by path, as the controller reads it
type Obj = Record<string, any>;
type Resources = { cpu: number; memory: number; pods: number };

/** A Kubernetes quantity as a number (cpu in cores, memory in bytes). */
export function quantity(q: unknown): number {
  if (q === undefined || q === null || q === '') return 0;
  const s = String(q);
  const m = /^(\d+(?:\.\d+)?)(m|k|Ki|M|Mi|G|Gi|T|Ti)?$/.exec(s);
  if (!m) throw new Error(`quantities must match the regular expression: ${s}`);
  const mult: Record<string, number> = { '': 1, m: 0.001, k: 1e3, Ki: 1024, M: 1e6, Mi: 1024 ** 2, G: 1e9, Gi: 1024 ** 3, T: 1e12, Ti: 1024 ** 4 };
  return Number(m[1]) * mult[m[2] ?? ''];
}

function podRequests(pod: Obj): Resources {
  const sum = { cpu: 0, memory: 0, pods: 1 };
  for (const c of pod.spec?.containers ?? []) {
    sum.cpu += quantity(c.resources?.requests?.cpu);
    sum.memory += quantity(c.resources?.requests?.memory);
  }
  return sum;
}

interface SimNode {
  name: string;
  labels: Record<string, string>;
  taints: { key: string; value?: string; effect: string }[];
  allocatable: Resources;
  used: Resources;
}

/** The predicates the simulation checks (resources, nodeSelector, taints). */
function fits(pod: Obj, node: SimNode): boolean {
  const r = podRequests(pod);
  if (
    node.used.cpu + r.cpu > node.allocatable.cpu + 1e-9 ||
    node.used.memory + r.memory > node.allocatable.memory ||
    node.used.pods + 1 > node.allocatable.pods
  )
    return false;
  for (const [k, v] of Object.entries((pod.spec?.nodeSelector ?? {}) as Record<string, string>)) if (node.labels[k] !== v) return false;
  const tolerations = (pod.spec?.tolerations ?? []) as { key?: string; operator?: string; value?: string; effect?: string }[];
  for (const t of node.taints) {
    if (t.effect !== 'NoSchedule' && t.effect !== 'NoExecute') continue;
    const tolerated = tolerations.some(
      (x) =>
        (x.effect === undefined || x.effect === '' || x.effect === t.effect) &&
        (x.operator === 'Exists' ? x.key === undefined || x.key === t.key : x.key === t.key && (x.value ?? '') === (t.value ?? '')),
    );
    if (!tolerated) return false;
  }
  return true;
}

function place(pod: Obj, node: SimNode): void {
  const r = podRequests(pod);
  node.used = { cpu: node.used.cpu + r.cpu, memory: node.used.memory + r.memory, pods: node.used.pods + 1 };
}

interface NodeGroup {
  kind: string;
  resource: string;
  name: string;
  namespace: string;
  replicas: number;
  min: number;
  max: number;
  object: Obj;
  /** Machines of the group (by the group's selector). */
  machines: Obj[];
  template?: () => SimNode;
}

export interface AutoscalerEvent {
  at: number;
  namespace: string;
  group: string;
  kind: 'ScaleUp' | 'ScaleDown';
  from: number;
  to: number;
  pods?: string[];
  nodes?: string[];
  /** ScaleDown: when each deleted Node was first found unneeded (the loop's currentTime). */
  unneededSince?: Record<string, number>;
}

/** A client for the first cluster and user of a kubeconfig (YAML or JSON). */
export function clientFromKubeconfig(text: string): KubeClient {
  const kc = loadYaml(text) as Obj;
  const ctxName = kc['current-context'];
  const ctx = (kc.contexts ?? []).find((c: Obj) => c.name === ctxName)?.context ?? kc.contexts?.[0]?.context ?? {};
  const cluster = ((kc.clusters ?? []).find((c: Obj) => c.name === ctx.cluster) ?? kc.clusters?.[0])?.cluster ?? {};
  const user = ((kc.users ?? []).find((u: Obj) => u.name === ctx.user) ?? kc.users?.[0])?.user ?? {};
  const b64 = (x?: string) => (x ? Buffer.from(x, 'base64').toString('utf8') : undefined);
  if (!cluster.server) throw new Error('the kubeconfig names no server');
  return new KubeClient(
    cluster.server,
    { ca: b64(cluster['certificate-authority-data']), cert: b64(user['client-certificate-data']), key: b64(user['client-key-data']) },
    user.token,
  );
}

interface ReleaseState {
  valuesKey: string;
  installed: boolean;
  lastLoop: number;
  /** The start of the last loop that ran to its end (a loop's `currentTime`). */
  lastCompleted: number;
  lastScaleUp: number;
  lastScaleDown: number;
  unneededSince: Map<string, number>;
  failure?: string;
}

const DEFAULT_SCAN_MS = 10000;
/**
 * The images whose clusterapi provider is played, by the provider release whose rules apply: the
 * tags pvekaas pins for Kubernetes 1.34 (v1.34.5), 1.35 (v1.35.2) and 1.36 (v1.36.1) (`autoscalerImageTags`).
 */
export type PlayedProvider = '1.34.5' | '1.35.2' | '1.36.1';
export const PLAYED_PROVIDERS: ReadonlyMap<string, PlayedProvider> = new Map([
  [autoscalerImageTags['1.34'], '1.34.5'],
  [autoscalerImageTags['1.35'], '1.35.2'],
  [autoscalerImageTags['1.36'], '1.36.1'],
]);

/**
 * The rules 1.35.2 brought in (kind-preferred version, `status.nodeInfo`, no scale-down while
 * rolling out), kept by 1.36.1 (git diff of the tags: unchanged).
 */
export function since135(provider: PlayedProvider): boolean {
  return provider !== '1.34.5';
}

const PAUSED = 'cluster.x-k8s.io/paused';

/**
 * 1.36.1 `clusterapi_unstructured.go` isScalableResourceAndPaused, applied by `clusterapi_controller.go`
 * nodeGroups (a paused MachineDeployment, MachinePool or MachineSet is no node group) and
 * nodeGroupForNode (its Nodes belong to no group, so they are never scaled down). 1.34.5 and 1.35.2
 * have no such check: a paused group is scaled like any other.
 */
export function isScalableResourceAndPaused(provider: PlayedProvider, r: Obj): boolean {
  if (provider !== '1.36.1') return false;
  return ['MachineDeployment', 'MachinePool', 'MachineSet'].includes(r.kind) && PAUSED in ((r.metadata?.annotations ?? {}) as Record<string, string>);
}

/**
 * The template node's taints (`clusterapi_nodegroup.go` TemplateNodeInfo: `node.Spec.Taints =
 * scalableResource.Taints()`). 1.34.5 and 1.35.2 `clusterapi_unstructured.go` Taints: the taints
 * capacity annotation alone. 1.36.1 Taints: first `spec.template.spec.taints` (key, value, effect),
 * then each annotation taint replaces a spec taint of the same key and effect, or is appended.
 */
export function templateTaints(provider: PlayedProvider, r: Obj): { key: string; value?: string; effect: string }[] {
  const fromAnn = parseTaints((r.metadata?.annotations ?? {})[`${CAP}/taints`]);
  if (provider !== '1.36.1') return fromAnn;
  const all: { key: string; value?: string; effect: string }[] = [];
  for (const t of (r.spec?.template?.spec?.taints ?? []) as Obj[]) {
    if (!t || typeof t !== 'object') continue;
    all.push({
      key: typeof t.key === 'string' ? t.key : '',
      ...(typeof t.value === 'string' ? { value: t.value } : {}),
      effect: typeof t.effect === 'string' ? t.effect : '',
    });
  }
  for (const t of fromAnn) {
    const i = all.findIndex((e) => e.key === t.key && e.effect === t.effect);
    if (i >= 0) all[i] = t;
    else all.push(t);
  }
  return all;
}

export class AutoscalerPlayer {
  readonly events: AutoscalerEvent[] = [];
  private readonly state = new Map<string, ReleaseState>();

  constructor(
    private readonly mgmt: KubeClient,
    private readonly mgmtUrl: string,
    private readonly mgmtCa: string,
    private readonly releases: () => AutoscalerRelease[],
    private readonly log: (line: string) => void = () => {},
  ) {}

  /** The start (currentTime) of the last loop of a release's autoscaler that ran to its end; 0 before one. */
  lastCompletedLoop(namespace: string): number {
    return this.state.get(namespace)?.lastCompleted ?? 0;
  }

  /** Releases whose autoscaler cannot work, with upstream's reason (a Forbidden list, a bad flag). */
  failures(): Map<string, string> {
    return new Map([...this.state].filter(([, s]) => s.failure).map(([ns, s]) => [ns, s.failure as string]));
  }

  async tick(): Promise<void> {
    for (const release of this.releases()) {
      const key = release.namespace;
      const valuesKey = JSON.stringify(release.values);
      let st = this.state.get(key);
      if (!st || st.valuesKey !== valuesKey) {
        st = { valuesKey, installed: false, lastLoop: 0, lastCompleted: 0, lastScaleUp: 0, lastScaleDown: 0, unneededSince: new Map() };
        this.state.set(key, st);
      }
      if (!st.installed) {
        // helm install/upgrade: the chart's RBAC objects, with Helm's (admin) credentials.
        for (const o of chartRbacObjects(release)) {
          const path =
            o.kind === 'ServiceAccount'
              ? `/api/v1/namespaces/${o.metadata.namespace}/serviceaccounts/${o.metadata.name}`
              : `/apis/rbac.authorization.k8s.io/v1/namespaces/${o.metadata.namespace}/${o.kind.toLowerCase()}s/${o.metadata.name}`;
          const r = await this.mgmt.request('PATCH', `${path}?fieldManager=helm&force=true`, o, 'application/apply-patch+yaml');
          if (r.status !== 200 && r.status !== 201)
            throw new Error(`autoscaler ${key}: applying ${o.kind} ${o.metadata.name}: HTTP ${r.status}: ${r.body?.message ?? r.text}`);
        }
        st.installed = true;
        this.log(`autoscaler ${key}: release ${release.name} installed (ServiceAccount ${chartServiceAccountName(release)}, Role ${chartFullname(release)})`);
      }
      const args = chartArgs(release);
      if (!args) continue;
      const tag = release.values.image?.tag as string | undefined;
      const provider = tag === undefined ? undefined : PLAYED_PROVIDERS.get(tag);
      if (!provider) {
        st.failure = `the twin plays cluster-autoscaler ${[...PLAYED_PROVIDERS.keys()].join(' and ')} only; this release runs ${tag} (not played)`;
        continue;
      }
      const flags = new Map(args.map((a) => a.replace(/^--/, '').split(/=(.*)/s).slice(0, 2) as [string, string]));
      const scanMs = flags.has('scan-interval') ? goDuration(flags.get('scan-interval')!) : DEFAULT_SCAN_MS;
      if (Date.now() - st.lastLoop < scanMs) continue;
      st.lastLoop = Date.now();
      try {
        await this.runOnce(release, flags, st, provider);
        st.lastCompleted = st.lastLoop;
        if (st.failure) this.log(`autoscaler ${key}: working again`);
        st.failure = undefined;
      } catch (e) {
        const message = (e as Error).message;
        if (st.failure !== message) this.log(`autoscaler ${key}: ${message}`);
        st.failure = message;
      }
    }
  }

  private async runOnce(release: AutoscalerRelease, flags: Map<string, string>, st: ReleaseState, provider: PlayedProvider): Promise<void> {
    const ns = release.namespace;
    const specs = (flags.get('node-group-auto-discovery') ? [flags.get('node-group-auto-discovery')!] : []).map(parseAutoDiscoverySpec);
    const watchNs = specs.find((s) => s.namespace)?.namespace ?? '';
    // The pod's credentials: a token of its ServiceAccount (kubelet's projected token).
    const sa = chartServiceAccountName(release);
    const tr = await this.mgmt.post(`/api/v1/namespaces/${ns}/serviceaccounts/${sa}/token`, {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: { expirationSeconds: 600 },
    });
    if (tr.status !== 201 && tr.status !== 200) throw new Error(`no token for ServiceAccount ${ns}/${sa}: HTTP ${tr.status}: ${tr.body?.message ?? tr.text}`);
    const mgmt = new KubeClient(this.mgmtUrl, { ca: this.mgmtCa }, tr.body.status.token as string);
    // The workload kubeconfig: the Secret the chart mounts (the kubelet reads it, not the ServiceAccount).
    const secretName = release.values.clusterAPIKubeconfigSecret as string;
    const secret = await this.mgmt.get(`/api/v1/namespaces/${ns}/secrets/${secretName}`);
    if (secret.status !== 200) throw new Error(`the pod cannot start: secret "${secretName}" not found (volume cluster-api-kubeconfig)`);
    const kubeconfigText = Buffer.from((secret.body.data?.value as string | undefined) ?? '', 'base64').toString('utf8');
    if (!kubeconfigText) throw new Error(`secret ${secretName} has no key "value" (mounted at ${flags.get('kubeconfig')})`);
    const workload = clientFromKubeconfig(kubeconfigText);
    try {
      await this.loop(release, flags, st, provider, specs, watchNs, mgmt, workload);
    } finally {
      mgmt.close();
      workload.close();
    }
  }

  private async loop(
    release: AutoscalerRelease,
    flags: Map<string, string>,
    st: ReleaseState,
    provider: PlayedProvider,
    specs: DiscoverySpec[],
    watchNs: string,
    mgmt: KubeClient,
    workload: KubeClient,
  ): Promise<void> {
    const ns = release.namespace;
    // RunOnce's currentTime: the unneeded times and the cooldowns are measured from it.
    const now = st.lastLoop;
    // getAPIGroupPreferredVersion (discovery), then the informers of newMachineController.
    const groups = await mgmt.get('/apis');
    if (groups.status !== 200) throw new Error(`failed to get ServerGroups: HTTP ${groups.status}`);
    const capi = (groups.body.groups as Obj[]).find((g) => g.name === 'cluster.x-k8s.io');
    if (!capi) throw new Error('could not find preferred version for CAPI group "cluster.x-k8s.io"');
    const version = capi.preferredVersion.version as string;
    const resources = await mgmt.get(`/apis/cluster.x-k8s.io/${version}`);
    const served = new Set(((resources.body?.resources ?? []) as Obj[]).map((r) => r.name as string));
    const base = watchNs ? `/apis/cluster.x-k8s.io/${version}/namespaces/${watchNs}` : `/apis/cluster.x-k8s.io/${version}`;
    const list = async (resource: string): Promise<Obj[]> => {
      const r = await mgmt.get(`${base}/${resource}`);
      if (r.status !== 200)
        throw new Error(`informer for ${resource} never syncs (WaitForCacheSync): failed to list ${resource}: ${r.body?.message ?? `HTTP ${r.status}`}`);
      return r.body.items as Obj[];
    };
    const machineSets = await list('machinesets');
    const machineDeployments = served.has('machinedeployments') ? await list('machinedeployments') : [];
    if (served.has('machinepools')) await list('machinepools');
    const machines = await list('machines');

    // The workload cluster.
    const nodesR = await workload.get('/api/v1/nodes');
    if (nodesR.status !== 200) throw new Error(`listing Nodes of the workload cluster: HTTP ${nodesR.status}`);
    const podsR = await workload.get('/api/v1/pods');
    if (podsR.status !== 200) throw new Error(`listing Pods of the workload cluster: HTTP ${podsR.status}`);
    const nodes = nodesR.body.items as Obj[];
    const pods = podsR.body.items as Obj[];

    // Node groups.
    const clusterName = (r: Obj) => (r.spec?.clusterName as string | undefined) ?? r.metadata.labels?.['cluster.x-k8s.io/cluster-name'] ?? '';
    const allowed = (r: Obj) =>
      specs.length === 0 ||
      specs.some(
        (s) =>
          (!s.namespace || s.namespace === r.metadata.namespace) &&
          (!s.clusterName || s.clusterName === clusterName(r)) &&
          Object.entries(s.labels).every(([k, v]) => r.metadata.labels?.[k] === v),
      );
    const scalable = [
      ...machineSets.filter((m) => !(m.metadata.ownerReferences ?? []).some((o: Obj) => o.kind === 'MachineDeployment')),
      ...machineDeployments,
    ];
    const nodeGroups: NodeGroup[] = [];
    for (const r of scalable) {
      if (!allowed(r)) continue;
      if (isScalableResourceAndPaused(provider, r)) continue;
      const ann = (r.metadata.annotations ?? {}) as Record<string, string>;
      const min = ann[ANN_MIN] === undefined ? 0 : Number.parseInt(ann[ANN_MIN], 10);
      const max = ann[ANN_MAX] === undefined ? 0 : Number.parseInt(ann[ANN_MAX], 10);
      if (Number.isNaN(min) || min < 0 || Number.isNaN(max) || max < 0 || max < min)
        throw new Error(`error validating min/max annotations of ${r.kind} ${r.metadata.name}`);
      const selector = (r.spec?.selector?.matchLabels ?? {}) as Record<string, string>;
      const mine = machines.filter(
        (m) =>
          m.metadata.namespace === r.metadata.namespace &&
          clusterName(m) === clusterName(r) &&
          Object.entries(selector).every(([k, v]) => m.metadata.labels?.[k] === v),
      );
      const group: NodeGroup = {
        kind: r.kind,
        resource: r.kind === 'MachineSet' ? 'machinesets' : 'machinedeployments',
        name: r.metadata.name,
        namespace: r.metadata.namespace,
        replicas: r.spec?.replicas ?? 0,
        min,
        max,
        object: r,
        machines: mine,
      };
      const { capacity, systemInfo } = await this.instanceCapacity(mgmt, r, provider);
      const canScaleFromZero = capacity !== undefined && capacity.cpu > 0 && capacity.memory > 0;
      if (r.spec?.replicas === 0 && !canScaleFromZero) continue;
      if (max - min < 0 || max === 0) continue;
      if (canScaleFromZero) {
        // buildTemplateLabels: the generic labels, (1.35.2) the infrastructure template's
        // `status.nodeInfo` (`clusterapi_nodegroup.go`: set whenever the template was read, so an
        // empty nodeInfo gives empty arch and os labels), then the labels capacity annotation.
        const nsiLabels = systemInfo ? { 'kubernetes.io/arch': systemInfo.architecture, 'kubernetes.io/os': systemInfo.operatingSystem } : {};
        const labels = { 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64', ...nsiLabels, ...parseLabels(ann[`${CAP}/labels`]) };
        const taints = templateTaints(provider, r);
        group.template = () => ({ name: `${r.metadata.name}-template`, labels, taints, allocatable: { ...capacity! }, used: { cpu: 0, memory: 0, pods: 0 } });
      }
      nodeGroups.push(group);
    }

    // Nodes per group, through the Machines' providerIDs.
    const nodeByProvider = new Map(nodes.map((n) => [n.spec?.providerID as string, n]));
    const groupNodes = new Map(nodeGroups.map((g) => [g.name, g.machines.map((m) => nodeByProvider.get(m.spec?.providerID)).filter(Boolean) as Obj[]]));
    const simNode = (n: Obj): SimNode => ({
      name: n.metadata.name,
      labels: n.metadata.labels ?? {},
      taints: n.spec?.taints ?? [],
      allocatable: { cpu: quantity(n.status?.allocatable?.cpu), memory: quantity(n.status?.allocatable?.memory), pods: quantity(n.status?.allocatable?.pods) },
      used: { cpu: 0, memory: 0, pods: 0 },
    });
    const scheduled = pods.filter((p) => p.spec?.nodeName && !['Succeeded', 'Failed'].includes(p.status?.phase));
    const snapshot = new Map(nodes.map((n) => [n.metadata.name as string, simNode(n)]));
    for (const p of scheduled) {
      const n = snapshot.get(p.spec.nodeName);
      if (n) place(p, n);
    }
    const unschedulable = pods.filter(
      (p) =>
        !p.spec?.nodeName && (p.status?.conditions ?? []).some((c: Obj) => c.type === 'PodScheduled' && c.status === 'False' && c.reason === 'Unschedulable'),
    );

    // ---- scale-up ----
    // Upcoming nodes (replicas not registered yet) join the snapshot as template nodes first.
    // clusterstate GetUpcomingNodes: target size minus the Ready nodes (a node not Ready yet, e.g.
    // its CNI not up, counts as upcoming); the snapshot holds the Ready nodes and these.
    const isReady = (n: Obj) => (n.status?.conditions ?? []).some((c: Obj) => c.type === 'Ready' && c.status === 'True');
    const upcoming: SimNode[] = [];
    for (const g of nodeGroups) {
      const registered = groupNodes.get(g.name)!.filter(isReady).length;
      const template = g.template ?? (groupNodes.get(g.name)![0] ? () => simNode(groupNodes.get(g.name)![0]) : undefined);
      for (let i = registered; i < g.replicas && template; i++) upcoming.push({ ...template(), name: `${g.name}-upcoming-${i}` });
    }
    // filter_out_schedulable (`core/podlistprocessor/filter_out_schedulable.go`, HintingSimulator
    // TrySchedulePods → ClusterSnapshot.SchedulePod): pods the simulation places on the snapshot's
    // nodes are not pending, and they stay in the snapshot, so a Ready Node about to get a pending
    // Pod counts that Pod in its utilization below.
    const readySnapshot = [...nodes.filter(isReady).map((n) => snapshot.get(n.metadata.name)!), ...upcoming];
    const hinted = new Map<string, Obj[]>();
    const pending = unschedulable
      .filter((p) => {
        const n = readySnapshot.find((u) => fits(p, u));
        if (n) {
          place(p, n);
          hinted.set(n.name, [...(hinted.get(n.name) ?? []), p]);
        }
        return !n;
      })
      .sort((a, b) => score(b) - score(a));
    if (pending.length > 0) {
      const options: { group: NodeGroup; count: number; pods: string[] }[] = [];
      for (const g of nodeGroups) {
        if (g.replicas >= g.max) continue;
        const existing = groupNodes.get(g.name)![0];
        const template = existing ? () => ({ ...simNode(existing), used: { cpu: 0, memory: 0, pods: 0 } }) : g.template;
        if (!template) continue;
        const { count, pods: placed } = estimate(pending, template, g.max - g.replicas);
        if (count > 0) options.push({ group: g, count, pods: placed });
      }
      if (options.length > 0) {
        // Expander "random" (main.go default; the chart passes none).
        const best = options[Math.floor(Math.random() * options.length)];
        const to = Math.min(best.group.replicas + best.count, best.group.max);
        await this.setSize(mgmt, best.group, to);
        // RunOnce: lastScaleUpTime = currentTime, then on to the scale-down part of the same loop
        // (the unneeded nodes are updated; the cooldown keeps them).
        st.lastScaleUp = now;
        this.events.push({ at: Date.now(), namespace: ns, group: best.group.name, kind: 'ScaleUp', from: best.group.replicas, to, pods: best.pods });
        this.log(`autoscaler ${ns}: scale-up ${best.group.kind} ${best.group.name} ${best.group.replicas} → ${to} for pods ${best.pods.join(', ')}`);
      }
    }

    // ---- scale-down ----
    const delayAfterAdd = flags.has('scale-down-delay-after-add') ? goDuration(flags.get('scale-down-delay-after-add')!) : 600000;
    const unneededTime = flags.has('scale-down-unneeded-time') ? goDuration(flags.get('scale-down-unneeded-time')!) : 600000;
    const delayAfterDelete = flags.has('scale-down-delay-after-delete') ? goDuration(flags.get('scale-down-delay-after-delete')!) : 0;
    const threshold = flags.has('scale-down-utilization-threshold') ? Number(flags.get('scale-down-utilization-threshold')) : 0.5;
    // `--ignore-daemonsets-utilization` and `--ignore-mirror-pods-utilization` (both false by
    // default, `config/flags/flags.go`): such pods then leave both the requests and allocatable
    // (`simulator/utilization/info.go` CalculateUtilizationOfResource).
    const skipDaemonSets = flags.get('ignore-daemonsets-utilization') === 'true';
    const skipMirror = flags.get('ignore-mirror-pods-utilization') === 'true';
    if (flags.get('scale-down-enabled') === 'false') return;
    const unneeded: { group: NodeGroup; node: Obj }[] = [];
    for (const g of nodeGroups) {
      // 1.35.2 and 1.36.1 `clusterapi_processors.go` ScaleDownNodeUpgradeProcessor (registered by
      // `clusterapi_provider.go` BuildClusterAPI): a Node of a MachineDeployment that is rolling out
      // is no scale-down candidate (`clusterapi_nodegroup.go` IsMachineDeploymentAndRollingOut).
      if (since135(provider) && isMachineDeploymentAndRollingOut(g, machineSets)) continue;
      for (const n of groupNodes.get(g.name)!) {
        const name = n.metadata.name as string;
        const ready = (n.status?.conditions ?? []).some((c: Obj) => c.type === 'Ready' && c.status === 'True');
        if (!ready) continue;
        // The snapshot's pods of the Node: the bound ones and those filter_out_schedulable placed.
        const inSnapshot = [...scheduled.filter((p) => p.spec.nodeName === name), ...(hinted.get(name) ?? [])];
        const sim = snapshot.get(name)!;
        const utilization = nodeUtilization(inSnapshot, sim.allocatable, { daemonSets: skipDaemonSets, mirror: skipMirror });
        // Drainability: DaemonSet and mirror pods are not moved; any other pod must be replicated.
        const onNode = inSnapshot.filter((p) => !isDaemonSetPod(p) && !isMirrorPod(p));
        const movable =
          onNode.every((p) => (p.metadata.ownerReferences ?? []).some((o: Obj) => o.controller)) &&
          onNode.every((p) => [...snapshot.values()].some((other) => other.name !== name && fits(p, other)));
        if (utilization < threshold && movable) unneeded.push({ group: g, node: n });
      }
    }
    st.unneededSince = updateUnneeded(
      st.unneededSince,
      unneeded.map((u) => u.node.metadata.name as string),
      now,
    );
    const removable = unneeded.filter((u) => now - st.unneededSince.get(u.node.metadata.name)! >= unneededTime);
    // The unneeded nodes above are tracked in every loop (UpdateClusterState runs before the check);
    // only the deletion waits out the cooldown.
    if (scaleDownInCooldown(now, st, { afterAdd: delayAfterAdd, afterDelete: delayAfterDelete })) return;
    for (const g of nodeGroups) {
      const victims = removable.filter((r) => r.group === g).slice(0, Math.max(0, g.replicas - g.min));
      if (victims.length === 0) continue;
      let replicas = g.replicas;
      const deleted: string[] = [];
      const since: Record<string, number> = {};
      for (const { node } of victims) {
        await this.taint(workload, node);
        const machine = g.machines.find((m) => m.spec?.providerID === node.spec?.providerID);
        if (!machine) throw new Error(`unknown machine for node "${node.spec?.providerID}"`);
        if (machine.metadata.deletionTimestamp) continue;
        await this.markForDeletion(mgmt, machine);
        await this.setSize(mgmt, g, replicas - 1);
        replicas--;
        deleted.push(node.metadata.name);
        since[node.metadata.name] = st.unneededSince.get(node.metadata.name)!;
        st.unneededSince.delete(node.metadata.name);
      }
      if (deleted.length === 0) continue;
      st.lastScaleDown = now;
      this.events.push({
        at: Date.now(),
        namespace: ns,
        group: g.name,
        kind: 'ScaleDown',
        from: g.replicas,
        to: replicas,
        nodes: deleted,
        unneededSince: since,
      });
      this.log(
        `autoscaler ${ns}: scale-down ${g.kind} ${g.name} ${g.replicas} → ${replicas} (${deleted.join(', ')} unneeded for ${Math.round(unneededTime / 1000)} s)`,
      );
    }
  }

  /**
   * InstanceCapacity: the capacity annotations over the infrastructure template's
   * `status.capacity`; the template is read through an informer on its resource in the watched
   * namespace (getInfrastructureResource), which never syncs when the Role forbids the list.
   * `readInfrastructureReferenceResource` finds the version of a v1beta2 ref (`apiGroup`, no
   * version): 1.34.5 takes the group's preferred version (getAPIGroupPreferredVersion), 1.35.2 the
   * first version of the group, in discovery order, that serves the ref's kind
   * (`clusterapi_controller.go` getKindPreferredVersion; an error, e.g. no version serves it: no
   * template, the annotations alone). 1.35.2 also returns the template's `status.nodeInfo`
   * architecture and operatingSystem (`clusterapi_unstructured.go` InstanceSystemInfo,
   * systemInfoFromInfrastructureObject) whenever the template was read.
   */
  private async instanceCapacity(
    mgmt: KubeClient,
    r: Obj,
    provider: PlayedProvider,
  ): Promise<{ capacity?: Resources; systemInfo?: { architecture: string; operatingSystem: string } }> {
    const ann = (r.metadata.annotations ?? {}) as Record<string, string>;
    const fromAnn: Partial<Resources> = {};
    if (quantity(ann[`${CAP}/cpu`])) fromAnn.cpu = quantity(ann[`${CAP}/cpu`]);
    if (quantity(ann[`${CAP}/memory`])) fromAnn.memory = quantity(ann[`${CAP}/memory`]);
    fromAnn.pods = quantity(ann[`${CAP}/maxPods`]) || 110;
    const ref = r.spec?.template?.spec?.infrastructureRef as Obj | undefined;
    let infra: Obj | undefined;
    if (ref?.kind && ref?.name) {
      // v1beta2 refs carry apiGroup; v1beta1 apiVersion.
      const group = (ref.apiGroup as string | undefined) ?? String(ref.apiVersion ?? '').split('/')[0];
      const resource = `${String(ref.kind).toLowerCase()}s`;
      const version = ref.apiGroup
        ? since135(provider)
          ? await kindPreferredVersion(mgmt, group, String(ref.kind))
          : (await mgmt.get(`/apis/${group}`)).body?.preferredVersion?.version
        : String(ref.apiVersion ?? '').split('/')[1];
      if (version) {
        const listed = await mgmt.get(`/apis/${group}/${version}/namespaces/${r.metadata.namespace}/${resource}`);
        if (listed.status !== 200)
          throw new Error(
            `waiting for cache sync on infrastructure resource ${resource}.${group} (it never syncs): ${listed.body?.message ?? `HTTP ${listed.status}`}`,
          );
        infra = (listed.body.items as Obj[]).find((i) => i.metadata.name === ref.name);
      }
    }
    if (!infra) return { capacity: Object.keys(fromAnn).length > 1 ? { cpu: fromAnn.cpu ?? 0, memory: fromAnn.memory ?? 0, pods: fromAnn.pods! } : undefined };
    const status = (infra.status?.capacity ?? {}) as Record<string, string>;
    const nodeInfo = (infra.status?.nodeInfo ?? {}) as Record<string, unknown>;
    return {
      capacity: {
        cpu: fromAnn.cpu ?? quantity(status.cpu),
        memory: fromAnn.memory ?? quantity(status.memory),
        pods: fromAnn.pods ?? (quantity(status.pods) || 110),
      },
      systemInfo: since135(provider)
        ? {
            architecture: typeof nodeInfo.architecture === 'string' ? nodeInfo.architecture : '',
            operatingSystem: typeof nodeInfo.operatingSystem === 'string' ? nodeInfo.operatingSystem : '',
          }
        : undefined,
    };
  }

  /** SetSize (1.34.5, 1.35.2 and 1.36.1 alike): a merge PATCH `{"spec":{"replicas":n}}` of the scale subresource (client-go scale client). */
  private async setSize(mgmt: KubeClient, g: NodeGroup, replicas: number): Promise<void> {
    if (replicas > g.max) throw new Error(`size increase too large - desired:${replicas} max:${g.max}`);
    if (replicas < g.min) throw new Error(`size decrease too large - desired:${replicas} min:${g.min}`);
    const version = String(g.object.apiVersion).split('/')[1];
    const path = `/apis/cluster.x-k8s.io/${version}/namespaces/${g.namespace}/${g.resource}/${g.name}/scale`;
    const u = await mgmt.request('PATCH', path, { spec: { replicas } }, 'application/merge-patch+json');
    if (u.status !== 200) throw new Error(`scale-up/down of ${g.kind} ${g.name} failed: patch scale: ${u.body?.message ?? `HTTP ${u.status}`}`);
  }

  /** MarkMachineForDeletion: GET the Machine, UPDATE it with the delete annotation. */
  private async markForDeletion(mgmt: KubeClient, machine: Obj): Promise<void> {
    const version = String(machine.apiVersion).split('/')[1];
    const path = `/apis/cluster.x-k8s.io/${version}/namespaces/${machine.metadata.namespace}/machines/${machine.metadata.name}`;
    const m = await mgmt.get(path);
    if (m.status !== 200) throw new Error(`marking Machine ${machine.metadata.name} for deletion: ${m.body?.message ?? `HTTP ${m.status}`}`);
    m.body.metadata.annotations = { ...(m.body.metadata.annotations ?? {}), [DELETE_MACHINE]: new Date().toString() };
    const u = await mgmt.request('PUT', path, m.body);
    if (u.status !== 200) throw new Error(`marking Machine ${machine.metadata.name} for deletion: ${u.body?.message ?? `HTTP ${u.status}`}`);
  }

  /** The taint the autoscaler puts on a node it deletes (utils/taints MarkToBeDeleted). */
  private async taint(workload: KubeClient, node: Obj): Promise<void> {
    const n = await workload.get(`/api/v1/nodes/${node.metadata.name}`);
    if (n.status !== 200) return;
    const taints = (n.body.spec?.taints ?? []) as Obj[];
    if (taints.some((t) => t.key === TO_BE_DELETED)) return;
    n.body.spec = { ...n.body.spec, taints: [...taints, { key: TO_BE_DELETED, value: String(Math.floor(Date.now() / 1000)), effect: 'NoSchedule' }] };
    await workload.request('PUT', `/api/v1/nodes/${node.metadata.name}`, n.body);
  }
}

/**
 * 1.35.2 `clusterapi_controller.go` getKindPreferredVersion: the first version of the group, in the
 * order discovery lists them, whose resources serve `kind`; undefined when none does (upstream's
 * error, after which the template is not read).
 */
async function kindPreferredVersion(mgmt: KubeClient, group: string, kind: string): Promise<string | undefined> {
  const groups = await mgmt.get('/apis');
  if (groups.status !== 200) return undefined;
  const g = ((groups.body.groups ?? []) as Obj[]).find((x) => x.name === group);
  if (!g) return undefined;
  for (const v of (g.versions ?? []) as Obj[]) {
    const resources = await mgmt.get(`/apis/${v.groupVersion}`);
    if (resources.status !== 200) return undefined;
    if (((resources.body.resources ?? []) as Obj[]).some((x) => x.kind === kind)) return v.version as string;
  }
  return undefined;
}

const MD_REVISION = 'machinedeployment.clusters.x-k8s.io/revision';
const MD_NAME_LABEL = 'cluster.x-k8s.io/deployment-name';

/**
 * 1.35.2 `clusterapi_nodegroup.go` IsMachineDeploymentAndRollingOut: the MachineSets labelled
 * `cluster.x-k8s.io/deployment-name=<md>` in its namespace (listMachineSetsForMachineDeployment);
 * the one with the highest `machinedeployment.clusters.x-k8s.io/revision` is current; any other
 * with `spec.replicas` or `status.replicas` above 0 means the MachineDeployment is rolling out. A
 * revision that is no integer is an error, after which upstream's processor skips the node too.
 */
export function isMachineDeploymentAndRollingOut(g: { kind: string; name: string; namespace: string }, machineSets: Obj[]): boolean {
  if (g.kind !== 'MachineDeployment') return false;
  const mine = machineSets.filter((ms) => ms.metadata.namespace === g.namespace && ms.metadata.labels?.[MD_NAME_LABEL] === g.name);
  let latest = 0;
  for (const ms of mine) {
    const rev = ms.metadata.annotations?.[MD_REVISION] as string | undefined;
    if (rev === undefined) continue;
    if (!/^[+-]?\d+$/.test(rev)) return true;
    latest = Math.max(latest, Number(rev));
  }
  return mine.some((ms) => ms.metadata.annotations?.[MD_REVISION] !== String(latest) && ((ms.spec?.replicas ?? 0) > 0 || (ms.status?.replicas ?? 0) > 0));
}

/** estimator/binpacking_estimator.go Estimate: new template nodes holding pods, at most `limit`. */
export function estimate(pods: Obj[], template: () => SimNode, limit: number): { count: number; pods: string[] } {
  const added: SimNode[] = [];
  const withPods = new Set<SimNode>();
  const placed: string[] = [];
  let last: SimNode | undefined;
  for (const pod of pods) {
    // tryToScheduleOnExistingNodes: the new nodes added so far.
    const existing = added.find((n) => fits(pod, n));
    if (existing) {
      place(pod, existing);
      withPods.add(existing);
      placed.push(pod.metadata.name);
      continue;
    }
    // tryToScheduleOnNewNodes.
    if (last && !withPods.has(last)) break;
    if (added.length >= limit) break;
    last = { ...template(), name: `template-${added.length}` };
    added.push(last);
    if (!fits(pod, last)) break;
    place(pod, last);
    withPods.add(last);
    placed.push(pod.metadata.name);
  }
  return { count: withPods.size, pods: placed };
}

/** decreasing_pod_orderer.go calculatePodScore: cpu share plus memory share of the template (here of the requests alone: one template per group). */
function score(pod: Obj): number {
  const r = podRequests(pod);
  return r.cpu + r.memory / 1024 ** 3;
}

function isDaemonSetPod(p: Obj): boolean {
  return (p.metadata.ownerReferences ?? []).some((o: Obj) => o.kind === 'DaemonSet');
}

function isMirrorPod(p: Obj): boolean {
  return Boolean(p.metadata.annotations?.['kubernetes.io/config.mirror']);
}

/**
 * `simulator/utilization/info.go` Calculate (1.34.5, 1.35.2 and 1.36.1: unchanged): the larger of the cpu and memory
 * requests of the Node's pods in the snapshot over its allocatable. DaemonSet and mirror pods count
 * unless `--ignore-daemonsets-utilization` / `--ignore-mirror-pods-utilization` (both false by
 * default, `config/flags/flags.go`); a skipped pod's requests leave allocatable too
 * (CalculateUtilizationOfResource).
 */
export function nodeUtilization(pods: Obj[], allocatable: { cpu: number; memory: number }, skip: { daemonSets: boolean; mirror: boolean }): number {
  const skipped = (p: Obj) => (skip.daemonSets && isDaemonSetPod(p)) || (skip.mirror && isMirrorPod(p));
  const sum = (ps: Obj[]) => ps.reduce((s, p) => ({ cpu: s.cpu + podRequests(p).cpu, memory: s.memory + podRequests(p).memory }), { cpu: 0, memory: 0 });
  const used = sum(pods.filter((p) => !skipped(p)));
  const off = sum(pods.filter(skipped));
  return Math.max(allocatable.cpu ? used.cpu / (allocatable.cpu - off.cpu) : 0, allocatable.memory ? used.memory / (allocatable.memory - off.memory) : 0);
}

/**
 * `core/scaledown/unneeded/nodes.go` updateInternalState: the unneeded nodes of this loop; one that
 * was unneeded in the loop before keeps its `since`, a new one starts at the loop's currentTime, and
 * one no longer unneeded is forgotten (its time starts over when it is unneeded again).
 */
export function updateUnneeded(since: ReadonlyMap<string, number>, unneeded: readonly string[], now: number): Map<string, number> {
  return new Map(unneeded.map((name) => [name, since.get(name) ?? now]));
}

/**
 * `core/static_autoscaler.go` isScaleDownInCooldown (the global delays, `--scale-down-delay-type-local`
 * unset): no deletion within `--scale-down-delay-after-add` of a scale-up nor within
 * `--scale-down-delay-after-delete` of a deletion (`--scale-down-delay-after-failure` not modelled:
 * the played deletions do not fail).
 */
export function scaleDownInCooldown(
  now: number,
  last: { lastScaleUp: number; lastScaleDown: number },
  delay: { afterAdd: number; afterDelete: number },
): boolean {
  return last.lastScaleUp + delay.afterAdd > now || last.lastScaleDown + delay.afterDelete > now;
}

/** `key=value,key=value` of the labels capacity annotation. */
function parseLabels(text?: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const kv of (text ?? '').split(',')) {
    const [k, v] = kv.split('=');
    if (k && v !== undefined) out[k.trim()] = v.trim();
  }
  return out;
}

/** `key=value:Effect,…` of the taints capacity annotation. */
function parseTaints(text?: string): { key: string; value?: string; effect: string }[] {
  return (text ?? '')
    .split(',')
    .filter(Boolean)
    .map((t) => {
      const [kv, effect] = t.split(':');
      const [key, value] = kv.split('=');
      return { key: key.trim(), value: value?.trim(), effect: (effect ?? '').trim() };
    });
}

export function readCa(dir: string): string {
  return readFileSync(join(dir, 'ca.crt'), 'utf8');
}
