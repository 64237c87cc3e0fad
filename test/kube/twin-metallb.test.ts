/**
 * MetalLB's real controller (go.universe.tf/metallb `controller`, the pinned component version,
 * built by scripts/toolchain) as the lab twin runs it (twin/metallb.ts): the example lab's
 * management stack's `metallb` release rendered from the real chart with its values, the
 * controller's ServiceAccount and roles applied, the binary running with that ServiceAccount's
 * token; the tenant VIP pool and advertisement of the management-config stack applied as rendered.
 * Then Services as Kamaji writes them for a tenant control plane:
 * - one asking for its planned VIP (the annotation the ClusterClass sets) gets exactly that VIP;
 * - one asking for nothing gets nothing (the pool is `autoAssign: false`); with the pool mutated to
 *   MetalLB's default (`autoAssign: true`) it would take a tenant's VIP — shown;
 * - deleting a tenant's Service frees its VIP for the next tenant;
 * - the twin's reachability check (what its kubelets ask before they join) says why not for an
 *   unassigned address and for a pool no L2Advertisement announces.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { parseLab } from '../../modules/config/load';
import { allocateVips } from '../../modules/tenants/vip';
import { readFileSync } from 'node:fs';
import { metallbReleaseOf, notAnnounced, startMetallb, type RunningMetallb } from '../../twin/metallb';
import { readStack } from '../../twin/stack-objects';
import { synthesizeLab } from '../../scripts/lib/synthesize';
import { resolveToolchain } from '../../modules/versions/pins';
import { startKubeServer, type KubeClient, type KubeObject, type KubeServer } from '../support/kube-apiserver';
import { started, tearDown } from '../support/lifecycle';
import { compileProject, projectRoot } from '../support/toolchain';

const root = projectRoot;
let work: string;
let server: KubeServer | undefined;
let metallb: RunningMetallb | undefined;
const children: ChildProcess[] = [];
let pool: KubeObject;
let advertisement: KubeObject;
let namespace: string;
const vips: string[] = [];

/** A Service as Kamaji writes a tenant control plane's (k8s_service_resource.go), with the class's annotation. */
function controlPlaneService(tenant: string, vip?: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: `${tenant}-cp`, namespace: 'default', annotations: vip ? { 'metallb.io/loadBalancerIPs': vip } : {} },
    spec: {
      type: 'LoadBalancer',
      selector: { 'kamaji.clastix.io/name': `${tenant}-cp` },
      ports: [{ name: 'kube-apiserver', protocol: 'TCP', port: 6443, targetPort: 6443 }],
    },
  } as KubeObject;
}

async function ingressOf(client: KubeClient, name: string, waitMs: number): Promise<string[]> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const r = await client.get(`/api/v1/namespaces/default/services/${name}`);
    const ips = ((r.body?.status?.loadBalancer?.ingress ?? []) as { ip: string }[]).map((i) => i.ip);
    if (ips.length > 0 || Date.now() > deadline) return ips;
    await new Promise((res) => setTimeout(res, 250));
  }
}

async function recreate(client: KubeClient, o: KubeObject): Promise<void> {
  await client.delete(`/api/v1/namespaces/default/services/${o.metadata.name}`);
  const deadline = Date.now() + 20000;
  while ((await client.get(`/api/v1/namespaces/default/services/${o.metadata.name}`)).status !== 404) {
    if (Date.now() > deadline) throw new Error(`Service ${o.metadata.name} not gone`);
    await new Promise((r) => setTimeout(r, 100));
  }
  await client.applyOrThrow(o, { force: true });
}

beforeAll(async () => {
  compileProject();
  work = mkdtempSync(join(tmpdir(), 'pvekaas-twin-metallb-'));
  const config = join(root, 'examples/lab.yaml');
  synthesizeLab({ config, out: join(work, 'out') });
  const lab = parseLab(readFileSync(config, 'utf8'), config);
  const release = metallbReleaseOf(readStack(join(work, 'out'), 'management').config);
  namespace = release.namespace;
  const mc = readStack(join(work, 'out'), 'management-config');
  const manifests = mc.objects.map((o) => o.object as unknown as KubeObject);
  pool = manifests.find((o) => o.kind === 'IPAddressPool')!;
  advertisement = manifests.find((o) => o.kind === 'L2Advertisement')!;
  // The VIPs the lab pins or pvekaas allocates for its first two tenants.
  const allocation = allocateVips(lab);
  for (const t of lab.tenants.slice(0, 2)) vips.push(allocation.vips.get(t.name)!.vip);
  expect(vips).toHaveLength(2);
  server = await startKubeServer({ controllerManager: false });
  const { client } = started(server);
  await client.applyOrThrow({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  await client.applyOrThrow(pool, { force: true });
  await client.applyOrThrow(advertisement, { force: true });
  metallb = await startMetallb({
    root,
    dir: work,
    client,
    adminKubeconfig: started(server).kubeconfig,
    release,
    kubeVersion: resolveToolchain().kubernetes.version,
    track: (c) => children.push(c),
  });
}, 300000);

afterAll(async () => {
  await metallb?.stop();
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await tearDown(work, server);
}, 60000);

describe('MetalLB (real controller) and the tenant VIP pool pvekaas renders', () => {
  it('gives a tenant control plane Service exactly its planned VIP, and the twin takes it as announced', async () => {
    const { client } = started(server);
    await client.applyOrThrow(controlPlaneService('alpha', vips[0]), { force: true });
    expect(await ingressOf(client, 'alpha-cp', 30000)).toEqual([vips[0]]);
    expect(await notAnnounced(client, { namespace: 'default', name: 'alpha-cp' }, vips[0], namespace)).toBeUndefined();
    // Another address than the Service got: nothing answers there.
    expect(await notAnnounced(client, { namespace: 'default', name: 'alpha-cp' }, vips[1], namespace)).toMatch(/has not assigned/);
  }, 60000);

  it('gives a LoadBalancer Service that asks for no address none (the pool is autoAssign: false)', async () => {
    const { client } = started(server);
    await client.applyOrThrow(controlPlaneService('anon'), { force: true });
    expect(await ingressOf(client, 'anon-cp', 5000)).toEqual([]);
  }, 60000);

  it("frees a deleted tenant Service's VIP for the next tenant asking for it", async () => {
    const { client } = started(server);
    // While alpha holds it, beta cannot have alpha's VIP.
    await client.applyOrThrow(controlPlaneService('beta', vips[0]), { force: true });
    expect(await ingressOf(client, 'beta-cp', 5000)).toEqual([]);
    await client.delete('/api/v1/namespaces/default/services/alpha-cp');
    await recreate(client, controlPlaneService('beta', vips[0]));
    expect(await ingressOf(client, 'beta-cp', 30000)).toEqual([vips[0]]);
    await client.delete('/api/v1/namespaces/default/services/beta-cp');
  }, 90000);

  it('mutation: without an L2Advertisement for the pool, the twin says nothing answers at the VIP', async () => {
    const { client } = started(server);
    await client.applyOrThrow(controlPlaneService('gamma', vips[1]), { force: true });
    expect(await ingressOf(client, 'gamma-cp', 30000)).toEqual([vips[1]]);
    const name = advertisement.metadata.name;
    await client.applyOrThrow({ ...advertisement, spec: { ...(advertisement as any).spec, ipAddressPools: ['another-pool'] } } as KubeObject, { force: true });
    expect(await notAnnounced(client, { namespace: 'default', name: 'gamma-cp' }, vips[1], namespace)).toMatch(/no L2Advertisement .* announces the pool/);
    await client.applyOrThrow(advertisement, { force: true });
    expect(await notAnnounced(client, { namespace: 'default', name: 'gamma-cp' }, vips[1], namespace)).toBeUndefined();
    expect(name).toBeTruthy();
  }, 60000);

  it("mutation: with the pool at MetalLB's default autoAssign: true, a Service asking for nothing takes a tenant VIP", async () => {
    const { client } = started(server);
    await client.applyOrThrow({ ...pool, spec: { ...(pool as any).spec, autoAssign: true } } as KubeObject, { force: true });
    try {
      await recreate(client, controlPlaneService('anon'));
      const got = await ingressOf(client, 'anon-cp', 30000);
      expect(got).toHaveLength(1);
      expect((pool as any).spec.addresses.join(' ')).toBeTruthy();
    } finally {
      await client.applyOrThrow(pool, { force: true });
      await client.delete('/api/v1/namespaces/default/services/anon-cp');
    }
  }, 60000);
});
