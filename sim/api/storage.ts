/**
 * Storages and their content: `/storage`, `/nodes/{node}/storage/...`.
 */
import type { SimulatedInstance, Volume } from '../instance';
import { bit, int, list, nonEmpty, required, type AddRoute } from './router';
import { createHash } from 'node:crypto';
import { badParams, fail } from '../errors';

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

/** Where PVE keeps a volume: a directory storage's subdirectories, or an LVM volume. */
export function volumePath(type: string, volid: string): string {
  const name = volid.slice(volid.indexOf(':') + 1);
  if (type !== 'dir') return `/dev/pve/${name}`;
  const m = /^(iso|vztmpl|import|snippets)\/(.+)$/.exec(name);
  if (m) return `/var/lib/vz/${{ iso: 'template/iso', vztmpl: 'template/cache', import: 'import', snippets: 'snippets' }[m[1]]}/${m[2]}`;
  return `/var/lib/vz/images/${name}`;
}

/** File names PVE accepts per content type (PVE::Storage ISO_EXT_RE_0, VZTMPL_EXT_RE_1, IMPORT_EXT_RE_1). */
export const CONTENT_FILE: Record<string, RegExp> = {
  iso: /\.(iso|img)$/i,
  vztmpl: /\.tar\.(gz|xz|zst)$/i,
  import: /\.(ova|qcow2|raw|vmdk)$/i,
};

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

  // `{volume+}`: a volume id holds a slash (`local:iso/user-data-100.iso`), and go-proxmox sends it unescaped.
  route('GET', '/nodes/{node}/storage/{storage}/content/{volume+}', ({ inst, authid, at }) => {
    const s = inst.storage(at.node, at.storage);
    inst.requireAny(authid, `/storage/${at.storage}`, ['Datastore.Audit', 'Datastore.AllocateSpace']);
    const volid = volidOf(at.storage, at.volume);
    const v = inst.findVolume(at.node, volid);
    if (!v) fail(`volume '${volid}' does not exist`);
    return { path: volumePath(s.type, volid), format: v.format, size: v.size, used: v.size };
  });

  route('DELETE', '/nodes/{node}/storage/{storage}/content/{volume+}', ({ inst, authid, at }) => {
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

  // Upload (pve-manager PVE::API2::Storage::Status upload): multipart/form-data with `content` and
  // the file in the part named `filename`. CAPMOX uploads each machine's bootstrap ISO this way.
  route('POST', '/nodes/{node}/storage/{storage}/upload', ({ inst, authid, at, params, upload }) => {
    const storage = inst.storage(at.node, at.storage);
    const content = required(params, 'content');
    if (!['iso', 'vztmpl', 'import'].includes(content)) badParams({ content: `upload content type '${content}' not allowed` });
    if (!upload) badParams({ filename: 'property is missing and it is not optional' });
    inst.require(authid, `/storage/${at.storage}`, ['Datastore.AllocateTemplate']);
    // PVE::Storage::normalize_content_filename
    const filename = upload.filename.replace(/^.*[\\/]/, '').replace(/[^-_.a-zA-Z0-9]/g, '_');
    if (!CONTENT_FILE[content].test(filename)) badParams({ filename: 'wrong file extension' });
    if (!storage.content.includes(content)) fail(`storage '${at.storage}' does not support '${content}' content`);
    const algorithm = params['checksum-algorithm'];
    const checksum = params.checksum?.toLowerCase();
    if (checksum && !algorithm) badParams({ 'checksum-algorithm': "'checksum-algorithm' is required when 'checksum' is set" });
    if (algorithm && !['md5', 'sha1', 'sha224', 'sha256', 'sha384', 'sha512'].includes(algorithm)) badParams({ 'checksum-algorithm': `value '${algorithm}' does not have a value in the enumeration 'md5, sha1, sha224, sha256, sha384, sha512'` });
    const volid = `${at.storage}:${content}/${filename}`;
    const data = Buffer.from(upload.data);
    const dest = volumePath(storage.type, volid);
    return inst.startTask(at.node, 'imgcopy', '', authid, () => {
      if (checksum && algorithm) {
        const got = createHash(algorithm).update(data).digest('hex');
        if (got !== checksum) throw new Error(`checksum mismatch: got '${got}' != expect '${checksum}'`);
      }
      const existing = inst.findVolume(at.node, volid);
      const free = inst.capacity(at.storage) - inst.used(at.node, at.storage) + (existing?.size ?? 0);
      if (data.length > free) throw new Error(`import failed: cp: error writing '${dest}': No space left on device`);
      // cp overwrites a file of the same name, like PVE's upload.
      if (existing) inst.removeVolume(existing);
      inst.volumes.push({ volid, storage: at.storage, node: storage.shared ? undefined : at.node, content, format: content === 'iso' ? 'iso' : filename.split('.').pop()!.toLowerCase(), size: data.length, ctime: Math.floor(Date.now() / 1000), data });
      return [`starting file import from: /var/tmp/pveupload-${createHash('md5').update(volid).digest('hex')}`, `target node: ${at.node}`, `target file: ${dest}`, `file size is: ${data.length}`, `command: cp -- /var/tmp/pveupload-* ${dest}`, 'finished file import successfully'];
    });
  });
}
