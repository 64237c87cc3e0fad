/**
 * `pvekaas release-volumes` (scripts/lib/release-volumes-run.ts) on real API servers: a
 * management server holding tenant-a's kubeconfig Secret (as Kamaji's provider writes it), and a
 * tenant server holding PVs of the Proxmox CSI driver, their claims, a StatefulSet and its Pod.
 * Without --yes nothing is deleted and the plan is shown; with --yes the StatefulSet, the Delete
 * claim and its Pod are deleted and, with no CSI controller here to delete the disk, the command
 * fails naming the PV still there (the destroy must wait). The twin's storage suite runs the same
 * road with the played CSI controller, where the disk goes (test/twin/storage.test.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runReleaseVolumes } from '../../scripts/lib/release-volumes-run';
import { PROXMOX_CSI_DRIVER } from '../../scripts/lib/tenant-volumes';
import { startKubeServer, type KubeObject, type KubeServer } from '../support/kube-apiserver';
import { started, tearDown } from '../support/lifecycle';

const config = join(__dirname, '../../examples/lab-storage.yaml');
let mgmt: KubeServer | undefined;
let tenant: KubeServer | undefined;

const pv = (name: string, policy: 'Delete' | 'Retain', claim: string) =>
  ({
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name },
    spec: {
      capacity: { storage: '1Gi' },
      accessModes: ['ReadWriteOnce'],
      persistentVolumeReclaimPolicy: policy,
      storageClassName: policy === 'Delete' ? 'fast' : 'keep',
      claimRef: { namespace: 'default', name: claim },
      csi: { driver: PROXMOX_CSI_DRIVER, volumeHandle: `pmox-txl/pmox-txl-1/tenant-a-lvm/vm-9999-${name}` },
    },
  }) as unknown as KubeObject;
const pvc = (name: string, volume: string, cls: string) =>
  ({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace: 'default' },
    spec: { accessModes: ['ReadWriteOnce'], storageClassName: cls, volumeName: volume, resources: { requests: { storage: '1Gi' } } },
  }) as unknown as KubeObject;

beforeAll(async () => {
  [mgmt, tenant] = await Promise.all([startKubeServer({ crds: false, controllerManager: false }), startKubeServer({ crds: false, controllerManager: false })]);
  const m = started(mgmt).client;
  const t = started(tenant).client;
  await m.applyOrThrow({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'tenant-a' } });
  await m.applyOrThrow({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'tenant-a-kubeconfig', namespace: 'tenant-a' },
    data: { value: Buffer.from(readFileSync(started(tenant).kubeconfig, 'utf8')).toString('base64') },
  } as unknown as KubeObject);
  // No kube-controller-manager: the ServiceAccount admission needs the namespace's default ServiceAccount.
  await t.applyOrThrow({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: 'default' } } as KubeObject);
  await t.applyOrThrow(pv('pv-fast', 'Delete', 'data-app-0'));
  await t.applyOrThrow(pv('pv-keep', 'Retain', 'keep-app-0'));
  await t.applyOrThrow(pvc('data-app-0', 'pv-fast', 'fast'));
  await t.applyOrThrow(pvc('keep-app-0', 'pv-keep', 'keep'));
  const set = await t.applyOrThrow({
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'app', namespace: 'default' },
    spec: {
      replicas: 0,
      serviceName: 'app',
      selector: { matchLabels: { app: 'app' } },
      template: { metadata: { labels: { app: 'app' } }, spec: { containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10' }] } },
    },
  } as unknown as KubeObject);
  await t.applyOrThrow({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'app-0',
      namespace: 'default',
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'app', uid: set.metadata.uid, controller: true }],
    },
    spec: {
      containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10' }],
      volumes: [
        { name: 'data', persistentVolumeClaim: { claimName: 'data-app-0' } },
        { name: 'keep', persistentVolumeClaim: { claimName: 'keep-app-0' } },
      ],
    },
  } as unknown as KubeObject);
}, 300000);
afterAll(() => tearDown(undefined, mgmt, tenant), 60000);

const options = () => ({ config, tenant: 'tenant-a', kubeconfig: started(mgmt).kubeconfig, env: {} });

describe('pvekaas release-volumes', () => {
  it('without --yes shows what it would delete and keep, and deletes nothing', async () => {
    const run = await runReleaseVolumes({ ...options(), yes: false });
    expect(run.output.split('\n')).toEqual([
      'tenant tenant-a: 1 claim(s) of Delete volumes to delete (the CSI controller deletes their disks):',
      '  claim default/data-app-0 (PV pv-fast)',
      '  statefulset default/app first (orphaning its Pods: it would recreate them and their claims)',
      '  pod default/app-0 (it uses one of those claims)',
      'tenant tenant-a: 1 Retain volume(s) stay on Proxmox (delete them there when no longer needed):',
      '  tenant-a-lvm:vm-9999-pv-keep on storage tenant-a-lvm, node pmox-txl-1 (pmox-txl); PV pv-keep, claim default/keep-app-0',
      "nothing deleted: run again with --yes to delete these, then destroy tenant tenant-a's stack once this command has finished",
      '',
    ]);
    const t = started(tenant).client;
    expect((await t.get('/api/v1/namespaces/default/persistentvolumeclaims/data-app-0')).body.metadata.deletionTimestamp).toBeUndefined();
    expect((await t.get('/apis/apps/v1/namespaces/default/statefulsets/app')).status).toBe(200);
    expect((await t.get('/api/v1/namespaces/default/pods/app-0')).status).toBe(200);
  });

  it('refuses a tenant without storage classes, and one whose kubeconfig Secret cannot be read, with the fix', async () => {
    await expect(runReleaseVolumes({ ...options(), tenant: 'tenant-c', yes: false })).rejects.toThrow(
      /tenant tenant-c has no storage classes: it has no volumes to release\n {2}fix: destroy its stack directly/,
    );
    await expect(runReleaseVolumes({ ...options(), tenant: 'tenant-b', yes: false })).rejects.toThrow(
      /tenant tenant-b: its kubeconfig Secret tenant-b\/tenant-b-kubeconfig cannot be read from the management cluster \(HTTP 404\)\n {2}fix: .*--tenant-kubeconfig/,
    );
  });

  it('with --yes deletes the StatefulSet, the Delete claim and its Pod, keeps the Retain claim, and fails while the PV is still there', async () => {
    const lines: string[] = [];
    await expect(runReleaseVolumes({ ...options(), yes: true, timeoutMs: 3000, log: (l) => lines.push(l) })).rejects.toThrow(
      'tenant tenant-a: PVs still there after deleting their claims: pv-fast; the CSI controller in the management cluster deletes their disks: check its logs, and do not destroy the tenant before they are gone',
    );
    const t = started(tenant).client;
    // No kube-controller-manager here: the StatefulSet waits on the orphan finalizer (the garbage
    // collector's), the claim on pvc-protection — both deleted.
    const set = await t.get('/apis/apps/v1/namespaces/default/statefulsets/app');
    expect(set.status === 404 || set.body.metadata.deletionTimestamp !== undefined).toBe(true);
    expect((await t.get('/api/v1/namespaces/default/pods/app-0')).status).toBe(404);
    const claim = await t.get('/api/v1/namespaces/default/persistentvolumeclaims/data-app-0');
    expect(claim.status === 404 || claim.body.metadata.deletionTimestamp !== undefined).toBe(true);
    expect((await t.get('/api/v1/namespaces/default/persistentvolumeclaims/keep-app-0')).body.metadata.deletionTimestamp).toBeUndefined();
    expect(lines).toEqual(
      expect.arrayContaining([
        'tenant tenant-a: deleted statefulset default/app (its Pods use claims being deleted; it would recreate them)',
        'tenant tenant-a: deleted claim default/data-app-0 (PV pv-fast, reclaim policy Delete)',
      ]),
    );
  });
});
