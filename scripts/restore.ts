/**
 * `npm run --silent restore -- --snapshot <file> ...`: restores the shared kamaji-etcd datastore
 * from a snapshot the backup CronJob took (docs/backup.md):
 *
 *   whole:      --data-dir <member data dir> --name <member> --peer-url <url> --token <cluster token> [--overwrite]
 *               (the datastore stopped; restored beside the data directory, which is swapped, and
 *               kept aside, only once the restore succeeded)
 *   one tenant: --schema <tenant schema> --endpoint <https://...:2379> --cacert --cert --key [--overwrite]
 *               (the datastore running; only keys under /<schema>/ change; every value checked
 *               against etcd's request limit before the first write; run again after a failure, it
 *               finishes the job)
 *
 * Both refuse a file that is not an etcd snapshot and a snapshot of another datastore (member ids),
 * and write nothing without --overwrite: without it they say what they would do. Every file flag
 * is read as a regular file of bounded size; every datastore request has a deadline.
 */
import { existsSync, lstatSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import {
  checkSameDatastore,
  EtcdRequestError,
  ETCD_DEFAULT_MAX_REQUEST_BYTES,
  inspectSnapshot,
  MissingToolError,
  PartialRestoreError,
  requireTools,
  restoreDataDir,
  restorePrefix,
  snapshotKeys,
  TooLargeError,
  type EtcdTls,
  type SnapshotFacts,
} from './lib/etcd';
import { parseFlags, runCommand, UsageError, UserError } from './lib/cli';
import { checkRegularFile, readRegularFile } from './lib/regular-file';
import { toolchainBin } from './lib/kube-apiserver';

/** The most a PEM file of --cacert, --cert or --key can hold here (a CA bundle of many certificates is far smaller). */
const MAX_PEM_BYTES = 1024 * 1024;

const usage =
  'npm run --silent restore -- --snapshot <file> (--data-dir <dir> --name <member> --peer-url <url> --token <token> | --schema <schema> --endpoint <url> --cacert <file> --cert <file> --key <file>) [--overwrite]';

export interface RestoreOptions {
  snapshot: string;
  overwrite: boolean;
  /** Where etcd, etcdutl and bbolt are (default: the toolchain). */
  bin?: string;
  log?: (line: string) => void;
}

export interface WholeRestore extends RestoreOptions {
  dataDir: string;
  member: { name: string; peerUrl: string; token: string };
}

export interface TenantRestore extends RestoreOptions {
  schema: string;
  endpoint: string;
  tls?: EtcdTls;
  /** The datastore's etcd --max-request-bytes (default etcd's, 1.5 MiB). */
  maxRequestBytes?: number;
}

/** What a restore can meet that is the operator's to fix (a tool missing, the endpoint, the sizes, a half-done write): said as such. */
function asUserError(e: unknown): never {
  if (e instanceof UserError) throw e;
  if (e instanceof MissingToolError || e instanceof EtcdRequestError || e instanceof PartialRestoreError || e instanceof TooLargeError)
    throw new UserError(e.message);
  throw e;
}

/**
 * Refuses a --data-dir that is not a stopped etcd member's data directory: it must hold
 * `member/snap/db` (etcd's layout: `<data-dir>/member/{snap,wal}`) and nothing but `member` (and a
 * file system's `lost+found`). A missing one is fine (a member rebuilt from nothing).
 */
export function checkMemberDataDir(dataDir: string): boolean {
  if (!existsSync(dataDir)) {
    if (!existsSync(dirname(dataDir))) throw new UserError(`--data-dir ${dataDir}: its parent directory ${dirname(dataDir)} does not exist`);
    return false;
  }
  const st = lstatSync(dataDir);
  if (!st.isDirectory()) throw new UserError(`--data-dir ${dataDir} is not a directory: give the stopped etcd member's --data-dir`);
  const entries = readdirSync(dataDir);
  const others = entries.filter((e) => e !== 'member' && e !== 'lost+found');
  if (!existsSync(join(dataDir, 'member', 'snap', 'db')) || others.length > 0)
    throw new UserError(
      `--data-dir ${dataDir} is not an etcd member's data directory (${
        !existsSync(join(dataDir, 'member', 'snap', 'db'))
          ? 'it has no member/snap/db'
          : `it holds more than member/: ${others.slice(0, 5).join(', ')}${others.length > 5 ? ', …' : ''}`
      }): give the stopped member's --data-dir (the directory holding member/), nothing else is ever moved`,
    );
  return true;
}

const stamp = () =>
  new Date()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');

/**
 * The whole datastore: refuses a --data-dir that is not a member's data directory and another
 * datastore's snapshot (the data directory's own members). Restores beside the data directory
 * (`<data-dir>.restoring-<time>`, same parent, so the same file system) and swaps only once
 * etcdutl succeeded: the old one is moved aside (`<data-dir>.before-restore-<time>`), never deleted;
 * when etcdutl fails the data directory is left as it was.
 */
export async function restoreWhole(o: WholeRestore): Promise<{ facts: SnapshotFacts; movedAside?: string }> {
  const bin = o.bin ?? toolchainBin;
  const log = o.log ?? (() => {});
  checkRegularFile(o.snapshot, '--snapshot');
  const existing = checkMemberDataDir(o.dataDir);
  try {
    requireTools(bin, ['etcdutl', 'bbolt']);
  } catch (e) {
    asUserError(e);
  }
  const facts = await inspectSnapshot(bin, o.snapshot).catch((e: Error) => {
    throw new UserError(e.message);
  });
  if (existing) {
    const current = await inspectSnapshotDb(bin, join(o.dataDir, 'member', 'snap', 'db'));
    if (current.join(',') !== facts.memberIds.join(',')) {
      const hex = (ids: string[]) => ids.map((i) => BigInt(i).toString(16)).join(', ') || '(none)';
      throw new UserError(
        `${o.snapshot} is a snapshot of another datastore: its members are ${hex(facts.memberIds)}, the data directory ${o.dataDir} has ${hex(current)}; restore only a snapshot this datastore took`,
      );
    }
  }
  if (!o.overwrite) {
    throw new UserError(
      `${o.snapshot} (revision ${facts.revision}, ${facts.totalKeys} keys) would replace the datastore in ${o.dataDir}: stop the datastore, then run again with --overwrite (the data directory is moved aside, not deleted)`,
    );
  }
  const time = stamp();
  const restoring = join(dirname(o.dataDir), `${basename(o.dataDir)}.restoring-${time}`);
  try {
    await restoreDataDir(bin, o.snapshot, restoring, o.member, true);
  } catch (e) {
    rmSync(restoring, { recursive: true, force: true });
    throw new UserError(
      `${(e as Error).message.split('\n').slice(0, 3).join(' ')}\nnothing changed: ${existing ? `the data directory ${o.dataDir} is as it was` : `${o.dataDir} was not created`}`,
    );
  }
  let movedAside: string | undefined;
  if (existing) {
    movedAside = `${o.dataDir}.before-restore-${time}`;
    renameSync(o.dataDir, movedAside);
    log(`moved ${o.dataDir} aside to ${movedAside}`);
  }
  try {
    renameSync(restoring, o.dataDir);
  } catch (e) {
    if (movedAside) renameSync(movedAside, o.dataDir);
    throw new UserError(
      `cannot put the restored data directory ${restoring} in place of ${o.dataDir} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); ${o.dataDir} is as it was and the restored one is left at ${restoring}`,
    );
  }
  log(`restored ${o.snapshot} (revision ${facts.revision}) into ${o.dataDir} as member ${o.member.name}`);
  return { facts, movedAside };
}

/** The member ids of a stopped member's own database (its `members` bucket). */
async function inspectSnapshotDb(bin: string, db: string): Promise<string[]> {
  const { execFileSync } = await import('node:child_process');
  try {
    const out = execFileSync(join(bin, 'bbolt'), ['keys', db, 'members'], { encoding: 'utf8', timeout: 10000, stdio: ['ignore', 'pipe', 'pipe'] });
    return out
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean)
      .map((hex) => BigInt(`0x${hex}`).toString())
      .sort();
  } catch (e) {
    throw new UserError(`${db}: cannot read its members (is the datastore still running? stop it first): ${(e as Error).message.split('\n')[0]}`);
  }
}

/** One tenant: refuses another datastore's snapshot (the live members); rolls back only `/<schema>/`. */
export async function restoreTenant(o: TenantRestore): Promise<{ facts: SnapshotFacts; before: number; after: number; deleted: number }> {
  const bin = o.bin ?? toolchainBin;
  const log = o.log ?? (() => {});
  if (!/^[A-Za-z0-9._-]+$/.test(o.schema))
    throw new UserError(`--schema ${JSON.stringify(o.schema)}: a tenant's datastore schema (the TenantControlPlane's status.storage.setup.schema), no slashes`);
  checkRegularFile(o.snapshot, '--snapshot');
  try {
    requireTools(bin, ['etcdutl', 'bbolt', 'etcd']);
  } catch (e) {
    asUserError(e);
  }
  const facts = await inspectSnapshot(bin, o.snapshot).catch((e: Error) => {
    throw new UserError(e.message);
  });
  await checkSameDatastore(o.snapshot, facts, o.endpoint, o.tls).catch((e: Error) => {
    throw new UserError(e.message);
  });
  const prefix = `/${o.schema}/`;
  const keys = await snapshotKeys(bin, o.snapshot, prefix).catch(asUserError);
  if (keys.length === 0)
    throw new UserError(
      `${o.snapshot} holds no key under ${prefix}: not a tenant of this snapshot (the schema is the TenantControlPlane's status.storage.setup.schema)`,
    );
  if (!o.overwrite)
    throw new UserError(
      `${o.snapshot} (revision ${facts.revision}) would replace the ${keys.length} keys of ${prefix} in the datastore at ${o.endpoint}: run again with --overwrite`,
    );
  const r = await restorePrefix(o.endpoint, o.tls, prefix, keys, { maxRequestBytes: o.maxRequestBytes }).catch(asUserError);
  log(
    `restored ${prefix}: ${r.before} keys replaced by the snapshot's ${r.after} (revision ${facts.revision}; ${r.deleted} newer keys deleted; ${r.transactions} transaction${r.transactions === 1 ? '' : 's'}); nothing outside ${prefix} changed`,
  );
  return { facts, ...r };
}

if (require.main === module) {
  runCommand(async () => {
    const flags = parseFlags(
      process.argv.slice(2),
      {
        snapshot: { type: 'string', value: '<file>', help: 'a snapshot the backup CronJob uploaded (kamaji-etcd-<UTC time>.db)' },
        'data-dir': { type: 'string', value: '<dir>', help: "whole restore: the stopped member's data directory" },
        name: { type: 'string', value: '<member>', help: 'whole restore: the member name (--name of etcd)' },
        'peer-url': { type: 'string', value: '<url>', help: 'whole restore: its --initial-advertise-peer-urls' },
        token: { type: 'string', value: '<token>', help: 'whole restore: its --initial-cluster-token' },
        schema: { type: 'string', value: '<schema>', help: "one tenant: the TenantControlPlane's status.storage.setup.schema" },
        endpoint: { type: 'string', value: '<url>', help: 'one tenant: the running datastore, https://<etcd>-client.<ns>.svc:2379' },
        cacert: { type: 'string', value: '<file>', help: 'one tenant: the datastore CA (ca.crt of <etcd>-client-certs)' },
        cert: { type: 'string', value: '<file>', help: 'one tenant: the root client certificate (tls.crt of <etcd>-client-certs)' },
        key: { type: 'string', value: '<file>', help: 'one tenant: its key (tls.key)' },
        'max-request-bytes': {
          type: 'string',
          value: '<bytes>',
          help: `one tenant: the datastore's etcd --max-request-bytes, if raised (default ${ETCD_DEFAULT_MAX_REQUEST_BYTES}, etcd's)`,
        },
        overwrite: { type: 'boolean', help: 'write: without it nothing is changed' },
      },
      usage,
      { about: 'Restores the shared datastore, whole or one tenant, from a backup snapshot (docs/backup.md).' },
    );
    const str = (k: string) => flags[k] as string | undefined;
    const snapshot = str('snapshot');
    if (!snapshot) throw new UsageError('--snapshot is required');
    const log = (l: string) => process.stdout.write(`${l}\n`);
    const common = { snapshot, overwrite: flags.overwrite === true, log };
    if (str('data-dir') && str('schema')) throw new UsageError('--data-dir (whole) and --schema (one tenant) exclude each other');
    if (str('data-dir')) {
      const missing = ['name', 'peer-url', 'token'].filter((k) => !str(k));
      if (missing.length) throw new UsageError(`a whole restore needs ${missing.map((m) => `--${m}`).join(', ')}`);
      await restoreWhole({ ...common, dataDir: str('data-dir')!, member: { name: str('name')!, peerUrl: str('peer-url')!, token: str('token')! } });
    } else if (str('schema')) {
      const missing = ['endpoint', 'cacert', 'cert', 'key'].filter((k) => !str(k));
      if (missing.length) throw new UsageError(`a tenant restore needs ${missing.map((m) => `--${m}`).join(', ')}`);
      const pem = (flag: string) => readRegularFile(str(flag)!, `--${flag}`, MAX_PEM_BYTES);
      const tls = { ca: pem('cacert'), cert: pem('cert'), key: pem('key') };
      const limit = str('max-request-bytes');
      if (limit !== undefined && !/^[1-9]\d{0,9}$/.test(limit)) throw new UsageError(`--max-request-bytes ${limit}: a number of bytes, e.g. 1572864`);
      await restoreTenant({ ...common, schema: str('schema')!, endpoint: str('endpoint')!, tls, maxRequestBytes: limit ? Number(limit) : undefined });
    } else {
      throw new UsageError('say what to restore: --data-dir (the whole datastore) or --schema (one tenant)');
    }
  });
}
