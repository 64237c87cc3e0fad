/**
 * The names of a tenant's identity objects (issue 39, modules/tenants/identity.ts), apart so that
 * the class patches (cluster-class-patches.ts) can use them without importing the rendering.
 */

/** The ConfigMap of the tenant API server's AuthenticationConfiguration, in the tenant namespace. */
export const AUTHENTICATION_CONFIG_MAP = 'pvekaas-authentication';
/** Its one key: the file kube-apiserver reads (JSON, which its YAML decoder reads as it is). */
export const AUTHENTICATION_CONFIG_KEY = 'authentication-config.json';
/** Where the class mounts it in Kamaji's kube-apiserver container (a directory of its own: Kamaji's volumes are /etc/kubernetes/pki and the CA directories). */
export const AUTHENTICATION_MOUNT_PATH = '/etc/kubernetes/pvekaas-authentication';
/** The volume's name in the control-plane pod (none of Kamaji's own: etc-kubernetes-pki, etc-ca-certificates, ...). */
export const AUTHENTICATION_VOLUME = 'pvekaas-authentication';
