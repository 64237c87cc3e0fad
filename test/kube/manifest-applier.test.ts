/**
 * The twin's kubernetes_manifest applier (twin/manifest-applier.ts) against the real
 * kube-apiserver of the toolchain: types as the provider reads them (the cluster's OpenAPI v2 for
 * built-in kinds, a CRD's schema for custom ones), the consistency check on what the real server
 * returns, `wait` and delete with short timeouts on the real clock.
 */
import { ApplyError, ManifestApplier, manifestResource, type ManifestResource } from '../../twin/manifest-applier';
import { startKubeServer, type KubeServer } from '../support/kube-apiserver';
import { started, tearDown } from '../support/lifecycle';

let server: KubeServer | undefined;
beforeAll(async () => {
  server = await startKubeServer({ controllerManager: false });
  await started(server).client.applyOrThrow({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'applier' } });
}, 300000);
afterAll(() => tearDown(undefined, server), 60000);

const applier = () => new ManifestApplier(started(server).client);
const resource = (address: string, manifest: Record<string, unknown>, config: Record<string, unknown> = {}) =>
  manifestResource(address, config, manifest as ManifestResource['manifest']);

async function failure(p: Promise<unknown>): Promise<ApplyError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  if (!(e instanceof ApplyError)) throw new Error(`expected an ApplyError, got ${String(e)}`);
  return e;
}

describe('the applier on a real API server', () => {
  it('types a built-in kind from OpenAPI v2: map, list and object as the provider does', async () => {
    const t = await applier().types.typeOf('v1', 'Service');
    if (t.kind !== 'object') throw new Error('not an object');
    expect(t.attributes.status).toBeUndefined();
    const meta = t.attributes.metadata;
    expect(meta.kind === 'object' && meta.attributes.labels.kind).toBe('map');
    const spec = t.attributes.spec;
    expect(spec.kind === 'object' && spec.attributes.ports.kind).toBe('list');
    expect(spec.kind === 'object' && spec.attributes.selector.kind).toBe('map');
    const withStatus = await applier().types.typeOf('v1', 'Service', true);
    expect(withStatus.kind === 'object' && withStatus.attributes.status.kind).toBe('object');
  });

  it('types a custom kind from its CRD schema', async () => {
    const t = await applier().types.typeOf('cluster.x-k8s.io/v1beta2', 'MachineDeployment');
    if (t.kind !== 'object' || t.attributes.spec.kind !== 'object') throw new Error('not an object');
    const selector = t.attributes.spec.attributes.selector;
    expect(selector.kind === 'object' && selector.attributes.matchLabels.kind).toBe('map');
  });

  it('accepts what the server defaults inside list elements and objects (a Service), and a second plan finds nothing', async () => {
    const a = applier();
    const r = resource('kubernetes_manifest.svc', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'svc', namespace: 'applier' },
      spec: { selector: { app: 'x' }, ports: [{ port: 80 }] },
    });
    const { state } = await a.apply(r);
    expect((state.object.spec as { ports: { protocol: string }[] }).ports[0].protocol).toBe('TCP');
    await expect(a.plan(r, state)).resolves.toMatchObject({ action: 'no-op' });
  });

  it("fails a map the server drops (an empty ConfigMap data) with OpenTofu's text", async () => {
    const e = await failure(
      applier().apply(resource('kubernetes_manifest.cm', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'empty', namespace: 'applier' }, data: {} })),
    );
    expect(e.summary).toBe('Provider produced inconsistent result after apply');
    expect(e.detail).toMatch(/\.object\.data: was cty\.MapVal\(.*\), but now null/);
  });

  it('refuses to create what exists, and times out a condition that never comes within timeouts.create', async () => {
    const a = applier();
    const manifest = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'waited', namespace: 'applier' }, data: { a: 'b' } };
    const started = Date.now();
    const e = await failure(
      a.apply(resource('kubernetes_manifest.waited', manifest, { wait: { condition: [{ type: 'Ready', status: 'True' }] }, timeouts: { create: '3s' } })),
    );
    expect([e.summary, e.detail]).toEqual(['Operation timed out', 'timed out waiting on conditions']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(3000);
    expect(Date.now() - started).toBeLessThan(15000);
    const again = await failure(a.apply(resource('kubernetes_manifest.waited', manifest)));
    expect(again.summary).toBe('Cannot create resource that already exists');
  });

  it('waits on fields that hold, and deletes waiting until the object is gone (a finalizer holds it past timeouts.delete)', async () => {
    const a = applier();
    const manifest = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'held', namespace: 'applier', finalizers: ['pvekaas.lab/test'] },
      data: { a: 'b' },
    };
    // A map element is `data["a"]`: `data.a` is an attribute step, which a map does not have, so the
    // provider's matcher never matches and it waits out the timeout.
    const wrong = await failure(
      a.apply(
        resource(
          'kubernetes_manifest.never',
          { ...manifest, metadata: { name: 'never', namespace: 'applier' } },
          { wait: { fields: { 'data.a': '^b$' } }, timeouts: { create: '2s' } },
        ),
      ),
    );
    expect([wrong.summary, wrong.detail]).toEqual(['Operation timed out', 'timed out waiting on field matchers']);
    const { state } = await a.apply(resource('kubernetes_manifest.held', manifest, { wait: { fields: { 'data["a"]': '^b$' } }, timeouts: { delete: '2s' } }));
    const e = await failure(a.destroy(state));
    expect(e.summary).toBe('Timed out when waiting for resource "held" to be deleted');
    const client = started(server).client;
    const r = await client.request('PATCH', state.path, { metadata: { finalizers: null } }, 'application/merge-patch+json');
    expect(r.status).toBe(200);
    expect((await client.get(state.path)).status).toBe(404);
    await expect(a.destroy(state)).resolves.toEqual(['Resource "held" was already deleted']);
  }, 60000);
});
