/**
 * SIMULATED in the lab twin: one run of a Job's pod, without a container runtime. The containers'
 * commands run as they are rendered — `sh -c <script>` with the real shell, `kubectl ...` — with the
 * credentials the pod would have: a token of the pod's ServiceAccount from a TokenRequest against the
 * management API server (what the kubelet mounts), so the API server's real authentication and RBAC
 * decide every request; never the admin's. `kubectl` is the lab twin's (kubectl.cjs: the invocations
 * pvekaas's scripts make, and no other). Other programs are refused unless the caller names them as
 * the pod's image's tools (the toolchain's etcdctl, etcdutl, rclone: the backup CronJob, etcd-backup.ts).
 *
 * Volumes (as the kubelet): a `secret` volume is the Secret's keys as files (mode `defaultMode`), an
 * `emptyDir` an empty directory; a missing Secret fails the pod as the kubelet does. Env from
 * `secretKeyRef` reads the Secret (the kubelet's read, not the ServiceAccount's). With `asUser`, each
 * container runs as the pod's `runAsUser`/`runAsGroup`, its volumes group-owned by `fsGroup`.
 * Deviations, stated: no mount namespace, so a mount path in a container's command or environment
 * is rewritten to the volume's directory; `readOnly` mounts are not enforced; cluster DNS names are
 * mapped to loopback addresses by the caller's `hosts`.
 *
 * As the kubelet: no token when `automountServiceAccountToken` is false on the pod (or, unset there,
 * on the ServiceAccount); a missing ServiceAccount fails the pod's creation as the API server would
 * ("serviceaccount ... not found"); init containers run first, each to completion, then the containers.
 */
import { execFile } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { KubeClient } from '../scripts/lib/kube-apiserver';

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
  env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } } }[];
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
}

interface PodSpec {
  serviceAccountName?: string;
  automountServiceAccountToken?: boolean;
  initContainers?: Container[];
  containers: Container[];
  volumes?: { name: string; secret?: { secretName: string; defaultMode?: number | string }; emptyDir?: object }[];
  securityContext?: { runAsUser?: number | string; runAsGroup?: number | string; fsGroup?: number | string };
}

export interface PodRunOptions {
  /** Programs of the pod's image the toolchain has (`.toolchain/bin`): runnable, and on the shell's PATH. */
  tools?: string[];
  /** `host:port` → `host:port`: cluster DNS names the twin maps to loopback. */
  hosts?: Record<string, string>;
  /** Run as the pod's runAsUser/runAsGroup with fsGroup volumes (needs root). */
  asUser?: boolean;
}

class PodFailure extends Error {}

const asNumber = (v: number | string | undefined): number | undefined => (v === undefined ? undefined : Number(v));

/** Runs one pod of a Job in `namespace` with its ServiceAccount's token; every container to completion. */
export async function runPod(
  mgmt: KubeClient,
  adminKubeconfig: string,
  root: string,
  namespace: string,
  pod: PodSpec,
  timeoutMs = 120000,
  options: PodRunOptions = {},
): Promise<PodRun> {
  const sa = pod.serviceAccountName || 'default';
  const account = await mgmt.get(`/api/v1/namespaces/${namespace}/serviceaccounts/${sa}`);
  if (account.status === 404)
    return { ok: false, reason: `error looking up service account ${namespace}/${sa}: serviceaccount "${sa}" not found`, containers: [] };
  if (account.status !== 200) throw new Error(`ServiceAccount ${namespace}/${sa}: HTTP ${account.status}`);
  const automount = pod.automountServiceAccountToken ?? account.body.automountServiceAccountToken ?? true;
  const dir = mkdtempSync(join(tmpdir(), 'pvekaas-twin-pod-'));
  try {
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    // `kubectl` on the PATH (and for /bin/kubectl): the lab twin's, run by this node.
    const kubectl = reachable(join(root, 'twin/kubectl.cjs'), bin);
    writeFileSync(join(bin, 'kubectl'), `#!/bin/sh\nexec '${process.execPath}' '${kubectl}' "$@"\n`, { mode: 0o755 });
    for (const tool of options.tools ?? []) {
      const target = join(root, '.toolchain/bin', tool);
      if (!existsSync(target)) throw new Error(`the pod needs ${tool}: run scripts/toolchain install`);
      const program = reachable(target, bin);
      if (program !== join(bin, tool)) symlinkSync(program, join(bin, tool));
    }
    const user = options.asUser
      ? { uid: asNumber(pod.securityContext?.runAsUser), gid: asNumber(pod.securityContext?.runAsGroup), fsGroup: asNumber(pod.securityContext?.fsGroup) }
      : undefined;
    chmodSync(dir, 0o755);
    // The kubelet's volumes: Secrets as files, empty directories.
    const volumes = new Map<string, string>();
    const secretCache = new Map<string, Record<string, string> | undefined>();
    const secret = async (name: string): Promise<Record<string, string> | undefined> => {
      if (!secretCache.has(name)) {
        const r = await mgmt.get(`/api/v1/namespaces/${namespace}/secrets/${name}`);
        secretCache.set(name, r.status === 200 ? ((r.body.data ?? {}) as Record<string, string>) : undefined);
      }
      return secretCache.get(name);
    };
    try {
      for (const v of pod.volumes ?? []) {
        const path = join(dir, 'volumes', v.name);
        mkdirSync(path, { recursive: true });
        if (v.secret) {
          const data = await secret(v.secret.secretName);
          if (!data) throw new PodFailure(`MountVolume.SetUp failed for volume "${v.name}" : secret "${v.secret.secretName}" not found`);
          const mode =
            v.secret.defaultMode === undefined ? 0o644 : typeof v.secret.defaultMode === 'string' ? parseInt(v.secret.defaultMode, 8) : v.secret.defaultMode;
          for (const [k, b64] of Object.entries(data)) {
            writeFileSync(join(path, k), Buffer.from(b64, 'base64'), { mode });
            if (user?.fsGroup !== undefined) chownSync(join(path, k), 0, user.fsGroup);
          }
        }
        if (user?.fsGroup !== undefined) {
          chownSync(path, 0, user.fsGroup);
          chmodSync(path, v.emptyDir ? 0o2777 : 0o2755);
        }
        volumes.set(v.name, path);
      }
    } catch (e) {
      if (e instanceof PodFailure) return { ok: false, reason: e.message, containers: [] };
      throw e;
    }
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
      // Mount paths → the volumes' directories (longest first), cluster names → loopback.
      const mounts: [string, string][] = [];
      for (const m of c.volumeMounts ?? []) {
        const path = volumes.get(m.name);
        if (!path) return { ok: false, reason: `container ${c.name}: volumeMount ${m.name} names no volume of the pod`, containers: runs };
        mounts.push([m.mountPath.replace(/\/$/, ''), path]);
      }
      mounts.sort((a, b) => b[0].length - a[0].length);
      const rewrite = (text: string) => {
        let out = text;
        // One pass over every mount path (longest first): a rewritten path is never rewritten again.
        if (mounts.length > 0) {
          const alternatives = mounts.map(([from]) => from.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
          const target = new Map(mounts);
          out = out.replace(new RegExp(`(^|[^\\w./-])(${alternatives})(?=/|$|[^\\w.-])`, 'g'), (_m, pre: string, from: string) => `${pre}${target.get(from)}`);
        }
        for (const [from, to] of Object.entries(options.hosts ?? {})) out = out.split(from).join(to);
        return out;
      };
      const argv = [...(c.command ?? []), ...(c.args ?? [])].map(rewrite);
      const program = argv[0]?.replace(/^\/(usr\/)?(local\/)?bin\//, '');
      const tool = (options.tools ?? []).includes(program ?? '');
      if (program !== 'sh' && program !== 'kubectl' && !tool) {
        return { ok: false, reason: `container ${c.name}: the lab twin runs only sh and kubectl, not ${argv[0] ?? '(no command)'}`, containers: runs };
      }
      const containerEnv = { ...env };
      for (const e of c.env ?? []) {
        if (e.name === 'PATH' || e.name === 'KUBECONFIG') continue;
        if (e.value !== undefined) containerEnv[e.name] = e.name === 'HOME' ? env.HOME : rewrite(e.value);
        const ref = e.valueFrom?.secretKeyRef;
        if (ref) {
          const data = await secret(ref.name);
          // The kubelet's CreateContainerConfigError messages (pkg/kubelet/kubelet_pods.go makeEnvironmentVariables).
          if (!data && !ref.optional)
            return { ok: false, reason: `container ${c.name}: CreateContainerConfigError: secret "${ref.name}" not found`, containers: runs };
          if (data && data[ref.key] === undefined && !ref.optional)
            return {
              ok: false,
              reason: `container ${c.name}: CreateContainerConfigError: couldn't find key ${ref.key} in Secret ${namespace}/${ref.name}`,
              containers: runs,
            };
          if (data?.[ref.key] !== undefined) containerEnv[e.name] = Buffer.from(data[ref.key], 'base64').toString('utf8');
        }
      }
      if (user) chmodSync(env.HOME, 0o777);
      const file = program === 'sh' ? '/bin/sh' : join(bin, program!);
      const run = await new Promise<ContainerRun>((resolve) => {
        execFile(
          file,
          argv.slice(1),
          {
            env: containerEnv,
            cwd: dir,
            timeout: timeoutMs,
            maxBuffer: 16 * 1024 * 1024,
            ...(user?.uid !== undefined ? { uid: user.uid, gid: user.gid ?? user.uid } : {}),
          },
          (error, stdout, stderr) => {
            const code = error ? (typeof (error as { code?: unknown }).code === 'number' ? (error as { code: number }).code : 1) : 0;
            // Not an exit status (the program could not start, or was killed at the timeout): say why, as the kubelet would.
            const why = error && typeof (error as { code?: unknown }).code !== 'number' ? `${error.message}\n` : '';
            resolve({ container: c.name, exitCode: code, stdout: String(stdout), stderr: `${why}${String(stderr)}` });
          },
        );
      });
      runs.push(run);
      if (run.exitCode !== 0)
        return { ok: false, reason: `container ${c.name} exited ${run.exitCode}: ${run.stderr.trim() || run.stdout.trim()}`, containers: runs };
    }
    return { ok: true, containers: runs };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A path to `file` that the pod's user (any uid: `runAsUser`) can run: the file itself (through
 * symlinks: the toolchain's programs live in the machine-wide tool cache) when it and every
 * directory above it let others in, else a copy in the pod's own `bin`. A checkout under a private
 * directory (`mktemp -d` makes it 0700) would otherwise stop the pod's programs from starting
 * ("container exited 1", seen 2026-12-03).
 */
export function reachable(file: string, bin: string): string {
  const real = realpathSync(file);
  let open = (statSync(real).mode & 0o005) === 0o005;
  for (let d = dirname(real); open; d = dirname(d)) {
    open = (statSync(d).mode & 0o001) !== 0;
    if (d === dirname(d)) break;
  }
  if (open) return real;
  const copy = join(bin, basename(real));
  copyFileSync(real, copy);
  chmodSync(copy, 0o755);
  return copy;
}
