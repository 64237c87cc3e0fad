/**
 * Keeps each secondary Cluster's `<secondary>-ca` and `<secondary>-kubeconfig` Secrets equal to the
 * primary's, inside the management cluster: a CronJob in the tenant namespace. CAPI needs both for
 * a Cluster whose control plane it does not manage (CABPK reads the CA certificate for the workers'
 * join configuration, the ClusterCache connects with the kubeconfig, and only Secrets labelled
 * `cluster.x-k8s.io/cluster-name` are in its cache). The CA copy holds the certificate and the key:
 * CABPK refuses a worker join without the key (see mirroredSecret). Kamaji rotates kubeconfigs; a copy taken once at apply time would go stale, and the
 * tenant's admin kubeconfig must not pass through Terraform state, so nothing here carries a
 * secret value: the Job reads and writes them at run time.
 *
 * Each copy is owned by its secondary Cluster (deleted with it). The ServiceAccount may read the
 * primary's two Secrets and the secondary Clusters (for their uid), and write Secrets in the
 * tenant namespace.
 */
import type { Tenant } from '../config/schema';
import type { KubernetesObject } from './manifest';
import { LABEL_TENANT, clusterName, kubeconfigSecretName, tenantNamespace } from './names';
import { LABEL_CLUSTER_NAME } from './secondary';
import { STATIC_CONTROL_PLANE_GROUP, STATIC_CONTROL_PLANE_PLURAL } from './static-control-plane';

export const MIRROR_NAME = 'pvekaas-secondary-secrets';
/** Every 5 minutes: Kamaji renews 24 h before expiry, so a copy is never stale for long. */
export const MIRROR_SCHEDULE = '*/5 * * * *';

export interface SecretMirror {
  serviceAccount: KubernetesObject;
  role: KubernetesObject;
  roleBinding: KubernetesObject;
  cronJob: KubernetesObject;
}

/**
 * One Secret the mirror writes: `<secondary>-ca` (keys `tls.crt` and `tls.key`) or
 * `<secondary>-kubeconfig` (key `value`), owned by the secondary Cluster. The mirror's script prints
 * exactly this object (with the run-time values filled in); the lab twin runs that script as the
 * CronJob's pod would, with the rendered ServiceAccount's token (twin/mirror.ts).
 *
 * The CA copy carries the key too: CABPK v1.12's worker join refuses a cluster CA Secret without
 * one (`util/secret/certificates.go` EnsureAllExist: "for certificate: ca: missing key data"; only
 * external etcd certificates may lack it), which the lab twin showed. The copy stays in the tenant
 * namespace beside the primary's own `<tenant>-ca`, which already holds that key.
 */
export function mirroredSecret(input: {
  tenant: Pick<Tenant, 'name'>;
  secondary: string;
  name: string;
  data: Record<string, string>;
  clusterUid: string;
}): KubernetesObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'cluster.x-k8s.io/secret',
    metadata: {
      name: input.name,
      namespace: tenantNamespace(input.tenant),
      labels: { [LABEL_CLUSTER_NAME]: input.secondary, [LABEL_TENANT]: input.tenant.name },
      ownerReferences: [{ apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster', name: input.secondary, uid: input.clusterUid }],
    } as KubernetesObject['metadata'],
    data: { ...input.data },
  };
}

/**
 * The merge patch the mirror sends to a secondary's StaticControlPlane: the version the primary's
 * KamajiControlPlane runs (its `status.version`), so CAPI's MachineSet preflight checks hold the
 * secondary's workers to it (static-control-plane.ts). The lab twin sends the same patch.
 */
export function controlPlaneStatusPatch(version: string): { status: { version: string } } {
  return { status: { version } };
}

/**
 * The printf format of one `mirroredSecret` and the shell words that fill it, in order: the
 * secondary is `$1`, its uid `$uid`, and each data key takes the shell variable given for it.
 */
function secretFormat(tenant: Tenant, suffix: string, data: Record<string, string>): { format: string; args: string[] } {
  const words = new Map<string, string>([
    ['@@N@@', `"$1-${suffix}"`],
    ['@@S@@', '"$1"'],
    ['@@U@@', '"$uid"'],
  ]);
  const marked: Record<string, string> = {};
  Object.entries(data).forEach(([key, variable], i) => {
    marked[key] = `@@V${i}@@`;
    words.set(`@@V${i}@@`, `"$${variable}"`);
  });
  const json = JSON.stringify(mirroredSecret({ tenant, secondary: '@@S@@', name: '@@N@@', data: marked, clusterUid: '@@U@@' }));
  const args: string[] = [];
  const format = json.replace(/@@(N|S|U|V\d+)@@/g, (m) => {
    args.push(words.get(m) as string);
    return '%s';
  });
  return { format, args };
}

/** The shell script of the mirror. Names are DNS labels from the validated description; data is base64. */
export function mirrorScript(tenant: Tenant, secondaries: readonly string[]): string {
  const primary = clusterName(tenant);
  const ns = tenantNamespace(tenant);
  const ca = secretFormat(tenant, 'ca', { 'tls.crt': 'ca', 'tls.key': 'cakey' });
  const kc = secretFormat(tenant, 'kubeconfig', { value: 'kc' });
  const apply = `kubectl apply --server-side --force-conflicts --field-manager=${MIRROR_NAME} -f -`;
  const lines = [
    'set -eu',
    `ca=$(kubectl -n ${ns} get secret ${primary}-ca -o 'jsonpath={.data.tls\\.crt}')`,
    `cakey=$(kubectl -n ${ns} get secret ${primary}-ca -o 'jsonpath={.data.tls\\.key}')`,
    `kc=$(kubectl -n ${ns} get secret ${kubeconfigSecretName(tenant)} -o 'jsonpath={.data.value}')`,
    'test -n "$ca" && test -n "$cakey" && test -n "$kc"',
    // copyca|copykc <secondary Cluster>
    `copyca() {`,
    `  uid=$(kubectl -n ${ns} get clusters.cluster.x-k8s.io "$1" -o 'jsonpath={.metadata.uid}')`,
    `  printf '${ca.format}' ${ca.args.join(' ')} | ${apply}`,
    '}',
    `copykc() {`,
    `  uid=$(kubectl -n ${ns} get clusters.cluster.x-k8s.io "$1" -o 'jsonpath={.metadata.uid}')`,
    `  printf '${kc.format}' ${kc.args.join(' ')} | ${apply}`,
    '}',
    ...secondaries.flatMap((s) => [`copyca ${s}`, `copykc ${s}`]),
    // The version the primary's control plane runs, for CAPI's MachineSet preflight checks on the secondaries.
    `kcp=$(kubectl -n ${ns} get clusters.cluster.x-k8s.io ${primary} -o 'jsonpath={.spec.controlPlaneRef.name}')`,
    `version=$(kubectl -n ${ns} get kamajicontrolplanes.controlplane.cluster.x-k8s.io "$kcp" -o 'jsonpath={.status.version}')`,
    'test -n "$version"',
    ...secondaries.map(
      (s) =>
        `printf '${JSON.stringify(controlPlaneStatusPatch('@@V@@')).replace('@@V@@', '%s')}' "$version" | kubectl -n ${ns} patch ${STATIC_CONTROL_PLANE_PLURAL}.${STATIC_CONTROL_PLANE_GROUP} ${s} --field-manager=${MIRROR_NAME} --type merge --patch-file /dev/stdin`,
    ),
  ];
  return `${lines.join('\n')}\n`;
}

export function secretMirror(tenant: Tenant, secondaries: readonly string[], kubectlImage: string): SecretMirror {
  const namespace = tenantNamespace(tenant);
  const labels = { [LABEL_TENANT]: tenant.name, 'app.kubernetes.io/name': MIRROR_NAME, 'app.kubernetes.io/managed-by': 'pvekaas' };
  const meta = { name: MIRROR_NAME, namespace, labels };
  const sorted = [...secondaries].sort();
  return {
    serviceAccount: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta, automountServiceAccountToken: true },
    role: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: meta,
      rules: [
        { apiGroups: [''], resources: ['secrets'], verbs: ['get'], resourceNames: [`${clusterName(tenant)}-ca`, kubeconfigSecretName(tenant)] },
        // Server-side apply of a Secret that does not exist yet needs create, which cannot be limited by name.
        { apiGroups: [''], resources: ['secrets'], verbs: ['create'] },
        { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'patch'], resourceNames: sorted.flatMap((s) => [`${s}-ca`, `${s}-kubeconfig`]) },
        { apiGroups: ['cluster.x-k8s.io'], resources: ['clusters'], verbs: ['get'], resourceNames: [...sorted, clusterName(tenant)].sort() },
        // The primary's control plane version (its KamajiControlPlane's name is generated by the topology controller).
        { apiGroups: ['controlplane.cluster.x-k8s.io'], resources: ['kamajicontrolplanes'], verbs: ['get'] },
        { apiGroups: [STATIC_CONTROL_PLANE_GROUP], resources: [STATIC_CONTROL_PLANE_PLURAL], verbs: ['get', 'patch'], resourceNames: sorted },
      ],
    },
    roleBinding: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: meta,
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: MIRROR_NAME },
      subjects: [{ kind: 'ServiceAccount', name: MIRROR_NAME, namespace }],
    },
    cronJob: {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: meta,
      spec: {
        schedule: MIRROR_SCHEDULE,
        concurrencyPolicy: 'Forbid',
        successfulJobsHistoryLimit: 1,
        failedJobsHistoryLimit: 3,
        jobTemplate: {
          spec: {
            backoffLimit: 2,
            activeDeadlineSeconds: 240,
            template: {
              metadata: { labels },
              spec: {
                serviceAccountName: MIRROR_NAME,
                restartPolicy: 'Never',
                securityContext: { runAsNonRoot: true, runAsUser: 65532, seccompProfile: { type: 'RuntimeDefault' } },
                containers: [
                  {
                    name: 'mirror',
                    image: kubectlImage,
                    imagePullPolicy: 'IfNotPresent',
                    command: ['sh', '-c', mirrorScript(tenant, sorted)],
                    // kubectl keeps a discovery cache under $HOME; the root filesystem is read-only.
                    env: [{ name: 'HOME', value: '/tmp' }],
                    volumeMounts: [{ name: 'tmp', mountPath: '/tmp' }],
                    securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
                  },
                ],
                volumes: [{ name: 'tmp', emptyDir: {} }],
              },
            },
          },
        },
      },
    },
  };
}
