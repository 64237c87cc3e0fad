/**
 * The API root, `/version` and `/cluster/*` (resources, nextid).
 */
import { badParams } from '../errors';
import type { SimulatedInstance, Vm } from '../instance';
import { nodeEntry } from './nodes';
import { bit, int, nonEmpty, type AddRoute } from './router';

export function vmResource(inst: SimulatedInstance, vm: Vm) {
  const disks = inst.volumes.filter((v) => v.vmid === vm.vmid).reduce((s, v) => s + v.size, 0);
  return nonEmpty({
    id: `qemu/${vm.vmid}`,
    type: 'qemu',
    vmid: vm.vmid,
    node: vm.node,
    name: vm.config.get('name'),
    status: vm.status,
    template: bit(inst.isTemplate(vm)),
    tags: vm.config.get('tags'),
    pool: inst.poolOf(vm.vmid),
    lock: vm.lock,
    maxcpu: Number(vm.config.get('cores') ?? 1) * Number(vm.config.get('sockets') ?? 1),
    maxmem: Number(vm.config.get('memory') ?? 512) * 1024 ** 2,
    maxdisk: disks,
    cpu: 0,
    mem: 0,
    disk: 0,
    uptime: vm.status === 'running' && vm.startedAt ? Math.floor((Date.now() - vm.startedAt) / 1000) : 0,
  });
}

export function registerCluster(route: AddRoute): void {
  route('GET', '/', () => ['access', 'cluster', 'nodes', 'pools', 'storage', 'version'].map((subdir) => ({ subdir })));

  route('GET', '/version', ({ inst }) => ({
    version: inst.version,
    release: inst.version.split('.').slice(0, 2).join('.'),
    repoid: 'c2d3e1d6',
    console: 'html5',
  }));

  route('GET', '/cluster/resources', ({ inst, authid, params }) => {
    const type = params.type;
    const out: unknown[] = [];
    if (!type || type === 'vm') {
      for (const vm of [...inst.vms.values()].sort((a, b) => a.vmid - b.vmid))
        if (inst.can(authid, `/vms/${vm.vmid}`, ['VM.Audit'])) out.push(vmResource(inst, vm));
    }
    if (!type || type === 'node') {
      for (const n of [...inst.nodes.keys()].sort()) {
        if (inst.can(authid, `/nodes/${n}`, ['Sys.Audit'])) {
          const { ssl_fingerprint: _fp, ...entry } = nodeEntry(inst, n, '');
          out.push(entry);
        }
      }
    }
    if (!type || type === 'storage') {
      for (const n of [...inst.nodes.keys()].sort()) {
        for (const s of [...inst.storages.values()]) {
          if (!inst.can(authid, `/storage/${s.id}`, ['Datastore.Audit']) && !inst.can(authid, `/storage/${s.id}`, ['Datastore.AllocateSpace'])) continue;
          out.push({
            id: `storage/${n}/${s.id}`,
            type: 'storage',
            storage: s.id,
            node: n,
            plugintype: s.type,
            content: s.content.join(','),
            shared: bit(!!s.shared),
            status: 'available',
            maxdisk: inst.capacity(s.id),
            disk: inst.used(n, s.id),
          });
        }
      }
    }
    if (!type || type === 'pool') {
      for (const p of [...inst.pools.keys()].sort()) if (inst.can(authid, `/pool/${p}`, ['Pool.Audit'])) out.push({ id: `/pool/${p}`, type: 'pool', pool: p });
    }
    return out;
  });

  // Cluster membership (pve-manager PVE::API2::ClusterConfig status: Sys.Audit on /): one
  // `cluster` entry and one `node` entry per node; the simulator answers as the first node.
  route('GET', '/cluster/status', ({ inst, authid }) => {
    inst.require(authid, '/', ['Sys.Audit']);
    const nodes = [...inst.nodes.keys()].sort();
    return [
      { type: 'cluster', id: 'cluster', name: inst.name, nodes: nodes.length, quorate: 1, version: nodes.length + 1 },
      ...nodes.map((name, i) => ({
        type: 'node',
        id: `node/${name}`,
        name,
        nodeid: i + 1,
        ip: `192.0.2.${i + 1}`,
        online: 1,
        local: i === 0 ? 1 : 0,
        level: '',
      })),
    ];
  });

  route('GET', '/cluster/nextid', ({ inst, params }) => {
    const wanted = int(params, 'vmid', { min: 100, max: 999999999 });
    if (wanted !== undefined) {
      if (inst.vms.has(wanted)) badParams({ vmid: `VM ${wanted} already exists` });
      return String(wanted);
    }
    let id = 100;
    while (inst.vms.has(id)) id++;
    return String(id);
  });
}
