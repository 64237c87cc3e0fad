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
    return ['lxc', 'qemu', 'query-url-metadata', 'status', 'storage', 'tasks'].map((subdir) => ({ subdir }));
  });

  // Containers: the simulator has none, but CAPMOX's scheduler lists them on every allowed node.
  route('GET', '/nodes/{node}/lxc', ({ inst, at }) => {
    inst.node(at.node);
    return [];
  });

  route('GET', '/nodes/{node}/status', ({ inst, authid, at }) => {
    inst.require(authid, `/nodes/${at.node}`, ['Sys.Audit']);
    const n = nodeEntry(inst, at.node, certificateFingerprint);
    const GiB = 1024 ** 3;
    // The shape of PVE's node status (pve-manager PVE::API2::Nodes::Nodeinfo status): mhz and hvm
    // are strings there, user_hz a number — go-proxmox decodes them typed.
    return {
      uptime: n.uptime,
      idle: 0,
      wait: 0,
      cpu: n.cpu,
      loadavg: ['0.12', '0.10', '0.08'],
      kversion: 'Linux 6.8.12-9-pve #1 SMP PREEMPT_DYNAMIC PMX 6.8.12-9 (2025-03-16T19:18Z)',
      pveversion: `pve-manager/${inst.version}/c2d3e1d6b5a4f3e2`,
      cpuinfo: {
        model: 'Simulated CPU (pvekaas PVE simulator)',
        sockets: 1,
        cores: n.maxcpu,
        cpus: n.maxcpu,
        mhz: '2400.000',
        hvm: '1',
        user_hz: 100,
        flags:
          'fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx fxsr sse sse2 ht syscall nx lm constant_tsc nopl pni ssse3 cx16 sse4_1 sse4_2 x2apic popcnt aes xsave avx hypervisor lahf_lm',
      },
      memory: { total: n.maxmem, used: n.mem, free: n.maxmem - n.mem },
      swap: { total: 8 * GiB, used: 0, free: 8 * GiB },
      rootfs: { total: 100 * GiB, used: 10 * GiB, free: 90 * GiB, avail: 85 * GiB },
      ksm: { shared: 0 },
      'boot-info': { mode: 'efi', secureboot: 0 },
      'current-kernel': { machine: 'x86_64', release: '6.8.12-9-pve', sysname: 'Linux', version: '#1 SMP PREEMPT_DYNAMIC PMX 6.8.12-9 (2025-03-16T19:18Z)' },
    };
  });
}
