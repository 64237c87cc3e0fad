/**
 * etcd v3 through its JSON gateway (etcd serves it on the client port: keys and values base64, as
 * the etcd API reference documents, api/etcdserverpb/rpc.proto), and the restores of scripts/restore.ts.
 *
 * - whole: `etcdutl snapshot restore` of the snapshot into the datastore's data directory, with the
 *   member's own name, peer URL and cluster token (so the member and cluster ids stay the same);
 * - one tenant: the keys under the tenant's prefix `/<schema>/` (Kamaji: clastix/kamaji ddbabd87
 *   internal/datastore/etcd.go buildKey, internal/builders/controlplane/deployment.go --etcd-prefix)
 *   read from the snapshot (restored into a scratch member on loopback) and written to the live
 *   datastore in one transaction that first deletes what is under the prefix now: nothing outside
 *   the prefix is touched.
 *
 * Both first refuse a file that is not an etcd snapshot (`etcdutl snapshot status` verifies its
 * hash) and a snapshot of another datastore (its `members` bucket must hold exactly the live
 * cluster's member ids), and never write without `overwrite`.
 */
import { execFile, spawn } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports';

export interface EtcdTls {
  ca: string;
  cert: string;
  key: string;
}

/** One POST to the gateway; throws with etcd's message on an error status. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- etcd's gateway answers a different shape per endpoint; each caller reads its own
export function etcdRequest(url: string, tls: EtcdTls | undefined, path: string, body: unknown): Promise<any> {
  return new Promise((resolvePromise, reject) => {
    const target = new URL(path, url);
    const options: RequestOptions = {
      method: 'POST',
      agent: false,
      headers: { 'Content-Type': 'application/json' },
      ...(tls ? { ca: tls.ca, cert: tls.cert, key: tls.key } : {}),
    };
    const req = (target.protocol === 'https:' ? httpsRequest : httpRequest)(target, options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        // eslint-disable-next-line @typescript-eslint/no-explicit-any -- etcd's gateway answers a different shape per endpoint; each caller reads its own
        let parsed: any;
        try {
          parsed = JSON.parse(text);
        } catch {
          return reject(new Error(`etcd ${path}: HTTP ${res.statusCode}: ${text.slice(0, 200)}`));
        }
        if ((res.statusCode ?? 0) >= 300)
          return reject(new Error(`etcd ${path}: HTTP ${res.statusCode}: ${parsed.message ?? parsed.error ?? text.slice(0, 200)}`));
        resolvePromise(parsed);
      });
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64');

/** The end of a prefix range (etcd's GetPrefixRangeEnd). */
export function prefixEnd(prefix: string): string {
  const b = Buffer.from(prefix);
  for (let i = b.length - 1; i >= 0; i--) {
    if (b[i] < 0xff) {
      const out = b.subarray(0, i + 1);
      out[i]++;
      return out.toString('latin1');
    }
  }
  return '\0';
}

export interface KeyValue {
  key: Buffer;
  value: Buffer;
}

/** Every key under `prefix` (paged). */
export async function rangePrefix(url: string, tls: EtcdTls | undefined, prefix: string): Promise<KeyValue[]> {
  const out: KeyValue[] = [];
  const end = b64(Buffer.from(prefixEnd(prefix), 'latin1'));
  let from = b64(prefix);
  for (;;) {
    const r = await etcdRequest(url, tls, '/v3/kv/range', { key: from, range_end: end, limit: 500 });
    const kvs = (r.kvs ?? []) as { key: string; value?: string }[];
    for (const kv of kvs) out.push({ key: Buffer.from(kv.key, 'base64'), value: Buffer.from(kv.value ?? '', 'base64') });
    if (!r.more || kvs.length === 0) return out;
    from = b64(Buffer.concat([Buffer.from(kvs[kvs.length - 1].key, 'base64'), Buffer.from([0])]));
  }
}

/** The live cluster's member ids (decimal strings) and cluster id. */
export async function liveMembers(url: string, tls: EtcdTls | undefined): Promise<{ clusterId: string; memberIds: string[] }> {
  const r = await etcdRequest(url, tls, '/v3/cluster/member/list', {});
  return { clusterId: String(r.header?.cluster_id), memberIds: ((r.members ?? []) as { ID: string }[]).map((m) => String(m.ID)).sort() };
}

function run(bin: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolvePromise) => {
    execFile(bin, args, { maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof (error as { code?: unknown }).code === 'number' ? (error as { code: number }).code : 1) : 0;
      resolvePromise({ code, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

export interface SnapshotFacts {
  revision: number;
  totalKeys: number;
  /** Member ids recorded in the snapshot's `members` bucket, decimal. */
  memberIds: string[];
}

/**
 * What a snapshot is: `etcdutl snapshot status` (refuses a file that is not a bbolt database or whose
 * appended sha256 does not match) and the `members` bucket (bbolt keys: the member ids in hex,
 * etcd server/etcdserver/api/membership/storev2.go / schema/membership.go MemberStoreKey).
 */
export async function inspectSnapshot(bin: string, file: string): Promise<SnapshotFacts> {
  if (!existsSync(file)) throw new Error(`${file}: no such file`);
  const status = await run(join(bin, 'etcdutl'), ['snapshot', 'status', file, '--write-out=json']);
  if (status.code !== 0)
    throw new Error(`${file} is not an etcd snapshot (etcdutl snapshot status: ${(status.stderr || status.stdout).trim().split('\n').pop()})`);
  const s = JSON.parse(status.stdout) as { revision: number; totalKey: number };
  const keys = await run(join(bin, 'bbolt'), ['keys', file, 'members']);
  if (keys.code !== 0) throw new Error(`${file}: cannot read its members bucket (bbolt keys: ${keys.stderr.trim()})`);
  const memberIds = keys.stdout
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .map((hex) => BigInt(`0x${hex}`).toString())
    .sort();
  return { revision: s.revision, totalKeys: s.totalKey, memberIds };
}

/** Refuses a snapshot that is not of the datastore at `url` (the member ids must be the same). */
export async function checkSameDatastore(file: string, facts: SnapshotFacts, url: string, tls: EtcdTls | undefined): Promise<void> {
  const live = await liveMembers(url, tls);
  if (facts.memberIds.join(',') !== live.memberIds.join(',')) {
    const hex = (ids: string[]) => ids.map((i) => BigInt(i).toString(16)).join(', ') || '(none)';
    throw new Error(
      `${file} is a snapshot of another datastore: its members are ${hex(facts.memberIds)}, the datastore at ${url} (cluster ${BigInt(live.clusterId).toString(16)}) has ${hex(live.memberIds)}; restore only a snapshot this datastore took`,
    );
  }
}

export interface MemberIdentity {
  name: string;
  peerUrl: string;
  token: string;
}

/**
 * `etcdutl snapshot restore` into `dataDir` with the member's identity; refuses an existing directory.
 * `forApiServers`: the revision bumped past any the API servers saw and marked compacted, so their
 * watches restart instead of going back in time (etcd's guidance for restoring a Kubernetes store,
 * etcdutl snapshot restore --bump-revision --mark-compacted).
 */
export async function restoreDataDir(bin: string, file: string, dataDir: string, member: MemberIdentity, forApiServers = false): Promise<void> {
  if (existsSync(dataDir)) throw new Error(`${dataDir} exists: move it aside first (a restore never writes over a data directory)`);
  const r = await run(join(bin, 'etcdutl'), [
    'snapshot',
    'restore',
    file,
    `--data-dir=${dataDir}`,
    `--name=${member.name}`,
    `--initial-cluster=${member.name}=${member.peerUrl}`,
    `--initial-cluster-token=${member.token}`,
    `--initial-advertise-peer-urls=${member.peerUrl}`,
    ...(forApiServers ? ['--bump-revision=1000000000', '--mark-compacted'] : []),
  ]);
  if (r.code !== 0) throw new Error(`etcdutl snapshot restore ${file}: ${r.stderr.trim()}`);
}

/** The keys under `prefix` as the snapshot holds them: restored into a scratch member on loopback, read, removed. */
export async function snapshotKeys(bin: string, file: string, prefix: string): Promise<KeyValue[]> {
  const dir = mkdtempSync(join(tmpdir(), 'pvekaas-restore-'));
  try {
    const [port, peer] = [await freePort(), await freePort()];
    const member = { name: 'scratch', peerUrl: `http://127.0.0.1:${peer}`, token: 'pvekaas-restore-scratch' };
    await restoreDataDir(bin, file, join(dir, 'data'), member);
    const fd = openSync(join(dir, 'etcd.log'), 'a');
    const url = `http://127.0.0.1:${port}`;
    const child = spawn(
      join(bin, 'etcd'),
      [
        `--name=${member.name}`,
        `--data-dir=${join(dir, 'data')}`,
        `--listen-client-urls=${url}`,
        `--advertise-client-urls=${url}`,
        `--listen-peer-urls=${member.peerUrl}`,
        `--initial-advertise-peer-urls=${member.peerUrl}`,
        `--initial-cluster=${member.name}=${member.peerUrl}`,
        '--log-level=error',
      ],
      { stdio: ['ignore', fd, fd] },
    );
    closeSync(fd);
    try {
      const deadline = Date.now() + 60000;
      for (;;) {
        try {
          return await rangePrefix(url, undefined, prefix);
        } catch (e) {
          if (child.exitCode !== null || Date.now() > deadline) throw new Error(`reading ${file} in a scratch etcd: ${(e as Error).message}`);
          await new Promise((r) => setTimeout(r, 200));
        }
      }
    } finally {
      child.kill('SIGKILL');
      await new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r(undefined) : child.once('exit', r)));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * One tenant restored: the keys under `prefix` that the snapshot does not hold deleted, and every
 * key of the snapshot under it put back (values as in the snapshot; new revisions, so watchers see
 * the changes as events), in transactions of at most 128 operations (etcd's default --max-txn-ops;
 * etcd also refuses a delete and a put of one key in one transaction). Not atomic for a tenant of
 * more keys: docs/backup.md stops the tenant's control plane first. Returns how many keys were there
 * and are now.
 */
export async function restorePrefix(
  url: string,
  tls: EtcdTls | undefined,
  prefix: string,
  keys: KeyValue[],
): Promise<{ before: number; after: number; deleted: number }> {
  if (!/^\/[^/]+\/$/.test(prefix)) throw new Error(`tenant prefix ${JSON.stringify(prefix)} must be /<schema>/`);
  const current = await rangePrefix(url, tls, prefix);
  const wanted = new Set(keys.map((kv) => kv.key.toString('latin1')));
  const ops = [
    ...current.filter((kv) => !wanted.has(kv.key.toString('latin1'))).map((kv) => ({ request_delete_range: { key: b64(kv.key) } })),
    ...keys.map((kv) => ({ request_put: { key: b64(kv.key), value: b64(kv.value) } })),
  ];
  for (let i = 0; i < ops.length; i += 128) await etcdRequest(url, tls, '/v3/kv/txn', { success: ops.slice(i, i + 128) });
  return { before: current.length, after: keys.length, deleted: ops.length - keys.length };
}
