/**
 * The Service in front of a tenant's control-plane pods, as the lab twin plays it: one stable
 * address (`https://127.0.0.1:<port>`, the URL in Kamaji's admin kubeconfigs) that forwards each TCP
 * connection to the kube-apiserver of the pod that is Ready — what kube-proxy does for a Service
 * whose endpoints are the Ready pods of Kamaji's Deployment (EndpointSlices list Ready pods only).
 * During a rolling update (kamaji/control-plane.ts: the new version's server started beside the old one) the new
 * server becomes the endpoint only once it answers /readyz; connections already open to the old one
 * stay on it until it stops, as a terminating pod's do.
 *
 * TLS is end to end (a TCP forward): every server of one TenantControlPlane serves the same
 * certificates (the same Secrets mounted), so clients see one server identity throughout.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeClient, kubeconfigFor, type KubeServer } from '../scripts/lib/kube-apiserver';

export class TenantService implements KubeServer {
  readonly url: string;
  readonly client: KubeClient;
  readonly kubeconfig: string;
  readonly crds: string[] = [];
  private backend: KubeServer;
  private readonly sockets = new Set<Socket>();
  private readonly own: string;

  private constructor(
    private readonly server: Server,
    port: number,
    backend: KubeServer,
  ) {
    this.backend = backend;
    this.url = `https://127.0.0.1:${port}`;
    const dir = backend.dir;
    this.client = new KubeClient(this.url, {
      ca: readFileSync(join(dir, 'ca.crt'), 'utf8'),
      cert: readFileSync(join(dir, 'admin.crt'), 'utf8'),
      key: readFileSync(join(dir, 'admin.key'), 'utf8'),
    });
    this.own = mkdtempSync(join(tmpdir(), 'pvekaas-tenant-service-'));
    this.kubeconfig = join(this.own, 'admin.kubeconfig');
    writeFileSync(this.kubeconfig, kubeconfigFor(this.url, dir));
  }

  /** A Service on a free loopback port whose endpoint is `backend` (already Ready). */
  static async start(backend: KubeServer): Promise<TenantService> {
    let service: TenantService | undefined;
    const server = createServer((socket) => service!.forward(socket));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const address = server.address();
    if (!address || typeof address === 'string') throw new Error('the tenant Service has no port');
    service = new TenantService(server, address.port, backend);
    return service;
  }

  private forward(socket: Socket): void {
    const target = new URL(this.backend.url);
    const upstream = connect(Number(target.port), target.hostname);
    this.sockets.add(socket);
    const done = () => {
      this.sockets.delete(socket);
      socket.destroy();
      upstream.destroy();
    };
    socket.on('error', done).on('close', done);
    upstream.on('error', done).on('close', done);
    socket.pipe(upstream);
    upstream.pipe(socket);
  }

  /** The server of the current endpoint (its directory holds the logs and the certificates). */
  get current(): KubeServer {
    return this.backend;
  }

  get dir(): string {
    return this.backend.dir;
  }

  logs(): string {
    return this.backend.logs();
  }

  restartApiServer(options?: { gracePeriodMs?: number }): Promise<void> {
    return this.backend.restartApiServer(options);
  }

  /** The endpoint becomes `next` (Ready): new connections go to it; returns the previous server, which the caller stops. */
  switchTo(next: KubeServer): KubeServer {
    const previous = this.backend;
    this.backend = next;
    return previous;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      for (const s of this.sockets) s.destroy();
    });
    this.client.close();
    await this.backend.stop();
    rmSync(this.own, { recursive: true, force: true });
  }
}
