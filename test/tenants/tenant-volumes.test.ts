/**
 * The step before a tenant's destroy (scripts/lib/tenant-volumes.ts): which claims it deletes,
 * which Pods it deletes with them, which volumes it lists as kept. Run against a real tenant API
 * server and the played CSI controller in test/twin/storage.test.ts.
 */
import { planVolumeRelease, PROXMOX_CSI_DRIVER, retainedLines } from '../../scripts/lib/tenant-volumes';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kubernetes objects
type Obj = any;

const pv = (
  name: string,
  policy: string | undefined,
  claim: string | undefined,
  driver = PROXMOX_CSI_DRIVER,
  handle = `pmox-txl/pmox-txl-1/tenant-a-lvm/vm-999999999-${name}`,
): Obj => ({
  metadata: { name },
  spec: {
    csi: { driver, volumeHandle: handle },
    ...(policy ? { persistentVolumeReclaimPolicy: policy } : {}),
    ...(claim ? { claimRef: { namespace: claim.split('/')[0], name: claim.split('/')[1] } } : {}),
  },
});
const pvc = (key: string): Obj => ({ metadata: { namespace: key.split('/')[0], name: key.split('/')[1] } });
const pod = (key: string, claims: string[], phase = 'Running', owner?: Obj): Obj => ({
  metadata: { namespace: key.split('/')[0], name: key.split('/')[1], ...(owner ? { ownerReferences: [owner] } : {}) },
  spec: { volumes: [{ name: 'cfg', configMap: { name: 'x' } }, ...claims.map((c) => ({ name: c, persistentVolumeClaim: { claimName: c } }))] },
  status: { phase },
});

describe('the volumes of a tenant before its destroy', () => {
  const pvs = [
    pv('pvc-2', 'Delete', 'db/data-db-0'),
    pv('pvc-1', undefined, 'default/scratch'), // no policy written: Kubernetes' default, Delete
    pv('pvc-3', 'Retain', 'default/archive'),
    pv('pvc-4', 'Delete', 'default/other', 'rbd.csi.ceph.com'), // another driver's: not pvekaas's to delete
    pv('pvc-5', 'Delete', 'default/gone'), // its claim is gone already: nothing to delete, the PV goes by itself
    pv('pvc-6', 'Retain', undefined, PROXMOX_CSI_DRIVER, 'pmox-txl/pmox-txl-2/tenant-a-lvm/vm-999999999-pvc-6'),
  ];
  const claims = ['db/data-db-0', 'default/scratch', 'default/archive', 'default/other'].map(pvc);
  const pods = [
    pod('db/db-0', ['data-db-0'], 'Running', { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db', controller: true }),
    pod('default/archiver-0', ['archive'], 'Running', { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'archiver', controller: true }), // Retain only: its set stays
    pod('default/reader', ['scratch', 'archive']),
    pod('default/archiver', ['archive']), // uses only the Retain claim: left running until the destroy
    pod('default/done', ['scratch'], 'Succeeded'), // finished: holds no claim (pvc-protection ignores it)
    pod('other/scratch-user', ['scratch']), // same claim name, another namespace: not a user
  ];

  it("deletes the claims of the driver's Delete PVs and the Pods that use them, and keeps Retain PVs", () => {
    const plan = planVolumeRelease(pvs, claims, pods);
    expect(plan.claims).toEqual([
      { namespace: 'db', name: 'data-db-0', pv: 'pvc-2' },
      { namespace: 'default', name: 'scratch', pv: 'pvc-1' },
    ]);
    expect(plan.pods).toEqual([
      { namespace: 'db', name: 'db-0' },
      { namespace: 'default', name: 'reader' },
    ]);
    // The StatefulSet of a deleted Pod goes first: it would recreate the Pod and, the claim gone, a new claim and volume.
    expect(plan.statefulSets).toEqual([{ namespace: 'db', name: 'db' }]);
    expect(plan.retained).toEqual([
      { pv: 'pvc-3', claim: 'default/archive', volid: 'tenant-a-lvm:vm-999999999-pvc-3', storage: 'tenant-a-lvm', node: 'pmox-txl-1', instance: 'pmox-txl' },
      { pv: 'pvc-6', claim: undefined, volid: 'tenant-a-lvm:vm-999999999-pvc-6', storage: 'tenant-a-lvm', node: 'pmox-txl-2', instance: 'pmox-txl' },
    ]);
  });

  it('is the same whatever the order of the lists', () => {
    const plan = planVolumeRelease([...pvs].reverse(), [...claims].reverse(), [...pods].reverse());
    expect(plan).toEqual(planVolumeRelease(pvs, claims, pods));
  });

  it('does nothing without volumes of the driver', () => {
    expect(planVolumeRelease([pvs[3]], claims, pods)).toEqual({ claims: [], pods: [], statefulSets: [], retained: [] });
  });

  it('lists each kept volume with its volume id, storage and node', () => {
    const plan = planVolumeRelease(pvs, claims, pods);
    expect(retainedLines('tenant-a', plan.retained)).toEqual([
      'tenant tenant-a: 2 Retain volume(s) stay on Proxmox (delete them there when no longer needed):',
      '  tenant-a-lvm:vm-999999999-pvc-3 on storage tenant-a-lvm, node pmox-txl-1 (pmox-txl); PV pvc-3, claim default/archive',
      '  tenant-a-lvm:vm-999999999-pvc-6 on storage tenant-a-lvm, node pmox-txl-2 (pmox-txl); PV pvc-6',
    ]);
    expect(retainedLines('tenant-b', [])).toEqual(['tenant tenant-b: no Retain volumes: nothing stays on its storages']);
  });
});
