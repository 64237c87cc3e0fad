/**
 * One node template: a cloud image downloaded by Proxmox itself (`download-url`, content type
 * `import`) and a stopped VM built from it through the API (`import-from`, no SSH), converted to
 * a template and tagged so that CAPMOX's `templateSelector.matchTags` finds it.
 *
 * Also here: the template VM ids, derived from the Kubernetes version and the node so that adding
 * or removing a version never renumbers the others (see templateVmIds).
 */
import { Construct } from 'constructs';
import { DownloadFile } from '../.gen/providers/proxmox/download-file';
import { VirtualEnvironmentVm } from '../.gen/providers/proxmox/virtual-environment-vm';

export interface NodeTemplateImage {
  /** Kubernetes version the image carries, e.g. v1.30.5; becomes a tag of the template. */
  readonly kubernetesVersion: string;
  /** Cloud image URL; Proxmox downloads it itself. */
  readonly url: string;
  /** Hex digest of the image, checked by Proxmox after the download. @default - not checked */
  readonly checksum?: string;
  /** @default 'sha256' */
  readonly checksumAlgorithm?: string;
  /**
   * File name on the image storage; Proxmox's `import` content needs a .qcow2, .raw or .vmdk name.
   * @default defaultImageFileName(kubernetesVersion, url)
   */
  readonly fileName?: string;
}

export interface ProxmoxNodeTemplateProps {
  readonly node: string;
  readonly image: NodeTemplateImage;
  /** VM id of the template (see templateVmIds). */
  readonly vmId: number;
  /** Storage that holds downloaded images; needs the `import` content type. */
  readonly imageStorage: string;
  /** Storage for the template's disk. */
  readonly diskStorage: string;
  /** Resource pool of the template. */
  readonly pool: string;
  /**
   * Disk size of the template in GiB; at least the image's virtual size (Proxmox cannot shrink a disk).
   * Machines cloned from it get their own size from CAPMOX.
   * @default 20
   */
  readonly diskSizeGiB?: number;
  /**
   * Tags besides the Kubernetes version.
   * @default ['capi']
   */
  readonly tags?: string[];
}

/** `pvekaas-v1.30.5.qcow2`, keeping the URL's extension when it is one `import` accepts. */
export function defaultImageFileName(kubernetesVersion: string, url: string): string {
  const ext = /\.(qcow2|raw|vmdk)$/i.exec(new URL(url).pathname)?.[1]?.toLowerCase() ?? 'qcow2';
  return `pvekaas-${kubernetesVersion}.${ext}`;
}

/** The tags of a template: Proxmox keeps tags sorted, so they are written sorted to avoid a diff. */
export function templateTags(kubernetesVersion: string, tags: string[] = ['capi']): string[] {
  return [...new Set([...tags, kubernetesVersion])].sort();
}

export class ProxmoxNodeTemplate extends Construct {
  readonly vmId: number;
  readonly tags: string[];
  /** `<storage>:import/<file>`, the volume the template was imported from. */
  readonly imageVolume: string;

  constructor(scope: Construct, id: string, props: ProxmoxNodeTemplateProps) {
    super(scope, id);
    const { image } = props;
    this.vmId = props.vmId;
    this.tags = templateTags(image.kubernetesVersion, props.tags);
    const download = new DownloadFile(this, 'image', {
      nodeName: props.node,
      datastoreId: props.imageStorage,
      contentType: 'import',
      url: image.url,
      fileName: image.fileName ?? defaultImageFileName(image.kubernetesVersion, image.url),
      ...(image.checksum ? { checksum: image.checksum, checksumAlgorithm: image.checksumAlgorithm ?? 'sha256' } : {}),
      overwrite: true,
      // A download whose task status was lost still lands on the storage, outside the state; the
      // next apply must be able to take that file over instead of failing on it forever.
      overwriteUnmanaged: true,
    });
    this.imageVolume = download.id;
    new VirtualEnvironmentVm(this, 'vm', {
      nodeName: props.node,
      vmId: props.vmId,
      name: `pvekaas-template-${image.kubernetesVersion.replace(/\./g, '-')}`,
      description: `Kubernetes ${image.kubernetesVersion} node template, imported from ${image.url}; managed by pvekaas`,
      tags: this.tags,
      template: true,
      started: false,
      onBoot: false,
      poolId: props.pool,
      operatingSystem: { type: 'l26' },
      agent: { enabled: true },
      cpu: { cores: 2, type: 'x86-64-v2-AES' },
      memory: { dedicated: 2048 },
      scsiHardware: 'virtio-scsi-single',
      disk: [
        {
          interface: 'scsi0',
          datastoreId: props.diskStorage,
          importFromAttribute: download.id,
          size: props.diskSizeGiB ?? 20,
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

export { templateVmIds } from '../modules/config/template-ids';
