/**
 * Backups that restore (issue 24, items 2 and 3), in the lab twin: the tenants' API servers keep
 * their objects in the twin's REAL shared datastore (one etcd, each tenant under Kamaji's prefix
 * `/<schema>/`, twin/datastore.ts). The management stack's backup CronJob is run as its
 * Job's pod would run (twin/etcd-backup.ts): real etcdctl/etcdutl/rclone, its Secrets, as
 * its runAsUser, to a real S3 endpoint (`rclone serve s3` checking signatures). Then, with the
 * snapshot fetched back from the bucket:
 *
 * - one tenant restored (`restoreTenant`, the `npm run restore -- --schema` path): tenant-a's
 *   objects as of the snapshot, tenant-b's newer change kept;
 * - the whole datastore restored (`restoreWhole`, `--data-dir`): every tenant as of the snapshot,
 *   after the tenant API servers restart; a machine made after the snapshot keeps its Machine (the
 *   management cluster is not the datastore) but loses its Node, which its kubelet does not
 *   register again: CAPI's MachineHealthCheck replaces it, and the tenant converges.
 *
 * Broken renderings fail the Job: the client certificate Secret misnamed, the Service name wrong,
 * the S3 secret key wrong (each a mutation of the rendered pod).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { BACKUP_ACCESS_KEY_VARIABLE, BACKUP_SECRET_KEY_VARIABLE, SNAPSHOT_NAME_PATTERN } from '../../constructs/etcd-backup-cron-job';
import { snapshotKeys } from '../../scripts/lib/etcd';
import { restoreTenant, restoreWhole } from '../../scripts/restore';
import { backupCronJob, runBackupJob, TwinS3, type BackupCronJob, type BackupTargets } from '../../twin/etcd-backup';
import { AUTOSCALER_MAX } from '../../modules/tenants/machine-deployments';
import { LabTwin } from '../../twin/index';
import { kamajiReleases } from '../../twin/releases';
import { readStack } from '../../twin/stack-objects';
import { projectRoot, printTimes, timed } from './support';

jest.setTimeout(20 * 60 * 1000);

const ACCESS_KEY = 'AKTWINBACKUP0001';
const SECRET_KEY = 'twin-backup-secret-key-0001';
const BUCKET = 'kamaji-backups';
const PREFIX = 'lab/';
const S3_ENDPOINT = 'http://backup.lab.example:9000';

/** The example lab cut to pmox-txl, tenant-a (one worker) and tenant-b (one autoscaled pool, 1..2), with backups. */
function backupLab(): string {
  const doc = parseDocument(readFileSync(join(projectRoot, 'examples/lab.yaml'), 'utf8'));
  const instances = doc.getIn(['proxmox', 'instances']) as { items: { get(k: string): unknown }[] };
  instances.items = instances.items.filter((i) => i.get('name') === 'pmox-txl');
  doc.setIn(
    ['management', 'datastore', 'backup'],
    doc.createNode({ schedule: '0 */6 * * *', retention: 2, s3: { endpoint: S3_ENDPOINT, bucket: BUCKET, prefix: PREFIX } }),
  );
  const tenants = doc.get('tenants') as { items: { get(k: string): unknown }[] };
  tenants.items = tenants.items.filter((t) => t.get('name') === 'tenant-a' || t.get('name') === 'tenant-b');
  doc.setIn(['tenants', 0, 'pools', 0, 'replicas'], 1);
  doc.setIn(['tenants', 1, 'pools'], doc.createNode([{ name: 'workers', autoscaling: { min: 1, max: 2 }, size: { cpu: 4, memoryMiB: 8192, diskGiB: 40 } }]));
  doc.deleteIn(['tenants', 1, 'placement']);
  doc.deleteIn(['capmox']);
  return doc.toString();
}

let twin: LabTwin;
let s3: TwinS3;
let job: BackupCronJob;
let targets: BackupTargets;
const work = mkdtempSync(join(tmpdir(), 'pvekaas-twin-backup-'));
const timings: Record<string, number> = {};

const tenantApi = (name: string) => {
  const plane = [...twin.kamaji.planes.values()].find((p) => p.namespace === name && p.cluster === name);
  if (!plane) throw new Error(`no control plane for ${name}`);
  return plane;
};
const configMap = (name: string, data: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data });
async function create(tenant: string, name: string, value: string): Promise<void> {
  const r = await tenantApi(tenant).server.client.post('/api/v1/namespaces/default/configmaps', configMap(name, { v: value }));
  if (r.status !== 201) throw new Error(`${tenant}: creating ConfigMap ${name}: HTTP ${r.status} ${r.text}`);
}
async function update(tenant: string, name: string, value: string): Promise<void> {
  const r = await tenantApi(tenant).server.client.request(
    'PATCH',
    `/api/v1/namespaces/default/configmaps/${name}`,
    { data: { v: value } },
    'application/merge-patch+json',
  );
  if (r.status !== 200) throw new Error(`${tenant}: patching ConfigMap ${name}: HTTP ${r.status} ${r.text}`);
}
/** The test's ConfigMaps in a tenant: name → value. */
async function configMaps(tenant: string): Promise<Record<string, string>> {
  const r = await tenantApi(tenant).server.client.get('/api/v1/namespaces/default/configmaps?labelSelector=');
  if (r.status !== 200) throw new Error(`${tenant}: listing ConfigMaps: HTTP ${r.status}`);
  return Object.fromEntries(
    (r.body.items as { metadata: { name: string }; data?: { v?: string } }[]).filter((c) => c.data?.v !== undefined).map((c) => [c.metadata.name, c.data!.v!]),
  );
}
async function schemaOf(tenant: string): Promise<string> {
  const r = await twin.management.client.get(`/apis/kamaji.clastix.io/v1alpha1/namespaces/${tenant}/tenantcontrolplanes`);
  const schema = r.body?.items?.[0]?.status?.storage?.setup?.schema as string | undefined;
  if (!schema) throw new Error(`${tenant}: no status.storage.setup.schema on its TenantControlPlane`);
  return schema;
}
/** The newest snapshot in the bucket, fetched as the runbook says (rclone copyto from the S3 remote). */
function fetchNewest(to: string): string {
  const names = s3.objects(BUCKET).filter((k) => k.startsWith(PREFIX) && new RegExp(SNAPSHOT_NAME_PATTERN).test(k.slice(PREFIX.length)));
  const newest = names.sort().pop();
  if (!newest) throw new Error(`no snapshot in s3://${BUCKET}/${PREFIX}: ${s3.objects(BUCKET).join(', ')}`);
  execFileSync(join(projectRoot, '.toolchain/bin/rclone'), ['copyto', `backup:${BUCKET}/${newest}`, to], {
    env: {
      PATH: process.env.PATH,
      HOME: work,
      RCLONE_CONFIG_BACKUP_TYPE: 's3',
      RCLONE_CONFIG_BACKUP_PROVIDER: 'Other',
      RCLONE_CONFIG_BACKUP_ENDPOINT: s3.url,
      RCLONE_CONFIG_BACKUP_ACCESS_KEY_ID: ACCESS_KEY,
      RCLONE_CONFIG_BACKUP_SECRET_ACCESS_KEY: SECRET_KEY,
      RCLONE_CONFIG_BACKUP_FORCE_PATH_STYLE: 'true',
    },
    stdio: 'pipe',
  });
  return to;
}

beforeAll(
  async () => {
    twin = await LabTwin.start({
      root: projectRoot,
      labText: backupLab(),
      labFile: 'backup.yaml',
      work: join(work, 'twin'),
      variables: { [BACKUP_ACCESS_KEY_VARIABLE]: ACCESS_KEY, [BACKUP_SECRET_KEY_VARIABLE]: SECRET_KEY },
      log: process.env.PVEKAAS_TWIN_LOG ? (l) => process.stderr.write(`[twin] ${l}\n`) : undefined,
    });
    timed(twin, 'backup-restore');
    await twin.applyKubernetes();
    const converged = await twin.waitConverged(['tenant-a', 'tenant-b'], 10 * 60 * 1000);
    if (!converged.every((t) => t.converged))
      throw new Error(`${converged.map((t) => `${t.name}: ${t.waiting.join('; ')}`).join('\n')}\n${twin.diagnostics()}`);
    s3 = await TwinS3.start(projectRoot, join(work, 's3', 'data'), [BUCKET], ACCESS_KEY, SECRET_KEY);
    const rendered = backupCronJob(readStack(twin.out, 'management'));
    if (!rendered) throw new Error('the management stack renders no backup CronJob');
    job = rendered;
    const etcd = kamajiReleases(twin.out).kamajiEtcd;
    targets = {
      datastore: twin.kamaji.datastore!,
      s3,
      s3Endpoint: S3_ENDPOINT,
      etcdFullname: (etcd.values.fullnameOverride as string | undefined) ?? etcd.name,
      etcdNamespace: etcd.namespace,
      clusterDomain: twin.lab.management.clusterDomain,
    };
  },
  25 * 60 * 1000,
);

afterAll(async () => {
  printTimes(twin);
  await s3?.stop();
  await twin?.stop();
  twin?.cleanup();
  // The bucket's data and the fetched snapshot (the twin's own directory went with cleanup()).
  rmSync(work, { recursive: true, force: true });
  if (Object.keys(timings).length) process.stderr.write(`[backup-restore] timings (s): ${JSON.stringify(timings)}\n`);
});

// A mutated pod that cannot reach its target retries as etcdctl does (a real Job until its activeDeadlineSeconds): cut at 30 s.
const runJob = (pod = job.pod, timeoutMs = 300000) =>
  runBackupJob(twin.management.client, twin.management.kubeconfig, projectRoot, { ...job, pod }, targets, timeoutMs);
const mutated = (edit: (pod: any) => void) => {
  const pod = JSON.parse(JSON.stringify(job.pod));
  edit(pod);
  return pod;
};

describe('datastore backup and restore in the twin', () => {
  it('keeps every tenant in the one datastore, each under its own prefix', async () => {
    const a = await schemaOf('tenant-a');
    const b = await schemaOf('tenant-b');
    expect(a).not.toBe(b);
    expect(tenantApi('tenant-a').schema).toBe(a);
    // The prefix is the TenantControlPlane's UID (Kamaji's default schema).
    const tcp = (await twin.management.client.get('/apis/kamaji.clastix.io/v1alpha1/namespaces/tenant-a/tenantcontrolplanes')).body.items[0];
    expect(a).toBe(tcp.metadata.uid);
    await create('tenant-a', 'probe', 'x');
    const { rangePrefix } = await import('../../scripts/lib/etcd');
    const keys = (await rangePrefix(targets.datastore.url, targets.datastore.tlsMaterial(), `/${a}/`)).map((k) => k.key.toString());
    expect(keys).toContain(`/${a}/configmaps/default/probe`);
    expect((await rangePrefix(targets.datastore.url, targets.datastore.tlsMaterial(), `/${b}/`)).map((k) => k.key.toString())).not.toContain(
      `/${b}/configmaps/default/probe`,
    );
  });

  it('a broken rendering fails the Job: certificate Secret, Service name, S3 key', async () => {
    const certs = await runJob(mutated((p) => (p.volumes.find((v: any) => v.secret).secret.secretName = 'kamaji-etcd-certs')));
    expect(certs.ok).toBe(false);
    expect(certs.reason).toMatch(/secret "kamaji-etcd-certs" not found/);
    const service = await runJob(
      mutated(
        (p) =>
          (p.initContainers[0].env.find((e: any) => e.name === 'ETCDCTL_ENDPOINTS').value =
            `https://${targets.etcdFullname}.${targets.etcdNamespace}.svc.${targets.clusterDomain}:2379`),
      ),
      30000,
    );
    expect(service.ok).toBe(false);
    expect(service.reason).toMatch(/container snapshot exited/);
    expect(twin.management.client).toBeDefined();
    // The rendered Secret with a wrong secret key: rclone's S3 server refuses the signature.
    const wrongKey = await runJob(
      mutated((p) => {
        const env = p.containers[0].env.find((e: any) => e.name === 'RCLONE_CONFIG_TARGET_SECRET_ACCESS_KEY');
        delete env.valueFrom;
        env.value = 'not-the-key';
      }),
    );
    expect(wrongKey.ok).toBe(false);
    expect(wrongKey.reason).toMatch(/container upload exited.*(SignatureDoesNotMatch|AccessDenied|403)/s);
    expect(s3.objects(BUCKET)).toEqual([]);
  });

  let snapshot: string;
  it('the rendered CronJob takes a snapshot and uploads it to the bucket', async () => {
    await create('tenant-a', 'before', 'a-as-of-snapshot');
    await create('tenant-b', 'before', 'b-as-of-snapshot');
    const started = Date.now();
    const run = await runJob();
    timings.backupJob = (Date.now() - started) / 1000;
    expect(run.reason).toBeUndefined();
    expect(run.ok).toBe(true);
    expect(run.containers.map((c) => c.container)).toEqual(['snapshot', 'verify', 'upload']);
    expect(run.containers[1].stdout).toMatch(/HASH.*REVISION.*TOTAL KEYS/s);
    expect(run.containers[2].stdout).toMatch(new RegExp(`uploaded target:${BUCKET}/${PREFIX}kamaji-etcd-[0-9]{8}T[0-9]{6}Z\\.db`));
    expect(s3.objects(BUCKET)).toHaveLength(1);
    snapshot = fetchNewest(join(work, 'snapshot.db'));
  });

  it("one tenant restored: tenant-a as of the snapshot, tenant-b's newer changes kept", async () => {
    await update('tenant-a', 'before', 'a-changed');
    await create('tenant-a', 'after', 'a-new');
    await update('tenant-b', 'before', 'b-changed');
    await create('tenant-b', 'after', 'b-new');
    const started = Date.now();
    const r = await restoreTenant({
      snapshot,
      schema: await schemaOf('tenant-a'),
      endpoint: targets.datastore.url,
      tls: targets.datastore.tlsMaterial(),
      overwrite: true,
    });
    timings.tenantRestore = (Date.now() - started) / 1000;
    expect(r.after).toBeGreaterThan(10);
    await twin.waitFor('tenant-a serving its restored objects', 60000, async () => (await configMaps('tenant-a')).after === undefined);
    expect(await configMaps('tenant-a')).toMatchObject({ before: 'a-as-of-snapshot', probe: 'x' });
    expect((await configMaps('tenant-a')).after).toBeUndefined();
    expect(await configMaps('tenant-b')).toMatchObject({ before: 'b-changed', after: 'b-new' });
  });

  it('whole restore: every tenant as of the snapshot; a machine made after it loses its Node and is replaced', async () => {
    // A machine after the snapshot: tenant-b's autoscaled pool scaled 1 → 2 (the scale subresource).
    const mgmt = twin.management.client;
    // The pool is one MachineDeployment per node the plan names: grow one that may grow (its max annotation).
    const mds = (await mgmt.get('/apis/cluster.x-k8s.io/v1beta2/namespaces/tenant-b/machinedeployments')).body.items as any[];
    const md = mds.find((m) => Number(m.metadata.annotations?.[AUTOSCALER_MAX] ?? 0) > (m.spec.replicas ?? 0));
    if (!md)
      throw new Error(
        `no MachineDeployment of tenant-b may grow: ${mds.map((m) => `${m.metadata.name} ${m.spec.replicas}/${m.metadata.annotations?.[AUTOSCALER_MAX]}`).join(', ')}`,
      );
    const total = mds.reduce((n, m) => n + (m.spec.replicas ?? 0), 0);
    expect(total).toBe(1);
    const scale = `/apis/cluster.x-k8s.io/v1beta2/namespaces/tenant-b/machinedeployments/${md.metadata.name}/scale`;
    const r = await mgmt.request('PATCH', scale, { spec: { replicas: md.spec.replicas + 1 } }, 'application/merge-patch+json');
    expect(r.status).toBe(200);
    await twin.waitFor('tenant-b at 2 machines with Nodes', 8 * 60 * 1000, async () => {
      const t = await twin.tenant('tenant-b');
      return t.machines.length === 2 && t.machines.every((m) => m.ready && m.nodeName);
    });
    const machinesBefore = (await twin.tenant('tenant-b')).machines.map((m) => m.name).sort();
    const nodesBefore = ((await tenantApi('tenant-b').server.client.get('/api/v1/nodes')).body.items as any[]).map((n) => n.metadata.name).sort();
    expect(nodesBefore).toHaveLength(2);

    const started = Date.now();
    const ds = targets.datastore;
    await ds.stop();
    try {
      await restoreWhole({ snapshot, dataDir: ds.dataDir, member: ds.member, overwrite: true });
    } finally {
      await ds.startAgain();
    }
    // Both tenants' API servers restarted at once, as `kubectl rollout restart` of each would (SIGTERM,
    // SIGKILL after the pod's 30 s grace period).
    await Promise.all(['tenant-a', 'tenant-b'].map((t) => tenantApi(t).server.restartApiServer()));
    timings.wholeRestore = (Date.now() - started) / 1000;

    expect(await configMaps('tenant-a')).toEqual({ before: 'a-as-of-snapshot', probe: 'x' });
    expect(await configMaps('tenant-b')).toEqual({ before: 'b-as-of-snapshot' });
    // The snapshot holds one Node of tenant-b; the Machines live in the management cluster (not the
    // datastore) and stay. A kubelet registers its Node once (k8s.io/kubernetes v1.34
    // pkg/kubelet/kubelet_node_status.go registrationCompleted), so the Node of the machine made after
    // the snapshot stays gone; CAPI's MachineHealthCheck sees its Machine's Node missing and
    // remediates it at once (the pinned cluster-api, internal/controllers/machinehealthcheck/machinehealthcheck_targets.go nodeMissing): a new
    // VM, a new Node. The machine from before the snapshot keeps its VM and Node.
    const schemaB = await schemaOf('tenant-b');
    const snapshotNodes = (await snapshotKeys(join(projectRoot, '.toolchain/bin'), snapshot, `/${schemaB}/minions/`)).map((kv) =>
      kv.key.toString().split('/').pop(),
    );
    expect(snapshotNodes).toHaveLength(1);
    const back = Date.now();
    await twin.waitFor('tenant-b: the machine made after the snapshot replaced', 8 * 60 * 1000, async () => {
      const t = await twin.tenant('tenant-b');
      return t.converged && t.machines.length === 2 && t.machines.some((m) => !machinesBefore.includes(m.name));
    });
    timings.machineReplaced = (Date.now() - back) / 1000;
    const converged = await twin.waitConverged(['tenant-a', 'tenant-b'], 5 * 60 * 1000);
    expect(converged.map((t) => [t.name, t.converged, t.waiting])).toEqual([
      ['tenant-a', true, []],
      ['tenant-b', true, []],
    ]);
    const after = (await twin.tenant('tenant-b')).machines;
    const kept = after.filter((m) => machinesBefore.includes(m.name));
    expect(kept).toHaveLength(1);
    expect(kept[0].nodeName).toBe(snapshotNodes[0]);
    const nodesAfter = ((await tenantApi('tenant-b').server.client.get('/api/v1/nodes')).body.items as any[]).map((n) => n.metadata.name).sort();
    expect(nodesAfter).toHaveLength(2);
    expect(nodesAfter).toContain(snapshotNodes[0]);
    expect(nodesBefore.filter((n) => !nodesAfter.includes(n))).toHaveLength(1);
  });

  it('backups go on after a restore, and retention keeps the newest', async () => {
    for (let i = 0; i < 2; i++) {
      await new Promise((r) => setTimeout(r, 1100)); // snapshot names have one-second resolution
      const run = await runJob();
      expect(run.reason).toBeUndefined();
    }
    const kept = s3.objects(BUCKET);
    expect(kept).toHaveLength(2);
    expect(kept.every((k) => k.startsWith(PREFIX))).toBe(true);
  });
});
