/**
 * The lab description: one schema, written once, from which both the TypeScript types (`Lab`)
 * and the editor JSON Schema (`schema/lab.schema.json`) come. Field-level rules live here;
 * rules that relate several fields (unique names, references) live in `rules.ts`.
 */
import { z } from 'zod';
import { identitySchema, tenantAccessSchema } from './identity-schema';
import { instanceVolumeStoragesSchema, tenantStorageSchema } from './storage-schema';
import {
  DNS_NAME_PORT,
  IDENTITY,
  INT32_MAX,
  INTERFACE,
  PROXMOX_TAG,
  cidr,
  dnsLabel,
  generatedDirectoryOf,
  ipv4,
  ipv4Range,
  kubernetesVersion,
  nonNegativeInt,
  poolId,
  positiveInt,
  positiveInt32,
  storageId,
  urlWithoutCredentials,
} from './schema-primitives';
import { managementSchema } from './management-schema';

// Still exported from here, where their importers find them.
export { INT32_MAX, kubernetesVersion, ipv4, ipv4Range, cidr, GENERATED_DIRECTORIES, generatedDirectoryOf } from './schema-primitives';
export { managementSchema } from './management-schema';

/** Resources kept free on every Proxmox node, for the host itself and for anything pvekaas does not plan. */
export const reserveSchema = z
  .strictObject({
    cpu: nonNegativeInt('reserve.cpu').default(2).describe('vCPUs kept free on every node (default 2)'),
    memoryMiB: nonNegativeInt('reserve.memoryMiB').default(8192).describe('MiB of memory kept free on every node (default 8192)'),
  })
  .describe('Per-node reserve that placement never plans onto');

export const nodeSchema = z.strictObject({
  name: z.string().min(1, { error: 'a node needs a name: the Proxmox node name, e.g. pmox-txl-1' }).describe('Proxmox node name'),
  cpu: positiveInt32('node cpu', "a node's vCPU count").describe('plannable vCPUs of the node'),
  memoryMiB: positiveInt32('node memoryMiB', "a node's memory in MiB").describe('plannable memory of the node in MiB'),
  down: z
    .boolean({ error: 'down must be true or false' })
    .optional()
    .describe('the node is lost: placement plans nothing on it, and failover shortages are warnings until it is back (docs/placement.md, "Failover")'),
});

/** A template's boot disk size in GiB (what CAPMOX's clone starts from before it resizes to the pool's bootVolume). */
const templateDiskGiB = z
  .int({ error: 'template diskGiB must be a whole number of GiB' })
  .min(1, { error: 'template diskGiB must be at least 1' })
  .max(INT32_MAX);

export const templateSchema = z
  .union(
    [
      z.strictObject({
        sourceNode: z.string().min(1).describe('node holding the template VM'),
        templateID: z.int().min(100).max(999999999).describe('VM id of the template'),
        kubernetesVersion: kubernetesVersion
          .optional()
          .describe(
            'the Kubernetes version whose kubeadm and kubelet the template holds (CABPK needs them to match the machines); required for a tenant to use it',
          ),
        diskGiB: templateDiskGiB
          .optional()
          .describe(
            "size of the template's boot disk (scsi0) in GiB, when known: synth refuses a pool whose size.diskGiB is smaller (Proxmox VE cannot shrink the clone)",
          ),
        versions: z
          .array(
            z.strictObject({
              kubernetesVersion,
              templateID: z.int().min(100).max(999999999).describe('VM id of the template for this version'),
              sourceNode: z.string().min(1).optional().describe('node holding it (default: the sourceNode above)'),
              diskGiB: templateDiskGiB.optional().describe("size of this template's boot disk in GiB (default: the diskGiB above)"),
            }),
          )
          .optional()
          .describe('templates of further Kubernetes versions, one per version, e.g. for an upgrade'),
      }),
      z.strictObject({
        templateSelector: z.strictObject({
          matchTags: z
            .array(z.string().regex(PROXMOX_TAG, { error: 'a Proxmox tag is letters, digits, _ - + .' }))
            .min(1, { error: 'matchTags needs at least one tag, e.g. [capi, v1.35.4]' }),
        }),
      }),
    ],
    {
      error: 'give the template in exactly one form: { sourceNode: <node>, templateID: <id> } or { templateSelector: { matchTags: [capi, v1.35.4] } }',
    },
  )
  .describe('The VM template CAPMOX clones: by source node and id, or by tags');

/** The boot disk of every template the instance stack builds from an image (docs/proxmox.md); a pool's disk is at least this. */
export const IMAGE_TEMPLATE_DISK_GIB = 20;

/** A node image built into a template by the instance stack (see the instance stack docs). */
export const imageSchema = z.strictObject({
  kubernetesVersion: kubernetesVersion.describe('Kubernetes version the image is built for; the template is tagged with it'),
  url: urlWithoutCredentials(z.url({ protocol: /^https?$/, error: 'the image url must be an http(s) URL of a cloud image' })).describe(
    'cloud image URL, downloaded by Proxmox',
  ),
  checksum: z
    .string()
    .regex(/^[a-f0-9]{32,128}$/, { error: 'the checksum is the hex digest of the image' })
    .optional()
    .describe('hex digest of the image'),
  checksumAlgorithm: z.enum(['md5', 'sha1', 'sha224', 'sha256', 'sha384', 'sha512']).default('sha256'),
  fileName: z
    .string()
    .regex(/^[A-Za-z0-9._-]+\.(qcow2|raw|vmdk)$/, { error: 'fileName must end in .qcow2, .raw or .vmdk (the formats Proxmox imports)' })
    .optional()
    .describe('file name on the storage (default derived from the version)'),
  nodes: z
    .array(z.string().min(1))
    .min(1)
    .optional()
    .describe(
      'nodes that get the template (default: one node, the first by name). On local disks (storage.disksShared: false) list every node machines may run on: each machine is cloned from the copy on its own node. With shared disks and templateSelector exactly one, since CAPMOX needs a unique tag match',
    ),
});

export const instanceSchema = z.strictObject({
  name: dnsLabel('an instance name').describe('name of the Proxmox VE cluster (instance), unique'),
  endpoint: urlWithoutCredentials(
    z.url({ protocol: /^https?$/, error: 'endpoint must be the URL of the Proxmox API, e.g. https://pve.lab.example:8006/' }),
  ).describe('Proxmox API endpoint, without /api2/json (https; http only with a warning)'),
  insecure: z.boolean().default(false).describe('skip TLS verification of the endpoint'),
  rootCAData: z
    .string()
    .regex(/^[A-Za-z0-9+/]+={0,2}$/, { error: 'rootCAData is the base64 of a PEM CA certificate on one line, e.g. the output of: base64 -w0 ca.pem' })
    .refine((text) => Buffer.from(text, 'base64').toString('utf8').includes('-----BEGIN CERTIFICATE-----'), {
      error: 'rootCAData does not decode to a PEM certificate (-----BEGIN CERTIFICATE-----); give base64 -w0 ca.pem',
    })
    .optional()
    .describe(
      "base64 of the PEM CA certificate the endpoint's TLS certificate is signed by (like kubeconfig's certificate-authority-data); CAPMOX trusts it besides the system roots",
    ),
  nodes: z.array(nodeSchema).min(1, { error: 'an instance needs at least one node' }),
  template: templateSchema,
  images: z.array(imageSchema).default([]).describe('templates the instance stack builds, one per Kubernetes version'),
  vmIdRange: z
    .strictObject({ start: z.int().min(100), end: z.int().max(999999999) })
    .default({ start: 9000, end: 9099 })
    .describe('VM ids the instance stack uses for the templates it builds'),
  storage: z
    .strictObject({
      disks: storageId('storage.disks').default('local-lvm').describe('storage for VM disks'),
      disksShared: z
        .boolean({ error: 'storage.disksShared is true or false' })
        .default(false)
        .describe(
          'true when storage.disks is shared by every node of the instance (Ceph RBD, NFS, iSCSI): one template then clones to every node. ' +
            'On local storage (the default) Proxmox VE refuses to clone a template to another node ("can\'t clone VM to node … (VM uses local storage)"), so every machine is cloned from a template on its own node',
        ),
      images: storageId('storage.images').default('local').describe('storage (with content type import) for downloaded cloud images'),
      cloudInit: storageId('storage.cloudInit')
        .default('capmox-cloudinit')
        .describe(
          'prefix of the cloud-init storages: the instance stack creates one directory storage (content iso) per tenant with machines on the instance, ' +
            "<cloudInit>-<tenant>, for the cloud-init ISOs CAPMOX uploads and deletes, and only that tenant's token may use it; no such storage may be storage.images or storage.disks",
        ),
      cloudInitPath: z
        .string()
        .regex(/^(\/[A-Za-z0-9_][A-Za-z0-9._-]{0,63}){1,16}$/, {
          error:
            "storage.cloudInitPath is an absolute directory on the nodes: '/' then segments of letters, digits and . _ - (not starting with '.'), e.g. /var/lib/capmox-cloudinit",
        })
        .default('/var/lib/capmox-cloudinit')
        .describe("directory on every node under which each tenant's cloud-init storage keeps its files (<cloudInitPath>/<tenant>); Proxmox VE creates it"),
      volumes: instanceVolumeStoragesSchema,
    })
    .default({ disks: 'local-lvm', disksShared: false, images: 'local', cloudInit: 'capmox-cloudinit', cloudInitPath: '/var/lib/capmox-cloudinit' }),
  bridge: z
    .string()
    .regex(INTERFACE, { error: "bridge must be a Linux interface name: a letter first, then letters, digits, '.', '-' or '_', at most 15 characters" })
    .default('vmbr0')
    .describe('Linux bridge the VMs attach to'),
  pools: z
    .strictObject({
      vms: poolId('pools.vms').default('capi').describe('prefix of the per-tenant pools of CAPMOX VMs: <vms>-<tenant>'),
      templates: poolId('pools.templates').default('templates'),
    })
    .default({ vms: 'capi', templates: 'templates' })
    .describe('Proxmox resource pools: one per tenant for its VMs (<vms>-<tenant>), one for templates'),
});

/**
 * Surge, then retire across an instance-level edit (`tenants[].previous.instances`): the fields of
 * an instance a worker template is made from, as they were. No defaults: an absent field is as it is now.
 */
export const previousInstanceSchema = z.strictObject({
  bridge: z
    .string()
    .regex(INTERFACE, { error: "bridge must be a Linux interface name: a letter first, then letters, digits, '.', '-' or '_', at most 15 characters" })
    .optional()
    .describe('the bridge the VMs attached to'),
  storage: z
    .strictObject({
      disks: storageId('storage.disks').optional().describe('the storage of the VM disks'),
      disksShared: z.boolean({ error: 'storage.disksShared is true or false' }).optional(),
    })
    .optional(),
  template: templateSchema.optional().describe('the template as it was'),
  images: z.array(imageSchema).optional().describe('the images as they were (their templates on local disks)'),
  vmIdRange: z.strictObject({ start: z.int().min(100), end: z.int().max(999999999) }).optional(),
});

/** A node group of a staged surge (`previous.stage`): a pool's machines on one node, `<pool>/<instance>/<node>`. */
const nodeGroupRef = z.string().regex(/^[^/\s]+\/[^/\s]+\/[^/\s]+$/, {
  error: 'a node group is <pool>/<instance>/<node>, e.g. workers/pmox-txl/pmox-txl-1 (npm run upgrade-plan prints them)',
});

export const poolSchema = z
  .strictObject({
    name: dnsLabel('a pool name'),
    replicas: positiveInt('replicas').optional().describe('fixed number of machines'),
    autoscaling: z
      .strictObject({
        min: nonNegativeInt('autoscaling.min'),
        max: positiveInt('autoscaling.max'),
        floor: z
          .record(
            z.string().regex(/^[^/\s]+\/[^/\s]+$/, { error: 'a floor key is <instance>/<node>, e.g. pmox-txl/pmox-txl-1 (the retire guard names it)' }),
            positiveInt('autoscaling.floor'),
          )
          .optional()
          .describe(
            'surge, then retire (docs/tenants.md): by <instance>/<node>, the min size of the new machine deployments there until the retire is done (the pool size now)',
          ),
      })
      .optional()
      .describe('cluster-autoscaler bounds; capacity is reserved for max'),
    size: z.strictObject({
      cpu: positiveInt32('size.cpu', "CAPMOX's numCores"),
      memoryMiB: positiveInt32('size.memoryMiB', "CAPMOX's memoryMiB").multipleOf(8, { error: 'size.memoryMiB must be a multiple of 8 (CAPMOX requires it)' }),
      diskGiB: z
        .int({ error: 'size.diskGiB must be a whole number' })
        .min(5, { error: 'size.diskGiB must be at least 5 (CAPMOX bootVolume minimum)' })
        .max(INT32_MAX, { error: `size.diskGiB is at most ${INT32_MAX}: CAPMOX's bootVolume sizeGb is a 32-bit number` }),
    }),
    instance: z.string().min(1).optional().describe('pin every machine of this pool to this instance'),
    failover: z
      .boolean({ error: 'failover must be true or false' })
      .optional()
      .describe(
        'keep room for the pool on the surviving nodes: synth checks that, when any one node holding its machines is lost, ' +
          're-synth with that node at zero capacity places every machine of the pool (docs/placement.md, "Failover")',
      ),
  })
  .describe('A group of identical worker machines');

/** Node addresses of a tenant's workers on an instance: CAPMOX's in-cluster IPAM pool, gateway, DNS, VLAN. */
export const nodeNetworkSchema = z.strictObject({
  addresses: z.array(ipv4Range).min(1, { error: 'network.addresses needs at least one range for the node IPs' }),
  prefix: z.int().min(1).max(32),
  gateway: ipv4,
  dnsServers: z.array(ipv4).min(1),
  vlan: z.int().min(1).max(4094).optional(),
});

export const placementModes = ['Default', 'SingleInstance', 'MultiInstance'] as const;

export const tenantSchema = z.strictObject({
  name: dnsLabel('a tenant name'),
  kubernetesVersion,
  placement: z
    .strictObject({
      mode: z.enum(placementModes, { error: 'mode must be one of Default, SingleInstance, MultiInstance' }).default('Default'),
      instances: z.array(z.string().min(1)).min(1).optional().describe('eligible instances (default: all)'),
    })
    .default({ mode: 'Default' }),
  pools: z.array(poolSchema).min(1, { error: 'a tenant needs at least one pool of workers' }),
  controlPlane: z
    .strictObject({ replicas: positiveInt('controlPlane.replicas').default(2) })
    .default({ replicas: 2 })
    .describe('Kamaji control plane pods in the management cluster'),
  vip: ipv4.optional().describe('control-plane VIP; default: allocated from management.loadBalancer.addresses'),
  network: nodeNetworkSchema.optional().describe('node IPs for the workers (CAPMOX in-cluster IPAM)'),
  networks: z
    .record(z.string().min(1), nodeNetworkSchema)
    .optional()
    .describe(
      'capmox.multiInstance secondary-clusters only: the node network of each instance, by instance name (separate Proxmox clusters rarely share one L2 range); an instance without an entry uses network',
    ),
  podCIDR: cidr.default('10.244.0.0/16'),
  serviceCIDR: cidr.default('10.96.0.0/12'),
  cni: z.enum(['cilium', 'calico']).default('cilium'),
  groups: z
    .array(
      z
        .string()
        .regex(IDENTITY, { error: 'a group name is letters, digits and . _ @ : / + = -, starting with a letter or digit' })
        .refine((g) => !/^system:/i.test(g), {
          error:
            'a "system:" group is Kubernetes\' own (system:authenticated is everyone who can log in, system:masters the cluster admins); granting it this tenant\'s access would open its admin kubeconfig to them',
          params: { fix: 'name the group of the people who run this tenant, e.g. team-d' },
        }),
    )
    .default([])
    .describe('groups that may read and scale this tenant (no system: groups)'),
  sharesLayer2With: z
    .array(dnsLabel('a tenant name'))
    .optional()
    .describe(
      'tenants whose workers may share a layer-2 network with this one (the same VLAN, or the bridge untagged, of an instance both use): each of the two must name the other; without it two tenants on one VLAN of one bridge are refused',
    ),
  quota: z
    .strictObject({
      cpu: positiveInt('quota.cpu'),
      memoryMiB: positiveInt('quota.memoryMiB'),
      diskGiB: positiveInt('quota.diskGiB')
        .optional()
        .describe("most GiB of machine disks (pool size.diskGiB × machines at max); volumes are bounded by the tenant's own storages"),
    })
    .optional()
    .describe('most vCPUs, memory and (optionally) machine disk the tenant may reserve, every pool at its max (checked before synth)'),
  previous: z
    .strictObject({
      kubernetesVersion: kubernetesVersion.optional().describe('the version the workers ran before this change (an upgrade: at most one minor older)'),
      pools: z
        .array(poolSchema)
        .min(1, { error: 'previous.pools needs at least one pool' })
        .optional()
        .describe('the pools as they were before this change (default: pools)'),
      network: nodeNetworkSchema.optional().describe('the node network as it was before this change, e.g. its vlan (default: network)'),
      networks: z
        .record(z.string().min(1), nodeNetworkSchema)
        .optional()
        .describe(
          "by instance name: the tenant's node network there as it was before this change (a networks entry, e.g. its vlan; default: as networks and network are now)",
        ),
      instances: z
        .record(z.string().min(1), previousInstanceSchema)
        .optional()
        .describe(
          "by instance name: the instance's worker template fields as they were before this change (bridge, storage, template, images, vmIdRange; default: as they are now)",
        ),
      stage: z
        .strictObject({
          surge: z.array(nodeGroupRef).optional().describe('the node groups that surge in this step: their old machine deployments stay beside the new ones'),
          hold: z.array(nodeGroupRef).optional().describe('the node groups held back: their old machine deployments stay exactly as they are, no new ones yet'),
        })
        .optional()
        .describe(
          'a staged surge, one node group (<pool>/<instance>/<node>) at a time, where the whole surge does not fit a node (npm run upgrade-plan prints each step): a replaced node group in neither list has surged and retired in an earlier step',
        ),
    })
    .optional()
    .describe(
      'surge, then retire (docs/tenants.md): what the tenant was before a change that replaces node groups; its machine deployments stay beside the new ones until you remove previous, once the new Nodes are Ready',
    ),
  access: tenantAccessSchema.optional(),
  storage: tenantStorageSchema,
});

const relativePath = z
  .string()
  .min(1)
  .refine((p) => !p.startsWith('/') && !p.startsWith('~') && !/^[A-Za-z]:[\\/]/.test(p), {
    error: 'stateDir must be relative to the project (synthesized stacks never carry a path of the machine that made them)',
  })
  .refine((p) => !p.split(/[\\/]/).includes('..'), {
    error: 'stateDir must stay inside the project: a ".." segment leads out of it',
    params: { fix: 'name a directory inside the project, e.g. state' },
  })
  .refine((p) => /^[A-Za-z0-9._/-]+$/.test(p), { error: 'stateDir is a relative path of letters, digits and . _ - /' })
  .superRefine((p, ctx) => {
    const generated = generatedDirectoryOf(p);
    if (generated) {
      ctx.addIssue({
        code: 'custom',
        message: `stateDir is inside ${generated}/, a directory pvekaas generates (${generated === 'hcl' ? 'export-hcl' : generated === 'out' ? 'deploy' : 'synth and cdktf'} replace${generated === 'cdktf.out' ? '' : 's'} it whole): state kept there can be deleted by the next run`,
        params: { fix: 'keep state outside every generated directory, e.g. stateDir: state' },
      });
    }
  });

export const deliverySchema = z
  .strictObject({
    backend: z.enum(['local', 'cloud'], { error: 'backend is local or cloud' }).default('local').describe('where each stack keeps its state'),
    local: z
      .strictObject({ stateDir: relativePath.default('state').describe('directory for <stack>.tfstate, relative to the project') })
      .default({ stateDir: 'state' }),
    cloud: z
      .strictObject({
        organization: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, { error: 'organization is a Terraform Cloud organization name: letters, digits, - and _' }),
        project: z
          .string()
          .regex(/^[A-Za-z0-9_][A-Za-z0-9 _-]{0,39}$/, { error: 'project is a Terraform Cloud project name: letters, digits, spaces, - and _' })
          .optional()
          .describe('Terraform Cloud project of the workspaces'),
        workspacePrefix: dnsLabel('workspacePrefix').describe('workspace names are <prefix>-<stack>'),
        hostname: z.string().regex(DNS_NAME_PORT, { error: 'hostname is a DNS name (and port), e.g. app.terraform.io' }).default('app.terraform.io'),
      })
      .optional(),
  })
  .describe('state backends: local files (default) or one Terraform Cloud/Enterprise workspace per stack');

export const labSchema = z.strictObject({
  proxmox: z.strictObject({
    reserve: reserveSchema.default({ cpu: 2, memoryMiB: 8192 }),
    instances: z.array(instanceSchema).min(1, { error: 'list at least one Proxmox instance; the first is the default' }),
  }),
  management: managementSchema,
  capmox: z
    .strictObject({
      multiInstance: z
        .enum(['refuse', 'proposal', 'secondary-clusters'], {
          error:
            'capmox.multiInstance is refuse (released CAPMOX), secondary-clusters (released CAPMOX, one secondary CAPI Cluster per extra instance) or proposal (a CAPMOX implementing its open multi-instance pull requests #887-#889)',
        })
        .default('secondary-clusters')
        .describe(
          'released CAPMOX (v0.9) binds a cluster to one Proxmox API; "secondary-clusters" (the default, proven in the lab twin) renders a tenant whose machines span instances with one secondary CAPI Cluster per extra instance whose workers join the tenant\'s one control plane; "refuse" refuses such tenants; "proposal" renders them for a CAPMOX that implements its open multi-instance pull requests #887-#889 (spec.availabilityZones, one zone per instance with its own credentials; machine deployments in their zone as CAPI failure domains)',
        ),
    })
    .default({ multiInstance: 'secondary-clusters' }),
  tenants: z.array(tenantSchema).default([]),
  delivery: deliverySchema.default({ backend: 'local', local: { stateDir: 'state' } }),
  identity: identitySchema.optional(),
});

export type Lab = z.output<typeof labSchema>;
export type LabInput = z.input<typeof labSchema>;
export type Instance = Lab['proxmox']['instances'][number];
export type ProxmoxNode = Instance['nodes'][number];
export type Tenant = Lab['tenants'][number];
export type Pool = Tenant['pools'][number];
export type Management = Lab['management'];
export type PlacementMode = (typeof placementModes)[number];
export type Delivery = Lab['delivery'];
export type Image = Instance['images'][number];
export type NodeNetwork = z.output<typeof nodeNetworkSchema>;
export type PreviousInstance = z.output<typeof previousInstanceSchema>;

/** An existing template CAPMOX clones for one Kubernetes version: `{ sourceNode, templateID }`. */
export interface FixedTemplate {
  sourceNode: string;
  templateID: number;
}

/**
 * The `{ sourceNode, templateID }` template of an instance for a Kubernetes version, or undefined
 * when the instance selects templates by tags or has none for that version.
 */
export function fixedTemplateFor(instance: Instance, version: string): FixedTemplate | undefined {
  const t = instance.template;
  if (!('templateID' in t)) return undefined;
  if (t.kubernetesVersion === version) return { sourceNode: t.sourceNode, templateID: t.templateID };
  const more = t.versions?.find((v) => v.kubernetesVersion === version);
  return more ? { sourceNode: more.sourceNode ?? t.sourceNode, templateID: more.templateID } : undefined;
}

/**
 * The template a machine on `node` is cloned from when the instance's disks are on local storage
 * (issue 11, B2: Proxmox VE clones a template with local disks to its own node only): the fixed
 * template of that version if it sits on that node, or the node's own copy of the version's image
 * (VM id from templateVmIds). Undefined when the disks are shared (any template clones anywhere)
 * or the node has no template for the version.
 */
export function nodeTemplateFor(
  instance: Instance,
  version: string,
  node: string,
  ids: (versions: string[]) => Map<string, Map<string, number>>,
): FixedTemplate | undefined {
  if (instance.storage.disksShared) return undefined;
  if ('templateID' in instance.template) {
    const fixed = fixedTemplateFor(instance, version);
    return fixed && fixed.sourceNode === node ? fixed : undefined;
  }
  const image = instance.images.find((i) => i.kubernetesVersion === version);
  if (!image || !imageNodes(instance, image).includes(node)) return undefined;
  const templateID = ids(instance.images.map((i) => i.kubernetesVersion))
    .get(version)
    ?.get(node);
  return templateID === undefined ? undefined : { sourceNode: node, templateID };
}

/** The nodes an image becomes a template on: the listed ones, or the first node by name. */
export function imageNodes(instance: Instance, image: Image): string[] {
  if (image.nodes) return [...image.nodes].sort();
  return [instance.nodes.map((n) => n.name).sort()[0]];
}
