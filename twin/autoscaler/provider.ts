/**
 * The clusterapi cloud provider of cluster-autoscaler (1.34.5, 1.35.2, 1.36.1), played: its
 * auto-discovery spec, the node-group annotations, which provider tags are played and what each
 * changed (paused resources, template taints, the infrastructure template's version, a rolling
 * MachineDeployment), and the capacity annotations' labels and taints. Each rule cites its file.
 */
import { KubeClient } from '../../scripts/lib/kube-apiserver';
import { autoscalerImageTags } from '../../modules/versions/cni';
import { Obj, SimNode } from './simulation';

export interface DiscoverySpec {
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

export const ANN_MIN = 'cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size';
export const ANN_MAX = 'cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size';
export const CAP = 'capacity.cluster-autoscaler.kubernetes.io';
export const DELETE_MACHINE = 'cluster.x-k8s.io/delete-machine';
export const TO_BE_DELETED = 'ToBeDeletedByClusterAutoscaler';

export interface NodeGroup {
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

export const PAUSED = 'cluster.x-k8s.io/paused';

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

/**
 * 1.35.2 `clusterapi_controller.go` getKindPreferredVersion: the first version of the group, in the
 * order discovery lists them, whose resources serve `kind`; undefined when none does (upstream's
 * error, after which the template is not read).
 */
export async function kindPreferredVersion(mgmt: KubeClient, group: string, kind: string): Promise<string | undefined> {
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

export const MD_REVISION = 'machinedeployment.clusters.x-k8s.io/revision';
export const MD_NAME_LABEL = 'cluster.x-k8s.io/deployment-name';

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

/** `key=value,key=value` of the labels capacity annotation. */
export function parseLabels(text?: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const kv of (text ?? '').split(',')) {
    const [k, v] = kv.split('=');
    if (k && v !== undefined) out[k.trim()] = v.trim();
  }
  return out;
}

/** `key=value:Effect,…` of the taints capacity annotation. */
export function parseTaints(text?: string): { key: string; value?: string; effect: string }[] {
  return (text ?? '')
    .split(',')
    .filter(Boolean)
    .map((t) => {
      const [kv, effect] = t.split(':');
      const [key, value] = kv.split('=');
      return { key: key.trim(), value: value?.trim(), effect: (effect ?? '').trim() };
    });
}
