/**
 * The static control plane on a real API server: an object created with only a spec reads back as
 * an initialized, externally managed control plane, with nobody writing its status — and the
 * defaults are applied on read, also to an object stored before they existed. The secondary
 * Clusters of the example lab's MultiInstance tenant pass the server's admission (schema, CEL)
 * next to the pinned upstream CRDs.
 */
import { renderTenant } from '../../modules/tenants';
import { staticControlPlaneCrd, STATIC_CONTROL_PLANE_API, STATIC_CONTROL_PLANE_GROUP } from '../../modules/tenants/static-control-plane';
import { startKubeServer, type KubeClient, type KubeObject, type KubeServer } from '../support/kube-apiserver';
import { started, tearDown } from '../support/lifecycle';
import { labWith, planOf } from '../tenants/fixtures';

let server: KubeServer | undefined;
beforeAll(async () => {
  server = await startKubeServer({ controllerManager: false });
}, 300000);
afterAll(() => tearDown(undefined, server), 60000);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function established(client: KubeClient, name: string): Promise<void> {
  for (let i = 0; i < 120; i++) {
    const r = await client.get(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`);
    if (r.body?.status?.conditions?.some((c: any) => c.type === 'Established' && c.status === 'True')) return;
    await sleep(250);
  }
  throw new Error(`CRD ${name} not established`);
}

async function namespace(client: KubeClient, name: string): Promise<void> {
  await client.applyOrThrow({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
}

/** Reads an object back, retrying while a just-changed CRD's storage is being rebuilt. */
async function read(client: KubeClient, object: KubeObject, until: (o: any) => boolean = () => true): Promise<any> {
  let last: any;
  for (let i = 0; i < 80; i++) {
    const r = await client.get(await client.objectPath(object));
    if (r.status === 200) {
      last = r.body;
      if (until(last)) return last;
    }
    await sleep(250);
  }
  return last;
}

describe('the static control plane CRD on the test API server', () => {
  it('reports an initialized, externally managed control plane for an object created with only a spec', async () => {
    const { client } = started(server);
    await client.applyOrThrow(staticControlPlaneCrd() as KubeObject);
    await established(client, `staticcontrolplanes.${STATIC_CONTROL_PLANE_GROUP}`);
    await namespace(client, 'scp');
    const object: KubeObject = {
      apiVersion: STATIC_CONTROL_PLANE_API,
      kind: 'StaticControlPlane',
      metadata: { name: 'tenant-x-pmox-b', namespace: 'scp' },
      spec: { controlPlaneEndpoint: { host: '10.4.0.120', port: 6443 } },
    };
    const created = await client.applyOrThrow(object);
    expect(created).not.toHaveProperty('spec.version');
    const got = await read(client, object);
    expect(got.status).toEqual({ initialization: { controlPlaneInitialized: true }, externalManagedControlPlane: true });
    // The contract label CAPI reads the version from is on the CRD as served.
    const crd = await client.get(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/staticcontrolplanes.${STATIC_CONTROL_PLANE_GROUP}`);
    expect(crd.body.metadata.labels['cluster.x-k8s.io/v1beta2']).toBe('v1alpha1');
  }, 120000);

  it('applies the defaults on read: an object stored before the defaults existed reads back initialized', async () => {
    const { client } = started(server);
    // The same schema in a scratch group, first without any default.
    const group = 'scratch.pvekaas.lab';
    const withDefaults: any = staticControlPlaneCrd();
    withDefaults.metadata = { name: `staticcontrolplanes.${group}` };
    withDefaults.spec.group = group;
    const stripDefaults = (v: any): any =>
      Array.isArray(v)
        ? v.map(stripDefaults)
        : v && typeof v === 'object'
          ? Object.fromEntries(
              Object.entries(v)
                .filter(([k]) => k !== 'default')
                .map(([k, x]) => [k, stripDefaults(x)]),
            )
          : v;
    await client.applyOrThrow(stripDefaults(withDefaults));
    await established(client, `staticcontrolplanes.${group}`);
    await namespace(client, 'scp-read');
    const object: KubeObject = {
      apiVersion: `${group}/v1alpha1`,
      kind: 'StaticControlPlane',
      metadata: { name: 'stored-bare', namespace: 'scp-read' },
      spec: {},
    };
    await client.applyOrThrow(object);
    expect((await read(client, object)).status).toBeUndefined();

    // Now the defaults: nothing writes the stored object, yet it reads back initialized.
    await client.applyOrThrow(withDefaults, { force: true });
    const got = await read(client, object, (o) => o.status !== undefined);
    expect(got.status).toEqual({ initialization: { controlPlaneInitialized: true }, externalManagedControlPlane: true });
  }, 120000);

  it('admits the secondary Clusters of the example MultiInstance tenant next to the pinned CRDs (server-side dry run)', async () => {
    const { client } = started(server);
    const lab = labWith((doc) => {
      doc.capmox.multiInstance = 'secondary-clusters';
      doc.tenants[2].networks = { 'pmox-fra': { addresses: ['10.20.3.10-10.20.3.60'], prefix: 24, gateway: '10.20.3.1', dnsServers: ['10.20.3.1'] } };
      doc.tenants[2].pools.push({ name: 'burst', autoscaling: { min: 0, max: 2 }, size: { cpu: 2, memoryMiB: 4096, diskGiB: 20 } });
    });
    const r = renderTenant(lab, planOf(lab), 'tenant-c');
    await namespace(client, 'tenant-c');
    const objects = r.secondaries!.clusters.flatMap((sc) => [
      sc.controlPlane,
      sc.proxmoxCluster,
      sc.cluster,
      ...sc.healthChecks.values(),
      ...sc.machineDeployments.flatMap((m) => [m.bootstrapTemplate, m.machineTemplate, m.machineDeployment]),
    ]);
    const m = r.secondaries!.mirror;
    const refused: string[] = [];
    for (const o of [...objects, m.serviceAccount, m.role, m.roleBinding, m.cronJob]) {
      const answer = await client.apply(o as KubeObject, { dryRun: true });
      if (answer.status !== 200 && answer.status !== 201)
        refused.push(`${o.kind} ${o.metadata.name}: HTTP ${answer.status}: ${answer.body?.message ?? answer.text}`);
    }
    expect(refused).toEqual([]);
  }, 180000);

  it('lets the secret mirror read the primary CA and kubeconfig and write the secondary copies, and nothing else', async () => {
    const { client } = started(server);
    const lab = labWith((doc) => {
      doc.capmox.multiInstance = 'secondary-clusters';
      doc.tenants[2].networks = { 'pmox-fra': { addresses: ['10.20.3.10-10.20.3.60'], prefix: 24, gateway: '10.20.3.1', dnsServers: ['10.20.3.1'] } };
    });
    const m = renderTenant(lab, planOf(lab), 'tenant-c').secondaries!.mirror;
    await namespace(client, 'tenant-c');
    for (const o of [m.serviceAccount, m.role, m.roleBinding]) await client.applyOrThrow(o as KubeObject);
    const can = async (verb: string, resource: string, name?: string, group = ''): Promise<boolean> => {
      const r = await client.post('/apis/authorization.k8s.io/v1/subjectaccessreviews', {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        spec: {
          user: 'system:serviceaccount:tenant-c:pvekaas-secondary-secrets',
          groups: ['system:serviceaccounts', 'system:serviceaccounts:tenant-c', 'system:authenticated'],
          resourceAttributes: { namespace: 'tenant-c', verb, resource, group, ...(name ? { name } : {}) },
        },
      });
      expect(r.status).toBe(201);
      return r.body.status.allowed === true;
    };
    // The authorizer sees a new Role and RoleBinding through its informers, a moment after they are written.
    for (let i = 0; i < 50 && !(await can('get', 'secrets', 'tenant-c-ca')); i++) await new Promise((r) => setTimeout(r, 200));
    expect(await can('get', 'secrets', 'tenant-c-ca')).toBe(true);
    expect(await can('get', 'secrets', 'tenant-c-kubeconfig')).toBe(true);
    expect(await can('create', 'secrets')).toBe(true);
    expect(await can('patch', 'secrets', 'tenant-c-pmox-fra-kubeconfig')).toBe(true);
    expect(await can('get', 'clusters', 'tenant-c-pmox-fra', 'cluster.x-k8s.io')).toBe(true);
    // Not the Proxmox credentials, not the primary's copies, no listing, no deleting.
    expect(await can('get', 'secrets', 'capmox-pmox-fra-credentials')).toBe(false);
    expect(await can('patch', 'secrets', 'tenant-c-kubeconfig')).toBe(false);
    expect(await can('list', 'secrets')).toBe(false);
    expect(await can('delete', 'secrets', 'tenant-c-pmox-fra-ca')).toBe(false);
    expect(await can('patch', 'clusters', 'tenant-c-pmox-fra', 'cluster.x-k8s.io')).toBe(false);
    // The control plane version: the primary Cluster and its KamajiControlPlane read, the secondary's StaticControlPlane patched, no other.
    expect(await can('get', 'clusters', 'tenant-c', 'cluster.x-k8s.io')).toBe(true);
    expect(await can('get', 'kamajicontrolplanes', 'tenant-c-x7k2p', 'controlplane.cluster.x-k8s.io')).toBe(true);
    expect(await can('patch', 'kamajicontrolplanes', 'tenant-c-x7k2p', 'controlplane.cluster.x-k8s.io')).toBe(false);
    expect(await can('patch', 'staticcontrolplanes', 'tenant-c-pmox-fra', 'controlplane.pvekaas.lab')).toBe(true);
    expect(await can('patch', 'staticcontrolplanes', 'tenant-b-pmox-fra', 'controlplane.pvekaas.lab')).toBe(false);
    expect(await can('delete', 'staticcontrolplanes', 'tenant-c-pmox-fra', 'controlplane.pvekaas.lab')).toBe(false);
  }, 120000);
});
