/**
 * Issue 38: tenant volumes with exactly the grants the instance stack renders (renderInstances of
 * a lab whose tenant-a and tenant-b each have a volume storage of their own on pmox-txl), driven by
 * the played Proxmox CSI controller (twin/proxmox-csi.ts) against the Proxmox simulator,
 * whose permission checks are pve-storage's and qemu-server's (sim/api/storage.ts, sim/api/qemu.ts).
 *
 * tenant-a's token creates, attaches, detaches and deletes its own volumes, and is refused on
 * everything of tenant-b's: its storage, its volumes, its VM. Every refusal has its positive
 * control (tenant-b's own token doing the same call). The mutations of the Done-when are applied
 * to copies and caught here: the controller given another tenant's token, a StorageClass naming a
 * storage the tenant was not granted, and the volumes ACL put on the whole datacenter with propagate.
 */
import { PveSimulator } from '../../sim/simulator';
import { PveClient } from '../../sim/client';
import { planPlacement } from '../../modules/placement';
import { VOLUMES_ROLE, renderInstances, type CapmoxGrant, type InstanceRendering } from '../../modules/rendering/instance';
import { CSI_CONTROLLER_VMID } from '../../modules/tenants/storage';
import { CsiError, createVolume, deleteVolume, publishVolume, unpublishVolume } from '../../twin/proxmox-csi';
import { exampleLab } from '../management/synth';

const lab = exampleLab((d) => {
  d.proxmox.instances[0].storage.volumes = ['vol-a', 'vol-b'];
  d.proxmox.instances[1].storage = { volumes: ['vol-b'] };
  d.tenants[0].storage = { classes: [{ name: 'fast', storage: 'vol-a', default: true }] };
  d.tenants[1].storage = { classes: [{ name: 'fast', storage: 'vol-b' }] };
});
const rendering = renderInstances(lab, planPlacement(lab)).get('pmox-txl') as InstanceRendering;
const NODES = ['pmox-txl-1', 'pmox-txl-2'];
const GiB = 1024 ** 3;

let sim: PveSimulator;
let admin: PveClient;
/** Each tenant's token, as the instance stack creates it, with its rendered grants. */
const client: Record<string, PveClient> = {};
const grantsOf = (tenant: string) => rendering.serviceAccount.tokens.find((t) => t.tenant === tenant)!.grants;

async function must(method: string, path: string, params: Record<string, string | number>): Promise<unknown> {
  const res = await admin.call<unknown>(method, path, params);
  expect({ method, path, status: res.status, reason: res.reason }).toEqual({ method, path, status: 200, reason: expect.any(String) });
  if (typeof res.data === 'string' && res.data.startsWith('UPID:')) expect(await admin.waitForTask(res.data)).toBe('OK');
  return res.data;
}

const acl = (subject: Record<string, string>, g: Pick<CapmoxGrant, 'path' | 'roleId' | 'propagate'>) =>
  must('PUT', '/access/acl', { path: g.path, roles: g.roleId, propagate: g.propagate ? 1 : 0, ...subject });

/** A token of the CAPMOX user with these grants (the user holds them too, as the stack renders). */
async function tokenWith(name: string, grants: readonly Pick<CapmoxGrant, 'path' | 'roleId' | 'propagate'>[]): Promise<PveClient> {
  const created = (await must('POST', `/access/users/${rendering.serviceAccount.userId}/token/${name}`, { privsep: 1 })) as { value: string };
  const tokenId = `${rendering.serviceAccount.userId}!${name}`;
  for (const g of grants) {
    await acl({ users: rendering.serviceAccount.userId }, g);
    await acl({ tokens: tokenId }, g);
  }
  return new PveClient(sim.endpoint('pmox-txl'), `${tokenId}=${created.value}`);
}

beforeAll(async () => {
  sim = await PveSimulator.start({
    taskDurationMs: 20,
    instances: [
      {
        name: 'pmox-txl',
        nodes: NODES.map((name) => ({ name, cpu: 32, memoryMiB: 131072 })),
        storages: [
          { id: 'local', type: 'dir', content: ['iso', 'import', 'snippets', 'vztmpl', 'backup'], capacityGiB: 100 },
          { id: 'ceph-vm', type: 'lvmthin', content: ['images', 'rootdir'], capacityGiB: 1000, shared: true },
          { id: 'vol-a', type: 'lvmthin', content: ['images'], capacityGiB: 200 },
          { id: 'vol-b', type: 'lvmthin', content: ['images'], capacityGiB: 200 },
        ],
        bridges: ['vmbr0'],
      },
    ],
  });
  admin = new PveClient(sim.endpoint('pmox-txl'), sim.adminToken('pmox-txl'));
  // What the instance stack creates, in its order: pools, cloud-init storages, roles, user, tokens and ACLs.
  for (const p of [rendering.templatesPool, ...rendering.tenantPools]) await must('POST', '/pools', { poolid: p.poolId });
  for (const s of rendering.cloudInitStorages)
    await must('POST', '/storage', { storage: s.storageId, type: 'dir', path: s.path, content: s.content.join(','), shared: 0 });
  for (const r of rendering.serviceAccount.roles) await must('POST', '/access/roles', { roleid: r.roleId, privs: r.privileges.join(',') });
  await must('POST', '/access/users', { userid: rendering.serviceAccount.userId });
  for (const t of ['tenant-a', 'tenant-b']) client[t] = await tokenWith(`tenant-${t}`, grantsOf(t));
  // One machine per tenant and node, in its pool (CAPMOX clones them; made here by the administrator).
  for (const [vmid, tenant, node] of [
    [101, 'tenant-a', NODES[0]],
    [102, 'tenant-a', NODES[1]],
    [201, 'tenant-b', NODES[0]],
  ] as const)
    await must('POST', `/nodes/${node}/qemu`, { vmid, name: `${tenant}-${vmid}`, pool: `capi-${tenant}`, scsi0: 'ceph-vm:4' });
}, 60_000);

afterAll(() => sim?.stop());

const request = (name: string, storage: string | undefined, zone = NODES[0]) => ({
  name,
  storage,
  requiredBytes: 5 * GiB,
  region: 'pmox-txl',
  zone,
  controllerVmId: CSI_CONTROLLER_VMID,
});

async function configOf(vmid: number, node = NODES[0]): Promise<Record<string, string>> {
  return (await admin.call<Record<string, string>>('GET', `/nodes/${node}/qemu/${vmid}/config`)).data;
}

async function volumesOn(storage: string, node = NODES[0]): Promise<string[]> {
  return (await admin.call<{ volid: string }[]>('GET', `/nodes/${node}/storage/${storage}/content`)).data.map((v) => v.volid);
}

async function refused(p: Promise<unknown>): Promise<number | string> {
  try {
    await p;
    return 'not refused';
  } catch (e) {
    if (e instanceof CsiError) return e.pveStatus ?? e.code;
    throw e;
  }
}

describe('the rendered volume grants', () => {
  it('give each token the volumes role on its own volume storage only, without propagation', () => {
    const volumeGrants = (t: string) => grantsOf(t).filter((g) => g.roleId === VOLUMES_ROLE.id);
    expect(volumeGrants('tenant-a').map(({ path, propagate }) => ({ path, propagate }))).toEqual([{ path: '/storage/vol-a', propagate: false }]);
    expect(volumeGrants('tenant-b').map(({ path, propagate }) => ({ path, propagate }))).toEqual([{ path: '/storage/vol-b', propagate: false }]);
    expect(volumeGrants('tenant-c')).toEqual([]);
  });
});

describe("a tenant's volume, end to end with its own token", () => {
  it('is created on its storage and node, attached to its VM, refused on its VM of the other node (local storage), detached and attached again', async () => {
    const a = client['tenant-a'];
    const { volumeId, capacityBytes } = await createVolume(a, request('pvc-a1', 'vol-a'));
    expect({ volumeId, capacityBytes }).toEqual({ volumeId: `pmox-txl/${NODES[0]}/vol-a/vm-${CSI_CONTROLLER_VMID}-pvc-a1`, capacityBytes: 5 * GiB });
    expect(await volumesOn('vol-a')).toEqual([`vol-a:vm-${CSI_CONTROLLER_VMID}-pvc-a1`]);
    // Created again (a retried CreateVolume): the same volume, nothing new.
    expect((await createVolume(a, request('pvc-a1', 'vol-a'))).volumeId).toBe(volumeId);
    expect(await volumesOn('vol-a')).toHaveLength(1);

    const attached = await publishVolume(a, volumeId, 101);
    expect(attached).toEqual({ lun: 1, devicePath: `/dev/disk/by-id/wwn-0x${Buffer.from('PVC-ID01').toString('hex')}` });
    expect((await configOf(101)).scsi1).toMatch(new RegExp(`^vol-a:vm-${CSI_CONTROLLER_VMID}-pvc-a1,`));
    // Published again: the same LUN.
    expect((await publishVolume(a, volumeId, 101)).lun).toBe(1);

    // A local volume stays on its node: attaching it to the VM on the other node is refused by Proxmox.
    expect(await refused(publishVolume(a, volumeId, 102))).toBe(500);

    await unpublishVolume(a, volumeId, 101);
    const after = await configOf(101);
    expect(after.scsi1).toBeUndefined();
    expect(Object.values(after)).toContain(`vol-a:vm-${CSI_CONTROLLER_VMID}-pvc-a1`);
    // Reattached (the Pod rescheduled onto another Node of the same Proxmox node): a fresh LUN, the same disk.
    expect((await publishVolume(a, volumeId, 101)).lun).toBe(1);
    await unpublishVolume(a, volumeId, 101);
    // The unusedN entry keeps it referenced by VM 101, so Proxmox refuses its deletion until it is dropped (as CSI's own flow does not).
    const unused = Object.entries(await configOf(101)).find(([, v]) => v === `vol-a:vm-${CSI_CONTROLLER_VMID}-pvc-a1`)![0];
    await must('POST', `/nodes/${NODES[0]}/qemu/101/config`, { delete: unused });
  });

  it('is deleted with its own token, and deleting it again is no error', async () => {
    const a = client['tenant-a'];
    const { volumeId } = await createVolume(a, request('pvc-a2', 'vol-a'));
    await deleteVolume(a, volumeId);
    expect(await volumesOn('vol-a')).not.toContain(`vol-a:vm-${CSI_CONTROLLER_VMID}-pvc-a2`);
    await deleteVolume(a, volumeId);
  });
});

describe("tenant-a's token and everything of tenant-b's", () => {
  let volumeB: string;
  beforeAll(async () => {
    volumeB = (await createVolume(client['tenant-b'], request('pvc-b1', 'vol-b'))).volumeId;
  });

  it("is refused creating a volume on tenant-b's storage (a StorageClass naming a storage the tenant was not granted), which tenant-b's token may", async () => {
    expect(await refused(createVolume(client['tenant-a'], request('pvc-a3', 'vol-b')))).toBe(403);
    expect(await refused(createVolume(client['tenant-b'], request('pvc-b3', 'vol-b')))).toBe('not refused');
  });

  it('leaves a volume on the shared VM disk storage that it can neither see, attach nor delete (a StorageClass naming storage.disks)', async () => {
    // The token allocates the cloned machines' disks there (Datastore.AllocateSpace), which is all creating needs (Content create) …
    // … but the volume belongs to no VM of the tenant: the content list shows it only to whom check_volume_access allows it
    // (Datastore.Allocate, or Audit and the owner VM's VM.Config.Disk), so the plugin's CreateVolume fails after creating it.
    expect(await refused(createVolume(client['tenant-a'], request('pvc-a4', 'ceph-vm')))).toBe('Internal');
    const orphan = `ceph-vm:vm-${CSI_CONTROLLER_VMID}-pvc-a4`;
    expect(await volumesOn('ceph-vm')).toContain(orphan);
    const a = client['tenant-a'];
    expect((await a.call('GET', `/nodes/${NODES[0]}/storage/ceph-vm/content/${orphan}`)).status).toBe(403);
    expect((await a.call('POST', `/nodes/${NODES[0]}/qemu/101/config`, { scsi7: orphan })).status).toBe(403);
    expect((await a.call('DELETE', `/nodes/${NODES[0]}/storage/ceph-vm/content/${orphan}`)).status).toBe(403);
  });

  it("is refused attaching tenant-b's volume to its own VM, and reading or deleting it; tenant-b's token may", async () => {
    expect(await refused(publishVolume(client['tenant-a'], volumeB, 101))).toBe(403);
    expect(await refused(deleteVolume(client['tenant-a'], volumeB))).toBe(403);
    const path = `/nodes/${NODES[0]}/storage/vol-b/content/vol-b:vm-${CSI_CONTROLLER_VMID}-pvc-b1`;
    expect((await client['tenant-a'].call('GET', path)).status).toBe(403);
    expect((await client['tenant-b'].call('GET', path)).status).toBe(200);
    expect((await publishVolume(client['tenant-b'], volumeB, 201)).lun).toBe(1);
    await unpublishVolume(client['tenant-b'], volumeB, 201);
  });

  it("is refused attaching its own volume to tenant-b's VM (a Node whose providerID names tenant-b's VM)", async () => {
    const { volumeId } = await createVolume(client['tenant-a'], request('pvc-a5', 'vol-a'));
    // The plugin finds the VM through /cluster/resources, where tenant-b's VM is not listed to tenant-a …
    expect(await refused(publishVolume(client['tenant-a'], volumeId, 201))).toBe('Internal');
    // … and the config call itself is refused (VM.Config.Disk on /vms/201).
    const direct = await client['tenant-a'].call('POST', `/nodes/${NODES[0]}/qemu/201/config`, { scsi5: `vol-a:vm-${CSI_CONTROLLER_VMID}-pvc-a5` });
    expect(direct.status).toBe(403);
    expect(Object.values(await configOf(201)).some((v) => v.includes('pvc-a5'))).toBe(false);
  });
});

describe('mutations of the rendered credentials and grants, caught', () => {
  it("catches tenant-a's controller given tenant-b's token: tenant-a's volumes are refused", async () => {
    // The mistake: the controller of tenant-a mounting tenant-b's credentials Secret.
    expect(await refused(createVolume(client['tenant-b'], request('pvc-a6', 'vol-a')))).toBe(403);
  });

  it('catches the volumes ACL put on the whole datacenter with propagate: tenant-b then deletes tenant-a volumes', async () => {
    const { volumeId } = await createVolume(client['tenant-a'], request('pvc-a7', 'vol-a'));
    const mutated = grantsOf('tenant-b').map((g) => (g.roleId === VOLUMES_ROLE.id ? { ...g, path: '/', propagate: true } : g));
    const wide = await tokenWith('tenant-b-mutated', mutated);
    // With the rendered grants tenant-b is refused; with the mutated ones the refusal is gone — so the refusals above are the grants at work.
    expect(await refused(deleteVolume(client['tenant-b'], volumeId))).toBe(403);
    expect(await refused(deleteVolume(wide, volumeId))).toBe('not refused');
    expect(await volumesOn('vol-a')).not.toContain(`vol-a:vm-${CSI_CONTROLLER_VMID}-pvc-a7`);
  });
});
