/** What suites that start servers share: the guard for tests that need one, and the teardown. */
import { rmSync } from 'node:fs';

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
