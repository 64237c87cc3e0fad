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
    .regex(/^[A-Za-z0-9._-]+\.(qcow2|img|raw)$/, { error: 'fileName must end in .qcow2, .img or .raw' })
    .optional()
    .describe('file name on the storage (default derived from the version)'),
  nodes: z.array(z.string().min(1)).min(1).optional().describe('nodes that get the template (default: every node of the instance)'),
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
      cloudInit: z.string().min(1).default('local-lvm').describe('storage for the cloud-init drive (CAPMOX needs PVEDatastoreAdmin on it)'),
    })
    .default({ disks: 'local-lvm', images: 'local', cloudInit: 'local-lvm' }),
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
  loadBalancer: z.strictObject({
    addresses: z.array(ipv4Range).min(1, { error: 'loadBalancer.addresses needs at least one range for tenant VIPs' }),
    vlan: z.int().min(1).max(4094).optional(),
    interfaces: z.array(z.string().min(1)).default([]),
  }),
  datastore: z
    .strictObject({
      size: z.string().regex(/^\d+(Gi|Mi|Ti)$/, { error: 'size is a Kubernetes quantity such as 10Gi' }).default('8Gi'),
      storageClass: z.string().min(1).default('local-path'),
      backup: z
        .strictObject({
          schedule: z.string().min(1).default('0 */6 * * *'),
          retention: positiveInt('backup.retention').default(14),
          s3: z.strictObject({
            endpoint: z.url(),
            bucket: z.string().min(1),
            region: z.string().min(1).default('us-east-1'),
            prefix: z.string().default('kamaji-etcd/'),
          }),
        })
        .optional(),
    })
    .default({ size: '8Gi', storageClass: 'local-path' }),
  versions: z.record(z.string(), z.string()).default({}).describe('overrides of the pinned versions (see modules/versions)'),
  mirror: z
    .strictObject({
      charts: z.string().min(1).optional().describe('OCI or HTTP chart repository replacing every chart repository'),
      images: z.string().min(1).optional().describe('registry prefix for every image'),
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
