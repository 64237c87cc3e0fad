/**
 * The restore command (scripts/restore.ts) against REAL etcds of the toolchain, with TLS and client
 * certificates as the twin's datastore: one tenant's prefix rolled back and nothing else, the whole
 * store restored with its member identity, and each refusal (not a snapshot, another datastore's
 * snapshot, no --overwrite, a schema the snapshot does not hold), through the command line too.
 * The end-to-end proof with the rendered backup CronJob is test/twin/backup-restore.test.ts.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { etcdRequest, rangePrefix } from '../../scripts/lib/etcd';
import { toolchainBin } from '../../scripts/lib/kube-apiserver';
import { restoreTenant, restoreWhole } from '../../scripts/restore';
import { TwinDatastore } from '../../twin/datastore';
import { selfSignedPair } from '../../twin/pki';

const root = resolve(__dirname, '../..');
const have = ['etcd', 'etcdctl', 'etcdutl', 'bbolt'].every((b) => existsSync(join(toolchainBin, b)));
const d = have ? describe : describe.skip;
if (!have) console.warn('skipped: run scripts/toolchain install (etcd, etcdctl, etcdutl, bbolt)');

const b64 = (s: string) => Buffer.from(s).toString('base64');

d('restore (real etcd)', () => {
  jest.setTimeout(120000);
  let ds: TwinDatastore;
  let other: TwinDatastore;
  let work: string;
  let snapshot: string;
  let foreign: string;
  let tls: { ca: string; cert: string; key: string };

  const put = (store: TwinDatastore, key: string, value: string) =>
    etcdRequest(store.url, store.tlsMaterial(), '/v3/kv/put', { key: b64(key), value: b64(value) });
  const read = async (store: TwinDatastore, prefix: string) =>
    Object.fromEntries((await rangePrefix(store.url, store.tlsMaterial(), prefix)).map((kv) => [kv.key.toString(), kv.value.toString()]));
  const save = (store: TwinDatastore, file: string) =>
    execFileSync(join(toolchainBin, 'etcdctl'), ['snapshot', 'save', file], {
      env: { ETCDCTL_ENDPOINTS: store.url, ETCDCTL_CACERT: store.files.ca, ETCDCTL_CERT: store.files.cert, ETCDCTL_KEY: store.files.key },
      stdio: 'pipe',
    });
  const cli = (args: string[]) =>
    spawnSync(process.execPath, [join(root, 'dist/scripts/restore.js'), ...args], { cwd: root, encoding: 'utf8', timeout: 60000 });
  const tlsArgs = (store: TwinDatastore) => ['--endpoint', store.url, '--cacert', store.files.ca, '--cert', store.files.cert, '--key', store.files.key];

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'pvekaas-restore-test-'));
    const ca = selfSignedPair('kamaji-etcd-ca', true);
    ds = await TwinDatastore.start(ca, selfSignedPair('root', false, ca), []);
    other = await TwinDatastore.start(ca, selfSignedPair('root', false, ca), []);
    tls = ds.tlsMaterial();
    await put(ds, '/schema-a/configmaps/default/kept', 'a1');
    await put(ds, '/schema-a/configmaps/default/changed', 'a1');
    await put(ds, '/schema-b/configmaps/default/b', 'b1');
    snapshot = join(work, 'snapshot.db');
    save(ds, snapshot);
    await put(other, '/schema-a/configmaps/default/kept', 'elsewhere');
    foreign = join(work, 'foreign.db');
    save(other, foreign);
    // After the snapshot: tenant a changes and adds, tenant b changes.
    await put(ds, '/schema-a/configmaps/default/changed', 'a2');
    await put(ds, '/schema-a/configmaps/default/new', 'a2');
    await put(ds, '/schema-b/configmaps/default/b', 'b2');
  });

  afterAll(async () => {
    await ds?.destroy();
    await other?.destroy();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  test('refuses a file that is not a snapshot (whole and one tenant, and the command)', async () => {
    const junk = join(work, 'junk.db');
    writeFileSync(junk, 'not a snapshot\n'.repeat(100));
    await expect(restoreTenant({ snapshot: junk, schema: 'schema-a', endpoint: ds.url, tls, overwrite: true })).rejects.toThrow(
      /junk\.db is not an etcd snapshot/,
    );
    await expect(restoreWhole({ snapshot: junk, dataDir: join(work, 'nowhere'), member: ds.member, overwrite: true })).rejects.toThrow(
      /junk\.db is not an etcd snapshot/,
    );
    const r = cli(['--snapshot', junk, '--schema', 'schema-a', ...tlsArgs(ds), '--overwrite']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/junk\.db is not an etcd snapshot/);
    expect(await read(ds, '/schema-a/')).toMatchObject({ '/schema-a/configmaps/default/changed': 'a2' });
  });

  test("refuses another datastore's snapshot (live members for one tenant, the data directory's for the whole)", async () => {
    await expect(restoreTenant({ snapshot: foreign, schema: 'schema-a', endpoint: ds.url, tls, overwrite: true })).rejects.toThrow(
      /foreign\.db is a snapshot of another datastore: its members are [0-9a-f]+, the datastore at .* has [0-9a-f]+/,
    );
    const r = cli(['--snapshot', foreign, '--schema', 'schema-a', ...tlsArgs(ds), '--overwrite']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/is a snapshot of another datastore/);
    expect(await read(ds, '/schema-a/')).toMatchObject({ '/schema-a/configmaps/default/changed': 'a2' });
    // The whole restore reads the stopped member's own database.
    await ds.stop();
    try {
      await expect(restoreWhole({ snapshot: foreign, dataDir: ds.dataDir, member: ds.member, overwrite: true })).rejects.toThrow(
        /is a snapshot of another datastore: its members are [0-9a-f]+, the data directory .* has [0-9a-f]+/,
      );
      expect(existsSync(join(ds.dataDir, 'member'))).toBe(true);
    } finally {
      await ds.startAgain();
    }
  });

  test('writes nothing without --overwrite', async () => {
    await expect(restoreTenant({ snapshot, schema: 'schema-a', endpoint: ds.url, tls, overwrite: false })).rejects.toThrow(
      /would replace the 2 keys of \/schema-a\/ .* run again with --overwrite/,
    );
    const r = cli(['--snapshot', snapshot, '--schema', 'schema-a', ...tlsArgs(ds)]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/run again with --overwrite/);
    expect(await read(ds, '/schema-a/')).toMatchObject({ '/schema-a/configmaps/default/changed': 'a2', '/schema-a/configmaps/default/new': 'a2' });
    await ds.stop();
    try {
      await expect(restoreWhole({ snapshot, dataDir: ds.dataDir, member: ds.member, overwrite: false })).rejects.toThrow(
        /would replace the datastore in .*: stop the datastore, then run again with --overwrite/,
      );
    } finally {
      await ds.startAgain();
    }
    expect(await read(ds, '/schema-b/')).toEqual({ '/schema-b/configmaps/default/b': 'b2' });
  });

  test('refuses a schema the snapshot does not hold', async () => {
    await expect(restoreTenant({ snapshot, schema: 'schema-z', endpoint: ds.url, tls, overwrite: true })).rejects.toThrow(/holds no key under \/schema-z\//);
    await expect(restoreTenant({ snapshot, schema: '../x', endpoint: ds.url, tls, overwrite: true })).rejects.toThrow(/no slashes/);
  });

  test("one tenant: only its prefix rolls back, the other tenant's newer change is kept (the command)", async () => {
    const r = cli(['--snapshot', snapshot, '--schema', 'schema-a', ...tlsArgs(ds), '--overwrite']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/restored \/schema-a\/: 3 keys replaced by the snapshot's 2/);
    expect(await read(ds, '/schema-a/')).toEqual({ '/schema-a/configmaps/default/kept': 'a1', '/schema-a/configmaps/default/changed': 'a1' });
    expect(await read(ds, '/schema-b/')).toEqual({ '/schema-b/configmaps/default/b': 'b2' });
  });

  test("one tenant of large values: transactions by bytes, each under etcd's request limit (the finding: a later batch refused)", async () => {
    // The twin's datastore takes requests of up to 10 MiB (--max-request-bytes, twin/datastore.ts); 128 operations per
    // transaction whatever their size put nine 1.4 MiB values in the second one (12.6 MiB), which it refuses. By bytes (the default
    // limit, 1.5 MiB), each large value goes in a transaction of its own.
    const big = (c: string) => c.repeat(1400 * 1024);
    const large = [...Array.from({ length: 9 }, (_, i) => `a2${String(i).padStart(2, '0')}`), 'k1'];
    for (let i = 1; i <= 127; i++) await put(ds, `/schema-big/a${String(i).padStart(3, '0')}`, 'small');
    for (const k of large) await put(ds, `/schema-big/${k}`, big(k.slice(-1)));
    const file = join(work, 'big.db');
    save(ds, file);
    for (const k of ['a001', 'a200', 'k1']) await put(ds, `/schema-big/${k}`, 'changed');
    const r = cli(['--snapshot', file, '--schema', 'schema-big', ...tlsArgs(ds), '--overwrite']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/restored \/schema-big\/: 137 keys replaced by the snapshot's 137 .*10 transactions/);
    const now = await read(ds, '/schema-big/');
    expect(now['/schema-big/a001']).toBe('small');
    expect(now['/schema-big/a200']).toBe(big('0'));
    expect(now['/schema-big/k1']).toBe(big('1'));
  });

  test('whole: a failing etcdutl leaves the data directory in place, with a clear message', async () => {
    await ds.stop();
    try {
      const r = cli([
        '--snapshot',
        snapshot,
        '--data-dir',
        ds.dataDir,
        '--name',
        ds.member.name,
        '--peer-url',
        '::not a url::',
        '--token',
        ds.member.token,
        '--overwrite',
      ]);
      expect(r.status).toBe(1);
      expect(r.stderr).not.toMatch(/internal error/);
      expect(r.stderr).toMatch(/nothing changed: the data directory .* is as it was/);
      expect(existsSync(join(ds.dataDir, 'member', 'snap', 'db'))).toBe(true);
      expect(readdirSync(join(ds.dataDir, '..')).filter((f) => f.includes('.restoring-') || f.includes('.before-restore-'))).toEqual([]);
    } finally {
      await ds.startAgain();
    }
  });

  test('whole: every tenant as of the snapshot, the same member, the old data kept aside', async () => {
    await put(ds, '/schema-a/configmaps/default/new', 'a3');
    const before = await etcdRequest(ds.url, ds.tlsMaterial(), '/v3/cluster/member/list', {});
    await ds.stop();
    const r = cli([
      '--snapshot',
      snapshot,
      '--data-dir',
      ds.dataDir,
      '--name',
      ds.member.name,
      '--peer-url',
      ds.member.peerUrl,
      '--token',
      ds.member.token,
      '--overwrite',
    ]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(readdirSync(join(ds.dataDir, '..')).filter((f) => f.startsWith('data.before-restore-'))).toHaveLength(1);
    await ds.startAgain();
    expect(await read(ds, '/schema-')).toEqual({
      '/schema-a/configmaps/default/kept': 'a1',
      '/schema-a/configmaps/default/changed': 'a1',
      '/schema-b/configmaps/default/b': 'b1',
    });
    const after = await etcdRequest(ds.url, ds.tlsMaterial(), '/v3/cluster/member/list', {});
    expect(after.members.map((m: { ID: string }) => m.ID)).toEqual(before.members.map((m: { ID: string }) => m.ID));
    // --bump-revision: the revision moved forward past anything an API server saw.
    const range = await etcdRequest(ds.url, ds.tlsMaterial(), '/v3/kv/range', { key: b64('/schema-a/') });
    expect(Number(range.header.revision)).toBeGreaterThan(1000000000);
  });
});
