/**
 * Tenant login through the lab's identity provider (issue 39), proven with the real API servers:
 * the tenant control planes of two tenants, as the class renders them for a lab with `identity`,
 * are brought up by the twin's played Kamaji (twin/kamaji/) on a real management API
 * server — REAL tenant kube-apiservers, started with the arguments and the ConfigMap volume Kamaji
 * would give its kube-apiserver container — and people log in with ID tokens of the tests' own OIDC
 * issuer (test/support/oidc-issuer.ts: TLS on loopback, discovery, JWKS, RS256).
 *
 * Three people of two tenants: alice (team-a-admins) may write in tenant-a and nothing in tenant-b;
 * carol (team-b-admins) the other way round; bob (auditors: the viewers of both) may read and not
 * write. An expired token, one of another audience, of another issuer and one with a wrong
 * signature are refused by kube-apiserver itself (its reason in its log); a new signing key (new
 * kid) is fetched and followed. A KamajiControlPlane whose ConfigMap is missing never starts.
 *
 * Each tenant control plane runs its REAL kube-controller-manager with Kamaji's arguments
 * (twin/tenant-controller-manager.ts): its clusterrole-aggregation controller fills `view`,
 * `edit` and `admin`, which the bindings name.
 *
 * Played by hand, as in test/kube/twin-kamaji.test.ts: what CAPI does (the topology's
 * KamajiControlPlane from the class with its patches, the endpoint, infrastructure provisioned, and
 * the ClusterResourceSet's apply of the rendered bindings into each tenant cluster; the lab twin's
 * suite test/twin/identity.test.ts has CAPI's real ClusterResourceSet controller do it).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { parseLab } from '../../modules/config/load';
import { renderManagement } from '../../modules/management';
import { planPlacement } from '../../modules/placement';
import { renderTenants, type TenantRendering } from '../../modules/tenants';
import { applyClassPatches } from '../../modules/tenants/class-patches';
import { classTemplates } from '../../modules/tenants/cluster-class';
import { classPatches } from '../../modules/tenants/cluster-class-patches';
import { KAMAJI_DATASTORE_NAME } from '../../modules/versions/layout';
import { KamajiPlayer, type KamajiReleases, type TenantControlPlaneView } from '../../twin/kamaji';
import { accessMismatches, asPerson, LAB_ACCESS, people, startTestIssuer, type TestIssuer } from '../support/oidc-issuer';
import { startKubeServer, type KubeClient, type KubeObject, type KubeServer } from '../support/kube-apiserver';
import { started, tearDown } from '../support/lifecycle';

const root = join(__dirname, '../..');
const CAPI = 'cluster.x-k8s.io/v1beta2';
const KCP = 'controlplane.cluster.x-k8s.io/v1alpha2';

let issuer: TestIssuer | undefined;
let server: KubeServer | undefined;
let player: KamajiPlayer | undefined;
let renderings: Map<string, TenantRendering>;

/** examples/lab-identity.yaml with the identity provider the tests' issuer is. */
function labFor(i: TestIssuer) {
  const doc = parse(readFileSync(join(root, 'examples/lab-identity.yaml'), 'utf8'));
  doc.identity.issuer = i.url;
  doc.identity.certificateAuthorityData = i.caData;
  return parseLab(stringify(doc), 'examples/lab-identity.yaml');
}

/** What CAPI's topology makes of the rendered Cluster: the KamajiControlPlane from the class template and its patches. */
async function tenant(
  client: KubeClient,
  r: TenantRendering,
  address: string,
  options: { name?: string; configMap?: Record<string, any> | null } = {},
): Promise<void> {
  const name = options.name ?? r.tenant.name;
  await client.applyOrThrow({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  const configMap = options.configMap === undefined ? r.identity!.authentication : options.configMap;
  if (configMap) await client.applyOrThrow({ ...configMap, metadata: { ...configMap.metadata, namespace: name } } as KubeObject);
  const templates = classTemplates({ dataStoreName: KAMAJI_DATASTORE_NAME, multiInstance: 'secondary-clusters', identity: true });
  await client.applyOrThrow({
    apiVersion: 'infrastructure.cluster.x-k8s.io/v1alpha2',
    kind: 'ProxmoxCluster',
    metadata: { name, namespace: name },
    spec: (templates.infrastructureCluster.spec as any).template.spec,
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
  const vars = Object.fromEntries(((r.cluster as any).spec.topology.variables as { name: string; value: unknown }[]).map((v) => [v.name, v.value]));
  const cp = structuredClone(templates.controlPlane);
  applyClassPatches(classPatches('secondary-clusters', true), cp, (m) => m.controlPlane === true, {
    ...vars,
    controlPlaneVIP: address,
    builtin: { cluster: { name, namespace: name } },
  });
  await client.applyOrThrow({
    apiVersion: KCP,
    kind: 'KamajiControlPlane',
    metadata: {
      name,
      namespace: name,
      labels: { 'cluster.x-k8s.io/cluster-name': name },
      ownerReferences: [{ apiVersion: CAPI, kind: 'Cluster', name, uid: cluster.metadata.uid as string }],
    },
    spec: { ...(cp.spec as any).template.spec, version: r.tenant.kubernetesVersion, replicas: 1 },
  } as KubeObject);
}

const plane = (namespace: string): TenantControlPlaneView => {
  const p = [...started(player, 'the Kamaji player').planes.values()].find((x) => x.namespace === namespace);
  if (!p) throw new Error(`no control plane for ${namespace}: ${player!.waitingIn(namespace)}`);
  return p;
};

const deployment = (name: string) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: 'default' },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image: 'registry.lab.example/app:1' }] } },
  },
});
const createDeployment = (p: TenantControlPlaneView, token: string, name: string) =>
  asPerson(p, token, 'POST', '/apis/apps/v1/namespaces/default/deployments', deployment(name));
const whoAmI = async (p: TenantControlPlaneView, token: string) =>
  (await asPerson(p, token, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }))
    .body?.status?.userInfo;

/** What each person may do in each tenant, against what the lab says (examples/lab-identity.yaml): the differences. */
const mismatches = () => accessMismatches(issuer!, people, LAB_ACCESS, plane);

/** The rules of a tenant's ClusterRole (the aggregated ones are empty until kube-controller-manager fills them). */
const ruleCount = async (client: KubeClient, name: string) =>
  ((await client.get(`/apis/rbac.authorization.k8s.io/v1/clusterroles/${name}`)).body?.rules ?? []).length as number;

/** Polls until `check` holds (the API server's JWT authenticator initializes in the background). */
async function eventually<T>(what: string, fn: () => Promise<T>, check: (t: T) => boolean, ms = 60000): Promise<T> {
  const end = Date.now() + ms;
  let last: T;
  for (;;) {
    last = await fn();
    if (check(last)) return last;
    if (Date.now() > end) throw new Error(`${what}: still ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

beforeAll(async () => {
  issuer = await startTestIssuer('kubernetes');
  const lab = labFor(issuer);
  renderings = renderTenants(lab, planPlacement(lab));
  const { values } = renderManagement(lab);
  const releases: KamajiReleases = {
    kamaji: { namespace: 'kamaji-system', values: values.kamaji as Record<string, any> },
    kamajiEtcd: { name: 'kamaji-etcd', namespace: 'kamaji-system', values: values.kamajiEtcd as Record<string, any> },
  };
  server = await startKubeServer({ controllerManager: false });
  await server.client.applyOrThrow({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kamaji-system' } });
  player = new KamajiPlayer(server.client, () => releases, undefined, { controllerManager: true });
  await tenant(server.client, renderings.get('tenant-a')!, '10.10.0.5');
  await tenant(server.client, renderings.get('tenant-b')!, '10.10.0.6');
  await player.tick();
  await player.tick();
  // Kamaji's control-plane pod runs kube-controller-manager, whose clusterrole-aggregation
  // controller fills the aggregated ClusterRoles view, edit and admin: the real one, started by the player.
  for (const name of ['tenant-a', 'tenant-b'])
    for (const role of ['view', 'edit', 'admin'])
      await eventually(
        `${name}: ClusterRole ${role} aggregated by its kube-controller-manager`,
        () => ruleCount(plane(name).server.client, role),
        (n) => n > 0,
        120000,
      );
  // The ClusterResourceSet's part: the rendered bindings applied in each tenant cluster.
  for (const name of ['tenant-a', 'tenant-b']) {
    for (const text of Object.values((renderings.get(name)!.identity!.access as any).data as Record<string, string>)) {
      await plane(name).server.client.applyOrThrow(JSON.parse(text) as KubeObject);
    }
  }
}, 400000);
afterAll(async () => {
  await player?.stop();
  await tearDown(undefined, server, issuer);
}, 60000);

/** The mutation corpus's AuthenticationConfiguration mistakes: the change, the reason kube-apiserver logs, a tenant of its own. */
const MUTATED_CONFIGURATIONS: [string, (config: any) => void, RegExp, string, string][] = [
  [
    'without the issuer CA',
    (config) => delete config.jwt[0].issuer.certificateAuthority,
    /x509: certificate signed by unknown authority|failed to verify certificate/,
    'tenant-mut-ca',
    '10.10.0.8',
  ],
  ['with a wrong audience', (config) => (config.jwt[0].issuer.audiences = ['another-client']), /audience/, 'tenant-mut-aud', '10.10.0.9'],
];

describe('tenant login through the identity provider, on real tenant API servers started by the played Kamaji', () => {
  it("passes the rendered --authentication-config and mounts the tenant's ConfigMap into the kube-apiserver", async () => {
    const { client } = started(server);
    const tcp = (await client.get('/apis/kamaji.clastix.io/v1alpha1/namespaces/tenant-a/tenantcontrolplanes/tenant-a')).body;
    expect(tcp.spec.controlPlane.deployment.extraArgs.apiServer).toEqual([
      '--authentication-config=/etc/kubernetes/pvekaas-authentication/authentication-config.json',
    ]);
    expect(tcp.spec.controlPlane.deployment.additionalVolumes).toEqual([{ name: 'pvekaas-authentication', configMap: { name: 'pvekaas-authentication' } }]);
    expect(plane('tenant-a').apiServerArgs).toEqual(tcp.spec.controlPlane.deployment.extraArgs.apiServer);
    expect(readFileSync(join(plane('tenant-a').volumesDir!, 'pvekaas-authentication', 'authentication-config.json'), 'utf8')).toBe(
      (renderings.get('tenant-a')!.identity!.authentication as any).data['authentication-config.json'],
    );
  });

  it("runs each tenant's own kube-controller-manager with Kamaji's arguments, as its own user", async () => {
    const kcm = plane('tenant-a').controllerManager!;
    expect(kcm.exited()).toBeUndefined();
    expect(kcm.args).toEqual(
      expect.arrayContaining([
        '--controllers=*,bootstrapsigner,tokencleaner,-node-lifecycle-controller',
        '--use-service-account-credentials=true',
        '--allocate-node-cidrs=true',
        '--cluster-cidr=10.244.0.0/16',
        '--cluster-name=tenant-a',
      ]),
    );
    // Its ServiceAccount controller, acting as its own ServiceAccount: every namespace gets `default`.
    const sa = await eventually(
      'the default ServiceAccount',
      async () => (await plane('tenant-a').server.client.get('/api/v1/namespaces/default/serviceaccounts/default')).status,
      (st) => st === 200,
    );
    expect(sa).toBe(200);
  }, 90000);

  it('logs in three people of two tenants with the claims and prefixes the lab names', async () => {
    const a = plane('tenant-a');
    const alice = issuer!.mint(people.alice);
    const user = await eventually(
      'alice in tenant-a',
      () => whoAmI(a, alice),
      (u) => u !== undefined,
    );
    expect(user.username).toBe('oidc:alice@lab.example');
    expect(user.groups).toEqual(expect.arrayContaining(['oidc:team-a-admins', 'system:authenticated']));
    expect((await whoAmI(plane('tenant-b'), issuer!.mint(people.carol))).username).toBe('oidc:carol@lab.example');
    expect((await whoAmI(a, issuer!.mint(people.bob))).groups).toContain('oidc:auditors');
  }, 90000);

  it("a tenant-a admin creates a Deployment in tenant-a and is refused in tenant-b's API server; carol the other way round", async () => {
    const alice = issuer!.mint(people.alice);
    const carol = issuer!.mint(people.carol);
    expect((await createDeployment(plane('tenant-a'), alice, 'alice-app')).status).toBe(201);
    const refused = await createDeployment(plane('tenant-b'), alice, 'alice-app');
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/User "oidc:alice@lab\.example" cannot create resource "deployments"/);
    expect((await createDeployment(plane('tenant-b'), carol, 'carol-app')).status).toBe(201);
    expect((await createDeployment(plane('tenant-a'), carol, 'carol-app')).status).toBe(403);
  }, 60000);

  it('every allow and deny of the three people in the two tenants matches the lab (SelfSubjectAccessReview)', async () => {
    expect(await mismatches()).toEqual([]);
  }, 60000);

  it('a viewer reads and cannot write', async () => {
    const bob = issuer!.mint(people.bob);
    for (const name of ['tenant-a', 'tenant-b']) {
      expect((await asPerson(plane(name), bob, 'GET', '/apis/apps/v1/namespaces/default/deployments')).status).toBe(200);
      const write = await createDeployment(plane(name), bob, 'bob-app');
      expect(write.status).toBe(403);
      expect(write.body.message).toMatch(/User "oidc:bob@lab\.example" cannot create resource "deployments"/);
    }
  }, 60000);

  it.each([
    ['expired', { expiresIn: -120 }, /token is expired/],
    ['of another audience', { audience: 'another-client' }, /audience|aud/],
    ['of another issuer', { issuer: 'https://login.other.example' }, /invalid bearer token|issuer/],
    ['with a wrong signature', { foreignKey: true }, /failed to verify signature|signature/],
  ])(
    'refuses a token %s: 401 from kube-apiserver, its reason in its log',
    async (_what, options, reason) => {
      const p = plane('tenant-a');
      const logFile = join(p.server.dir, 'kube-apiserver.log');
      const from = readFileSync(logFile, 'utf8').length;
      const r = await asPerson(p, issuer!.mint(people.alice, options), 'GET', '/api/v1/namespaces');
      expect(r.status).toBe(401);
      expect(r.body.message ?? r.body).toMatch(/Unauthorized/);
      // Only what it logged for this request.
      await eventually(
        'the reason in the kube-apiserver log',
        async () => readFileSync(logFile, 'utf8').slice(from),
        (log) => reason.test(log),
        10000,
      );
    },
    30000,
  );

  it('follows a new signing key of the issuer (a new kid in its JWKS)', async () => {
    const p = plane('tenant-a');
    const before = issuer!.keyFetches();
    const oldKid = issuer!.kid();
    issuer!.rotate();
    expect(issuer!.kid()).not.toBe(oldKid);
    const alice = issuer!.mint(people.alice);
    const r = await eventually(
      'alice with the new key',
      () => createDeployment(p, alice, 'alice-after-rotation'),
      (x) => x.status === 201,
    );
    expect(r.status).toBe(201);
    expect(issuer!.keyFetches()).toBeGreaterThan(before);
  }, 90000);

  // The mutation corpus (twin/mutation-corpus.ts): each mistake, applied to a copy of what
  // pvekaas renders, is caught by the real tenant API server.
  it('lets a tenant-a admin write in tenant-b with a group bound in the wrong tenant', async () => {
    const b = plane('tenant-b');
    const alice = issuer!.mint(people.alice);
    expect(await mismatches()).toEqual([]);
    // The mistake: tenant-a's admins binding rendered into tenant-b's cluster.
    const wrong = JSON.parse((renderings.get('tenant-a')!.identity!.access as any).data['pvekaas-admins.json']);
    wrong.metadata.name = 'pvekaas-admins-mutated';
    await b.server.client.applyOrThrow(wrong);
    try {
      expect((await createDeployment(b, alice, 'alice-in-b')).status).toBe(201);
      expect(await mismatches()).toContainEqual('alice may create deployments in tenant-b; the lab says she may not');
    } finally {
      await b.server.client.delete('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/pvekaas-admins-mutated');
      await b.server.client.delete('/apis/apps/v1/namespaces/default/deployments/alice-in-b');
    }
  }, 60000);

  it.each(MUTATED_CONFIGURATIONS)(
    'refuses every login with an AuthenticationConfiguration %s',
    async (_what, mutate, reason, name, address) => {
      const { client } = started(server);
      const r = renderings.get('tenant-a')!;
      const cm = structuredClone(r.identity!.authentication) as any;
      const config = JSON.parse(cm.data['authentication-config.json']);
      mutate(config);
      cm.data['authentication-config.json'] = JSON.stringify(config);
      await tenant(client, r, address, { name, configMap: cm });
      await player!.tick();
      await player!.tick();
      const p = plane(name);
      await p.server.client.applyOrThrow(JSON.parse((r.identity!.access as any).data['pvekaas-admins.json']));
      const logFile = join(p.server.dir, 'kube-apiserver.log');
      // The rendered configuration logs alice in (shown above); this one refuses her, with kube-apiserver's reason.
      const status = await eventually(
        'a refusal with its reason',
        async () => ({
          status: (await asPerson(p, issuer!.mint(people.alice), 'GET', '/api/v1/namespaces')).status,
          log: reason.test(readFileSync(logFile, 'utf8')),
        }),
        (x) => x.status === 401 && x.log,
        30000,
      );
      expect(status).toEqual({ status: 401, log: true });
    },
    120000,
  );

  it('never starts a control plane whose AuthenticationConfiguration ConfigMap is missing, and says why', async () => {
    const { client } = started(server);
    const lab = labFor(issuer!);
    const c = renderTenants(lab, planPlacement(lab)).get('tenant-c')!;
    await tenant(client, c, '10.10.0.7', { configMap: null });
    await player!.tick();
    await player!.tick();
    expect(player!.waitingIn('tenant-c')).toMatch(
      /MountVolume\.SetUp failed for volume "pvekaas-authentication" : configmap "pvekaas-authentication" not found/,
    );
    expect([...player!.planes.values()].some((x) => x.namespace === 'tenant-c')).toBe(false);
  }, 120000);
});
