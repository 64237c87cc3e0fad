/**
 * SIMULATED in the lab twin: the runs of the secondary-clusters Secret mirror, the CronJob each
 * tenant stack renders (modules/tenants/secondary-mirror.ts). There is no container runtime, so the
 * twin runs the CronJob's pod as rendered (jobs.ts): its `sh -c` script with the real shell, its
 * `kubectl` calls with a token of the rendered ServiceAccount (a TokenRequest against the management
 * API server), so the rendered Role and RoleBinding decide what it may read and write — never the
 * admin. What the script writes is what the secondaries get; a run that fails (Forbidden, a missing
 * Secret or Cluster, a broken script) writes nothing and is kept with its reason (`failures`).
 *
 * Deviation, stated: the CronJob's schedule (every 5 minutes) is not waited for; the twin runs the
 * pod when what the script reads changed (the CronJob, the primary's Secrets, the secondary
 * Clusters, the ServiceAccount, Role and RoleBinding) and retries a failed run every 15 s, as
 * the Job's backoff would.
 */
import { MIRROR_NAME } from '../modules/tenants/secondary-mirror';
import type { KubeClient, KubeObject } from '../scripts/lib/kube-apiserver';
import { runPod, type PodRun } from './jobs';
import { ReadMemo } from './read-memo';

const RETRY_MS = 15000;

export class MirrorPlayer {
  /** The last run per tenant namespace. */
  readonly runs = new Map<string, PodRun & { at: number; inputs: string }>();

  /** The pass's reads: the twin's shared memo (read-memo.ts), or one of its own cleared every pass. */
  private readonly memo: ReadMemo;
  private readonly ownMemo: boolean;

  constructor(
    private readonly mgmt: KubeClient,
    private readonly adminKubeconfig: string,
    private readonly root: string,
    private readonly log: (line: string) => void = () => {},
    memo?: ReadMemo,
  ) {
    this.memo = memo ?? new ReadMemo(mgmt);
    this.ownMemo = memo === undefined;
  }

  /** Namespaces whose last mirror run failed, with the reason. */
  failures(): Map<string, string> {
    return new Map([...this.runs].filter(([, r]) => !r.ok).map(([ns, r]) => [ns, r.reason ?? 'failed']));
  }

  async tick(): Promise<void> {
    if (this.ownMemo) this.memo.clear();
    const jobs = await this.memo.list('/apis/batch/v1/cronjobs');
    const seen = new Set<string>();
    for (const job of jobs) {
      if (job.metadata.name !== MIRROR_NAME) continue;
      const ns = job.metadata.namespace as string;
      seen.add(ns);
      if (job.spec?.suspend) continue;
      const inputs = await this.inputs(ns, job);
      const last = this.runs.get(ns);
      if (last && last.inputs === inputs && (last.ok || Date.now() - last.at < RETRY_MS)) continue;
      const pod = job.spec.jobTemplate?.spec?.template?.spec;
      if (!pod) throw new Error(`CronJob ${ns}/${MIRROR_NAME} has no pod template`);
      const run = await runPod(this.mgmt, this.adminKubeconfig, this.root, ns, pod);
      if (run.ok !== last?.ok || run.reason !== last?.reason) this.log(`mirror ${ns}: ${run.ok ? 'run succeeded' : `run FAILED: ${run.reason}`}`);
      this.runs.set(ns, { ...run, at: Date.now(), inputs });
    }
    for (const ns of [...this.runs.keys()]) if (!seen.has(ns)) this.runs.delete(ns);
  }

  /** What a run depends on (read by the harness to decide when to run, never by the run itself). */
  private async inputs(ns: string, job: KubeObject): Promise<string> {
    const versions = (items: KubeObject[], field: 'resourceVersion' | 'uid' = 'resourceVersion') =>
      items.map((i) => `${i.metadata.name}@${i.metadata[field]}`).join(',');
    const secrets = await this.memo.list(`/api/v1/namespaces/${ns}/secrets`);
    const labelled = (o: KubeObject, key: string, value: string) => (o.metadata.labels as Record<string, string> | undefined)?.[key] === value;
    return [
      job.metadata.resourceVersion,
      versions(secrets.filter((o) => o.type === 'cluster.x-k8s.io/secret')),
      versions(secrets.filter((o) => labelled(o, 'kamaji.clastix.io/project', 'kamaji'))),
      // The Clusters by uid: their status changes all the time, and the script reads only their uid.
      versions(await this.memo.list(`/apis/cluster.x-k8s.io/v1beta2/namespaces/${ns}/clusters`), 'uid'),
      versions(await this.memo.list(`/api/v1/namespaces/${ns}/serviceaccounts`)),
      versions(await this.memo.list(`/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`)),
      versions(await this.memo.list(`/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`)),
    ].join('|');
  }
}
