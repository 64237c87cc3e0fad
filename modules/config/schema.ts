/**
 * The lab description: one schema, written once, from which both the TypeScript types (`Lab`)
 * and the editor JSON Schema (`schema/lab.schema.json`) come. Field-level rules live here;
 * rules that relate several fields (unique names, references) live in `rules.ts`.
 */
import { z } from 'zod';

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const K8S_VERSION = /^v1\.(\d+)\.(\d+)$/;
const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const IPV4_RANGE_OR_CIDR =
  /^((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3})(-((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3})|\/(3[0-2]|[12]?\d))?$/;
const CIDR = /^((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3})\/(3[0-2]|[12]?\d)$/;
const PROXMOX_TAG = /^[a-z0-9_][a-z0-9_\-+.]*$/i;

const dnsLabel = (what: string) =>
  z
    .string()
    .regex(DNS_LABEL, {
      error: `${what} must be a lowercase DNS label: a-z, 0-9 and '-', starting and ending with a letter or digit, at most 63 characters`,
    });

const positiveInt = (what: string) =>
  z.int({ error: `${what} must be a whole number` }).positive({ error: `${what} must be greater than 0` });

const nonNegativeInt = (what: string) =>
  z.int({ error: `${what} must be a whole number` }).nonnegative({ error: `${what} must be 0 or more` });

export const kubernetesVersion = z
  .string()
  .regex(K8S_VERSION, { error: 'a Kubernetes version is written like v1.30.5 (with the leading v and a patch number)' });

export const ipv4 = z.string().regex(IPV4, { error: 'expected an IPv4 address such as 10.0.0.1' });
export const ipv4Range = z
  .string()
  .regex(IPV4_RANGE_OR_CIDR, { error: 'expected an IPv4 address, a range "10.0.0.10-10.0.0.50" or a CIDR "10.0.0.0/24"' });
export const cidr = z.string().regex(CIDR, { error: 'expected an IPv4 CIDR such as 10.244.0.0/16' });

/** Resources kept free on every Proxmox node, for the host itself and for anything pvekaas does not plan. */
export const reserveSchema = z
  .strictObject({
    cpu: nonNegativeInt('reserve.cpu').default(2).describe('vCPUs kept free on every node (default 2)'),
    memoryMiB: nonNegativeInt('reserve.memoryMiB').default(8192).describe('MiB of memory kept free on every node (default 8192)'),
  })
  .describe('Per-node reserve that placement never plans onto');

export const nodeSchema = z.strictObject({
  name: z.string().min(1, { error: 'a node needs a name: the Proxmox node name, e.g. pmox-txl-1' }).describe('Proxmox node name'),
  cpu: positiveInt('node cpu').describe('plannable vCPUs of the node'),
  memoryMiB: positiveInt('node memoryMiB').describe('plannable memory of the node in MiB'),
});

export const templateSchema = z
  .union(
    [
      z.strictObject({
        sourceNode: z.string().min(1).describe('node holding the template VM'),
        templateID: z.int().min(100).max(999999999).describe('VM id of the template'),
      }),
      z.strictObject({
        templateSelector: z.strictObject({
          matchTags: z
            .array(z.string().regex(PROXMOX_TAG, { error: 'a Proxmox tag is letters, digits, _ - + .' }))
            .min(1, { error: 'matchTags needs at least one tag, e.g. [capi, v1.30.5]' }),
        }),
      }),
    ],
    {
      error:
        'give the template in exactly one form: { sourceNode: <node>, templateID: <id> } or { templateSelector: { matchTags: [capi, v1.30.5] } }',
    },
  )
  .describe('The VM template CAPMOX clones: by source node and id, or by tags');

/** A node image built into a template by the instance stack (see the instance stack docs). */
export const imageSchema = z.strictObject({
  kubernetesVersion: kubernetesVersion.describe('Kubernetes version the image is built for; the template is tagged with it'),
  url: z.url({ protocol: /^https?$/, error: 'the image url must be an http(s) URL of a cloud image' }).describe('cloud image URL, downloaded by Proxmox'),
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
    .describe('nodes that get the template (default: one node, the first by name; with templateSelector exactly one, since CAPMOX needs a unique match — put disks on shared storage so it clones to every node)'),
});

export const instanceSchema = z.strictObject({
  name: dnsLabel('an instance name').describe('name of the Proxmox VE cluster (instance), unique'),
  endpoint: z
    .url({ protocol: /^https?$/, error: 'endpoint must be the URL of the Proxmox API, e.g. https://pve.lab.example:8006/' })
    .describe('Proxmox API endpoint, without /api2/json'),
  insecure: z.boolean().default(false).describe('skip TLS verification of the endpoint'),
  nodes: z.array(nodeSchema).min(1, { error: 'an instance needs at least one node' }),
  template: templateSchema,
  images: z.array(imageSchema).default([]).describe('templates the instance stack builds, one per Kubernetes version'),
  vmIdRange: z
    .strictObject({ start: z.int().min(100), end: z.int().max(999999999) })
    .default({ start: 9000, end: 9099 })
    .describe('VM ids the instance stack uses for the templates it builds'),
  storage: z
    .strictObject({
      disks: z.string().min(1).default('local-lvm').describe('storage for VM disks'),
      images: z.string().min(1).default('local').describe('storage (with content type import) for downloaded cloud images'),
      cloudInit: z.string().min(1).default('local').describe('storage (with content type iso) for the cloud-init ISO CAPMOX writes (it needs PVEDatastoreAdmin on it)'),
    })
    .default({ disks: 'local-lvm', images: 'local', cloudInit: 'local' }),
  bridge: z.string().min(1).default('vmbr0').describe('Linux bridge the VMs attach to'),
  pools: z
    .strictObject({
      vms: z.string().min(1).default('capi'),
      templates: z.string().min(1).default('templates'),
    })
    .default({ vms: 'capi', templates: 'templates' })
    .describe('Proxmox resource pools for CAPMOX VMs and for templates'),
});

export const poolSchema = z
  .strictObject({
    name: dnsLabel('a pool name'),
    replicas: positiveInt('replicas').optional().describe('fixed number of machines'),
    autoscaling: z
      .strictObject({ min: nonNegativeInt('autoscaling.min'), max: positiveInt('autoscaling.max') })
      .optional()
      .describe('cluster-autoscaler bounds; capacity is reserved for max'),
    size: z.strictObject({
      cpu: positiveInt('size.cpu'),
      memoryMiB: positiveInt('size.memoryMiB').multipleOf(8, { error: 'size.memoryMiB must be a multiple of 8 (CAPMOX requires it)' }),
      diskGiB: z.int().min(5, { error: 'size.diskGiB must be at least 5 (CAPMOX bootVolume minimum)' }),
    }),
    instance: z.string().min(1).optional().describe('pin every machine of this pool to this instance'),
  })
  .describe('A group of identical worker machines');

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
  network: z
    .strictObject({
      addresses: z.array(ipv4Range).min(1, { error: 'network.addresses needs at least one range for the node IPs' }),
      prefix: z.int().min(1).max(32),
      gateway: ipv4,
      dnsServers: z.array(ipv4).min(1),
      vlan: z.int().min(1).max(4094).optional(),
    })
    .optional()
    .describe('node IPs for the workers (CAPMOX in-cluster IPAM)'),
  podCIDR: cidr.default('10.244.0.0/16'),
  serviceCIDR: cidr.default('10.96.0.0/12'),
  cni: z.enum(['cilium', 'calico']).default('cilium'),
  groups: z.array(z.string().min(1)).default([]).describe('groups that may read and scale this tenant'),
});

const versionPin = (what: string, example: string) => z.string().min(1).optional().describe(`${what} (pinned: ${example}); checked by the version guard`);

const CRON = /^(@(yearly|annually|monthly|weekly|daily|midnight|hourly)|(\S+\s+){4}\S+)$/;

export const managementSchema = z.strictObject({
  kubernetes: z
    .union([
      z.strictObject({
        configPath: z.string().min(1).describe('kubeconfig path, relative to the working directory of the deploy'),
        context: z.string().min(1).optional(),
      }),
      z.strictObject({
        host: z.url({ protocol: /^https$/ }).describe('API server URL; CA and token come from sensitive variables'),
      }),
    ])
    .default({ configPath: '~/.kube/config' })
    .describe('how Terraform reaches the management cluster'),
  clusterDomain: z
    .string()
    .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/, { error: 'clusterDomain is a DNS name such as cluster.local' })
    .default('cluster.local')
    .describe("the management cluster's DNS domain; kamaji-etcd's peer names and certificates use it"),
  loadBalancer: z.strictObject({
    addresses: z.array(ipv4Range).min(1, { error: 'loadBalancer.addresses needs at least one range for tenant VIPs' }),
    vlan: z.int().min(1).max(4094).optional(),
    interfaces: z.array(z.string().min(1)).default([]),
  }),
  datastore: z
    .strictObject({
      replicas: z
        .union([z.literal(1), z.literal(3), z.literal(5)], { error: 'datastore.replicas is 1, 3 or 5 (etcd needs an odd member count)' })
        .default(3)
        .describe('kamaji-etcd members, one per management node'),
      size: z.string().regex(/^\d+(Gi|Mi|Ti)$/, { error: 'size is a Kubernetes quantity such as 10Gi' }).default('8Gi'),
      storageClass: z.string().min(1).default('openebs-hostpath').describe('StorageClass of the etcd volumes'),
      csi: z
        .enum(['openebs-localpv', 'existing'], { error: 'datastore.csi is openebs-localpv (installed by pvekaas) or existing (storageClass already exists, e.g. k3s local-path)' })
        .default('openebs-localpv')
        .describe('openebs-localpv: pvekaas installs OpenEBS LocalPV and creates storageClass; existing: the cluster already has storageClass'),
      backup: z
        .strictObject({
          schedule: z.string().regex(CRON, { error: 'schedule is a cron expression such as "0 */6 * * *"' }).default('0 */6 * * *'),
          retention: positiveInt('backup.retention').default(14).describe('snapshots kept; older ones are deleted after each backup'),
          s3: z.strictObject({
            endpoint: z.url({ protocol: /^https?$/, error: 'endpoint is the http(s) URL of the S3-compatible service' }),
            bucket: z.string().regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, { error: 'bucket is an S3 bucket name: 3-63 lowercase letters, digits, dots and dashes' }),
            region: z.string().min(1).default('us-east-1'),
            prefix: z.string().regex(/^([^/].*\/)?$/, { error: 'prefix is empty or a path ending in "/", e.g. kamaji-etcd/' }).default('kamaji-etcd/'),
          }),
        })
        .optional()
        .describe('scheduled etcd snapshots of the shared datastore to S3; access keys come from sensitive variables'),
    })
    .default({ replicas: 3, size: '8Gi', storageClass: 'openebs-hostpath', csi: 'openebs-localpv' }),
  versions: z
    .strictObject({
      clusterApi: versionPin('CAPI core and kubeadm bootstrap provider', 'v1.12.11'),
      kamajiProvider: versionPin('Kamaji control-plane provider', 'v0.20.0'),
      proxmoxProvider: versionPin('CAPMOX infrastructure provider', 'v0.9.0'),
      inClusterIpam: versionPin('in-cluster IPAM provider', 'v1.1.0'),
      helmAddon: versionPin('CAAPH add-on provider', 'v0.6.2'),
      clusterApiOperator: versionPin('cluster-api-operator chart', '0.28.0'),
      certManager: versionPin('cert-manager chart', 'v1.18.3'),
      kamajiChart: versionPin('Kamaji chart', '0.0.0+latest'),
      kamajiImage: versionPin('Kamaji image edge tag', '26.8.2-edge'),
      kamajiImageDigest: versionPin('Kamaji image digest', 'sha256:...'),
      kamajiEtcd: versionPin('kamaji-etcd chart', '0.17.0'),
      etcd: versionPin('etcd image', 'v3.6.12'),
      metallb: versionPin('MetalLB chart', '0.15.3'),
      localpvProvisioner: versionPin('OpenEBS LocalPV chart', '4.1.1'),
      kubectl: versionPin('kubectl image of the provider readiness Job', 'v1.34.3'),
      rclone: versionPin('rclone image of the datastore backup', '1.75.0'),
    })
    .default({})
    .describe('overrides of the pinned versions (see modules/versions and docs/management.md)'),
  mirror: z
    .strictObject({
      charts: z
        .string()
        .regex(/^(oci|https?):\/\/\S+$/, { error: 'mirror.charts is an oci:// or http(s):// chart repository' })
        .optional()
        .describe('OCI or HTTP chart repository replacing every chart repository'),
      images: z
        .string()
        .regex(/^[a-z0-9.-]+(:\d+)?(\/[a-z0-9._-]+)*$/, { error: 'mirror.images is a registry prefix without scheme, e.g. registry.lab.example/mirror' })
        .optional()
        .describe('registry prefix for every image: <images>/<source registry>/<path>'),
      providers: z
        .string()
        .regex(/^(oci:\/\/)?[a-z0-9.-]+(:\d+)?(\/[a-z0-9._-]+)*$/, { error: 'mirror.providers is an OCI repository prefix, e.g. registry.lab.example/mirror/capi-providers' })
        .optional()
        .describe('OCI repository prefix of the CAPI provider components (default <images>/capi-providers)'),
    })
    .optional(),
});

const relativePath = z
  .string()
  .min(1)
  .refine((p) => !p.startsWith('/') && !p.startsWith('~') && !/^[A-Za-z]:[\\/]/.test(p), {
    error: 'stateDir must be relative to the project (synthesized stacks never carry a path of the machine that made them)',
  });

export const deliverySchema = z
  .strictObject({
    backend: z.enum(['local', 'cloud'], { error: 'backend is local or cloud' }).default('local').describe('where each stack keeps its state'),
    local: z
      .strictObject({ stateDir: relativePath.default('state').describe('directory for <stack>.tfstate, relative to the project') })
      .default({ stateDir: 'state' }),
    cloud: z
      .strictObject({
        organization: z.string().min(1),
        project: z.string().min(1).optional().describe('Terraform Cloud project of the workspaces'),
        workspacePrefix: dnsLabel('workspacePrefix').describe('workspace names are <prefix>-<stack>'),
        hostname: z.string().min(1).default('app.terraform.io'),
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
        .enum(['refuse', 'proposal'], { error: 'capmox.multiInstance is refuse (released CAPMOX) or proposal (a CAPMOX implementing the multi-instance proposal)' })
        .default('refuse')
        .describe(
          'released CAPMOX (v0.9) binds a cluster to one Proxmox API, so tenants whose machines span instances are refused; "proposal" renders them for a CAPMOX that implements the multi-instance proposal (spec.settings.instances)',
        ),
    })
    .default({ multiInstance: 'refuse' }),
  tenants: z.array(tenantSchema).default([]),
  delivery: deliverySchema.default({ backend: 'local', local: { stateDir: 'state' } }),
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

/** The nodes an image becomes a template on: the listed ones, or the first node by name. */
export function imageNodes(instance: Instance, image: Image): string[] {
  if (image.nodes) return [...image.nodes].sort();
  return [instance.nodes.map((n) => n.name).sort()[0]];
}
