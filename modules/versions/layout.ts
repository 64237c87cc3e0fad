/**
 * Where the management plane lives: namespaces, release names and the names other stacks refer
 * to (the CAPMOX credentials Secret per instance, the Kamaji DataStore). Pure data, so tenant
 * stacks and tests can import it without cdktf.
 */

/** Namespaces the management stack creates (and owns). */
export const managementNamespaces = {
  certManager: 'cert-manager',
  capiOperator: 'capi-operator-system',
  /** The Kamaji chart's CRDs hard-code `kamaji-system/kamaji-serving-cert`, so Kamaji must live here. */
  kamaji: 'kamaji-system',
  metallb: 'metallb-system',
  storage: 'openebs',
  /** The local-path-provisioner's namespace (its upstream manifest's name); its helper pods mount the node path. */
  localPath: 'local-path-storage',
} as const;

/** One namespace per Cluster API provider (the operator installs each provider's components there). */
export const providerNamespaces = {
  core: 'capi-system',
  bootstrap: 'capi-kubeadm-bootstrap-system',
  controlPlane: 'capi-kamaji-system',
  infrastructure: 'capmox-system',
  ipam: 'capi-ipam-in-cluster-system',
  addon: 'caaph-system',
} as const;

/** Helm release names (Kamaji's is fixed: its CRDs reference `kamaji-system/kamaji-serving-cert`). */
export const releaseNames = {
  certManager: 'cert-manager',
  clusterApiOperator: 'capi-operator',
  kamaji: 'kamaji',
  kamajiEtcd: 'kamaji-etcd',
  metallb: 'metallb',
  localpvProvisioner: 'localpv-provisioner',
  localPathProvisioner: 'local-path-provisioner',
} as const;

/** The DataStore every tenant control plane uses unless it names another (Kamaji `--datastore`). */
export const KAMAJI_DATASTORE_NAME = 'default';

/** The kamaji-etcd StatefulSet, its services and certificate Secrets are named after this. */
export const KAMAJI_ETCD_FULLNAME = 'kamaji-etcd';

/** The namespace of the CAPMOX credentials Secrets (CAPMOX's own namespace). */
export const CAPMOX_CREDENTIALS_NAMESPACE = providerNamespaces.infrastructure;

/** The label CAPMOX expects on a credentials Secret. */
export const CAPMOX_SECRET_TYPE_LABEL = { 'platform.ionos.com/secret-type': 'proxmox-credentials' } as const;

/**
 * The name of a tenant's CAPMOX credentials Secret of a Proxmox instance (keys url, token,
 * secret) in the tenant's namespace, where its ProxmoxCluster's `credentialsRef` points (see
 * modules/tenants, `tenantCredentialsSecretName`).
 */
export function capmoxCredentialsSecretName(instance: string): string {
  return `capmox-${instance}-credentials`;
}

/**
 * The management plane's CAPMOX credentials Secret of one tenant on one instance (keys url,
 * token, secret: that tenant's own token only), in `CAPMOX_CREDENTIALS_NAMESPACE`. One Secret per
 * tenant and instance, so the tenant stack that reads it (a data source, whose whole `data` lands
 * in that stack's state) holds its own token and nobody else's. ProxmoxClusters do not refer to it
 * across namespaces: CAPMOX sets an ownerReference from the ProxmoxCluster to its Secret, which
 * Kubernetes only honours within one namespace, so each tenant stack copies it into the tenant's
 * namespace. Instance and tenant names are DNS labels (no '.'), so the '.' keeps every pair apart.
 */
export function capmoxTenantCredentialsSecretName(instance: string, tenant: string): string {
  return `capmox-${instance}-credentials.${tenant}`;
}

/** The MetalLB pool (and its L2Advertisement) holding the tenant VIPs. */
/**
 * The well-known topology labels of a tenant's Nodes: region = the Proxmox instance (the `region` of
 * that instance's cluster in the Proxmox CSI plugin's config), zone = the Proxmox node. The CSI
 * node plugin answers NodeGetInfo from them (proxmox-csi-plugin v0.19.1 `pkg/csi/node.go`,
 * NodeGetInfo: `topology.kubernetes.io/region` and `/zone`, refusing a Node without them), and the
 * cluster-autoscaler's scale-from-zero templates carry them. pvekaas puts them on the Machines;
 * CAPI's machine controller copies to the Node only `node-role.kubernetes.io/`,
 * `node-restriction.kubernetes.io/` and `node.cluster.x-k8s.io/` labels plus those matching its
 * `--additional-sync-machine-labels` regexes (cluster-api `main.go` of both pinned minors,
 * `internal/controllers/machine/machine_controller_noderef.go` and `util/labels` GetManagedLabels):
 * the management stack sets that flag on the core manager to this expression.
 */
export const TOPOLOGY_LABELS = { region: 'topology.kubernetes.io/region', zone: 'topology.kubernetes.io/zone' } as const;
export const SYNCED_MACHINE_LABELS = '^topology\\.kubernetes\\.io/(region|zone)$';

export const TENANT_VIP_POOL = 'tenant-vips';
