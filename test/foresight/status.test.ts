/**
 * `status` (modules/foresight/status.ts): what runs now beside the plan, on objects shaped as the
 * real controllers write them — CAPI v1.12 core's v1beta2 Cluster, MachineDeployment and Machine
 * (topology labels, `status.replicas`/`readyReplicas`, the `NodeReady` condition), the Kamaji
 * provider's v1alpha2 KamajiControlPlane status, Kamaji's v1alpha1 TenantControlPlane, CAPMOX's
 * v1alpha2 ProxmoxMachine (`status.proxmoxNode`) — for the example lab's tenants. Each case
 * changes one thing of a lab that runs as planned and checks that exactly that is reported.
 */
import { parseDocument } from 'yaml';
import { renderStatusMarkdown, statusJson, tenantStatus, type ExpectedTenant, type LiveTenant } from '../../modules/foresight/status';
import { asPlanned, deployment, exampleText, expectedOf, ready, upgrade } from './status-fixtures';

describe('status: now beside the plan', () => {
  const a = expectedOf(exampleText, 'tenant-a');

  it('reports a tenant that runs as planned as such: control plane, VIP, every node group at its planned size with Ready Nodes', () => {
    const s = tenantStatus(a, asPlanned(a));
    expect(s.differences).toEqual([]);
    expect(s.asPlanned).toBe(true);
    expect(s.controlPlane).toMatchObject({ plan: 'v1.35.4', version: 'v1.35.4', ready: true, initialized: true, tenantControlPlane: { status: 'Ready' } });
    expect(s.vip).toEqual({ plan: a.vip, endpoint: `${a.vip}:6443`, service: { name: 'tenant-a', type: 'LoadBalancer', addresses: [a.vip] } });
    expect(s.groups.map((g) => [g.pool, `${g.instance}/${g.node}`, g.machines, g.readyNodes, g.plan?.replicas])).toEqual([
      ['workers', 'pmox-txl/pmox-txl-1', 2, 2, 2],
      ['workers', 'pmox-txl/pmox-txl-2', 1, 1, 1],
    ]);
    expect(s.machines.every((m) => m.instance === 'pmox-txl' && m.node === m.group.node && m.nodeReady?.status === 'True' && m.role === 'plan')).toBe(true);
    expect(s.inProgress).toEqual([]);
    const text = renderStatusMarkdown([s]);
    expect(text).toContain('## tenant-a (Default): as planned');
    expect(text).toContain('| workers | pmox-txl/pmox-txl-1 | 2 | 2 | 2 | - |');
    expect(text).toContain(`(plan ${a.vip} ✓)`);
  });

  it('reports a stopped VM: its Node not Ready (the Machine NodeReady condition), one Ready Node fewer in its group', () => {
    const live = asPlanned(a, { 'workers-pmox-txl-1-878c3e': { machines: 2, nodeReady: ['True', 'Unknown'] } });
    const s = tenantStatus(a, live);
    const stopped = s.machines.find((m) => m.nodeReady?.status === 'Unknown')!;
    expect(s.differences).toEqual([`machine ${stopped.name}: Node ${stopped.nodeName} is not Ready (NodeReady Unknown (NodeReadyUnknown))`]);
    expect(s.groups.find((g) => g.node === 'pmox-txl-1')).toMatchObject({ machines: 2, readyNodes: 1 });
    expect(renderStatusMarkdown([s])).toContain('| workers | pmox-txl/pmox-txl-1 | 2 | 2 | 1 | - |');
  });

  it("reports a machine whose replacement CAPI defers (a held group of a staged surge), with CAPI's preflight message, and one waiting for its MachineSet", () => {
    const live = asPlanned(a, { 'workers-pmox-txl-1-878c3e': { machines: 2, nodeReady: ['True', 'Unknown'] } });
    const stopped = live.machines.find((m) => m.status?.conditions?.some((c) => c.type === 'NodeReady' && c.status === 'Unknown'))!;
    // As CAPI core writes it: the MHC marks the machine, the MachineSet's preflight refuses a v1.35 replacement under a v1.36 control plane.
    const kubeadm =
      'MachineSet version (1.35.4) and ControlPlane version (1.36.3) do not conform to kubeadm version skew policy as kubeadm only supports joining with the same major+minor version as the control plane ("KubeadmVersionSkew" preflight check failed)';
    const controlPlane =
      'MachineSet version (v1.35.4) is not yet the same as the ControlPlane version (v1.36.3), waiting for version to be propagated to the MachineSet ("ControlPlaneVersionSkew" preflight check failed)';
    // CAPI lists each failed check on a line of its own; status keeps them all, on one line.
    const written = `* ${kubeadm}\n* ${controlPlane}`;
    const message = `${kubeadm}; ${controlPlane}`;
    stopped.status!.conditions!.push(ready('HealthCheckSucceeded', 'False', 'UnhealthyNode'), ready('OwnerRemediated', 'False', 'RemediationDeferred'));
    stopped.status!.conditions![stopped.status!.conditions!.length - 1].message = written;
    const s = tenantStatus(a, live);
    const deferred = s.machines.find((m) => m.name === stopped.metadata.name)!;
    expect(deferred.remediation).toMatchObject({ type: 'OwnerRemediated', status: 'False', reason: 'RemediationDeferred', message });
    expect(s.differences).toContain(
      `machine ${stopped.metadata.name} (workers on pmox-txl/pmox-txl-1, v1.35.4) is unhealthy and CAPI defers its replacement: ${message} — ` +
        `the group stays a machine short until a step surges it (a held group of a staged upgrade: validate's warning surge.held-cannot-heal names the previous that does)`,
    );
    expect(s.asPlanned).toBe(false);
    expect(statusJson([s]).tenants[0].machines.find((m) => m.name === stopped.metadata.name)?.remediation?.reason).toBe('RemediationDeferred');
    // Not deferred: the MachineSet will replace it; in progress, not a difference of its own.
    const last = stopped.status!.conditions![stopped.status!.conditions!.length - 1];
    Object.assign(last, { reason: 'WaitingForRemediation', message: 'Waiting for remediation' });
    const waiting = tenantStatus(a, live);
    expect(waiting.differences.join('\n')).not.toContain('defers');
    expect(waiting.inProgress).toContain(
      `machine ${stopped.metadata.name} (workers on pmox-txl/pmox-txl-1) is unhealthy, waiting for its MachineSet to replace it (OwnerRemediated False (WaitingForRemediation: Waiting for remediation))`,
    );
    // A healthy machine's OwnerRemediated (True after a remediation) is not shown.
    Object.assign(last, { status: 'True', reason: 'OwnerRemediated' });
    expect(tenantStatus(a, live).machines.find((m) => m.name === stopped.metadata.name)!.remediation).toBeUndefined();
  });

  it('reports a group below its planned size (a scale edit not deployed yet, or a machine lost), and one scaling', () => {
    const fewer = tenantStatus(a, asPlanned(a, { 'workers-pmox-txl-1-878c3e': { machines: 1 } }));
    expect(fewer.differences).toEqual(['pool workers on pmox-txl/pmox-txl-1: 1 machine(s), the plan has 2']);
    const scaling = tenantStatus(a, asPlanned(a, { 'workers-pmox-txl-1-878c3e': { machines: 3, replicas: 2 } }));
    expect(scaling.inProgress).toEqual([
      expect.stringMatching(/^MachineDeployment tenant-a-workers-pmox-txl-1-878c3e-\w+ \(workers on pmox-txl\/pmox-txl-1\) scaling down: 3 → 2 machines$/),
    ]);
    expect(scaling.differences).toEqual(['pool workers on pmox-txl/pmox-txl-1: 3 machine(s), the plan has 2']);
    // The plan side follows the lab: with replicas 4 the same live objects are short of it.
    const doc = parseDocument(exampleText);
    doc.setIn(['tenants', 0, 'pools', 0, 'replicas'], 4);
    const bigger = expectedOf(doc.toString(), 'tenant-a');
    const s = tenantStatus(bigger, asPlanned(a));
    expect(s.asPlanned).toBe(false);
    expect(s.differences.join('\n')).toMatch(/pool workers on pmox-txl\/pmox-txl-\d: \d machine\(s\), the plan has \d/);
  });

  it('reports a machine CAPMOX put on another node than its node group, a wrong VIP, and a control plane not ready', () => {
    const live = asPlanned(a, { 'workers-pmox-txl-2-acda7c': { machines: 1, proxmoxNode: 'pmox-txl-1' } });
    live.services[0].status = { loadBalancer: { ingress: [] } };
    live.kamajiControlPlanes[0].status!.ready = false;
    live.kamajiControlPlanes[0].status!.conditions = [ready('Available', 'False', 'NotAvailable'), ready('KamajiControlPlaneIsReady', 'False', 'Failed')];
    const s = tenantStatus(a, live);
    const moved = s.machines.find((m) => m.group.node === 'pmox-txl-2')!;
    expect(s.differences).toEqual([
      'control plane tenant-a is not ready: Available False (NotAvailable); KamajiControlPlaneIsReady False (Failed)',
      `the control plane Service tenant-a has no address from the load balancer, the plan's VIP is ${a.vip}`,
      `machine ${moved.name} (pool workers) runs on pmox-txl/pmox-txl-1; its node group is pmox-txl/pmox-txl-2`,
    ]);
    const text = renderStatusMarkdown([s]);
    expect(text).toContain('pmox-txl/pmox-txl-1 ✗ (group pmox-txl-2)');
    expect(text).toContain(
      '- control plane: v1.35.4 (plan v1.35.4 ✓), NOT ready; TenantControlPlane v1.35.4 Ready; Available False (NotAvailable), KamajiControlPlaneIsReady False (Failed)',
    );
    expect(text).toContain(`- VIP: endpoint ${a.vip}:6443, Service tenant-a LoadBalancer no address (plan ${a.vip} ✗)`);
  });

  it('reports an upgrade under way: the control plane and the machines on the old version, the lab on the new one', () => {
    const doc = parseDocument(exampleText);
    upgrade(doc);
    const next = expectedOf(doc.toString(), 'tenant-a');
    // Right after the lab was deployed: CAPI's topology asks the control plane for v1.36.3, and the
    // machine deployments (under the names the new rendering gives them) still run v1.35.4.
    const live = asPlanned(next, Object.fromEntries(next.machineDeployments.map((m) => [m.name, { version: 'v1.35.4' }])));
    live.kamajiControlPlanes[0].spec!.version = 'v1.36.3';
    live.kamajiControlPlanes[0].status!.version = 'v1.35.4';
    live.tenantControlPlanes[0].status!.kubernetesResources!.version = { version: 'v1.35.4', status: 'Upgrading' };
    const s = tenantStatus(next, live);
    expect(s.controlPlane).toMatchObject({ plan: 'v1.36.3', version: 'v1.35.4', desired: 'v1.36.3', tenantControlPlane: { status: 'Upgrading' } });
    expect(s.inProgress).toEqual([
      'control plane upgrading: v1.35.4 → v1.36.3',
      ...s.machineDeployments.map(
        (m) =>
          `MachineDeployment ${m.name} (workers on pmox-txl/${m.node}) still on v1.35.4, the lab asks for v1.36.3 (CAPI upgrades workers after the control plane)`,
      ),
      ...s.machines.map((m) => `machine ${m.name} (workers on pmox-txl/${m.group.node}) runs v1.35.4, the lab asks for v1.36.3`),
    ]);
    expect(s.differences).toEqual([
      'control plane runs v1.35.4, the lab asks for v1.36.3',
      `3 machine(s) not yet on v1.36.3: ${s.machines.map((m) => `${m.name} (v1.35.4)`).join(', ')}`,
    ]);
    // Machine deployments the old lab rendered are not the new plan's: leftovers, and the new ones missing.
    const stale = tenantStatus(next, asPlanned(a));
    expect(stale.differences.filter((d) => /is not in the plan: a leftover/.test(d))).toHaveLength(2);
    expect(stale.differences.filter((d) => /^no MachineDeployment for workers/.test(d))).toHaveLength(2);
  });

  it("lists a `previous` step's retiring machine deployments as in progress, not as differences", () => {
    const doc = parseDocument(exampleText);
    upgrade(doc);
    // Room for the surge on pmox-txl: tenant-b (SingleInstance, there) out of this lab.
    doc.deleteIn(['tenants', 1]);
    doc.setIn(['tenants', 0, 'previous'], doc.createNode({ kubernetesVersion: 'v1.35.4' }));
    let e: ExpectedTenant;
    try {
      e = expectedOf(doc.toString(), 'tenant-a');
    } catch (err) {
      throw new Error(`the surge lab does not render: ${(err as Error).message}`);
    }
    const retiring = e.machineDeployments.filter((m) => m.role === 'retiring');
    expect(retiring.length).toBeGreaterThan(0);
    expect(retiring.every((m) => m.version === 'v1.35.4')).toBe(true);
    const built = e.machineDeployments.map((md) => {
      const g = e.groups.find((x) => x.pool === md.pool && x.node === md.node)!;
      return deployment(e, md.name, { machines: g.replicas, retiring: md.role === 'retiring' });
    });
    const live = asPlanned(e);
    live.machineDeployments = built.map((b) => b.md);
    live.machines = built.flatMap((b) => b.machines);
    live.proxmoxMachines = built.flatMap((b) => b.proxmoxMachines);
    const s = tenantStatus(e, live);
    expect(s.differences).toEqual([]);
    expect(s.inProgress.filter((x) => x.startsWith('retiring (previous)'))).toHaveLength(retiring.length);
    expect(s.groups.every((g) => g.retiring === g.machines)).toBe(true);
    expect(s.machines.filter((m) => m.role === 'retiring').every((m) => m.version === 'v1.35.4')).toBe(true);
    // Without `previous` in the lab the same old machine deployments are leftovers: differences.
    doc.deleteIn(['tenants', 0, 'previous']);
    const after = tenantStatus(expectedOf(doc.toString(), 'tenant-a'), live);
    expect(after.differences.filter((d) => /is not in the plan: a leftover/.test(d))).toHaveLength(retiring.length);
  });

  it('keeps an autoscaled pool within its bounds as planned, and reports it outside them', () => {
    const b = expectedOf(exampleText, 'tenant-b');
    const auto = b.machineDeployments.find((m) => m.pool === 'workers' && m.node === 'pmox-txl-1')!;
    const group = b.groups.find((g) => g.pool === 'workers' && g.node === 'pmox-txl-1')!;
    expect(group.autoscaling).toEqual({ min: 1, max: 3 });
    expect(tenantStatus(b, asPlanned(b, { [auto.name]: { machines: 3 } })).differences).toEqual([]);
    expect(tenantStatus(b, asPlanned(b, { [auto.name]: { machines: 4 } })).differences).toEqual([
      "pool workers on pmox-txl/pmox-txl-1: 4 machine(s), the plan's autoscaling bounds are 1..3",
    ]);
    expect(renderStatusMarkdown([tenantStatus(b, asPlanned(b))])).toContain('| workers | pmox-txl/pmox-txl-1 | 1 | 1..3 | 1 | - |');
  });

  it("places a MultiInstance tenant's machines by their Cluster: the secondary Cluster's on its instance", () => {
    const c = expectedOf(exampleText, 'tenant-c');
    const s = tenantStatus(c, asPlanned(c));
    expect(s.differences).toEqual([]);
    expect(s.clusters.map((x) => [x.name, x.role, x.instance])).toEqual([
      ['tenant-c', 'primary', 'pmox-txl'],
      ['tenant-c-pmox-fra', 'secondary', 'pmox-fra'],
    ]);
    expect(s.machines.filter((m) => m.cluster === 'tenant-c-pmox-fra').map((m) => m.instance)).toEqual(['pmox-fra', 'pmox-fra', 'pmox-fra']);
    // A secondary Cluster missing (its stack part not applied): its machine deployments and machines are missing.
    const live = asPlanned(c);
    live.clusters = live.clusters.filter((x) => x.metadata.name === 'tenant-c');
    const missing = tenantStatus(c, live);
    expect(missing.differences).toContain('no Cluster tenant-c-pmox-fra in namespace tenant-c');
  });

  it('reports a tenant not deployed at all, and a MachineDeployment the plan does not have', () => {
    const empty: LiveTenant = {
      clusters: [],
      kamajiControlPlanes: [],
      tenantControlPlanes: [],
      services: [],
      machineDeployments: [],
      machines: [],
      proxmoxMachines: [],
    };
    const s = tenantStatus(a, empty);
    expect(s.differences).toEqual([
      'no KamajiControlPlane tenant-a in namespace tenant-a (the tenant stack is not deployed, or CAPI has not made it yet)',
      'no control plane Service in namespace tenant-a (Kamaji has not made it yet)',
      'no Cluster tenant-a in namespace tenant-a',
      'no MachineDeployment for workers on pmox-txl/pmox-txl-1 (workers-pmox-txl-1-878c3e in Cluster tenant-a) yet',
      'no MachineDeployment for workers on pmox-txl/pmox-txl-2 (workers-pmox-txl-2-acda7c in Cluster tenant-a) yet',
      'pool workers on pmox-txl/pmox-txl-1: 0 machine(s), the plan has 2',
      'pool workers on pmox-txl/pmox-txl-2: 0 machine(s), the plan has 1',
    ]);
    const live = asPlanned(a);
    live.machineDeployments[0].metadata.labels!['topology.cluster.x-k8s.io/deployment-name'] = 'workers-pmox-txl-1-0ld0ld';
    const left = tenantStatus(a, live);
    expect(left.differences).toEqual([
      expect.stringMatching(/^MachineDeployment tenant-a-workers-pmox-txl-1-878c3e-\w+ \(workers on pmox-txl\/pmox-txl-1\) is not in the plan: a leftover/),
      'no MachineDeployment for workers on pmox-txl/pmox-txl-1 (workers-pmox-txl-1-878c3e in Cluster tenant-a) yet',
      'pool workers on pmox-txl/pmox-txl-1: 0 machine(s), the plan has 2',
    ]);
  });

  it('says in JSON whether every tenant is as planned, and names tenants that run but are not in the lab', () => {
    const s = tenantStatus(a, asPlanned(a));
    expect(statusJson([s])).toMatchObject({ asPlanned: true, notInLab: [] });
    expect(statusJson([s], ['tenant-z'])).toMatchObject({ asPlanned: false, notInLab: ['tenant-z'] });
    expect(renderStatusMarkdown([s], { extraTenants: ['tenant-z'] })).toContain('Tenant tenant-z runs in the management cluster but is not in the lab');
  });
});
