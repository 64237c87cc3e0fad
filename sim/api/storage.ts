/**
 * Storages and their content: `/storage`, `/nodes/{node}/storage/...`.
 */
import type { SimStorageSpec, SimulatedInstance, Volume } from '../instance';
import { bit, flag, int, list, nonEmpty, required, type AddRoute } from './router';
import { createHash } from 'node:crypto';
import { PveError, badParams, fail } from '../errors';

/** The content type of a volume id, as PVE::Storage::parse_volname names it (`iso/…` is iso, `vm-…` images). */
export function volumeType(volid: string): string {
  const name = volid.slice(volid.indexOf(':') + 1);
  const m = /^(iso|vztmpl|import|snippets|backup)\//.exec(name);
  if (m) return m[1];
  return 'images';
}

/** The VM that owns a volume by its name (`vm-100-disk-0`, `base-100-disk-0`), as parse_volname reads it. */
function ownerOf(volid: string): number | undefined {
  const m = /(?:^|[:/])(?:vm|base)-(\d+)-/.exec(volid);
  return m ? Number(m[1]) : undefined;
}

/**
 * pve-storage PVE::Storage::check_volume_access (src/PVE/Storage.pm, pve-storage 9.1.7, the rule
 * since PVE 7): who may use a volume id of a storage — attach it to a VM (qemu-server
 * PVE::API2::Qemu $check_storage_access), read it or see it in a listing (PVE::API2::Storage::
 * Content index and info). In order: Datastore.Allocate on `/storage/<sid>` allows everything;
 * an `iso`, `vztmpl` or `import` volume needs Datastore.AllocateSpace or Datastore.Audit on the
 * storage (nothing finer: there is no ACL path below `/storage/<sid>`, so whoever may read a
 * storage reads every ISO on it); the owner VM's own disks are allowed to it; a backup needs
 * Datastore.AllocateSpace and VM.Backup on its VM; another VM's disk needs Datastore.Audit and
 * VM.Config.Disk on that VM; anything else is refused. Throws PVE's 403 (or its 500 die).
 */
export function checkVolumeAccess(inst: SimulatedInstance, authid: string, volid: string, vmid?: number): void {
  if (authid === 'root@pam') return;
  if (!volid.includes(':')) fail('Only root can pass arbitrary filesystem paths.');
  const sid = volid.split(':')[0];
  const path = `/storage/${sid}`;
  if (inst.can(authid, path, ['Datastore.Allocate'])) return;
  const vtype = volumeType(volid);
  const owner = ownerOf(volid);
  if (vtype === 'iso' || vtype === 'vztmpl' || vtype === 'import') {
    inst.requireAny(authid, path, ['Datastore.AllocateSpace', 'Datastore.Audit']);
  } else if (owner !== undefined && vmid !== undefined && owner === vmid) {
    // the owner VM: allowed
  } else if (vtype === 'backup' && owner !== undefined) {
    inst.require(authid, path, ['Datastore.AllocateSpace']);
    inst.require(authid, `/vms/${owner}`, ['VM.Backup']);
  } else if (vtype === 'images' && owner !== undefined) {
    inst.require(authid, path, ['Datastore.Audit']);
    inst.require(authid, `/vms/${owner}`, ['VM.Config.Disk']);
  } else {
    fail(`missing privileges to access ${volid}`);
  }
}

function canUseVolume(inst: SimulatedInstance, authid: string, volid: string): boolean {
  try {
    checkVolumeAccess(inst, authid, volid);
    return true;
  } catch (e) {
    if (e instanceof PveError) return false;
    throw e;
  }
}

/** The storage config as PVE's `GET /storage/{storage}` prints it (PVE::API2::Storage::Config $api_storage_config). */
function storageConfig(s: SimStorageSpec) {
  return nonEmpty({
    storage: s.id,
    type: s.type,
    content: s.content.join(','),
    shared: s.shared ? 1 : undefined,
    nodes: s.nodes?.join(','),
    ...(s.type === 'dir' ? { path: s.path ?? '/var/lib/vz' } : { vgname: 'pve', thinpool: 'data' }),
    digest: createHash('sha1').update(JSON.stringify(s)).digest('hex'),
  });
}

/** Content types a directory storage takes (pve-storage DirPlugin plugindata content). */
const DIR_CONTENT = ['backup', 'images', 'import', 'iso', 'rootdir', 'snippets', 'vztmpl'];
/** pve-storage-id (PVE::Storage::Plugin): a letter first, then letters, digits, - _ . ; a letter or digit last. */
const STORAGE_ID = /^[a-z][a-z0-9\-_.]*[a-z0-9]$/i;

function canSeeStorage(inst: SimulatedInstance, authid: string, id: string): boolean {
  return inst.can(authid, `/storage/${id}`, ['Datastore.Audit']) || inst.can(authid, `/storage/${id}`, ['Datastore.AllocateSpace']);
}

function storageStatus(inst: SimulatedInstance, node: string, id: string) {
  const s = inst.storages.get(id)!;
  const total = inst.capacity(id);
  const used = inst.used(node, id);
  return {
    storage: id,
    type: s.type,
    content: s.content.join(','),
    shared: bit(!!s.shared),
    active: 1,
    enabled: 1,
    total,
    used,
    avail: total - used,
    used_fraction: total ? used / total : 0,
  };
}

function volumeJson(v: Volume) {
  return nonEmpty({ volid: v.volid, content: v.content, format: v.format, size: v.size, used: v.size, ctime: v.ctime, vmid: v.vmid });
}

/** Where PVE keeps a volume: a directory storage's subdirectories, or an LVM volume. */
export function volumePath(type: string, volid: string, base = '/var/lib/vz'): string {
  const name = volid.slice(volid.indexOf(':') + 1);
  if (type !== 'dir') return `/dev/pve/${name}`;
  const m = /^(iso|vztmpl|import|snippets)\/(.+)$/.exec(name);
  if (m) return `${base}/${{ iso: 'template/iso', vztmpl: 'template/cache', import: 'import', snippets: 'snippets' }[m[1]]}/${m[2]}`;
  return `${base}/images/${name}`;
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

  // pve-storage PVE::API2::Storage::Config read: perm /storage/{storage} Datastore.Allocate.
  route('GET', '/storage/{storage}', ({ inst, authid, at }) => {
    inst.require(authid, `/storage/${at.storage}`, ['Datastore.Allocate']);
    const s = inst.storages.get(at.storage);
    if (!s) fail(`storage '${at.storage}' does not exist`);
    return storageConfig(s);
  });

  // pve-storage PVE::API2::Storage::Config create: perm /storage Datastore.Allocate. Directory
  // storages only (what pvekaas creates: a tenant's cloud-init storage); `storage ID already defined`.
  route('POST', '/storage', ({ inst, authid, params }) => {
    inst.require(authid, '/storage', ['Datastore.Allocate']);
    const id = required(params, 'storage');
    const type = required(params, 'type');
    if (!STORAGE_ID.test(id)) badParams({ storage: `invalid format - storage ID '${id}' contains illegal characters` });
    if (type !== 'dir') badParams({ type: `the simulator creates directory storages only (got '${type}')` });
    const path = required(params, 'path');
    if (!path.startsWith('/')) badParams({ path: `invalid format - value does not look like a valid absolute path` });
    const content = list(params.content);
    for (const c of content) if (!DIR_CONTENT.includes(c)) badParams({ content: `invalid format - invalid content type '${c}'` });
    const nodes = params.nodes ? list(params.nodes) : undefined;
    for (const n of nodes ?? []) if (!inst.nodes.has(n)) badParams({ nodes: `invalid format - no such cluster node '${n}'` });
    if (inst.storages.has(id)) fail(`create storage failed: storage ID '${id}' already defined`);
    inst.storages.set(id, {
      id,
      type: 'dir',
      content: (content.length ? content : ['images', 'rootdir']).sort(),
      capacityGiB: 100,
      shared: flag(params.shared),
      path,
      nodes,
    });
    return { storage: id, type };
  });

  // pve-storage PVE::API2::Storage::Config update: perm /storage Datastore.Allocate; type and path are fixed.
  route('PUT', '/storage/{storage}', ({ inst, authid, at, params }) => {
    inst.require(authid, '/storage', ['Datastore.Allocate']);
    const s = inst.storages.get(at.storage);
    if (!s) fail(`update storage failed: storage '${at.storage}' does not exist`);
    for (const fixed of ['type', 'path']) if (params[fixed] !== undefined) badParams({ [fixed]: `can't change value of fixed parameter '${fixed}'` });
    if (params.content !== undefined) {
      const content = list(params.content);
      for (const c of content) if (!DIR_CONTENT.includes(c)) badParams({ content: `invalid format - invalid content type '${c}'` });
      s.content = content.sort();
    }
    if (params.nodes !== undefined) s.nodes = params.nodes ? list(params.nodes) : undefined;
    if (params.shared !== undefined) s.shared = flag(params.shared);
    for (const key of list(params.delete)) if (key === 'nodes') s.nodes = undefined;
    return { storage: s.id, type: s.type };
  });

  // pve-storage PVE::API2::Storage::Config delete: perm /storage Datastore.Allocate. The files stay
  // on disk (the simulator forgets them with the storage, as nothing can reach them any more).
  route('DELETE', '/storage/{storage}', ({ inst, authid, at }) => {
    inst.require(authid, '/storage', ['Datastore.Allocate']);
    if (!inst.storages.has(at.storage)) fail(`delete storage failed: storage '${at.storage}' does not exist`);
    inst.storages.delete(at.storage);
    for (const v of inst.volumes.filter((x) => x.storage === at.storage)) inst.removeVolume(v);
    return null;
  });

  route('GET', '/nodes/{node}/storage', ({ inst, authid, at, params }) => {
    inst.node(at.node);
    return (
      [...inst.storages.values()]
        // PVE::API2::Storage::Status index: only storages enabled on this node (`nodes`), and seen.
        .filter(
          (s) =>
            (!s.nodes || s.nodes.includes(at.node)) &&
            canSeeStorage(inst, authid, s.id) &&
            (!params.content || list(params.content).every((c) => s.content.includes(c))),
        )
        .sort((a, b) => a.id.localeCompare(b.id))
        .map((s) => storageStatus(inst, at.node, s.id))
    );
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
    // PVE::API2::Storage::Content index: each volume only if check_volume_access allows it.
    return inst
      .volumesOn(at.node, at.storage)
      .filter((v) => (!params.content || v.content === params.content) && (vmid === undefined || v.vmid === vmid) && canUseVolume(inst, authid, v.volid))
      .sort((a, b) => a.volid.localeCompare(b.volid))
      .map(volumeJson);
  });

  // Allocate a disk image (pve-storage PVE::API2::Storage::Content create, src/PVE/API2/Storage/
  // Content.pm): the permission is Datastore.AllocateSpace on `/storage/{storage}` alone — the owner
  // VM (`vmid`) is only the name's owner, checked by nobody; `size` is KiB with an optional M or G
  // suffix; the format follows a .raw/.qcow2/.vmdk name. PVE::Storage::vdisk_alloc then refuses a
  // storage without `images` content and each plugin's alloc_image a name not `vm-<vmid>-*`
  // (LvmThinPlugin, ZFSPoolPlugin, RBDPlugin: "illegal name … should be 'vm-$vmid-*'"), and an
  // existing one. The Proxmox CSI plugin creates every volume this way (go-proxmox v0.2.0
  // virtual_machine_disk.go CreateVMDisk). Returns the volume id.
  route('POST', '/nodes/{node}/storage/{storage}/content', ({ inst, authid, at, params }) => {
    const spec = inst.storage(at.node, at.storage);
    inst.require(authid, `/storage/${at.storage}`, ['Datastore.AllocateSpace']);
    const name = required(params, 'filename');
    const vmid = int(params, 'vmid', { min: 100, max: 999999999, required: true }) as number;
    const sizeText = required(params, 'size');
    const m = /^(\d+)([MG]?)$/.exec(sizeText);
    if (!m) badParams({ size: `unable to parse size '${sizeText}'` });
    const kib = Number(m[1]) * (m[2] === 'G' ? 1024 * 1024 : m[2] === 'M' ? 1024 : 1);
    if (!spec.content.includes('images')) fail(`storage '${at.storage}' does not support vm images`);
    if (!new RegExp(`^vm-${vmid}-`).test(name)) fail(`illegal name '${name}' - should be 'vm-${vmid}-*'`);
    const volid = spec.type === 'dir' ? `${at.storage}:${vmid}/${name}` : `${at.storage}:${name}`;
    if (inst.findVolume(at.node, volid)) fail(`volume '${volid}' already exists`);
    inst.volumes.push({
      volid,
      storage: at.storage,
      node: spec.shared ? undefined : at.node,
      content: 'images',
      format: /\.(raw|qcow2|vmdk)$/.exec(name)?.[1] ?? (spec.type === 'dir' ? 'qcow2' : 'raw'),
      size: kib * 1024,
      vmid,
      ctime: Math.floor(Date.now() / 1000),
    });
    return volid;
  });

  // `{volume+}`: a volume id holds a slash (`local:iso/user-data-100.iso`), and go-proxmox sends it unescaped.
  route('GET', '/nodes/{node}/storage/{storage}/content/{volume+}', ({ inst, authid, at }) => {
    const s = inst.storage(at.node, at.storage);
    const volid = volidOf(at.storage, at.volume);
    // PVE::API2::Storage::Content info: check_volume_access, nothing else.
    checkVolumeAccess(inst, authid, volid);
    const v = inst.findVolume(at.node, volid);
    if (!v) fail(`volume '${volid}' does not exist`);
    return { path: volumePath(s.type, volid, s.path), format: v.format, size: v.size, used: v.size };
  });

  route('DELETE', '/nodes/{node}/storage/{storage}/content/{volume+}', ({ inst, authid, at }) => {
    inst.storage(at.node, at.storage);
    const volid = volidOf(at.storage, at.volume);
    // PVE::API2::Storage::Content delete: a backup of a VM takes Datastore.AllocateSpace and
    // VM.Backup; every other volume Datastore.Allocate on the storage — checked before the volume
    // is looked up, so a token without it learns nothing about the volume.
    if (volumeType(volid) === 'backup' && ownerOf(volid) !== undefined) {
      inst.require(authid, `/storage/${at.storage}`, ['Datastore.AllocateSpace']);
      inst.require(authid, `/vms/${ownerOf(volid)}`, ['VM.Backup']);
    } else {
      inst.require(authid, `/storage/${at.storage}`, ['Datastore.Allocate']);
    }
    const v = inst.findVolume(at.node, volid);
    if (!v) fail(`volume '${volid}' does not exist`);
    if (v.vmid !== undefined && inst.vms.has(v.vmid)) {
      const owner = inst.vms.get(v.vmid)!;
      if ([...owner.config.values()].some((value) => value.split(',')[0] === volid))
        fail(`unable to delete '${volid}' - volume is still in use (referenced by VM ${v.vmid})`);
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
    if (algorithm && !['md5', 'sha1', 'sha224', 'sha256', 'sha384', 'sha512'].includes(algorithm))
      badParams({ 'checksum-algorithm': `value '${algorithm}' does not have a value in the enumeration 'md5, sha1, sha224, sha256, sha384, sha512'` });
    const volid = `${at.storage}:${content}/${filename}`;
    const data = Buffer.from(upload.data);
    const dest = volumePath(storage.type, volid, storage.path);
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
      inst.volumes.push({
        volid,
        storage: at.storage,
        node: storage.shared ? undefined : at.node,
        content,
        format: content === 'iso' ? 'iso' : filename.split('.').pop()!.toLowerCase(),
        size: data.length,
        ctime: Math.floor(Date.now() / 1000),
        data,
      });
      return [
        `starting file import from: /var/tmp/pveupload-${createHash('md5').update(volid).digest('hex')}`,
        `target node: ${at.node}`,
        `target file: ${dest}`,
        `file size is: ${data.length}`,
        `command: cp -- /var/tmp/pveupload-* ${dest}`,
        'finished file import successfully',
      ];
    });
  });
}
