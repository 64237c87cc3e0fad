/** Synthetic labs for the synth benchmark: N tenants of 3 pools over 3 instances × 3 nodes. */
import { stringify } from 'yaml';

/**
 * `editFirstTenant`: the same lab with one tenant's pool changed (t-0000 workers 3 → 4 replicas), for the incremental figure.
 * `allocatedVips`: no tenant pins its VIP and the load-balancer pool is a whole /16 (10.4.0.0/16):
 * every VIP is allocated from 65 536 addresses (ranked in blocks, modules/tenants/vip.ts), and some collide (resolved), for the validate benchmark.
 */
export function benchLab(tenants: number, options: { editFirstTenant?: boolean; allocatedVips?: boolean } = {}): string {
  const node = (name: string) => ({ name, cpu: 1_000_000, memoryMiB: 1_000_000_000 });
  const instances = ['bench-a', 'bench-b', 'bench-c'].map((name, i) => ({
    name,
    endpoint: `https://${name}.lab.example:8006/`,
    nodes: [1, 2, 3].map((n) => node(`${name}-${n}`)),
    template: i === 0 ? { sourceNode: `${name}-1`, templateID: 1000, kubernetesVersion: 'v1.35.4' } : { templateSelector: { matchTags: ['capi', 'v1.35.4'] } },
    images: i === 0 ? [] : [{ kubernetesVersion: 'v1.35.4', url: `https://images.lab.example/kube-v1.35.4.qcow2` }],
    // One template per instance serves every node only from shared disks.
    storage: { disksShared: true },
  }));
  const tenantList = Array.from({ length: tenants }, (_, i) => {
    const x = 16 + Math.floor(i / 250);
    const y = i % 250;
    return {
      name: `t-${String(i).padStart(4, '0')}`,
      kubernetesVersion: 'v1.35.4',
      placement: { mode: i % 2 === 0 ? 'SingleInstance' : 'Default' },
      pools: [
        { name: 'workers', replicas: options.editFirstTenant && i === 0 ? 4 : 3, size: { cpu: 4, memoryMiB: 8192, diskGiB: 40 } },
        { name: 'batch', autoscaling: { min: 0, max: 4 }, size: { cpu: 8, memoryMiB: 16384, diskGiB: 60 } },
        { name: 'infra', replicas: 2, size: { cpu: 2, memoryMiB: 4096, diskGiB: 30 } },
      ],
      network: { addresses: [`172.${x}.${y}.10-172.${x}.${y}.200`], prefix: 24, gateway: `172.${x}.${y}.1`, dnsServers: [`172.${x}.${y}.1`] },
      // Explicit VIPs: hash-allocated ones collide now and then in a pool this size (pvekaas then asks to pin one).
      ...(options.allocatedVips ? {} : { vip: `10.4.${Math.floor(i / 250)}.${(i % 250) + 1}` }),
      groups: [`team-${i}`],
    };
  });
  return stringify({
    proxmox: { instances },
    management: {
      kubernetes: { configPath: '~/.kube/mgmt.yaml' },
      loadBalancer: { addresses: [options.allocatedVips ? '10.4.0.0-10.4.255.255' : '10.4.0.1-10.4.15.254'], vlan: 4, interfaces: ['eth0.4'] },
    },
    tenants: tenantList,
  });
}
