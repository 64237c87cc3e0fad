/**
 * Persistent volumes of a tenant on Proxmox storage (issue 38, docs/storage.md), as plain data:
 * the Proxmox CSI plugin v0.19.1 (modules/versions/csi.ts) split in two so that no Proxmox
 * credential enters the tenant cluster.
 *
 * - In the tenant's namespace of the **management** cluster: the controller Deployment (the
 *   plugin's controller with the csi-attacher, csi-provisioner and csi-resizer sidecars, as chart
 *   0.5.9 `templates/controller-deployment.yaml` runs them), every container reaching the tenant
 *   API server with `--kubeconfig` (cmd/controller/main.go flag `kubeconfig`; the sidecars' own
 *   flag) from the tenant's kubeconfig Secret, as the tenant's cluster-autoscaler does. Only the
 *   plugin container mounts the tenant's Proxmox token: the tenant's CAPMOX credentials Secret
 *   already in this namespace (keys `token` and `secret`), read as files (pkg/proxmoxpool/pool.go
 *   ProxmoxCluster `token_id_file`, `token_secret_file`), so no new copy of the token exists and
 *   the synthesized stack holds none. The config file itself (a ConfigMap) names the files only.
 *   The pod has no service-account token of the management cluster (automountServiceAccountToken
 *   false): it needs none there.
 * - In the **tenant** cluster, applied by CAPI core's ClusterResourceSet (strategy Reconcile) as
 *   the identity bindings are: the CSIDriver (chart `templates/csidriver.yaml`), the node plugin
 *   DaemonSet with its ServiceAccount and ClusterRole (`templates/node-deployment.yaml`,
 *   `node-clusterrole.yaml`: get nodes, for NodeGetInfo's topology), and one StorageClass per
 *   class (`templates/storageclass.yaml`, parameters from `_storage.tpl`). None of them holds or
 *   mounts a Secret (`tenantSideCredentialProblems` checks it).
 *
 * Storage capacity tracking is off (the chart's `options.enableCapacity`): csi-provisioner's
 * `--enable-capacity` with `--capacity-ownerref-level=2` owns its CSIStorageCapacity objects by
 * its own Deployment, found through its pod's namespace and name, which do not exist in the
 * tenant cluster the provisioner writes to. The CSIDriver then says `storageCapacity: false`.
 */
import type { Instance, Tenant } from '../config/schema';
import type { TenantStorageClass } from '../config/storage-schema';
import { PROXMOX_CSI, PROXMOX_CSI_IMAGES, type ProxmoxCsiImage } from '../versions/csi';
import { mirroredRepository, type Mirror } from '../versions/mirror';
import type { KubernetesObject } from './manifest';
import { LABEL_TENANT, kubeconfigSecretName, tenantCredentialsSecretName, tenantNamespace } from './names';
import { CRS_API } from './identity';
import { LABEL_PRIMARY } from './secondary';

/** Names of the objects in the management cluster (tenant namespace). */
export const CSI_CONTROLLER = 'proxmox-csi-controller';
export const CSI_CONFIG = 'proxmox-csi-config';
/** The ConfigMap of the tenant-side objects and the ClusterResourceSet that applies it. */
export const CSI_TENANT_RESOURCES = 'pvekaas-tenant-storage';
/** The namespace of the node plugin in the tenant cluster (the plugin's docs name it so). */
export const CSI_TENANT_NAMESPACE = 'csi-proxmox';
export const CSI_NODE = 'proxmox-csi-plugin-node';

/**
 * The VM id the controller names its volumes after (`vm-<id>-<pvc>`; config `features.controllerVmID`,
 * pkg/config/config.go — the yaml key is `controllerVmID`, not the docs' controllerVMID; default
 * 9999). Proxmox destroys a VM's unreferenced `vm-<id>-*` disks with the VM when asked to
 * (`destroy-unreferenced-disks`), so the id must never be a real VM's: the largest id Proxmox
 * allows (pve-vmid, 100 to 999999999), which `/cluster/nextid` reaches last.
 */
export const CSI_CONTROLLER_VMID = 999999999;

const KUBECONFIG_DIR = '/etc/kubernetes/tenant';
const CONFIG_DIR = '/etc/proxmox-csi';
const TOKEN_DIR = (instance: string) => `/etc/proxmox-csi/token/${instance}`;
const SOCKET = 'unix:///csi/csi.sock';

export interface TenantStorageRendering {
  /** The tenant's classes, as the description gives them (review, outputs). */
  classes: readonly TenantStorageClass[];
  /** Management cluster, tenant namespace: config, service account, controller. */
  management: { config: KubernetesObject; serviceAccount: KubernetesObject; controller: KubernetesObject };
  /** What the tenant cluster gets, in the order it is applied. */
  tenantObjects: KubernetesObject[];
  /** The ConfigMap holding `tenantObjects` and the ClusterResourceSet applying it. */
  resources: KubernetesObject;
  resourceSet: KubernetesObject;
}

function image(name: ProxmoxCsiImage, mirror?: Mirror): string {
  const i = PROXMOX_CSI_IMAGES[name];
  return `${mirroredRepository(i.repository, mirror)}:${i.tag}`;
}

/** The instance's API URL as the plugin's config wants it (the plugin's docs/config.md in its repository: `https://…:8006/api2/json`). */
function apiUrl(instance: Instance): string {
  return `${instance.endpoint.replace(/\/+$/, '')}/api2/json`;
}

/**
 * The plugin's config file (pkg/config/config.go ClustersConfig): one cluster per instance of the
 * tenant, its region the instance name (the `topology.kubernetes.io/region` of the tenant's Nodes
 * there), its token read from files. No secret in it. Provider `capmox`: a Node's VM is found by
 * its SystemUUID when its providerID is CAPMOX's `proxmox://<uuid>` (controller.go getVMIDbyNode).
 */
export function csiConfig(instances: readonly Instance[]): Record<string, unknown> {
  return {
    features: { provider: 'capmox', controllerVmID: CSI_CONTROLLER_VMID },
    clusters: instances.map((i) => ({
      url: apiUrl(i),
      insecure: i.insecure === true,
      token_id_file: `${TOKEN_DIR(i.name)}/token`,
      token_secret_file: `${TOKEN_DIR(i.name)}/secret`,
      region: i.name,
    })),
  };
}

const labels = (tenant: Tenant, component: string) => ({
  'app.kubernetes.io/name': 'proxmox-csi-plugin',
  'app.kubernetes.io/component': component,
  'app.kubernetes.io/managed-by': 'pvekaas',
  [LABEL_TENANT]: tenant.name,
});

const sidecar = (name: string, img: string, args: string[]) => ({
  name,
  image: img,
  args: ['-v=3', `--csi-address=${SOCKET}`, `--kubeconfig=${KUBECONFIG_DIR}/value`, ...args],
  securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
  resources: { requests: { cpu: '10m', memory: '16Mi' } },
  volumeMounts: [
    { name: 'socket-dir', mountPath: '/csi' },
    { name: 'tenant-kubeconfig', mountPath: KUBECONFIG_DIR, readOnly: true },
  ],
});

function controllerDeployment(tenant: Tenant, instances: readonly Instance[], mirror?: Mirror): KubernetesObject {
  const ns = tenantNamespace(tenant);
  const leader = ['--leader-election', `--leader-election-namespace=${CSI_TENANT_NAMESPACE}`, '--timeout=3m'];
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: CSI_CONTROLLER, namespace: ns, labels: labels(tenant, 'controller') },
    spec: {
      replicas: 1,
      selector: { matchLabels: { 'app.kubernetes.io/name': 'proxmox-csi-plugin', 'app.kubernetes.io/component': 'controller', [LABEL_TENANT]: tenant.name } },
      template: {
        metadata: { labels: labels(tenant, 'controller') },
        spec: {
          serviceAccountName: CSI_CONTROLLER,
          automountServiceAccountToken: false,
          enableServiceLinks: false,
          securityContext: { runAsNonRoot: true, runAsUser: 65532, runAsGroup: 65532, fsGroup: 65532, seccompProfile: { type: 'RuntimeDefault' } },
          containers: [
            {
              name: 'proxmox-csi-controller',
              image: image('controller', mirror),
              args: ['-v=3', `--csi-address=${SOCKET}`, `--cloud-config=${CONFIG_DIR}/config.yaml`, `--kubeconfig=${KUBECONFIG_DIR}/value`],
              securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
              resources: { requests: { cpu: '10m', memory: '16Mi' } },
              volumeMounts: [
                { name: 'socket-dir', mountPath: '/csi' },
                { name: 'config', mountPath: CONFIG_DIR, readOnly: true },
                ...instances.map((i) => ({ name: `token-${i.name}`, mountPath: TOKEN_DIR(i.name), readOnly: true })),
                { name: 'tenant-kubeconfig', mountPath: KUBECONFIG_DIR, readOnly: true },
              ],
            },
            sidecar('csi-attacher', image('attacher', mirror), [...leader, '--default-fstype=ext4']),
            sidecar('csi-provisioner', image('provisioner', mirror), [...leader, '--default-fstype=ext4']),
            sidecar('csi-resizer', image('resizer', mirror), [...leader, '--handle-volume-inuse-error=false']),
          ],
          volumes: [
            { name: 'socket-dir', emptyDir: {} },
            { name: 'config', configMap: { name: CSI_CONFIG } },
            ...instances.map((i) => ({
              name: `token-${i.name}`,
              secret: {
                secretName: tenantCredentialsSecretName(i.name),
                items: [
                  { key: 'token', path: 'token' },
                  { key: 'secret', path: 'secret' },
                ],
              },
            })),
            { name: 'tenant-kubeconfig', secret: { secretName: kubeconfigSecretName(tenant), items: [{ key: 'value', path: 'value' }] } },
          ],
        },
      },
    },
  };
}

/** The StorageClass of one class (chart templates/storageclass.yaml; parameters `_storage.tpl`). */
export function storageClassObject(tenant: Tenant, c: TenantStorageClass): KubernetesObject {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: {
      name: c.name,
      labels: labels(tenant, 'storage-class'),
      ...(c.default ? { annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } } : {}),
    },
    provisioner: PROXMOX_CSI.driverName,
    parameters: { 'csi.storage.k8s.io/fstype': 'ext4', storage: c.storage },
    reclaimPolicy: c.reclaimPolicy ?? 'Delete',
    // A disk is created on the Proxmox node of the first Pod's Node (its topology), so it waits for it.
    volumeBindingMode: 'WaitForFirstConsumer',
    allowVolumeExpansion: true,
  };
}

/** The tenant-side objects: namespace, CSIDriver, node plugin and its RBAC, StorageClasses. No Secret. */
export function tenantStorageObjects(tenant: Tenant, classes: readonly TenantStorageClass[], mirror?: Mirror): KubernetesObject[] {
  const nodeLabels = labels(tenant, 'node');
  const selector = { 'app.kubernetes.io/name': 'proxmox-csi-plugin', 'app.kubernetes.io/component': 'node' };
  const kubeletDir = '/var/lib/kubelet';
  return [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: CSI_TENANT_NAMESPACE, labels: { 'pod-security.kubernetes.io/enforce': 'privileged' } } },
    {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'CSIDriver',
      metadata: { name: PROXMOX_CSI.driverName, labels: labels(tenant, 'driver') },
      spec: { attachRequired: true, podInfoOnMount: true, storageCapacity: false, volumeLifecycleModes: ['Persistent'] },
    },
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: CSI_NODE, namespace: CSI_TENANT_NAMESPACE, labels: nodeLabels } },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: CSI_NODE, labels: nodeLabels },
      rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['get'] }],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: CSI_NODE, labels: nodeLabels },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: CSI_NODE },
      subjects: [{ kind: 'ServiceAccount', name: CSI_NODE, namespace: CSI_TENANT_NAMESPACE }],
    },
    {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: CSI_NODE, namespace: CSI_TENANT_NAMESPACE, labels: nodeLabels },
      spec: {
        selector: { matchLabels: selector },
        updateStrategy: { type: 'RollingUpdate' },
        template: {
          metadata: { labels: { ...selector, [LABEL_TENANT]: tenant.name } },
          spec: {
            serviceAccountName: CSI_NODE,
            priorityClassName: 'system-node-critical',
            enableServiceLinks: false,
            securityContext: { runAsUser: 0, runAsGroup: 0 },
            containers: [
              {
                name: 'proxmox-csi-node',
                image: image('node', mirror),
                args: ['-v=3', `--csi-address=${SOCKET}`, '--node-id=$(NODE_NAME)'],
                env: [{ name: 'NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }],
                securityContext: {
                  privileged: true,
                  capabilities: { drop: ['ALL'], add: ['SYS_ADMIN', 'CHOWN', 'DAC_OVERRIDE'] },
                  seccompProfile: { type: 'RuntimeDefault' },
                },
                volumeMounts: [
                  { name: 'socket', mountPath: '/csi' },
                  { name: 'kubelet', mountPath: kubeletDir, mountPropagation: 'Bidirectional' },
                  { name: 'dev', mountPath: '/dev' },
                  { name: 'sys', mountPath: '/sys' },
                ],
              },
              {
                name: 'csi-node-driver-registrar',
                image: image('registrar', mirror),
                args: ['-v=3', `--csi-address=${SOCKET}`, `--kubelet-registration-path=${kubeletDir}/plugins/${PROXMOX_CSI.driverName}/csi.sock`],
                securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
                volumeMounts: [
                  { name: 'socket', mountPath: '/csi' },
                  { name: 'registration', mountPath: '/registration' },
                ],
              },
            ],
            tolerations: [{ operator: 'Exists' }],
            volumes: [
              { name: 'socket', hostPath: { path: `${kubeletDir}/plugins/${PROXMOX_CSI.driverName}/`, type: 'DirectoryOrCreate' } },
              { name: 'registration', hostPath: { path: `${kubeletDir}/plugins_registry/`, type: 'Directory' } },
              { name: 'kubelet', hostPath: { path: kubeletDir, type: 'Directory' } },
              { name: 'dev', hostPath: { path: '/dev', type: 'Directory' } },
              { name: 'sys', hostPath: { path: '/sys', type: 'Directory' } },
            ],
          },
        },
      },
    },
    ...[...classes].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map((c) => storageClassObject(tenant, c)),
  ];
}

/**
 * What makes a tenant-side object hold or reach a Proxmox credential: a Secret itself, a secret
 * volume or projection, an env var or envFrom from a Secret, or a value that looks like a Proxmox
 * token (`user@realm!token`, `PVEAPIToken=`). Every problem, as `<kind>/<name>: <what>`; the
 * rendering tests and the lab twin's scan of every tenant API server use it.
 */
export function tenantSideCredentialProblems(objects: readonly KubernetesObject[]): string[] {
  const problems: string[] = [];
  const TOKEN = /[A-Za-z0-9._-]+@[A-Za-z0-9._-]+![A-Za-z][A-Za-z0-9._-]*|PVEAPIToken=/;
  for (const o of objects) {
    const name = `${String(o.kind)}/${String((o.metadata as { name?: string } | undefined)?.name)}`;
    if (o.kind === 'Secret') problems.push(`${name}: a Secret`);
    const walk = (v: unknown, path: string): void => {
      if (typeof v === 'string') {
        if (TOKEN.test(v)) problems.push(`${name}: ${path} looks like a Proxmox API token`);
      } else if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${path}[${i}]`));
      else if (v && typeof v === 'object')
        for (const [k, x] of Object.entries(v)) {
          if (k === 'secret' || k === 'secretKeyRef' || k === 'secretRef') problems.push(`${name}: ${path}.${k} reads a Secret`);
          walk(x, `${path}.${k}`);
        }
    };
    walk(o, '');
  }
  return problems;
}

/** The ConfigMap the ClusterResourceSet applies: one key per tenant-side object, in apply order. */
function resourcesConfigMap(tenant: Tenant, objects: readonly KubernetesObject[]): KubernetesObject {
  const key = (o: KubernetesObject, i: number) =>
    `${String(i).padStart(2, '0')}-${String(o.kind).toLowerCase()}-${String((o.metadata as { name: string }).name)}.json`;
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: CSI_TENANT_RESOURCES, namespace: tenantNamespace(tenant), labels: { [LABEL_TENANT]: tenant.name } },
    data: Object.fromEntries(objects.map((o, i) => [key(o, i), `${JSON.stringify(o, null, 2)}\n`])),
  };
}

/** A tenant's storage, or undefined when it has no `storage`. `instances`: where its machines run. */
export function tenantStorage(tenant: Tenant, instances: readonly Instance[], mirror?: Mirror): TenantStorageRendering | undefined {
  const classes = tenant.storage?.classes;
  if (!classes || classes.length === 0) return undefined;
  const ns = tenantNamespace(tenant);
  const tenantObjects = tenantStorageObjects(tenant, classes, mirror);
  return {
    classes,
    management: {
      config: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: CSI_CONFIG, namespace: ns, labels: labels(tenant, 'controller') },
        // JSON is YAML: the plugin reads the file with a YAML parser (pkg/config/config.go ReadCloudConfig).
        data: { 'config.yaml': `${JSON.stringify(csiConfig(instances), null, 2)}\n` },
      },
      serviceAccount: {
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { name: CSI_CONTROLLER, namespace: ns, labels: labels(tenant, 'controller') },
        automountServiceAccountToken: false,
      },
      controller: controllerDeployment(tenant, instances, mirror),
    },
    tenantObjects,
    resources: resourcesConfigMap(tenant, tenantObjects),
    resourceSet: {
      apiVersion: CRS_API,
      kind: 'ClusterResourceSet',
      metadata: { name: CSI_TENANT_RESOURCES, namespace: ns, labels: { [LABEL_TENANT]: tenant.name } },
      spec: {
        strategy: 'Reconcile',
        clusterSelector: { matchLabels: { [LABEL_TENANT]: tenant.name }, matchExpressions: [{ key: LABEL_PRIMARY, operator: 'DoesNotExist' }] },
        resources: [{ kind: 'ConfigMap', name: CSI_TENANT_RESOURCES }],
      },
    },
  };
}
