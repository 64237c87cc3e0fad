/**
 * The players' pass memo and write checks (twin/read-memo.ts) against a real API server: a
 * write is left out only when the API server would have stored nothing for it. Each case sends the
 * write anyway and compares the resourceVersion the server answers with the one before (the server
 * keeps it when the stored object did not change), so the helpers' verdict is checked against
 * kube-apiserver's own, not against an expectation written here.
 */
import { KubeClient, type KubeObject } from '../support/kube-apiserver';
import { kubeServerWithNamespace } from '../support/lifecycle';
import { applyUnchanged, itemPath, mergePatchUnchanged, ReadMemo } from '../../twin/read-memo';

const NS = 'memo';
const DS = '/apis/kamaji.clastix.io/v1alpha1/datastores';
const kube = kubeServerWithNamespace(NS);
let client: KubeClient;
beforeAll(() => (client = kube().client));

const rv = (o: { metadata?: { resourceVersion?: string } }) => String(o.metadata?.resourceVersion);

const ref = (name: string, keyPath: string) => ({ secretReference: { name, namespace: NS, keyPath } });

async function dataStore(name: string): Promise<KubeObject> {
  const r = await client.post(DS, {
    apiVersion: 'kamaji.clastix.io/v1alpha1',
    kind: 'DataStore',
    metadata: { name },
    spec: {
      driver: 'etcd',
      endpoints: ['etcd-0.etcd:2379'],
      tlsConfig: {
        certificateAuthority: { certificate: ref('ca', 'tls.crt'), privateKey: ref('ca', 'tls.key') },
        clientCertificate: { certificate: ref('client', 'tls.crt'), privateKey: ref('client', 'tls.key') },
      },
    },
  });
  if (r.status !== 201) throw new Error(`DataStore ${name}: HTTP ${r.status}: ${r.text}`);
  return r.body as KubeObject;
}

/** Sends the status merge patch and says whether the server stored something new. */
async function statusPatchStored(path: string, status: Record<string, unknown>): Promise<boolean> {
  const before = (await client.get(path)).body;
  const r = await client.request('PATCH', `${path}/status`, { status }, 'application/merge-patch+json');
  if (r.status !== 200) throw new Error(`status of ${path}: HTTP ${r.status}: ${r.text}`);
  return rv(r.body) !== rv(before);
}

describe('the players write only what the API server would store (read-memo.ts)', () => {
  it('a status merge patch is left out exactly when the server stores nothing for it', async () => {
    const path = `${DS}/${(await dataStore('patched')).metadata.name}`;
    const condition = {
      type: 'kamaji.clastix.io/DataStoreValidation',
      status: 'True',
      reason: 'DataStoreIsValid',
      message: '',
      lastTransitionTime: '2026-12-04T00:00:00Z',
    };
    const patches: Record<string, unknown>[] = [
      { ready: true, conditions: [condition] },
      { ready: true, conditions: [condition] }, // the same again
      { ready: true }, // a part of what is stored
      { ready: false }, // a change
      { usedBy: ['a/b'], ready: false },
      { usedBy: null }, // a removal
      { usedBy: null }, // removing what is not there
      { conditions: [{ ...condition, status: 'False', reason: 'Invalid' }] },
      { conditions: [{ ...condition, status: 'False', reason: 'Invalid' }], observedGeneration: undefined },
    ];
    const verdicts: string[] = [];
    for (const patch of patches) {
      const current = ((await client.get(path)).body as { status?: unknown }).status ?? {};
      const unchanged = mergePatchUnchanged(current, patch);
      const stored = await statusPatchStored(path, patch);
      verdicts.push(`${JSON.stringify(patch)}: helper ${unchanged ? 'unchanged' : 'changed'}, server ${stored ? 'stored' : 'kept'}`);
      expect(unchanged).toBe(!stored);
    }
    // Both verdicts occur: the comparison above could not pass with a helper that always says one thing.
    expect(verdicts.filter((v) => v.includes('server kept')).length).toBeGreaterThanOrEqual(3);
    expect(verdicts.filter((v) => v.includes('server stored')).length).toBeGreaterThanOrEqual(4);
  });

  it('a forced server-side apply is left out exactly when the server stores nothing for it', async () => {
    const applied = async (object: KubeObject) => {
      const path = `/api/v1/namespaces/${NS}/${object.kind === 'Secret' ? 'secrets' : 'services'}/${object.metadata.name}`;
      const before = await client.get(path);
      const unchanged = applyUnchanged(object, before.status === 200 ? before.body : undefined);
      const after = await client.applyOrThrow(object, { fieldManager: 'pvekaas-twin-kamaji', force: true });
      return { unchanged, stored: before.status !== 200 || rv(after) !== rv(before.body) };
    };
    const secret = (data: Record<string, string>, labels: Record<string, string> = {}) =>
      ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'tenant-ca', namespace: NS, labels }, type: 'Opaque', data }) as KubeObject;
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    const service = (port: number) =>
      ({
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'tenant', namespace: NS, labels: { 'kamaji.clastix.io/name': 'tenant' } },
        spec: {
          type: 'LoadBalancer',
          selector: { 'kamaji.clastix.io/name': 'tenant' },
          ports: [{ name: 'kube-apiserver', protocol: 'TCP', port, targetPort: port }],
        },
      }) as KubeObject;
    const cases: [string, KubeObject][] = [
      ['a new Secret', secret({ 'tls.crt': b64('a') }, { component: 'ca' })],
      ['the same Secret', secret({ 'tls.crt': b64('a') }, { component: 'ca' })],
      ['a changed value', secret({ 'tls.crt': b64('b') }, { component: 'ca' })],
      ['a key dropped by its manager', secret({}, { component: 'ca' })],
      ['a changed label', secret({}, { component: 'kubeconfig' })],
      ['the same again', secret({}, { component: 'kubeconfig' })],
      // The server completes the port (nodePort, allocated) and the spec (clusterIP, policies): still unchanged.
      ['a LoadBalancer Service', service(6443)],
      ['the same Service, completed by the server', service(6443)],
      ['its port changed', service(6444)],
    ];
    for (const [what, object] of cases) {
      const { unchanged, stored } = await applied(object);
      expect(`${what}: ${unchanged ? 'left out' : 'sent'}`).toBe(`${what}: ${stored ? 'sent' : 'left out'}`);
    }
  });

  it('reads each object once per pass, a namespace of Secrets with one list, and its own writes back', async () => {
    for (const name of ['one', 'two']) {
      await client.applyOrThrow({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name, namespace: NS },
        data: { k: Buffer.from(name).toString('base64') },
      } as KubeObject);
    }
    const sentBefore = () => [...KubeClient.sent.entries()].filter(([k]) => k.startsWith(kube().url)).reduce((n, [, v]) => n + v, 0);
    const memo = new ReadMemo(client, ['secrets'], 60_000);
    const start = sentBefore();
    expect((await memo.get(`/api/v1/namespaces/${NS}/secrets/one`))?.data?.k).toBe(Buffer.from('one').toString('base64'));
    expect((await memo.get(`/api/v1/namespaces/${NS}/secrets/two`))?.kind).toBe('Secret');
    expect(await memo.get(`/api/v1/namespaces/${NS}/secrets/absent`)).toBeUndefined();
    expect(sentBefore() - start).toBe(1); // one LIST for the three reads
    const stores = await memo.list(DS);
    const patched = stores.find((d) => d.metadata.name === 'patched')!;
    expect(await memo.get(itemPath(DS, patched))).toMatchObject({ kind: 'DataStore', apiVersion: 'kamaji.clastix.io/v1alpha1' });
    expect(sentBefore() - start).toBe(2);
    const written = await client.applyOrThrow({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'one', namespace: NS },
      data: { k: 'eA==' },
    } as KubeObject);
    memo.wrote(`/api/v1/namespaces/${NS}/secrets/one`, written);
    expect((await memo.get(`/api/v1/namespaces/${NS}/secrets/one`))?.data?.k).toBe('eA==');
    memo.clear();
    await memo.get(`/api/v1/namespaces/${NS}/secrets/one`);
    expect(sentBefore() - start).toBe(4); // the apply, and the next pass's list
    // What was read longer ago than maxAgeMs is read again without a clear (players share the memo).
    const short = new ReadMemo(client, [], 10);
    await short.get(`/api/v1/namespaces/${NS}`);
    await short.get(`/api/v1/namespaces/${NS}`);
    expect(sentBefore() - start).toBe(5);
    await new Promise((r) => setTimeout(r, 30));
    await short.get(`/api/v1/namespaces/${NS}`);
    expect(sentBefore() - start).toBe(6);
  });
});
