/**
 * SIMULATED in the lab twin: one run of a Job's pod, without a container runtime. The containers'
 * commands run as they are rendered — `sh -c <script>` with the real shell, `kubectl ...` — with the
 * credentials the pod would have: a token of the pod's ServiceAccount from a TokenRequest against the
 * management API server (what the kubelet mounts), so the API server's real authentication and RBAC
 * decide every request; never the admin's. `kubectl` is the lab twin's (kubectl.cjs: the invocations
 * pvekaas's scripts make, and no other). Other programs (etcdctl, rclone, ...) are refused: the pod
 * cannot run here, and the caller says so.
 *
 * As the kubelet: no token when `automountServiceAccountToken` is false on the pod (or, unset there,
 * on the ServiceAccount); a missing ServiceAccount fails the pod's creation as the API server would
 * ("serviceaccount ... not found"); init containers run first, each to completion, then the containers.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeClient } from '../lib/kube-apiserver';

export interface ContainerRun {
  container: string;
  exitCode: number;
  stdout: string;
  stderr: string;
}

export interface PodRun {
  ok: boolean;
  /** Why the pod failed, when it did (the failing container's stderr, or the pod's creation error). */
  reason?: string;
  containers: ContainerRun[];
}

interface Container {
  name: string;
  command?: string[];
  args?: string[];
  env?: { name: string; value?: string }[];
}

interface PodSpec {
  serviceAccountName?: string;
  automountServiceAccountToken?: boolean;
  initContainers?: Container[];
  containers: Container[];
}

/** Runs one pod of a Job in `namespace` with its ServiceAccount's token; every container to completion. */
export async function runPod(mgmt: KubeClient, adminKubeconfig: string, root: string, namespace: string, pod: PodSpec, timeoutMs = 120000): Promise<PodRun> {
  const sa = pod.serviceAccountName || 'default';
  const account = await mgmt.get(`/api/v1/namespaces/${namespace}/serviceaccounts/${sa}`);
  if (account.status === 404) return { ok: false, reason: `error looking up service account ${namespace}/${sa}: serviceaccount "${sa}" not found`, containers: [] };
  if (account.status !== 200) throw new Error(`ServiceAccount ${namespace}/${sa}: HTTP ${account.status}`);
  const automount = pod.automountServiceAccountToken ?? account.body.automountServiceAccountToken ?? true;
  const dir = mkdtempSync(join(tmpdir(), 'pvekaas-twin-pod-'));
  try {
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    // `kubectl` on the PATH (and for /bin/kubectl): the lab twin's, run by this node.
    writeFileSync(join(bin, 'kubectl'), `#!/bin/sh\nexec '${process.execPath}' '${join(root, 'scripts/twin/kubectl.cjs')}' "$@"\n`, { mode: 0o755 });
    const env: Record<string, string> = { PATH: `${bin}:/usr/bin:/bin`, HOME: join(dir, 'home') };
    mkdirSync(env.HOME);
    if (automount) {
      const r = await mgmt.post(`/api/v1/namespaces/${namespace}/serviceaccounts/${sa}/token`, {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenRequest',
        spec: { expirationSeconds: 600 },
      });
      if (r.status !== 201 && r.status !== 200) throw new Error(`token for ServiceAccount ${namespace}/${sa}: HTTP ${r.status}: ${r.body?.message ?? r.text}`);
      const admin = JSON.parse(readFileSync(adminKubeconfig, 'utf8')) as { clusters: { name: string }[] };
      const config = {
        apiVersion: 'v1',
        kind: 'Config',
        clusters: admin.clusters,
        users: [{ name: sa, user: { token: r.body.status.token } }],
        contexts: [{ name: sa, context: { cluster: admin.clusters[0].name, user: sa, namespace } }],
        'current-context': sa,
      };
      env.KUBECONFIG = join(dir, 'kubeconfig');
      writeFileSync(env.KUBECONFIG, JSON.stringify(config), { mode: 0o600 });
    }
    const runs: ContainerRun[] = [];
    for (const c of [...(pod.initContainers ?? []), ...pod.containers]) {
      const argv = [...(c.command ?? []), ...(c.args ?? [])];
      const program = argv[0]?.replace(/^\/(usr\/)?bin\//, '');
      if (program !== 'sh' && program !== 'kubectl') {
        return { ok: false, reason: `container ${c.name}: the lab twin runs only sh and kubectl, not ${argv[0] ?? '(no command)'}`, containers: runs };
      }
      const containerEnv = { ...env };
      for (const e of c.env ?? []) if (e.value !== undefined && e.name !== 'PATH' && e.name !== 'KUBECONFIG') containerEnv[e.name] = e.name === 'HOME' ? env.HOME : e.value;
      const run = await new Promise<ContainerRun>((resolve) => {
        execFile(program === 'sh' ? '/bin/sh' : join(bin, 'kubectl'), argv.slice(1), { env: containerEnv, cwd: dir, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
          const code = error ? (typeof (error as { code?: unknown }).code === 'number' ? ((error as { code: number }).code) : 1) : 0;
          resolve({ container: c.name, exitCode: code, stdout: String(stdout), stderr: String(stderr) });
        });
      });
      runs.push(run);
      if (run.exitCode !== 0) return { ok: false, reason: `container ${c.name} exited ${run.exitCode}: ${run.stderr.trim() || run.stdout.trim()}`, containers: runs };
    }
    return { ok: true, containers: runs };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
