/**
 * The twin's no-outage watcher (test/twin/ready-sampler.cjs, through watchReadyNodes) on a real
 * API server: it must see a dip no poller would (a Node NotReady for the few milliseconds between
 * two writes), must not see one where none happened (a surge: the new Node Ready before the old one
 * is cordoned and deleted), must count a Node only for the pool CAPI labelled it with, and must
 * order Machines and KamajiControlPlanes by the management etcd's revision, so a Machine on a newer
 * version than its control plane is skew only when it came first.
 */
import { startKubeServer, type KubeClient, type KubeObject, type KubeServer } from '../support/kube-apiserver';
import { started, tearDown } from '../support/lifecycle';
import { watchReadyNodes } from '../twin/support';

const NS = 'sampled';
const POOL = 'node.cluster.x-k8s.io/pool';
let server: KubeServer | undefined;
let client: KubeClient;

beforeAll(async () => {
  server = await startKubeServer({ controllerManager: false });
  client = started(server).client;
  await client.applyOrThrow({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
}, 180000);
afterAll(() => tearDown(undefined, server), 60000);

const kcpPath = `/apis/controlplane.cluster.x-k8s.io/v1alpha2/namespaces/${NS}/kamajicontrolplanes`;
const machinePath = `/apis/cluster.x-k8s.io/v1beta2/namespaces/${NS}/machines`;

async function node(name: string, pool: string | undefined, ready: boolean): Promise<void> {
  const labels: Record<string, string> = { 'kubernetes.io/hostname': name };
  if (pool) labels[POOL] = pool;
  const r = await client.post('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name, labels } });
  if (r.status !== 201) throw new Error(`Node ${name}: HTTP ${r.status}: ${r.text}`);
  await setReady(name, ready);
}

async function setReady(name: string, ready: boolean): Promise<void> {
  const status = { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', reason: ready ? 'KubeletReady' : 'KubeletNotReady' }] };
  const r = await client.request('PATCH', `/api/v1/nodes/${name}/status`, { status }, 'application/strategic-merge-patch+json');
  if (r.status !== 200) throw new Error(`Node ${name} status: HTTP ${r.status}: ${r.text}`);
}

async function patch(path: string, body: unknown, status = false): Promise<void> {
  const r = await client.request('PATCH', `${path}${status ? '/status' : ''}`, body, 'application/merge-patch+json');
  if (r.status !== 200) throw new Error(`${path}: HTTP ${r.status}: ${r.text}`);
}

async function removeAll(): Promise<void> {
  for (const n of (await client.get('/api/v1/nodes')).body.items) await client.delete(`/api/v1/nodes/${n.metadata.name}`);
  for (const path of [machinePath, kcpPath]) for (const o of (await client.get(path)).body.items) await client.delete(`${path}/${o.metadata.name}`);
}

const watch = (pools: Record<string, number>) =>
  watchReadyNodes({ url: server!.url, dir: server!.dir }, [{ name: NS, url: server!.url, dir: server!.dir, pools }]);

async function machine(name: string, version: string): Promise<void> {
  await client.applyOrThrow({
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Machine',
    metadata: { name, namespace: NS },
    spec: {
      clusterName: NS,
      version,
      bootstrap: { dataSecretName: `${name}-bootstrap` },
      infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'ProxmoxMachine', name },
    },
  } as KubeObject);
  await patch(`${machinePath}/${name}`, { status: { nodeRef: { name } } }, true);
}

describe('the no-outage watcher', () => {
  afterEach(removeAll);

  it('sees a Node NotReady for the moment between two writes, which a 500 ms poller would almost never land on', async () => {
    await node('w-1', 'workers', true);
    await node('w-2', 'workers', true);
    const sampler = await watch({ workers: 2 });
    sampler.phase('blink');
    await setReady('w-1', false);
    await setReady('w-1', true);
    // Let the events arrive before stopping.
    await new Promise((r) => setTimeout(r, 500));
    const r = await sampler.stop();
    expect(r.pools.get(`${NS}/workers`)).toEqual({ min: 1, replicas: 2, at: 'blink' });
    expect(r.notes).toEqual([`blink: ${NS}/workers has 1 Ready Nodes`]);
    expect(r.lost).toEqual([]);
  });

  it('sees no dip in a surge: the new Node Ready (and labelled by CAPI) before the old one is cordoned and deleted', async () => {
    await node('old-1', 'workers', true);
    await node('old-2', 'workers', true);
    await node('other', 'edge', true);
    const sampler = await watch({ workers: 2 });
    sampler.phase('surge');
    // Registered and Ready, but not yet labelled: it counts for no pool yet.
    await node('new-1', undefined, true);
    await patch('/api/v1/nodes/new-1', { metadata: { labels: { [POOL]: 'workers' } } });
    sampler.phase('retire');
    await patch('/api/v1/nodes/old-1', { spec: { unschedulable: true } });
    await client.delete('/api/v1/nodes/old-1');
    await new Promise((r) => setTimeout(r, 500));
    const r = await sampler.stop();
    expect(r.pools.get(`${NS}/workers`)).toEqual({ min: 2, replicas: 2, at: 'start' });
    expect(r.notes).toEqual([]);
    expect(r.events).toBeGreaterThanOrEqual(5);
  });

  it('counts a Node only for its own pool, and not while it is cordoned', async () => {
    await node('w-1', 'workers', true);
    await node('e-1', 'edge', true);
    const sampler = await watch({ workers: 1, edge: 1 });
    sampler.phase('cordon');
    // Retire the old one first (the outage a wrong order would make), then the new one comes.
    await patch('/api/v1/nodes/w-1', { spec: { unschedulable: true } });
    await node('w-2', 'workers', true);
    await new Promise((r) => setTimeout(r, 500));
    const r = await sampler.stop();
    expect(r.pools.get(`${NS}/workers`)).toEqual({ min: 0, replicas: 1, at: 'cordon' });
    expect(r.pools.get(`${NS}/edge`)).toEqual({ min: 1, replicas: 1, at: 'start' });
  });

  it('orders Machines and the control plane by revision: a Machine on v1.36.3 is skew only while the control plane is still v1.35.4', async () => {
    await client.applyOrThrow({
      apiVersion: 'controlplane.cluster.x-k8s.io/v1alpha2',
      kind: 'KamajiControlPlane',
      metadata: { name: NS, namespace: NS },
      spec: { dataStoreName: 'default', version: 'v1.36.3' },
    } as KubeObject);
    await patch(`${kcpPath}/${NS}`, { status: { ready: true, version: 'v1.35.4' } }, true);
    await machine('m-old', 'v1.35.4');
    const sampler = await watch({});
    // The control plane first, then the new Machine: no skew.
    sampler.phase('in order');
    await patch(`${kcpPath}/${NS}`, { status: { version: 'v1.36.3' } }, true);
    await machine('m-new', 'v1.36.3');
    await new Promise((r) => setTimeout(r, 300));
    expect((await sampler.stop()).skew).toEqual([]);

    // A kubelet ahead of its control plane: the Machine before the control plane's version.
    await patch(`${kcpPath}/${NS}`, { status: { version: 'v1.35.4' } }, true);
    const second = await watch({});
    second.phase('out of order');
    await machine('m-ahead', 'v1.36.3');
    await patch(`${kcpPath}/${NS}`, { status: { version: 'v1.36.3' } }, true);
    await new Promise((r) => setTimeout(r, 300));
    const skew = (await second.stop()).skew;
    expect(skew.filter((l) => l.includes('m-ahead'))).toEqual([`out of order: ${NS} Node m-ahead (m-ahead) runs v1.36.3, the control plane v1.35.4`]);
  });
});
