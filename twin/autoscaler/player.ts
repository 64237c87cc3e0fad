/**
 * The played cluster-autoscaler of each tenant (twin/autoscaler/index.ts says what is played and
 * from which source): one loop per release every `--scan-interval`, scale-up and scale-down through
 * the management and workload API servers, with the release's own credentials.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load as loadYaml } from 'js-yaml';
import { KubeClient } from '../../scripts/lib/kube-apiserver';
import { AutoscalerRelease, chartArgs, chartFullname, chartRbacObjects, chartServiceAccountName } from './chart';
import {
  ANN_MAX,
  ANN_MIN,
  CAP,
  DELETE_MACHINE,
  DiscoverySpec,
  NodeGroup,
  PLAYED_PROVIDERS,
  PlayedProvider,
  TO_BE_DELETED,
  goDuration,
  isMachineDeploymentAndRollingOut,
  isScalableResourceAndPaused,
  kindPreferredVersion,
  parseAutoDiscoverySpec,
  parseLabels,
  since135,
  templateTaints,
} from './provider';
import {
  Obj,
  Resources,
  SimNode,
  estimate,
  fits,
  isDaemonSetPod,
  isMirrorPod,
  nodeUtilization,
  place,
  quantity,
  scaleDownInCooldown,
  score,
  updateUnneeded,
} from './simulation';

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

export function readCa(dir: string): string {
  return readFileSync(join(dir, 'ca.crt'), 'utf8');
}
