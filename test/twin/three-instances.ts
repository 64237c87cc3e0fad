/**
 * The three-instance lab of the MultiInstance proof (issue 12), shared by its two suites:
 * multi-instance.test.ts (bring-up, placement, the static control planes, scale, remediation) and
 * multi-instance-lifecycle.test.ts (upgrade, an instance leaving the plan, the tenant's delete, the
 * global-credentials control). Each suite brings up a twin of its own (they run side by side in
 * network namespaces, scripts/twin/suites), so neither waits for the other's steps.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import type { LabTwin, TwinTenant } from '../../scripts/twin/index';
import type { KubeClient } from '../../scripts/lib/kube-apiserver';
import { projectRoot, startTwin, printTimes } from './support';

export const fixture = 'test/twin/fixtures/three-instances.yaml';
export const labText = readFileSync(join(projectRoot, fixture), 'utf8');
export const TENANT = 'spread';
export const NS = TENANT;
/** Which instance each of the tenant's Clusters stands for. */
export const CLUSTER_INSTANCE: Record<string, string> = { spread: 'pve-a', 'spread-pve-b': 'pve-b', 'spread-pve-c': 'pve-c' };
export const CAPI = '/apis/cluster.x-k8s.io/v1beta2';
export const INFRA = '/apis/infrastructure.cluster.x-k8s.io/v1alpha2';
export const BOOTSTRAP = '/apis/bootstrap.cluster.x-k8s.io/v1beta2';
export const SCP = '/apis/controlplane.pvekaas.lab/v1alpha1';

export let twin: LabTwin;
export let converged: TwinTenant;

export const mgmt = (): KubeClient => twin.management.client;
export const list = async (client: KubeClient, path: string): Promise<any[]> => {
  const r = await client.get(path);
  if (r.status !== 200) throw new Error(`GET ${path}: HTTP ${r.status}: ${r.body?.message ?? r.text}`);
  return r.body.items as any[];
};
/** The tenant cluster's API server (the simulated Kamaji's real kube-apiserver). */
export const tenantApi = (): KubeClient => {
  const plane = [...twin.kamaji.planes.values()].find((p) => p.namespace === NS);
  if (!plane) throw new Error(`no tenant control plane for ${NS}`);
  return plane.server.client;
};
export const condition = (o: any, type: string) => ((o?.status?.conditions ?? []) as any[]).find((c) => c.type === type);
/** The tenant's VMs: those in its Proxmox pool (`<pools.vms>-<tenant>`) on any instance. */
export const tenantVms = () => twin.sim.listVms().filter((v) => !v.template && v.pool === `capi-${TENANT}`);

export async function convergedTenant(what: string, timeoutMs = 6 * 60 * 1000): Promise<TwinTenant> {
  const [t] = await twin.waitConverged([TENANT], timeoutMs);
  if (!t.converged) throw new Error(`${what}: ${TENANT} did not converge: ${t.waiting.join('; ')}\n${twin.diagnostics()}`);
  return t;
}

/** Edits every later step keeps (the upgrade's version and templates, once it has run). */
export const kept: [path: (string | number)[], value: unknown][] = [];

/** The lab with one edit (a YAML path set to a value, or deleted when the value is undefined). */
export function edited(edits: [path: (string | number)[], value: unknown][]): string {
  const doc = parseDocument(labText);
  for (const [path, value] of [...kept, ...edits]) {
    if (value === undefined) doc.deleteIn(path);
    else doc.setIn(path, value);
  }
  return doc.toString();
}

/** The credentials Secret data (url, token, secret) of a Cluster's ProxmoxCluster. */
export async function credentialsOf(cluster: string): Promise<Record<string, string>> {
  const c = (await mgmt().get(`${CAPI}/namespaces/${NS}/clusters/${cluster}`)).body;
  const pc = (await mgmt().get(`${INFRA}/namespaces/${NS}/proxmoxclusters/${c.spec.infrastructureRef.name}`)).body;
  const secret = (await mgmt().get(`/api/v1/namespaces/${NS}/secrets/${pc.spec.credentialsRef.name}`)).body;
  return Object.fromEntries(Object.entries(secret.data as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));
}

/** A Pod bound to a Node in the tenant cluster (no kubelet runs it): only CAPI's drain evicts it. */
export async function bindProbePod(node: string): Promise<string> {
  const api = tenantApi();
  const sa = await api.post('/api/v1/namespaces/default/serviceaccounts', {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: 'default', namespace: 'default' },
  });
  if (sa.status !== 201 && sa.status !== 409) throw new Error(`ServiceAccount default: HTTP ${sa.status}: ${sa.body?.message}`);
  const name = `drain-probe-${node}`.slice(0, 63).replace(/-+$/, '');
  const r = await api.post('/api/v1/namespaces/default/pods', {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default' },
    spec: {
      nodeName: node,
      terminationGracePeriodSeconds: 0,
      automountServiceAccountToken: false,
      containers: [{ name: 'pause', image: 'registry.k8s.io/pause:3.10' }],
    },
  });
  if (r.status !== 201 && r.status !== 409) throw new Error(`probe Pod on ${node}: HTTP ${r.status}: ${r.body?.message}`);
  return name;
}

/** Brings the three-instance lab up in this suite's twin (`name`: its timeline's name) and stops it after the suite. */
export function useThreeInstanceTwin(name: string): void {
  beforeAll(
    async () => {
      twin = await startTwin(labText, name);
      await twin.applyKubernetes();
      converged = await convergedTenant('first apply', 10 * 60 * 1000);
    },
    25 * 60 * 1000,
  );

  afterAll(async () => {
    printTimes(twin);
    await twin?.stop();
    twin?.cleanup();
  });
}
