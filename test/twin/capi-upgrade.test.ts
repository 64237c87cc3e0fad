/**
 * Moving a running lab from Cluster API 1.12 to 1.13 in the lab twin (docs/management.md, "Moving
 * from Cluster API 1.12 to 1.13"): the tenants converge on the pinned 1.12 controllers; then the lab
 * description's one edit (`management.versions.clusterApi` to the second CAPI lane's version,
 * toolchain.json `capiNext`) is applied as a deploy would, management stack first, and the twin plays
 * what the cluster-api-operator does for it (scripts/twin/index.ts `playOperatorUpgrades`): core and
 * kubeadm bootstrap scaled down, the 1.13 CRDs replace the 1.12 ones, roles and webhook
 * configurations swapped, the managers started on the 1.13 binaries. Every tenant survives: no
 * Machine replaced, every pool's Ready Nodes (sampled in the tenants' own API servers) never below
 * what it asks for, every Cluster Available throughout, and the second plan empty after the move.
 * Then a change made on 1.13 converges: a new tenant and a scale-up.
 *
 * A natural way the move breaks, and the test catching it: a CRD whose status.storedVersions still
 * records a version 1.13 drops (v1alpha4) — the API server refuses the 1.13 CRD and the operator's
 * upgrade stops with core and bootstrap scaled down, as clusterctl leaves them.
 *
 * The lab: the example lab with tenant-a (Default, 2 workers) and tenant-c (MultiInstance, 3 workers).
 *
 * Then a twin of its own on a lab synthesized with `clusterApi` on the lane from the start (tenant-a
 * with 1 worker, tenant-c with 2): the 1.13 CRDs installed, the 1.13 managers started, converged.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { capiNextLane, pinnedVersions } from '../../modules/versions';
import type { LabTwin } from '../../scripts/twin/index';
import { convergedOrThrow, plannedCounts, projectRoot, readyReport, sampleReadyNodes, startTwin, printTimes } from './support';

jest.setTimeout(20 * 60 * 1000);

const lane = capiNextLane()!;
const FROM = pinnedVersions.clusterApi;
const TO = lane.version;
const names = ['tenant-a', 'tenant-c'];

/** The lab: tenant-a and tenant-c of the example lab, smaller; `edit` changes it further. */
function upgradeLab(edit?: (doc: ReturnType<typeof parseDocument>) => void): string {
  const doc = parseDocument(readFileSync(join(projectRoot, 'examples/lab.yaml'), 'utf8'));
  const tenants = doc.get('tenants') as { items: { get(k: string): unknown }[] };
  tenants.items = tenants.items.filter((t) => names.includes(t.get('name') as string));
  doc.setIn(['tenants', 0, 'pools', 0, 'replicas'], 2);
  doc.setIn(['tenants', 1, 'pools', 0, 'replicas'], 3);
  edit?.(doc);
  return doc.toString();
}

/** The one edit of the move. */
const onLane = (doc: ReturnType<typeof parseDocument>) => doc.setIn(['management', 'versions', 'clusterApi'], TO);

let twin: LabTwin;
const mgmt = () => twin.management.client;

/** What each pool asks for (its replicas, from the plan), per tenant. */
function requiredReady(tenants: string[]): Map<string, Map<string, number>> {
  return new Map(
    tenants.map((t) => {
      const pools = new Map<string, number>();
      for (const [key, n] of plannedCounts(twin.plan, t)) pools.set(key.split(' ')[0], (pools.get(key.split(' ')[0]) ?? 0) + n);
      return [t, pools];
    }),
  );
}

/** Every Machine of the tenants: `namespace/name` → uid. */
async function machineUids(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const ns of names) {
    const r = await mgmt().get(`/apis/cluster.x-k8s.io/v1beta2/namespaces/${ns}/machines`);
    for (const m of r.body.items as { metadata: { name: string; uid: string } }[]) out.set(`${ns}/${m.metadata.name}`, m.metadata.uid);
  }
  return out;
}

/** Every Cluster of the tenants (primary and secondary): `namespace/name` → its Available condition's status. */
async function clusterAvailability(tenants = names): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const ns of tenants) {
    const r = await mgmt().get(`/apis/cluster.x-k8s.io/v1beta2/namespaces/${ns}/clusters`);
    if (r.status !== 200) {
      out.set(`${ns}/*`, `HTTP ${r.status}`);
      continue;
    }
    for (const c of r.body.items as {
      metadata: { name: string };
      status?: { conditions?: { type: string; status: string; reason?: string; message?: string }[] };
    }[]) {
      const available = c.status?.conditions?.find((x) => x.type === 'Available');
      out.set(
        `${ns}/${c.metadata.name}`,
        available ? `${available.status}${available.status === 'True' ? '' : ` (${available.reason}: ${available.message})`}` : 'no Available condition',
      );
    }
  }
  return out;
}

/** Samples the Clusters' Available condition every second until stopped: every state other than True seen. */
function sampleAvailability(): { stop(): Promise<{ samples: number; notTrue: string[] }> } {
  let stopped = false;
  const notTrue: string[] = [];
  let samples = 0;
  const loop = (async () => {
    while (!stopped) {
      for (const [cluster, status] of await clusterAvailability())
        if (status !== 'True') notTrue.push(`${new Date().toISOString().slice(11, 19)} ${cluster}: ${status}`);
      samples++;
      await new Promise((r) => setTimeout(r, 1000));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return { samples, notTrue };
    },
  };
}

/** Waits up to 2 minutes for every Cluster of `tenants` to be Available; what is not, then. */
async function everyClusterAvailable(tenants: string[]): Promise<[string, string][]> {
  let notAvailable: [string, string][] = [];
  await twin
    .waitFor('every Cluster Available', 120000, async () => {
      notAvailable = [...(await clusterAvailability(tenants))].filter(([, s]) => s !== 'True');
      return notAvailable.length === 0;
    })
    .catch(() => undefined);
  return notAvailable;
}

const crdVersions = async (name: string) => {
  const crd = (await mgmt().get(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`)).body;
  return { versions: (crd.spec.versions as { name: string }[]).map((v) => v.name), stored: crd.status.storedVersions as string[] };
};

describe(`moving a running lab from Cluster API ${FROM} to ${TO} in the twin`, () => {
  beforeAll(
    async () => {
      expect(lane).toBeDefined();
      twin = await startTwin(upgradeLab(), 'capi-upgrade');
      await twin.applyKubernetes();
      await convergedOrThrow(twin, names, 10 * 60 * 1000);
    },
    25 * 60 * 1000,
  );

  afterAll(async () => {
    printTimes(twin);
    await twin?.stop();
    twin?.cleanup();
  });

  it(`converged on the pinned ${FROM} controllers, every Cluster Available`, async () => {
    expect(twin.controllerVersions()).toMatchObject({ 'capi-manager': FROM, 'kubeadm-bootstrap-manager': FROM });
    expect((await crdVersions('machines.cluster.x-k8s.io')).versions).toContain('v1alpha4');
    // A MachineDeployment's availableReplicas follows its Machines by a few seconds: wait for it.
    expect(await everyClusterAvailable(names)).toEqual([]);
    expect((await clusterAvailability()).size).toBeGreaterThanOrEqual(names.length + 1); // tenant-c's secondary too
  });

  let report = '';
  it(`refuses the move while a CRD still records a version ${TO} drops (status.storedVersions v1alpha4): the API server refuses the new CRD, and the operator leaves core and bootstrap scaled down`, async () => {
    const path = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/machines.cluster.x-k8s.io/status';
    const set = async (stored: string[]) => {
      const r = await mgmt().request('PATCH', path, { status: { storedVersions: stored } }, 'application/merge-patch+json');
      expect(r.status).toBe(200);
    };
    await set(['v1alpha4', 'v1beta2']);
    await expect(twin.update(upgradeLab(onLane))).rejects.toThrow(/CRD machines\.cluster\.x-k8s\.io refused: HTTP 422: .*storedVersions/);
    // What CAPI 1.12's own CRD migrator leaves once every object is stored at v1beta2.
    await set(['v1beta2']);
  });

  it(`moves: the operator's upgrade replaces CRDs, roles, webhooks and managers; no Machine replaced, no pool below its replicas, every Cluster Available, the second plan empty`, async () => {
    const before = await machineUids();
    const sampler = sampleReadyNodes(twin, requiredReady(names));
    const availability = sampleAvailability();
    const steps: { step: string; seconds: number }[] = [];
    let t0 = Date.now();
    let samples;
    let available;
    try {
      await twin.update(upgradeLab(onLane));
      steps.push({
        step: "deploy (management first, the operator's upgrade, then management-config and the tenant stacks)",
        seconds: (Date.now() - t0) / 1000,
      });
      t0 = Date.now();
      await convergedOrThrow(twin, names, 5 * 60 * 1000);
      // A while on the new controllers: a rollout the 1.13 topology controller started would show here.
      await new Promise((r) => setTimeout(r, 30000));
      steps.push({ step: 'converged, then 30 s on 1.13', seconds: (Date.now() - t0) / 1000 });
    } finally {
      samples = await sampler.stop();
      available = await availability.stop();
    }
    const upgrade = twin.upgrades[twin.upgrades.length - 1];
    report = `${readyReport('the move', samples, [...upgrade.steps, ...steps])}\n  Cluster Available: ${available.samples} samples, not True: ${available.notTrue.length}`;
    process.stderr.write(`${report}\n${available.notTrue.slice(0, 20).join('\n')}\n`);

    expect(twin.controllerVersions()).toMatchObject({ 'capi-manager': TO, 'kubeadm-bootstrap-manager': TO });
    expect(upgrade.to).toEqual({ 'capi-manager': TO, 'kubeadm-bootstrap-manager': TO });
    expect(upgrade.crds).toEqual(
      expect.arrayContaining(['machines.cluster.x-k8s.io', 'clusters.cluster.x-k8s.io', 'kubeadmconfigs.bootstrap.cluster.x-k8s.io']),
    );
    // The 1.13 CRDs, storage version as upstream.
    expect(await crdVersions('machines.cluster.x-k8s.io')).toEqual({ versions: ['v1beta1', 'v1beta2'], stored: ['v1beta2'] });
    expect(await machineUids()).toEqual(before);
    // A sample whose GETs failed counts as none. The only failures allowed: the management API
    // server shedding load (HTTP 429, "retry later") on a machine busy with the whole twin, a few.
    const failed = samples.notes.filter((n) => /tenant samples failed/.test(n));
    expect(samples.notes.filter((n) => !failed.includes(n))).toEqual([]);
    for (const n of failed) {
      expect(n.replace(/ (200|429)\b/g, '')).not.toMatch(/ \d{1,3}\b[,;)]/);
      expect(Number(/^(\d+) /.exec(n)![1])).toBeLessThanOrEqual(Math.ceil(samples.samples * 0.05));
    }
    for (const [pool, p] of samples.pools) expect({ pool, fewest: p.min >= p.replicas }).toEqual({ pool, fewest: true });
    expect(samples.maxGapMs).toBeLessThan(10000);
    // What is true of the Clusters' Available condition: while kubeadm bootstrap is swapped its
    // webhook does not answer, so the new core's topology reconcile fails (TopologyReconciled False)
    // and Available goes False for those seconds — a status, not an outage (the Nodes above stay
    // Ready); nothing else, and Available again right after.
    // A sample the management API server shed (HTTP 429, as above) is no sample, not a False; a few.
    const shed = available.notTrue.filter((n) => /: HTTP 429$/.test(n));
    expect(shed.length).toBeLessThanOrEqual(Math.ceil(available.samples * 0.05) * names.length);
    const blips = available.notTrue.filter(
      (n) =>
        !shed.includes(n) &&
        !/TopologyReconciled: error reconciling the Cluster topology: .*failed calling webhook "[a-z.]+\.bootstrap\.cluster\.x-k8s\.io".*connection refused/.test(
          n,
        ),
    );
    expect(blips).toEqual([]);
    const times = available.notTrue.filter((n) => !shed.includes(n)).map((n) => Date.parse(`1970-01-01T${n.slice(0, 8)}Z`));
    if (times.length > 0) expect(Math.max(...times) - Math.min(...times)).toBeLessThanOrEqual(30000);
    expect(await everyClusterAvailable(names)).toEqual([]);
    expect(await twin.secondPlan(['management-config', ...names.map((n) => `tenant-${n}`)])).toEqual([]);
    // The operator's provider objects report the new version installed.
    const core = await mgmt().get('/apis/operator.cluster.x-k8s.io/v1alpha2/namespaces/capi-system/coreproviders/cluster-api');
    expect(core.body?.status?.installedVersion).toBe(TO);
  });

  it(`converges a change made on ${TO}: a new tenant and a scale-up, as planned, the second plan empty`, async () => {
    const grown = upgradeLab((doc) => {
      onLane(doc);
      doc.setIn(['tenants', 0, 'pools', 0, 'replicas'], 3);
      // tenant-c grows on both instances: new machines of its primary and of its secondary Cluster.
      doc.setIn(['tenants', 1, 'pools', 0, 'replicas'], 5);
      const d = (doc.getIn(['tenants', 0]) as { toJSON(): Record<string, unknown> }).toJSON();
      (doc.get('tenants') as { items: unknown[] }).items.push(
        doc.createNode({
          ...d,
          name: 'tenant-d',
          pools: [{ ...(d.pools as Record<string, unknown>[])[0], replicas: 1 }],
          network: { ...(d.network as object), addresses: ['10.10.4.10-10.10.4.60'], gateway: '10.10.4.1', dnsServers: ['10.10.4.1'] },
          groups: ['team-d'],
        }),
      );
    });
    const before = await machineUids();
    await twin.update(grown);
    const all = [...names, 'tenant-d'];
    const converged = await twin.waitConverged(all, 8 * 60 * 1000);
    if (!converged.every((t) => t.converged))
      throw new Error(`${converged.map((t) => `${t.name}: ${t.waiting.join('; ')}`).join('\n')}\n${twin.diagnostics()}`);
    for (const t of converged) expect({ tenant: t.name, notAsPlanned: t.notAsPlanned }).toEqual({ tenant: t.name, notAsPlanned: [] });
    expect(converged.find((t) => t.name === 'tenant-a')!.machines).toHaveLength(3);
    const c = converged.find((t) => t.name === 'tenant-c')!;
    expect(c.machines).toHaveLength(5);
    // New machines on 1.13 in both of tenant-c's Clusters (the primary on pmox-txl, the secondary on pmox-fra).
    const grownOn = new Set(c.machines.filter((m) => !before.has(`tenant-c/${m.name}`)).map((m) => m.cluster));
    expect([...grownOn].sort()).toEqual([...new Set(c.machines.map((m) => m.cluster))].sort());
    expect(converged.find((t) => t.name === 'tenant-d')!.machines).toHaveLength(1);
    // The scale-up adds a machine; none of the others is replaced.
    const after = await machineUids();
    for (const [machine, uid] of before) expect({ machine, uid: after.get(machine) }).toEqual({ machine, uid });
    expect(await everyClusterAvailable(all)).toEqual([]);
    expect(await twin.secondPlan(['management-config', ...all.map((n) => `tenant-${n}`)])).toEqual([]);
    expect(twin.controllerVersions()).toMatchObject({ 'capi-manager': TO, 'kubeadm-bootstrap-manager': TO });
  });
});

describe(`a lab synthesized with clusterApi ${TO} in a twin of its own`, () => {
  // Smaller: tenant-a with 1 worker, tenant-c with 2 (one per instance, its secondary Cluster on pmox-fra).
  const fresh = upgradeLab((doc) => {
    onLane(doc);
    doc.setIn(['tenants', 0, 'pools', 0, 'replicas'], 1);
    doc.setIn(['tenants', 1, 'pools', 0, 'replicas'], 2);
  });
  beforeAll(
    async () => {
      twin = await startTwin(fresh, 'capi-113');
      await twin.applyKubernetes();
    },
    25 * 60 * 1000,
  );

  afterAll(async () => {
    printTimes(twin);
    await twin?.stop();
    twin?.cleanup();
  });

  it(`starts on the ${TO} CRDs and controllers and converges as planned, every Cluster Available, the second plan empty`, async () => {
    expect(twin.controllerVersions()).toMatchObject({ 'capi-manager': TO, 'kubeadm-bootstrap-manager': TO });
    expect(await crdVersions('machines.cluster.x-k8s.io')).toEqual({ versions: ['v1beta1', 'v1beta2'], stored: ['v1beta2'] });
    const converged = await convergedOrThrow(twin, names, 10 * 60 * 1000);
    for (const t of converged) expect({ tenant: t.name, notAsPlanned: t.notAsPlanned }).toEqual({ tenant: t.name, notAsPlanned: [] });
    expect(await everyClusterAvailable(names)).toEqual([]);
    expect(await twin.secondPlan(['management', 'management-config', ...names.map((n) => `tenant-${n}`)])).toEqual([]);
    const core = await mgmt().get('/apis/operator.cluster.x-k8s.io/v1alpha2/namespaces/capi-system/coreproviders/cluster-api');
    expect(core.body?.status?.installedVersion).toBe(TO);
  });
});
