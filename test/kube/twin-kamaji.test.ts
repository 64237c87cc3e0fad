/**
 * The lab twin's Kamaji and provider (scripts/twin/kamaji.ts) on a real management API server, with
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
import { KamajiPlayer, type KamajiReleases } from '../../scripts/twin/kamaji';
import { startKubeServer, type KubeClient, type KubeObject, type KubeServer } from '../support/kube-apiserver';
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
beforeAll(async () => {
  server = await startKubeServer({ controllerManager: false });
  await started(server).client.applyOrThrow({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kamaji-system' } });
  player = new KamajiPlayer(started(server).client, () => releases);
}, 300000);
afterAll(async () => {
  await player?.stop();
  await tearDown(undefined, server);
}, 60000);

/** A Cluster, its ProxmoxCluster and its KamajiControlPlane as CAPI's topology would make them from the class. */
async function tenant(client: KubeClient, name: string, edit: (spec: any) => void = () => {}): Promise<void> {
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
  spec.network = { ...spec.network, serviceAddress: '10.10.0.5' };
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
