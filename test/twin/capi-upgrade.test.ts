/**
 * Moving a running lab from Cluster API 1.12 to 1.13 (docs/management.md, "Moving from Cluster API
 * 1.12 to 1.13"), in a twin of its own. The lab starts on the previous CAPI lane
 * (`management.versions.clusterApi` at toolchain.json `capiPrevious`, v1.12: the 1.12 CRDs, the 1.12
 * core and kubeadm bootstrap managers) and converges as planned; then the move's one edit — the
 * override removed, so the lab takes pvekaas's default — is applied as a deploy would, management
 * stack first, and the twin plays what the cluster-api-operator does for it
 * (twin/harness/upgrades.ts `playOperatorUpgrades`): core and kubeadm bootstrap scaled down, the 1.13
 * CRDs replace the 1.12 ones, roles and webhook configurations swapped, the managers started on the
 * 1.13 binaries. Every tenant survives: no Machine replaced, every pool's Ready Nodes (sampled in the
 * tenants' own API servers) never below what it asks for, every Cluster Available throughout but for
 * the seconds kubeadm bootstrap's webhook is swapped, and the second plan empty after the move. Then a
 * change made on 1.13 converges: a new tenant and a scale-up.
 *
 * A natural way the move breaks, and the test catching it: a CRD whose status.storedVersions still
 * records a version 1.13 drops (v1alpha4) — the API server refuses the 1.13 CRD and the operator's
 * upgrade stops with core and bootstrap scaled down, as clusterctl leaves them.
 *
 * The lab: the example lab's tenant-a (1 worker) and tenant-c (2 workers, one per instance, its
 * secondary Cluster on pmox-fra). Every other twin suite runs on the default (1.13) from the start.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { capiPreviousLane, pinnedVersions } from '../../modules/versions';
import type { LabTwin } from '../../twin/index';
import {
  clusterAvailability,
  convergedOrThrow,
  crdVersions,
  everyClusterAvailable,
  machineUids,
  plannedCounts,
  printTimes,
  projectRoot,
  readyReport,
  sampleAvailability,
  sampleReadyNodes,
  startTwin,
} from './support';

jest.setTimeout(20 * 60 * 1000);

const CAPI_FROM = capiPreviousLane()!.version;
const CAPI_TO = pinnedVersions.clusterApi;
const names = ['tenant-a', 'tenant-c'];

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

const fresh = (() => {
  const doc = parseDocument(readFileSync(join(projectRoot, 'examples/lab.yaml'), 'utf8'));
  const tenants = doc.get('tenants') as { items: { get(k: string): unknown }[] };
  tenants.items = tenants.items.filter((t) => names.includes(t.get('name') as string));
  doc.setIn(['tenants', 0, 'pools', 0, 'replicas'], 1);
  doc.setIn(['tenants', 1, 'pools', 0, 'replicas'], 2);
  doc.setIn(['management', 'versions', 'clusterApi'], CAPI_FROM);
  return doc.toString();
})();

let twin: LabTwin;
const mgmt = () => twin.management.client;

beforeAll(
  async () => {
    twin = await startTwin(fresh, 'capi-move');
    await twin.applyKubernetes();
  },
  25 * 60 * 1000,
);

afterAll(async () => {
  printTimes(twin);
  await twin?.stop();
  twin?.cleanup();
});

describe(`moving the running lab from Cluster API ${CAPI_FROM} to ${CAPI_TO}`, () => {
  /** The lab as the twin started it, with `edit`. */
  const moveLab = (edit?: (doc: ReturnType<typeof parseDocument>) => void): string => {
    const doc = parseDocument(fresh);
    edit?.(doc);
    return doc.toString();
  };
  /** The one edit of the move: the override of the previous lane removed, so the lab takes pvekaas's default. */
  const onDefault = (doc: ReturnType<typeof parseDocument>) => doc.deleteIn(['management', 'versions', 'clusterApi']);

  it(`starts on the ${CAPI_FROM} CRDs and controllers and converges as planned, every Cluster Available, the second plan empty`, async () => {
    expect(twin.controllerVersions()).toMatchObject({ 'capi-manager': CAPI_FROM, 'kubeadm-bootstrap-manager': CAPI_FROM });
    // 1.12's CRDs still carry v1alpha3/v1alpha4 (unserved); 1.13's drop them.
    expect((await crdVersions(twin, 'machines.cluster.x-k8s.io')).versions).toContain('v1alpha4');
    const converged = await convergedOrThrow(twin, names, 10 * 60 * 1000);
    for (const t of converged) expect({ tenant: t.name, notAsPlanned: t.notAsPlanned }).toEqual({ tenant: t.name, notAsPlanned: [] });
    // A MachineDeployment's availableReplicas follows its Machines by a few seconds: wait for it.
    expect(await everyClusterAvailable(twin, names)).toEqual([]);
    expect((await clusterAvailability(twin, names)).size).toBeGreaterThanOrEqual(names.length + 1); // tenant-c's secondary too
    expect(await twin.secondPlan(['management', 'management-config', ...names.map((n) => `tenant-${n}`)])).toEqual([]);
    const core = await mgmt().get('/apis/operator.cluster.x-k8s.io/v1alpha2/namespaces/capi-system/coreproviders/cluster-api');
    expect(core.body?.status?.installedVersion).toBe(CAPI_FROM);
  });

  it(`refuses the move while a CRD still records a version ${CAPI_TO} drops (status.storedVersions v1alpha4): the API server refuses the new CRD, and the operator leaves core and bootstrap scaled down`, async () => {
    const path = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/machines.cluster.x-k8s.io/status';
    const set = async (stored: string[]) => {
      const r = await mgmt().request('PATCH', path, { status: { storedVersions: stored } }, 'application/merge-patch+json');
      expect(r.status).toBe(200);
    };
    await set(['v1alpha4', 'v1beta2']);
    await expect(twin.update(moveLab(onDefault))).rejects.toThrow(/CRD machines\.cluster\.x-k8s\.io refused: HTTP 422: .*storedVersions/);
    // What CAPI 1.12's own CRD migrator leaves once every object is stored at v1beta2.
    await set(['v1beta2']);
  });

  it(`moves: the operator's upgrade replaces CRDs, roles, webhooks and managers; no Machine replaced, no pool below its replicas, every Cluster Available, the second plan empty`, async () => {
    const before = await machineUids(twin, names);
    const sampler = await sampleReadyNodes(twin, requiredReady(names));
    const availability = sampleAvailability(twin, names);
    const steps: { step: string; seconds: number }[] = [];
    let t0 = Date.now();
    let samples;
    let available;
    try {
      await twin.update(moveLab(onDefault));
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
    const report = `${readyReport('the move', samples, [...upgrade.steps, ...steps])}\n  Cluster Available: ${available.samples} samples, not True: ${available.notTrue.length}`;
    process.stderr.write(`${report}\n${available.notTrue.slice(0, 20).join('\n')}\n`);

    expect(twin.controllerVersions()).toMatchObject({ 'capi-manager': CAPI_TO, 'kubeadm-bootstrap-manager': CAPI_TO });
    expect(upgrade.to).toEqual({ 'capi-manager': CAPI_TO, 'kubeadm-bootstrap-manager': CAPI_TO });
    expect(upgrade.crds).toEqual(
      expect.arrayContaining(['machines.cluster.x-k8s.io', 'clusters.cluster.x-k8s.io', 'kubeadmconfigs.bootstrap.cluster.x-k8s.io']),
    );
    // The 1.13 CRDs, storage version as upstream.
    expect(await crdVersions(twin, 'machines.cluster.x-k8s.io')).toEqual({ versions: ['v1beta1', 'v1beta2'], stored: ['v1beta2'] });
    expect(await machineUids(twin, names)).toEqual(before);
    // Every Node event seen (no watch of the tenants' Nodes listed again); the operator's CRD swap
    // ends the management watches of Machines and KamajiControlPlanes, which may then have to list
    // again: those states are the skew check's, and no Machine is replaced in the move (above).
    expect({ lost: samples.lost.filter((l) => / Nodes: /.test(l)), notes: samples.notes }).toEqual({ lost: [], notes: [] });
    for (const [pool, p] of samples.pools) expect({ pool, fewest: p.min >= p.replicas }).toEqual({ pool, fewest: true });
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
    expect(await everyClusterAvailable(twin, names)).toEqual([]);
    expect(await twin.secondPlan(['management-config', ...names.map((n) => `tenant-${n}`)])).toEqual([]);
    // The operator's provider objects report the new version installed.
    const core = await mgmt().get('/apis/operator.cluster.x-k8s.io/v1alpha2/namespaces/capi-system/coreproviders/cluster-api');
    expect(core.body?.status?.installedVersion).toBe(CAPI_TO);
  });

  it(`converges a change made on ${CAPI_TO}: a new tenant and a scale-up, as planned, the second plan empty`, async () => {
    const replicasOf = (doc: ReturnType<typeof parseDocument>, tenant: number) => Number(doc.getIn(['tenants', tenant, 'pools', 0, 'replicas']));
    let wantA = 0;
    let wantC = 0;
    const grown = moveLab((doc) => {
      onDefault(doc);
      wantA = replicasOf(doc, 0) + 1;
      // tenant-c grows on both instances: new machines of its primary and of its secondary Cluster.
      wantC = replicasOf(doc, 1) + 2;
      doc.setIn(['tenants', 0, 'pools', 0, 'replicas'], wantA);
      doc.setIn(['tenants', 1, 'pools', 0, 'replicas'], wantC);
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
    const before = await machineUids(twin, names);
    await twin.update(grown);
    const all = [...names, 'tenant-d'];
    const converged = await convergedOrThrow(twin, all, 8 * 60 * 1000);
    for (const t of converged) expect({ tenant: t.name, notAsPlanned: t.notAsPlanned }).toEqual({ tenant: t.name, notAsPlanned: [] });
    expect(converged.find((t) => t.name === 'tenant-a')!.machines).toHaveLength(wantA);
    const c = converged.find((t) => t.name === 'tenant-c')!;
    expect(c.machines).toHaveLength(wantC);
    // New machines on 1.13 in both of tenant-c's Clusters (the primary on pmox-txl, the secondary on pmox-fra).
    const grownOn = new Set(c.machines.filter((m) => !before.has(`tenant-c/${m.name}`)).map((m) => m.cluster));
    expect([...grownOn].sort()).toEqual([...new Set(c.machines.map((m) => m.cluster))].sort());
    expect(converged.find((t) => t.name === 'tenant-d')!.machines).toHaveLength(1);
    // The scale-up adds a machine; none of the others is replaced.
    const after = await machineUids(twin, names);
    for (const [machine, uid] of before) expect({ machine, uid: after.get(machine) }).toEqual({ machine, uid });
    expect(await everyClusterAvailable(twin, all)).toEqual([]);
    expect(await twin.secondPlan(['management-config', ...all.map((n) => `tenant-${n}`)])).toEqual([]);
    expect(twin.controllerVersions()).toMatchObject({ 'capi-manager': CAPI_TO, 'kubeadm-bootstrap-manager': CAPI_TO });
  });
});
