/**
 * The restore command's safety nets that need no etcd (issue 42, item 3): transactions planned by
 * bytes as well as by operations (etcd refuses a request over --max-request-bytes), every value
 * checked before the first write; a tenant restore that fails half-way says how far it got and to
 * run it again (which finishes it); a deadline and a size cap on every datastore request; file flags
 * read only as regular files of bounded size; a --data-dir that is not a member's data directory
 * refused; a missing etcdutl named as such, never "not an etcd snapshot".
 * The same against real etcds: test/kube/restore.test.ts.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { etcdRequest, opBytes, PartialRestoreError, planBatches, restorePrefix, TooLargeError, type RestoreOp } from '../../scripts/lib/etcd';
import { readRegularFile, checkRegularFile } from '../../scripts/lib/regular-file';
import { UserError, errorMessage } from '../../scripts/lib/cli';
import { checkMemberDataDir, restoreTenant, restoreWhole } from '../../scripts/restore';

const MiB = 1024 * 1024;
const put = (key: string, bytes: number): RestoreOp => ({ key: Buffer.from(key), value: Buffer.alloc(bytes, 0x61) });

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'pvekaas-restore-safety-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('transactions by bytes (planBatches)', () => {
  test("large values go in transactions each under etcd's request limit, in order", () => {
    // The finding: a001..a127 small, then a few large values (Kubernetes objects reach ~1.5 MB).
    const ops = [
      ...Array.from({ length: 127 }, (_, i) => put(`/t/a${String(i + 1).padStart(3, '0')}`, 100)),
      put('/t/a200', 0.9 * MiB),
      put('/t/a201', 0.9 * MiB),
      put('/t/k1', 0.9 * MiB),
    ];
    const batches = planBatches(ops);
    expect(batches.flat().map((o) => o.key.toString())).toEqual(ops.map((o) => o.key.toString()));
    for (const b of batches) {
      expect(b.length).toBeLessThanOrEqual(128);
      expect(b.reduce((n, o) => n + opBytes(o), 0)).toBeLessThanOrEqual(1.5 * MiB);
    }
    expect(batches.length).toBe(3);
    // 128 operations per transaction whatever their size, as before: the second transaction (a201, k1) is 1.8 MiB, which etcd refuses.
    expect(ops.slice(128, 256).reduce((n, o) => n + opBytes(o), 0)).toBeGreaterThan(1.5 * MiB);
  });

  test('at most 128 operations per transaction (--max-txn-ops)', () => {
    const batches = planBatches(Array.from({ length: 300 }, (_, i) => put(`/t/k${i}`, 10)));
    expect(batches.map((b) => b.length)).toEqual([128, 128, 44]);
  });

  test('a value too large for any request refuses the whole restore, every such key named, before anything is written', () => {
    const ops = [put('/t/small', 10), put('/t/huge-1', 1.6 * MiB), put('/t/huge-2', 2 * MiB)];
    expect(() => planBatches(ops)).toThrow(TooLargeError);
    expect(() => planBatches(ops)).toThrow(
      /2 keys are too large for one etcd request of at most 1572864 bytes.*\/t\/huge-1 .*\/t\/huge-2 .*nothing was written/,
    );
    // A datastore run with a larger --max-request-bytes takes them.
    expect(planBatches(ops, { maxRequestBytes: 3 * MiB }).flat()).toHaveLength(3);
  });

  test('the size of an operation is its protobuf size (key, value, and their framing)', () => {
    expect(opBytes({ key: Buffer.from('k') })).toBe(7); // success entry{RequestOp{request_delete_range{key}}}: 1+1+(1+1+(1+1+1))
    expect(opBytes(put('k', 200))).toBe(1 + 2 + (1 + 2 + (3 + 1 + 2 + 200)));
  });
});

/** A gateway stand-in: answers a range with `kvs`, accepts `okTxns` transactions, then refuses as etcd does. */
function fakeGateway(kvs: { key: string; value: string }[], okTxns: number): Promise<{ url: string; server: Server; txns: unknown[] }> {
  const txns: unknown[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString()) as { success?: unknown[] };
      if (req.url === '/v3/kv/range') {
        res.end(JSON.stringify({ kvs: kvs.map((kv) => ({ key: Buffer.from(kv.key).toString('base64'), value: Buffer.from(kv.value).toString('base64') })) }));
      } else if (txns.length >= okTxns) {
        res.statusCode = 400;
        res.end(JSON.stringify({ error: 'etcdserver: request timed out', code: 14, message: 'etcdserver: request timed out' }));
      } else {
        txns.push(body);
        res.end('{}');
      }
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, txns })),
  );
}

describe('a tenant restore that fails half-way', () => {
  test('says how many keys were written and to run it again, which finishes it', async () => {
    const keys = Array.from({ length: 300 }, (_, i) => ({ key: Buffer.from(`/t/k${String(i).padStart(3, '0')}`), value: Buffer.from('v') }));
    const gw = await fakeGateway([{ key: '/t/newer', value: 'x' }], 1);
    try {
      const e = await restorePrefix(gw.url, undefined, '/t/', keys).then(
        () => undefined,
        (x: unknown) => x,
      );
      expect(e).toBeInstanceOf(PartialRestoreError);
      expect((e as Error).message).toMatch(
        /restore of \/t\/ stopped after 127 of 300 keys were written and 1 of 1 newer keys deleted \(transaction 2 of 3 failed: .*request timed out\).*run the same command again to finish it/,
      );
    } finally {
      gw.server.close();
    }
    // Run again (the newer key is gone now): everything is written, nothing left out.
    const again = await fakeGateway([], 10);
    try {
      const r = await restorePrefix(again.url, undefined, '/t/', keys);
      expect(r).toMatchObject({ after: 300, deleted: 0, transactions: 3 });
      const written = (again.txns as { success: { request_put?: { key: string } }[] }[]).flatMap((t) =>
        t.success.map((o) => Buffer.from(o.request_put!.key, 'base64').toString()),
      );
      expect(written).toEqual(keys.map((k) => k.key.toString()));
    } finally {
      again.server.close();
    }
  });
});

describe('every datastore request has a deadline and a size cap', () => {
  test('a stalled endpoint fails the request instead of hanging it', async () => {
    const server = createServer(() => {
      /* never answers */
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const started = Date.now();
    try {
      await expect(etcdRequest(url, undefined, '/v3/kv/range', {}, { timeoutMs: 300 })).rejects.toThrow(/no answer within 0 s; abandoned/);
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  test('an endless answer is cut at the cap', async () => {
    const server = createServer((_req, res) => {
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const more = () => {
        while (res.write(chunk));
        res.once('drain', more);
      };
      more();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      await expect(etcdRequest(url, undefined, '/v3/kv/range', {}, { maxBytes: 1024 * 1024 })).rejects.toThrow(/larger than 1048576 bytes; abandoned/);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});

describe('file flags are read as regular files of bounded size', () => {
  test('/dev/zero as --cacert is refused, not read until memory runs out', () => {
    expect(() => readRegularFile('/dev/zero', '--cacert', 1024 * 1024)).toThrow(/--cacert \/dev\/zero is a character device, not a regular file/);
  });

  test('a FIFO is refused at once, for a file flag and as the snapshot', () => {
    const fifo = join(work, 'fifo');
    execFileSync('mkfifo', [fifo]);
    expect(() => readRegularFile(fifo, '--key', 1024)).toThrow(/--key .*fifo is a FIFO \(named pipe\), not a regular file/);
    expect(() => checkRegularFile(fifo, '--snapshot')).toThrow(/--snapshot .*fifo is a FIFO/);
  });

  test('too large, missing, a directory: each said with its flag; a PEM file is read', () => {
    const big = join(work, 'big.pem');
    writeFileSync(big, Buffer.alloc(2048, 0x41));
    expect(() => readRegularFile(big, '--cert', 1024)).toThrow(/--cert .*big\.pem is 2048 bytes: more than the 1024/);
    expect(() => readRegularFile(join(work, 'none.pem'), '--cert', 1024)).toThrow(/--cert .*none\.pem: no such file/);
    expect(() => readRegularFile(work, '--cert', 1024)).toThrow(/is a directory, not a regular file/);
    const ok = join(work, 'ok.pem');
    writeFileSync(ok, '-----BEGIN CERTIFICATE-----\n');
    expect(readRegularFile(ok, '--cert', 1024)).toBe('-----BEGIN CERTIFICATE-----\n');
    for (const f of [() => readRegularFile('/dev/zero', '--cacert', 1024)]) {
      try {
        f();
      } catch (e) {
        expect(e).toBeInstanceOf(UserError);
        expect(errorMessage(e)).not.toMatch(/internal error/);
      }
    }
  });
});

describe('the whole restore touches only an etcd member data directory', () => {
  test('a directory that is not one (a home directory) is refused; a member directory or none is taken', () => {
    const home = join(work, 'home');
    mkdirSync(join(home, '.ssh'), { recursive: true });
    writeFileSync(join(home, '.bashrc'), '');
    expect(() => checkMemberDataDir(home)).toThrow(/--data-dir .*home is not an etcd member's data directory \(it has no member\/snap\/db\)/);
    const member = join(work, 'etcd-data');
    mkdirSync(join(member, 'member', 'snap'), { recursive: true });
    writeFileSync(join(member, 'member', 'snap', 'db'), '');
    expect(checkMemberDataDir(member)).toBe(true);
    writeFileSync(join(member, 'notes.txt'), '');
    expect(() => checkMemberDataDir(member)).toThrow(/it holds more than member\/: notes\.txt/);
    expect(checkMemberDataDir(join(work, 'new-member'))).toBe(false);
    expect(() => checkMemberDataDir(join(work, 'no', 'parent'))).toThrow(/its parent directory .* does not exist/);
  });

  test('restoreWhole refuses ~-like directories before reading the snapshot', async () => {
    const snapshot = join(work, 'snap.db');
    writeFileSync(snapshot, 'x');
    await expect(
      restoreWhole({ snapshot, dataDir: join(work, 'home'), member: { name: 'm', peerUrl: 'http://127.0.0.1:1', token: 't' }, overwrite: true, bin: work }),
    ).rejects.toThrow(/is not an etcd member's data directory/);
  });
});

describe('a missing etcdutl', () => {
  test('is said, with how to install it, never "not an etcd snapshot"', async () => {
    const snapshot = join(work, 'snap.db');
    writeFileSync(snapshot, 'x');
    const bin = join(work, 'empty-bin');
    mkdirSync(bin);
    for (const attempt of [
      restoreTenant({ snapshot, schema: 's', endpoint: 'http://127.0.0.1:1', overwrite: true, bin }),
      restoreWhole({ snapshot, dataDir: join(work, 'fresh'), member: { name: 'm', peerUrl: 'http://127.0.0.1:1', token: 't' }, overwrite: true, bin }),
    ]) {
      const e = await attempt.then(
        () => undefined,
        (x: unknown) => x,
      );
      expect(e).toBeInstanceOf(UserError);
      expect((e as Error).message).toMatch(/etcdutl is not installed .*scripts\/toolchain install/);
      expect((e as Error).message).not.toMatch(/not an etcd snapshot/);
    }
  });
});

describe('the command (dist/scripts/restore.js)', () => {
  const root = resolve(__dirname, '../..');
  const cli = (args: string[]) =>
    spawnSync(process.execPath, [join(root, 'dist/scripts/restore.js'), ...args], { cwd: root, encoding: 'utf8', timeout: 20000 });

  test('--cacert /dev/zero: a clear refusal, not an abort (bad_alloc)', () => {
    const snapshot = join(work, 'cli-snap.db');
    writeFileSync(snapshot, 'x');
    const pem = join(work, 'cli.pem');
    writeFileSync(pem, 'pem');
    const r = cli(['--snapshot', snapshot, '--schema', 's', '--endpoint', 'https://127.0.0.1:1', '--cacert', '/dev/zero', '--cert', pem, '--key', pem]);
    expect(r.signal).toBeNull();
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^--cacert \/dev\/zero is a character device, not a regular file/);
  });

  test('a FIFO as the snapshot: refused at once, not a hang', () => {
    const fifo = join(work, 'cli-fifo');
    execFileSync('mkfifo', [fifo]);
    const pem = join(work, 'cli.pem');
    writeFileSync(pem, 'pem');
    const tenant = cli(['--snapshot', fifo, '--schema', 's', '--endpoint', 'https://127.0.0.1:1', '--cacert', pem, '--cert', pem, '--key', pem]);
    expect(tenant.signal).toBeNull();
    expect(tenant.stderr).toMatch(/^--snapshot .*cli-fifo is a FIFO \(named pipe\), not a regular file/);
    const whole = cli(['--snapshot', fifo, '--data-dir', join(work, 'd'), '--name', 'm', '--peer-url', 'http://127.0.0.1:1', '--token', 't']);
    expect(whole.signal).toBeNull();
    expect(whole.stderr).toMatch(/^--snapshot .*cli-fifo is a FIFO/);
  });
});
