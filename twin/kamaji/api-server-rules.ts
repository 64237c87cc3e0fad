/**
 * The kube-apiserver container of Kamaji's control-plane Deployment, played from source (pure
 * functions; the player dry-runs the Deployment and writes the volumes' files): Kamaji's own volumes
 * and mounts, the flags it manages, the user's args and volumes, and the Deployment itself.
 * Sources: the pinned Kamaji, at the commit twin/kamaji-rules.ts records; every rule below names its file.
 */
import type { Obj } from '../kamaji-rules';

/**
 * Kamaji's own volumes of the control-plane pod and where its kube-apiserver container mounts them
 * (internal/builders/controlplane/deployment.go: kubernetesPKIVolumeName and the CA directories;
 * the scheduler's and controller manager's kubeconfigs). The user's volumes come first
 * (setAdditionalVolumes), their mounts before Kamaji's (initVolumeMounts).
 */
export const KAMAJI_VOLUMES = [
  'etc-kubernetes-pki',
  'etc-ca-certificates',
  'usr-share-ca-certificates',
  'usr-local-share-ca-certificates',
  'scheduler-kubeconfig',
  'controller-manager-kubeconfig',
] as const;
const KAMAJI_API_SERVER_MOUNTS = [
  { name: 'etc-kubernetes-pki', mountPath: '/etc/kubernetes/pki', readOnly: true },
  { name: 'etc-ca-certificates', mountPath: '/etc/ca-certificates', readOnly: true },
  { name: 'usr-share-ca-certificates', mountPath: '/usr/share/ca-certificates', readOnly: true },
  { name: 'usr-local-share-ca-certificates', mountPath: '/usr/local/share/ca-certificates', readOnly: true },
];

/**
 * The kube-apiserver flags Kamaji always sets from the TenantControlPlane (buildKubeAPIServerCommand's
 * `managed` map, etcd driver): a user extra arg with one of these names is dropped (mergeAPIServerArgs).
 */
export const KAMAJI_MANAGED_API_SERVER_FLAGS = new Set([
  '--advertise-address',
  '--client-ca-file',
  '--enable-admission-plugins',
  '--service-cluster-ip-range',
  '--kubelet-client-certificate',
  '--kubelet-client-key',
  '--kubelet-preferred-address-types',
  '--proxy-client-cert-file',
  '--proxy-client-key-file',
  '--requestheader-allowed-names',
  '--requestheader-client-ca-file',
  '--secure-port',
  '--service-account-key-file',
  '--service-account-signing-key-file',
  '--tls-cert-file',
  '--tls-private-key-file',
  '--etcd-compaction-interval',
  '--etcd-prefix',
  '--etcd-servers',
  '--etcd-cafile',
  '--etcd-certfile',
  '--etcd-keyfile',
  '--etcd-servers-overrides',
]);

/**
 * The user's segment of the kube-apiserver arguments (mergeAPIServerArgs): the TenantControlPlane's
 * `controlPlane.deployment.extraArgs.apiServer` in their order, less those naming a managed flag.
 * They come after Kamaji's own, so they win over its safe defaults.
 */
export function apiServerUserArgs(tcp: Obj): string[] {
  const extras = (tcp.spec?.controlPlane?.deployment?.extraArgs?.apiServer ?? []) as string[];
  return extras.filter((arg) => !KAMAJI_MANAGED_API_SERVER_FLAGS.has(arg.split('=')[0]));
}

/** One of the user's volumes mounted into the kube-apiserver container, with the volume's source. */
export interface ApiServerMount {
  name: string;
  mountPath: string;
  source: { kind: 'ConfigMap' | 'Secret'; name: string; optional: boolean; items?: { key: string; path: string }[] };
}

/**
 * The user's volume mounts of the kube-apiserver container (`additionalVolumeMounts.apiServer`) and
 * the volume each names (`additionalVolumes`). The twin plays ConfigMap and Secret volumes (the
 * kubelet writes their keys as files); any other source is refused, not ignored. A mount of a
 * volume that does not exist is left to the Deployment's dry-run, which the API server refuses.
 */
export function apiServerMounts(tcp: Obj): ApiServerMount[] {
  const dep = tcp.spec?.controlPlane?.deployment ?? {};
  const volumes = new Map(((dep.additionalVolumes ?? []) as Obj[]).map((v) => [v.name as string, v]));
  const out: ApiServerMount[] = [];
  for (const m of (dep.additionalVolumeMounts?.apiServer ?? []) as { name: string; mountPath: string; subPath?: string }[]) {
    const v = volumes.get(m.name);
    if (!v) continue;
    if (m.subPath) throw new Error(`volume mount ${m.name}: subPath is not played by the lab twin`);
    if (v.configMap)
      out.push({
        name: m.name,
        mountPath: m.mountPath,
        source: { kind: 'ConfigMap', name: v.configMap.name, optional: v.configMap.optional === true, items: v.configMap.items },
      });
    else if (v.secret)
      out.push({
        name: m.name,
        mountPath: m.mountPath,
        source: { kind: 'Secret', name: v.secret.secretName, optional: v.secret.optional === true, items: v.secret.items },
      });
    else throw new Error(`volume ${m.name}: only configMap and secret volumes are played by the lab twin`);
  }
  return out;
}

/**
 * The control-plane Deployment as far as the user's additions reach it (Deployment.Build): the
 * user's volumes before Kamaji's, and each container's user mounts before Kamaji's. Kamaji's
 * validating webhook (tcp_deployment.go) and its controller create or update it; the player sends
 * it as a dry-run to the real management API server, which refuses what it would refuse there
 * (a volume name twice, a mount of a volume that does not exist, one mount path twice).
 */
export function controlPlaneDeployment(tcp: Obj): Obj {
  const dep = tcp.spec?.controlPlane?.deployment ?? {};
  const mounts = dep.additionalVolumeMounts ?? {};
  const name = tcp.metadata.name as string;
  const own = KAMAJI_VOLUMES.map((v) => ({ name: v, emptyDir: {} }));
  const container = (cname: string, user: unknown[] | undefined, kamaji: unknown[]) => ({
    name: cname,
    image: `registry.k8s.io/${cname}:${tcp.spec?.kubernetes?.version ?? 'v0.0.0'}`,
    volumeMounts: [...((user ?? []) as unknown[]), ...kamaji],
  });
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: tcp.metadata.namespace },
    spec: {
      selector: { matchLabels: { 'kamaji.clastix.io/name': name } },
      template: {
        metadata: { labels: { 'kamaji.clastix.io/name': name } },
        spec: {
          volumes: [...((dep.additionalVolumes ?? []) as unknown[]), ...own],
          containers: [
            container('kube-apiserver', mounts.apiServer, KAMAJI_API_SERVER_MOUNTS),
            container('kube-scheduler', mounts.scheduler, [
              { name: 'scheduler-kubeconfig', mountPath: '/etc/kubernetes/scheduler.conf', subPath: 'scheduler.conf', readOnly: true },
            ]),
            container('kube-controller-manager', mounts.controllerManager, [
              { name: 'etc-kubernetes-pki', mountPath: '/etc/kubernetes/pki', readOnly: true },
              {
                name: 'controller-manager-kubeconfig',
                mountPath: '/etc/kubernetes/controller-manager.conf',
                subPath: 'controller-manager.conf',
                readOnly: true,
              },
            ]),
          ],
        },
      },
    },
  };
}

/**
 * The files a volume of ConfigMap or Secret data becomes (the kubelet's atomic writer): every key,
 * or the listed items at their paths. A listed key the object lacks fails the mount.
 */
export function volumeFiles(mount: ApiServerMount, data: Record<string, string>, base64: boolean): Map<string, Buffer> {
  const decode = (v: string) => (base64 ? Buffer.from(v, 'base64') : Buffer.from(v, 'utf8'));
  const files = new Map<string, Buffer>();
  if (mount.source.items?.length) {
    for (const item of mount.source.items) {
      if (!(item.key in data))
        throw new Error(`MountVolume.SetUp failed for volume "${mount.name}" : configmap references non-existent config key: ${item.key}`);
      files.set(item.path, decode(data[item.key]));
    }
  } else for (const [k, v] of Object.entries(data)) files.set(k, decode(v));
  return files;
}

/**
 * Rewrites the user's kube-apiserver arguments for the twin's host: a value under a mount path
 * points into the directory where the twin wrote that volume's files. A value that is an absolute
 * path under no mount (and outside Kamaji's own directories) names a file the container does not
 * have: refused, as kube-apiserver would fail to start on it.
 */
export function hostArgs(args: string[], mounts: { mountPath: string; hostDir: string }[]): string[] {
  return args.map((arg) => {
    const eq = arg.indexOf('=');
    if (eq < 0) return arg;
    const [flag, value] = [arg.slice(0, eq), arg.slice(eq + 1)];
    if (!value.startsWith('/')) return arg;
    const m = mounts.find((x) => value === x.mountPath || value.startsWith(`${x.mountPath.replace(/\/+$/, '')}/`));
    if (m) return `${flag}=${m.hostDir}${value.slice(m.mountPath.replace(/\/+$/, '').length)}`;
    throw new Error(`kube-apiserver ${flag}=${value}: no volume is mounted at that path in the kube-apiserver container`);
  });
}
