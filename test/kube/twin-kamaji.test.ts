/**
 * The lab twin's Kamaji and provider (twin/kamaji/) on a real management API server, with
 * what CAPI would do played by hand (owner reference, endpoint copy, infrastructure provisioned): a
 * KamajiControlPlane as the class renders it gets its TenantControlPlane, Kamaji's Secrets in
 * Kamaji's layout, a tenant API server and `initialized`; a wrong DataStore, a DataStore that is not
 * ready, or a version Kamaji does not support never gets a control plane, and says why.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseLab } from '../../modules/config/load';
import { renderManagement } from '../../modules/management';
import { clusterClassTemplates } from '../../modules/tenants/cluster-class-templates';
import { KAMAJI_DATASTORE_NAME } from '../../modules/versions/layout';
import { KamajiPlayer, type KamajiReleases, type TenantControlPlaneView } from '../../twin/kamaji';
import { caCertHash, computeDetachedSignature, detachedTokenIsValid, KubeletPlayer } from '../../twin/kubelets';
import type { SimVmView } from '../../sim/simulator';
import { stringify } from 'yaml';
import { startKubeServer, type KubeClient, type KubeObject, type KubeServer, type KubeServerOptions } from '../support/kube-apiserver';
import { started, tearDown } from '../support/lifecycle';

const root = join(__dirname, '../..');
const lab = parseLab(readFileSync(join(root, 'examples/lab.yaml'), 'utf8'), 'examples/lab.yaml');
const { values } = renderManagement(lab);
const releases: KamajiReleases = {
  kamaji: { namespace: 'kamaji-system', values: values.kamaji as Record<string, any> },
  kamajiEtcd: { name: 'kamaji-etcd', namespace: 'kamaji-system', values: values.kamajiEtcd as Record<string, any> },
};
const templates = clusterClassTemplates({ dataStoreName: KAMAJI_DATASTORE_NAME, multiInstance: 'refuse' }) as any[];
const CAPI = 'cluster.x-k8s.io/v1beta2';
const KCP = 'controlplane.cluster.x-k8s.io/v1alpha2';

let server: KubeServer | undefined;
let player: KamajiPlayer | undefined;
/**
 * The mutation of a rolling update (the corpus's `upgrade-never-ready`): while set, a new version's
 * control-plane pod (started with the serving pod's certificates) gets an API server whose etcd does
 * not answer, so it never becomes Ready — a broken image or flag of the new version, as far as
 * Kamaji and the Service can tell.
 */
let newPodsNeverReady = false;
const startPod = (options: KubeServerOptions) =>
  newPodsNeverReady && options.certificatesFrom
    ? startKubeServer({
        ...options,
        readyTimeoutMs: 20000,
        // A datastore at an address nothing answers (its only --etcd-servers: the flag is a list, so a
        // second --etcd-servers would add an address, not replace the working one).
        etcd: {
          url: 'https://127.0.0.1:9',
          prefix: options.etcd?.prefix ?? '/never-ready',
          caFile: join(options.certificatesFrom, 'ca.crt'),
          certFile: join(options.certificatesFrom, 'admin.crt'),
          keyFile: join(options.certificatesFrom, 'admin.key'),
        },
      })
    : startKubeServer(options);
beforeAll(async () => {
  server = await startKubeServer({ controllerManager: false });
  await started(server).client.applyOrThrow({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kamaji-system' } });
  player = new KamajiPlayer(started(server).client, () => releases, undefined, { startServer: startPod });
}, 300000);
afterAll(async () => {
  await player?.stop();
  await tearDown(undefined, server);
}, 60000);

/** A Cluster, its ProxmoxCluster and its KamajiControlPlane as CAPI's topology would make them from the class. */
async function tenant(client: KubeClient, name: string, edit: (spec: any) => void = () => {}, address = '10.10.0.5'): Promise<void> {
  await client.applyOrThrow({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  const infra = templates.find((t) => t.kind === 'ProxmoxClusterTemplate').spec.template.spec;
  await client.applyOrThrow({
    apiVersion: 'infrastructure.cluster.x-k8s.io/v1alpha2',
    kind: 'ProxmoxCluster',
    metadata: { name, namespace: name },
    spec: infra,
  } as KubeObject);
  const cluster = await client.applyOrThrow({
    apiVersion: CAPI,
    kind: 'Cluster',
    metadata: { name, namespace: name },
    spec: {
      clusterNetwork: { pods: { cidrBlocks: ['10.244.0.0/16'] }, services: { cidrBlocks: ['10.96.0.0/12'] } },
      infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'ProxmoxCluster', name },
      controlPlaneRef: { apiGroup: 'controlplane.cluster.x-k8s.io', kind: 'KamajiControlPlane', name },
    },
  } as KubeObject);
  const spec = { ...structuredClone(templates.find((t) => t.kind === 'KamajiControlPlaneTemplate').spec.template.spec), version: 'v1.36.3', replicas: 2 };
  spec.network = { ...spec.network, serviceAddress: address };
  edit(spec);
  await client.applyOrThrow({
    apiVersion: KCP,
    kind: 'KamajiControlPlane',
    metadata: {
      name,
      namespace: name,
      labels: { 'cluster.x-k8s.io/cluster-name': name },
      ownerReferences: [{ apiVersion: CAPI, kind: 'Cluster', name, uid: cluster.metadata.uid as string }],
    },
    spec,
  } as KubeObject);
}

const get = async (client: KubeClient, path: string) => (await client.get(path)).body;
const condition = (kcp: any, type: string) => (kcp.status?.conditions ?? []).find((c: any) => c.type === type);

describe('Kamaji and its provider, as the twin plays them', () => {
  it("brings up the control plane the class renders: TenantControlPlane, Kamaji's Secrets, initialized", async () => {
    const { client } = started(server);
    await tenant(client, 'tenant-ok');
    await player!.tick();
    await player!.tick();
    const ds = await get(client, `/apis/kamaji.clastix.io/v1alpha1/datastores/${KAMAJI_DATASTORE_NAME}`);
    expect(ds.status).toMatchObject({ ready: true });
    const tcp = await get(client, '/apis/kamaji.clastix.io/v1alpha1/namespaces/tenant-ok/tenantcontrolplanes/tenant-ok');
    expect(tcp.spec).toMatchObject({
      dataStore: KAMAJI_DATASTORE_NAME,
      kubernetes: { version: 'v1.36.3' },
      networkProfile: { address: '10.10.0.5', serviceCidr: '10.96.0.0/12', podCidr: '10.244.0.0/16' },
    });
    expect(tcp.status).toMatchObject({
      controlPlaneEndpoint: '10.10.0.5:6443',
      storage: { dataStoreName: KAMAJI_DATASTORE_NAME },
      kubernetesResources: { version: { status: 'Ready' } },
    });
    // Kamaji's CA Secret is the Cluster's `<cluster>-ca` here (the control plane is named like its Cluster).
    const ca = await get(client, '/api/v1/namespaces/tenant-ok/secrets/tenant-ok-ca');
    expect(Object.keys(ca.data).sort()).toEqual(['ca.crt', 'ca.key', 'tls.crt', 'tls.key']);
    expect(ca.metadata.ownerReferences[0]).toMatchObject({ kind: 'TenantControlPlane', name: 'tenant-ok' });
    expect(ca.metadata.labels).toMatchObject({
      'kamaji.clastix.io/project': 'kamaji',
      'kamaji.clastix.io/name': 'tenant-ok',
      'kamaji.clastix.io/component': 'ca',
    });
    const admin = await get(client, '/api/v1/namespaces/tenant-ok/secrets/tenant-ok-admin-kubeconfig');
    expect(Object.keys(admin.data).sort()).toEqual(['admin.conf', 'admin.svc', 'super-admin.conf', 'super-admin.svc']);
    expect(
      (await get(client, '/apis/infrastructure.cluster.x-k8s.io/v1alpha2/namespaces/tenant-ok/proxmoxclusters/tenant-ok')).spec.controlPlaneEndpoint,
    ).toEqual({ host: '10.10.0.5', port: 6443 });
    let kcp = await get(client, `/apis/${KCP}/namespaces/tenant-ok/kamajicontrolplanes/tenant-ok`);
    expect(kcp.spec.controlPlaneEndpoint).toEqual({ host: '10.10.0.5', port: 6443 });
    expect(kcp.status?.initialization?.controlPlaneInitialized).not.toBe(true);
    expect(player!.waitingIn('tenant-ok')).toBe('Cluster control plane endpoint still unprocessed');
    // CAPI's part, by hand: the endpoint onto the Cluster, the infrastructure provisioned.
    await client.request(
      'PATCH',
      `/apis/${CAPI}/namespaces/tenant-ok/clusters/tenant-ok`,
      { spec: { controlPlaneEndpoint: { host: '10.10.0.5', port: 6443 } } },
      'application/merge-patch+json',
    );
    await client.request(
      'PATCH',
      `/apis/${CAPI}/namespaces/tenant-ok/clusters/tenant-ok/status`,
      { status: { initialization: { infrastructureProvisioned: true } } },
      'application/merge-patch+json',
    );
    await player!.tick();
    kcp = await get(client, `/apis/${KCP}/namespaces/tenant-ok/kamajicontrolplanes/tenant-ok`);
    expect(kcp.status).toMatchObject({ initialization: { controlPlaneInitialized: true }, ready: true, version: 'v1.36.3' });
    expect(condition(kcp, 'Available')).toMatchObject({ status: 'True' });
    expect(player!.waitingIn('tenant-ok')).toBeUndefined();
    const kubeconfig = await get(client, '/api/v1/namespaces/tenant-ok/secrets/tenant-ok-kubeconfig');
    expect(kubeconfig.type).toBe('cluster.x-k8s.io/secret');
    expect(kubeconfig.metadata.labels).toMatchObject({ 'cluster.x-k8s.io/cluster-name': 'tenant-ok' });
    expect(Buffer.from(kubeconfig.data.value, 'base64').toString()).toBe(Buffer.from(admin.data['admin.conf'], 'base64').toString());
    // The Konnectivity addon's agent in the tenant cluster.
    const plane = [...player!.planes.values()].find((p) => p.namespace === 'tenant-ok')!;
    expect((await plane.server.client.get('/apis/apps/v1/namespaces/kube-system/daemonsets/konnectivity-agent')).status).toBe(200);
  }, 180000);

  it("never creates a control plane for a DataStore that does not exist, and says why (Kamaji's webhook)", async () => {
    const { client } = started(server);
    await tenant(client, 'tenant-nods', (spec) => (spec.dataStoreName = 'does-not-exist'));
    await player!.tick();
    await player!.tick();
    expect((await client.get('/apis/kamaji.clastix.io/v1alpha1/namespaces/tenant-nods/tenantcontrolplanes/tenant-nods')).status).toBe(404);
    const kcp = await get(client, `/apis/${KCP}/namespaces/tenant-nods/kamajicontrolplanes/tenant-nods`);
    expect(condition(kcp, 'TenantControlPlaneCreated')).toMatchObject({
      status: 'False',
      message: expect.stringContaining('does-not-exist DataStore does not exist'),
    });
    expect(kcp.status?.initialization?.controlPlaneInitialized).toBeUndefined();
    expect(player!.waitingIn('tenant-nods')).toMatch(/does-not-exist DataStore does not exist/);
    expect([...player!.planes.values()].some((p) => p.namespace === 'tenant-nods')).toBe(false);
  }, 120000);

  it('refuses a Kubernetes version above what this Kamaji supports', async () => {
    const { client } = started(server);
    await tenant(client, 'tenant-new', (spec) => (spec.version = 'v1.37.2'));
    await player!.tick();
    expect(player!.waitingIn('tenant-new')).toMatch(/greater than the supported one, actually v1\.36/);
    expect((await client.get('/apis/kamaji.clastix.io/v1alpha1/namespaces/tenant-new/tenantcontrolplanes/tenant-new')).status).toBe(404);
  }, 120000);

  it('admits but never starts a control plane while its DataStore is not ready (a TLS Secret missing)', async () => {
    const { client } = started(server);
    const secret = await get(client, '/api/v1/namespaces/kamaji-system/secrets/kamaji-etcd-client-certs');
    await client.delete('/api/v1/namespaces/kamaji-system/secrets/kamaji-etcd-client-certs');
    try {
      await tenant(client, 'tenant-notready');
      await player!.tick();
      await player!.tick();
      const ds = await get(client, `/apis/kamaji.clastix.io/v1alpha1/datastores/${KAMAJI_DATASTORE_NAME}`);
      expect(ds.status.ready).toBe(false);
      expect(ds.status.conditions[0]).toMatchObject({ status: 'False', reason: 'TLSConfigurationValidationFailed' });
      expect((await client.get('/apis/kamaji.clastix.io/v1alpha1/namespaces/tenant-notready/tenantcontrolplanes/tenant-notready')).status).toBe(200);
      expect(player!.waitingIn('tenant-notready')).toMatch(
        /DataStore default is not ready: client certificate is not valid, secret kamaji-system\/kamaji-etcd-client-certs is not found/,
      );
      expect([...player!.planes.values()].some((p) => p.namespace === 'tenant-notready')).toBe(false);
    } finally {
      const { metadata, ...rest } = secret;
      await client.post('/api/v1/namespaces/kamaji-system/secrets', {
        ...rest,
        metadata: { name: metadata.name, namespace: metadata.namespace, labels: metadata.labels },
      });
    }
  }, 120000);
});

/** CAPI's part by hand (the endpoint onto the Cluster, the infrastructure provisioned), then ticks until the control plane is initialized. */
async function initialized(client: KubeClient, name: string, address: string): Promise<TenantControlPlaneView> {
  await player!.tick();
  await player!.tick();
  await client.request(
    'PATCH',
    `/apis/${CAPI}/namespaces/${name}/clusters/${name}`,
    { spec: { controlPlaneEndpoint: { host: address, port: 6443 } } },
    'application/merge-patch+json',
  );
  await client.request(
    'PATCH',
    `/apis/${CAPI}/namespaces/${name}/clusters/${name}/status`,
    { status: { initialization: { infrastructureProvisioned: true } } },
    'application/merge-patch+json',
  );
  await player!.tick();
  const kcp = await get(client, `/apis/${KCP}/namespaces/${name}/kamajicontrolplanes/${name}`);
  expect({ name, initialized: kcp.status?.initialization?.controlPlaneInitialized, waiting: player!.waitingIn(name) }).toEqual({
    name,
    initialized: true,
    waiting: undefined,
  });
  return [...player!.planes.values()].find((p) => p.namespace === name)!;
}

const gitVersion = async (plane: TenantControlPlaneView) => (await plane.server.client.get('/version')).body.gitVersion as string;

/**
 * Asks the tenant API server (through its Service) every second, as a client-go client would: a GET
 * answered with a Retry-After header (503 "apiserver is shutting down" from the old pod's server on a
 * kept-alive connection, apiserver pkg/server/filters/waitgroup.go) or cut by a connection reset or
 * EOF (that connection's server stopping) is asked again after a second, up to 10 times (client-go
 * v0.36.3 rest/with_retry.go checkWait and retryAfterResponse, rest/request.go isErrRetryableFunc,
 * maxRetries 10). What it answered, each retry, the most retries one question needed, and every
 * question it could not get answered.
 */
function sampleApi(plane: TenantControlPlaneView) {
  const answers: string[] = [];
  const retried: string[] = [];
  const failures: string[] = [];
  let mostRetries = 0;
  let stopped = false;
  const ask = async (): Promise<void> => {
    for (let attempt = 0; ; attempt++) {
      mostRetries = Math.max(mostRetries, attempt);
      let why: string;
      try {
        const r = await plane.server.client.get('/version');
        if (r.status === 200) {
          answers.push(r.body.gitVersion);
          return;
        }
        why = `HTTP ${r.status}: ${r.body?.message ?? r.text}`;
        if (r.retryAfter === undefined) attempt = 10;
      } catch (e) {
        why = (e as Error).message;
        if (!/socket hang up|ECONNRESET|EOF/.test(why)) attempt = 10;
      }
      if (attempt >= 10) {
        failures.push(`${new Date().toISOString()}: ${why}`);
        return;
      }
      retried.push(why);
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  };
  const loop = (async () => {
    while (!stopped) {
      const at = Date.now();
      await ask();
      await new Promise((r) => setTimeout(r, Math.max(0, 1000 - (Date.now() - at))));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
      return { answers, retried, failures, mostRetries };
    },
  };
}

/** The KamajiControlPlane's version moved to `to`, as CAPI's topology controller does for an upgrade (the provider then updates the TenantControlPlane). */
async function upgradeTo(client: KubeClient, name: string, to: string): Promise<void> {
  const r = await client.request(
    'PATCH',
    `/apis/${KCP}/namespaces/${name}/kamajicontrolplanes/${name}`,
    { spec: { version: to } },
    'application/merge-patch+json',
  );
  expect(r.status).toBe(200);
}

const tcpVersion = async (client: KubeClient, name: string) =>
  (await get(client, `/apis/kamaji.clastix.io/v1alpha1/namespaces/${name}/tenantcontrolplanes/${name}`)).status.kubernetesResources;

describe("Kamaji's upgrade, as the twin plays it", () => {
  // A patch (both versions run the pinned v1.36.3 binaries: the served version does not change, the pod does) and a minor.
  it.each([
    ['tenant-patch', 'v1.36.2', 'v1.36.3', 'v1.36.3', '10.10.0.9'],
    ['tenant-up', 'v1.35.4', 'v1.36.3', 'v1.35.4', '10.10.0.6'],
  ])(
    '%s: runs the control plane on its own version and rolls %s → %s: the new server Ready before the old one stops, Upgrading meanwhile, the API answering every second',
    async (name, from, to, served, address) => {
      const { client } = started(server);
      await tenant(client, name, (spec) => (spec.version = from), address);
      const plane = await initialized(client, name, address);
      // The tenant's own version: the real binaries of its minor's pinned patch, beside the management server's.
      expect(await gitVersion(plane)).toBe(served);
      expect((await started(server).client.get('/version')).body.gitVersion).toBe('v1.36.3');
      expect((await tcpVersion(client, name)).version).toEqual({ version: from, status: 'Ready' });
      const first = plane.server.current;
      // Something in the tenant's datastore, which the new server must serve too (same prefix).
      await plane.server.client.applyOrThrow({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'kept', namespace: 'default' },
        data: { v: '1' },
      } as KubeObject);

      const sampler = sampleApi(plane);
      await upgradeTo(client, name, to);
      await player!.tick();
      // The new pod is starting beside the serving one: Upgrading, the status version still the old one.
      let resources = await tcpVersion(client, name);
      expect(resources.version).toEqual({ version: from, status: 'Upgrading' });
      expect(resources.deployment).toMatchObject({ replicas: 4, readyReplicas: 2, unavailableReplicas: 2 });
      expect(await gitVersion(plane)).toBe(served);
      let kcp = await get(client, `/apis/${KCP}/namespaces/${name}/kamajicontrolplanes/${name}`);
      expect(kcp.status).toMatchObject({ version: from, ready: true });
      expect(player!.waitingIn(name)).toContain(`upgrading ${from} → ${to}: the new control-plane pod is not Ready yet`);
      const deadline = Date.now() + 180000;
      while (plane.version !== to && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 1000));
        await player!.tick();
      }
      await player!.tick();
      const samples = await sampler.stop();
      expect(plane.version).toBe(to);
      expect(plane.server.current).not.toBe(first);
      expect(await gitVersion(plane)).toBe('v1.36.3');
      resources = await tcpVersion(client, name);
      expect(resources.version).toEqual({ version: to, status: 'Ready' });
      expect(resources.deployment).toMatchObject({ replicas: 2, readyReplicas: 2, updatedReplicas: 2 });
      kcp = await get(client, `/apis/${KCP}/namespaces/${name}/kamajicontrolplanes/${name}`);
      expect(kcp.status).toMatchObject({ version: to, ready: true });
      // Answering throughout, first the old version, then the new one, never back.
      expect(samples.failures).toEqual([]);
      // A retry is only ever the old server going away under a kept-alive connection, and the next
      // question a second later is answered: never two seconds without a server to answer.
      for (const r of samples.retried) expect(r).toMatch(/^HTTP 503: apiserver is shutting down$|socket hang up|ECONNRESET|EOF/);
      expect(samples.mostRetries).toBeLessThanOrEqual(1);
      expect(samples.answers.length).toBeGreaterThan(1);
      expect(samples.answers[0]).toBe(served);
      expect(samples.answers.slice(samples.answers.indexOf('v1.36.3')).every((v) => v === 'v1.36.3')).toBe(true);
      // The same datastore prefix and certificates: the object is there, the admin kubeconfig unchanged.
      expect((await plane.server.client.get('/api/v1/namespaces/default/configmaps/kept')).body.data).toEqual({ v: '1' });
    },
    300000,
  );

  it('leaves the old server serving and the upgrade visibly stuck when the new server never becomes Ready', async () => {
    const { client } = started(server);
    await tenant(client, 'tenant-stuck', (spec) => (spec.version = 'v1.36.2'), '10.10.0.7');
    const plane = await initialized(client, 'tenant-stuck', '10.10.0.7');
    const first = plane.server.current;
    newPodsNeverReady = true;
    try {
      await upgradeTo(client, 'tenant-stuck', 'v1.36.3');
      const deadline = Date.now() + 120000;
      while (!plane.rollout?.failed && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 1000));
        await player!.tick();
      }
      await player!.tick();
      expect(plane.rollout).toMatchObject({ to: 'v1.36.3', failed: expect.stringContaining('kube-apiserver') });
      expect(player!.waitingIn('tenant-stuck')).toMatch(
        /the upgrade v1\.36\.2 → v1\.36\.3 is stuck: the new control-plane pod does not become Ready .*the v1\.36\.2 pod keeps serving/,
      );
      // The old pod serves: the same server, answering.
      expect(plane.server.current).toBe(first);
      expect((await plane.server.client.get('/readyz')).status).toBe(200);
      expect(plane.version).toBe('v1.36.2');
      expect((await tcpVersion(client, 'tenant-stuck')).version).toEqual({ version: 'v1.36.2', status: 'Upgrading' });
      expect((await get(client, `/apis/${KCP}/namespaces/tenant-stuck/kamajicontrolplanes/tenant-stuck`)).status.version).toBe('v1.36.2');
    } finally {
      newPodsNeverReady = false;
    }
  }, 300000);
});

describe('kubelets as strict as kubeadm join, against a real tenant control plane', () => {
  const token = { id: 'abcdef', secret: '0123456789abcdef' };
  let plane: TenantControlPlaneView;
  let hash: string;
  beforeAll(async () => {
    const { client } = started(server);
    await tenant(client, 'tenant-join', (spec) => (spec.version = 'v1.36.3'), '10.10.0.8');
    plane = await initialized(client, 'tenant-join', '10.10.0.8');
    hash = caCertHash(readFileSync(join(plane.server.dir, 'ca.crt'), 'utf8'));
    // The bootstrap token as CABPK writes it into the workload cluster (both usages).
    await plane.server.client.applyOrThrow({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: `bootstrap-token-${token.id}`, namespace: 'kube-system' },
      type: 'bootstrap.kubernetes.io/token',
      stringData: {
        'token-id': token.id,
        'token-secret': token.secret,
        'usage-bootstrap-authentication': 'true',
        'usage-bootstrap-signing': 'true',
      },
    } as KubeObject);
  }, 240000);

  const template = (vmid: number, version: string): SimVmView => ({
    instance: 'pve',
    vmid,
    node: 'pve-1',
    template: true,
    status: 'stopped',
    tags: ['capi', version],
    disks: [],
    cdroms: [],
  });
  const machine = (vmid: number, name: string, cloneOf: number, secret = token.secret): SimVmView => ({
    instance: 'pve',
    vmid,
    name,
    node: 'pve-1',
    template: false,
    status: 'running',
    tags: [],
    disks: [],
    cdroms: [],
    cloneOf,
    uuid: `00000000-0000-4000-8000-${String(vmid).padStart(12, '0')}`,
    bootstrap: {
      userData: `## template: jinja\n#cloud-config\n${stringify({
        write_files: [
          {
            path: '/run/kubeadm/kubeadm-join-config.yaml',
            content: stringify({
              discovery: { bootstrapToken: { apiServerEndpoint: '10.10.0.8:6443', token: `${token.id}.${secret}`, caCertHashes: [hash] } },
              nodeRegistration: { name },
            }),
          },
        ],
      })}`,
    },
  });

  it("signs cluster-info with the tenant's real bootstrapsigner, and the join's JWS check agrees with it", async () => {
    const deadline = Date.now() + 60000;
    let info: any;
    while (Date.now() < deadline) {
      info = (await plane.server.client.get('/api/v1/namespaces/kube-public/configmaps/cluster-info')).body;
      if (info?.data?.[`jws-kubeconfig-${token.id}`]) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    const signature = info.data[`jws-kubeconfig-${token.id}`];
    expect(info.data.kubeconfig).toContain('server: https://10.10.0.8:6443');
    expect(detachedTokenIsValid(signature, info.data.kubeconfig, token.id, token.secret)).toBe(true);
    // What the real signer wrote is what DetachedTokenIsValid recomputes.
    expect(computeDetachedSignature(info.data.kubeconfig, token.id, token.secret)).toBe(signature);
    expect(detachedTokenIsValid(signature, info.data.kubeconfig, token.id, 'fedcba9876543210')).toBe(false);
    expect(detachedTokenIsValid(signature, `${info.data.kubeconfig}#`, token.id, token.secret)).toBe(false);
  }, 120000);

  it("registers a Node only when its template is the Machine's version and not newer than the control plane; refuses a wrong token by its JWS", async () => {
    // The control plane runs v1.36.3; a v1.37.2 kubelet (a template of the next minor, its Machine asking for it) is newer.
    const machines = new Map<string, string>([
      ['join-ok', 'v1.36.3'],
      ['join-newer', 'v1.37.2'],
      ['join-other', 'v1.37.2'],
      ['join-badtoken', 'v1.36.3'],
    ]);
    const vms = [
      template(1000, 'v1.36.3'),
      template(1001, 'v1.37.2'),
      machine(201, 'join-ok', 1000),
      machine(202, 'join-newer', 1001),
      machine(203, 'join-other', 1000),
      machine(204, 'join-badtoken', 1000, 'fedcba9876543210'),
    ];
    const kubelets = new KubeletPlayer(
      () => vms,
      player!,
      { ready: () => true, waiting: () => '' },
      () => {},
      async () => undefined,
      async (_ns, vm) => machines.get(vm.name!),
    );
    const deadline = Date.now() + 60000;
    while (!kubelets.nodes.has('pve/201') && Date.now() < deadline) {
      await kubelets.tick();
      await new Promise((r) => setTimeout(r, 500));
    }
    await kubelets.tick();
    expect(kubelets.nodes.get('pve/201')).toMatchObject({ name: 'join-ok', ready: true });
    expect(Object.fromEntries([...kubelets.refused].sort())).toEqual({
      'pve/202': expect.stringContaining(
        'the kubelet version is higher than the control plane version. This is not a supported version skew and may lead to a malfunctional cluster. Kubelet version: "v1.37.2" Control plane version: "v1.36.3"',
      ),
      'pve/203': expect.stringContaining("the kubelet is v1.36.3 (the template the VM was cloned from) but its Machine's spec.version is v1.37.2"),
      'pve/204': "failed to verify JWS signature of received cluster info object, can't trust this API Server",
    });
    const nodes = ((await plane.server.client.get('/api/v1/nodes')).body.items as any[]).map((n) => n.metadata.name);
    expect(nodes).toEqual(['join-ok']);
  }, 120000);
});
