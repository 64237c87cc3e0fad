/**
 * The Proxmox CSI plugin's controller, played (issue 38, docs/storage.md): the Proxmox calls of
 * its CreateVolume, ControllerPublishVolume, ControllerUnpublishVolume and DeleteVolume, in its
 * order and with its names, made with the token the tenant's controller holds. The plugin's Go
 * module (github.com/sergelogvinov/proxmox-csi-plugin v0.19.1) and its client
 * (github.com/sergelogvinov/go-proxmox v0.2.0) are not served by the module proxy here, so this
 * follows their source at those tags, each rule cited; what the plugin does that volumes of one
 * Proxmox node on block storage do not need (replication, snapshots, shared storages,
 * VolumeAttributesClasses, resizing on publish) is not played and refused rather than guessed.
 *
 * Every refusal comes from the Proxmox simulator's permission checks (pve-storage and
 * qemu-server's, sim/api/storage.ts and sim/api/qemu.ts): this file decides nothing about who may
 * do what.
 */
import type { PveClient } from '../sim/client';

/** pkg/csi/driver.go: DefaultVolumeSizeBytes (10 GiB) and MinChunkSizeBytes (512 MiB). */
export const DEFAULT_VOLUME_BYTES = 10 * 1024 ** 3;
export const MIN_CHUNK_BYTES = 512 * 1024 ** 2;
/** pkg/csi/utils.go attachVolume: LUNs 1 to 29 of `scsi<lun>` (deviceNamePrefix "scsi"). */
const FIRST_LUN = 1;
const LAST_LUN = 29;

export class CsiError extends Error {
  constructor(
    readonly code: 'InvalidArgument' | 'NotFound' | 'Internal',
    message: string,
    /** The Proxmox HTTP status behind it, when a call was refused. */
    readonly pveStatus?: number,
  ) {
    super(`rpc error: code = ${code} desc = ${message}`);
  }
}

/** A volume id as the plugin writes it (pkg/utils/volume/volume.go VolumeID: `region/zone/storage/disk`). */
export interface VolumeId {
  region: string;
  zone: string;
  storage: string;
  disk: string;
}

export function formatVolumeId(v: VolumeId): string {
  return `${v.region}/${v.zone}/${v.storage}/${v.disk}`;
}

/** volume.go parseVolumeID: exactly four parts split on '/', at most 4 (the disk may hold none here: block storage). */
export function parseVolumeId(id: string): VolumeId {
  const parts = id.split('/');
  if (parts.length < 4) throw new CsiError('InvalidArgument', 'VolumeID must be in the format of region/zone/storageName/diskName');
  const [region, zone, storage, ...disk] = parts;
  return { region, zone, storage, disk: disk.join('/') };
}

/** helper.go RoundUpSizeBytes: up to a whole number of chunks. */
export function roundUpBytes(bytes: number, chunk = MIN_CHUNK_BYTES): number {
  return Math.ceil(bytes / chunk) * chunk;
}

async function must<T>(what: string, p: Promise<{ status: number; reason: string; data: T }>): Promise<T> {
  const res = await p;
  if (res.status !== 200) throw new CsiError('Internal', `${what}: ${res.status} ${res.reason}`, res.status);
  return res.data;
}

async function task(client: PveClient, what: string, upid: unknown): Promise<void> {
  if (typeof upid !== 'string' || !upid.startsWith('UPID:')) return;
  const exit = await client.waitForTask(upid);
  if (exit !== 'OK') throw new CsiError('Internal', `${what}: ${exit}`);
}

export interface CreateVolumeRequest {
  /** The PV name csi-provisioner passes as the request name (`pvc-<uid>`). */
  name: string;
  /** StorageClass parameter `storage` (parameters.go StorageParameters.StorageID). */
  storage: string | undefined;
  requiredBytes?: number;
  /** From the accessibility requirements: region (the cluster) and zone (the Proxmox node). */
  region: string;
  zone: string;
  /** The config's features.controllerVmID. */
  controllerVmId: number;
}

/**
 * controller.go CreateVolume: the storage parameter must be given; the size rounded up; the
 * volume `vm-<controllerVmID>-<pvc>` on the zone's node (volume.NewVolume, block storage: no
 * format); if the storage does not list it yet (utils.go getVolumeSize → getStorageContent: the
 * storage's status, then its content list) it is created (createVolume → go-proxmox
 * CreateVMDisk: `POST /nodes/{node}/storage/{storage}/content` with vmid, filename and the size
 * in KiB). Returns the volume id and its capacity.
 */
export async function createVolume(client: PveClient, req: CreateVolumeRequest): Promise<{ volumeId: string; capacityBytes: number }> {
  if (!req.name) throw new CsiError('InvalidArgument', 'VolumeName must be provided');
  if (!req.storage) throw new CsiError('InvalidArgument', 'parameter storage must be provided');
  if (!req.region) throw new CsiError('Internal', 'cannot find best region');
  const bytes = req.requiredBytes ? roundUpBytes(req.requiredBytes) : DEFAULT_VOLUME_BYTES;
  const vol: VolumeId = { region: req.region, zone: req.zone, storage: req.storage, disk: `vm-${req.controllerVmId}-${req.name}` };
  const size = await volumeSize(client, vol);
  if (size === undefined) {
    await must(
      'failed to create vm disk',
      client.call<string>('POST', `/nodes/${vol.zone}/storage/${vol.storage}/content`, {
        vmid: req.controllerVmId,
        filename: vol.disk,
        size: String(Math.floor(bytes / 1024)),
      }),
    );
    if ((await volumeSize(client, vol)) === undefined) throw new CsiError('Internal', `failed to get volume size after creation: ${formatVolumeId(vol)}`);
  }
  return { volumeId: formatVolumeId(vol), capacityBytes: bytes };
}

/** utils.go getVolumeSize: the storage's status (refused: the call fails), then the volume in its content list. */
async function volumeSize(client: PveClient, vol: VolumeId): Promise<number | undefined> {
  await must('failed to check volume', client.call('GET', `/nodes/${vol.zone}/storage/${vol.storage}/status`));
  const content = await must(
    'failed to check volume',
    client.call<{ volid: string; size: number }[]>('GET', `/nodes/${vol.zone}/storage/${vol.storage}/content`),
  );
  return content.find((c) => c.volid === `${vol.storage}:${vol.disk}`)?.size;
}

/** The VM's node, as go-proxmox finds a VM by id: `/cluster/resources` of type vm. */
async function vmNode(client: PveClient, vmid: number): Promise<string> {
  const resources = await must(
    'failed to get vm config',
    client.call<{ vmid?: number; node: string; type: string }[]>('GET', '/cluster/resources', { type: 'vm' }),
  );
  const vm = resources.find((r) => r.type === 'qemu' && r.vmid === vmid);
  if (!vm) throw new CsiError('Internal', `failed to get vm config: vm '${vmid}' not found`);
  return vm.node;
}

/** utils.go isVolumeAttached: the scsi drive whose value names the disk. */
function attachedLun(config: Record<string, unknown>, disk: string): number | undefined {
  for (const [key, value] of Object.entries(config)) {
    const m = /^scsi(\d+)$/.exec(key);
    if (m && typeof value === 'string' && value.includes(disk)) return Number(m[1]);
  }
  return undefined;
}

/**
 * controller.go ControllerPublishVolume → utils.go attachVolume: the VM's config; if the disk is
 * attached already its LUN; otherwise the first free `scsi<lun>` (1–29) set to
 * `<storage>:<disk>,wwn=0x<hex of "PVC-ID<lun>">` (`POST …/config`, a task), waited for. The VM
 * id comes from the Node (its providerID, or its SystemUUID with provider capmox): the caller's.
 */
export async function publishVolume(client: PveClient, volumeId: string, vmid: number): Promise<{ devicePath: string; lun: number }> {
  const vol = parseVolumeId(volumeId);
  const node = await vmNode(client, vmid);
  const config = await must('failed to get vm config', client.call<Record<string, unknown>>('GET', `/nodes/${node}/qemu/${vmid}/config`));
  const wwn = (lun: number) => Buffer.from(`PVC-ID${String(lun).padStart(2, '0')}`).toString('hex');
  const existing = attachedLun(config, vol.disk);
  if (existing !== undefined) return { devicePath: `/dev/disk/by-id/wwn-0x${wwn(existing)}`, lun: existing };
  for (let lun = FIRST_LUN; lun < LAST_LUN + 1; lun++) {
    if (config[`scsi${lun}`] !== undefined) continue;
    const upid = await must(
      'unable to attach disk',
      client.call<string>('POST', `/nodes/${node}/qemu/${vmid}/config`, { [`scsi${lun}`]: `${vol.storage}:${vol.disk},wwn=0x${wwn(lun)}` }),
    );
    await task(client, 'unable to attach virtual machine disk', upid);
    return { devicePath: `/dev/disk/by-id/wwn-0x${wwn(lun)}`, lun };
  }
  throw new CsiError('Internal', 'no free lun found');
}

/**
 * ControllerUnpublishVolume → utils.go detachVolume: the VM's config; the LUN that names the disk
 * unlinked (go-proxmox UnlinkDisk, `PUT …/unlink` idlist=scsi<lun>, no force: the volume stays,
 * as an `unusedN` entry). A VM that is gone has nothing attached.
 */
export async function unpublishVolume(client: PveClient, volumeId: string, vmid: number): Promise<void> {
  const vol = parseVolumeId(volumeId);
  let node: string;
  try {
    node = await vmNode(client, vmid);
  } catch (e) {
    if (e instanceof CsiError && /not found/.test(e.message)) return;
    throw e;
  }
  const config = await must('failed to get vm config', client.call<Record<string, unknown>>('GET', `/nodes/${node}/qemu/${vmid}/config`));
  const lun = attachedLun(config, vol.disk);
  if (lun === undefined) return;
  await must('failed to unlink disk', client.call('PUT', `/nodes/${node}/qemu/${vmid}/unlink`, { idlist: `scsi${lun}` }));
}

/**
 * controller.go DeleteVolume: a volume the storage does not list is gone already (checkVolume:
 * NotFound answers success); otherwise go-proxmox DeleteVMDisk
 * (`DELETE /nodes/{node}/storage/{storage}/content/{disk}`, a task).
 */
export async function deleteVolume(client: PveClient, volumeId: string): Promise<void> {
  const vol = parseVolumeId(volumeId);
  if ((await volumeSize(client, vol)) === undefined) return;
  const upid = await must('failed to delete volume', client.call('DELETE', `/nodes/${vol.zone}/storage/${vol.storage}/content/${vol.disk}`));
  await task(client, 'unable to delete virtual machine disk', upid);
}
