/**
 * Deploy's retire guard against the real API server (surge, then retire; issue 21): the retire
 * step's new machine deployments are read live as the pinned CAPI v1.12 makes them (MachineDeployments
 * labelled with their Cluster and topology name, the v1beta2 CRD from the pinned CRD tree), through
 * the lab's management kubeconfig; the step is refused until each one has all its machines Ready, and
 * for an autoscaled pool until the new ones have a min-size annotation (autoscaling.floor) and Ready
 * machines of at least the old ones' live replicas.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { parseLab } from '../../modules/config/load';
import { planPlacement } from '../../modules/placement';
import { renderTenants } from '../../modules/tenants';
import { AUTOSCALER_MAX, AUTOSCALER_MIN } from '../../modules/tenants/machine-deployments';
import { topologyMachineDeployments } from '../../modules/tenants/replaced';
import { guardRetire, managementClient, retireSteps, type RetireStep } from '../../scripts/lib/retire-guard';
import { startKubeServer, type KubeServer } from '../support/kube-apiserver';
import { started, tearDown } from '../support/lifecycle';
import { exampleText } from '../tenants/fixtures';

let server: KubeServer | undefined;
beforeAll(async () => {
  server = await startKubeServer({ controllerManager: false });
}, 300000);
afterAll(() => tearDown(undefined, server), 60000);

function lab(change: (d: any) => void, kubeconfig: string) {
  const d = parse(exampleText);
  for (const n of d.proxmox.instances[0].nodes) Object.assign(n, { memoryMiB: 524288, cpu: 128 });
  d.management.kubernetes = { configPath: kubeconfig };
  change(d);
  return parseLab(stringify(d), 'retire.yaml');
}
const mds = (l: ReturnType<typeof lab>) => [...renderTenants(l, planPlacement(l)).values()].flatMap((t) => topologyMachineDeployments(t.cluster));

/** A MachineDeployment as CAPI's topology controller names and labels it, with a status as its controller writes it. */
async function machineDeployment(s: KubeServer, step: RetireStep, topologyName: string, cluster: string, replicas: number, ready: number, min?: number) {
  const labels = { 'cluster.x-k8s.io/cluster-name': cluster, 'topology.cluster.x-k8s.io/owned': '', 'topology.cluster.x-k8s.io/deployment-name': topologyName };
  const name = `${cluster}-${topologyName}`;
  const created = await s.client.applyOrThrow({
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'MachineDeployment',
    metadata: {
      name,
      namespace: step.namespace,
      labels,
      // As CAPI's topology controller copies them from the Cluster's topology (the rendered autoscaler bounds).
      ...(min === undefined ? {} : { annotations: { [AUTOSCALER_MIN]: String(min), [AUTOSCALER_MAX]: '6' } }),
    },
    spec: {
      clusterName: cluster,
      replicas,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          clusterName: cluster,
          bootstrap: { configRef: { apiGroup: 'bootstrap.cluster.x-k8s.io', kind: 'KubeadmConfigTemplate', name } },
          infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'ProxmoxMachineTemplate', name },
        },
      },
    },
  });
  const status = { observedGeneration: created.metadata.generation, replicas, readyReplicas: ready, availableReplicas: ready, upToDateReplicas: replicas };
  const r = await s.client.request(
    'PATCH',
    `/apis/cluster.x-k8s.io/v1beta2/namespaces/${step.namespace}/machinedeployments/${name}/status`,
    { status },
    'application/merge-patch+json',
  );
  expect(r.status).toBe(200);
}

describe("deploy's retire guard, live", () => {
  it('refuses the retire step until every new machine deployment has all its machines Ready, and goes then', async () => {
    const s = started(server);
    const dir = mkdtempSync(join(tmpdir(), 'retire-guard-'));
    const kubeconfig = join(dir, 'mgmt.kubeconfig');
    writeFileSync(kubeconfig, stringify(JSON.parse(readFileSync(s.kubeconfig, 'utf8'))));
    const storage = (d: any) => (d.proxmox.instances[0].storage.disks = 'ceph-ssd');
    const surge = lab((d) => (storage(d), (d.tenants[0].previous = { instances: { 'pmox-txl': { storage: { disks: 'ceph-vm' } } } })), kubeconfig);
    const retire = lab(storage, kubeconfig);
    const steps = retireSteps(mds(surge), mds(retire));
    expect(steps.map((x) => x.tenant)).toEqual(['tenant-a']);
    const [step] = steps;
    expect(step.retired.length).toBe(2);
    expect(step.carried.length).toBe(2);
    await s.client.applyOrThrow({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: step.namespace } });
    // A CRD just established answers 429 ("storage is (re)initializing") for a moment: the guard refuses then too; wait it out.
    for (let i = 0; i < 120 && (await s.client.get(`/apis/cluster.x-k8s.io/v1beta2/namespaces/${step.namespace}/machinedeployments`)).status !== 200; i++)
      await new Promise((r) => setTimeout(r, 500));

    // Not made yet: refused, naming what is missing.
    await expect(guardRetire(retire, steps, undefined)).rejects.toThrow(
      /tenant tenant-a: retires .* but not every new machine deployment is Ready: workers-pmox-txl-1-[0-9a-f]{6}: no MachineDeployment in namespace/,
    );
    // Another Cluster's ready MachineDeployment of the same topology name does not count.
    for (const name of step.carried) await machineDeployment(s, step, name, 'someone-else', 1, 1);
    await expect(guardRetire(retire, steps, undefined)).rejects.toThrow(/no MachineDeployment in namespace/);
    // Made, one machine of two Ready on the first: still refused, with the count.
    const [first, second] = step.carried;
    await machineDeployment(s, step, first, step.cluster, 2, 1);
    await machineDeployment(s, step, second, step.cluster, 1, 1);
    await expect(guardRetire(retire, steps, undefined)).rejects.toThrow(new RegExp(`${first}: 1 of 2 machines Ready`));
    // All Ready: the retire step goes.
    await machineDeployment(s, step, first, step.cluster, 2, 2);
    expect(await guardRetire(retire, steps, undefined)).toEqual([expect.stringMatching(/^tenant tenant-a: retires .* — every new machine deployment Ready$/)]);
    // --phase retire: the operator's word, nothing read (a kubeconfig that does not exist is not opened).
    const unreadable = lab(storage, join(dir, 'missing.kubeconfig'));
    await expect(guardRetire(unreadable, steps, undefined)).rejects.toThrow(/kubeconfig .*missing\.kubeconfig cannot be read/);
    expect(await guardRetire(unreadable, steps, 'retire')).toEqual([expect.stringContaining('--phase retire: not checked live')]);
    // No retire step in a change (the surge itself): nothing to check.
    expect(retireSteps(mds(retire), mds(surge))).toEqual([]);
    managementClient(retire).close();
  }, 120000);

  it("an autoscaled pool keeps its current size: the new machine deployments need a min size (the description's floor) and as many Ready machines as the old ones run", async () => {
    const s = started(server);
    const storage = (d: any) => (d.proxmox.instances[0].storage.disks = 'ceph-ssd');
    const surge = lab((d) => (storage(d), (d.tenants[1].previous = { instances: { 'pmox-txl': { storage: { disks: 'ceph-vm' } } } })), s.kubeconfig);
    const retire = lab(storage, s.kubeconfig);
    const step = retireSteps(mds(surge), mds(retire)).find((x) => x.tenant === 'tenant-b')!;
    // tenant-b's workers are autoscaled (1–6): the rendering leaves their replicas to the autoscaler.
    expect(step.autoscaled.map((g) => g.pool)).toEqual(expect.arrayContaining(['workers']));
    expect(step.autoscaled.some((g) => g.pool === 'gpu')).toBe(false);
    await s.client.applyOrThrow({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: step.namespace } });
    for (let i = 0; i < 120 && (await s.client.get(`/apis/cluster.x-k8s.io/v1beta2/namespaces/${step.namespace}/machinedeployments`)).status !== 200; i++)
      await new Promise((r) => setTimeout(r, 500));
    const [g] = step.autoscaled;
    const refusal = async () => {
      try {
        await guardRetire(retire, [step], undefined);
        return 'passed';
      } catch (e) {
        return (e as Error).message;
      }
    };
    const pool = `autoscaled pool workers on ${g.instance}/${g.node}: the old machine deployments run 4 machines`;
    // The autoscaler grew the old one to 4; CAPI made the new one at its min size (1), Ready.
    for (const name of g.retired) await machineDeployment(s, step, name, step.cluster, 4, 4, 1);
    for (const name of step.carried) await machineDeployment(s, step, name, step.cluster, 1, 1, 1);
    const floorFix = `set tenants[1].pools[0].autoscaling.floor: { ${g.instance}/${g.node}: 4 } in the description`;
    expect(await refusal()).toContain(`${pool}, the new ones' min size is 1 (so the autoscaler may take them below 4) — ${floorFix}`);
    // Scaled to 4 by hand, all Ready: still refused, since the autoscaler may take them back to 1 (no kubectl scale in the fix).
    for (const name of g.carried) await machineDeployment(s, step, name, step.cluster, 4, 4, 1);
    expect(await refusal()).toContain(floorFix);
    expect(await refusal()).not.toMatch(/\bscale\b.*--replicas/);
    // The floor deployed after CAPI made them (their replicas stay 2): refused, saying why and what grows them.
    for (const name of g.carried) await machineDeployment(s, step, name, step.cluster, 2, 2, 4);
    expect(await refusal()).toContain(
      `${pool}, the new ones (min size 4) have 2 Ready of 2: CAPI sets a MachineDeployment's replicas from its min size only when it makes it`,
    );
    // The floor in the surge step: CAPI made them at 4, three Ready so far.
    for (const name of g.carried) await machineDeployment(s, step, name, step.cluster, 4, 3, 4);
    expect(await refusal()).toContain(`${pool}, the new ones (min size 4) have 3 Ready — wait for them`);
    for (const name of g.carried) await machineDeployment(s, step, name, step.cluster, 4, 4, 4);
    expect(await guardRetire(retire, [step], undefined)).toEqual([expect.stringContaining('every new machine deployment Ready')]);
  }, 120000);
});
