/** A small lab of two instances written out in full, for the foresight tests. */
const IMAGE = (v: string) => `
        - kubernetesVersion: ${v}
          url: https://images.lab.example/kube-${v}.qcow2
          checksum: 0c1f8a5e0f3f6b1d9a0d0c5c1a3b6e2f4d7c8b9a0e1f2a3b4c5d6e7f8091a2b3`;

/** Two instances; `east` builds templates for `versions`, `west` for `westVersions`. */
export function labText(
  options: { versions?: string[]; westVersions?: string[]; shop?: string; quota?: string; shopReplicas?: number; eastCpu?: number; shopPrevious?: string } = {},
): string {
  const versions = options.versions ?? ['v1.34.2'];
  const west = options.westVersions ?? versions;
  return `proxmox:
  reserve: { cpu: 2, memoryMiB: 8192 }
  instances:
    - name: east
      endpoint: https://east.lab.example:8006/
      storage: { cloudInit: capmox-cloudinit, disksShared: true }
      nodes:
        - { name: e1, cpu: ${options.eastCpu ?? 18}, memoryMiB: 65536 }
        - { name: e2, cpu: ${options.eastCpu ?? 18}, memoryMiB: 65536 }
      template: { templateSelector: { matchTags: [capi, v1.34.2] } }
      vmIdRange: { start: 9000, end: 9049 }
      images:${versions.map(IMAGE).join('')}
    - name: west
      endpoint: https://west.lab.example:8006/
      storage: { cloudInit: capmox-cloudinit, disksShared: true }
      nodes:
        - { name: w1, cpu: 34, memoryMiB: 131072 }
        - { name: w2, cpu: 34, memoryMiB: 131072 }
      template: { templateSelector: { matchTags: [capi, v1.34.2] } }
      vmIdRange: { start: 9000, end: 9049 }
      images:${west.map(IMAGE).join('')}
management:
  loadBalancer: { addresses: [10.4.0.100-10.4.0.149] }
capmox: { multiInstance: proposal }
tenants:
  - name: shop
    kubernetesVersion: ${options.shop ?? 'v1.34.2'}
    pools:
      - { name: workers, replicas: ${options.shopReplicas ?? 4}, size: { cpu: 4, memoryMiB: 8192, diskGiB: 20 } }
      - { name: db, replicas: 1, size: { cpu: 4, memoryMiB: 8192, diskGiB: 20 } }
    network: { addresses: [10.10.1.10-10.10.1.60], prefix: 24, gateway: 10.10.1.1, dnsServers: [10.10.1.1] }${options.quota ?? ''}${options.shopPrevious ? `\n    previous: { kubernetesVersion: ${options.shopPrevious} }` : ''}
  - name: spread
    kubernetesVersion: v1.34.2
    placement: { mode: MultiInstance }
    pools:
      - { name: workers, replicas: 4, size: { cpu: 2, memoryMiB: 4096, diskGiB: 20 } }
    network: { addresses: [10.10.2.10-10.10.2.60], prefix: 24, gateway: 10.10.2.1, dnsServers: [10.10.2.1] }
`;
}
