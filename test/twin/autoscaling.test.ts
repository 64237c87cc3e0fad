/**
 * Autoscaling 0 → N → 0 in the lab twin (issue 24): each tenant's cluster-autoscaler release played
 * from its source (twin/autoscaler/: the pinned chart, clusterapi provider 1.35.2, the image pvekaas pins for the fixture's Kubernetes 1.35) with the
 * token of the chart's ServiceAccount against the management API server and the rendered
 * `<tenant>-kubeconfig` Secret for the workload cluster; the tenant API server has a REAL
 * kube-scheduler (k8s.io/kubernetes, the kube-apiserver's version), which marks the Pods that fit no Node unschedulable.
 * The lab is test/twin/fixtures/autoscaling.yaml: one MultiInstance tenant, pool `edge` of the
 * primary Cluster on pve-a and pool `burst` of the secondary Cluster on pve-b, both 0..N; the
 * scale-down idle time shortened to 20 s. The steps share one twin and run in order.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { parseLab } from '../../modules/config/load';
import { planPlacement } from '../../modules/placement';
import { renderTenants } from '../../modules/tenants';
import { topologyMachineDeployments } from '../../modules/tenants/replaced';
import { LabTwin, type TwinTenant } from '../../twin/index';
import type { KubeClient } from '../../scripts/lib/kube-apiserver';
import { guardRetire, retireSteps } from '../../scripts/lib/retire-guard';
import {
  ensureDefaultServiceAccount,
  printTimes,
  projectRoot,
  readyReport,
  sampleReadyNodes,
  timed,
  waitForRetireGuard,
  whatFailed,
  workerVmUuids,
} from './support';

jest.setTimeout(20 * 60 * 1000);

const fixture = 'test/twin/fixtures/autoscaling.yaml';
const labText = readFileSync(join(projectRoot, fixture), 'utf8');
const TENANT = 'elastic';
const NS = TENANT;
const CAPI = '/apis/cluster.x-k8s.io/v1beta2';
const POOL_LABEL = 'node.cluster.x-k8s.io/pool';
const MAX_KEY = 'cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size';
const IDLE_MS = 20000;

let twin: LabTwin;

const mgmt = (): KubeClient => twin.management.client;
const tenantApi = (): KubeClient => {
  const plane = [...twin.kamaji.planes.values()].find((p) => p.namespace === NS);
  if (!plane) throw new Error(`no tenant control plane for ${NS}`);
  return plane.server.client;
};
const list = async (client: KubeClient, path: string): Promise<any[]> => {
  const r = await client.get(path);
  if (r.status !== 200) throw new Error(`GET ${path}: HTTP ${r.status}: ${r.body?.message ?? r.text}`);
  return r.body.items as any[];
};
/** The MachineDeployment of a pool (primary or secondary Cluster). */
async function poolMd(pool: string): Promise<any> {
  const mds = await list(mgmt(), `${CAPI}/namespaces/${NS}/machinedeployments`);
  const md = mds.find((m) => m.metadata.labels?.[POOL_LABEL] === pool || m.spec?.template?.metadata?.labels?.[POOL_LABEL] === pool);
  if (!md) throw new Error(`no MachineDeployment of pool ${pool}: ${mds.map((m) => m.metadata.name).join(', ')}`);
  return md;
}
const tenantVms = () => twin.sim.listVms().filter((v) => !v.template && v.pool === `capi-${TENANT}`);

async function converged(what: string): Promise<TwinTenant> {
  const [t] = await twin.waitConverged([TENANT], 6 * 60 * 1000);
  if (!t.converged) throw new Error(`${what}: ${TENANT} did not converge: ${t.waiting.join('; ')}\n${twin.diagnostics()}`);
  return t;
}

/** Pods asking for most of a machine of the pool (2 cpu, 4096 MiB): one per Node. */
async function createPods(pool: string, count: number, prefix = pool, requests = { cpu: '1500m', memory: '2Gi' }): Promise<string[]> {
  const api = tenantApi();
  await ensureDefaultServiceAccount(api);
  const names: string[] = [];
  for (let i = 0; i < count; i++) {
    const name = `${prefix}-load-${i}`;
    const r = await api.post('/api/v1/namespaces/default/pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: 'default' },
      spec: {
        nodeSelector: { [POOL_LABEL]: pool },
        automountServiceAccountToken: false,
        terminationGracePeriodSeconds: 0,
        containers: [{ name: 'load', image: 'registry.k8s.io/pause:3.10', resources: { requests } }],
      },
    });
    if (r.status !== 201) throw new Error(`Pod ${name}: HTTP ${r.status}: ${r.body?.message}`);
    names.push(name);
  }
  return names;
}

async function deletePods(names: string[]): Promise<void> {
  for (const name of names) {
    // No kubelet confirms a graceful deletion: gone at once, as `kubectl delete --force --grace-period=0`.
    const r = await tenantApi().request('DELETE', `/api/v1/namespaces/default/pods/${name}`, {
      apiVersion: 'v1',
      kind: 'DeleteOptions',
      gracePeriodSeconds: 0,
    });
    if (r.status !== 200 && r.status !== 404) throw new Error(`deleting Pod ${name}: HTTP ${r.status}: ${r.body?.message}`);
  }
}

const pod = async (name: string) => (await tenantApi().get(`/api/v1/namespaces/default/pods/${name}`)).body;
const unschedulable = (p: any) =>
  (p.status?.conditions ?? []).some((c: any) => c.type === 'PodScheduled' && c.status === 'False' && c.reason === 'Unschedulable');

/** Waits a while and asserts the pool stayed at 0 (the autoscaler could not, or would not, act). */
async function staysAtZero(pool: string, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    expect((await poolMd(pool)).spec.replicas ?? 0).toBe(0);
    await new Promise((r) => setTimeout(r, 2000));
  }
}

beforeAll(
  async () => {
    const work = mkdtempSync(join(tmpdir(), 'pvekaas-twin-autoscaling-'));
    const log = process.env.PVEKAAS_TWIN_LOG ? (l: string) => process.stderr.write(`[twin] ${l}\n`) : undefined;
    twin = await LabTwin.start({ root: projectRoot, labText, labFile: 'autoscaling.yaml', work, log, autoscaler: true });
    timed(twin, 'autoscaling');
    await twin.applyKubernetes();
    await converged('first apply');
  },
  25 * 60 * 1000,
);

afterAll(async () => {
  printTimes(twin);
  await twin?.stop();
  twin?.cleanup();
});

describe('autoscaling in the lab twin', () => {
  it('installs the release as rendered: ServiceAccount, namespaced Role, both pools at 0 and no VM', async () => {
    const role = (await mgmt().get(`/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/roles/cluster-autoscaler`)).body;
    expect(role.rules).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ resources: ['machinedeployments/scale', 'machinepools/scale'] }),
        expect.objectContaining({ resources: ['proxmoxmachinetemplates'] }),
      ]),
    );
    expect((await mgmt().get(`/api/v1/namespaces/${NS}/serviceaccounts/cluster-autoscaler`)).status).toBe(200);
    for (const pool of ['edge', 'burst']) expect((await poolMd(pool)).spec.replicas ?? 0).toBe(0);
    expect(tenantVms()).toHaveLength(0);
    // A loop has run without a failure (it read everything with the ServiceAccount's token).
    await twin.waitFor('an autoscaler loop', 60000, async () => twin.autoscaler!.failures().size === 0 && twin.autoscaler!.lastCompletedLoop(NS) > 0);
  });

  it('grows the primary and the secondary pool from 0 for unschedulable Pods, and back to 0 after the idle time', async () => {
    const edgePods = await createPods('edge', 2);
    const burstPods = await createPods('burst', 1);
    // The real kube-scheduler: no Node fits them.
    await twin.waitFor('Pods marked unschedulable', 60000, async () => (await Promise.all([...edgePods, ...burstPods].map(pod))).every(unschedulable));

    // 0 → N: the autoscaler writes the scale subresource; CAPI, CAPMOX and the kubelets do the rest.
    await twin.waitFor('the Pods running on new Nodes', 10 * 60 * 1000, async () =>
      (await Promise.all([...edgePods, ...burstPods].map(pod))).every((p) => p.spec?.nodeName),
    );
    const boundAt = Date.now();
    expect((await poolMd('edge')).spec.replicas).toBe(2);
    expect((await poolMd('burst')).spec.replicas).toBe(1);
    const grown = await converged('grown');
    const byPool = (pool: string) => grown.machines.filter((m) => m.pool === pool);
    expect(byPool('edge').map((m) => [m.cluster, m.instance, m.node])).toEqual([
      [TENANT, 'pve-a', 'pve-a-1'],
      [TENANT, 'pve-a', 'pve-a-1'],
    ]);
    expect(byPool('burst').map((m) => [m.cluster, m.instance, m.node])).toEqual([[`${TENANT}-pve-b`, 'pve-b', 'pve-b-1']]);
    for (const m of grown.machines) expect(m.createdBy).toBe(`capmox@pve!tenant-${TENANT}`);
    // Each Pod on a Node of its own pool, one per Node (2 cpu each, 1.5 asked).
    const nodesOf = async (names: string[]) => new Set((await Promise.all(names.map(pod))).map((p) => p.spec.nodeName));
    expect(await nodesOf(edgePods)).toEqual(new Set(byPool('edge').map((m) => m.nodeName)));
    expect(await nodesOf(burstPods)).toEqual(new Set(byPool('burst').map((m) => m.nodeName)));
    const ups = twin.autoscaler!.events.filter((e) => e.kind === 'ScaleUp');
    expect(ups.every((e) => e.to <= (e.group.includes('burst') ? 2 : 3))).toBe(true);

    // A loop that began after the Pods were bound found every new Node needed. A Node can be found
    // unneeded before (Ready, its Pod not bound yet and not placed there by filter_out_schedulable,
    // e.g. the pool label not synced yet); the real autoscaler forgets that only in such a loop.
    await twin.waitFor('an autoscaler loop that saw the Pods bound', 60000, async () => twin.autoscaler!.lastCompletedLoop(NS) > boundAt);
    const barrier = twin.autoscaler!.lastCompletedLoop(NS);

    // N → 0: the Pods gone, the Nodes idle for the configured time, then deleted with their VMs.
    await deletePods([...edgePods, ...burstPods]);
    // CAPI deletes the Node after the infrastructure machine (the VM), so the Nodes go last.
    await twin.waitFor(
      'both pools back to 0, every VM and Node deleted',
      8 * 60 * 1000,
      async () =>
        (await poolMd('edge')).spec.replicas === 0 &&
        (await poolMd('burst')).spec.replicas === 0 &&
        tenantVms().length === 0 &&
        (await list(tenantApi(), '/api/v1/nodes')).length === 0,
    );
    const downs = twin.autoscaler!.events.filter((e) => e.kind === 'ScaleDown');
    expect(downs.length).toBeGreaterThan(0);
    for (const d of downs) {
      expect(d.nodes!.length).toBeGreaterThan(0);
      for (const n of d.nodes!) {
        // Unneeded from a loop after the one that saw it needed, and deleted the idle time later.
        expect(d.unneededSince![n]).toBeGreaterThan(barrier);
        expect(d.at - d.unneededSince![n]).toBeGreaterThanOrEqual(IDLE_MS);
      }
    }
    await converged('shrunk');
  });

  it('a Role without patch on machinedeployments/scale: the scale-up is forbidden, the pool stays at 0', async () => {
    const path = `/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/roles/cluster-autoscaler`;
    const role = (await mgmt().get(path)).body;
    const broken = {
      ...role,
      rules: role.rules.map((r: any) => (r.resources.includes('machinedeployments/scale') ? { ...r, verbs: r.verbs.filter((v: string) => v !== 'patch') } : r)),
    };
    expect((await mgmt().request('PUT', path, broken)).status).toBe(200);
    const pods = await createPods('edge', 1, 'forbidden');
    try {
      await twin.waitFor('the autoscaler refused', 90000, async () => /forbidden/i.test(twin.autoscaler!.failures().get(NS) ?? ''));
      expect(twin.autoscaler!.failures().get(NS)).toMatch(/patch scale: .*cannot patch resource "machinedeployments\/scale"/);
      await staysAtZero('edge', 15000);
    } finally {
      await deletePods(pods);
      const now = (await mgmt().get(path)).body;
      expect((await mgmt().request('PUT', path, { ...role, metadata: { ...role.metadata, resourceVersion: now.metadata.resourceVersion } })).status).toBe(200);
    }
  });

  it('the chart Role alone (no rule for the infrastructure templates): the provider waits on its informer, nothing scales', async () => {
    const path = `/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/roles/cluster-autoscaler`;
    const role = (await mgmt().get(path)).body;
    const broken = { ...role, rules: role.rules.filter((r: any) => !r.resources.includes('proxmoxmachinetemplates')) };
    expect((await mgmt().request('PUT', path, broken)).status).toBe(200);
    const pods = await createPods('burst', 1, 'noinfra');
    try {
      await twin.waitFor('the autoscaler stuck', 90000, async () =>
        /cache sync on infrastructure resource proxmoxmachinetemplates/.test(twin.autoscaler!.failures().get(NS) ?? ''),
      );
      await staysAtZero('burst', 15000);
    } finally {
      await deletePods(pods);
      const now = (await mgmt().get(path)).body;
      expect((await mgmt().request('PUT', path, { ...role, metadata: { ...role.metadata, resourceVersion: now.metadata.resourceVersion } })).status).toBe(200);
    }
  });

  it.each([
    ['without the memory capacity annotation', (a: Record<string, string>) => delete a['capacity.cluster-autoscaler.kubernetes.io/memory']],
    [
      'with the max size under a wrong key',
      (a: Record<string, string>) => {
        a['cluster.x-k8s.io/cluster-api-autoscaler-node-group-max'] = a[MAX_KEY];
        delete a[MAX_KEY];
      },
    ],
  ])('a secondary MachineDeployment %s is no node group: its Pods stay pending, the pool at 0', async (_what, mutate) => {
    const md = await poolMd('burst');
    const path = `${CAPI}/namespaces/${NS}/machinedeployments/${md.metadata.name}`;
    const original = { ...md.metadata.annotations };
    const annotations = { ...original };
    mutate(annotations);
    const put = async (a: Record<string, string>) => {
      const now = (await mgmt().get(path)).body;
      const r = await mgmt().request('PUT', path, { ...now, metadata: { ...now.metadata, annotations: a } });
      if (r.status !== 200) throw new Error(`PUT ${path}: HTTP ${r.status}: ${r.body?.message}`);
    };
    await put(annotations);
    const before = twin.autoscaler!.events.length;
    const pods = await createPods('burst', 1, 'mutated');
    try {
      await twin.waitFor('Pod marked unschedulable', 60000, async () => unschedulable(await pod(pods[0])));
      await staysAtZero('burst', 30000);
      expect(twin.autoscaler!.events.slice(before).filter((e) => e.kind === 'ScaleUp')).toEqual([]);
      expect(twin.autoscaler!.failures().get(NS)).toBeUndefined();
    } finally {
      await deletePods(pods);
      await put(original);
    }
  });
});

describe('an autoscaled pool through surge, then retire', () => {
  it('resizes edge (2 → 4 cpu) at 2 machines with autoscaling.floor 2: CAPI makes the new group at 2, the autoscaler keeps it there while its Nodes are idle, the guard lets the retire go, Ready Nodes never below 2', async () => {
    // The pool at a size of the autoscaler's making: two Pods that fit only on new Nodes.
    const small = await createPods('edge', 2, 'held');
    await twin.waitFor('edge grown to 2 for its Pods', 6 * 60 * 1000, async () => (await Promise.all(small.map(pod))).every((p) => p.spec?.nodeName));
    await twin.waitFor(
      'both edge Nodes Ready',
      2 * 60 * 1000,
      async () => (await twin.tenant(TENANT)).machines.filter((m) => m.pool === 'edge' && m.ready).length === 2,
    );

    // The resize, surge then retire (docs/tenants.md): previous.pools keeps the old group as it is;
    // autoscaling.floor (the pool's size on pve-a-1 now, 2) is the new group's min until the retire is done.
    const MIN_KEY = 'cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size';
    const resized = (surge: boolean, floor: boolean) => {
      const doc = parseDocument(labText);
      if (surge) doc.setIn(['tenants', 0, 'previous'], doc.createNode({ pools: (doc.getIn(['tenants', 0, 'pools']) as any).toJSON() }));
      doc.setIn(['tenants', 0, 'pools', 0, 'size'], doc.createNode({ cpu: 4, memoryMiB: 8192, diskGiB: 20 }));
      if (floor) doc.setIn(['tenants', 0, 'pools', 0, 'autoscaling', 'floor'], doc.createNode({ 'pve-a/pve-a-1': 2 }));
      return doc.toString();
    };
    const mdsOf = (text: string) => {
      const l = parseLab(text, 'autoscaling.yaml');
      return [...renderTenants(l, planPlacement(l)).values()].flatMap((t) => topologyMachineDeployments(t.cluster));
    };
    const steps = retireSteps(mdsOf(resized(true, true)), mdsOf(resized(false, true)));
    expect(steps.map((s) => ({ tenant: s.tenant, autoscaled: s.autoscaled.map((g) => g.pool) }))).toEqual([{ tenant: TENANT, autoscaled: ['edge'] }]);
    const [newName] = steps[0].autoscaled[0].carried;
    const newMd = async () => {
      const mds = await list(mgmt(), `${CAPI}/namespaces/${NS}/machinedeployments`);
      return mds.find((m) => m.metadata.labels?.['topology.cluster.x-k8s.io/deployment-name'] === newName);
    };
    const oldVms = workerVmUuids(twin, 'pve-a');
    expect(oldVms.size).toBe(2);
    // The floor: the pool's current size (what the autoscaler holds it at), sampled in the tenant's API server.
    const sampler = await sampleReadyNodes(twin, new Map([[TENANT, new Map([['edge', 2]])]]));
    const timing: { step: string; seconds: number }[] = [];
    let last = '';
    let samples: Awaited<ReturnType<typeof sampler.stop>>;
    try {
      sampler.phase('surge');
      let t0 = Date.now();
      await twin.update(resized(true, true));
      // CAPI made the new group at its min-size annotation, the floor (no Pods for the new size needed).
      await waitForRetireGuard(
        twin,
        'the retire guard passing: the new group holds 2 Ready machines beside the old',
        6 * 60 * 1000,
        steps,
        oldVms,
        (m) => (last = m),
      );
      timing.push({ step: 'surge (new group made at the floor beside the old, guard passing)', seconds: (Date.now() - t0) / 1000 });
      const made = await newMd();
      expect({ replicas: made.spec.replicas, min: made.metadata.annotations[MIN_KEY] }).toEqual({ replicas: 2, min: '2' });
      // Its Nodes idle past the scale-down times (20 s unneeded, 20 s after a scale-up): the autoscaler keeps it at 2.
      const idleUntil = Date.now() + 3 * IDLE_MS;
      while (Date.now() < idleUntil) {
        expect((await newMd()).spec.replicas).toBe(2);
        await new Promise((r) => setTimeout(r, 2000));
      }
      await guardRetire(twin.lab, steps, undefined, mgmt());
      sampler.phase('retire');
      t0 = Date.now();
      await twin.update(resized(false, true));
      await twin.waitFor('edge on the new size only, the old VMs gone', 6 * 60 * 1000, async () => {
        const t = await twin.tenant(TENANT);
        const edge = t.machines.filter((m) => m.pool === 'edge');
        last = `${t.waiting.join('; ')}; ${edge.map((m) => `${m.name} ${m.phase} ${m.cpu} cpu${m.ready ? ' ready' : ''}`).join(', ')}`;
        return twin.sim.listVms().filter((v) => oldVms.has(v.uuid)).length === 0 && edge.length === 2 && edge.every((m) => m.cpu === 4 && m.ready);
      });
      timing.push({ step: 'retire (old size drained and deleted)', seconds: (Date.now() - t0) / 1000 });
      // Stopped before the floor goes: without it the autoscaler may shrink the pool (as without a surge).
      samples = await sampler.stop();
    } catch (e) {
      process.stdout.write(`${readyReport('autoscaled edge resize (failed)', await sampler.stop(), timing)}\n`);
      throw new Error(`${whatFailed(e)}\nlast seen: ${last}\n${twin.diagnostics()}`);
    }
    try {
      // After the retire, without the floor: the declared min (0) on the same MachineDeployment.
      await twin.update(resized(false, false));
      await twin.waitFor('the declared min back on the new group', 2 * 60 * 1000, async () => (await newMd())?.metadata.annotations?.[MIN_KEY] === '0');
    } finally {
      await deletePods(small);
    }
    process.stdout.write(`${readyReport('autoscaled edge resize (2 → 4 cpu) at 2 machines, floor 2', samples, timing)}\n`);
    expect(samples.lost).toEqual([]);
    expect({ notes: samples.notes, skew: samples.skew }).toEqual({ notes: [], skew: [] });
    expect(samples.pools.get(`${TENANT}/edge`)!.min).toBeGreaterThanOrEqual(2);
  });
});
