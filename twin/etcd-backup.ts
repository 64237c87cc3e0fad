/**
 * The datastore backup CronJob of the management stack (constructs/etcd-backup-cron-job.ts), run
 * in the lab twin as its Job's pod would run (jobs.ts): its init containers and container as
 * rendered, in order, with the REAL programs of its images built from their modules (etcdctl and
 * etcdutl of the toolchain's etcd, rclone at the rendered image's version), as its `runAsUser` with
 * its `fsGroup` volumes, its `<etcd>-client-certs` Secret mounted at its path and its S3 keys from
 * its `<etcd>-backup-s3` Secret; no ServiceAccount token (it mounts none). The target is a REAL S3
 * endpoint: rclone's own S3 server (`rclone serve s3`, which checks each request's signature against
 * its --auth-key) over a local directory.
 *
 * Deviations, stated: the schedule is not waited for (the test runs the Job when it wants a
 * snapshot); no cluster DNS: the datastore's client Service name and the lab's S3 endpoint host are
 * mapped to the loopback addresses of the twin's datastore and S3 server — only the names the chart
 * and the lab give, so a wrong Service name in the rendering fails to resolve.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { join, relative } from 'node:path';
import type { KubeClient } from '../scripts/lib/kube-apiserver';
import type { TwinDatastore } from './datastore';
import { runPod, type PodRun } from './jobs';
import { fromBlock, resolveRefs } from './providers-ready';
import type { StackContents } from './stack-objects';
import { freePort, stopChild } from '../scripts/lib/ports';

export interface BackupCronJob {
  name: string;
  namespace: string;
  schedule: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- an unstructured Kubernetes object read by path, as the controller reads it
  pod: any;
}

/** The CronJob as the management stack renders it (kubernetes_cron_job_v1), as the API object's JSON. */
export function backupCronJob(stack: StackContents): BackupCronJob | undefined {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a synthesized cdk.tf.json block: untyped JSON read by path, as tofu reads it
  const blocks = Object.values((stack.config.resource?.kubernetes_cron_job_v1 ?? {}) as Record<string, any>);
  if (blocks.length === 0) return undefined;
  if (blocks.length > 1) throw new Error(`${stack.stack}: ${blocks.length} CronJobs; the twin knows one (the datastore backup)`);
  const job = JSON.parse(
    resolveRefs(
      JSON.stringify(fromBlock(blocks[0], { container: 'containers', init_container: 'initContainers', volume: 'volumes', volume_mount: 'volumeMounts' })),
      stack,
    ),
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- an unstructured Kubernetes object read by path, as the controller reads it
  ) as any;
  return { name: job.metadata.name, namespace: job.metadata.namespace, schedule: job.spec.schedule, pod: job.spec.jobTemplate.spec.template.spec };
}

/** An S3 endpoint: `rclone serve s3` over `dir` (each top-level directory a bucket), with one key pair. */
export class TwinS3 {
  private constructor(
    readonly url: string,
    readonly dir: string,
    private readonly child: ChildProcess,
  ) {}

  static async start(root: string, dir: string, buckets: string[], accessKey: string, secretKey: string): Promise<TwinS3> {
    for (const b of buckets) mkdirSync(join(dir, b), { recursive: true });
    const port = await freePort();
    const fd = openSync(join(dir, '..', 's3.log'), 'a');
    const child = spawn(
      join(root, '.toolchain/bin/rclone'),
      ['serve', 's3', dir, '--addr', `127.0.0.1:${port}`, '--auth-key', `${accessKey},${secretKey}`, '--config', '/dev/null'],
      { stdio: ['ignore', fd, fd] },
    );
    closeSync(fd);
    const s3 = new TwinS3(`http://127.0.0.1:${port}`, dir, child);
    const deadline = Date.now() + 30000;
    for (;;) {
      if (child.exitCode !== null)
        throw new Error(`rclone serve s3 exited (${child.exitCode}): ${readFileSync(join(dir, '..', 's3.log'), 'utf8').slice(-2000)}`);
      const up = await new Promise<boolean>((r) => {
        const socket = connect(port, '127.0.0.1');
        socket.once('connect', () => (socket.destroy(), r(true)));
        socket.once('error', () => r(false));
      });
      if (up) return s3;
      if (Date.now() > deadline) throw new Error('rclone serve s3 did not listen within 30 s');
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  /** Object keys under a bucket (its files), sorted. */
  objects(bucket: string): string[] {
    const out: string[] = [];
    const walk = (d: string) => {
      if (!existsSync(d)) return;
      for (const e of readdirSync(d)) {
        const p = join(d, e);
        if (statSync(p).isDirectory()) walk(p);
        else out.push(relative(join(this.dir, bucket), p));
      }
    };
    walk(join(this.dir, bucket));
    return out.sort();
  }

  async stop(): Promise<void> {
    await stopChild(this.child);
  }
}

export interface BackupTargets {
  datastore: TwinDatastore;
  s3: TwinS3;
  /** The lab's `management.datastore.backup.s3.endpoint`. */
  s3Endpoint: string;
  /** The kamaji-etcd release: its fullname and namespace (the client Service `<fullname>-client.<namespace>.svc.<domain>`). */
  etcdFullname: string;
  etcdNamespace: string;
  clusterDomain: string;
}

/** One run of the backup Job's pod; the hosts the pod may reach are the chart's Service and the lab's S3 endpoint. */
export async function runBackupJob(
  mgmt: KubeClient,
  adminKubeconfig: string,
  root: string,
  job: BackupCronJob,
  t: BackupTargets,
  timeoutMs = 300000,
): Promise<PodRun> {
  const hostPort = (url: string) => {
    const u = new URL(url);
    return `${u.hostname}:${u.port || (u.protocol === 'https:' ? '443' : '80')}`;
  };
  const s3 = new URL(t.s3Endpoint);
  const hosts: Record<string, string> = {
    [`${t.etcdFullname}-client.${t.etcdNamespace}.svc.${t.clusterDomain}:2379`]: hostPort(t.datastore.url),
    // The endpoint as the lab writes it (with or without a port) → the twin's S3 server.
    [s3.port ? `${s3.hostname}:${s3.port}` : s3.hostname]: hostPort(t.s3.url),
  };
  return runPod(mgmt, adminKubeconfig, root, job.namespace, job.pod, timeoutMs, { tools: ['etcdctl', 'etcdutl', 'rclone'], hosts, asUser: true });
}
