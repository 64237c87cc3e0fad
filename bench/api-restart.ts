/**
 * `npm run --silent bench:api-restart`: how long a restart of the test kube-apiserver
 * (`scripts/lib/kube-apiserver.ts` restartApiServer) takes, with a kube-controller-manager holding
 * watches on it, for each way of stopping it: a crash (SIGKILL at once), the kubelet's default
 * (SIGTERM, SIGKILL after 30 s), and kube-apiserver's own graceful shutdown left to finish (a grace
 * longer than its 60 s ShutdownTimeout). Prints one line per way (`--json`: one JSON object).
 * Run it alone or under `unshare -n` (it binds loopback ports).
 */
import { startKubeServer } from '../scripts/lib/kube-apiserver';

async function main(): Promise<void> {
  const json = process.argv.includes('--json');
  const figures: Record<string, number> = {};
  for (const [name, gracePeriodMs] of [
    ['crash (SIGKILL at once)', 0],
    ['kubelet default (SIGTERM, SIGKILL after 30 s)', 30000],
    ['graceful shutdown to its end', 120000],
  ] as const) {
    // A server of its own each time: after a restart the controller manager's watches come back
    // only after its reflectors' backoff, and a server without open watches stops in seconds.
    const server = await startKubeServer({ crds: false, controllerManager: true });
    try {
      const t0 = Date.now();
      await server.restartApiServer({ gracePeriodMs });
      figures[name] = (Date.now() - t0) / 1000;
      if (!json) process.stdout.write(`${name}: ${figures[name].toFixed(1)} s to /readyz again\n`);
    } finally {
      await server.stop();
    }
  }
  if (json) process.stdout.write(`${JSON.stringify({ restartSeconds: figures })}\n`);
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
