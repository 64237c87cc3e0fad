/**
 * Storages and their content: `/storage`, `/nodes/{node}/storage/...`.
 */
import type { SimulatedInstance, Volume } from '../instance';
import { bit, int, list, nonEmpty, type AddRoute } from './router';
import { fail } from '../errors';

function canSeeStorage(inst: SimulatedInstance, authid: string, id: string): boolean {
  return inst.can(authid, `/storage/${id}`, ['Datastore.Audit']) || inst.can(authid, `/storage/${id}`, ['Datastore.AllocateSpace']);
}

function storageStatus(inst: SimulatedInstance, node: string, id: string) {
  const s = inst.storages.get(id)!;
  const total = inst.capacity(id);
  const used = inst.used(node, id);
  return { storage: id, type: s.type, content: s.content.join(','), shared: bit(!!s.shared), active: 1, enabled: 1, total, used, avail: total - used, used_fraction: total ? used / total : 0 };
}

function volumeJson(v: Volume) {
  return nonEmpty({ volid: v.volid, content: v.content, format: v.format, size: v.size, used: v.size, ctime: v.ctime, vmid: v.vmid });
}

function volidOf(storage: string, volume: string): string {
  return volume.includes(':') ? volume : `${storage}:${volume}`;
}

export function registerStorage(route: AddRoute): void {
  route('GET', '/storage', ({ inst, authid }) =>
    [...inst.storages.values()]
      .filter((s) => canSeeStorage(inst, authid, s.id))
      .sort((a, b) => a.id.localeCompare(b.id))
      .map((s) => ({ storage: s.id, type: s.type, content: s.content.join(','), shared: bit(!!s.shared) })),
  );

  route('GET', '/storage/{storage}', ({ inst, authid, at }) => {
    const s = inst.storages.get(at.storage);
    if (!s) fail(`storage '${at.storage}' does not exist`);
    inst.require(authid, `/storage/${at.storage}`, ['Datastore.Allocate']);
    return { storage: s.id, type: s.type, content: s.content.join(','), shared: bit(!!s.shared), ...(s.type === 'dir' ? { path: '/var/lib/vz' } : { vgname: 'pve', thinpool: 'data' }) };
  });

  route('GET', '/nodes/{node}/storage', ({ inst, authid, at, params }) => {
    inst.node(at.node);
    return [...inst.storages.values()]
      .filter((s) => canSeeStorage(inst, authid, s.id) && (!params.content || list(params.content).every((c) => s.content.includes(c))))
      .sort((a, b) => a.id.localeCompare(b.id))
      .map((s) => storageStatus(inst, at.node, s.id));
  });

  route('GET', '/nodes/{node}/storage/{storage}/status', ({ inst, authid, at }) => {
    inst.storage(at.node, at.storage);
    inst.requireAny(authid, `/storage/${at.storage}`, ['Datastore.Audit', 'Datastore.AllocateSpace']);
    return storageStatus(inst, at.node, at.storage);
  });

  route('GET', '/nodes/{node}/storage/{storage}/content', ({ inst, authid, at, params }) => {
    inst.storage(at.node, at.storage);
    inst.requireAny(authid, `/storage/${at.storage}`, ['Datastore.Audit', 'Datastore.AllocateSpace']);
    const vmid = int(params, 'vmid');
    return inst
      .volumesOn(at.node, at.storage)
      .filter((v) => (!params.content || v.content === params.content) && (vmid === undefined || v.vmid === vmid))
      .sort((a, b) => a.volid.localeCompare(b.volid))
      .map(volumeJson);
  });

  route('GET', '/nodes/{node}/storage/{storage}/content/{volume}', ({ inst, authid, at }) => {
    const s = inst.storage(at.node, at.storage);
    inst.requireAny(authid, `/storage/${at.storage}`, ['Datastore.Audit', 'Datastore.AllocateSpace']);
    const volid = volidOf(at.storage, at.volume);
    const v = inst.findVolume(at.node, volid);
    if (!v) fail(`volume '${volid}' does not exist`);
    const path = s.type === 'dir' ? `/var/lib/vz/${volid.split(':')[1].replace(/^(\d+)\//, 'images/$1/')}` : `/dev/pve/${volid.split(':')[1]}`;
    return { path, format: v.format, size: v.size, used: v.size };
  });

  route('DELETE', '/nodes/{node}/storage/{storage}/content/{volume}', ({ inst, authid, at }) => {
    inst.storage(at.node, at.storage);
    const volid = volidOf(at.storage, at.volume);
    const v = inst.findVolume(at.node, volid);
    if (!v) fail(`volume '${volid}' does not exist`);
    if (v.vmid !== undefined && inst.vms.has(v.vmid)) {
      inst.require(authid, `/vms/${v.vmid}`, ['VM.Config.Disk']);
      const owner = inst.vms.get(v.vmid)!;
      if ([...owner.config.values()].some((value) => value.split(',')[0] === volid)) fail(`unable to delete '${volid}' - volume is still in use (referenced by VM ${v.vmid})`);
    } else {
      inst.require(authid, `/storage/${at.storage}`, ['Datastore.Allocate']);
    }
    inst.removeVolume(v);
    return inst.startTask(at.node, 'imgdel', volid, authid, () => [`removed volume '${volid}'`]);
  });
}
