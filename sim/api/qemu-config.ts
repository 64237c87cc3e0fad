/**
 * QEMU VM config: the checks and writes of `POST/PUT /nodes/{node}/qemu/{vmid}/config` and of a new
 * VM's drives, NICs and boot order (qemu-server's update_vm_api, in its order), and who may allocate a VM.
 */
import { PveError, badParams, fail } from '../errors';
import { formatSize, macFor, type SimulatedInstance, type Volume } from '../instance';
import { DRIVE_KEY, NET_KEY, configDigest, get, normalizeNic, normalizeTags, parseProperties, printProperties, privilegeForKey, without } from '../qemu';
import { checkVolumeAccess, volumeType } from './storage';
import { pool } from './pools';
import { flag, list, type Call, type Params } from './router';

export function vmid(at: Record<string, string>): number {
  if (!/^\d+$/.test(at.vmid)) badParams({ vmid: `type check ('integer') failed - got '${at.vmid}'` });
  return Number(at.vmid);
}

/** Checks what a new or changed drive needs and returns the work that allocates it. */
export function planDrive(inst: SimulatedInstance, authid: string, node: string, id: number, key: string, value: string): (allocated: Volume[]) => string {
  const props = parseProperties(value, 'file');
  const file = props.head ?? '';
  const media = get(props, 'media');
  // qemu-server PVE::API2::Qemu $check_storage_access (src/PVE/API2/Qemu.pm), per drive: the
  // physical drive takes Sys.Console on `/`; an existing volume — an ISO in a cdrom above all —
  // PVE::Storage::check_volume_access, and it must be `images` or `iso` content.
  if (file === 'cdrom') inst.require(authid, '/', ['Sys.Console']);
  if (file === 'none' || file === 'cdrom') return () => printProperties(file, without(props, 'size'));
  if (media === 'cdrom' && !/:cloudinit$/.test(file)) {
    checkVolumeAccess(inst, authid, file, id);
    const vtype = volumeType(file);
    if (file.includes(':') && vtype !== 'images' && vtype !== 'iso') badParams({ [key]: "content type needs to be 'images' or 'iso'" });
    return () => printProperties(file, without(props, 'size'));
  }
  const [storage, rest] = file.split(':');
  if (rest === undefined) badParams({ [key]: `invalid volume '${file}'` });
  inst.storage(node, storage);
  inst.require(authid, `/storage/${storage}`, ['Datastore.AllocateSpace']);
  const options = without(props, 'import-from', 'size', 'format', 'file');
  if (rest === 'cloudinit') {
    return (allocated) => {
      const v = inst.allocateDisk(node, storage, id, 4 * 1024 ** 2);
      v.volid = `${storage}:vm-${id}-cloudinit`;
      allocated.push(v);
      return printProperties(v.volid, [...without(props, 'media', 'size', 'format'), ['media', 'cdrom']]);
    };
  }
  const importFrom = get(props, 'import-from');
  if (importFrom) {
    if (!inst.storages.get(storage)!.content.includes('images')) badParams({ storage: `storage '${storage}' does not support vm images` });
    const [srcStorage] = importFrom.split(':');
    inst.storage(node, srcStorage);
    inst.requireAny(authid, `/storage/${srcStorage}`, ['Datastore.Audit', 'Datastore.AllocateSpace']);
    const source = inst.findVolume(node, importFrom);
    if (!source) fail(`${key}: volume '${importFrom}' does not exist on node '${node}'`);
    if (!['import', 'images'].includes(source.content)) fail(`${key}: '${importFrom}' is not an importable disk image`);
    return (allocated) => {
      const v = inst.allocateDisk(node, storage, id, source.virtualSize ?? source.size);
      allocated.push(v);
      return printProperties(v.volid, [...options, ['size', formatSize(v.size)]]);
    };
  }
  if (/^\d+(\.\d+)?$/.test(rest)) {
    // qemu-server's $check_storage_access, before any work starts.
    if (!inst.storages.get(storage)!.content.includes('images')) badParams({ storage: `storage '${storage}' does not support vm images` });
    const gib = Number(rest);
    if (gib <= 0) badParams({ [key]: `invalid size '${rest}' for a new disk` });
    return (allocated) => {
      const v = inst.allocateDisk(node, storage, id, Math.ceil(gib * 1024 ** 3));
      allocated.push(v);
      return printProperties(v.volid, [...options, ['size', formatSize(v.size)]]);
    };
  }
  checkVolumeAccess(inst, authid, file, id);
  const existing = inst.findVolume(node, file);
  if (!existing) fail(`${key}: volume '${file}' does not exist`);
  return () => printProperties(file, [...options, ['size', formatSize(existing.size)]]);
}

/** A config value as PVE writes it to the VM's config file. */
export function storedValue(key: string, value: string): string {
  if (key === 'tags') return normalizeTags(value);
  // The description is kept as `#` comment lines; reading them back drops trailing whitespace.
  if (key === 'description') return value.replace(/\s+$/, '');
  return value;
}

/** PVE never returns the cloud-init password (qemu-server vm_config: `cipassword => '**********'`). */
export function masked(config: Map<string, string>): Map<string, string> {
  if (!config.has('cipassword')) return config;
  return new Map([...config].map(([k, v]) => [k, k === 'cipassword' ? '**********' : v]));
}

/** The VLAN ids of a NIC's `trunks` (pve-guest-common PVE::GuestHelpers get_tags_from_trunk: `a;b-c`). */
export function trunkTags(trunks: string): number[] {
  const tags = new Set<number>();
  for (const part of trunks.split(';')) {
    const [from, to] = part.split('-').map(Number);
    if (to !== undefined && to > from) for (let t = from; t <= to; t++) tags.add(t);
    else tags.add(from);
  }
  return [...tags].sort((a, b) => a - b);
}

/**
 * pve-guest-common PVE::GuestHelpers::check_vnet_access (src/PVE/GuestHelpers.pm), called by
 * qemu-server's check_bridge_access for every NIC of a create, an update (new and removed NICs)
 * and a clone (the source's NICs): SDN.Use on `/sdn/zones/<zone>/<bridge>/<tag>` for a tag, on the
 * same path for every tag of `trunks`, and on `/sdn/zones/<zone>/<bridge>` itself only when there
 * is neither. A plain Linux bridge lives in the `localnetwork` zone. So an ACL on the bridge
 * without propagation allows untagged NICs only, and one on `<bridge>/<tag>` that VLAN only.
 */
export function checkBridge(inst: SimulatedInstance, authid: string, key: string, bridge: string | undefined, tag: string | undefined, trunks?: string): void {
  if (!bridge) return;
  if (!inst.bridges.includes(bridge)) fail(`${key}: bridge '${bridge}' does not exist`);
  if (authid === 'root@pam') return;
  const base = `/sdn/zones/localnetwork/${bridge}`;
  const need = (path: string) => {
    if (!inst.can(authid, path, ['SDN.Use'])) throw new PveError(403, `Permission check failed (${path}, SDN.Use)`);
  };
  if (tag) need(`${base}/${tag}`);
  if (trunks) for (const t of trunkTags(trunks)) need(`${base}/${t}`);
  if (!tag && !trunks) need(base);
}

/**
 * PVE's `boot` format (qemu-server pve-qm-boot): a property string whose default key is the legacy
 * `[acdn]{1,4}`, or `order=<dev>;<dev>…` of drives (not efidisk/tpmstate), NICs, hostpci and usb
 * devices. go-proxmox writes `<current boot>;ide0`, so a template without `boot` yields `;ide0`.
 */
export function checkBoot(params: Params): void {
  const value = params.boot;
  if (value === undefined || value === '') return;
  const problems: string[] = [];
  for (const part of value.split(',')) {
    const eq = part.indexOf('=');
    const key = eq < 0 ? 'legacy' : part.slice(0, eq);
    const v = eq < 0 ? part : part.slice(eq + 1);
    if (key === 'legacy') {
      if (!/^[acdn]{1,4}$/.test(v)) problems.push('boot.legacy: value does not match the regex pattern');
    } else if (key === 'order') {
      for (const dev of v.split(';')) {
        const ok = (DRIVE_KEY.test(dev) && !/^(efidisk|tpmstate)/.test(dev)) || /^(net|hostpci|usb)\d+$/.test(dev);
        if (!ok) problems.push(`boot.order: invalid boot device '${dev}'`);
      }
    } else problems.push(`boot.${key}: property is not defined in schema and the schema does not allow additional properties`);
  }
  if (problems.length) badParams({ boot: `invalid format - format error\n${problems.join('\n')}\n` });
}

export function updateConfig(call: Call, asTask: boolean): unknown {
  const { inst, authid, at, params } = call;
  const vm = inst.vm(at.node, vmid(at));
  checkBoot(params);
  if (vm.lock && !flag(params.skiplock)) fail(`VM is locked (${vm.lock})`);
  if (params.digest && params.digest !== configDigest(vm.config)) fail('detected modified configuration - file changed by other user? Try again.');
  const changes = Object.entries(params).filter(([k]) => !['digest', 'skiplock', 'delete', 'revert', 'background_delay', 'node', 'vmid'].includes(k));
  const deletions = list(params.delete);
  for (const key of [...changes.map(([k]) => k), ...deletions]) inst.require(authid, `/vms/${vm.vmid}`, [privilegeForKey(key)]);
  const drives: [string, (allocated: Volume[]) => string][] = [];
  for (const [key, value] of changes) {
    if (DRIVE_KEY.test(key)) drives.push([key, planDrive(inst, authid, at.node, vm.vmid, key, value)]);
    else if (NET_KEY.test(key)) {
      const previous = vm.config.get(key);
      const previousMac = previous ? /^[a-z0-9]+=([0-9A-Fa-f:]{17})/.exec(previous)?.[1] : undefined;
      const nic = normalizeNic(value, previousMac ?? macFor(vm.vmid, Number(key.slice(3))));
      checkBridge(inst, authid, key, nic.bridge, nic.tag, nic.trunks);
    }
  }
  // qemu-server update_vm: removing a NIC checks the bridge access of the NIC removed.
  for (const key of deletions) {
    const old = NET_KEY.test(key) ? vm.config.get(key) : undefined;
    if (old) {
      const nic = normalizeNic(old, macFor(vm.vmid, Number(key.slice(3))));
      checkBridge(inst, authid, key, nic.bridge, nic.tag, nic.trunks);
    }
  }
  const apply = () => {
    const allocated: Volume[] = [];
    for (const [key, value] of changes) {
      if (DRIVE_KEY.test(key)) continue;
      if (NET_KEY.test(key)) {
        const previous = vm.config.get(key);
        const previousMac = previous ? /^[a-z0-9]+=([0-9A-Fa-f:]{17})/.exec(previous)?.[1] : undefined;
        vm.config.set(key, normalizeNic(value, previousMac ?? macFor(vm.vmid, Number(key.slice(3)))).value);
      } else vm.config.set(key, storedValue(key, value));
    }
    for (const [key, allocate] of drives) {
      const before = vm.config.get(key)?.split(',')[0];
      const value = allocate(allocated);
      const after = value.split(',')[0];
      if (before && before !== after && before.includes(':')) {
        let n = 0;
        while (vm.config.has(`unused${n}`)) n++;
        vm.config.set(`unused${n}`, before);
      }
      vm.config.set(key, value);
    }
    for (const key of deletions) {
      const value = vm.config.get(key);
      if (value && DRIVE_KEY.test(key) && value.includes(':') && !/media=cdrom/.test(value)) {
        let n = 0;
        while (vm.config.has(`unused${n}`)) n++;
        vm.config.set(`unused${n}`, value.split(',')[0]);
      } else if (key.startsWith('unused') && value) {
        const v = inst.findVolume(vm.node, value);
        if (v) inst.removeVolume(v);
      }
      vm.config.delete(key);
    }
  };
  if (!asTask) {
    apply();
    return null;
  }
  return inst.startTask(at.node, 'qmconfig', String(vm.vmid), authid, () => {
    apply();
  });
}

/**
 * qemu-server create_vm and clone_vm: VM.Allocate on the new VM's path, or on the pool it goes into
 * (which must exist).
 */
export function requireAllocate(inst: SimulatedInstance, authid: string, id: number, poolid: string | undefined): void {
  if (poolid) {
    pool(inst, poolid);
    if (!inst.can(authid, `/vms/${id}`, ['VM.Allocate']) && !inst.can(authid, `/pool/${poolid}`, ['VM.Allocate'])) {
      throw new PveError(403, `Permission check failed (/vms/${id}, VM.Allocate)`);
    }
  } else {
    inst.require(authid, `/vms/${id}`, ['VM.Allocate']);
  }
}
