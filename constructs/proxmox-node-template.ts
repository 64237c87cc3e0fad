/**
 * One node template: a cloud image downloaded by Proxmox itself (`download-url`, content type
 * `import`) and a stopped VM built from it through the API (`import-from`, no SSH), converted to
 * a template and tagged so that CAPMOX's `templateSelector.matchTags` finds it.
 *
 * Also here: the template VM ids, derived from the Kubernetes version and the node so that adding
 * or removing a version never renumbers the others (see templateVmIds).
 */
import { Token } from 'cdktf';
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
  readonly bridge: string;
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
      // network_device is an attribute (not a block) in the schema: JSON must spell out every field;
      // the values are the provider's defaults, so they never show up as a change.
      networkDevice: [
        {
          bridge: props.bridge,
          model: 'virtio',
          disconnected: false,
          enabled: Token.asAny(Token.nullValue()),
          firewall: false,
          macAddress: Token.asString(Token.nullValue()),
          mtu: 0,
          queues: 0,
          rateLimit: 0,
          trunks: Token.asString(Token.nullValue()),
          vlanId: 0,
        },
      ],
    });
  }
}

/** Two images that would share VM ids, reported with a fix. */
export class TemplateIdConflict extends Error {
  constructor(
    message: string,
    readonly problems: string[],
  ) {
    super(message);
  }
}

/**
 * Template VM ids for every image and node of an instance, from its vmIdRange.
 *
 * The range is cut into one block per version slot, each block holding one id per node (nodes in
 * name order). A version's slot depends only on the version: (minor mod A) × B + (patch mod B),
 * with A = min(4, slots) minor versions and B = slots / A patch versions per minor. So adding or
 * removing a version never moves another one; two versions collide only when their minors differ
 * by a multiple of A and their patches by a multiple of B, which is reported at synth with the fix.
 * Changing the node list or the range renumbers every template (they are rebuilt, and CAPMOX finds
 * them by tags, not ids).
 */
export function templateVmIds(
  instanceName: string,
  range: { start: number; end: number },
  nodes: string[],
  versions: string[],
): Map<string, Map<string, number>> {
  const sortedNodes = [...new Set(nodes)].sort();
  const size = range.end - range.start + 1;
  const slots = Math.floor(size / sortedNodes.length);
  if (slots < 1) {
    throw new TemplateIdConflict(`instance ${instanceName}: vmIdRange ${range.start}-${range.end} is smaller than its ${sortedNodes.length} nodes`, [
      `widen proxmox.instances[name=${instanceName}].vmIdRange to at least ${sortedNodes.length} ids (one per node and version)`,
    ]);
  }
  const minors = Math.min(4, slots);
  const patches = Math.floor(slots / minors);
  const slotOf = (version: string) => {
    const m = /^v1\.(\d+)\.(\d+)$/.exec(version);
    if (!m) throw new Error(`not a Kubernetes version: ${version}`);
    return (Number(m[1]) % minors) * patches + (Number(m[2]) % patches);
  };
  const ids = new Map<string, Map<string, number>>();
  const bySlot = new Map<number, string>();
  const problems: string[] = [];
  for (const version of [...new Set(versions)].sort()) {
    const slot = slotOf(version);
    const other = bySlot.get(slot);
    if (other !== undefined) {
      problems.push(
        `instance ${instanceName}: images ${other} and ${version} would share template VM ids ${range.start + slot * sortedNodes.length}-${range.start + slot * sortedNodes.length + sortedNodes.length - 1} ` +
          `(vmIdRange ${range.start}-${range.end} with ${sortedNodes.length} nodes fits ${minors} minor × ${patches} patch versions); ` +
          `drop one of them, or widen vmIdRange (that renumbers and rebuilds every template)`,
      );
      continue;
    }
    bySlot.set(slot, version);
    ids.set(version, new Map(sortedNodes.map((node, rank) => [node, range.start + slot * sortedNodes.length + rank])));
  }
  if (problems.length > 0) throw new TemplateIdConflict(problems.join('\n'), problems);
  return ids;
}
