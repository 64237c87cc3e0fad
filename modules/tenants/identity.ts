/**
 * Tenant login through the lab's identity provider (issue 39, docs/identity.md), as plain data:
 *
 * - the tenant API server's structured authentication configuration (`AuthenticationConfiguration`,
 *   `--authentication-config`): a ConfigMap in the tenant namespace that the `lab-tenant` class
 *   mounts into Kamaji's kube-apiserver container. The pinned Kamaji CAPI provider (v0.20.0,
 *   controllers/kamajicontrolplane_controller_tcp.go) copies a KamajiControlPlane's
 *   `apiServer.extraArgs` and `apiServer.extraVolumeMounts` to the TenantControlPlane's
 *   `controlPlane.deployment.extraArgs.apiServer` / `additionalVolumeMounts.apiServer`, and
 *   `deployment.extraVolumes` to `additionalVolumes`; Kamaji 26.8.2-edge
 *   (internal/builders/controlplane/deployment.go buildKubeAPIServerCommand, setAdditionalVolumes)
 *   puts the user's extra args after its own and the volumes before its own. No `--oidc-*` flag:
 *   kube-apiserver refuses them beside `--authentication-config`;
 * - the tenant cluster's ClusterRoleBindings for the tenant's groups (admins → cluster-admin,
 *   editors → edit, viewers → view), applied inside the tenant cluster by CAPI core's
 *   ClusterResourceSet controller (strategy Reconcile: a changed ConfigMap is applied again);
 *   the three bindings always exist, so a group taken away is an update, never a leftover;
 * - a kubeconfig for people: kubelogin's `kubectl oidc-login get-token` as an exec credential
 *   plugin. It holds no secret (the issuer, the client id, the issuer's CA certificate, the VIP).
 */
import { tenantRoleGroups, ACCESS_ROLES } from '../config/identity-rules';
import type { Identity } from '../config/identity-schema';
import type { Lab, Tenant } from '../config/schema';
import { seriesOf } from '../versions/support';
import type { KubernetesObject } from './manifest';
import { LABEL_TENANT, clusterName, tenantNamespace } from './names';
import { LABEL_PRIMARY } from './secondary';
import { AUTHENTICATION_CONFIG_KEY, AUTHENTICATION_CONFIG_MAP } from './identity-names';

export * from './identity-names';

/** The ConfigMap of the tenant's ClusterRoleBindings and the ClusterResourceSet that applies it. */
export const ACCESS_RESOURCES = 'pvekaas-tenant-access';
/** The API server's port (Kamaji's default; the Cluster sets no apiServerPort). */
export const TENANT_API_PORT = 6443;
/** ClusterResourceSet of the pinned CAPI core. */
export const CRS_API = 'addons.cluster.x-k8s.io/v1beta2';

/**
 * The AuthenticationConfiguration's apiVersion for a tenant: `apiserver.config.k8s.io/v1` from
 * Kubernetes 1.34 (structured authentication configuration GA), v1beta1 below (beta, on by default
 * since 1.30, the oldest minor a tenant may run). During an upgrade (`previous.kubernetesVersion`)
 * the older minor's, which both read: the API server reloads the file while old pods still run.
 */
export function authenticationApiVersion(tenant: Pick<Tenant, 'kubernetesVersion' | 'previous'>): string {
  const minorOf = (v: string | undefined) => (v ? Number((seriesOf(v) ?? '1.0').split('.')[1]) : Infinity);
  const minor = Math.min(minorOf(tenant.kubernetesVersion), minorOf(tenant.previous?.kubernetesVersion));
  return minor >= 34 ? 'apiserver.config.k8s.io/v1' : 'apiserver.config.k8s.io/v1beta1';
}

/** The issuer CA as PEM, from the description's base64. */
export function issuerCaPem(identity: Identity): string | undefined {
  return identity.certificateAuthorityData ? Buffer.from(identity.certificateAuthorityData, 'base64').toString('utf8') : undefined;
}

/** The tenant API server's structured authentication configuration: one JWT authenticator, the lab's issuer. */
export function authenticationConfiguration(identity: Identity, tenant: Pick<Tenant, 'kubernetesVersion' | 'previous'>): Record<string, unknown> {
  const ca = issuerCaPem(identity);
  return {
    apiVersion: authenticationApiVersion(tenant),
    kind: 'AuthenticationConfiguration',
    jwt: [
      {
        issuer: {
          url: identity.issuer,
          audiences: [identity.clientID],
          ...(ca ? { certificateAuthority: ca } : {}),
        },
        claimMappings: {
          username: { claim: identity.usernameClaim, prefix: identity.usernamePrefix },
          groups: { claim: identity.groupsClaim, prefix: identity.groupsPrefix },
        },
      },
    ],
  };
}

/** The ConfigMap the tenant API server reads its AuthenticationConfiguration from. */
export function authenticationConfigMap(identity: Identity, tenant: Tenant): KubernetesObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: AUTHENTICATION_CONFIG_MAP, namespace: tenantNamespace(tenant), labels: { [LABEL_TENANT]: tenant.name } },
    data: { [AUTHENTICATION_CONFIG_KEY]: `${JSON.stringify(authenticationConfiguration(identity, tenant), null, 2)}\n` },
  };
}

/** The name of a role's ClusterRoleBinding in the tenant cluster. */
export const accessBindingName = (role: string) => `pvekaas-${role}`;

/**
 * The tenant cluster's ClusterRoleBindings: each role's groups, as the API server names them
 * (identity.groupsPrefix before the issuer's group), to its ClusterRole. All three, always.
 */
export function accessBindings(identity: Identity, tenant: Tenant): KubernetesObject[] {
  const groups = tenantRoleGroups(tenant);
  return ACCESS_ROLES.map(({ role, clusterRole }) => ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: accessBindingName(role), labels: { 'app.kubernetes.io/managed-by': 'pvekaas', [LABEL_TENANT]: tenant.name } },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: clusterRole },
    subjects: groups[role].map((g) => ({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: `${identity.groupsPrefix}${g}` })),
  }));
}

/** The ConfigMap the ClusterResourceSet applies: one key per binding. */
export function accessConfigMap(identity: Identity, tenant: Tenant): KubernetesObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: ACCESS_RESOURCES, namespace: tenantNamespace(tenant), labels: { [LABEL_TENANT]: tenant.name } },
    data: Object.fromEntries(accessBindings(identity, tenant).map((b) => [`${b.metadata.name}.json`, `${JSON.stringify(b, null, 2)}\n`])),
  };
}

/**
 * CAPI core's ClusterResourceSet: the bindings into the tenant's primary Cluster only (its
 * secondary Clusters, `pvekaas.lab/primary-cluster`, share its API server), applied again
 * whenever the ConfigMap changes (strategy Reconcile).
 */
export function accessResourceSet(tenant: Tenant): KubernetesObject {
  return {
    apiVersion: CRS_API,
    kind: 'ClusterResourceSet',
    metadata: { name: ACCESS_RESOURCES, namespace: tenantNamespace(tenant), labels: { [LABEL_TENANT]: tenant.name } },
    spec: {
      strategy: 'Reconcile',
      clusterSelector: {
        matchLabels: { [LABEL_TENANT]: tenant.name },
        matchExpressions: [{ key: LABEL_PRIMARY, operator: 'DoesNotExist' }],
      },
      resources: [{ kind: 'ConfigMap', name: ACCESS_RESOURCES }],
    },
  };
}

/** The file people keep the tenant API server's CA certificate in, beside the kubeconfig. */
export const caFileName = (tenant: Pick<Tenant, 'name'>) => `${tenant.name}-ca.crt`;

/**
 * The kubeconfig people log in with: the tenant API server at its VIP, verified with the CA file
 * beside it (caFileName: the public certificate of the tenant's CA, `oidc_ca_command`), and
 * kubelogin (`kubectl oidc-login get-token`) as its exec credential plugin. No secret in it.
 */
export function oidcKubeconfig(identity: Identity, tenant: Tenant, vip: string): Record<string, unknown> {
  const name = tenant.name;
  const args = [
    'oidc-login',
    'get-token',
    `--oidc-issuer-url=${identity.issuer}`,
    `--oidc-client-id=${identity.clientID}`,
    ...(identity.usernameClaim === 'email' ? ['--oidc-extra-scope=email'] : []),
    ...(identity.certificateAuthorityData ? [`--certificate-authority-data=${identity.certificateAuthorityData}`] : []),
  ];
  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster: { server: `https://${vip}:${TENANT_API_PORT}`, 'certificate-authority': caFileName(tenant) } }],
    users: [
      {
        name: `${name}-oidc`,
        user: { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: 'kubectl', args, interactiveMode: 'IfAvailable', provideClusterInfo: false } },
      },
    ],
    contexts: [{ name, context: { cluster: name, user: `${name}-oidc` } }],
    'current-context': name,
  };
}

/** The class variable a tenant's Cluster sets when the lab has an identity provider. */
export interface TenantAuthenticationValue {
  configMap: string;
}

/** What a tenant renders for its identity, when the lab has an identity provider. */
export interface TenantIdentityRendering {
  /** The AuthenticationConfiguration ConfigMap (before the Cluster: its pods mount it). */
  authentication: KubernetesObject;
  /** The ClusterRoleBindings' ConfigMap and the ClusterResourceSet that applies it. */
  access: KubernetesObject;
  resourceSet: KubernetesObject;
  /** The people's kubeconfig (no secret) and the command that writes the CA file it names. */
  kubeconfig: Record<string, unknown>;
  caFile: string;
  /** Each role's groups as the issuer names them, for the outputs and review. */
  groups: Record<'admins' | 'editors' | 'viewers', string[]>;
}

export function tenantIdentity(lab: Pick<Lab, 'identity'>, tenant: Tenant, vip: string): TenantIdentityRendering | undefined {
  const identity = lab.identity;
  if (!identity) return undefined;
  return {
    authentication: authenticationConfigMap(identity, tenant),
    access: accessConfigMap(identity, tenant),
    resourceSet: accessResourceSet(tenant),
    kubeconfig: oidcKubeconfig(identity, tenant, vip),
    caFile: caFileName(tenant),
    groups: tenantRoleGroups(tenant),
  };
}

/** The `<cluster>-ca` Secret's public certificate into the CA file the people's kubeconfig names. */
export function caFileCommand(target: string, tenant: Tenant): string {
  return (
    `kubectl ${target}--namespace ${tenantNamespace(tenant)} get secret ${clusterName(tenant)}-ca ` +
    `--output jsonpath='{.data.tls\\.crt}' | base64 --decode > ${caFileName(tenant)}`
  );
}
