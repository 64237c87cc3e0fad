/**
 * Tenant volumes in the lab twin (issue 38 item 3, docs/storage.md): examples/lab-storage.yaml cut
 * to pmox-txl, tenant-a (two workers) and tenant-b (one), brought up as deploy would.
 *
 * Real: the tenant kube-apiservers, kube-schedulers and kube-controller-managers (StatefulSet, PV
 * and attach-detach controllers), CAPI core (its ClusterResourceSet applies the tenant-side CSI
 * objects; it copies the topology labels to the Nodes). Played, each rule cited there: the Proxmox
 * CSI controller and its csi-provisioner and csi-attacher, reading what the rendered Deployment in
 * the tenant's management namespace mounts (scripts/twin/csi-sidecars.ts, proxmox-csi.ts), and the
 * kubelets' volume part. Simulated: Proxmox, with its permission checks.
 *
 * A StatefulSet's volume is created on tenant-a's storage of the Proxmox node of the Node the real
 * scheduler picked, with tenant-a's token, attached to that Node's VM; after the Pod is deleted
 * the new Pod lands by the PV's node affinity and gets the same disk; tenant-a's token is refused on
 * tenant-b's storage and VM; no Secret or ConfigMap of any tenant API server holds a Proxmox token;
 * deleting the claim of a `Delete` class deletes the disk.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import type { LabTwin } from '../../scripts/twin/index';
import type { TenantControlPlaneView } from '../../scripts/twin/kamaji';
import { PveClient } from '../../sim/client';
import { CsiError, createVolume, publishVolume } from '../../scripts/twin/proxmox-csi';
import { CSI_CONTROLLER_VMID } from '../../modules/tenants/storage';
import { tenantCredentialsSecretName } from '../../modules/tenants/names';
import { convergedOrThrow, printTimes, projectRoot, startTwin } from './support';

jest.setTimeout(20 * 60 * 1000);

const TENANTS = ['tenant-a', 'tenant-b'];
const INSTANCE = 'pmox-txl';
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kubernetes objects read by path
type Obj = any;

/** examples/lab-storage.yaml cut to pmox-txl, tenant-a (two workers) and tenant-b (one). */
function storageLab(): string {
  const doc = parseDocument(readFileSync(join(projectRoot, 'examples/lab-storage.yaml'), 'utf8'));
  const instances = doc.getIn(['proxmox', 'instances']) as { items: { get(k: string): unknown }[] };
  instances.items = instances.items.filter((x) => x.get('name') === INSTANCE);
  const tenants = doc.get('tenants') as { items: { get(k: string): unknown }[] };
  tenants.items = tenants.items.filter((t) => TENANTS.includes(t.get('name') as string));
  doc.setIn(['tenants', 0, 'pools', 0, 'replicas'], 2);
  doc.setIn(['tenants', 1, 'pools'], doc.createNode([{ name: 'workers', replicas: 1, size: { cpu: 4, memoryMiB: 8192, diskGiB: 40 } }]));
  doc.deleteIn(['tenants', 1, 'placement']);
  doc.deleteIn(['capmox']);
  return doc.toString();
}

let twin: LabTwin;

beforeAll(
  async () => {
    twin = await startTwin(storageLab(), 'storage', false, { tenantControllerManager: true, csi: true });
    await twin.applyKubernetes();
    await convergedOrThrow(twin, TENANTS, 10 * 60 * 1000);
  },
  25 * 60 * 1000,
);

afterAll(async () => {
  printTimes(twin);
  await twin?.stop();
  twin?.cleanup();
}, 120000);

const plane = (tenant: string): TenantControlPlaneView => {
  const p = [...twin.kamaji.planes.values()].find((x) => x.namespace === tenant && x.cluster === tenant);
  if (!p) throw new Error(`no control plane for ${tenant}`);
  return p;
};
const api = (tenant: string) => plane(tenant).server.client;

async function eventually<T>(what: string, fn: () => Promise<T>, check: (t: T) => boolean, ms = 240000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const last = await fn();
    if (check(last)) return last;
    if (Date.now() > end)
      throw new Error(`${what}: still ${JSON.stringify(last)}\nplayed CSI errors: ${JSON.stringify([...(twin.csi?.errors ?? new Map()).entries()])}`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}

const get = async (tenant: string, path: string): Promise<Obj> => {
  const r = await api(tenant).get(path);
  return r.status === 200 ? r.body : undefined;
};
const pod = () => get('tenant-a', '/api/v1/namespaces/default/pods/db-0');
const runningPod = (notUid?: string) =>
  eventually('db-0 Running', pod, (p) => p?.status?.phase === 'Running' && p.metadata.uid !== notUid && !p.metadata.deletionTimestamp);
const vmOfNode = (node: Obj) => {
  const uuid = String(node.spec.providerID).replace('proxmox://', '');
  const vm = twin.sim.listVms().find((v) => v.uuid === uuid);
  if (!vm) throw new Error(`no VM for Node ${node.metadata.name}`);
  return vm;
};
const vmConfig = async (vmid: number, node: string): Promise<Record<string, string>> => {
  const admin = new PveClient(twin.sim.endpoint(INSTANCE), twin.sim.adminToken(INSTANCE));
  return (await admin.call<Record<string, string>>('GET', `/nodes/${node}/qemu/${vmid}/config`)).data;
};
const disksNaming = (config: Record<string, string>, volid: string) =>
  Object.entries(config)
    .filter(([k, v]) => /^(scsi|unused)\d+$/.test(k) && String(v).split(',')[0] === volid)
    .map(([k]) => k.replace(/\d+$/, ''));
const volumesOf = (storage: string) => twin.sim.instance(INSTANCE).volumes.filter((v) => v.storage === storage);

/** tenant-a's Proxmox token as its management namespace holds it (what the CSI controller mounts). */
async function tenantToken(tenant: string): Promise<string> {
  const s = await twin.management.client.get(`/api/v1/namespaces/${tenant}/secrets/${tenantCredentialsSecretName(INSTANCE)}`);
  const d = (k: string) => Buffer.from(s.body.data[k], 'base64').toString('utf8').trim();
  return `${d('token')}=${d('secret')}`;
}

const statefulSet = {
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  metadata: { name: 'db', namespace: 'default' },
  spec: {
    serviceName: 'db',
    replicas: 1,
    selector: { matchLabels: { app: 'db' } },
    template: { metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'db', image: 'registry.lab.example/db:1' }] } },
    volumeClaimTemplates: [
      { metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'fast', resources: { requests: { storage: '1Gi' } } } },
    ],
  },
};

let volumeHandle = '';
let volid = '';
let firstNode = '';

describe('tenant volumes in the lab twin', () => {
  it("puts a StatefulSet's volume on tenant-a's storage of its Node's Proxmox node, with tenant-a's token, attached to that Node's VM", async () => {
    await eventually(
      'the StorageClass fast in tenant-a (applied by the ClusterResourceSet)',
      () => get('tenant-a', '/apis/storage.k8s.io/v1/storageclasses/fast'),
      (c) => !!c,
    );
    const created = await api('tenant-a').post('/apis/apps/v1/namespaces/default/statefulsets', statefulSet);
    expect(created.status).toBe(201);
    const p = await runningPod();
    firstNode = p.spec.nodeName;
    const pvc = await get('tenant-a', '/api/v1/namespaces/default/persistentvolumeclaims/data-db-0');
    // The real scheduler chose the Node (WaitForFirstConsumer) and the real PV controller handed the claim to the driver.
    expect(pvc.metadata.annotations).toMatchObject({
      'volume.kubernetes.io/selected-node': firstNode,
      'volume.kubernetes.io/storage-provisioner': 'csi.proxmox.sinextra.dev',
    });
    expect(pvc.status.phase).toBe('Bound');
    const node = await get('tenant-a', `/api/v1/nodes/${firstNode}`);
    const zone = node.metadata.labels['topology.kubernetes.io/zone'];
    const vm = vmOfNode(node);
    expect(zone).toBe(vm.node);
    const pv = await get('tenant-a', `/api/v1/persistentvolumes/${pvc.spec.volumeName}`);
    volumeHandle = pv.spec.csi.volumeHandle;
    volid = `tenant-a-lvm:vm-${CSI_CONTROLLER_VMID}-${pv.metadata.name}`;
    expect(volumeHandle).toBe(`${INSTANCE}/${zone}/tenant-a-lvm/vm-${CSI_CONTROLLER_VMID}-${pv.metadata.name}`);
    expect(pv.spec.nodeAffinity.required.nodeSelectorTerms).toEqual([
      {
        matchExpressions: [
          { key: 'topology.kubernetes.io/region', operator: 'In', values: [INSTANCE] },
          { key: 'topology.kubernetes.io/zone', operator: 'In', values: [zone] },
        ],
      },
    ]);
    // In Proxmox: the disk on tenant-a's storage of that node, created with tenant-a's token.
    expect(volumesOf('tenant-a-lvm').map((v) => ({ volid: v.volid, node: v.node }))).toEqual([{ volid, node: zone }]);
    const creates = twin.sim.requests.filter((r) => r.method === 'POST' && r.path === `/nodes/${zone}/storage/tenant-a-lvm/content` && r.status === 200);
    expect(creates.map((r) => r.authid)).toEqual([(await tenantToken('tenant-a')).split('=')[0]]);
    // The real attach-detach controller's VolumeAttachment, attached by the played attacher to the Node's VM.
    const vas = ((await get('tenant-a', '/apis/storage.k8s.io/v1/volumeattachments')).items as Obj[]).filter(
      (v) => v.spec.source.persistentVolumeName === pv.metadata.name,
    );
    expect(vas.map((v) => ({ node: v.spec.nodeName, attached: v.status?.attached }))).toEqual([{ node: firstNode, attached: true }]);
    expect(disksNaming(await vmConfig(vm.vmid, vm.node), volid)).toEqual(['scsi']);
  });

  it('survives a reschedule: the new Pod lands by the PV node affinity and gets the same disk', async () => {
    const before = await pod();
    const first = await get('tenant-a', `/api/v1/nodes/${firstNode}`);
    const zone = first.metadata.labels['topology.kubernetes.io/zone'];
    const nodes = (await get('tenant-a', '/api/v1/nodes')).items as Obj[];
    const sameZone = nodes.filter((n) => n.metadata.name !== firstNode && n.metadata.labels['topology.kubernetes.io/zone'] === zone);
    // Another Node on the same Proxmox node: cordon the first, so the Pod must move (the disk is local to that node's storage).
    if (sameZone.length > 0)
      await api('tenant-a').request('PATCH', `/api/v1/nodes/${firstNode}`, { spec: { unschedulable: true } }, 'application/merge-patch+json');
    // No kubelet stops the container here: the Pod is deleted at once (kubectl delete --force).
    const del = await api('tenant-a').request('DELETE', '/api/v1/namespaces/default/pods/db-0?gracePeriodSeconds=0');
    expect(del.status).toBe(200);
    const after = await runningPod(before.metadata.uid);
    const node = await get('tenant-a', `/api/v1/nodes/${after.spec.nodeName}`);
    expect(node.metadata.labels['topology.kubernetes.io/zone']).toBe(zone);
    if (sameZone.length > 0) expect(after.spec.nodeName).not.toBe(firstNode);
    const pvc = await get('tenant-a', '/api/v1/namespaces/default/persistentvolumeclaims/data-db-0');
    const pv = await get('tenant-a', `/api/v1/persistentvolumes/${pvc.spec.volumeName}`);
    expect(pv.spec.csi.volumeHandle).toBe(volumeHandle);
    const vm = vmOfNode(node);
    await eventually(
      'the disk attached to the new Node VM',
      () => vmConfig(vm.vmid, vm.node),
      (c) => disksNaming(c, volid).includes('scsi'),
    );
    if (after.spec.nodeName !== firstNode) {
      const old = vmOfNode(first);
      // Detached from the old VM: unlinked without force, the volume kept (an unusedN entry at most).
      await eventually(
        'the disk detached from the old VM',
        () => vmConfig(old.vmid, old.node),
        (c) => !disksNaming(c, volid).includes('scsi'),
      );
      await api('tenant-a').request('PATCH', `/api/v1/nodes/${firstNode}`, { spec: { unschedulable: false } }, 'application/merge-patch+json');
    }
    expect(volumesOf('tenant-a-lvm').map((v) => v.volid)).toEqual([volid]);
  });

  it("refuses tenant-a's token on tenant-b's storage and VM, and no tenant API server holds a Proxmox token", async () => {
    const a = new PveClient(twin.sim.endpoint(INSTANCE), await tenantToken('tenant-a'));
    const b = new PveClient(twin.sim.endpoint(INSTANCE), await tenantToken('tenant-b'));
    const zone = vmOfNode(await get('tenant-a', `/api/v1/nodes/${firstNode}`)).node;
    const req = { name: 'pvc-probe', storage: 'tenant-b-lvm', requiredBytes: 1024 ** 3, region: INSTANCE, zone, controllerVmId: CSI_CONTROLLER_VMID };
    await expect(createVolume(a, req)).rejects.toMatchObject({ pveStatus: 403 });
    const bNode = ((await get('tenant-b', '/api/v1/nodes')).items as Obj[])[0];
    const bVm = vmOfNode(bNode);
    await expect(publishVolume(a, volumeHandle, bVm.vmid)).rejects.toBeInstanceOf(CsiError);
    // Positive control: tenant-b's own token may create on its storage.
    const made = await createVolume(b, { ...req, zone: bVm.node });
    expect(made.volumeId).toBe(`${INSTANCE}/${bVm.node}/tenant-b-lvm/vm-${CSI_CONTROLLER_VMID}-pvc-probe`);

    const secrets = [...twin.sim.instance(INSTANCE).tokens.values()].map((t) => (t as { secret: string }).secret).filter((s) => s.length >= 8);
    expect(secrets.length).toBeGreaterThan(2);
    const holders = async (client: { get(p: string): Promise<{ status: number; body: Obj }> }, where: string) => {
      const found: string[] = [];
      for (const kind of ['secrets', 'configmaps']) {
        const list = await client.get(`/api/v1/${kind}`);
        expect(list.status).toBe(200);
        for (const o of list.body.items as Obj[]) {
          const values = Object.values({ ...(o.data ?? {}), ...(o.stringData ?? {}) }) as string[];
          const texts = values.flatMap((v) => (kind === 'secrets' ? [Buffer.from(v, 'base64').toString('utf8'), v] : [v]));
          if (texts.some((t) => secrets.some((s) => t.includes(s)) || /PVEAPIToken=/.test(t)))
            found.push(`${where} ${kind}/${o.metadata.namespace}/${o.metadata.name}`);
        }
      }
      return found;
    };
    for (const t of TENANTS) expect(await holders(api(t), t)).toEqual([]);
    // The scan finds them where they are: the management cluster's tenant namespaces.
    expect((await holders(twin.management.client, 'management')).filter((h) => h.includes(tenantCredentialsSecretName(INSTANCE)))).toEqual(
      expect.arrayContaining(TENANTS.map((t) => `management secrets/${t}/${tenantCredentialsSecretName(INSTANCE)}`)),
    );
  });

  it('deletes the disk with the claim of a Delete class, after it is detached', async () => {
    const t = api('tenant-a');
    expect((await t.request('DELETE', '/apis/apps/v1/namespaces/default/statefulsets/db')).status).toBe(200);
    await t.request('DELETE', '/api/v1/namespaces/default/pods/db-0?gracePeriodSeconds=0');
    expect((await t.request('DELETE', '/api/v1/namespaces/default/persistentvolumeclaims/data-db-0')).status).toBe(200);
    await eventually(
      'the disk deleted from tenant-a-lvm',
      async () => volumesOf('tenant-a-lvm').map((v) => v.volid),
      (v) => v.length === 0,
    );
    await eventually(
      'the PV gone',
      () => get('tenant-a', '/api/v1/persistentvolumes'),
      (l) => l.items.length === 0,
    );
    expect(twin.csi!.events.filter((e) => e.namespace === 'tenant-a').map((e) => e.what)).toEqual(
      expect.arrayContaining(['provisioned', 'attached', 'deleted']),
    );
  });
});
