/**
 * The lab twin's CAAPH (twin/caaph.ts) on real API servers: the HelmChartProxy pvekaas renders
 * for a Cilium tenant selects its Cluster (the API server's own label selection, in the proxy's own
 * namespace), its values template is executed over the Cluster, the REAL Cilium chart (from its Go
 * module, .toolchain/charts) is rendered by helm with the schema enforced and applied to the tenant
 * API server, and only then is the CNI ready. Each rendering mistake below leaves the Cluster without
 * its CNI, so its Nodes would stay NotReady.
 */
import { clusterClassTemplates } from '../../modules/tenants/cluster-class-templates';
import { cniHelmChartProxy } from '../../modules/tenants/cni';
import { LABEL_CNI } from '../../modules/tenants/names';
import { cniCharts } from '../../modules/versions/cni';
import { AddonPlayer } from '../../twin/caaph';
import { withReleaseLabels } from '../../twin/crd-labels';
import type { KamajiPlayer } from '../../twin/kamaji';
import { startKubeServer, type KubeClient, type KubeObject, type KubeServer } from '../support/kube-apiserver';
import { started, tearDown } from '../support/lifecycle';
import { join } from 'node:path';

const root = join(__dirname, '../..');
const ns = 'tenant-x';
const cluster = 'tenant-x';

let mgmt: KubeServer | undefined;
let tenant: KubeServer | undefined;
beforeAll(async () => {
  [mgmt, tenant] = await Promise.all([
    startKubeServer({ controllerManager: false, transformCrd: withReleaseLabels(root) }),
    startKubeServer({ crds: false, controllerManager: false, apiServerArgs: ['--allow-privileged=true'] }),
  ]);
  const { client } = started(mgmt);
  await client.applyOrThrow({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  await client.applyOrThrow({
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Cluster',
    metadata: { name: cluster, namespace: ns, labels: { [LABEL_CNI]: 'cilium' } },
    spec: {
      clusterNetwork: { pods: { cidrBlocks: ['10.244.0.0/16'] }, services: { cidrBlocks: ['10.96.0.0/12'] } },
      controlPlaneEndpoint: { host: '10.10.0.5', port: 6443 },
      // CAAPH reads it at its CRD's contract version (v1alpha2), not the group's preferred (v1beta2, kubeadm's).
      controlPlaneRef: { apiGroup: 'controlplane.cluster.x-k8s.io', kind: 'KamajiControlPlane', name: cluster },
      topology: { classRef: { name: 'pvekaas' }, version: 'v1.36.3' },
    },
  } as KubeObject);
  const kcp = (clusterClassTemplates({ dataStoreName: 'default', multiInstance: 'refuse' }) as any[]).find((t) => t.kind === 'KamajiControlPlaneTemplate');
  await client.applyOrThrow({
    apiVersion: 'controlplane.cluster.x-k8s.io/v1alpha2',
    kind: 'KamajiControlPlane',
    metadata: { name: cluster, namespace: ns },
    spec: { ...kcp.spec.template.spec, version: 'v1.36.3' },
  } as KubeObject);
  const r = await client.request(
    'PATCH',
    `/apis/cluster.x-k8s.io/v1beta2/namespaces/${ns}/clusters/${cluster}/status`,
    { status: { initialization: { controlPlaneInitialized: true } } },
    'application/merge-patch+json',
  );
  if (r.status !== 200) throw new Error(`Cluster status: ${r.text}`);
  await client.applyOrThrow({
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'cluster.x-k8s.io/secret',
    metadata: { name: `${cluster}-kubeconfig`, namespace: ns },
    data: { value: Buffer.from('kubeconfig').toString('base64') },
  } as KubeObject);
}, 300000);
afterAll(() => tearDown(undefined, mgmt, tenant), 60000);

/** A Kamaji player whose only control plane is the tenant test server. */
function kamaji(): KamajiPlayer {
  return { planes: new Map([[`${ns}/${cluster}`, { namespace: ns, kcp: cluster, cluster, server: tenant!, initialized: true }]]) } as unknown as KamajiPlayer;
}

async function withProxy(client: KubeClient, proxy: KubeObject): Promise<AddonPlayer> {
  for (const n of [ns, 'default']) {
    const list = await client.get(`/apis/addons.cluster.x-k8s.io/v1alpha1/namespaces/${n}/helmchartproxies`);
    for (const p of list.body.items ?? []) await client.delete(`/apis/addons.cluster.x-k8s.io/v1alpha1/namespaces/${n}/helmchartproxies/${p.metadata.name}`);
    await client.request('DELETE', `/apis/addons.cluster.x-k8s.io/v1alpha1/namespaces/${n}/helmreleaseproxies`);
  }
  await client.applyOrThrow(proxy, { force: true });
  const player = new AddonPlayer(client, kamaji(), root);
  await player.tick();
  return player;
}

describe("CAAPH's selection and the Cilium chart, as the twin plays them", () => {
  it('installs the real Cilium chart with the rendered values into the selected Cluster', async () => {
    const { client } = started(mgmt);
    const player = await withProxy(client, cniHelmChartProxy('cilium', ns) as KubeObject);
    expect(player.cniWaiting(ns, cluster)).toMatch(/deployed/);
    expect(player.cniReady(ns, cluster)).toBe(true);
    const hrps = (await client.get(`/apis/addons.cluster.x-k8s.io/v1alpha1/namespaces/${ns}/helmreleaseproxies`)).body.items;
    expect(hrps).toHaveLength(1);
    expect(hrps[0].metadata.name).toMatch(new RegExp(`^cilium-${cluster}-`));
    expect(hrps[0].spec).toMatchObject({ chartName: 'cilium', version: cniCharts.cilium.version, clusterRef: { name: cluster, namespace: ns } });
    expect(hrps[0].spec.values).toContain('k8sServiceHost: "10.10.0.5"');
    expect(hrps[0].status).toMatchObject({ status: 'deployed' });
    // What helm install would have created in the tenant cluster: the agent DaemonSet and the operator.
    const t = started(tenant).client;
    expect((await t.get('/apis/apps/v1/namespaces/kube-system/daemonsets/cilium')).status).toBe(200);
    expect((await t.get('/apis/apps/v1/namespaces/kube-system/deployments/cilium-operator')).status).toBe(200);
  }, 180000);

  it('counts a Calico release deployed without a render, and says so (no served module carries its chart)', async () => {
    const { client } = started(mgmt);
    const label = async (cni: string) =>
      client.request(
        'PATCH',
        `/apis/cluster.x-k8s.io/v1beta2/namespaces/${ns}/clusters/${cluster}`,
        { metadata: { labels: { [LABEL_CNI]: cni } } },
        'application/merge-patch+json',
      );
    await label('calico');
    try {
      const player = await withProxy(client, cniHelmChartProxy('calico', ns) as KubeObject);
      expect(player.cniRelease(ns, cluster)).toEqual({
        chart: 'tigera-operator',
        status: 'deployed',
        notRendered: expect.stringContaining('in no module the Go proxy serves'),
      });
    } finally {
      await label('cilium');
    }
    const cilium = await withProxy(client, cniHelmChartProxy('cilium', ns) as KubeObject);
    expect(cilium.cniRelease(ns, cluster)).toEqual({ chart: 'cilium', status: 'deployed' });
  }, 180000);

  it('never creates a second HelmReleaseProxy when listing them fails (the API server restarting)', async () => {
    const { client } = started(mgmt);
    const player = await withProxy(client, cniHelmChartProxy('cilium', ns) as KubeObject);
    expect(player.cniReady(ns, cluster)).toBe(true);
    // The same player through a client whose HelmReleaseProxy list answers 404, as a restarted
    // management API server does before it serves the CRD again; everything else goes through.
    const restarting = new Proxy(client, {
      get(target, prop, receiver) {
        if (prop === 'get')
          return (path: string) =>
            /\/helmreleaseproxies\?/.test(path)
              ? Promise.resolve({ status: 404, body: { message: 'the server could not find the requested resource' }, text: '' })
              : target.get(path);
        const v = Reflect.get(target, prop, receiver);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
    const flaky = new AddonPlayer(restarting, kamaji(), root);
    await flaky.tick();
    expect(flaky.cniReady(ns, cluster)).toBe(false);
    expect(flaky.cniWaiting(ns, cluster)).toMatch(/failed: listing HelmReleaseProxies of cluster tenant-x\/tenant-x: HTTP 404/);
    const list = async () => (await client.get(`/apis/addons.cluster.x-k8s.io/v1alpha1/namespaces/${ns}/helmreleaseproxies`)).body.items;
    expect(await list()).toHaveLength(1);
    // Served again: the one proxy is found and the CNI is ready, as before.
    await player.tick();
    expect(await list()).toHaveLength(1);
    expect(player.cniReady(ns, cluster)).toBe(true);
  }, 180000);

  it('reinstalls from the new repository when the HelmChartProxy repoURL changes (a mirror set on a running lab)', async () => {
    const { client } = started(mgmt);
    const rendered = cniHelmChartProxy('cilium', ns) as any;
    const player = await withProxy(client, rendered);
    expect(player.cniReady(ns, cluster)).toBe(true);
    const list = async () => (await client.get(`/apis/addons.cluster.x-k8s.io/v1alpha1/namespaces/${ns}/helmreleaseproxies`)).body.items;
    const before = (await list())[0];
    await client.applyOrThrow({ ...rendered, spec: { ...rendered.spec, repoURL: 'https://charts.mirror.lab/cilium' } }, { force: true });
    await player.tick();
    expect(player.cniWaiting(ns, cluster)).toMatch(/preparing to reinstall \(repoURL changed\)/);
    // The old one deleted (no finalizer here), a new one on the next round, installed again.
    await player.tick();
    const after = await list();
    expect(after).toHaveLength(1);
    expect(after[0].metadata.uid).not.toBe(before.metadata.uid);
    expect(after[0].spec.repoURL).toBe('https://charts.mirror.lab/cilium');
    expect(player.cniReady(ns, cluster)).toBe(true);
  }, 180000);

  const mutations: [string, (p: any) => void, RegExp][] = [
    ['a HelmChartProxy in namespace default', (p) => (p.metadata.namespace = 'default'), /no HelmChartProxy in namespace tenant-x selects Cluster tenant-x/],
    [
      'a selector matching no Cluster',
      (p) => (p.spec.clusterSelector.matchLabels[LABEL_CNI] = 'calico'),
      /no HelmChartProxy in namespace tenant-x selects Cluster tenant-x/,
    ],
    [
      'a matchExpression excluding the Cluster',
      (p) => (p.spec.clusterSelector = { matchExpressions: [{ key: LABEL_CNI, operator: 'NotIn', values: ['cilium'] }] }),
      /no HelmChartProxy/,
    ],
    ['values the chart schema refuses', (p) => (p.spec.valuesTemplate += 'hubble:\n  enabled: "yes"\n'), /failed: helm template: .*hubble/s],
    ['a values template that does not parse', (p) => (p.spec.valuesTemplate = '{{ .Cluster.spec.controlPlaneEndpoint.host '), /failed: failed to parse values/],
    ['a chart version not pinned', (p) => (p.spec.version = '1.17.0'), /failed: chart cilium version 1\.17\.0 is not the pinned/],
  ];
  it.each(mutations)(
    'leaves the Cluster without its CNI with %s',
    async (_name, mutate, why) => {
      const { client } = started(mgmt);
      const proxy = structuredClone(cniHelmChartProxy('cilium', ns)) as any;
      mutate(proxy);
      const player = await withProxy(client, proxy);
      expect(player.cniReady(ns, cluster)).toBe(false);
      expect(player.cniWaiting(ns, cluster)).toMatch(why);
    },
    180000,
  );
});
