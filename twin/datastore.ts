/**
 * The lab twin's shared datastore: the REAL etcd (the toolchain's) that the kamaji-etcd release's
 * DataStore points to, holding every tenant, as in the Kamaji design. TLS with client-certificate
 * authentication, its server certificate signed by the chart's CA (the one the twin issues where
 * cert-manager would, kamaji/index.ts), so the chart's `<etcd>-client-certs` (CN root) is what reaches it.
 *
 * Each tenant API server keeps its objects under Kamaji's prefix for it: `--etcd-prefix=/<schema>`
 * (clastix/kamaji ddbabd87 internal/builders/controlplane/deployment.go: `managed["--etcd-prefix"] =
 * fmt.Sprintf("/%s", tenantControlPlane.Status.Storage.Setup.Schema)`), the schema defaulting to the
 * TenantControlPlane's UID (api/v1alpha1/tenantcontrolplane_funcs.go GetDefaultDatastoreSchema); the
 * etcd role Kamaji grants the tenant's user covers the key prefix `/<schema>/`
 * (internal/datastore/etcd.go GrantPrivileges, buildKey).
 *
 * Deviations, stated: one member (the chart runs three); the tenant API servers connect with the
 * root client certificate (Kamaji issues one per tenant with CN = its etcd user, and enables etcd auth
 * so that user reaches only its prefix: not played); the Service name is mapped to the loopback address.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toolchainBin } from '../scripts/lib/kube-apiserver';
import { etcdRequest } from '../scripts/lib/etcd';
import { selfSignedPair, type CertPair } from './pki';
import { freePort, stopChild } from '../scripts/lib/ports';

export interface DatastoreTls {
  ca: string;
  cert: string;
  key: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class TwinDatastore {
  /** https://127.0.0.1:<port> */
  readonly url: string;
  readonly dataDir: string;
  /** File paths of the CA and of the root client certificate (for the tenant API servers). */
  readonly files: DatastoreTls;
  /** The member's name, peer URL and cluster token: what `etcdutl snapshot restore` needs to keep its identity. */
  readonly member: { name: string; peerUrl: string; token: string };
  private child?: ChildProcess;

  private constructor(
    readonly dir: string,
    port: number,
    peerPort: number,
    /** The Service host names the chart gives it (`<etcd>-client.<ns>.svc.<domain>`), mapped to url. */
    readonly serviceHosts: string[],
  ) {
    this.url = `https://127.0.0.1:${port}`;
    this.dataDir = join(dir, 'data');
    this.files = { ca: join(dir, 'ca.crt'), cert: join(dir, 'client.crt'), key: join(dir, 'client.key') };
    this.member = { name: 'kamaji-etcd-0', peerUrl: `http://127.0.0.1:${peerPort}`, token: 'kamaji-etcd' };
  }

  /** Starts the datastore with a server certificate from `ca`; `client` is the chart's root client pair. */
  static async start(ca: CertPair, client: CertPair, serviceHosts: string[]): Promise<TwinDatastore> {
    const dir = mkdtempSync(join(tmpdir(), 'pvekaas-twin-datastore-'));
    const ds = new TwinDatastore(dir, await freePort(), await freePort(), serviceHosts);
    const server = selfSignedPair('kamaji-etcd', false, ca, [...serviceHosts, 'localhost', '127.0.0.1']);
    writeFileSync(join(dir, 'ca.crt'), ca.cert);
    writeFileSync(join(dir, 'server.crt'), server.cert);
    writeFileSync(join(dir, 'server.key'), server.key, { mode: 0o600 });
    writeFileSync(ds.files.cert, client.cert);
    writeFileSync(ds.files.key, client.key, { mode: 0o600 });
    await ds.run();
    return ds;
  }

  /** The flags of this member (also what a restore must repeat to keep the member id). */
  get memberFlags(): string[] {
    return [
      `--name=${this.member.name}`,
      `--initial-advertise-peer-urls=${this.member.peerUrl}`,
      `--initial-cluster=${this.member.name}=${this.member.peerUrl}`,
      `--initial-cluster-token=${this.member.token}`,
    ];
  }

  private async run(): Promise<void> {
    const fd = openSync(join(this.dir, 'etcd.log'), 'a');
    const child = spawn(
      join(toolchainBin, 'etcd'),
      [
        ...this.memberFlags,
        `--data-dir=${this.dataDir}`,
        `--listen-client-urls=${this.url}`,
        `--advertise-client-urls=${this.url}`,
        `--listen-peer-urls=${this.member.peerUrl}`,
        `--cert-file=${join(this.dir, 'server.crt')}`,
        `--key-file=${join(this.dir, 'server.key')}`,
        `--trusted-ca-file=${this.files.ca}`,
        '--client-cert-auth=true',
        '--log-level=warn',
        '--max-request-bytes=10485760',
        '--unsafe-no-fsync',
      ],
      { stdio: ['ignore', fd, fd] },
    );
    closeSync(fd);
    this.child = child;
    const deadline = Date.now() + 60000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the datastore etcd exited (${child.exitCode}):\n${this.logs()}`);
      try {
        const r = await etcdRequest(this.url, this.tlsMaterial(), '/v3/maintenance/status', {});
        if (r.header) return;
      } catch {
        /* not yet */
      }
      if (Date.now() > deadline) throw new Error(`the datastore etcd did not answer within 60 s:\n${this.logs()}`);
      await sleep(200);
    }
  }

  tlsMaterial(): { ca: string; cert: string; key: string } {
    return { ca: readFileSync(this.files.ca, 'utf8'), cert: readFileSync(this.files.cert, 'utf8'), key: readFileSync(this.files.key, 'utf8') };
  }

  logs(): string {
    const f = join(this.dir, 'etcd.log');
    return existsSync(f) ? readFileSync(f, 'utf8').split('\n').slice(-20).join('\n') : '(no log)';
  }

  /** Stops etcd (its data stays), e.g. before a whole restore. */
  async stop(): Promise<void> {
    if (this.child) await stopChild(this.child, 10000);
  }

  /** Starts etcd again on its data directory (after a restore replaced it). */
  async startAgain(): Promise<void> {
    await this.run();
  }

  /** Moves the data directory aside (kept next to it) so that a restore can write a new one. */
  moveDataAside(): string {
    const aside = `${this.dataDir}.before-restore-${Date.now()}`;
    if (existsSync(this.dataDir)) renameSync(this.dataDir, aside);
    mkdirSync(this.dir, { recursive: true });
    return aside;
  }

  async destroy(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
