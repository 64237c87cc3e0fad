/**
 * Objects of a tenant's namespace as the real controllers write them, for the status tests: CAPI
 * v1.12 core's v1beta2 Cluster, MachineDeployment and Machine (topology labels,
 * `status.replicas`/`readyReplicas`, the `NodeReady` condition), the Kamaji provider's v1alpha2
 * KamajiControlPlane status, Kamaji's v1alpha1 TenantControlPlane, the control plane Service,
 * CAPMOX's v1alpha2 ProxmoxMachine (`status.proxmoxNode`).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { parseLab } from '../../modules/config/load';
import { planPlacement } from '../../modules/placement';
import { renderTenants } from '../../modules/tenants';
import { expectedTenant, type ExpectedTenant, type LiveMachine, type LiveMachineDeployment, type LiveTenant } from '../../modules/foresight/status';

const root = join(__dirname, '../..');
export const exampleText = readFileSync(join(root, 'examples/lab.yaml'), 'utf8');

export function expectedOf(text: string, tenant: string): ExpectedTenant {
  const lab = parseLab(text, 'examples/lab.yaml');
  const plan = planPlacement(lab);
  return expectedTenant(lab, plan, renderTenants(lab, plan).get(tenant)!);
}

/** tenant-a on v1.36.3, with a pmox-txl template for it. */
export function upgrade(doc: ReturnType<typeof parseDocument>): void {
  doc.setIn(['tenants', 0, 'kubernetesVersion'], 'v1.36.3');
  doc.setIn(['proxmox', 'instances', 0, 'template', 'versions'], doc.createNode([{ kubernetesVersion: 'v1.36.3', templateID: 1001 }]));
}

export const ready = (type: string, status = 'True', reason = type) => ({
  type,
  status,
  reason,
  message: '',
  observedGeneration: 1,
  lastTransitionTime: '2026-12-06T20:00:00Z',
});

let serial = 0;
const suffix = () => `${(++serial).toString(36).padStart(5, 'x')}`;

interface Built {
  md: LiveMachineDeployment;
  machines: LiveMachine[];
  proxmoxMachines: LiveTenant['proxmoxMachines'];
}

/**
 * A MachineDeployment and its Machines as CAPI v1.12.10 writes them: the topology controller names
 * a primary's `<cluster>-<topology name>-<random>` and labels it (and its Machines) with the
 * topology name; a secondary's is pvekaas's own object; Machines carry
 * `cluster.x-k8s.io/deployment-name` and the pool/instance/node labels of the MD template.
 */
export function deployment(
  e: ExpectedTenant,
  mdName: string,
  opts: { machines?: number; replicas?: number; version?: string; nodeReady?: string[]; proxmoxNode?: string; retiring?: boolean } = {},
): Built {
  const md = e.machineDeployments.find((m) => m.name === mdName)!;
  const primary = e.clusters.find((c) => c.role === 'primary')!.name === md.cluster;
  const name = primary ? `${md.cluster}-${md.name}-${suffix()}` : md.name;
  const version = opts.version ?? md.version;
  const count = opts.machines ?? opts.replicas ?? 1;
  const labels = {
    'cluster.x-k8s.io/cluster-name': md.cluster,
    'node.cluster.x-k8s.io/pool': md.pool,
    'node.cluster.x-k8s.io/proxmox-instance': md.instance,
    'node.cluster.x-k8s.io/proxmox-node': md.node,
    'pvekaas.lab/tenant': e.name,
    ...(primary ? { 'topology.cluster.x-k8s.io/deployment-name': md.name, 'topology.cluster.x-k8s.io/owned': '' } : {}),
  };
  const machines: LiveMachine[] = [];
  const proxmoxMachines: LiveTenant['proxmoxMachines'] = [];
  for (let i = 0; i < count; i++) {
    const mname = `${name}-${suffix()}`;
    const nodeReady = opts.nodeReady?.[i] ?? 'True';
    machines.push({
      metadata: {
        name: mname,
        namespace: e.namespace,
        labels: { ...labels, 'cluster.x-k8s.io/deployment-name': name, 'cluster.x-k8s.io/set-name': `${name}-abc` },
      },
      spec: { clusterName: md.cluster, version, infrastructureRef: { kind: 'ProxmoxMachine', name: mname }, providerID: `proxmox://${mname}` },
      status: {
        phase: 'Running',
        nodeRef: { name: mname },
        addresses: [{ type: 'InternalIP', address: `10.10.1.${10 + serial}` }],
        conditions: [
          ready('Available'),
          ready('Ready'),
          ready('BootstrapConfigReady'),
          ready('InfrastructureReady'),
          nodeReady === 'True' ? ready('NodeReady') : ready('NodeReady', nodeReady, nodeReady === 'False' ? 'NodeNotReady' : 'NodeReadyUnknown'),
          ready('NodeHealthy', nodeReady),
        ],
      },
    });
    proxmoxMachines.push({
      metadata: { name: mname, namespace: e.namespace },
      spec: { virtualMachineID: 100 + serial },
      status: { proxmoxNode: opts.proxmoxNode ?? md.node, addresses: [{ type: 'InternalIP', address: `10.10.1.${10 + serial}` }] },
    });
  }
  const replicas = opts.replicas ?? count;
  return {
    md: {
      metadata: {
        name,
        namespace: e.namespace,
        labels,
        generation: 1,
        ...(opts.retiring ? { annotations: { 'topology.cluster.x-k8s.io/defer-upgrade': '' } } : {}),
      },
      spec: { clusterName: md.cluster, replicas, template: { spec: { version } } },
      status: { replicas: count, readyReplicas: (opts.nodeReady ?? []).filter((r) => r !== 'True').length ? count - 1 : count, observedGeneration: 1 },
    },
    machines,
    proxmoxMachines,
  };
}

/** Everything of a tenant as it runs when it converged as planned (each group at its planned size; autoscaled at min, at least 1 where max allows). */
export function asPlanned(e: ExpectedTenant, overrides: Record<string, Parameters<typeof deployment>[2]> = {}): LiveTenant {
  const primary = e.clusters.find((c) => c.role === 'primary')!.name;
  const built = e.machineDeployments.map((md) => {
    const g = e.groups.find((x) => x.pool === md.pool && x.instance === md.instance && x.node === md.node)!;
    return deployment(e, md.name, { machines: g?.replicas ?? 0, ...overrides[md.name] });
  });
  const cond = (t: string) => ready(t);
  return {
    clusters: e.clusters.map((c) => ({
      metadata: { name: c.name, namespace: e.namespace },
      spec: {
        controlPlaneEndpoint: { host: e.vip, port: 6443 },
        controlPlaneRef: { kind: c.role === 'primary' ? 'KamajiControlPlane' : 'StaticControlPlane', name: c.name },
        infrastructureRef: { kind: 'ProxmoxCluster', name: c.name },
        ...(c.role === 'primary' ? { topology: { version: e.version } } : {}),
      },
      status: {
        phase: 'Provisioned',
        initialization: { controlPlaneInitialized: true, infrastructureProvisioned: true },
        conditions: ['Available', 'InfrastructureReady', 'ControlPlaneInitialized', 'ControlPlaneAvailable', 'WorkersAvailable', 'RemoteConnectionProbe'].map(
          cond,
        ),
      },
    })),
    kamajiControlPlanes: [
      {
        metadata: { name: primary, namespace: e.namespace },
        spec: { version: e.version, replicas: 2 },
        status: {
          ready: true,
          version: e.version,
          initialization: { controlPlaneInitialized: true },
          replicas: 2,
          readyReplicas: 2,
          conditions: [cond('Available'), cond('KamajiControlPlaneIsReady'), cond('KamajiControlPlaneIsInitialized')],
        },
      },
    ],
    tenantControlPlanes: [
      {
        metadata: { name: primary, namespace: e.namespace },
        status: { controlPlaneEndpoint: `${e.vip}:6443`, kubernetesResources: { version: { version: e.version, status: 'Ready' } } },
      },
    ],
    services: [
      {
        metadata: { name: primary, namespace: e.namespace, labels: { 'kamaji.clastix.io/component': 'service' } },
        spec: { type: 'LoadBalancer' },
        status: { loadBalancer: { ingress: [{ ip: e.vip }] } },
      },
    ],
    machineDeployments: built.map((b) => b.md),
    machines: built.flatMap((b) => b.machines),
    proxmoxMachines: built.flatMap((b) => b.proxmoxMachines),
  };
}
