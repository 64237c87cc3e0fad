/**
 * Kamaji's Konnectivity addon, played from source (a pure function; the player writes what it
 * returns into the tenant cluster).
 * Sources: the pinned Kamaji, at the commit twin/kamaji-rules.ts records; every rule below names its file.
 */
import { parseVersion, type Obj } from '../kamaji-rules';

/**
 * What Kamaji's Konnectivity addon writes into the tenant cluster when the TenantControlPlane has
 * `spec.addons.konnectivity` (internal/resources/konnectivity: service_account_resource.go,
 * cluster_role_binding_resource.go, agent.go; names from constants.go): the agent's
 * ServiceAccount, the binding of the server's user `system:konnectivity-server` to
 * `system:auth-delegator`, and the agent (DaemonSet or Deployment) dialing the control plane's
 * address on the Konnectivity server port. Empty without the addon.
 */
export function konnectivityAgentObjects(tcp: Obj): Obj[] {
  const k = tcp.spec?.addons?.konnectivity;
  if (!k) return [];
  const name = 'konnectivity-agent';
  const namespace = 'kube-system';
  const labels = (component: string) => ({
    'kamaji.clastix.io/project': 'kamaji',
    'kamaji.clastix.io/name': tcp.metadata.name,
    'kamaji.clastix.io/component': component,
  });
  const address = tcp.spec?.networkProfile?.advertiseAddress || tcp.spec?.networkProfile?.address;
  if (!address) throw new Error('unable to retrieve the Tenant Control Plane address');
  const agent = k.agent ?? {};
  const version =
    agent.version ||
    (() => {
      const v = parseVersion(String(tcp.spec?.kubernetes?.version ?? ''));
      return v ? `v0.${v.minor}.0` : '';
    })();
  const args: Record<string, string> = {
    '-v': '8',
    '--logtostderr': 'true',
    '--ca-cert': '/var/run/secrets/kubernetes.io/serviceaccount/ca.crt',
    '--proxy-server-host': address,
    '--proxy-server-port': String(k.server?.port),
    '--admin-server-port': '8133',
    '--health-server-port': '8134',
    '--service-account-token-path': '/var/run/secrets/tokens/konnectivity-agent-token',
  };
  for (const a of (agent.extraArgs ?? []) as string[]) {
    const [key, ...value] = a.split('=');
    args[key] = value.join('=');
  }
  const template = {
    metadata: { labels: { 'k8s-app': name } },
    spec: {
      priorityClassName: 'system-cluster-critical',
      ...(agent.tolerations ? { tolerations: agent.tolerations } : {}),
      hostNetwork: agent.hostNetwork ?? false,
      nodeSelector: { 'kubernetes.io/os': 'linux' },
      serviceAccountName: name,
      volumes: [
        {
          name: 'konnectivity-agent-token',
          projected: {
            sources: [{ serviceAccountToken: { path: 'konnectivity-agent-token', audience: 'system:konnectivity-server', expirationSeconds: 3600 } }],
            defaultMode: 420,
          },
        },
      ],
      containers: [
        {
          name,
          image: `${agent.image ?? 'registry.k8s.io/kas-network-proxy/proxy-agent'}:${version}`,
          command: ['/proxy-agent'],
          // utilities.ArgsFromMapToSlice: `key=value`, sorted.
          args: Object.keys(args)
            .sort()
            .map((key) => `${key}=${args[key]}`),
          volumeMounts: [{ mountPath: '/var/run/secrets/tokens', name: 'konnectivity-agent-token' }],
          livenessProbe: {
            httpGet: { path: '/healthz', port: 8134, scheme: 'HTTP' },
            initialDelaySeconds: 15,
            timeoutSeconds: 15,
            periodSeconds: 10,
            successThreshold: 1,
            failureThreshold: 3,
          },
        },
      ],
    },
  };
  const workload =
    (agent.mode ?? 'DaemonSet') === 'Deployment'
      ? {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name, namespace, labels: labels(name) },
          spec: { selector: { matchLabels: { 'k8s-app': name } }, ...(agent.replicas !== undefined ? { replicas: agent.replicas } : {}), template },
        }
      : {
          apiVersion: 'apps/v1',
          kind: 'DaemonSet',
          metadata: { name, namespace, labels: labels(name) },
          spec: { selector: { matchLabels: { 'k8s-app': name } }, template },
        };
  return [
    // Each resource's GetName() is its label's component: konnectivity-sa, konnectivity-clusterrolebinding, konnectivity-agent.
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace, labels: labels('konnectivity-sa') } },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: {
        name: 'system:konnectivity-server',
        labels: { ...labels('konnectivity-clusterrolebinding'), 'kubernetes.io/cluster-service': 'true', 'addonmanager.kubernetes.io/mode': 'Reconcile' },
      },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:auth-delegator' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'system:konnectivity-server' }],
    },
    workload,
  ];
}
