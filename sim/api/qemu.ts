/**
 * QEMU VMs: create, config, power, resize, template, clone, destroy (`/nodes/{node}/qemu/...`).
 */
import { randomUUID } from 'node:crypto';
import { badParams, fail } from '../errors';
import { formatSize, macFor, parseSize, type SimulatedInstance, type Vm, type Volume } from '../instance';
import { DRIVE_KEY, NET_KEY, configJson, get, normalizeNic, parseProperties, printProperties, without } from '../qemu';
import { removeAclEntries } from './access';
import { flag, int, nonEmpty, required, type AddRoute, type Call } from './router';
import { checkBoot, checkBridge, masked, planDrive, requireAllocate, storedValue, updateConfig, vmid } from './qemu-config';
import { GUEST_OS, agent, guestCommand } from './qemu-guest';

function vmListEntry(inst: SimulatedInstance, vm: Vm) {
  return nonEmpty({
    vmid: vm.vmid,
    name: vm.config.get('name'),
    status: vm.status,
    template: inst.isTemplate(vm) ? 1 : undefined,
    tags: vm.config.get('tags'),
    lock: vm.lock,
    cpus: Number(vm.config.get('cores') ?? 1) * Number(vm.config.get('sockets') ?? 1),
    maxmem: Number(vm.config.get('memory') ?? 512) * 1024 ** 2,
    maxdisk: inst.volumes.filter((v) => v.vmid === vm.vmid).reduce((s, v) => s + v.size, 0),
    uptime: vm.status === 'running' && vm.startedAt ? Math.floor((Date.now() - vm.startedAt) / 1000) : 0,
  });
}

function power(action: 'start' | 'stop' | 'shutdown' | 'reboot' | 'reset'): (call: Call) => string {
  return ({ inst, authid, at, params }) => {
    const vm = inst.vm(at.node, vmid(at));
    inst.require(authid, `/vms/${vm.vmid}`, ['VM.PowerMgmt']);
    if (vm.lock && !flag(params.skiplock)) fail(`VM is locked (${vm.lock})`);
    if (action === 'start' && inst.isTemplate(vm)) fail("you can't start a vm if it's a template");
    if ((action === 'reboot' || action === 'reset' || action === 'shutdown') && vm.status !== 'running') fail(`VM ${vm.vmid} not running`);
    const type = { start: 'qmstart', stop: 'qmstop', shutdown: 'qmshutdown', reboot: 'qmreboot', reset: 'qmreset' }[action];
    return inst.startTask(at.node, type, String(vm.vmid), authid, () => {
      if (action === 'start') {
        if (vm.status === 'running') throw new Error(`VM ${vm.vmid} already running`);
        inst.markRunning(vm);
      } else if (action === 'stop' || action === 'shutdown') {
        inst.markStopped(vm);
      }
    });
  };
}

export function registerQemu(route: AddRoute): void {
  route('GET', '/nodes/{node}/qemu', ({ inst, authid, at }) => {
    inst.node(at.node);
    return [...inst.vms.values()]
      .filter((vm) => vm.node === at.node && inst.can(authid, `/vms/${vm.vmid}`, ['VM.Audit']))
      .sort((a, b) => a.vmid - b.vmid)
      .map((vm) => vmListEntry(inst, vm));
  });

  route('POST', '/nodes/{node}/qemu', ({ inst, authid, at, params }) => {
    inst.node(at.node);
    const id = int(params, 'vmid', { min: 100, max: 999999999, required: true })!;
    const poolid = params.pool;
    requireAllocate(inst, authid, id, poolid);
    checkBoot(params);
    const existing = inst.vms.get(id);
    if (existing) fail(`VM ${id} already exists on node '${existing.node}'`);
    const config = new Map<string, string>();
    const drives: [string, (allocated: Volume[]) => string][] = [];
    for (const [key, value] of Object.entries(params)) {
      if (['vmid', 'pool', 'node', 'start', 'unique', 'live-restore', 'archive', 'force', 'storage'].includes(key)) continue;
      if (DRIVE_KEY.test(key)) drives.push([key, planDrive(inst, authid, at.node, id, key, value)]);
      else if (NET_KEY.test(key)) {
        const nic = normalizeNic(value, macFor(id, Number(key.slice(3))));
        checkBridge(inst, authid, key, nic.bridge, nic.tag, nic.trunks);
        config.set(key, nic.value);
      } else if (key === 'delete' || key === 'digest') continue;
      else config.set(key, storedValue(key, value));
    }
    // PVE stores no name when none is given (the API shows none; the GUI shows "VM <id>").
    // It does give every new VM an SMBIOS UUID and a VM generation id (qemu-server create_vm).
    if (!config.has('smbios1')) config.set('smbios1', `uuid=${randomUUID()}`);
    else if (!/(^|,)uuid=/.test(config.get('smbios1')!)) config.set('smbios1', `${config.get('smbios1')},uuid=${randomUUID()}`);
    if (!config.has('vmgenid')) config.set('vmgenid', randomUUID());
    config.set('meta', `creation-qemu=9.2.0,ctime=${Math.floor(Date.now() / 1000)}`);
    const vm: Vm = { vmid: id, node: at.node, config, status: 'stopped', lock: 'create', createdBy: authid };
    inst.vms.set(id, vm);
    if (poolid) inst.pools.get(poolid)!.vms.add(id);
    return inst.startTask(at.node, 'qmcreate', String(id), authid, () => {
      const allocated: Volume[] = [];
      try {
        for (const [key, allocate] of drives) vm.config.set(key, allocate(allocated));
      } catch (e) {
        for (const v of allocated) inst.removeVolume(v);
        inst.vms.delete(id);
        for (const p of inst.pools.values()) p.vms.delete(id);
        throw new Error(`unable to create VM ${id} - ${(e as Error).message}`);
      }
      delete vm.lock;
      return allocated.map((v) => `  ${v.volid} (${formatSize(v.size)}) allocated`);
    });
  });

  route('GET', '/nodes/{node}/qemu/{vmid}', ({ inst, authid, at }) => {
    inst.vm(at.node, vmid(at));
    inst.require(authid, `/vms/${at.vmid}`, ['VM.Audit']);
    return ['config', 'pending', 'status', 'resize', 'template', 'clone'].map((subdir) => ({ subdir }));
  });

  route('GET', '/nodes/{node}/qemu/{vmid}/config', ({ inst, authid, at }) => {
    const vm = inst.vm(at.node, vmid(at));
    inst.require(authid, `/vms/${vm.vmid}`, ['VM.Audit']);
    return { ...configJson(masked(vm.config)), ...(vm.lock ? { lock: vm.lock } : {}) };
  });

  route('GET', '/nodes/{node}/qemu/{vmid}/pending', ({ inst, authid, at }) => {
    const vm = inst.vm(at.node, vmid(at));
    inst.require(authid, `/vms/${vm.vmid}`, ['VM.Audit']);
    return Object.entries(configJson(masked(vm.config)))
      .filter(([k]) => k !== 'digest')
      .map(([key, value]) => ({ key, value }));
  });

  route('PUT', '/nodes/{node}/qemu/{vmid}/config', (call) => updateConfig(call, false));
  route('POST', '/nodes/{node}/qemu/{vmid}/config', (call) => updateConfig(call, true));
  // qemu-server PVE::API2::Qemu unlink (`PUT …/unlink`, VM.Config.Disk): update_vm with
  // `delete` = idlist, so a drive's volume becomes an `unusedN` entry (force would remove it; not
  // taken here). go-proxmox's UnlinkDisk sends it; the Proxmox CSI plugin detaches volumes so
  // (pkg/csi/utils.go detachVolume).
  route('PUT', '/nodes/{node}/qemu/{vmid}/unlink', (call) => {
    if (flag(call.params.force)) fail('unlink with force is not simulated');
    const rest = Object.fromEntries(Object.entries(call.params).filter(([k]) => k !== 'idlist' && k !== 'force'));
    return updateConfig({ ...call, params: { ...rest, delete: required(call.params, 'idlist') } }, false);
  });

  route('GET', '/nodes/{node}/qemu/{vmid}/status', ({ inst, at }) => {
    inst.vm(at.node, vmid(at));
    return ['current', 'start', 'stop', 'shutdown', 'reboot'].map((subdir) => ({ subdir }));
  });

  route('GET', '/nodes/{node}/qemu/{vmid}/status/current', ({ inst, authid, at }) => {
    const vm = inst.vm(at.node, vmid(at));
    inst.require(authid, `/vms/${vm.vmid}`, ['VM.Audit']);
    const entry = vmListEntry(inst, vm);
    return {
      ...entry,
      qmpstatus: vm.status,
      agent: /(^|,)(enabled=)?1(,|$)/.test(vm.config.get('agent') ?? '') ? 1 : 0,
      ha: { managed: 0 },
      ...(inst.isTemplate(vm) ? { template: 1 } : {}),
      ...(vm.status === 'running' ? { pid: 40000 + vm.vmid } : {}),
    };
  });

  for (const action of ['start', 'stop', 'shutdown', 'reboot', 'reset'] as const) route('POST', `/nodes/{node}/qemu/{vmid}/status/${action}`, power(action));

  route('PUT', '/nodes/{node}/qemu/{vmid}/resize', ({ inst, authid, at, params }) => {
    const vm = inst.vm(at.node, vmid(at));
    inst.require(authid, `/vms/${vm.vmid}`, ['VM.Config.Disk']);
    const disk = required(params, 'disk');
    const sizeText = required(params, 'size');
    if (vm.lock && !flag(params.skiplock)) fail(`VM is locked (${vm.lock})`);
    const value = vm.config.get(disk);
    if (!value || !DRIVE_KEY.test(disk)) fail(`disk '${disk}' does not exist`);
    const props = parseProperties(value, 'file');
    const volume = inst.findVolume(vm.node, props.head ?? '');
    if (!volume) fail(`disk '${disk}' has no volume`);
    inst.require(authid, `/storage/${volume.storage}`, ['Datastore.AllocateSpace']);
    const wanted = sizeText.startsWith('+') ? volume.size + parseSize(sizeText.slice(1)) : parseSize(sizeText);
    if (wanted < volume.size) fail(`shrinking disks is not supported`);
    return inst.startTask(at.node, 'resize', String(vm.vmid), authid, () => {
      // Growing a thin volume checks no free space either (see Instance.allocateDisk).
      volume.size = wanted;
      vm.config.set(disk, printProperties(props.head, [...without(props, 'size'), ['size', formatSize(wanted)]]));
      return [`resized ${disk} to ${formatSize(wanted)}`];
    });
  });

  route('POST', '/nodes/{node}/qemu/{vmid}/template', ({ inst, authid, at, params }) => {
    const vm = inst.vm(at.node, vmid(at));
    inst.require(authid, `/vms/${vm.vmid}`, ['VM.Allocate']);
    if (vm.lock) fail(`VM is locked (${vm.lock})`);
    if (inst.isTemplate(vm) && !params.disk) fail("you can't convert a template to a template");
    if (vm.status === 'running') fail("you can't convert a VM to template if VM is running");
    return inst.startTask(at.node, 'qmtemplate', String(vm.vmid), authid, () => {
      const renamed: string[] = [];
      for (const [key, value] of vm.config) {
        if (!DRIVE_KEY.test(key) || (params.disk && key !== params.disk)) continue;
        const props = parseProperties(value, 'file');
        const volume = props.head ? inst.findVolume(vm.node, props.head) : undefined;
        if (!volume || !volume.volid.includes(`vm-${vm.vmid}-disk-`)) continue;
        const base = volume.volid.replace(`vm-${vm.vmid}-disk-`, `base-${vm.vmid}-disk-`);
        renamed.push(`${volume.volid} -> ${base}`);
        volume.volid = base;
        vm.config.set(key, printProperties(base, props.pairs));
      }
      vm.config.set('template', '1');
      return renamed.map((r) => `  renamed ${r}`);
    });
  });

  route('POST', '/nodes/{node}/qemu/{vmid}/clone', ({ inst, authid, at, params }) => {
    const source = inst.vm(at.node, vmid(at));
    const newid = int(params, 'newid', { min: 100, max: 999999999, required: true })!;
    inst.require(authid, `/vms/${source.vmid}`, ['VM.Clone']);
    const poolid = params.pool;
    requireAllocate(inst, authid, newid, poolid);
    const existing = inst.vms.get(newid);
    if (existing) fail(`VM ${newid} already exists on node '${existing.node}'`);
    // qemu-server clone_vm, in its order. A target equal to the node the request runs on is no target.
    const target = params.target && params.target !== source.node && params.target !== 'localhost' ? params.target : undefined;
    if (target) inst.node(target);
    const storage = params.storage || undefined;
    if (storage) {
      const s = inst.storage(source.node, storage);
      // "clone only works if target storage is shared"
      if (target && !s.shared) fail(`can't clone to non-shared storage '${storage}'`);
    }
    if (source.lock) fail(`VM is locked (${source.lock})`);
    const full = flag(params.full, !inst.isTemplate(source));
    if (storage && !full) fail("parameter 'storage' not allowed for linked clones");
    if (params.format && !full) fail("parameter 'format' not allowed for linked clones");
    // $check_storage_access_clone: the VM is "shared" only if every volume it references — disks,
    // the cloud-init drive and ISO cdroms alike — is on shared storage. Whether `storage` is
    // passed or the clone is full or linked does not matter.
    let sharedVm = true;
    const disks: [string, string][] = [];
    for (const [key, value] of [...source.config].sort(([a], [b]) => a.localeCompare(b))) {
      if (!DRIVE_KEY.test(key)) continue;
      const props = parseProperties(value, 'file');
      const volid = props.head ?? '';
      if (!volid || volid === 'none') continue;
      const cdrom = get(props, 'media') === 'cdrom';
      if (cdrom && volid === 'cdrom') {
        inst.require(authid, '/', ['Sys.Console']);
        continue;
      }
      const sid = volid.split(':')[0];
      if (!inst.storages.get(sid)?.shared) sharedVm = false;
      if (cdrom && !/:vm-\d+-cloudinit/.test(volid)) continue;
      inst.require(authid, `/storage/${storage ?? sid}`, ['Datastore.AllocateSpace']);
      // Linked clones need a base volume; PVE asks the storage for the 'clone' feature per drive.
      if (!full && !/:vm-\d+-cloudinit/.test(volid) && !/(^|[:/])base-\d+-disk-\d+/.test(volid))
        fail(`Linked clone feature is not supported for drive '${key}'`);
      disks.push([key, value]);
    }
    if (target && !sharedVm) fail(`can't clone VM to node '${target}' (VM uses local storage)`);
    for (const [key, value] of source.config) {
      if (NET_KEY.test(key)) {
        const nic = normalizeNic(value, macFor(newid, Number(key.slice(3))));
        checkBridge(inst, authid, key, nic.bridge, nic.tag, nic.trunks);
      }
    }
    const config = new Map<string, string>();
    for (const [key, value] of source.config) {
      // Not copied: the template flag, snapshot state, unused volumes (they stay the source's).
      if (key === 'template' || key === 'meta' || /^unused\d+$/.test(key) || ['parent', 'snaptime', 'vmstate'].includes(key)) continue;
      if (NET_KEY.test(key)) {
        const rest = value.replace(/^([a-z0-9]+)=[0-9A-Fa-f:]{17}/, '$1');
        config.set(key, normalizeNic(rest, macFor(newid, Number(key.slice(3)))).value);
      } else config.set(key, value);
    }
    // A new SMBIOS UUID always (CAPMOX's providerID), a new VM generation id if the source had one.
    const smbios = (config.get('smbios1') ?? '').split(',').filter((p) => p && !p.startsWith('uuid='));
    config.set('smbios1', [`uuid=${randomUUID()}`, ...smbios].join(','));
    if (config.has('vmgenid')) config.set('vmgenid', randomUUID());
    config.set('name', params.name || `Copy-of-VM-${source.config.get('name') ?? source.vmid}`);
    if (params.description) config.set('description', storedValue('description', params.description));
    const vm: Vm = { vmid: newid, node: target ?? source.node, config, status: 'stopped', lock: 'clone', createdBy: authid, cloneOf: source.vmid };
    inst.vms.set(newid, vm);
    if (poolid) inst.pools.get(poolid)!.vms.add(newid);
    return inst.startTask(source.node, 'qmclone', String(source.vmid), authid, () => {
      const allocated: Volume[] = [];
      try {
        for (const [key, value] of disks) {
          const props = parseProperties(value, 'file');
          const volume = inst.findVolume(source.node, props.head ?? '');
          if (!volume) continue;
          const v = inst.allocateDisk(target ?? source.node, storage ?? volume.storage, newid, volume.size);
          if (/:vm-\d+-cloudinit/.test(volume.volid)) v.volid = `${v.storage}:vm-${newid}-cloudinit`;
          allocated.push(v);
          vm.config.set(key, printProperties(v.volid, [...without(props, 'size'), ['size', formatSize(v.size)]]));
        }
      } catch (e) {
        for (const v of allocated) inst.removeVolume(v);
        inst.vms.delete(newid);
        for (const p of inst.pools.values()) p.vms.delete(newid);
        throw e;
      }
      delete vm.lock;
      return [`create ${full ? 'full' : 'linked'} clone of drive(s) of VM ${source.vmid} to VM ${newid}`];
    });
  });

  // PVE's own cloud-init drive: regenerate it from the config (qemu-server cloudinit_update).
  route('PUT', '/nodes/{node}/qemu/{vmid}/cloudinit', ({ inst, authid, at }) => {
    const vm = inst.vm(at.node, vmid(at));
    inst.require(authid, `/vms/${vm.vmid}`, ['VM.Config.Cloudinit']);
    if (vm.lock) fail(`VM is locked (${vm.lock})`);
    return null;
  });

  // Migration (qemu-server migrate_vm): offline, or online for a running VM; local disks move with an
  // offline migration, a running VM with local disks needs with-local-disks.
  route('POST', '/nodes/{node}/qemu/{vmid}/migrate', ({ inst, authid, at, params }) => {
    const vm = inst.vm(at.node, vmid(at));
    const target = required(params, 'target');
    inst.require(authid, `/vms/${vm.vmid}`, ['VM.Migrate']);
    if (target === at.node) badParams({ target: 'target is local node.' });
    inst.node(target);
    if (vm.lock) fail(`VM is locked (${vm.lock})`);
    const online = flag(params.online);
    if (vm.status === 'running' && !online) fail("can't migrate running VM without --online");
    const local: string[] = [];
    for (const [key, value] of vm.config) {
      if (!DRIVE_KEY.test(key)) continue;
      const volid = parseProperties(value, 'file').head ?? '';
      if (!volid.includes(':')) continue;
      if (inst.storages.get(volid.split(':')[0])?.shared) continue;
      const cdrom = /(^|,)media=cdrom(,|$)/.test(value);
      if (cdrom && !/:vm-\d+-cloudinit/.test(volid)) fail(`can't migrate local cdrom drive (${key}: ${volid})`);
      local.push(volid);
    }
    if (vm.status === 'running' && local.length && !flag(params['with-local-disks']))
      fail(`can't live migrate attached local disks without with-local-disks option`);
    vm.lock = 'migrate';
    return inst.startTask(at.node, 'qmigrate', String(vm.vmid), authid, () => {
      delete vm.lock;
      const from = vm.node;
      inst.moveVm(vm, target);
      return [
        `starting migration of VM ${vm.vmid} to node '${target}'`,
        ...local.map((v) => `found local disk '${v}'`),
        `migration finished (${from} -> ${target})`,
      ];
    });
  });

  route('GET', '/nodes/{node}/qemu/{vmid}/agent', ({ inst, at }) => {
    inst.vm(at.node, vmid(at));
    return ['exec', 'exec-status', 'get-osinfo', 'info', 'network-get-interfaces', 'ping'].map((name) => ({ name }));
  });

  route('GET', '/nodes/{node}/qemu/{vmid}/agent/get-osinfo', (call) => {
    agent(call);
    return { result: GUEST_OS };
  });

  route('POST', '/nodes/{node}/qemu/{vmid}/agent/ping', (call) => {
    agent(call);
    return null;
  });

  route('POST', '/nodes/{node}/qemu/{vmid}/agent/exec', (call) => {
    const vm = agent(call);
    const command = call.arrays?.command ?? (call.params.command ? [call.params.command] : []);
    if (command.length === 0) badParams({ command: 'property is missing and it is not optional' });
    const execs = (vm.agentExecs ??= new Map());
    const pid = 1000 + execs.size + 1;
    execs.set(pid, { command, startedAt: Date.now() });
    return { pid };
  });

  route('GET', '/nodes/{node}/qemu/{vmid}/agent/exec-status', (call) => {
    const vm = agent(call);
    const pid = int(call.params, 'pid', { required: true })!;
    const run = vm.agentExecs?.get(pid);
    if (!run) fail(`Agent error: Invalid parameter 'pid'`);
    return guestCommand(run.command);
  });

  route('DELETE', '/nodes/{node}/qemu/{vmid}', ({ inst, authid, at, params }) => {
    const vm = inst.vm(at.node, vmid(at));
    inst.require(authid, `/vms/${vm.vmid}`, ['VM.Allocate']);
    if (vm.lock && !flag(params.skiplock)) fail(`VM is locked (${vm.lock})`);
    if (vm.status === 'running') fail(`VM ${vm.vmid} is running - destroy failed`);
    if (flag(vm.config.get('protection'))) fail(`can't remove VM ${vm.vmid} - protection mode enabled`);
    vm.lock = 'destroyed';
    return inst.startTask(at.node, 'qmdestroy', String(vm.vmid), authid, () => {
      const removed = inst.volumes.filter((v) => v.vmid === vm.vmid && (v.node === vm.node || v.node === undefined));
      for (const v of removed) inst.removeVolume(v);
      for (const p of inst.pools.values()) p.vms.delete(vm.vmid);
      if (flag(params.purge)) removeAclEntries(inst, (e) => e.path === `/vms/${vm.vmid}`);
      inst.vms.delete(vm.vmid);
      return removed.map((v) => `  removed ${v.volid}`);
    });
  });
}
