/**
 * Nodes: `/nodes`, a node's index and status.
 */
import type { SimulatedInstance } from '../instance';
import type { AddRoute } from './router';

export function nodeEntry(inst: SimulatedInstance, name: string, fingerprint: string) {
  const node = inst.node(name);
  const running = [...inst.vms.values()].filter((v) => v.node === name && v.status === 'running');
  const mem = running.reduce((s, v) => s + Number(v.config.get('memory') ?? 512) * 1024 ** 2, 0);
  return {
    id: `node/${name}`,
    type: 'node',
    node: name,
    status: 'online',
    cpu: 0.02,
    maxcpu: node.cpu,
    mem,
    maxmem: node.memoryMiB * 1024 ** 2,
    disk: 0,
    maxdisk: 100 * 1024 ** 3,
    uptime: Math.floor(Date.now() / 1000) - inst.startedAt + 86400,
    level: '',
    ssl_fingerprint: fingerprint,
  };
}

let certificateFingerprint = '';
/** The fingerprint the nodes report (the simulator's TLS certificate). */
export function setFingerprint(fp: string): void {
  certificateFingerprint = fp;
}

export function registerNodes(route: AddRoute): void {
  route('GET', '/nodes', ({ inst }) => [...inst.nodes.keys()].sort().map((n) => nodeEntry(inst, n, certificateFingerprint)));

  route('GET', '/nodes/{node}', ({ inst, at }) => {
    inst.node(at.node);
    return ['qemu', 'storage', 'tasks', 'status', 'query-url-metadata'].map((subdir) => ({ subdir }));
  });

  route('GET', '/nodes/{node}/status', ({ inst, authid, at }) => {
    inst.require(authid, `/nodes/${at.node}`, ['Sys.Audit']);
    const n = nodeEntry(inst, at.node, certificateFingerprint);
    return { cpu: n.cpu, cpuinfo: { cpus: n.maxcpu }, memory: { total: n.maxmem, used: n.mem, free: n.maxmem - n.mem }, uptime: n.uptime, pveversion: `pve-manager/${inst.version}` };
  });
}
