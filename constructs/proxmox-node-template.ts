/**
 * One node template: a cloud image downloaded by Proxmox itself (`download-url`, content type
 * `import`) and a stopped VM built from it through the API (`import-from`, no SSH), converted to
 * a template and tagged so that CAPMOX's `templateSelector.matchTags` finds it. What it holds (VM
 * id, file name, tags, name) is rendered in modules/rendering/instance.ts; this construct writes it.
 */
import { Construct } from 'constructs';
import { DownloadFile } from '../.gen/providers/proxmox/download-file';
import { VirtualEnvironmentVm } from '../.gen/providers/proxmox/virtual-environment-vm';
import type { NodeTemplateRendering } from '../modules/rendering/instance';

export interface ProxmoxNodeTemplateProps {
  /** The template, rendered (`renderInstance`). */
  readonly template: NodeTemplateRendering;
  /**
   * The templates pool as a reference to its pool resource (`pool.poolId`), so the VM is created
   * after the pool and removed before it; it must name `template.vm.poolId`.
   * @default template.vm.poolId, as a plain string (no ordering)
   */
  readonly poolReference?: string;
}

export class ProxmoxNodeTemplate extends Construct {
  readonly vmId: number;
  readonly tags: readonly string[];
  /** `<storage>:import/<file>`, the volume the template was imported from. */
  readonly imageVolume: string;

  constructor(scope: Construct, id: string, props: ProxmoxNodeTemplateProps) {
    super(scope, id);
    const { template } = props;
    const { download: d, vm } = template;
    this.vmId = template.vmId;
    this.tags = vm.tags;
    const download = new DownloadFile(this, 'image', {
      nodeName: template.node,
      datastoreId: d.datastoreId,
      contentType: 'import',
      url: d.url,
      fileName: d.fileName,
      ...(d.checksum ? { checksum: d.checksum, checksumAlgorithm: d.checksumAlgorithm } : {}),
      overwrite: true,
      // A download whose task status was lost still lands on the storage, outside the state; the
      // next apply must be able to take that file over instead of failing on it forever.
      overwriteUnmanaged: true,
    });
    this.imageVolume = download.id;
    new VirtualEnvironmentVm(this, 'vm', {
      nodeName: template.node,
      vmId: template.vmId,
      name: vm.name,
      description: vm.description,
      tags: [...vm.tags],
      template: true,
      started: false,
      onBoot: false,
      poolId: props.poolReference ?? vm.poolId,
      operatingSystem: { type: 'l26' },
      agent: { enabled: true },
      cpu: { cores: 2, type: 'x86-64-v2-AES' },
      memory: { dedicated: 2048 },
      scsiHardware: 'virtio-scsi-single',
      disk: [
        {
          interface: 'scsi0',
          datastoreId: vm.diskStorage,
          importFromAttribute: download.id,
          size: vm.diskSizeGiB,
          discard: 'on',
          iothread: true,
        },
      ],
      // No network device: CAPMOX adds net0 (bridge and the tenant's VLAN) to each clone itself, and
      // Proxmox VE checks SDN.Use on every NIC of the template when a token clones it (qemu-server
      // PVE::API2::Qemu clone_vm → check_bridge_access): an untagged NIC here would take untagged
      // access to the bridge, which a tenant on a VLAN does not get.
    });
  }
}
