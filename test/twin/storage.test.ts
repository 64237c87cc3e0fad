/**
 * Tenant volumes in the lab twin (issue 38 item 3, docs/storage.md): examples/lab-storage.yaml cut
 * to pmox-txl, tenant-a (two workers) and tenant-b (one), brought up as deploy would.
 *
 * Real: the tenant kube-apiservers, kube-schedulers and kube-controller-managers (StatefulSet, PV
 * and attach-detach controllers), CAPI core (its ClusterResourceSet applies the tenant-side CSI
 * objects; it copies the topology labels to the Nodes). Played, each rule cited there: the Proxmox
 * CSI controller and its csi-provisioner and csi-attacher, reading what the rendered Deployment in
 * the tenant's management namespace mounts (twin/csi-sidecars.ts, proxmox-csi.ts), and the
 * kubelets' volume part. Simulated: Proxmox, with its permission checks.
 *
 * A StatefulSet's volume is created on tenant-a's storage of the Proxmox node of the Node the real
 * scheduler picked, with tenant-a's token, attached to that Node's VM; after the Pod is deleted
 * the new Pod lands by the PV's node affinity and gets the same disk; tenant-a's token is refused on
 * tenant-b's storage and VM; no Secret or ConfigMap of any tenant API server holds a Proxmox token;
 * deleting the claim of a `Delete` class deletes the disk. Deleting tenant-a (the twin's `tofu destroy`
 * of its stack, with pvekaas's step before it, scripts/lib/tenant-volumes.ts) deletes its `Delete`
 * disk and keeps and lists its `Retain` one; tenant-b's volume is untouched.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import type { LabTwin } from '../../twin/index';
import type { TenantControlPlaneView } from '../../twin/kamaji';
import { PveClient } from '../../sim/client';
import { CsiError, createVolume, publishVolume } from '../../twin/proxmox-csi';
import { CSI_CONTROLLER_VMID } from '../../modules/tenants/storage';
import { tenantCredentialsSecretName } from '../../modules/tenants/names';
import { retainedLines } from '../../scripts/lib/tenant-volumes';
import { convergedOrThrow, printTimes, projectRoot, startTwin } from './support';

jest.setTimeout(20 * 60 * 1000);

const TENANTS = ['tenant-a', 'tenant-b'];
const INSTANCE = 'pmox-txl';
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kubernetes objects read by path
type Obj = any;

/**
 * examples/lab-storage.yaml cut to pmox-txl, tenant-a (two workers) and tenant-b (one). pmox-txl-2
 * is left 2 plannable cpu (4 minus the reserve of 2), so no 4-cpu worker fits there and placement
 * puts both of tenant-a's workers on pmox-txl-1: two Nodes on one Proxmox node, between which a
 * node-local volume can move.
 */
function storageLab(): string {
  const doc = parseDocument(readFileSync(join(projectRoot, 'examples/lab-storage.yaml'), 'utf8'));
  const instances = doc.getIn(['proxmox', 'instances']) as { items: { get(k: string): unknown }[] };
  instances.items = instances.items.filter((x) => x.get('name') === INSTANCE);
  const tenants = doc.get('tenants') as { items: { get(k: string): unknown }[] };
  tenants.items = tenants.items.filter((t) => TENANTS.includes(t.get('name') as string));
  doc.setIn(['proxmox', 'instances', 0, 'nodes', 1, 'cpu'], 4);
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

  it('moves the volume between two VMs of one Proxmox node: the Node cordoned, the Pod deleted, detached from one VM and attached to the other', async () => {
    const before = await pod();
    const first = await get('tenant-a', `/api/v1/nodes/${firstNode}`);
    const zone = first.metadata.labels['topology.kubernetes.io/zone'];
    const nodes = (await get('tenant-a', '/api/v1/nodes')).items as Obj[];
    const sameZone = nodes.filter((n) => n.metadata.name !== firstNode && n.metadata.labels['topology.kubernetes.io/zone'] === zone);
    // The cut lab puts both of tenant-a's workers on one Proxmox node (storageLab).
    expect(sameZone.map((n) => n.metadata.name)).toHaveLength(1);
    const old = vmOfNode(first);
    const target = vmOfNode(sameZone[0]);
    expect([old.node, target.node]).toEqual([zone, zone]);
    expect(target.vmid).not.toBe(old.vmid);
    // kubectl cordon: spec.unschedulable, so the real scheduler must pick the other Node.
    const cordon = await api('tenant-a').request('PATCH', `/api/v1/nodes/${firstNode}`, { spec: { unschedulable: true } }, 'application/merge-patch+json');
    expect(cordon.status).toBe(200);
    // No kubelet stops the container here: the Pod is deleted at once (kubectl delete --force).
    const del = await api('tenant-a').request('DELETE', '/api/v1/namespaces/default/pods/db-0?gracePeriodSeconds=0');
    expect(del.status).toBe(200);
    const after = await runningPod(before.metadata.uid);
    // Scheduled by the real kube-scheduler on the other Node of the same Proxmox node (the PV's node affinity allows it).
    expect(after.spec.nodeName).toBe(sameZone[0].metadata.name);
    const pvc = await get('tenant-a', '/api/v1/namespaces/default/persistentvolumeclaims/data-db-0');
    const pv = await get('tenant-a', `/api/v1/persistentvolumes/${pvc.spec.volumeName}`);
    expect(pv.spec.csi.volumeHandle).toBe(volumeHandle);
    // The real attach-detach controller: the old VolumeAttachment gone (detached), a new one for the new Node attached.
    const vas = await eventually(
      'one VolumeAttachment, for the new Node, attached',
      async () =>
        ((await get('tenant-a', '/apis/storage.k8s.io/v1/volumeattachments')).items as Obj[])
          .filter((v) => v.spec.source.persistentVolumeName === pv.metadata.name)
          .map((v) => ({ node: v.spec.nodeName, attached: v.status?.attached ?? false })),
      (l) => l.length === 1 && l[0].node === after.spec.nodeName && l[0].attached,
    );
    expect(vas).toEqual([{ node: after.spec.nodeName, attached: true }]);
    // In Proxmox: the first VM's config lost the drive (unlinked without force: an unusedN entry at most),
    // the second VM's config has the same volume id as a scsi drive.
    expect(disksNaming(await vmConfig(old.vmid, old.node), volid)).not.toContain('scsi');
    expect(disksNaming(await vmConfig(target.vmid, target.node), volid)).toEqual(['scsi']);
    // Its data identity kept: the one volume, the same volid, never recreated.
    expect(volumesOf('tenant-a-lvm').map((v) => v.volid)).toEqual([volid]);
    const ops = twin.csi!.events.filter((e) => e.namespace === 'tenant-a' && e.detail.startsWith(volumeHandle)).map((e) => `${e.what} ${e.detail}`);
    expect(ops).toEqual(
      expect.arrayContaining([
        `detached ${volumeHandle} from ${firstNode}`,
        expect.stringMatching(new RegExp(`^attached ${volumeHandle} to ${after.spec.nodeName} \\(VM ${target.vmid},`)),
      ]),
    );
    const uncordon = await api('tenant-a').request('PATCH', `/api/v1/nodes/${firstNode}`, { spec: { unschedulable: false } }, 'application/merge-patch+json');
    expect(uncordon.status).toBe(200);
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

  it('deleting tenant-a deletes its Delete volumes first, keeps and lists its Retain ones, and leaves tenant-b alone', async () => {
    const claims = (name: string, cls: string) => ({
      metadata: { name },
      spec: { accessModes: ['ReadWriteOnce'], storageClassName: cls, resources: { requests: { storage: '1Gi' } } },
    });
    const set = (name: string, templates: Obj[]) => ({
      ...statefulSet,
      metadata: { name, namespace: 'default' },
      spec: {
        ...statefulSet.spec,
        serviceName: name,
        selector: { matchLabels: { app: name } },
        template: { metadata: { labels: { app: name } }, spec: statefulSet.spec.template.spec },
        volumeClaimTemplates: templates,
      },
    });
    const a = await api('tenant-a').post('/apis/apps/v1/namespaces/default/statefulsets', set('app', [claims('scratch', 'fast'), claims('archive', 'keep')]));
    expect(a.status).toBe(201);
    await eventually(
      'tenant-b StorageClass standard',
      () => get('tenant-b', '/apis/storage.k8s.io/v1/storageclasses/standard'),
      (c) => !!c,
    );
    const b = await api('tenant-b').post('/apis/apps/v1/namespaces/default/statefulsets', set('bdb', [claims('data', 'standard')]));
    expect(b.status).toBe(201);
    const running = (t: string, name: string) =>
      eventually(
        `${t} ${name} Running`,
        () => get(t, `/api/v1/namespaces/default/pods/${name}`),
        (p) => p?.status?.phase === 'Running',
      );
    await running('tenant-a', 'app-0');
    await running('tenant-b', 'bdb-0');
    const volidOf = async (t: string, claim: string) => {
      const pvc = await get(t, `/api/v1/namespaces/default/persistentvolumeclaims/${claim}`);
      const pv = await get(t, `/api/v1/persistentvolumes/${pvc.spec.volumeName}`);
      const [, node, storage, disk] = String(pv.spec.csi.volumeHandle).split('/');
      return { volid: `${storage}:${disk}`, node, storage, pv: pv.metadata.name as string };
    };
    const scratch = await volidOf('tenant-a', 'scratch-app-0');
    const archive = await volidOf('tenant-a', 'archive-app-0');
    const bData = await volidOf('tenant-b', 'data-bdb-0');
    expect(
      volumesOf('tenant-a-lvm')
        .map((v) => v.volid)
        .sort(),
    ).toEqual([scratch.volid, archive.volid].sort());

    const release = await twin.deleteTenant('tenant-a');
    process.stderr.write(`${retainedLines('tenant-a', release?.retained ?? []).join('\n')}\n`);
    // In Proxmox: the Delete disk gone (deleted by the controller, with tenant-a's token), the Retain disk kept.
    expect(volumesOf('tenant-a-lvm').map((v) => v.volid)).toEqual([archive.volid]);
    const deletes = twin.sim.requests.filter((r) => r.method === 'DELETE' && r.path.endsWith(`/storage/tenant-a-lvm/content/${scratch.volid.split(':')[1]}`));
    expect(deletes.map((r) => r.status)).toContain(200);
    expect(twin.csi!.events.filter((e) => e.namespace === 'tenant-a' && e.what === 'deleted').map((e) => e.detail)).toContain(
      `${INSTANCE}/${scratch.node}/tenant-a-lvm/${scratch.volid.split(':')[1]}`,
    );
    // The step before the destroy: the Delete claim deleted with its Pod, the Retain volume listed (volid, storage, node).
    expect(release?.claims).toEqual([{ namespace: 'default', name: 'scratch-app-0', pv: scratch.pv }]);
    expect(release?.pods).toEqual([{ namespace: 'default', name: 'app-0' }]);
    expect(release?.statefulSets).toEqual([{ namespace: 'default', name: 'app' }]);
    expect(release?.retained).toEqual([
      { pv: archive.pv, claim: 'default/archive-app-0', volid: archive.volid, storage: 'tenant-a-lvm', node: archive.node, instance: INSTANCE },
    ]);
    // tenant-a is gone from the management cluster (its control plane with it); tenant-b's volume is untouched.
    expect((await twin.management.client.get('/apis/cluster.x-k8s.io/v1beta2/namespaces/tenant-a/clusters/tenant-a')).status).toBe(404);
    expect(volumesOf('tenant-b-lvm').map((v) => v.volid)).toEqual(expect.arrayContaining([bData.volid]));
    const bPv = await get('tenant-b', `/api/v1/persistentvolumes/${bData.pv}`);
    expect(bPv.status.phase).toBe('Bound');
  });
});
