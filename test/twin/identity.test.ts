/**
 * Tenant login through the lab's identity provider (issue 39), in the lab twin: a lab of two
 * tenants with an `identity` section (examples/lab-identity.yaml cut to pmox-txl, tenant-a and
 * tenant-b, one worker each) brought up as deploy would, with the tests' own OIDC issuer
 * (test/support/oidc-issuer.ts: TLS on loopback, discovery, JWKS, RS256) as its identity provider.
 *
 * What acts is real: the tenant kube-apiservers (started by the played Kamaji with the rendered
 * `--authentication-config` and its ConfigMap volume), each tenant's kube-controller-manager with
 * Kamaji's arguments (twin/tenant-controller-manager.ts: its clusterrole-aggregation
 * controller fills `view`, `edit` and `admin`), and CAPI core's ClusterResourceSet controller, which
 * applies the rendered ClusterRoleBindings into each tenant cluster — the test never writes them.
 *
 * Three people of two tenants (alice: tenant-a's admins; carol: tenant-b's; bob: the auditors, both
 * tenants' viewers) and tenant-a's editor dave log in through the real tenant API servers; every
 * allow and deny matches the lab; an expired token, one of another audience, of another issuer and
 * one with a wrong signature are refused by kube-apiserver with its reason; a new signing key is
 * followed. The mutation corpus's identity mistakes are made to the rendered objects in the
 * management cluster, and the real parts catch them: a group bound in the wrong tenant (the
 * ClusterResourceSet applies it), a wrong audience (kube-apiserver reloads the file), the issuer CA
 * dropped (kube-apiserver refuses the reload, and after a restart refuses every login).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import type { LabTwin } from '../../twin/index';
import type { TenantControlPlaneView } from '../../twin/kamaji';
import { accessMismatches, asPerson, LAB_ACCESS, people, startTestIssuer, type TestIssuer } from '../support/oidc-issuer';
import { convergedOrThrow, printTimes, projectRoot, startTwin } from './support';

jest.setTimeout(20 * 60 * 1000);

const TENANTS = ['tenant-a', 'tenant-b'];
const CRS = 'addons.cluster.x-k8s.io/v1beta2';
/** tenant-a's editor (team-a-developers, examples/lab-identity.yaml). */
const dave = { sub: 'dave', email: 'dave@lab.example', email_verified: true, groups: ['team-a-developers'] };

/** examples/lab-identity.yaml cut to pmox-txl, tenant-a and tenant-b (one worker each), with the tests' issuer as its identity provider. */
function identityLab(i: TestIssuer): string {
  const doc = parseDocument(readFileSync(join(projectRoot, 'examples/lab-identity.yaml'), 'utf8'));
  const instances = doc.getIn(['proxmox', 'instances']) as { items: { get(k: string): unknown }[] };
  instances.items = instances.items.filter((x) => x.get('name') === 'pmox-txl');
  const tenants = doc.get('tenants') as { items: { get(k: string): unknown }[] };
  tenants.items = tenants.items.filter((t) => TENANTS.includes(t.get('name') as string));
  doc.setIn(['tenants', 0, 'pools', 0, 'replicas'], 1);
  doc.setIn(['tenants', 1, 'pools'], doc.createNode([{ name: 'workers', replicas: 1, size: { cpu: 4, memoryMiB: 8192, diskGiB: 40 } }]));
  doc.deleteIn(['tenants', 1, 'placement']);
  doc.deleteIn(['capmox']);
  doc.setIn(['identity', 'issuer'], i.url);
  doc.setIn(['identity', 'certificateAuthorityData'], i.caData);
  return doc.toString();
}

let issuer: TestIssuer;
let twin: LabTwin;

beforeAll(
  async () => {
    issuer = await startTestIssuer('kubernetes');
    twin = await startTwin(identityLab(issuer), 'identity', false, { tenantControllerManager: true });
    await twin.applyKubernetes();
    await convergedOrThrow(twin, TENANTS, 10 * 60 * 1000);
  },
  25 * 60 * 1000,
);

afterAll(async () => {
  printTimes(twin);
  await twin?.stop();
  twin?.cleanup();
  await issuer?.stop();
}, 120000);

const mgmt = () => twin.management.client;
const plane = (tenant: string): TenantControlPlaneView => {
  const p = [...twin.kamaji.planes.values()].find((x) => x.namespace === tenant && x.cluster === tenant);
  if (!p) throw new Error(`no control plane for ${tenant}`);
  return p;
};

/** Polls until `check` holds. */
async function eventually<T>(what: string, fn: () => Promise<T>, check: (t: T) => boolean, ms = 120000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const last = await fn();
    if (check(last)) return last;
    if (Date.now() > end) throw new Error(`${what}: still ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}

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
const createDeployment = (tenant: string, token: string, name: string) =>
  asPerson(plane(tenant), token, 'POST', '/apis/apps/v1/namespaces/default/deployments', deployment(name));
const whoAmI = async (tenant: string, token: string) =>
  (
    await asPerson(plane(tenant), token, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'SelfSubjectReview',
    })
  ).body?.status?.userInfo;
const mismatches = () => accessMismatches(issuer, people, LAB_ACCESS, plane);
const apiServerLog = (tenant: string) => readFileSync(join(plane(tenant).server.dir, 'kube-apiserver.log'), 'utf8');

/** The rendered ConfigMap in the management cluster (what the tenant stack applied). */
async function managementConfigMap(tenant: string, name: string): Promise<{ data: Record<string, string> }> {
  const r = await mgmt().get(`/api/v1/namespaces/${tenant}/configmaps/${name}`);
  if (r.status !== 200) throw new Error(`ConfigMap ${tenant}/${name}: HTTP ${r.status}`);
  return r.body;
}
async function patchManagementConfigMap(tenant: string, name: string, data: Record<string, string>): Promise<void> {
  const r = await mgmt().request('PATCH', `/api/v1/namespaces/${tenant}/configmaps/${name}`, { data }, 'application/merge-patch+json');
  if (r.status !== 200) throw new Error(`patching ConfigMap ${tenant}/${name}: HTTP ${r.status}: ${r.body?.message ?? r.text}`);
}
/** The tenant's AuthenticationConfiguration, changed by `mutate`, as the ConfigMap's data. */
async function mutatedAuthentication(
  tenant: string,
  mutate: (config: any) => void,
): Promise<{ original: Record<string, string>; mutated: Record<string, string> }> {
  const original = (await managementConfigMap(tenant, 'pvekaas-authentication')).data;
  const [key] = Object.keys(original);
  const config = JSON.parse(original[key]);
  mutate(config);
  return { original, mutated: { [key]: `${JSON.stringify(config, null, 2)}\n` } };
}
const aliceStatus = async (tenant: string) => (await asPerson(plane(tenant), issuer.mint(people.alice), 'GET', '/api/v1/namespaces')).status;

describe('tenant login through the identity provider, in the lab twin', () => {
  it("applies each tenant's ClusterRoleBindings through CAPI's real ClusterResourceSet controller", async () => {
    for (const tenant of TENANTS) {
      const rendered = (await managementConfigMap(tenant, 'pvekaas-tenant-access')).data;
      expect(Object.keys(rendered).sort()).toEqual(['pvekaas-admins.json', 'pvekaas-editors.json', 'pvekaas-viewers.json']);
      // The controller's own record: the ClusterResourceSetBinding of the tenant's Cluster, the ConfigMap applied.
      const binding = await eventually(
        `${tenant}: the ClusterResourceSetBinding with the ConfigMap applied`,
        async () => {
          const items = ((await mgmt().get(`/apis/${CRS}/namespaces/${tenant}/clusterresourcesetbindings`)).body?.items ?? []) as any[];
          return items.find((b) => b.spec?.clusterName === tenant);
        },
        (b) => (b?.spec?.bindings ?? []).some((x: any) => x.resources?.some((r: any) => r.name === 'pvekaas-tenant-access' && r.applied === true)),
      );
      expect(binding.spec.bindings.map((b: any) => b.clusterResourceSetName)).toEqual(['pvekaas-tenant-access']);
      const crs = (await mgmt().get(`/apis/${CRS}/namespaces/${tenant}/clusterresourcesets/pvekaas-tenant-access`)).body;
      expect(crs.status.conditions).toContainEqual(expect.objectContaining({ type: 'ResourcesApplied', status: 'True' }));
      // What it applied in the tenant cluster is the rendering, binding by binding.
      for (const text of Object.values(rendered)) {
        const want = JSON.parse(text);
        const got = (await plane(tenant).server.client.get(`/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/${want.metadata.name}`)).body;
        expect({ roleRef: got.roleRef, subjects: got.subjects ?? [] }).toEqual({ roleRef: want.roleRef, subjects: want.subjects });
      }
    }
  });

  it("runs each tenant's real kube-controller-manager: the aggregated view, edit and admin roles get their rules", async () => {
    for (const tenant of TENANTS) {
      const kcm = plane(tenant).controllerManager;
      expect(kcm?.exited()).toBeUndefined();
      expect(kcm?.args).toContain('--controllers=*,bootstrapsigner,tokencleaner,-node-lifecycle-controller');
      for (const role of ['view', 'edit', 'admin']) {
        const rules = await eventually(
          `${tenant}: ClusterRole ${role} aggregated`,
          async () => ((await plane(tenant).server.client.get(`/apis/rbac.authorization.k8s.io/v1/clusterroles/${role}`)).body?.rules ?? []).length,
          (n) => n > 0,
        );
        expect(rules).toBeGreaterThan(0);
      }
    }
  });

  it('logs in three people of two tenants with the claims and prefixes the lab names', async () => {
    const user = await eventually(
      'alice in tenant-a',
      () => whoAmI('tenant-a', issuer.mint(people.alice)),
      (u) => u !== undefined,
    );
    expect(user.username).toBe('oidc:alice@lab.example');
    expect(user.groups).toEqual(expect.arrayContaining(['oidc:team-a-admins', 'system:authenticated']));
    expect((await whoAmI('tenant-b', issuer.mint(people.carol))).username).toBe('oidc:carol@lab.example');
    expect((await whoAmI('tenant-b', issuer.mint(people.bob))).groups).toContain('oidc:auditors');
  });

  it("a tenant-a admin creates a Deployment in tenant-a and is refused in tenant-b's API server; carol the other way round", async () => {
    const alice = issuer.mint(people.alice);
    const carol = issuer.mint(people.carol);
    expect((await createDeployment('tenant-a', alice, 'alice-app')).status).toBe(201);
    const refused = await createDeployment('tenant-b', alice, 'alice-app');
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/User "oidc:alice@lab\.example" cannot create resource "deployments"/);
    expect((await createDeployment('tenant-b', carol, 'carol-app')).status).toBe(201);
    expect((await createDeployment('tenant-a', carol, 'carol-app')).status).toBe(403);
    // The tenant's Deployment controller (its kube-controller-manager) acts on what alice created.
    const replicaSets = await eventually(
      "alice-app's ReplicaSet",
      async () =>
        ((await plane('tenant-a').server.client.get('/apis/apps/v1/namespaces/default/replicasets?labelSelector=app%3Dalice-app')).body?.items ?? []).length,
      (n) => n > 0,
    );
    expect(replicaSets).toBe(1);
  });

  it('every allow and deny of the three people in the two tenants matches the lab (SelfSubjectAccessReview)', async () => {
    expect(await mismatches()).toEqual([]);
  });

  it('a viewer reads and cannot write', async () => {
    const bob = issuer.mint(people.bob);
    for (const tenant of TENANTS) {
      expect((await asPerson(plane(tenant), bob, 'GET', '/apis/apps/v1/namespaces/default/deployments')).status).toBe(200);
      const write = await createDeployment(tenant, bob, 'bob-app');
      expect(write.status).toBe(403);
      expect(write.body.message).toMatch(/User "oidc:bob@lab\.example" cannot create resource "deployments"/);
    }
  });

  it('an editor writes and cannot change RBAC; nothing in the other tenant', async () => {
    const token = issuer.mint(dave);
    expect((await createDeployment('tenant-a', token, 'dave-app')).status).toBe(201);
    const binding = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'dave-admin', namespace: 'default' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'admin' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'oidc:dave@lab.example' }],
    };
    const rb = await asPerson(plane('tenant-a'), token, 'POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', binding);
    expect(rb.status).toBe(403);
    expect(rb.body.message).toMatch(/cannot create resource "rolebindings"/);
    const crb = await asPerson(plane('tenant-a'), token, 'PATCH', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/pvekaas-admins', {});
    expect(crb.status).toBe(403);
    expect((await createDeployment('tenant-b', token, 'dave-app')).status).toBe(403);
  });

  it.each([
    ['expired', { expiresIn: -120 }, /token is expired/],
    ['of another audience', { audience: 'another-client' }, /audience|aud/],
    ['of another issuer', { issuer: 'https://login.other.example' }, /invalid bearer token|issuer/],
    ['with a wrong signature', { foreignKey: true }, /failed to verify signature|signature/],
  ])('refuses a token %s: 401 from the tenant kube-apiserver, its reason in its log', async (_what, options, reason) => {
    const from = apiServerLog('tenant-a').length;
    const r = await asPerson(plane('tenant-a'), issuer.mint(people.alice, options), 'GET', '/api/v1/namespaces');
    expect(r.status).toBe(401);
    expect(r.body.message ?? r.body).toMatch(/Unauthorized/);
    await eventually(
      'the reason in the kube-apiserver log',
      async () => reason.test(apiServerLog('tenant-a').slice(from)),
      (found) => found,
      15000,
    );
  });

  it('follows a new signing key of the issuer (a new kid in its JWKS)', async () => {
    const before = issuer.keyFetches();
    const oldKid = issuer.kid();
    issuer.rotate();
    expect(issuer.kid()).not.toBe(oldKid);
    const r = await eventually(
      'carol with the new key',
      () => createDeployment('tenant-b', issuer.mint(people.carol), 'carol-after-rotation'),
      (x) => x.status === 201,
    );
    expect(r.status).toBe(201);
    expect(issuer.keyFetches()).toBeGreaterThan(before);
  });

  // The mutation corpus (twin/mutation-corpus.ts): each mistake made to the rendered object
  // in the management cluster, caught by the real part that acts on it, then undone.
  it('lets a tenant-a admin write in tenant-b when the ClusterResourceSet applies a group bound in the wrong tenant', async () => {
    expect(await mismatches()).toEqual([]);
    const original = (await managementConfigMap('tenant-b', 'pvekaas-tenant-access')).data;
    const wrong = (await managementConfigMap('tenant-a', 'pvekaas-tenant-access')).data['pvekaas-admins.json'];
    await patchManagementConfigMap('tenant-b', 'pvekaas-tenant-access', { 'pvekaas-admins.json': wrong });
    try {
      const found = await eventually('the ClusterResourceSet applying the mistake', mismatches, (m) =>
        m.includes('alice may create deployments in tenant-b; the lab says she may not'),
      );
      expect(found).toContain('alice may create deployments in tenant-b; the lab says she may not');
    } finally {
      await patchManagementConfigMap('tenant-b', 'pvekaas-tenant-access', original);
    }
    // Undone the same way: the ClusterResourceSet (strategy Reconcile) applies the rendering again.
    expect(await eventually('the rendering applied again', mismatches, (m) => m.length === 0)).toEqual([]);
  });

  it('refuses every login when the AuthenticationConfiguration gets a wrong audience (kube-apiserver reloads it)', async () => {
    const { original, mutated } = await mutatedAuthentication('tenant-a', (c) => (c.jwt[0].issuer.audiences = ['another-client']));
    const from = apiServerLog('tenant-a').length;
    await patchManagementConfigMap('tenant-a', 'pvekaas-authentication', mutated);
    try {
      expect(
        await eventually(
          'alice refused',
          () => aliceStatus('tenant-a'),
          (s) => s === 401,
          180000,
        ),
      ).toBe(401);
      expect(apiServerLog('tenant-a').slice(from)).toMatch(/reloaded authentication config/);
      expect(
        await eventually(
          'the reason in the log',
          async () => /audience/.test(apiServerLog('tenant-a').slice(from)),
          (x) => x,
          15000,
        ),
      ).toBe(true);
    } finally {
      await patchManagementConfigMap('tenant-a', 'pvekaas-authentication', original);
    }
    expect(
      await eventually(
        'alice let in again',
        () => aliceStatus('tenant-a'),
        (s) => s === 200,
        180000,
      ),
    ).toBe(200);
  });

  it('refuses every login after a restart when the issuer CA is dropped from the AuthenticationConfiguration', async () => {
    const { original, mutated } = await mutatedAuthentication('tenant-b', (c) => delete c.jwt[0].issuer.certificateAuthority);
    const from = apiServerLog('tenant-b').length;
    await patchManagementConfigMap('tenant-b', 'pvekaas-authentication', mutated);
    try {
      // The running kube-apiserver cannot reach the issuer with the new file and keeps the old one.
      await eventually(
        'the reload refused',
        async () => apiServerLog('tenant-b').slice(from),
        (log) => /failed to update authentication config/.test(log) && /x509: certificate signed by unknown authority|failed to verify certificate/.test(log),
        180000,
      );
      // A new kube-apiserver (a restart, a rollout, an upgrade) starts from the file: nobody logs in.
      await plane('tenant-b').server.restartApiServer({ gracePeriodMs: 5000 });
      const after = apiServerLog('tenant-b').length;
      expect(
        await eventually(
          'carol refused after the restart',
          async () => (await asPerson(plane('tenant-b'), issuer.mint(people.carol), 'GET', '/api/v1/namespaces')).status,
          (s) => s === 401,
          60000,
        ),
      ).toBe(401);
      // Its JWT authenticator never initializes ("authenticator not initialized" per request); why, it logs as it retries.
      expect(
        await eventually(
          'the reason in the log after the restart',
          async () => /x509: certificate signed by unknown authority|failed to verify certificate/.test(apiServerLog('tenant-b').slice(after)),
          (x) => x,
          90000,
        ),
      ).toBe(true);
    } finally {
      await patchManagementConfigMap('tenant-b', 'pvekaas-authentication', original);
    }
    const carolBack = await eventually(
      'carol let in again',
      async () => (await asPerson(plane('tenant-b'), issuer.mint(people.carol), 'GET', '/api/v1/namespaces')).status,
      (s) => s === 200,
      180000,
    );
    expect(carolBack).toBe(200);
  });
});
