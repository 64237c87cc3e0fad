/**
 * `status` against a real kube-apiserver with the pinned CRDs (CAPI v1.12 v1beta2, the Kamaji
 * provider's v1alpha2, Kamaji's v1alpha1, CAPMOX's v1alpha2): the status tests' objects
 * (test/foresight/status-fixtures.ts) are stored through the API server, spec by server-side apply
 * and status through the status subresource, so its structural schemas admit them and prune
 * whatever they do not define. Read back by runStatus through a kubeconfig, they must give exactly
 * the report the in-memory objects give: no field status reads is one the CRDs do not have.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tenantStatus, type LiveTenant } from '../../modules/foresight/status';
import { runStatus } from '../../scripts/lib/status-run';
import { startKubeServer, type KubeObject, type KubeServer } from '../support/kube-apiserver';
import { started, tearDown } from '../support/lifecycle';
import { asPlanned, exampleText, expectedOf } from '../foresight/status-fixtures';

let server: KubeServer | undefined;
let work: string | undefined;
beforeAll(async () => {
  server = await startKubeServer({ controllerManager: false });
}, 300000);
afterAll(() => tearDown(work, server), 60000);

const tenants = ['tenant-a', 'tenant-b', 'tenant-c'];

/** The required spec fields the fixtures leave out (status never reads them), per kind. */
function withRequiredSpec(kind: string, o: { metadata: { name: string }; spec?: Record<string, unknown> }): Record<string, unknown> {
  const ref = (k: string, group: string) => ({ apiGroup: group, kind: k, name: o.metadata.name });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a fixture's partial spec, completed by kind below
  const spec = (o.spec ?? {}) as Record<string, any>;
  switch (kind) {
    case 'Cluster':
      return {
        ...spec,
        controlPlaneRef: { ...ref('KamajiControlPlane', 'controlplane.cluster.x-k8s.io'), ...spec.controlPlaneRef },
        infrastructureRef: { ...ref('ProxmoxCluster', 'infrastructure.cluster.x-k8s.io'), ...spec.infrastructureRef },
        ...(spec.topology ? { topology: { classRef: { name: 'lab-tenant' }, ...spec.topology } } : {}),
      };
    case 'MachineDeployment':
      return {
        ...spec,
        selector: { matchLabels: { 'cluster.x-k8s.io/cluster-name': spec.clusterName } },
        template: {
          metadata: { labels: { 'cluster.x-k8s.io/cluster-name': spec.clusterName } },
          spec: {
            clusterName: spec.clusterName,
            bootstrap: { configRef: ref('KubeadmConfigTemplate', 'bootstrap.cluster.x-k8s.io') },
            infrastructureRef: ref('ProxmoxMachineTemplate', 'infrastructure.cluster.x-k8s.io'),
            ...spec.template?.spec,
          },
        },
      };
    case 'Machine':
      return {
        ...spec,
        bootstrap: { configRef: ref('KubeadmConfig', 'bootstrap.cluster.x-k8s.io'), dataSecretName: o.metadata.name },
        infrastructureRef: { ...ref('ProxmoxMachine', 'infrastructure.cluster.x-k8s.io'), ...spec.infrastructureRef },
      };
    case 'ProxmoxMachine':
      return { ...spec, templateSelector: { matchTags: ['capi', 'v1.35.4'] }, network: { networkDevices: [{ name: 'net0', bridge: 'vmbr0' }] } };
    case 'TenantControlPlane':
      return { controlPlane: { service: { serviceType: 'LoadBalancer' } }, kubernetes: { version: 'v1.35.4', kubelet: {} }, networkProfile: {} };
    case 'Service':
      return { ...spec, ports: [{ port: 6443, protocol: 'TCP' }] };
    default:
      return spec;
  }
}

const KINDS: [keyof LiveTenant, string, string][] = [
  ['clusters', 'cluster.x-k8s.io/v1beta2', 'Cluster'],
  ['kamajiControlPlanes', 'controlplane.cluster.x-k8s.io/v1alpha2', 'KamajiControlPlane'],
  ['tenantControlPlanes', 'kamaji.clastix.io/v1alpha1', 'TenantControlPlane'],
  ['services', 'v1', 'Service'],
  ['machineDeployments', 'cluster.x-k8s.io/v1beta2', 'MachineDeployment'],
  ['machines', 'cluster.x-k8s.io/v1beta2', 'Machine'],
  ['proxmoxMachines', 'infrastructure.cluster.x-k8s.io/v1alpha2', 'ProxmoxMachine'],
];

async function store(s: KubeServer, namespace: string, live: LiveTenant): Promise<void> {
  await s.client.applyOrThrow({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  for (const [field, apiVersion, kind] of KINDS) {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each kind's fixture object: spec and status passed on as they are
    for (const o of live[field] as {
      metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
      spec?: any;
      status?: any;
    }[]) {
      const object = {
        apiVersion,
        kind,
        metadata: {
          name: o.metadata.name,
          namespace,
          ...(o.metadata.labels ? { labels: o.metadata.labels } : {}),
          ...(o.metadata.annotations ? { annotations: o.metadata.annotations } : {}),
        },
        spec: withRequiredSpec(kind, o),
      } as KubeObject;
      await s.client.applyOrThrow(object, { fieldManager: 'status-test' });
      if (!o.status) continue;
      // KamajiControlPlane's status requires these three; the provider always writes them.
      const status = kind === 'KamajiControlPlane' ? { externalManagedControlPlane: true, ...o.status } : o.status;
      const r = await s.client.request('PATCH', `${await s.client.objectPath(object)}/status`, { status }, 'application/merge-patch+json');
      if (r.status !== 200) throw new Error(`status of ${kind} ${o.metadata.name}: HTTP ${r.status}: ${r.body?.message ?? r.text}`);
    }
  }
}

describe('status against the real API server and the pinned CRDs', () => {
  it('reads back, through a kubeconfig, exactly what the objects say: the same report as the objects in memory, as planned', async () => {
    const s = started(server);
    work = mkdtempSync(join(tmpdir(), 'status-kube-'));
    const kubeconfig = join(work, 'mgmt.kubeconfig');
    writeFileSync(kubeconfig, readFileSync(s.kubeconfig, 'utf8'));
    const config = join(work, 'lab.yaml');
    writeFileSync(config, exampleText);
    const fixtures = new Map(tenants.map((t) => [t, asPlanned(expectedOf(exampleText, t))]));
    for (const [t, live] of fixtures) await store(s, t, live);
    const run = await runStatus({ config, kubeconfig, json: true, env: {} });
    for (const t of tenants) {
      const fromServer = run.statuses.find((x) => x.name === t)!;
      expect(fromServer).toEqual(tenantStatus(expectedOf(exampleText, t), fixtures.get(t)!));
      expect(fromServer.machines.every((m) => m.node !== undefined && m.vmid !== undefined && m.nodeReady?.status === 'True')).toBe(true);
    }
    expect({ code: run.code, notInLab: run.notInLab }).toEqual({ code: 0, notInLab: [] });

    // One Node goes NotReady (CAPI's machine controller writes the Machine's NodeReady False): exit 2, that machine named.
    const m = fixtures.get('tenant-b')!.machines[0];
    const conditions = m.status!.conditions!.map((c) => (c.type === 'NodeReady' ? { ...c, status: 'False', reason: 'NodeNotReady' } : c));
    const r = await s.client.request(
      'PATCH',
      `/apis/cluster.x-k8s.io/v1beta2/namespaces/tenant-b/machines/${m.metadata.name}/status`,
      { status: { conditions } },
      'application/merge-patch+json',
    );
    expect(r.status).toBe(200);
    const after = await runStatus({ config, kubeconfig, tenants: ['tenant-b'], env: {} });
    expect(after.code).toBe(2);
    expect(after.statuses[0].differences).toEqual([`machine ${m.metadata.name}: Node ${m.metadata.name} is not Ready (NodeReady False (NodeNotReady))`]);
    expect(after.output).toContain(`- machine ${m.metadata.name}: Node ${m.metadata.name} is not Ready`);
  });
});
