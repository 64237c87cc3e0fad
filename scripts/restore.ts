/**
 * `npm run --silent restore -- --snapshot <file> ...`: restores the shared kamaji-etcd datastore
 * from a snapshot the backup CronJob took (docs/backup.md):
 *
 *   whole:      --data-dir <member data dir> --name <member> --peer-url <url> --token <cluster token> [--overwrite]
 *               (the datastore stopped; the data directory is moved aside, never deleted)
 *   one tenant: --schema <tenant schema> --endpoint <https://...:2379> --cacert --cert --key [--overwrite]
 *               (the datastore running; only keys under /<schema>/ change)
 *
 * Both refuse a file that is not an etcd snapshot and a snapshot of another datastore (member ids),
 * and write nothing without --overwrite: without it they say what they would do.
 */
import { existsSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { checkSameDatastore, inspectSnapshot, restoreDataDir, restorePrefix, snapshotKeys, type EtcdTls, type SnapshotFacts } from './lib/etcd';
import { parseFlags, runCommand, UsageError, UserError } from './lib/cli';
import { toolchainBin } from './lib/kube-apiserver';

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
}

/** The whole datastore: refuses another datastore's snapshot (the data directory's own members); moves the data directory aside. */
export async function restoreWhole(o: WholeRestore): Promise<{ facts: SnapshotFacts; movedAside?: string }> {
  const bin = o.bin ?? toolchainBin;
  const log = o.log ?? (() => {});
  const facts = await inspectSnapshot(bin, o.snapshot).catch((e: Error) => {
    throw new UserError(e.message);
  });
  const db = join(o.dataDir, 'member', 'snap', 'db');
  if (existsSync(db)) {
    const current = await inspectSnapshotDb(bin, db);
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
  let movedAside: string | undefined;
  if (existsSync(o.dataDir)) {
    movedAside = `${o.dataDir}.before-restore-${new Date()
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d+Z$/, 'Z')}`;
    renameSync(o.dataDir, movedAside);
    log(`moved ${o.dataDir} aside to ${movedAside}`);
  }
  await restoreDataDir(bin, o.snapshot, o.dataDir, o.member, true);
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
  const facts = await inspectSnapshot(bin, o.snapshot).catch((e: Error) => {
    throw new UserError(e.message);
  });
  await checkSameDatastore(o.snapshot, facts, o.endpoint, o.tls).catch((e: Error) => {
    throw new UserError(e.message);
  });
  const prefix = `/${o.schema}/`;
  const keys = await snapshotKeys(bin, o.snapshot, prefix);
  if (keys.length === 0)
    throw new UserError(
      `${o.snapshot} holds no key under ${prefix}: not a tenant of this snapshot (the schema is the TenantControlPlane's status.storage.setup.schema)`,
    );
  if (!o.overwrite)
    throw new UserError(
      `${o.snapshot} (revision ${facts.revision}) would replace the ${keys.length} keys of ${prefix} in the datastore at ${o.endpoint}: run again with --overwrite`,
    );
  const r = await restorePrefix(o.endpoint, o.tls, prefix, keys);
  log(
    `restored ${prefix}: ${r.before} keys replaced by the snapshot's ${r.after} (revision ${facts.revision}; ${r.deleted} newer keys deleted); nothing outside ${prefix} changed`,
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
      const tls = { ca: readFileSync(str('cacert')!, 'utf8'), cert: readFileSync(str('cert')!, 'utf8'), key: readFileSync(str('key')!, 'utf8') };
      await restoreTenant({ ...common, schema: str('schema')!, endpoint: str('endpoint')!, tls });
    } else {
      throw new UsageError('say what to restore: --data-dir (the whole datastore) or --schema (one tenant)');
    }
  });
}
