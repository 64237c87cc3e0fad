/**
 * SIMULATED in the lab twin: the Cluster API add-on provider for Helm (CAAPH) v0.6.2, which the Go
 * module proxy does not serve. Played from its source (github.com/kubernetes-sigs/
 * cluster-api-addon-provider-helm, tag v0.6.2):
 *
 * - HelmChartProxy controller (controllers/helmchartproxy/helmchartproxy_controller.go
 *   listClustersWithLabels): the Clusters of the proxy's OWN namespace matching its
 *   `clusterSelector` (the API server's own label selection, matchExpressions included); paused
 *   Clusters and Clusters being deleted are skipped (helmchartproxy_controller_phases.go
 *   reconcileForCluster); the values are the proxy's `valuesTemplate` executed with Go
 *   text/template and sprig over `{Cluster, ControlPlane, InfraCluster}` (internal/
 *   value_substitutions.go ParseValues) — here by helm's own `tpl` (the same text/template and sprig,
 *   in the toolchain's helm); one HelmReleaseProxy per Cluster and proxy, named
 *   `<chartName>-<cluster>-<random>`, labelled with the cluster and proxy names, owned by the proxy
 *   (constructHelmReleaseProxy); a change of its chart, repository, release name or namespace
 *   deletes it and installs anew (reconcileForCluster, shouldReinstallHelmRelease).
 * - HelmReleaseProxy controller (controllers/helmreleaseproxy/helmreleaseproxy_controller.go): nothing
 *   until the Cluster's control plane is initialized and its `<cluster>-kubeconfig` Secret exists;
 *   then the release: the REAL chart where a served Go module carries it (Cilium, laid out by
 *   scripts/toolchain in .toolchain/charts) rendered by `helm template` with the rendered values
 *   (values.schema.json enforced, `--kube-version` the Cluster's), every object applied to the
 *   tenant API server (server-side apply, as a helm install creates them); the release status
 *   `deployed` and revision 1 only after that succeeded, `failed` with helm's or the API server's
 *   message otherwise.
 *
 * A chart no served module carries (Calico's tigera-operator: github.com/projectcalico/calico is not
 * served by the Go module proxy) is NOT rendered: its HelmReleaseProxy is made by the same strict
 * selection and values rules, and the release is counted installed without a render — stated in
 * docs/twin.md as a deviation.
 *
 * The kubelet player asks `cniReady(namespace, cluster)`: a Node is Ready only when its Cluster's CNI
 * release is deployed.
 */
import { ReadMemo } from './read-memo';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { cniCharts } from '../modules/versions/cni';
import type { KubeClient, KubeObject } from '../scripts/lib/kube-apiserver';
import type { KamajiPlayer } from './kamaji';

const run = promisify(execFile);
const ADDONS = 'addons.cluster.x-k8s.io/v1alpha1';
const CLUSTERS = 'cluster.x-k8s.io/v1beta2';
/** api/v1alpha1/helmchartproxy_types.go HelmChartProxyLabelName. */
const PROXY_LABEL = 'helmchartproxy.addons.cluster.x-k8s.io/name';
const CLUSTER_LABEL = 'cluster.x-k8s.io/cluster-name';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an unstructured Kubernetes object read by path, as the controller reads it
type Obj = KubeObject & { spec?: any; status?: any };

/** metav1.LabelSelectorAsSelector, as the `labelSelector` query the API server evaluates. */
export function selectorQuery(
  selector: { matchLabels?: Record<string, string>; matchExpressions?: { key: string; operator: string; values?: string[] }[] } | undefined,
): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(selector?.matchLabels ?? {})) parts.push(`${k}=${v}`);
  for (const e of selector?.matchExpressions ?? []) {
    switch (e.operator) {
      case 'In':
        parts.push(`${e.key} in (${(e.values ?? []).join(',')})`);
        break;
      case 'NotIn':
        parts.push(`${e.key} notin (${(e.values ?? []).join(',')})`);
        break;
      case 'Exists':
        parts.push(e.key);
        break;
      case 'DoesNotExist':
        parts.push(`!${e.key}`);
        break;
      default:
        throw new Error(`"${e.operator}" is not a valid label selector operator`);
    }
  }
  return parts.join(',');
}

export interface ReleaseState {
  proxy: string;
  chart: string;
  status: 'pending' | 'deployed' | 'failed';
  message?: string;
  /** Deployed without its chart rendered (no served module carries it): why, for `twin --json`. */
  notRendered?: string;
}

/** Why a CNI chart is not rendered in the twin (undefined: it is, from its Go module). */
export const CNI_NOT_RENDERED: Readonly<Partial<Record<keyof typeof cniCharts, string>>> = {
  calico: 'tigera-operator is in no module the Go proxy serves (github.com/projectcalico/calico): counted deployed without a render',
};

export class AddonPlayer {
  /** The HelmReleaseProxies' state per Cluster (`namespace/cluster`), by proxy name. */
  readonly releases = new Map<string, Map<string, ReleaseState>>();
  /** The version and values last installed per Cluster and proxy. */
  private readonly rendered = new Map<string, string>();
  private readonly valuesCache = new Map<string, { key: string; values: string }>();
  private readonly contracts = new Map<string, string>();

  /** The pass's reads: the twin's shared memo (read-memo.ts), or one of its own cleared every pass. */
  private readonly memo: ReadMemo;
  private readonly ownMemo: boolean;

  constructor(
    private readonly mgmt: KubeClient,
    private readonly kamaji: KamajiPlayer,
    private readonly root: string,
    private readonly log: (line: string) => void = () => {},
    memo?: ReadMemo,
  ) {
    this.memo = memo ?? new ReadMemo(mgmt);
    this.ownMemo = memo === undefined;
  }

  /** The Cluster's CNI release is deployed (a release of a chart `cniCharts` names). */
  cniReady(namespace: string, cluster: string): boolean {
    const cniChartNames = new Set(Object.values(cniCharts).map((c) => c.chart));
    return [...(this.releases.get(`${namespace}/${cluster}`)?.values() ?? [])].some((r) => cniChartNames.has(r.chart) && r.status === 'deployed');
  }

  /** The Cluster's CNI release: chart, status and, when it was not rendered, why (`twin --json`). */
  cniRelease(namespace: string, cluster: string): { chart: string; status: string; notRendered?: string } | undefined {
    const cniChartNames = new Set(Object.values(cniCharts).map((c) => c.chart));
    const r = [...(this.releases.get(`${namespace}/${cluster}`)?.values() ?? [])].find((x) => cniChartNames.has(x.chart));
    return r ? { chart: r.chart, status: r.status, ...(r.notRendered ? { notRendered: r.notRendered } : {}) } : undefined;
  }

  /** Why a Cluster's CNI is not ready, for the twin's diagnostics. */
  cniWaiting(namespace: string, cluster: string): string {
    const states = [...(this.releases.get(`${namespace}/${cluster}`)?.values() ?? [])];
    if (states.length === 0) return `no HelmChartProxy in namespace ${namespace} selects Cluster ${cluster}`;
    return states.map((s) => `${s.proxy} (${s.chart}): ${s.status}${s.message ? `: ${s.message}` : ''}`).join('; ');
  }

  async tick(): Promise<void> {
    if (this.ownMemo) this.memo.clear();
    const proxies = await this.mgmt.get(`/apis/${ADDONS}/helmchartproxies`);
    if (proxies.status !== 200) throw new Error(`listing HelmChartProxies: HTTP ${proxies.status}: ${proxies.text}`);
    const selected = new Map<string, Map<string, ReleaseState>>();
    for (const hcp of proxies.body.items as Obj[]) {
      if (hcp.metadata.deletionTimestamp) continue;
      const ns = hcp.metadata.namespace!;
      const q = selectorQuery(hcp.spec?.clusterSelector);
      const list = await this.mgmt.get(`/apis/${CLUSTERS}/namespaces/${ns}/clusters?${new URLSearchParams({ labelSelector: q })}`);
      if (list.status !== 200)
        throw new Error(`HelmChartProxy ${ns}/${hcp.metadata.name}: listing Clusters: HTTP ${list.status}: ${list.body?.message ?? list.text}`);
      for (const cluster of list.body.items as Obj[]) {
        const paused = cluster.spec?.paused || (cluster.metadata.annotations as Record<string, string> | undefined)?.['cluster.x-k8s.io/paused'] !== undefined;
        if (paused || cluster.metadata.deletionTimestamp) continue;
        const key = `${ns}/${cluster.metadata.name}`;
        const previous = this.releases.get(key)?.get(hcp.metadata.name);
        let state: ReleaseState;
        try {
          state = await this.reconcile(hcp, cluster, previous);
        } catch (e) {
          state = { proxy: hcp.metadata.name, chart: hcp.spec?.chartName, status: 'failed', message: (e as Error).message };
        }
        if (state.status !== previous?.status || state.message !== previous?.message) {
          this.log(`caaph ${key}: ${hcp.metadata.name} (${state.chart}) ${state.status}${state.message ? `: ${state.message}` : ''}`);
        }
        if (!selected.has(key)) selected.set(key, new Map());
        selected.get(key)!.set(hcp.metadata.name, state);
      }
    }
    this.releases.clear();
    for (const [k, v] of selected) this.releases.set(k, v);
  }

  private async reconcile(hcp: Obj, cluster: Obj, previous: ReleaseState | undefined): Promise<ReleaseState> {
    const ns = hcp.metadata.namespace!;
    const name = cluster.metadata.name;
    const state = (status: ReleaseState['status'], message?: string): ReleaseState => ({
      proxy: hcp.metadata.name,
      chart: hcp.spec?.chartName,
      status,
      ...(message ? { message } : {}),
    });
    const values = await this.parseValues(hcp, cluster);
    // The HelmReleaseProxy (constructHelmReleaseProxy / createOrUpdateHelmReleaseProxy).
    const found = await this.mgmt.get(
      `/apis/${ADDONS}/namespaces/${ns}/helmreleaseproxies?${new URLSearchParams({ labelSelector: `${CLUSTER_LABEL}=${name},${PROXY_LABEL}=${hcp.metadata.name}` })}`,
    );
    // A list that fails is an error, never "none": CAAPH lists through its cache and returns the error.
    // (Read as empty, a 404 while the restarted API server was not yet serving the CRD made the player
    // create a second HelmReleaseProxy once it was: then every later round refused the Cluster.)
    if (found.status !== 200)
      throw new Error(`listing HelmReleaseProxies of cluster ${ns}/${name}: HTTP ${found.status}: ${found.body?.message ?? found.text}`);
    const existing = (found.body?.items ?? []) as Obj[];
    if (existing.length > 1) throw new Error('multiple HelmReleaseProxies found matching the cluster and HelmChartProxy');
    let hrp = existing[0];
    const spec = {
      clusterRef: { kind: 'Cluster', apiVersion: CLUSTERS, name, namespace: ns },
      releaseName: hcp.spec?.releaseName,
      chartName: hcp.spec?.chartName,
      repoURL: hcp.spec?.repoURL,
      namespace: hcp.spec?.namespace,
      reconcileStrategy: hcp.spec?.reconcileStrategy,
      version: hcp.spec?.version,
      values,
      options: hcp.spec?.options,
      credentials: hcp.spec?.credentials,
      tlsConfig: hcp.spec?.tlsConfig,
    };
    const clean = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== ''));
    // helmchartproxy_controller_phases.go reconcileForCluster / shouldReinstallHelmRelease: a change of an
    // immutable field (chart, repository, release name, release namespace; immutable by the
    // HelmReleaseProxy webhook, caaph-webhook.ts) deletes the HelmReleaseProxy; the next round creates
    // it anew and installs again. (pvekaas names its releases: no generated-name case.)
    if (hrp && hcp.spec?.reconcileStrategy !== 'InstallOnce') {
      const changed = (['chartName', 'repoURL', 'releaseName', 'namespace'] as const).find((f) => (hrp.spec?.[f] ?? '') !== (spec[f] ?? ''));
      if (changed) {
        const deleted = await this.mgmt.request('DELETE', `/apis/${ADDONS}/namespaces/${ns}/helmreleaseproxies/${hrp.metadata.name}`);
        if (deleted.status !== 200 && deleted.status !== 202 && deleted.status !== 404)
          throw new Error(`failed to delete HelmReleaseProxy '${hrp.metadata.name}': ${deleted.body?.message ?? deleted.text}`);
        this.rendered.delete(`${ns}/${name}/${hcp.metadata.name}`);
        return state('pending', `HelmReleaseProxy on cluster '${name}' successfully deleted, preparing to reinstall (${changed} changed)`);
      }
    }
    if (!hrp) {
      const created = await this.mgmt.post(`/apis/${ADDONS}/namespaces/${ns}/helmreleaseproxies`, {
        apiVersion: ADDONS,
        kind: 'HelmReleaseProxy',
        metadata: {
          generateName: `${hcp.spec?.chartName}-${name}-`,
          namespace: ns,
          labels: { [CLUSTER_LABEL]: name, [PROXY_LABEL]: hcp.metadata.name },
          ownerReferences: [
            { apiVersion: ADDONS, kind: 'HelmChartProxy', name: hcp.metadata.name, uid: hcp.metadata.uid, controller: true, blockOwnerDeletion: true },
          ],
        },
        spec: clean(spec),
      });
      if (created.status !== 201) throw new Error(`failed to create HelmReleaseProxy for cluster: ${ns}/${name}: ${created.body?.message ?? created.text}`);
      hrp = created.body as Obj;
    } else if (hrp.spec?.version !== spec.version || hrp.spec?.values !== values) {
      const updated = await this.mgmt.request('PUT', `/apis/${ADDONS}/namespaces/${ns}/helmreleaseproxies/${hrp.metadata.name}`, {
        ...hrp,
        spec: clean({ ...hrp.spec, version: spec.version, values, options: spec.options }),
      });
      if (updated.status !== 200) throw new Error(`failed to update HelmReleaseProxy '${hrp.metadata.name}': ${updated.body?.message ?? updated.text}`);
      hrp = updated.body as Obj;
      previous = undefined;
    }
    // The HelmReleaseProxy controller: the ClusterControlPlaneInitialized predicate, then the kubeconfig.
    if (cluster.status?.initialization?.controlPlaneInitialized !== true) return state('pending', 'waiting for the Cluster control plane to be initialized');
    const kubeconfig = await this.memo.get(`/api/v1/namespaces/${ns}/secrets/${name}-kubeconfig`);
    if (!kubeconfig?.data?.value) return state('pending', `failed to get kubeconfig for cluster: secret ${ns}/${name}-kubeconfig`);
    if (previous?.status === 'deployed' && this.rendered.get(`${ns}/${name}/${hcp.metadata.name}`) === `${spec.version}\n${values}`) return previous;
    const installed = await this.install(hcp, cluster, values);
    const status = installed ? 'failed' : 'deployed';
    await this.mgmt.request(
      'PATCH',
      `/apis/${ADDONS}/namespaces/${ns}/helmreleaseproxies/${hrp.metadata.name}/status`,
      { status: { status, revision: 1 } },
      'application/merge-patch+json',
    );
    if (!installed) this.rendered.set(`${ns}/${name}/${hcp.metadata.name}`, `${spec.version}\n${values}`);
    const flavour = (Object.keys(cniCharts) as (keyof typeof cniCharts)[]).find((f) => cniCharts[f].chart === hcp.spec?.chartName);
    const notRendered = !installed && flavour ? CNI_NOT_RENDERED[flavour] : undefined;
    return { ...state(status, installed), ...(notRendered ? { notRendered } : {}) };
  }

  /** ParseValues: the values template over the Cluster, its control plane and infrastructure cluster. */
  private async parseValues(hcp: Obj, cluster: Obj): Promise<string> {
    const template = (hcp.spec?.valuesTemplate as string | undefined) ?? '';
    const context: Record<string, unknown> = { Cluster: cluster };
    for (const [key, ref] of [
      ['ControlPlane', cluster.spec?.controlPlaneRef],
      ['InfraCluster', cluster.spec?.infrastructureRef],
    ] as const) {
      if (!ref?.name || !ref?.kind) continue;
      // external.GetObjectFromContractVersionedRef: the version is the one the CRD's contract label
      // (`cluster.x-k8s.io/v1beta2`) names, not the group's preferred version.
      const version = await this.contractVersion(ref.apiGroup, ref.kind);
      if (!version)
        throw new Error(`error getting ${key} object for cluster '${cluster.metadata.name}': no CRD of ${ref.kind}.${ref.apiGroup} with a contract label`);
      const path = await this.mgmt.objectPath({
        apiVersion: `${ref.apiGroup}/${version}`,
        kind: ref.kind,
        metadata: { name: ref.name, namespace: cluster.metadata.namespace },
      });
      // Read through the pass's memo (read-memo.ts): in the twin the Kamaji player read them this pass.
      const got = await this.memo.get(path);
      if (!got) throw new Error(`error getting ${key} object for cluster '${cluster.metadata.name}': HTTP 404`);
      context[key] = got;
    }
    // Rendered again only when what the template can read changed (status only when it reads status).
    const strip = (o: unknown) => {
      const { metadata, status, ...rest } = o as { metadata: Record<string, unknown>; status?: unknown };
      const { managedFields: _m, resourceVersion: _r, ...meta } = metadata ?? {};
      return { ...rest, metadata: meta, ...(template.includes('status') ? { status } : {}) };
    };
    const cacheKey = JSON.stringify([template, Object.entries(context).map(([k, v]) => [k, strip(v)])]);
    const cached = this.valuesCache.get(`${hcp.metadata.uid}/${cluster.metadata.uid}`);
    if (cached?.key === cacheKey) return cached.values;
    const dir = mkdtempSync(join(tmpdir(), 'pvekaas-caaph-values-'));
    try {
      mkdirSync(join(dir, 'chart/templates'), { recursive: true });
      writeFileSync(join(dir, 'chart/Chart.yaml'), 'apiVersion: v2\nname: values\nversion: 0.0.0\n');
      writeFileSync(join(dir, 'chart/templates/values.yaml'), '{{ tpl .Values.template .Values.context }}');
      writeFileSync(join(dir, 'input.json'), JSON.stringify({ template, context }));
      const out = await this.helm(dir, ['template', 'values', join(dir, 'chart'), '--values', join(dir, 'input.json')]);
      const values = out.replace(/^---\n# Source: values\/templates\/values\.yaml\n/, '');
      this.valuesCache.set(`${hcp.metadata.uid}/${cluster.metadata.uid}`, { key: cacheKey, values });
      return values;
    } catch (e) {
      throw new Error(`failed to parse values on cluster ${cluster.metadata.name}: ${(e as Error).message}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  /** The version of a kind the CAPI v1beta2 contract label of its CRD names (the last of a `_`-list). */
  private async contractVersion(group: string, kind: string): Promise<string | undefined> {
    const known = this.contracts.get(`${kind}.${group}`);
    if (known) return known;
    const crds = await this.mgmt.get(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions`);
    const crd = ((crds.body?.items ?? []) as Obj[]).find((c) => c.spec?.group === group && c.spec?.names?.kind === kind);
    const label = (crd?.metadata.labels as Record<string, string> | undefined)?.['cluster.x-k8s.io/v1beta2'];
    const version = label?.split('_').pop();
    if (version) this.contracts.set(`${kind}.${group}`, version);
    return version;
  }

  /** helm install, played: the chart rendered and every object applied to the tenant API server. Returns the failure, if any. */
  private async install(hcp: Obj, cluster: Obj, values: string): Promise<string | undefined> {
    const flavour = (Object.keys(cniCharts) as (keyof typeof cniCharts)[]).find((f) => cniCharts[f].chart === hcp.spec?.chartName);
    const pinned = flavour ? cniCharts[flavour] : undefined;
    if (!pinned) return `chart ${hcp.spec?.chartName} is not one the lab twin can install`;
    if (hcp.spec?.version !== pinned.version) return `chart ${pinned.chart} version ${hcp.spec?.version} is not the pinned ${pinned.version}`;
    const chartDir = join(this.root, '.toolchain/charts', pinned.chart, pinned.version);
    if (CNI_NOT_RENDERED[flavour!]) return undefined; // no served module carries the chart (see the header)
    if (!existsSync(chartDir)) return `chart ${pinned.chart} ${pinned.version} is not laid out in ${chartDir}: run scripts/toolchain install`;
    const plane = [...this.kamaji.planes.values()].find((p) => p.namespace === cluster.metadata.namespace && p.cluster === cluster.metadata.name);
    if (!plane) return `no tenant control plane for Cluster ${cluster.metadata.namespace}/${cluster.metadata.name}`;
    const dir = mkdtempSync(join(tmpdir(), 'pvekaas-caaph-release-'));
    try {
      writeFileSync(join(dir, 'values.yaml'), values);
      const version = String(cluster.spec?.topology?.version ?? '').replace(/^v/, '') || undefined;
      let manifest: string;
      try {
        manifest = await this.helm(dir, [
          'template',
          hcp.spec?.releaseName ?? pinned.chart,
          chartDir,
          '--namespace',
          hcp.spec?.namespace ?? 'default',
          '--values',
          join(dir, 'values.yaml'),
          ...(version ? ['--kube-version', version] : []),
        ]);
      } catch (e) {
        return `helm template: ${(e as Error).message}`;
      }
      const objects = parseAllDocuments(manifest)
        .map((d) => d.toJS() as KubeObject | null)
        .filter((o): o is KubeObject => !!o && typeof o === 'object' && !!o.kind);
      const ns = hcp.spec?.namespace ?? 'default';
      if (hcp.spec?.options?.install?.createNamespace) {
        await plane.server.client.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }, { fieldManager: 'helm' });
      }
      for (const object of objects) {
        const namespaced = await plane.server.client.resourceFor(object.apiVersion, object.kind).then(
          (r) => r.namespaced,
          () => undefined,
        );
        if (namespaced === undefined)
          return `${object.kind} ${object.metadata?.name}: the tenant API server does not serve ${object.apiVersion} ${object.kind}`;
        const target = namespaced && !object.metadata.namespace ? { ...object, metadata: { ...object.metadata, namespace: ns } } : object;
        const r = await plane.server.client.apply(target, { fieldManager: 'helm' });
        if (r.status !== 200 && r.status !== 201) return `${object.kind} ${object.metadata.name}: HTTP ${r.status}: ${r.body?.message ?? r.text}`;
      }
      this.log(
        `caaph ${cluster.metadata.namespace}/${cluster.metadata.name}: ${pinned.chart} ${pinned.version} rendered (${objects.length} objects) and applied to the tenant API server`,
      );
      return undefined;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  private async helm(dir: string, args: string[]): Promise<string> {
    const helm = join(this.root, '.toolchain/bin/helm');
    if (!existsSync(helm)) throw new Error('helm is not built (.toolchain/bin/helm): run scripts/toolchain install');
    const env = { ...process.env, HELM_CACHE_HOME: join(dir, '.cache'), HELM_CONFIG_HOME: join(dir, '.config'), HELM_DATA_HOME: join(dir, '.data') };
    try {
      const { stdout } = await run(helm, args, { cwd: dir, env, maxBuffer: 64 * 1024 * 1024 });
      return stdout;
    } catch (e) {
      const err = e as { stderr?: string; message: string };
      throw new Error((err.stderr || err.message).replace(/\n*Use --debug flag to render out invalid YAML\n*/, '').trim());
    }
  }
}
