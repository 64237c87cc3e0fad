/**
 * Scheduled snapshots of the shared kamaji-etcd datastore — which holds every tenant — to an
 * S3-compatible bucket, keeping the newest `retention` snapshots. The kamaji-etcd chart has no
 * backup feature any more (removed in chart 0.8), so this is a CronJob of pvekaas' own:
 *
 * 1. `etcdctl snapshot save` through the client Service, authenticated with the chart's
 *    cert-manager client certificate (`<etcd>-client-certs`, CN root),
 * 2. `etcdutl snapshot status` to refuse a corrupt snapshot,
 * 3. rclone uploads it as `<prefix>kamaji-etcd-<UTC timestamp>.db` and deletes the oldest beyond
 *    the retention count.
 *
 * The S3 access key pair comes from sensitive Terraform variables into a Secret; nothing secret is
 * in the synthesized files. docs/management.md has the restore procedure.
 */
import { TerraformVariable, type ITerraformDependable } from 'cdktf';
import { Construct } from 'constructs';
import type { KubernetesProvider } from '@cdktf/provider-kubernetes/lib/provider';
import { SecretV1 } from '@cdktf/provider-kubernetes/lib/secret-v1';
// Types only (erased at compile): the binding checks the config, its 5 MB of classes never load.
import type { CronJobV1Config } from '@cdktf/provider-kubernetes/lib/cron-job-v1';
import { LeanKubernetesResource, type LeanConfig } from './lean-kubernetes-resource';

export interface EtcdBackupTarget {
  readonly schedule: string;
  /** Snapshots kept. */
  readonly retention: number;
  readonly s3: { readonly endpoint: string; readonly bucket: string; readonly region: string; readonly prefix: string };
}

export interface EtcdBackupCronJobProps {
  readonly provider: KubernetesProvider;
  /** The kamaji-etcd namespace. */
  readonly namespace: string;
  /** kamaji-etcd's fullname: its client Service and certificate Secrets are named after it. */
  readonly etcdName: string;
  /** The management cluster's DNS domain. */
  readonly clusterDomain: string;
  readonly target: EtcdBackupTarget;
  /** etcd image reference (for etcdctl and etcdutl). */
  readonly etcdImage: string;
  /** rclone image reference. */
  readonly rcloneImage: string;
  /** @default none */
  readonly dependsOn?: ITerraformDependable[];
}

export const BACKUP_ACCESS_KEY_VARIABLE = 'datastore_backup_s3_access_key_id';
export const BACKUP_SECRET_KEY_VARIABLE = 'datastore_backup_s3_secret_access_key';

/** Snapshot object names; sortable by time, and what the retention step deletes. */
export const SNAPSHOT_NAME_PATTERN = '^kamaji-etcd-[0-9]{8}T[0-9]{6}Z\\.db$';

// POSIX sh in the rclone (alpine) image. No `${`: Terraform would read it as interpolation.
const UPLOAD_SCRIPT = [
  'set -eu',
  'name="kamaji-etcd-$(date -u +%Y%m%dT%H%M%SZ).db"',
  'dest="target:$S3_BUCKET/$S3_PREFIX"',
  'rclone copyto /backup/snapshot.db "$dest$name"',
  'echo "uploaded $dest$name"',
  `rclone lsf --files-only "$dest" | grep -E '${SNAPSHOT_NAME_PATTERN}' | sort -r | tail -n +$((RETENTION + 1)) | while read -r old; do`,
  '  rclone deletefile "$dest$old" && echo "deleted $dest$old"',
  'done',
].join('\n');

export class EtcdBackupCronJob extends Construct {
  readonly cronJobName: string;

  constructor(scope: Construct, id: string, props: EtcdBackupCronJobProps) {
    super(scope, id);
    const { target } = props;
    const accessKey = new TerraformVariable(this, 'access-key', {
      type: 'string',
      sensitive: true,
      description: `access key id for s3://${target.s3.bucket} (datastore backups)`,
    });
    accessKey.overrideLogicalId(BACKUP_ACCESS_KEY_VARIABLE);
    const secretKey = new TerraformVariable(this, 'secret-key', {
      type: 'string',
      sensitive: true,
      description: `secret access key for s3://${target.s3.bucket} (datastore backups)`,
    });
    secretKey.overrideLogicalId(BACKUP_SECRET_KEY_VARIABLE);
    const labels = { 'app.kubernetes.io/name': `${props.etcdName}-backup`, 'app.kubernetes.io/managed-by': 'pvekaas' };
    const credentials = new SecretV1(this, 's3-credentials', {
      provider: props.provider,
      metadata: { name: `${props.etcdName}-backup-s3`, namespace: props.namespace, labels },
      type: 'Opaque',
      data: { 'access-key-id': accessKey.stringValue, 'secret-access-key': secretKey.stringValue },
      dependsOn: props.dependsOn,
    });
    this.cronJobName = `${props.etcdName}-backup`;
    const fromSecret = (key: string) => ({ secretKeyRef: { name: credentials.metadata.name, key } });
    const hardened = { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } };
    const etcdEnv = [
      { name: 'ETCDCTL_ENDPOINTS', value: `https://${props.etcdName}-client.${props.namespace}.svc.${props.clusterDomain}:2379` },
      { name: 'ETCDCTL_CACERT', value: '/certs/ca.crt' },
      { name: 'ETCDCTL_CERT', value: '/certs/tls.crt' },
      { name: 'ETCDCTL_KEY', value: '/certs/tls.key' },
    ];
    // kubernetes_cron_job_v1 without its 5 MB binding, the same JSON (lean-kubernetes-resource.ts).
    new LeanKubernetesResource(this, 'cron-job', 'kubernetes_cron_job_v1', {
      provider: props.provider,
      dependsOn: [credentials, ...(props.dependsOn ?? [])],
      config: {
        metadata: { name: this.cronJobName, namespace: props.namespace, labels },
        spec: {
          schedule: target.schedule,
          timezone: 'Etc/UTC',
          concurrencyPolicy: 'Forbid',
          startingDeadlineSeconds: 3600,
          successfulJobsHistoryLimit: 3,
          failedJobsHistoryLimit: 3,
          jobTemplate: {
            metadata: { labels },
            spec: {
              backoffLimit: 2,
              activeDeadlineSeconds: 3600,
              template: {
                metadata: { labels },
                spec: {
                  restartPolicy: 'Never',
                  automountServiceAccountToken: false,
                  securityContext: {
                    runAsNonRoot: true,
                    runAsUser: '65532',
                    runAsGroup: '65532',
                    fsGroup: '65532',
                    seccompProfile: { type: 'RuntimeDefault' },
                  },
                  volume: [
                    { name: 'client-certs', secret: { secretName: `${props.etcdName}-client-certs`, defaultMode: '0440' } },
                    { name: 'backup', emptyDir: {} },
                    { name: 'tmp', emptyDir: {} },
                  ],
                  initContainer: [
                    {
                      name: 'snapshot',
                      image: props.etcdImage,
                      imagePullPolicy: 'IfNotPresent',
                      command: ['etcdctl', 'snapshot', 'save', '/backup/snapshot.db'],
                      env: etcdEnv,
                      volumeMount: [
                        { name: 'client-certs', mountPath: '/certs', readOnly: true },
                        { name: 'backup', mountPath: '/backup' },
                      ],
                      securityContext: hardened,
                    },
                    {
                      name: 'verify',
                      image: props.etcdImage,
                      imagePullPolicy: 'IfNotPresent',
                      command: ['etcdutl', 'snapshot', 'status', '/backup/snapshot.db', '--write-out=table'],
                      volumeMount: [{ name: 'backup', mountPath: '/backup', readOnly: true }],
                      securityContext: hardened,
                    },
                  ],
                  container: [
                    {
                      name: 'upload',
                      image: props.rcloneImage,
                      imagePullPolicy: 'IfNotPresent',
                      command: ['/bin/sh', '-c', UPLOAD_SCRIPT],
                      env: [
                        { name: 'HOME', value: '/tmp' },
                        { name: 'RETENTION', value: String(target.retention) },
                        { name: 'S3_BUCKET', value: target.s3.bucket },
                        { name: 'S3_PREFIX', value: target.s3.prefix },
                        { name: 'RCLONE_CONFIG_TARGET_TYPE', value: 's3' },
                        { name: 'RCLONE_CONFIG_TARGET_PROVIDER', value: 'Other' },
                        { name: 'RCLONE_CONFIG_TARGET_ENDPOINT', value: target.s3.endpoint },
                        { name: 'RCLONE_CONFIG_TARGET_REGION', value: target.s3.region },
                        { name: 'RCLONE_CONFIG_TARGET_FORCE_PATH_STYLE', value: 'true' },
                        { name: 'RCLONE_CONFIG_TARGET_NO_CHECK_BUCKET', value: 'true' },
                        { name: 'RCLONE_CONFIG_TARGET_ACCESS_KEY_ID', valueFrom: fromSecret('access-key-id') },
                        { name: 'RCLONE_CONFIG_TARGET_SECRET_ACCESS_KEY', valueFrom: fromSecret('secret-access-key') },
                      ],
                      volumeMount: [
                        { name: 'backup', mountPath: '/backup', readOnly: true },
                        { name: 'tmp', mountPath: '/tmp' },
                      ],
                      securityContext: hardened,
                    },
                  ],
                },
              },
            },
          },
        },
      } satisfies LeanConfig<CronJobV1Config>,
    });
  }
}
