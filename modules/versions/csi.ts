/**
 * The Proxmox CSI plugin (sergelogvinov/proxmox-csi-plugin) that tenant volumes use (issue 38,
 * docs/storage.md): one place for its release, its chart and the images the chart names.
 *
 * Pinned: release v0.19.1 (tag v0.19.1, commit a7c58ec6a73eac35f003484e7f2ef603b69270c4,
 * 2026-06-25) and its chart `charts/proxmox-csi-plugin` 0.5.9 (appVersion v0.19.1) at that tag;
 * the sidecar tags are the chart's `values.yaml` there. The Go module is not served by the module
 * proxy here (403 for v0.19.1, and for its client github.com/sergelogvinov/go-proxmox v0.2.0), so
 * the chart is not rendered by Helm here: pvekaas writes the objects its templates would, split
 * between the management cluster (the controller) and the tenant cluster (the node plugin), and
 * the lab twin plays the controller from that source (twin/proxmox-csi.ts).
 */

export const PROXMOX_CSI = {
  release: 'v0.19.1',
  commit: 'a7c58ec6a73eac35f003484e7f2ef603b69270c4',
  chart: { chart: 'proxmox-csi-plugin', repository: 'oci://ghcr.io/sergelogvinov/charts', version: '0.5.9' },
  /** pkg/csi/driver.go DriverName: the CSIDriver, the StorageClasses' provisioner, the kubelet plugin directory. */
  driverName: 'csi.proxmox.sinextra.dev',
} as const;

/** Image repositories and tags, as chart 0.5.9's values.yaml names them (the plugin's own follow appVersion). */
export const PROXMOX_CSI_IMAGES = {
  controller: { repository: 'ghcr.io/sergelogvinov/proxmox-csi-controller', tag: PROXMOX_CSI.release },
  node: { repository: 'ghcr.io/sergelogvinov/proxmox-csi-node', tag: PROXMOX_CSI.release },
  attacher: { repository: 'registry.k8s.io/sig-storage/csi-attacher', tag: 'v4.10.0' },
  provisioner: { repository: 'registry.k8s.io/sig-storage/csi-provisioner', tag: 'v5.3.0' },
  resizer: { repository: 'registry.k8s.io/sig-storage/csi-resizer', tag: 'v1.14.0' },
  registrar: { repository: 'registry.k8s.io/sig-storage/csi-node-driver-registrar', tag: 'v2.15.0' },
  livenessprobe: { repository: 'registry.k8s.io/sig-storage/livenessprobe', tag: 'v2.16.0' },
} as const;

export type ProxmoxCsiImage = keyof typeof PROXMOX_CSI_IMAGES;
