/** What suites that start servers share: the guard for tests that need one, and the teardown. */
import { rmSync } from 'node:fs';
import { startKubeServer, type KubeServer } from './kube-apiserver';

/** The started thing, or an error pointing at the beforeAll that failed to start it. */
export function started<T>(value: T | undefined, what = 'the test API server'): T {
  if (value === undefined) throw new Error(`${what} did not start (see the beforeAll error)`);
  return value;
}

type Stoppable = { stop(): Promise<void> } | { close(): Promise<void> };

/** Stops every server that started (in order) and removes the suite's scratch directory. */
export async function tearDown(work: string | undefined, ...servers: (Stoppable | undefined)[]): Promise<void> {
  for (const server of servers) {
    if (!server) continue;
    await ('stop' in server ? server.stop() : server.close());
  }
  if (work) rmSync(work, { recursive: true, force: true });
}

/**
 * A kube-tier API server (no controller manager) for one test file, with `namespace` created:
 * started in beforeAll, stopped in afterAll. The returned function gives the server once started.
 */
export function kubeServerWithNamespace(namespace: string): () => KubeServer {
  let server: KubeServer | undefined;
  beforeAll(async () => {
    server = await startKubeServer({ controllerManager: false });
    await server.client.applyOrThrow({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  }, 180000);
  afterAll(() => tearDown(undefined, server), 60000);
  return () => started(server);
}
