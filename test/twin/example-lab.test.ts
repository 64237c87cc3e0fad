/**
 * The lab twin on the example lab: the real CAPI core, kubeadm bootstrap, CAPMOX and IPAM
 * controllers (webhooks on) reconcile exactly what pvekaas renders, against the strict Proxmox VE
 * simulator. The steps share one twin and run in order (docs/twin.md).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseDocument } from 'yaml';
import { parseLab } from '../../modules/config/load';
import { tenantProxmoxPool } from '../../modules/config/proxmox-access';
import type { LabTwin, TwinTenant } from '../../twin/index';
import { runStatus } from '../../scripts/lib/status-run';
import { actualCounts, inRanges, plannedCounts, projectRoot, startTwin, printTimes } from './support';

jest.setTimeout(20 * 60 * 1000);

const exampleText = readFileSync(join(projectRoot, 'examples/lab.yaml'), 'utf8');
let twin: LabTwin;
let tenants: Map<string, TwinTenant>;

/** The example lab's tenants that released CAPMOX can run: all but those its rendering refuses to bring up. */
const tenantNames = () => twin.lab.tenants.map((t) => t.name);

beforeAll(
  async () => {
    twin = await startTwin(exampleText, 'example');
    await twin.applyKubernetes();
    const converged = await twin.waitConverged(tenantNames(), 10 * 60 * 1000);
    tenants = new Map(converged.map((t) => [t.name, t]));
  },
  25 * 60 * 1000,
);

afterAll(async () => {
  printTimes(twin);
  await twin?.stop();
  twin?.cleanup();
});

const mgmt = () => twin.management.client;

/** `npm run status -- --config <lab> --kubeconfig <the twin's management cluster> --json` (its function), on a lab text. */
async function status(labText: string, tenants?: string[]) {
  const config = join(dirname(twin.out), 'status-lab.yaml');
  writeFileSync(config, labText);
  const run = await runStatus({ config, kubeconfig: twin.management.kubeconfig, json: true, env: {}, ...(tenants ? { tenants } : {}) });
  return { ...run, json: JSON.parse(run.output) as { asPlanned: boolean; tenants: { name: string; differences: string[] }[] } };
}
/** The tenant's VMs: those in its Proxmox pool (`<pools.vms>-<tenant>`) of the VM's instance. */
const tenantVms = (tenant: string) =>
  twin.sim.listVms().filter((v) => {
    const instance = twin.lab.proxmox.instances.find((i) => i.name === v.instance);
    return !v.template && instance !== undefined && v.pool === tenantProxmoxPool(instance, tenant);
  });

describe('the example lab in the twin', () => {
  it('converges: every tenant has an initialized control plane and every machine Running with a Node', () => {
    const report = [...tenants.values()].map((t) => `${t.name}: ${t.converged ? 'converged' : `waiting for ${t.waiting.join('; ')}`}`).join('\n');
    if (![...tenants.values()].every((t) => t.converged)) throw new Error(`${report}\n${twin.diagnostics()}`);
    for (const t of tenants.values()) {
      expect(t.controlPlaneInitialized).toBe(true);
      expect(t.machines.length).toBeGreaterThan(0);
      for (const m of t.machines) expect(m).toMatchObject({ phase: 'Running', nodeName: expect.any(String) });
    }
  });

  it('gives each tenant control plane Service exactly its VIP, assigned by the real MetalLB controller from the rendered pool', async () => {
    const { allocateVips } = await import('../../modules/tenants/vip');
    const vips = allocateVips(twin.lab).vips;
    for (const t of tenants.values()) {
      const services = (await mgmt().get(`/api/v1/namespaces/${t.name}/services?labelSelector=kamaji.clastix.io/component%3Dservice`)).body.items as any[];
      const got = services.map((svc) => ({ type: svc.spec.type, ingress: (svc.status?.loadBalancer?.ingress ?? []).map((i: { ip: string }) => i.ip) }));
      expect({ tenant: t.name, services: got }).toEqual({ tenant: t.name, services: [{ type: 'LoadBalancer', ingress: [vips.get(t.name)!.vip] }] });
    }
  });

  it('converged as planned: no tenant differs from the placement plan (what `twin --json` reports)', () => {
    for (const t of tenants.values()) expect({ tenant: t.name, notAsPlanned: t.notAsPlanned }).toEqual({ tenant: t.name, notAsPlanned: [] });
  });

  it('`status` reports what the twin runs: each control plane, VIP, machine, phase and Ready Node as the API objects have them, as planned', async () => {
    const { allocateVips } = await import('../../modules/tenants/vip');
    const vips = allocateVips(twin.lab).vips;
    // As after the scale below: CAPI recomputes the Cluster's Available condition (WorkersAvailable)
    // after its MachineDeployments settle, so a read right at convergence may still see the old
    // verdict (seen for tenant-c's secondary Cluster on CAPI 1.13 under a load of 40): read again for up to 90 s.
    let run = await status(twin.labText);
    for (const until = Date.now() + 90_000; run.code !== 0 && Date.now() < until;) {
      await new Promise((r) => setTimeout(r, 3000));
      run = await status(twin.labText);
    }
    expect({ code: run.code, notInLab: run.notInLab, differences: run.statuses.flatMap((s) => s.differences) }).toEqual({
      code: 0,
      notInLab: [],
      differences: [],
    });
    expect(run.json.asPlanned).toBe(true);
    for (const name of tenantNames()) {
      const s = run.statuses.find((x) => x.name === name)!;
      // The twin's own reading: Machines from CAPI, each VM's instance and node from the simulator itself.
      const now = await twin.tenant(name);
      const vip = vips.get(name)!.vip;
      expect(s.controlPlane).toMatchObject({ plan: twin.lab.tenants.find((t) => t.name === name)!.kubernetesVersion, ready: true, initialized: true });
      expect(s.controlPlane.version).toBe(s.controlPlane.plan);
      expect(s.vip).toMatchObject({ plan: vip, service: { type: 'LoadBalancer', addresses: [vip] } });
      expect(s.vip.endpoint).toMatch(new RegExp(`^${vip.replace(/\./g, '\\.')}:\\d+$`));
      const mine = (m: { name: string; phase?: string; nodeName?: string; instance?: string; node?: string }) => [
        m.name,
        m.phase,
        m.nodeName,
        m.instance,
        m.node,
      ];
      expect(s.machines.map(mine).sort()).toEqual(now.machines.map(mine).sort());
      expect(s.machines.map((m) => [m.name, m.nodeReady?.status, m.role])).toEqual(s.machines.map((m) => [m.name, 'True', 'plan']));
      expect(s.machines.map((m) => m.vmid).sort()).toEqual(now.machines.map((m) => m.vmid).sort());
      const counts = new Map(s.groups.filter((g) => g.machines > 0).map((g) => [`${g.pool} ${g.instance}/${g.node}`, g.machines]));
      expect(counts).toEqual(plannedCounts(twin.plan, name));
      expect(s.groups.every((g) => g.readyNodes === g.machines)).toBe(true);
    }
  });

  it('plans nothing more: the second plan of every kubernetes_manifest of management-config and each tenant stack is empty after the controllers reconciled', async () => {
    expect(await twin.secondPlan(['management', 'management-config', ...tenantNames().map((n) => `tenant-${n}`)])).toEqual([]);
  });

  it('puts every VM where the plan says: instance, node and count per pool', () => {
    for (const t of tenants.values()) expect(actualCounts(t.machines)).toEqual(plannedCounts(twin.plan, t.name));
  });

  it('labels every Node with its Proxmox instance as topology region and its node as zone: copied from the Machines by the real core manager', async () => {
    // The Proxmox CSI node plugin reads these (docs/storage.md); CAPI copies them only through
    // --additional-sync-machine-labels, which the management stack sets on the core manager. The
    // copy is the machine controller's, after the Node appears: read again for up to 60 s.
    const want = [...tenants.values()].flatMap((t) => t.machines.map((m) => ({ tenant: t.name, node: m.nodeName, region: m.instance, zone: m.node })));
    expect(want.length).toBeGreaterThan(0);
    const read = async () => {
      const got: { tenant: string; node: string; region?: string; zone?: string }[] = [];
      for (const t of tenants.values()) {
        const plane = [...twin.kamaji.planes.values()].find((p) => p.namespace === t.name);
        if (!plane) throw new Error(`no tenant control plane for ${t.name}`);
        // eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kubernetes objects read by path
        for (const n of (await plane.server.client.get('/api/v1/nodes')).body.items as any[])
          got.push({
            tenant: t.name,
            node: n.metadata.name,
            region: n.metadata.labels?.['topology.kubernetes.io/region'],
            zone: n.metadata.labels?.['topology.kubernetes.io/zone'],
          });
      }
      const key = (x: { tenant: string; node?: string }) => `${x.tenant}/${x.node}`;
      return got.sort((a, b) => key(a).localeCompare(key(b)));
    };
    const expected = [...want].sort((a, b) => `${a.tenant}/${a.node}`.localeCompare(`${b.tenant}/${b.node}`));
    let got = await read();
    for (const until = Date.now() + 60_000; JSON.stringify(got) !== JSON.stringify(expected) && Date.now() < until;) {
      await new Promise((r) => setTimeout(r, 2000));
      got = await read();
    }
    expect(got).toEqual(expected);
  });

  it("makes each VM as the pool says: size, template, Proxmox pool, tags, an IP of the tenant range, created with its instance's CAPMOX token", async () => {
    const vms = twin.sim.listVms();
    for (const t of tenants.values()) {
      const spec = twin.lab.tenants.find((x) => x.name === t.name)!;
      for (const m of t.machines) {
        const pool = spec.pools.find((p) => p.name === m.pool)!;
        expect({ machine: m.name, cpu: m.cpu, memoryMiB: m.memoryMiB, diskGiB: m.diskGiB }).toEqual({ machine: m.name, ...pool.size });
        const vm = vms.find((v) => v.instance === m.instance && v.vmid === m.vmid)!;
        const template = vms.find((v) => v.instance === m.instance && v.vmid === vm.cloneOf);
        expect({ machine: m.name, clonedFromTemplate: template?.template }).toEqual({ machine: m.name, clonedFromTemplate: true });
        // A template made for the tenant's Kubernetes version (a tag or the lab's fixed template for it).
        const instance = twin.lab.proxmox.instances.find((i) => i.name === m.instance)!;
        if ('templateSelector' in instance.template) expect(template!.tags).toEqual(expect.arrayContaining([spec.kubernetesVersion]));
        expect(m.proxmoxPool).toBeDefined();
        expect(m.ipAddresses.length).toBeGreaterThan(0);
        // The node network of the machine's instance (a secondary Cluster's own, in secondary-clusters mode).
        const network = spec.networks?.[m.instance!] ?? spec.network!;
        for (const ip of m.ipAddresses)
          expect({ machine: m.name, ip, inRange: inRanges(ip, network.addresses) }).toEqual({ machine: m.name, ip, inRange: true });
        // The token that created the VM is the one in the tenant's credentials Secret for that instance.
        const secrets = await mgmt().get(`/api/v1/namespaces/${t.name}/secrets`);
        const tokens = (secrets.body.items as { data?: Record<string, string> }[])
          .filter((s) => s.data?.token)
          .map((s) => Buffer.from(s.data!.token, 'base64').toString('utf8'));
        expect(tokens).toContain(m.createdBy);
      }
    }
  });

  it("has CAPMOX upload each bootstrap ISO with the tenant's token to that tenant's own cloud-init storage, and nowhere else", () => {
    // Per-tenant storages (issue 26): go-proxmox takes the first storage with iso content the token
    // sees, and each token sees its own `<storage.cloudInit>-<tenant>` only.
    const uploads = twin.sim.requests.filter(
      (r) => r.method === 'POST' && /^\/nodes\/[^/]+\/storage\/[^/]+\/upload$/.test(r.path) && r.authid?.startsWith('capmox@pve!tenant-'),
    );
    for (const u of uploads) {
      const tenant = u.authid!.slice('capmox@pve!tenant-'.length);
      const storage = u.path.split('/')[4];
      const cloudInit = twin.lab.proxmox.instances.find((i) => i.name === u.instance)!.storage.cloudInit;
      expect({ tenant, instance: u.instance, storage, status: u.status }).toEqual({
        tenant,
        instance: u.instance,
        storage: `${cloudInit}-${tenant}`,
        status: 200,
      });
    }
    for (const t of tenants.values())
      expect({ tenant: t.name, uploads: uploads.some((u) => u.authid === `capmox@pve!tenant-${t.name}`) }).toEqual({ tenant: t.name, uploads: true });
  });

  it("refuses, through CAPMOX's own webhook, a ProxmoxClusterTemplate without an IP pool (B1)", async () => {
    const r = await mgmt().apply(
      {
        apiVersion: 'infrastructure.cluster.x-k8s.io/v1alpha2',
        kind: 'ProxmoxClusterTemplate',
        metadata: { name: 'no-ip-pool', namespace: 'pvekaas-classes' },
        spec: { template: { spec: { externalManagedControlPlane: true, dnsServers: ['192.0.2.53'] } } },
      },
      { fieldManager: 'twin-test', dryRun: true },
    );
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect(r.body.message).toMatch(/at least one IP pool config/);
  });

  it('never turns wrong bootstrap data into a Node: a VM whose join token is unknown is refused', async () => {
    const { KubeletPlayer } = await import('../../twin/kubelets');
    // A VM that did join, with the bootstrap data it joined with (CAPMOX removes the ISO once the machine is up).
    const [key, bootstrap] = [...twin.kubelets.joinedWith.entries()].find(([, b]) => b.userData?.includes('kubeadm-join-config')) ?? [];
    expect(key).toBeDefined();
    const joined = { ...twin.sim.listVms().find((v) => `${v.instance}/${v.vmid}` === key)!, bootstrap: bootstrap! };
    expect(joined.vmid).toBeDefined();
    const forged = {
      ...joined,
      vmid: 99999,
      uuid: '00000000-0000-4000-8000-000000000001',
      bootstrap: {
        ...joined.bootstrap,
        userData: joined
          .bootstrap!.userData!.replace(/token: ([a-z0-9]{6})\.[a-z0-9]{16}/, 'token: $1.0000000000000000')
          .replace(/token: "([a-z0-9]{6})\.[a-z0-9]{16}"/, 'token: "$1.0000000000000000"'),
      },
    };
    expect(forged.bootstrap.userData).not.toBe(joined.bootstrap!.userData);
    const player = new KubeletPlayer(() => [forged], twin.kamaji, { ready: () => true, waiting: () => '' });
    await player.tick();
    // The token id is kept, its secret zeroed: kubeadm's token discovery finds the cluster-info
    // signature of that id but cannot verify it with the wrong secret (cmd/kubeadm/app/discovery/token
    // token.go: "failed to verify JWS signature of received cluster info object, can't trust this API
    // Server"), before it ever authenticates with the token.
    expect(player.refused.get(`${forged.instance}/99999`)).toMatch(/failed to verify JWS signature of received cluster info object/);
    expect(player.nodes.size).toBe(0);
  });

  it('scales a fixed pool up and down by editing the lab: VMs follow the new plan', async () => {
    const tenant = twin.lab.tenants.find((t) => t.pools.some((p) => p.replicas !== undefined && p.replicas >= 2))!;
    const poolIndex = tenant.pools.findIndex((p) => p.replicas !== undefined && p.replicas >= 2);
    const tenantIndex = twin.lab.tenants.indexOf(tenant);
    const original = tenant.pools[poolIndex].replicas!;
    for (const replicas of [original + 1, original - 1]) {
      const doc = parseDocument(exampleText);
      doc.setIn(['tenants', tenantIndex, 'pools', poolIndex, 'replicas'], replicas);
      // `status` on the edited lab before it is deployed: the pool differs from the new plan, nothing else does.
      const before = await status(doc.toString());
      const differences = before.statuses.find((x) => x.name === tenant.name)!.differences;
      expect(before.code).toBe(2);
      expect(differences.length).toBeGreaterThan(0);
      for (const d of differences)
        expect(d).toMatch(new RegExp(`^pool ${tenant.pools[poolIndex].name} on [\\w-]+/[\\w-]+: \\d+ machine\\(s\\), the plan has \\d+$`));
      // Another tenant differs only where the edit moves its machines too (a pool sharing those nodes
      // is re-placed, e.g. tenant-c when tenant-a shrinks on pmox-txl): placement lines, nothing else.
      for (const d of before.statuses.filter((x) => x.name !== tenant.name).flatMap((x) => x.differences))
        expect(d).toMatch(/^(pool [\w-]+ on [\w-]+\/[\w-]+: \d+ machine\(s\), the plan has \d+|no MachineDeployment for [\w-]+ on [\w-]+\/[\w-]+ \(.*\) yet)$/);
      const from = twin.sim.requests.length;
      await twin.update(doc.toString());
      // A pool's size is no proxmox stack's business: none changed, so none was applied (as
      // `deploy --against` applies only the stacks that changed) and OpenTofu, the administrator
      // token, sent Proxmox nothing.
      const admins = new Set(twin.sim.names.map((n) => twin.sim.adminToken(n).split('=')[0]));
      expect(twin.sim.requests.slice(from).filter((r) => admins.has(r.authid ?? ''))).toEqual([]);
      const [t] = await twin.waitConverged([tenant.name], 8 * 60 * 1000);
      if (!t.converged) throw new Error(`${tenant.name} did not converge at ${replicas} replicas: ${t.waiting.join('; ')}\n${twin.diagnostics()}`);
      expect(t.machines.filter((m) => m.pool === tenant.pools[poolIndex].name)).toHaveLength(replicas);
      expect(actualCounts(t.machines)).toEqual(plannedCounts(twin.plan, tenant.name));
      // Deployed and converged: as planned again, the pool at its new size.
      // CAPI recomputes the Cluster's Available condition (WorkersAvailable) after its MachineDeployments
      // settle: a read right at convergence may still see the old verdict, so read again for up to 90 s.
      let after = await status(doc.toString(), [tenant.name]);
      for (const until = Date.now() + 90_000; after.code !== 0 && Date.now() < until;) {
        await new Promise((r) => setTimeout(r, 3000));
        after = await status(doc.toString(), [tenant.name]);
      }
      expect({ code: after.code, differences: after.statuses[0].differences }).toEqual({ code: 0, differences: [] });
      expect(after.statuses[0].machines.filter((m) => m.pool === tenant.pools[poolIndex].name && !m.deleting)).toHaveLength(replicas);
      // Scaled-down machines leave no VM behind.
      const live = new Set(t.machines.map((m) => `${m.instance}/${m.vmid}`));
      const vms = tenantVms(tenant.name);
      expect(vms.filter((v) => live.has(`${v.instance}/${v.vmid}`))).toHaveLength(live.size);
      expect(vms.filter((v) => !live.has(`${v.instance}/${v.vmid}`))).toEqual([]);
    }
    await twin.update(exampleText);
  });

  it('scales an autoscaled pool through the MachineDeployment scale subresource, within min..max', async () => {
    const tenant = twin.lab.tenants.find((t) => t.pools.some((p) => p.autoscaling))!;
    const pool = tenant.pools.find((p) => p.autoscaling)!;
    const mds = (await mgmt().get(`/apis/cluster.x-k8s.io/v1beta2/namespaces/${tenant.name}/machinedeployments`)).body.items as any[];
    const md = mds.find(
      (m) =>
        m.metadata.labels?.['node.cluster.x-k8s.io/pool'] === pool.name &&
        m.metadata.annotations?.['cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size'],
    )!;
    expect(md).toBeDefined();
    const max = Number(md.metadata.annotations['cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size']);
    const target = Math.min(max, (md.spec.replicas ?? 0) + 1);
    const r = await mgmt().request(
      'PATCH',
      `/apis/cluster.x-k8s.io/v1beta2/namespaces/${tenant.name}/machinedeployments/${md.metadata.name}/scale`,
      { spec: { replicas: target } },
      'application/merge-patch+json',
    );
    expect(r.status).toBe(200);
    await twin.waitFor(`${md.metadata.name} at ${target} running machines`, 8 * 60 * 1000, async () => {
      const t = await twin.tenant(tenant.name);
      return t.converged && t.machines.filter((m) => m.machineDeployment === md.metadata.name).length === target;
    });
    // The topology controller leaves the replicas of an autoscaled pool to the autoscaler.
    const after = (await mgmt().get(`/apis/cluster.x-k8s.io/v1beta2/namespaces/${tenant.name}/machinedeployments/${md.metadata.name}`)).body;
    expect(after.spec.replicas).toBe(target);
  });

  it('deletes a tenant with nothing of it left: VMs, IP claims, Secrets, namespace', async () => {
    const name = tenantNames()[0];
    const doc = parseDocument(exampleText);
    const index = twin.lab.tenants.findIndex((t) => t.name === name);
    doc.deleteIn(['tenants', index]);
    expect(tenantVms(name).length).toBeGreaterThan(0);
    await twin.update(doc.toString());
    expect(tenantVms(name)).toEqual([]);
    expect((await mgmt().get(`/api/v1/namespaces/${name}`)).status).toBe(404);
    const claims = await mgmt().get('/apis/ipam.cluster.x-k8s.io/v1beta2/ipaddressclaims');
    expect((claims.body.items as any[]).filter((c) => c.metadata.namespace === name)).toEqual([]);
    // Its VIP is free again: MetalLB gives it to the next Service that asks for it.
    const { allocateVips } = await import('../../modules/tenants/vip');
    const vip = allocateVips(parseLab(exampleText, 'examples/lab.yaml')).vips.get(name)!.vip;
    const probe = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'vip-probe', namespace: 'default', annotations: { 'metallb.io/loadBalancerIPs': vip } },
      spec: { type: 'LoadBalancer', selector: { app: 'none' }, ports: [{ port: 6443, protocol: 'TCP' }] },
    };
    await mgmt().applyOrThrow(probe as any, { fieldManager: 'twin-test', force: true });
    await twin.waitFor(`the freed VIP ${vip} assigned to the next Service`, 60000, async () => {
      const svc = (await mgmt().get('/api/v1/namespaces/default/services/vip-probe')).body;
      return (svc.status?.loadBalancer?.ingress ?? []).some((i: { ip: string }) => i.ip === vip);
    });
    await mgmt().delete('/api/v1/namespaces/default/services/vip-probe');
  });
});
