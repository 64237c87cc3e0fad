/**
 * The lab twin's run of the secondary-clusters Secret mirror (twin/mirror.ts, jobs.ts) on a
 * real API server: the CronJob's script as rendered, with a token of the rendered ServiceAccount, so
 * the rendered Role decides. As rendered it copies the primary's CA and kubeconfig to the secondary;
 * each rendering mistake below (a verb, a resourceName, the binding, the ServiceAccount) fails the
 * run with the API server's own refusal and writes nothing.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseLab } from '../../modules/config/load';
import { MIRROR_NAME, secretMirror } from '../../modules/tenants/secondary-mirror';
import {
  STATIC_CONTROL_PLANE_GROUP,
  STATIC_CONTROL_PLANE_KIND,
  STATIC_CONTROL_PLANE_PLURAL,
  STATIC_CONTROL_PLANE_VERSION,
  staticControlPlaneCrd,
} from '../../modules/tenants/static-control-plane';
import { MirrorPlayer } from '../../twin/mirror';
import { startKubeServer, type KubeClient, type KubeObject, type KubeServer } from '../support/kube-apiserver';
import { started, tearDown } from '../support/lifecycle';

const root = join(__dirname, '../..');
const lab = parseLab(readFileSync(join(root, 'examples/lab.yaml'), 'utf8'), 'examples/lab.yaml');
const tenant = lab.tenants.find((t) => t.placement.mode === 'MultiInstance')!;
const ns = tenant.name;
const secondary = `${tenant.name}-second`;

let server: KubeServer | undefined;
beforeAll(async () => {
  server = await startKubeServer({ controllerManager: false });
  const { client } = started(server);
  await client.applyOrThrow({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  // The primary's Secrets as Kamaji and its provider write them (`<cluster>-ca` is Kamaji's own layout).
  await client.applyOrThrow({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `${tenant.name}-ca`, namespace: ns },
    data: { 'ca.crt': b64('CRT'), 'ca.key': b64('KEY'), 'tls.crt': b64('CRT'), 'tls.key': b64('KEY') },
  } as KubeObject);
  await client.applyOrThrow({
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'cluster.x-k8s.io/secret',
    metadata: { name: `${tenant.name}-kubeconfig`, namespace: ns },
    data: { value: b64('KUBECONFIG') },
  } as KubeObject);
  await client.applyOrThrow({
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Cluster',
    metadata: { name: secondary, namespace: ns },
    spec: { clusterNetwork: { serviceDomain: 'cluster.local' } },
  } as KubeObject);
  // The script's last lines read the primary Cluster's KamajiControlPlane's status.version and copy
  // it onto the secondary's StaticControlPlane (issue 21): the primary, its control plane and the
  // StaticControlPlane as the controllers and the tenant stack leave them.
  const kcp = `${tenant.name}-cp`;
  await client.applyOrThrow({
    apiVersion: 'controlplane.cluster.x-k8s.io/v1alpha2',
    kind: 'KamajiControlPlane',
    metadata: { name: kcp, namespace: ns },
    spec: { dataStoreName: 'default', version: tenant.kubernetesVersion },
  } as KubeObject);
  const st = await client.request(
    'PATCH',
    `/apis/controlplane.cluster.x-k8s.io/v1alpha2/namespaces/${ns}/kamajicontrolplanes/${kcp}/status`,
    { status: { ready: true, version: tenant.kubernetesVersion } },
    'application/merge-patch+json',
  );
  if (st.status !== 200) throw new Error(`KamajiControlPlane status: HTTP ${st.status}: ${st.text}`);
  await client.applyOrThrow({
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Cluster',
    metadata: { name: tenant.name, namespace: ns },
    spec: {
      clusterNetwork: { serviceDomain: 'cluster.local' },
      controlPlaneRef: { apiGroup: 'controlplane.cluster.x-k8s.io', kind: 'KamajiControlPlane', name: kcp },
    },
  } as KubeObject);
  await client.applyOrThrow(staticControlPlaneCrd() as KubeObject);
  const deadline = Date.now() + 30000;
  while (
    (await client.get(`/apis/${STATIC_CONTROL_PLANE_GROUP}/${STATIC_CONTROL_PLANE_VERSION}/namespaces/${ns}/${STATIC_CONTROL_PLANE_PLURAL}`)).status !== 200
  ) {
    if (Date.now() > deadline) throw new Error('the StaticControlPlane CRD is not served within 30 s');
    await new Promise((r) => setTimeout(r, 250));
  }
  await client.applyOrThrow({
    apiVersion: `${STATIC_CONTROL_PLANE_GROUP}/${STATIC_CONTROL_PLANE_VERSION}`,
    kind: STATIC_CONTROL_PLANE_KIND,
    metadata: { name: secondary, namespace: ns },
    spec: { version: tenant.kubernetesVersion },
  } as KubeObject);
}, 300000);
afterAll(() => tearDown(undefined, server), 60000);

function rendered() {
  return secretMirror(tenant, [secondary], 'registry.k8s.io/kubectl:v0');
}

async function applyMirror(client: KubeClient, m = rendered()): Promise<void> {
  for (const name of ['roles', 'rolebindings']) await client.delete(`/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/${name}/${MIRROR_NAME}`);
  for (const o of [m.serviceAccount, m.role, m.roleBinding, m.cronJob]) await client.applyOrThrow(o as KubeObject, { force: true });
  for (const s of ['ca', 'kubeconfig']) await client.delete(`/api/v1/namespaces/${ns}/secrets/${secondary}-${s}`);
  // The authorizer reads Roles from its informer: let the change arrive.
  await new Promise((r) => setTimeout(r, 2000));
}

async function runOnce(client: KubeClient, s: KubeServer) {
  const player = new MirrorPlayer(client, s.kubeconfig, root);
  await player.tick();
  const run = player.runs.get(ns)!;
  const copies = await Promise.all(['ca', 'kubeconfig'].map(async (k) => (await client.get(`/api/v1/namespaces/${ns}/secrets/${secondary}-${k}`)).body));
  return { run, copies };
}

describe('the secondary-clusters mirror, run as its CronJob would run', () => {
  it('copies the CA (certificate and key) and the kubeconfig to the secondary, as the rendered ServiceAccount', async () => {
    const s = started(server);
    await applyMirror(s.client);
    const { run, copies } = await runOnce(s.client, server!);
    expect(run.reason).toBeUndefined();
    expect(run.ok).toBe(true);
    const uid = (await s.client.get(`/apis/cluster.x-k8s.io/v1beta2/namespaces/${ns}/clusters/${secondary}`)).body.metadata.uid;
    expect(copies[0].data).toEqual({ 'tls.crt': Buffer.from('CRT').toString('base64'), 'tls.key': Buffer.from('KEY').toString('base64') });
    expect(copies[0].metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'Cluster', name: secondary, uid })]);
    expect(copies[1].data).toEqual({ value: Buffer.from('KUBECONFIG').toString('base64') });
    expect(copies[1].metadata.managedFields.map((f: any) => f.manager)).toContain(MIRROR_NAME);
    // The script's last lines: the primary's control plane version onto the StaticControlPlane.
    const scp = (
      await s.client.get(`/apis/${STATIC_CONTROL_PLANE_GROUP}/${STATIC_CONTROL_PLANE_VERSION}/namespaces/${ns}/${STATIC_CONTROL_PLANE_PLURAL}/${secondary}`)
    ).body;
    expect(scp.status.version).toBe(tenant.kubernetesVersion);
  }, 120000);

  const mutations: [string, (m: ReturnType<typeof rendered>) => void, RegExp][] = [
    ['a Role without `create` on secrets', (m) => ((m.role as any).rules[1].verbs = ['get']), /Forbidden.*cannot (create|patch) resource "secrets"/],
    [
      'a Role whose readable Secrets miss the primary CA',
      (m) => ((m.role as any).rules[0].resourceNames = [`${tenant.name}-kubeconfig`]),
      /Forbidden.*cannot get resource "secrets"/,
    ],
    [
      'a Role that cannot read the secondary Cluster',
      (m) => ((m.role as any).rules[3].resourceNames = ['another-cluster']),
      /Forbidden.*cannot get resource "clusters"/,
    ],
    ['a RoleBinding to another ServiceAccount', (m) => ((m.roleBinding as any).subjects[0].name = 'default'), /Forbidden/],
    [
      'a CronJob running as a ServiceAccount that does not exist',
      (m) => ((m.cronJob as any).spec.jobTemplate.spec.template.spec.serviceAccountName = 'mirror'),
      /serviceaccount "mirror" not found/,
    ],
  ];
  it.each(mutations)(
    'fails the run and writes nothing with %s',
    async (_name, mutate, refusal) => {
      const s = started(server);
      const m = rendered();
      mutate(m);
      await applyMirror(s.client, m);
      const { run, copies } = await runOnce(s.client, server!);
      expect(run.ok).toBe(false);
      expect(run.reason).toMatch(refusal);
      expect(copies.map((c) => c.code)).toEqual([404, 404]);
    },
    120000,
  );

  it('fails the run with a Role that cannot patch the StaticControlPlane (the Secrets, written first, are there; the version is not)', async () => {
    const s = started(server);
    const path = `/apis/${STATIC_CONTROL_PLANE_GROUP}/${STATIC_CONTROL_PLANE_VERSION}/namespaces/${ns}/${STATIC_CONTROL_PLANE_PLURAL}/${secondary}`;
    await s.client.request('PATCH', path, { status: { version: null } }, 'application/merge-patch+json');
    const m = rendered();
    (m.role as any).rules = (m.role as any).rules.filter((r: any) => !r.resources.includes(STATIC_CONTROL_PLANE_PLURAL));
    await applyMirror(s.client, m);
    const { run } = await runOnce(s.client, server!);
    expect(run.ok).toBe(false);
    expect(run.reason).toMatch(/Forbidden.*staticcontrolplanes/);
    expect((await s.client.get(path)).body.status.version).toBeUndefined();
  }, 120000);
});
