/**
 * Day two in the lab twin, with the real controllers: a stopped VM is remediated by the worker
 * MachineHealthCheck, and a Kubernetes upgrade to the next minor runs without an outage — surge,
 * then retire (docs/tenants.md): the Ready Nodes of every pool, sampled every half second in each
 * tenant's own API server, never drop below what the pool asks for, no kubelet is ever newer than
 * its control plane, and every worker ends replaced from the new version's template, where the plan
 * puts it.
 *
 * The lab is the example lab with two of its tenants (tenant-a on one instance, tenant-c over
 * both), short health-check timeouts (`management.healthCheck`), a template for the next minor on
 * each instance (a second fixed template id on pmox-txl, a second image on pmox-fra), and pmox-txl
 * nodes big enough for the upgrade's new machine deployments beside the old ones. It runs on
 * pvekaas's default Cluster API from the start; the move of a running lab from the previous CAPI
 * minor to it runs in test/twin/capi-upgrade.test.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { parseLab } from '../../modules/config/load';
import { planUpgrades, upgradeProblems, versionsOfPlanJson } from '../../modules/foresight/upgrade';
import { planPlacement } from '../../modules/placement';
import type { LabTwin } from '../../twin/index';
import { renderTenants } from '../../modules/tenants';
import { replacementProblems, topologyMachineDeployments } from '../../modules/tenants/replaced';
import { retireSteps } from '../../scripts/lib/retire-guard';
import {
  actualCounts,
  convergedOrThrow,
  plannedCounts,
  printTimes,
  projectRoot,
  readyReport,
  sampleReadyNodes,
  startTwin,
  waitForRetireGuard,
  whatFailed,
  workerVmUuids,
} from './support';

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

jest.setTimeout(20 * 60 * 1000);

const FROM = 'v1.35.4';
const TO = 'v1.36.3';
const NEXT_TEMPLATE_ID = 1001;

/** The day-two lab with every tenant on `version`; with `previous`, the surge step of an upgrade from it. */
function dayTwoLab(version: string, previous?: string, edit?: (doc: ReturnType<typeof parseDocument>) => void): string {
  const doc = parseDocument(readFileSync(join(projectRoot, 'examples/lab.yaml'), 'utf8'));
  const instances = doc.getIn(['proxmox', 'instances']) as { items: unknown[] };
  const txl = 0;
  const fra = 1;
  for (let n = 0; n < 2; n++) doc.setIn(['proxmox', 'instances', txl, 'nodes', n, 'memoryMiB'], 262144);
  doc.setIn(['proxmox', 'instances', txl, 'template', 'versions'], doc.createNode([{ kubernetesVersion: TO, templateID: NEXT_TEMPLATE_ID }]));
  const images = doc.getIn(['proxmox', 'instances', fra, 'images']) as { items: unknown[] };
  images.items.push(
    doc.createNode({
      kubernetesVersion: TO,
      nodes: ['pmox-fra-1', 'pmox-fra-2', 'pmox-fra-3'],
      url: `https://images.lab.example/ubuntu-2404-kube-${TO}.qcow2`,
      checksum: '5d2c7b0e9a1f4c3b8e6d0a2f7c9b1e4d3a5f8c0b2e7d9a1c4f6b8e0d2a3c5f7b',
    }),
  );
  expect(instances.items).toHaveLength(2);
  doc.setIn(['management', 'healthCheck'], doc.createNode({ unhealthySeconds: 15, nodeStartupSeconds: 600 }));
  const tenants = doc.get('tenants') as { items: { get(k: string): unknown }[] };
  tenants.items = tenants.items.filter((t) => t.get('name') !== 'tenant-b');
  tenants.items.forEach((_, i) => doc.setIn(['tenants', i, 'kubernetesVersion'], version));
  if (previous) tenants.items.forEach((_, i) => doc.setIn(['tenants', i, 'previous'], doc.createNode({ kubernetesVersion: previous })));
  edit?.(doc);
  return doc.toString();
}

const before = dayTwoLab(FROM);
let twin: LabTwin;
const names = ['tenant-a', 'tenant-c'];

beforeAll(
  async () => {
    twin = await startTwin(before, 'day-two');
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

const mgmt = () => twin.management.client;

describe('day two in the twin', () => {
  it('remediates a stopped VM: the MachineHealthCheck replaces its machine, on the same node, with a new VM', async () => {
    // A machine deployment of one machine: the case a percentage limit (33% of 1 is 0) never remediates.
    const t = await twin.tenant('tenant-a');
    const byMd = new Map<string, typeof t.machines>();
    for (const m of t.machines) byMd.set(m.machineDeployment, [...(byMd.get(m.machineDeployment) ?? []), m]);
    const single = [...byMd.values()].find((ms) => ms.length === 1)?.[0];
    if (!single) throw new Error(`tenant-a has no machine deployment of one machine: ${[...byMd.entries()].map(([k, v]) => `${k}: ${v.length}`).join(', ')}`);
    // The topology controller names each machine deployment's MachineHealthCheck after it.
    const mhc = (await mgmt().get(`/apis/cluster.x-k8s.io/v1beta2/namespaces/tenant-a/machinehealthchecks/${single.machineDeployment}`)).body;
    expect(mhc?.spec.checks.unhealthyNodeConditions).toEqual(expect.arrayContaining([{ type: 'Ready', status: 'Unknown', timeoutSeconds: 15 }]));

    twin.sim.setVmStatus(single.instance!, single.vmid!, 'stopped');
    await twin.waitFor(`machine ${single.name} (VM ${single.instance}/${single.vmid}, stopped) replaced`, 6 * 60 * 1000, async () => {
      const now = await twin.tenant('tenant-a');
      const mine = now.machines.filter((m) => m.machineDeployment === single.machineDeployment);
      return now.converged && mine.length === 1 && mine[0].name !== single.name;
    });
    const after = await twin.tenant('tenant-a');
    const replacement = after.machines.find((m) => m.machineDeployment === single.machineDeployment)!;
    expect({ instance: replacement.instance, node: replacement.node }).toEqual({ instance: single.instance, node: single.node });
    // A new VM (ids are reused once free, so told apart by its SMBIOS uuid); the stopped one is gone.
    expect(replacement.providerID).not.toBe(single.providerID);
    expect(twin.sim.listVms().some((v) => `proxmox://${v.uuid}` === single.providerID)).toBe(false);
    expect(actualCounts(after.machines)).toEqual(plannedCounts(twin.plan, 'tenant-a'));
  });

  it(`upgrades ${FROM} → ${TO} without an outage: surge, then retire — every pool keeps its Ready Nodes, no kubelet newer than its control plane, every worker replaced from the ${TO} template`, async () => {
    const surge = dayTwoLab(TO, FROM);
    const retire = dayTwoLab(TO);
    const lab = parseLab(surge, 'day-two-surge.yaml');
    const upgrades = planUpgrades(lab, planPlacement(lab), versionsOfPlanJson(twin.plan));
    expect(upgrades.map((u) => ({ tenant: u.tenant, surging: u.surging, refusals: u.refusals }))).toEqual(
      names.map((tenant) => ({ tenant, surging: true, refusals: [] })),
    );
    // Without previous the planner refuses the same upgrade (it would replace every worker with no surge).
    const bare = parseLab(retire, 'day-two-next.yaml');
    expect(
      planUpgrades(bare, planPlacement(bare), versionsOfPlanJson(twin.plan)).every((u) => u.refusals.some((r) => r.includes('deploy the surge step first'))),
    ).toBe(true);

    // VM ids are reused once free, so a VM is told apart by its SMBIOS uuid (the providerID).
    const old = new Map<string, Set<string>>();
    for (const name of names) old.set(name, new Set((await twin.tenant(name)).machines.map((m) => m.providerID!)));
    // Each tenant's control plane runs its own version: the real v1.35.4 server before the upgrade.
    for (const name of names) expect({ name, version: (await twin.tenant(name)).controlPlaneVersion }).toEqual({ name, version: FROM });
    const sampler = await sampleReadyNodes(twin, requiredReady(names));
    const steps: { step: string; seconds: number }[] = [];
    let last = '';
    const progress = async () => {
      const ts = await Promise.all(names.map((n) => twin.tenant(n)));
      last = ts
        .map(
          (t) =>
            `${t.name}: ${t.converged ? 'converged' : t.waiting.join('; ')}; machines ${t.machines.map((m) => `${m.name} ${m.phase} ${m.version}${m.ready ? ' ready' : ''}`).join(', ')}`,
        )
        .join('\n');
      return ts;
    };
    try {
      // 1. Surge: the control plane first, then the new machine deployments beside the old ones.
      sampler.phase('surge');
      let t0 = Date.now();
      await twin.update(surge);
      await twin.waitFor(`${names.join(', ')}: the ${TO} workers Ready beside the ${FROM} ones`, 10 * 60 * 1000, async () => {
        const ts = await progress();
        return ts.every((t) => {
          const planned = [...plannedCounts(twin.plan, t.name).values()].reduce((a, b) => a + b, 0);
          const fresh = t.machines.filter((m) => m.version === TO && m.ready && m.nodeName && !old.get(t.name)!.has(m.providerID!));
          return fresh.length === planned;
        });
      });
      steps.push({ step: 'surge (control plane, then new workers Ready)', seconds: (Date.now() - t0) / 1000 });
      // The primary's old machine deployments were kept: their machines are still there, at the old version.
      const mid = await twin.tenant('tenant-a');
      expect(mid.machines.filter((m) => old.get('tenant-a')!.has(m.providerID!)).map((m) => m.version)).toEqual([...old.get('tenant-a')!].map(() => FROM));

      // 2. Retire: previous removed, the old machine deployments drained and deleted.
      sampler.phase('retire');
      t0 = Date.now();
      await twin.update(retire);
      await twin.waitFor(`${names.join(', ')} on ${TO} only`, 10 * 60 * 1000, async () => {
        const ts = await progress();
        return ts.every((t) => t.converged && t.machines.length > 0 && t.machines.every((m) => m.version === TO));
      });
      steps.push({ step: 'retire (old workers drained and deleted)', seconds: (Date.now() - t0) / 1000 });
    } catch (e) {
      // The samples so far say whether the pools kept their Nodes (the mutation control reads them).
      process.stdout.write(`${readyReport(`upgrade ${FROM} → ${TO} (failed)`, await sampler.stop(), steps)}\n`);
      throw new Error(`${whatFailed(e)}\nlast seen:\n${last}\n${twin.diagnostics()}`);
    }
    const samples = await sampler.stop();
    process.stdout.write(`${readyReport(`upgrade ${FROM} → ${TO}`, samples, steps)}\n`);
    expect(samples.lost).toEqual([]);
    expect({ notes: samples.notes, skew: samples.skew }).toEqual({ notes: [], skew: [] });
    for (const [pool, p] of samples.pools) expect({ pool, atLeast: p.min >= p.replicas }).toEqual({ pool, atLeast: true });
    // The tenant API servers answered every second, the old server until Kamaji's rollout switched to the new one (twin/kamaji/control-plane.ts rollOut).
    for (const [tenant, api] of samples.api)
      expect({ tenant, failures: api.failures, versions: api.versions }).toEqual({ tenant, failures: [], versions: [FROM, TO] });
    for (const name of names) expect({ name, version: (await twin.tenant(name)).controlPlaneVersion }).toEqual({ name, version: TO });

    const vms = twin.sim.listVms();
    for (const name of names) {
      const t = await twin.tenant(name);
      const cluster = (await mgmt().get(`/apis/cluster.x-k8s.io/v1beta2/namespaces/${name}/clusters/${name}`)).body;
      expect(cluster.spec.topology.version).toBe(TO);
      const kcp = (await mgmt().get(`/apis/controlplane.cluster.x-k8s.io/v1alpha2/namespaces/${name}/kamajicontrolplanes`)).body.items as any[];
      expect(kcp.map((k) => k.status?.version)).toEqual([TO]);
      expect(actualCounts(t.machines)).toEqual(plannedCounts(twin.plan, name));
      for (const m of t.machines) {
        // A new VM, cloned from the template of the new version on its instance.
        expect({ machine: m.name, reused: old.get(name)!.has(m.providerID!) }).toEqual({ machine: m.name, reused: false });
        const vm = vms.find((v) => v.instance === m.instance && v.vmid === m.vmid)!;
        const template = vms.find((v) => v.instance === m.instance && v.vmid === vm.cloneOf)!;
        if (m.instance === 'pmox-txl') expect({ machine: m.name, template: template.vmid }).toEqual({ machine: m.name, template: NEXT_TEMPLATE_ID });
        else expect({ machine: m.name, tags: template.tags }).toEqual({ machine: m.name, tags: expect.arrayContaining([TO]) });
      }
      // The old workers are gone, VMs included.
      const left = vms.filter((v) => old.get(name)!.has(`proxmox://${v.uuid}`));
      expect(left).toEqual([]);
      // Converged as planned: the template for the new version on each node (twin --json's check).
      expect({ tenant: name, notAsPlanned: t.notAsPlanned }).toEqual({ tenant: name, notAsPlanned: [] });
    }
    // The update applied as an update (tofu's plan of the changed manifests), and nothing is left to plan.
    expect(await twin.secondPlan(['management-config', ...names.map((n) => `tenant-${n}`)])).toEqual([]);
    // The secondary's static control plane carries the version its workers were held to.
    const scp = (await mgmt().get('/apis/controlplane.pvekaas.lab/v1alpha1/namespaces/tenant-c/staticcontrolplanes/tenant-c-pmox-fra')).body;
    expect({ spec: scp.spec.version, status: scp.status.version }).toEqual({ spec: TO, status: TO });
  });
});

describe('a resize without an outage', () => {
  it(`grows tenant-a's disks (40 → 50 GiB): surge, then retire — the pool keeps its Ready Nodes, the old VMs go`, async () => {
    const pools = (doc: ReturnType<typeof parseDocument>) => doc.getIn(['tenants', 0, 'pools']) as any;
    const grown = (doc: ReturnType<typeof parseDocument>) => doc.setIn(['tenants', 0, 'pools', 0, 'size', 'diskGiB'], 50);
    const surge = dayTwoLab(TO, undefined, (doc) => {
      doc.setIn(['tenants', 0, 'previous'], doc.createNode({ pools: pools(doc).toJSON() }));
      grown(doc);
    });
    const retire = dayTwoLab(TO, undefined, grown);
    const before = await twin.tenant('tenant-a');
    const old = new Set(before.machines.map((m) => m.providerID!));
    const sampler = await sampleReadyNodes(twin, requiredReady(['tenant-a']));
    const steps: { step: string; seconds: number }[] = [];
    let last = '';
    try {
      sampler.phase('surge');
      let t0 = Date.now();
      await twin.update(surge);
      await twin.waitFor('tenant-a: the 50 GiB workers Ready beside the 40 GiB ones', 10 * 60 * 1000, async () => {
        const t = await twin.tenant('tenant-a');
        last = t.machines.map((m) => `${m.name} ${m.phase} ${m.diskGiB} GiB${m.ready ? ' ready' : ''}`).join(', ');
        return (
          t.machines.filter((m) => m.diskGiB === 50 && m.ready && m.nodeName).length === before.machines.length &&
          t.machines.filter((m) => old.has(m.providerID!)).length === old.size
        );
      });
      steps.push({ step: 'surge (new size Ready beside the old)', seconds: (Date.now() - t0) / 1000 });
      sampler.phase('retire');
      t0 = Date.now();
      await twin.update(retire);
      await twin.waitFor('tenant-a: 50 GiB workers only', 10 * 60 * 1000, async () => {
        const t = await twin.tenant('tenant-a');
        last = `${t.waiting.join('; ')}; ${t.machines.map((m) => `${m.name} ${m.phase} ${m.diskGiB} GiB`).join(', ')}`;
        return t.converged && t.machines.length === before.machines.length && t.machines.every((m) => m.diskGiB === 50);
      });
      steps.push({ step: 'retire (old size drained and deleted)', seconds: (Date.now() - t0) / 1000 });
    } catch (e) {
      await sampler.stop();
      throw new Error(`${whatFailed(e)}\nlast seen: ${last}\n${twin.diagnostics()}`);
    }
    const samples = await sampler.stop();
    process.stdout.write(`${readyReport('resize of tenant-a (disk 40 → 50 GiB)', samples, steps)}\n`);
    expect(samples.lost).toEqual([]);
    expect({ notes: samples.notes, skew: samples.skew }).toEqual({ notes: [], skew: [] });
    for (const [pool, p] of samples.pools) expect({ pool, atLeast: p.min >= p.replicas }).toEqual({ pool, atLeast: true });
    const after = await twin.tenant('tenant-a');
    expect(actualCounts(after.machines)).toEqual(plannedCounts(twin.plan, 'tenant-a'));
    expect(twin.sim.listVms().filter((v) => old.has(`proxmox://${v.uuid}`))).toEqual([]);
  });
});

describe('an upgrade the planner refuses', () => {
  it(`two minors at once (${TO} → v1.38.0): the planner refuses it at synth, and CAPI's own Cluster webhook would have refused the apply`, async () => {
    // Two minors above 1.36 is also above what the pinned Kamaji accepts, which validate refuses on its
    // own (rule versions.tenant-kubernetes); the planner's refusal of the skip is checked apart from it.
    const skip = 'v1.38.0';
    const doc = parseDocument(dayTwoLab(TO));
    doc.setIn(
      ['proxmox', 'instances', 0, 'template', 'versions'],
      doc.createNode([
        { kubernetesVersion: TO, templateID: NEXT_TEMPLATE_ID },
        { kubernetesVersion: skip, templateID: NEXT_TEMPLATE_ID + 1 },
      ]),
    );
    (doc.getIn(['proxmox', 'instances', 1, 'images']) as { items: unknown[] }).items.push(
      doc.createNode({
        kubernetesVersion: skip,
        nodes: ['pmox-fra-1', 'pmox-fra-2', 'pmox-fra-3'],
        url: `https://images.lab.example/ubuntu-2404-kube-${skip}.qcow2`,
        checksum: '7e3a9c1d5b0f2e4a6c8d0b1f3e5a7c9d1b3f5e7a9c0d2f4b6e8a0c1e3f5b7d9a',
      }),
    );
    doc.setIn(['tenants', 0, 'kubernetesVersion'], skip);
    expect(() => parseLab(doc.toString(), 'day-two-skip.yaml')).toThrow(/Kubernetes 1\.38 is newer than Kamaji/);
    const valid = parseLab(dayTwoLab(TO), 'day-two.yaml');
    const lab = { ...valid, tenants: valid.tenants.map((t) => (t.name === 'tenant-a' ? { ...t, kubernetesVersion: skip } : t)) };
    const problems = upgradeProblems(lab, planPlacement(valid), versionsOfPlanJson(twin.plan));
    expect(problems.map((p) => p.path.join('.'))).toContain('tenants.0.kubernetesVersion');
    expect(problems.map((p) => p.message).join('\n')).toContain(`tenant tenant-a runs ${TO}; ${skip} is 2 minor versions away`);

    // The same version change on the live Cluster, as the tenant stack's apply would send it (dry run).
    const cluster = (await mgmt().get('/apis/cluster.x-k8s.io/v1beta2/namespaces/tenant-a/clusters/tenant-a')).body;
    expect(cluster.spec.topology.version).toBe(TO);
    const r = await mgmt().apply(
      { apiVersion: cluster.apiVersion, kind: 'Cluster', metadata: { name: 'tenant-a', namespace: 'tenant-a' }, spec: { topology: { version: skip } } },
      { fieldManager: 'twin-test', dryRun: true, force: true },
    );
    expect(r.status).toBe(422);
    expect(r.body.message).toContain(`version cannot be increased from "${TO.slice(1)}" to "${skip.slice(1)}"`);
  });
});

describe('an instance-level edit without an outage', () => {
  it(`moves pmox-txl's disks to another storage (ceph-vm → ceph-ssd): refused without previous; surge, then retire with previous.instances — every pool keeps its Ready Nodes, deploy's retire guard reads the new machine deployments Ready, the old VMs go`, async () => {
    // Built on what the twin runs now (the day-two lab at its version and sizes), so the case runs alone too.
    const running = twin.lab;
    const version = running.tenants[0].kubernetesVersion;
    const asRunning = (doc: ReturnType<typeof parseDocument>) =>
      running.tenants.forEach((t, i) => t.pools.forEach((p, j) => doc.setIn(['tenants', i, 'pools', j, 'size'], doc.createNode(p.size))));
    const moved = (doc: ReturnType<typeof parseDocument>) => (asRunning(doc), doc.setIn(['proxmox', 'instances', 0, 'storage', 'disks'], 'ceph-ssd'));
    const current = dayTwoLab(version, undefined, asRunning);
    const surge = dayTwoLab(version, undefined, (doc) => {
      moved(doc);
      names.forEach((_, i) => doc.setIn(['tenants', i, 'previous'], doc.createNode({ instances: { 'pmox-txl': { storage: { disks: 'ceph-vm' } } } })));
    });
    const retire = dayTwoLab(version, undefined, moved);
    const mdsOf = (text: string) => {
      const l = parseLab(text, 'day-two-storage.yaml');
      return [...renderTenants(l, planPlacement(l)).values()].flatMap((t) => topologyMachineDeployments(t.cluster));
    };
    // The live Clusters are what runs: the edit without previous replaces every pmox-txl node group, and is refused.
    const live = (await Promise.all(names.map(async (n) => (await mgmt().get(`/apis/cluster.x-k8s.io/v1beta2/namespaces/${n}/clusters/${n}`)).body))).flatMap(
      topologyMachineDeployments,
    );
    expect(live.map((m) => m.name).sort()).toEqual(
      mdsOf(current)
        .map((m) => m.name)
        .sort(),
    );
    const refused = replacementProblems(parseLab(retire, 'day-two-storage.yaml'), live, mdsOf(retire));
    expect(refused.map((p) => p.path.join('.'))).toEqual(['tenants.0', 'tenants.1']);
    expect(refused[0].fix).toContain('previous: { instances: { pmox-txl: { storage: { disks: ceph-vm } } } }');
    expect(replacementProblems(parseLab(surge, 'day-two-storage.yaml'), live, mdsOf(surge))).toEqual([]);

    // The operator adds the storage on the Proxmox cluster first (a real one: Datacenter → Storage).
    const txl = twin.sim.instance('pmox-txl');
    txl.storages.set('ceph-ssd', { ...txl.storages.get('ceph-vm')!, id: 'ceph-ssd' });
    const oldVms = workerVmUuids(twin, 'pmox-txl');
    expect(oldVms.size).toBeGreaterThan(0);
    const steps = retireSteps(mdsOf(surge), mdsOf(retire));
    expect(steps.map((s) => s.tenant)).toEqual(names);
    const sampler = await sampleReadyNodes(twin, requiredReady(names));
    const timing: { step: string; seconds: number }[] = [];
    let last = '';
    try {
      sampler.phase('surge');
      let t0 = Date.now();
      await twin.update(surge);
      // Deploy's own retire guard, on the live MachineDeployments the real CAPI made, is the wait.
      await waitForRetireGuard(twin, 'the new pmox-txl machine deployments Ready beside the old ones', 10 * 60 * 1000, steps, oldVms, (m) => (last = m));
      timing.push({ step: 'surge (new machines on ceph-ssd Ready beside the old)', seconds: (Date.now() - t0) / 1000 });
      sampler.phase('retire');
      t0 = Date.now();
      await twin.update(retire);
      await twin.waitFor('only machines on ceph-ssd on pmox-txl', 10 * 60 * 1000, async () => {
        const ts = await Promise.all(names.map((n) => twin.tenant(n)));
        const onOld = twin.sim.listVms().filter((v) => !v.template && v.instance === 'pmox-txl' && v.disks.some((d) => d.storage === 'ceph-vm'));
        last = `${ts.map((t) => t.waiting.join('; ')).join(' | ')}; on ceph-vm: ${onOld.map((v) => v.name).join(', ')}`;
        return ts.every((t) => t.converged) && onOld.length === 0;
      });
      timing.push({ step: 'retire (machines on ceph-vm drained and deleted)', seconds: (Date.now() - t0) / 1000 });
    } catch (e) {
      await sampler.stop();
      throw new Error(`${whatFailed(e)}\nlast seen: ${last}\n${twin.diagnostics()}`);
    }
    const samples = await sampler.stop();
    process.stdout.write(`${readyReport('storage of pmox-txl (ceph-vm → ceph-ssd)', samples, timing)}\n`);
    expect(samples.lost).toEqual([]);
    expect({ notes: samples.notes, skew: samples.skew }).toEqual({ notes: [], skew: [] });
    for (const [pool, p] of samples.pools) expect({ pool, atLeast: p.min >= p.replicas }).toEqual({ pool, atLeast: true });
    for (const n of names) expect(actualCounts((await twin.tenant(n)).machines)).toEqual(plannedCounts(twin.plan, n));
    expect(twin.sim.listVms().filter((v) => oldVms.has(v.uuid))).toEqual([]);
    expect(
      twin.sim
        .listVms()
        .filter((v) => !v.template && v.instance === 'pmox-txl')
        .every((v) => v.disks.every((d) => d.storage === 'ceph-ssd')),
    ).toBe(true);
  });
});
