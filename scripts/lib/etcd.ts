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
import { checkRegularFile } from './regular-file';

export interface EtcdTls {
  ca: string;
  cert: string;
  key: string;
}

/** How long one datastore request may take before it is abandoned (a stalled endpoint must not hang a restore). */
export const REQUEST_TIMEOUT_MS = 30_000;
/** The most a datastore answer may hold (a range page is at most RANGE_PAGE keys of at most etcd's request limit, base64). */
export const MAX_RESPONSE_BYTES = 256 * 1024 * 1024;
/** Keys per range page: at most 64 × 1.5 MiB values, base64 in JSON, stays under MAX_RESPONSE_BYTES. */
const RANGE_PAGE = 64;

/** A datastore request that failed: no answer in time, an answer too large, the connection refused, or etcd's own error. */
export class EtcdRequestError extends Error {}

/**
 * One POST to the gateway; throws with etcd's message on an error status. Every request has a
 * deadline (`timeoutMs`, the whole exchange) and a cap on the answer's size: a stalled or
 * misbehaving endpoint fails the request instead of hanging it or filling the memory.
 */
export function etcdRequest(
  url: string,
  tls: EtcdTls | undefined,
  path: string,
  body: unknown,
  { timeoutMs = REQUEST_TIMEOUT_MS, maxBytes = MAX_RESPONSE_BYTES }: { timeoutMs?: number; maxBytes?: number } = {},
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- etcd's gateway answers a different shape per endpoint; each caller reads its own
): Promise<any> {
  return new Promise((resolvePromise, reject) => {
    const target = new URL(path, url);
    const options: RequestOptions = {
      method: 'POST',
      agent: false,
      headers: { 'Content-Type': 'application/json' },
      ...(tls ? { ca: tls.ca, cert: tls.cert, key: tls.key } : {}),
    };
    let settled = false;
    const finish = (error: Error | undefined, value?: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) reject(error);
      else resolvePromise(value);
    };
    const req = (target.protocol === 'https:' ? httpsRequest : httpRequest)(target, options, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > maxBytes) {
          finish(new EtcdRequestError(`etcd ${path} at ${url}: the answer is larger than ${maxBytes} bytes; abandoned`));
          req.destroy();
          return;
        }
        chunks.push(c);
      });
      res.on('error', (e) => finish(new EtcdRequestError(`etcd ${path} at ${url}: ${e.message}`)));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        // eslint-disable-next-line @typescript-eslint/no-explicit-any -- etcd's gateway answers a different shape per endpoint; each caller reads its own
        let parsed: any;
        try {
          parsed = JSON.parse(text);
        } catch {
          return finish(new EtcdRequestError(`etcd ${path}: HTTP ${res.statusCode}: ${text.slice(0, 200)}`));
        }
        if ((res.statusCode ?? 0) >= 300)
          return finish(new EtcdRequestError(`etcd ${path}: HTTP ${res.statusCode}: ${parsed.message ?? parsed.error ?? text.slice(0, 200)}`));
        finish(undefined, parsed);
      });
    });
    const timer = setTimeout(() => {
      finish(
        new EtcdRequestError(
          `etcd ${path} at ${url}: no answer within ${Math.round(timeoutMs / 1000)} s; abandoned (is the endpoint reachable and etcd healthy?)`,
        ),
      );
      req.destroy();
    }, timeoutMs);
    req.on('error', (e) => finish(new EtcdRequestError(`etcd ${path} at ${url}: ${e.message}`)));
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
    const r = await etcdRequest(url, tls, '/v3/kv/range', { key: from, range_end: end, limit: RANGE_PAGE });
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

/** A tool of etcd's (etcdutl, bbolt, etcd) that is not where the toolchain puts it. */
export class MissingToolError extends Error {
  constructor(readonly tool: string) {
    super(
      `${tool} is not installed (looked for it at ${tool}): install etcd's tools with \`scripts/toolchain install\` (it builds etcd, etcdutl and bbolt of the pinned release into the toolchain), then run the restore again`,
    );
  }
}

/** Each of etcd's tools a restore runs, checked before anything is read or written. */
export function requireTools(bin: string, tools: readonly string[] = ['etcdutl', 'bbolt', 'etcd']): void {
  for (const tool of tools) if (!existsSync(join(bin, tool))) throw new MissingToolError(join(bin, tool));
}

function run(bin: string, args: string[], timeoutMs = 10 * 60_000): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolvePromise, reject) => {
    execFile(bin, args, { maxBuffer: 64 * 1024 * 1024, timeout: timeoutMs, killSignal: 'SIGKILL' }, (error, stdout, stderr) => {
      const e = error as (Error & { code?: unknown; killed?: boolean }) | null;
      if (e?.code === 'ENOENT') return reject(new MissingToolError(bin));
      if (e?.killed) return reject(new Error(`${bin} ${args[0] ?? ''} ${args[1] ?? ''}: no result within ${Math.round(timeoutMs / 1000)} s; stopped`));
      const code = e ? (typeof e.code === 'number' ? e.code : 1) : 0;
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
  checkRegularFile(file, '--snapshot');
  requireTools(bin, ['etcdutl', 'bbolt']);
  const status = await run(join(bin, 'etcdutl'), ['snapshot', 'status', file, '--write-out=json'], 120_000);
  if (status.code !== 0)
    throw new Error(`${file} is not an etcd snapshot (etcdutl snapshot status: ${(status.stderr || status.stdout).trim().split('\n').pop()})`);
  const s = JSON.parse(status.stdout) as { revision: number; totalKey: number };
  const keys = await run(join(bin, 'bbolt'), ['keys', file, 'members'], 120_000);
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
 * etcd's request limit: a write whose request (the marshalled InternalRaftRequest) is larger than
 * the server's `--max-request-bytes` is refused with "etcdserver: request is too large" (etcd
 * `server/etcdserver/v3_server.go` processInternalRaftRequestOnce), 1.5 MiB by default
 * (`DefaultMaxRequestBytes = 1.5 * 1024 * 1024`, `server/embed/config.go`); the gRPC server takes
 * messages of up to that plus 512 KiB (`grpcOverheadBytes`, `server/etcdserver/api/v3rpc/grpc.go`),
 * 2 MiB in all. And at most `--max-txn-ops` operations per transaction, 128 by default
 * (`DefaultMaxTxnOps`).
 */
export const ETCD_DEFAULT_MAX_REQUEST_BYTES = 1.5 * 1024 * 1024;
export const ETCD_DEFAULT_MAX_TXN_OPS = 128;
/** Room left in each request for what wraps the transaction (the raft request header, the txn's own fields). */
const REQUEST_HEADROOM = 4096;

const varintLength = (n: number) => (n < 0x80 ? 1 : n < 0x4000 ? 2 : n < 0x200000 ? 3 : n < 0x10000000 ? 4 : 5);
/** A length-delimited protobuf field of `n` bytes: tag, length, bytes. */
const field = (n: number) => 1 + varintLength(n) + n;

/** One operation of a restore: a put of a snapshot key, or the delete of a key the snapshot does not hold. */
export interface RestoreOp {
  key: Buffer;
  /** Absent: a delete. */
  value?: Buffer;
}

/** The bytes one operation adds to a transaction request (a RequestOp in TxnRequest.success, protobuf). */
export function opBytes(op: RestoreOp): number {
  const inner = op.value === undefined ? field(op.key.length) : field(op.key.length) + field(op.value.length);
  return field(field(inner));
}

/** Operations too large for any transaction: each key with its size, all of them. */
export class TooLargeError extends Error {
  constructor(
    readonly keys: { key: string; bytes: number }[],
    readonly limit: number,
  ) {
    const shown = keys.slice(0, 5).map((k) => `${k.key} (${k.bytes} bytes)`);
    super(
      `${keys.length} key${keys.length === 1 ? ' is' : 's are'} too large for one etcd request of at most ${limit} bytes (--max-request-bytes): ${shown.join(', ')}${keys.length > 5 ? `, and ${keys.length - 5} more` : ''}; ` +
        `nothing was written. If the datastore runs with a larger --max-request-bytes, pass the same value to the restore (--max-request-bytes)`,
    );
  }
}

/**
 * The operations in transactions that etcd accepts: each of at most `maxTxnOps` operations and
 * `maxRequestBytes` bytes (less headroom for the request's header), in order. Every operation is
 * checked before any batch is returned: one too large for any request refuses them all
 * (TooLargeError), so a restore never starts what it cannot finish.
 */
export function planBatches(
  ops: readonly RestoreOp[],
  { maxRequestBytes = ETCD_DEFAULT_MAX_REQUEST_BYTES, maxTxnOps = ETCD_DEFAULT_MAX_TXN_OPS }: { maxRequestBytes?: number; maxTxnOps?: number } = {},
): RestoreOp[][] {
  const budget = maxRequestBytes - REQUEST_HEADROOM;
  const tooLarge = ops.filter((op) => opBytes(op) > budget).map((op) => ({ key: op.key.toString('utf8'), bytes: opBytes(op) }));
  if (tooLarge.length > 0) throw new TooLargeError(tooLarge, maxRequestBytes);
  const batches: RestoreOp[][] = [];
  let current: RestoreOp[] = [];
  let bytes = 0;
  for (const op of ops) {
    const size = opBytes(op);
    if (current.length > 0 && (current.length >= maxTxnOps || bytes + size > budget)) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(op);
    bytes += size;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

/** A tenant restore that failed after some of its transactions were written: how far it got. */
export class PartialRestoreError extends Error {
  constructor(
    readonly prefix: string,
    readonly written: { puts: number; deletes: number },
    readonly total: { puts: number; deletes: number },
    readonly batch: { failed: number; of: number },
    readonly cause: Error,
  ) {
    const nothing = written.puts + written.deletes === 0;
    super(
      nothing
        ? `restore of ${prefix} failed at its first transaction, nothing was written: ${cause.message}`
        : `restore of ${prefix} stopped after ${written.puts} of ${total.puts} keys were written and ${written.deletes} of ${total.deletes} newer keys deleted ` +
            `(transaction ${batch.failed} of ${batch.of} failed: ${cause.message}). The tenant's keys are now partly from the snapshot: ` +
            'run the same command again to finish it (it deletes what the snapshot does not hold and writes every key of the snapshot again)',
    );
  }
}

/**
 * One tenant restored: the keys under `prefix` that the snapshot does not hold deleted, and every
 * key of the snapshot under it put back (values as in the snapshot; new revisions, so watchers see
 * the changes as events), in transactions that etcd accepts (planBatches: by operations and by
 * bytes; etcd also refuses a delete and a put of one key in one transaction, and none is made).
 * Not atomic for a tenant of more than one transaction: docs/backup.md stops the tenant's control
 * plane first. Idempotent: run again after a failure (PartialRestoreError says how far it got), it
 * finishes the job. Returns how many keys were there and are now.
 */
export async function restorePrefix(
  url: string,
  tls: EtcdTls | undefined,
  prefix: string,
  keys: KeyValue[],
  limits: { maxRequestBytes?: number; maxTxnOps?: number } = {},
): Promise<{ before: number; after: number; deleted: number; transactions: number }> {
  if (!/^\/[^/]+\/$/.test(prefix)) throw new Error(`tenant prefix ${JSON.stringify(prefix)} must be /<schema>/`);
  // Checked before reading the live store: nothing is asked of it if the snapshot cannot be written back.
  planBatches(keys, limits);
  const current = await rangePrefix(url, tls, prefix);
  const wanted = new Set(keys.map((kv) => kv.key.toString('latin1')));
  const ops: RestoreOp[] = [...current.filter((kv) => !wanted.has(kv.key.toString('latin1'))).map((kv) => ({ key: kv.key })), ...keys];
  const batches = planBatches(ops, limits);
  const total = { puts: keys.length, deletes: ops.length - keys.length };
  const written = { puts: 0, deletes: 0 };
  for (const [i, batch] of batches.entries()) {
    const success = batch.map((op) =>
      op.value === undefined ? { request_delete_range: { key: b64(op.key) } } : { request_put: { key: b64(op.key), value: b64(op.value) } },
    );
    try {
      await etcdRequest(url, tls, '/v3/kv/txn', { success });
    } catch (e) {
      throw new PartialRestoreError(prefix, written, total, { failed: i + 1, of: batches.length }, e as Error);
    }
    for (const op of batch) op.value === undefined ? written.deletes++ : written.puts++;
  }
  return { before: current.length, after: keys.length, deleted: total.deletes, transactions: batches.length };
}
