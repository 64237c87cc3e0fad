/**
 * The schema of `management`: the management cluster, its load-balancer pool, datastore, mirror,
 * version pins and health check (part of the lab schema, ./schema.ts).
 */
import { z } from 'zod';
import { pinnedVersions } from '../versions/pins';
import {
  INTERFACE,
  IDENTITY,
  FILE_PATH,
  VERSION_PIN,
  DNS_SUBDOMAIN,
  noCredentials,
  urlWithoutCredentials,
  positiveInt,
  positiveInt32,
  ipv4Range,
  generatedDirectoryOf,
} from './schema-primitives';

const versionPin = (what: string, example: string) =>
  z
    .string()
    .regex(VERSION_PIN, { error: `a version is letters, digits and . _ + : @ -, e.g. ${pinnedVersions.clusterApi} or sha256:<digest>` })
    .optional()
    .describe(`${what} (pinned: ${example}); checked by the version guard`);

const CRON = /^(@(yearly|annually|monthly|weekly|daily|midnight|hourly)|(\S+\s+){4}\S+)$/;

export const managementSchema = z.strictObject({
  kubernetes: z
    .union([
      z.strictObject({
        configPath: z
          .string()
          .regex(FILE_PATH, { error: 'configPath is a file path: letters, digits, spaces and . _ ~ / + @ = : , -' })
          .superRefine((p, ctx) => {
            const generated = generatedDirectoryOf(p);
            if (generated) {
              ctx.addIssue({
                code: 'custom',
                message: `configPath is inside ${generated}/, a directory pvekaas generates and replaces: a kubeconfig kept there is copied, uploaded or deleted with it`,
                params: { fix: 'keep the kubeconfig outside every generated directory, e.g. ~/.kube/lab-mgmt.yaml' },
              });
            }
          })
          .describe('kubeconfig path, relative to the working directory of the deploy'),
        context: z.string().regex(IDENTITY, { error: 'context is a kubeconfig context name: letters, digits and . _ @ : / + = -' }).optional(),
      }),
      z.strictObject({
        host: urlWithoutCredentials(z.url({ protocol: /^https$/ })).describe('API server URL; CA and token come from sensitive variables'),
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
    interfaces: z.array(z.string().regex(INTERFACE, { error: 'an interface is a Linux interface name, e.g. eth0' })).default([]),
  }),
  healthCheck: z
    .strictObject({
      nodeStartupSeconds: positiveInt32('healthCheck.nodeStartupSeconds', 'CAPI nodeStartupTimeoutSeconds')
        .min(60, { error: 'healthCheck.nodeStartupSeconds is at least 60: a VM needs that long to clone, boot and join' })
        .default(1200)
        .describe('a worker machine without a Node after this long is replaced'),
      unhealthySeconds: positiveInt32('healthCheck.unhealthySeconds', 'CAPI timeoutSeconds')
        .min(10, { error: 'healthCheck.unhealthySeconds is at least 10: shorter replaces workers for a missed heartbeat' })
        .default(300)
        .describe('a worker Node NotReady (Ready False or Unknown) this long is replaced'),
    })
    .default({ nodeStartupSeconds: 1200, unhealthySeconds: 300 })
    .describe("the worker MachineHealthCheck of every tenant (the class's and each secondary Cluster's)"),
  autoscaler: z
    .strictObject({
      scaleDownUnneededSeconds: positiveInt32('autoscaler.scaleDownUnneededSeconds', 'cluster-autoscaler --scale-down-unneeded-time')
        .optional()
        .describe('how long a node must be unneeded (idle) before the autoscaler removes it; upstream default 600'),
      scaleDownDelayAfterAddSeconds: positiveInt32('autoscaler.scaleDownDelayAfterAddSeconds', 'cluster-autoscaler --scale-down-delay-after-add')
        .optional()
        .describe('how long after a scale-up scale-down evaluation resumes; upstream default 600'),
    })
    .optional()
    .describe("every tenant's cluster-autoscaler: its scale-down timings (unset: the autoscaler's defaults, 10 minutes each)"),
  datastore: z
    .strictObject({
      replicas: z
        .union([z.literal(1), z.literal(3), z.literal(5)], { error: 'datastore.replicas is 1, 3 or 5 (etcd needs an odd member count)' })
        .default(3)
        .describe('kamaji-etcd members, one per management node'),
      size: z
        .string()
        .regex(/^\d+(Gi|Mi|Ti)$/, { error: 'size is a Kubernetes quantity such as 10Gi' })
        .default('8Gi'),
      storageClass: z
        .string()
        .regex(DNS_SUBDOMAIN, { error: 'storageClass is a Kubernetes object name: lowercase letters, digits, - and .' })
        .optional()
        .describe('StorageClass of the etcd volumes (unset: pvekaas-local-path with csi local-path, else openebs-hostpath)'),
      csi: z
        .enum(['openebs-localpv', 'local-path', 'existing'], {
          error: 'datastore.csi is openebs-localpv or local-path (installed by pvekaas) or existing (storageClass already exists, e.g. k3s local-path)',
        })
        .default('openebs-localpv')
        .describe(
          'openebs-localpv, local-path (Rancher local-path-provisioner, chart from mirror.charts): pvekaas installs it and creates storageClass; existing: the cluster has it',
        ),
      backup: z
        .strictObject({
          schedule: z.string().regex(CRON, { error: 'schedule is a cron expression such as "0 */6 * * *"' }).default('0 */6 * * *'),
          retention: positiveInt('backup.retention')
            // The Job's retention step is shell arithmetic on it ($((RETENTION + 1))): a number past 2^53 is written 1e+21 and fails it.
            .max(100000, { error: 'backup.retention is at most 100000 snapshots (one an hour for over 11 years)' })
            .default(14)
            .describe('snapshots kept; older ones are deleted after each backup'),
          s3: z.strictObject({
            endpoint: urlWithoutCredentials(z.url({ protocol: /^https?$/, error: 'endpoint is the http(s) URL of the S3-compatible service' })),
            bucket: z
              .string()
              .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, { error: 'bucket is an S3 bucket name: 3-63 lowercase letters, digits, dots and dashes' }),
            region: z
              .string()
              .regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/, { error: 'region is letters, digits, - and _, e.g. us-east-1' })
              .default('us-east-1'),
            prefix: z
              .string()
              .regex(/^([A-Za-z0-9_.-]+\/)*$/, { error: 'prefix is empty or a path ending in "/" of letters, digits, _ . -, e.g. kamaji-etcd/' })
              .refine((p) => !p.split('/').some((s) => s === '.' || s === '..'), { error: 'prefix must not have a "." or ".." segment' })
              .default('kamaji-etcd/'),
          }),
        })
        .optional()
        .describe('scheduled etcd snapshots of the shared datastore to S3; access keys come from sensitive variables'),
    })
    .default({ replicas: 3, size: '8Gi', csi: 'openebs-localpv' }),
  versions: z
    .strictObject({
      clusterApi: versionPin('CAPI core and kubeadm bootstrap provider', pinnedVersions.clusterApi),
      kamajiProvider: versionPin('Kamaji control-plane provider', pinnedVersions.kamajiProvider),
      proxmoxProvider: versionPin('CAPMOX infrastructure provider', pinnedVersions.proxmoxProvider),
      inClusterIpam: versionPin('in-cluster IPAM provider', pinnedVersions.inClusterIpam),
      helmAddon: versionPin('CAAPH add-on provider', pinnedVersions.helmAddon),
      clusterApiOperator: versionPin('cluster-api-operator chart', pinnedVersions.clusterApiOperator),
      certManager: versionPin('cert-manager chart', pinnedVersions.certManager),
      kamajiChart: versionPin('Kamaji chart', pinnedVersions.kamajiChart),
      kamajiImage: versionPin('Kamaji image edge tag', pinnedVersions.kamajiImage),
      kamajiImageDigest: versionPin('Kamaji image digest', 'sha256:...'),
      kamajiEtcd: versionPin('kamaji-etcd chart', pinnedVersions.kamajiEtcd),
      etcd: versionPin('etcd image', pinnedVersions.etcd),
      metallb: versionPin('MetalLB chart', pinnedVersions.metallb),
      localpvProvisioner: versionPin('OpenEBS LocalPV chart', pinnedVersions.localpvProvisioner),
      localPathProvisioner: versionPin('local-path-provisioner chart (and its image, v<version>)', pinnedVersions.localPathProvisioner),
      kubectl: versionPin('kubectl image of the provider readiness Job', pinnedVersions.kubectl),
      rclone: versionPin('rclone image of the datastore backup', pinnedVersions.rclone),
    })
    .default({})
    .describe('overrides of the pinned versions (see modules/versions and docs/management.md)'),
  mirror: z
    .strictObject({
      charts: z
        .string()
        .superRefine(noCredentials)
        .regex(/^(oci|https?):\/\/\S+$/, { error: 'mirror.charts is an oci:// or http(s):// chart repository' })
        .optional()
        .describe('OCI or HTTP chart repository replacing every chart repository'),
      images: z
        .string()
        .superRefine(noCredentials)
        .regex(/^[a-z0-9.-]+(:\d+)?(\/[a-z0-9._-]+)*$/, { error: 'mirror.images is a registry prefix without scheme, e.g. registry.lab.example/mirror' })
        .optional()
        .describe('registry prefix for every image: <images>/<source registry>/<path>'),
      providers: z
        .string()
        .superRefine(noCredentials)
        .regex(/^(oci:\/\/)?[a-z0-9.-]+(:\d+)?(\/[a-z0-9._-]+)*$/, {
          error: 'mirror.providers is an OCI repository prefix, e.g. registry.lab.example/mirror/capi-providers',
        })
        .optional()
        .describe('OCI repository prefix of the CAPI provider components (default <images>/capi-providers)'),
    })
    .optional(),
});
