/**
 * Kamaji's and its CAPI provider's rules, played from their source at the pinned versions (the lab
 * twin cannot run either: no container runtime for Kamaji, and the provider's module needs a Kamaji
 * pseudo-version the Go module proxy refuses). Pure functions, so each rule is unit-tested
 * (test/players/kamaji-rules.test.ts) and the player (kamaji.ts) only does the I/O.
 *
 * Sources (read with git at these revisions; every rule below names its file):
 * - Kamaji 26.8.2-edge: github.com/clastix/kamaji at ddbabd87ed0e8d7c319414383e153c46f21733a9
 *   (the commit crds/README.md records for the committed CRDs).
 * - The provider v0.20.0: github.com/clastix/cluster-api-control-plane-provider-kamaji tag v0.20.0.
 * - kamaji-etcd chart 0.17.0: github.com/clastix/kamaji-etcd at 92f31f0 (charts/kamaji-etcd).
 *
 * The immutable TenantControlPlane fields are CEL rules of Kamaji's CRD (tcp_defaults.go: "all
 * immutability requirements are handled trough CEL annotations"): the committed CRD carries them
 * and the real management kube-apiserver enforces them, so they are not repeated here.
 */

import { pinnedVersions } from '../modules/versions/pins';
import { kamajiKubeadmVersions } from '../modules/versions/tenant-range';

export const TCP_API = 'kamaji.clastix.io/v1alpha1';
export const KCP_API = 'controlplane.cluster.x-k8s.io/v1alpha2';

/**
 * internal/upgrade/kubeadm_version.go: `KubeadmVersion = "v1.36.0"`, the newest minor this Kamaji
 * supports. Read from the one table of it (modules/versions/tenant-range.ts), which validate's rule
 * `versions.tenant-kubernetes` also reads: the twin refuses what the synth would, for the same reason.
 */
export const KAMAJI_KUBEADM_VERSION: string = kamajiKubeadmVersions[pinnedVersions.kamajiImage];
if (KAMAJI_KUBEADM_VERSION === undefined)
  throw new Error(`modules/versions/tenant-range.ts: no KubeadmVersion for the pinned Kamaji ${pinnedVersions.kamajiImage}`);

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an unstructured Kubernetes object read by path, as the controller reads it
type Obj = { apiVersion?: string; kind?: string; metadata: Record<string, any>; spec?: any; status?: any; [key: string]: any };

function parseVersion(text: string): { major: number; minor: number; patch: number } | undefined {
  // github.com/blang/semver (semver.New / semver.Make) after normalizeKubernetesVersion strips one leading "v".
  const m = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/.exec(text.replace(/^v/, ''));
  return m ? { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3]) } : undefined;
}

const cmp = (a: { major: number; minor: number; patch: number }, b: { major: number; minor: number; patch: number }) =>
  a.major - b.major || a.minor - b.minor || a.patch - b.patch;

/**
 * The TenantControlPlane the provider creates or updates from a KamajiControlPlane and its Cluster:
 * controllers/kamajicontrolplane_controller_tcp.go createOrUpdateTenantControlPlane (v0.20.0), field
 * by field, for what a KamajiControlPlane can carry without ExternalClusterReference, Gateway or
 * Ingress (pvekaas renders none of them; each is refused here rather than ignored).
 */
export function tenantControlPlaneFor(kcp: Obj, cluster: Obj, existing?: Obj): Obj {
  const s = kcp.spec ?? {};
  const network = s.network ?? {};
  if (s.deployment?.externalClusterReference) throw new Error('KamajiControlPlane spec.deployment.externalClusterReference: not played by the lab twin');
  if (network.gateway || network.ingress) throw new Error('KamajiControlPlane spec.network.gateway/ingress: not played by the lab twin');
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- an unstructured Kubernetes object read by path, as the controller reads it
  const spec: any = structuredClone(existing?.spec ?? {});
  const set = (path: string[], value: unknown) => {
    let o = spec;
    for (const k of path.slice(0, -1)) o = o[k] ??= {};
    if (value === undefined || value === null || value === '') delete o[path[path.length - 1]];
    else o[path[path.length - 1]] = structuredClone(value);
  };
  const cn = cluster.spec?.clusterNetwork ?? {};
  // "TenantControlPlane port": only when the Cluster sets one (else Kamaji's CRD default 6443).
  if (cn.apiServerPort) set(['networkProfile', 'port'], cn.apiServerPort);
  if (cn.services?.cidrBlocks?.length) set(['networkProfile', 'serviceCidr'], cn.services.cidrBlocks[0]);
  if (cn.pods?.cidrBlocks?.length) set(['networkProfile', 'podCidr'], cn.pods.cidrBlocks[0]);
  set(['networkProfile', 'clusterDomain'], cn.serviceDomain);
  set(['controlPlane', 'deployment', 'replicas'], s.replicas);
  // "Tolerate version strings without a "v" prefix".
  set(['kubernetes', 'version'], s.version && !String(s.version).startsWith('v') ? `v${s.version}` : s.version);
  set(['networkProfile', 'dnsServiceIPs'], network.dnsServiceIPs);
  // "Kamaji addons and CoreDNS overrides": the addons as they are, CoreDNS without its dnsServiceIPs,
  // which move to the network profile (even when empty).
  const addons = structuredClone(s.addons ?? {});
  if (addons.coreDNS) {
    const { dnsServiceIPs, ...addon } = addons.coreDNS;
    set(['networkProfile', 'dnsServiceIPs'], dnsServiceIPs);
    addons.coreDNS = addon;
  }
  set(['addons'], Object.keys(addons).length ? addons : undefined);
  if (s.dataStoreName) set(['dataStore'], s.dataStoreName);
  if (s.dataStoreSchema) set(['dataStoreSchema'], s.dataStoreSchema);
  if (s.dataStoreUsername) set(['dataStoreUsername'], s.dataStoreUsername);
  set(['dataStoreOverrides'], s.dataStoreOverrides);
  set(['kubernetes', 'admissionControllers'], s.admissionControllers);
  set(['controlPlane', 'deployment', 'registrySettings', 'registry'], s.containerRegistry);
  for (const [component, field] of [
    ['controllerManager', 'controllerManager'],
    ['scheduler', 'scheduler'],
    ['apiServer', 'apiServer'],
  ] as const) {
    set(['controlPlane', 'deployment', 'additionalVolumeMounts', field], s[component]?.extraVolumeMounts);
    set(['controlPlane', 'deployment', 'extraArgs', field], s[component]?.extraArgs);
    set(['controlPlane', 'deployment', 'resources', field], s[component]?.resources ?? {});
  }
  set(['controlPlane', 'deployment', 'extraArgs', 'kine'], s.kine?.extraArgs);
  set(['controlPlane', 'deployment', 'resources', 'kine'], s.kine?.resources ?? {});
  set(['controlPlane', 'deployment', 'registrySettings', 'controllerManagerImage'], s.controllerManager?.containerImageName);
  set(['controlPlane', 'deployment', 'registrySettings', 'schedulerImage'], s.scheduler?.containerImageName);
  set(['controlPlane', 'deployment', 'registrySettings', 'apiServerImage'], s.apiServer?.containerImageName);
  set(['kubernetes', 'kubelet'], s.kubelet);
  set(['networkProfile', 'address'], network.serviceAddress);
  set(['networkProfile', 'advertiseAddress'], network.advertiseAddress);
  set(['controlPlane', 'service', 'serviceType'], network.serviceType);
  set(['controlPlane', 'service', 'additionalMetadata', 'labels'], network.serviceLabels);
  set(['controlPlane', 'service', 'additionalMetadata', 'annotations'], network.serviceAnnotations);
  set(['controlPlane', 'service', 'additionalPorts'], network.additionalServicePorts);
  for (const san of network.certSANs ?? []) {
    // "validating CertSANs as soon as possible": <HOST>:<PORT> is refused (ErrUnsupportedCertificateSAN).
    if (/^(\[[^\]]+\]|[^:]+):\d+$/.test(san))
      throw new Error(`cannot create or update TenantControlPlane: entry ${san} is invalid: a certificate SAN must be made of host only with no port`);
  }
  set(['networkProfile', 'certSANs'], network.certSANs);
  set(['controlPlane', 'gateway'], undefined);
  set(['controlPlane', 'ingress'], undefined);
  if (network.loadBalancerConfig?.loadBalancerClass) set(['networkProfile', 'loadBalancerClass'], network.loadBalancerConfig.loadBalancerClass);
  if (network.loadBalancerConfig?.loadBalancerSourceRanges)
    set(['networkProfile', 'loadBalancerSourceRanges'], network.loadBalancerConfig.loadBalancerSourceRanges);
  const d = s.deployment ?? {};
  for (const [from, to] of [
    ['nodeSelector', 'nodeSelector'],
    ['runtimeClassName', 'runtimeClassName'],
    ['serviceAccountName', 'serviceAccountName'],
    ['additionalMetadata', 'additionalMetadata'],
    ['podAdditionalMetadata', 'podAdditionalMetadata'],
    ['strategy', 'strategy'],
    ['affinity', 'affinity'],
    ['tolerations', 'tolerations'],
    ['topologySpreadConstraints', 'topologySpreadConstraints'],
    ['extraInitContainers', 'additionalInitContainers'],
    ['extraContainers', 'additionalContainers'],
    ['extraVolumes', 'additionalVolumes'],
  ] as const) {
    set(['controlPlane', 'deployment', to], d[from]);
  }
  set(['controlPlane', 'deployment', 'probes'], undefined);
  const annotations: Record<string, string> = { ...(existing?.metadata.annotations ?? {}) };
  for (const [k, v] of Object.entries((kcp.metadata.annotations ?? {}) as Record<string, string>)) {
    if (k !== 'kubectl.kubernetes.io/last-applied-configuration') annotations[k] = v;
  }
  return {
    apiVersion: TCP_API,
    kind: 'TenantControlPlane',
    metadata: {
      name: kcp.metadata.name,
      namespace: kcp.metadata.namespace,
      labels: { ...(kcp.metadata.labels ?? {}) },
      ...(Object.keys(annotations).length ? { annotations } : {}),
      // SetControllerReference(&kcp, tcp).
      ownerReferences: [
        { apiVersion: KCP_API, kind: 'KamajiControlPlane', name: kcp.metadata.name, uid: kcp.metadata.uid, controller: true, blockOwnerDeletion: true },
      ],
    },
    spec,
  };
}

/**
 * Kamaji's mutating webhook on create (internal/webhook/handlers/tcp_defaults.go): the default
 * DataStore (the `--datastore` flag, the chart's `defaultDatastoreName`), 2 replicas, the schema and
 * user names, the CIDR lists from the singular fields, the DNS service IP (service CIDR + 10).
 */
export function defaultTenantControlPlane(tcp: Obj, defaultDataStore: string): Obj {
  const out = structuredClone(tcp);
  const spec = (out.spec ??= {});
  if (!spec.dataStore && defaultDataStore) spec.dataStore = defaultDataStore;
  spec.controlPlane ??= {};
  spec.controlPlane.deployment ??= {};
  spec.controlPlane.deployment.replicas ??= 2;
  // api/v1alpha1/tenantcontrolplane_funcs.go GetDefaultDatastoreSchema / GetDefaultDatastoreUsername: the object's UID.
  if (out.metadata.uid) {
    spec.dataStoreSchema ||= out.metadata.uid;
    spec.dataStoreUsername ||= out.metadata.uid;
  }
  const np = (spec.networkProfile ??= {});
  if (!np.serviceCidrs?.length && np.serviceCidr) np.serviceCidrs = [np.serviceCidr];
  if (!np.podCidrs?.length && np.podCidr) np.podCidrs = [np.podCidr];
  if (!np.dnsServiceIPs?.length) {
    const cidrs: string[] = np.serviceCidrs?.length ? np.serviceCidrs : np.serviceCidr ? [np.serviceCidr] : [];
    np.dnsServiceIPs = cidrs.map((cidr) => {
      const ip = cidr.split('/')[0];
      if (ip.includes(':')) throw new Error('the lab twin plays IPv4 service CIDRs only');
      const parts = ip.split('.').map(Number);
      parts[3] = (parts[3] + 10) & 255;
      return parts.join('.');
    });
  }
  return out;
}

function ipv4ToInt(ip: string): number | undefined {
  const parts = ip.split('.');
  if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) > 255)) return undefined;
  return parts.reduce((n, p) => n * 256 + Number(p), 0);
}

function inCidr(ip: string, cidr: string): boolean {
  const [base, bits] = cidr.split('/');
  const a = ipv4ToInt(ip);
  const b = ipv4ToInt(base);
  if (a === undefined || b === undefined) return false;
  const size = 2 ** (32 - Number(bits));
  return Math.floor(a / size) === Math.floor(b / size);
}

/** What the validating webhook reads from the cluster: DataStores by name. */
export interface AdmissionLookup {
  dataStoreExists(name: string): boolean;
}

/**
 * Kamaji's validating webhook for TenantControlPlanes (route
 * /validate-kamaji-clastix-io-v1alpha1-tenantcontrolplane, failurePolicy Fail; handlers in
 * cmd/manager/cmd.go's order). Returns the refusal message, or undefined when admitted.
 */
export function validateTenantControlPlane(tcp: Obj, old: Obj | undefined, lookup: AdmissionLookup): string | undefined {
  const spec = tcp.spec ?? {};
  const np = spec.networkProfile ?? {};
  // tcp_certsans.go: kubeadm's ValidateCertSANs (a DNS-1123 subdomain, a wildcard or an IP each).
  for (const san of np.certSANs ?? []) {
    const isIp = ipv4ToInt(san) !== undefined || /^[0-9a-fA-F:]+$/.test(san);
    const isName = /^(\*\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(san);
    if (!isIp && !isName)
      return `spec.networkProfile.certSANs: Invalid value: "${san}": altname is not a valid IP address, DNS label or a DNS label with subdomain wildcards`;
  }
  // tcp_dns.go validateDNSServiceIPs: every DNS service IP inside one of the service CIDRs.
  if (np.dnsServiceIPs?.length) {
    const cidrs: string[] = np.serviceCidrs?.length ? np.serviceCidrs : np.serviceCidr ? [np.serviceCidr] : [];
    if (cidrs.length === 0) return 'no service CIDRs defined';
    for (const ip of np.dnsServiceIPs as string[]) {
      if (ipv4ToInt(ip) === undefined) return `DNS service IP "${ip}" is not a valid IP address`;
      if (!cidrs.some((c) => inCidr(ip, c))) return `DNS service IP "${ip}" is not contained in any configured service CIDR`;
    }
  }
  // tcp_name.go (create only): the name is a DNS-1035 label.
  if (!old && !/^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/.test(tcp.metadata.name)) {
    return `the provided name is invalid, a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character`;
  }
  // tcp_version.go: never above upgrade.KubeadmVersion's minor; on update no downgrade and no minor skipped.
  const supported = parseVersion(KAMAJI_KUBEADM_VERSION)!;
  const wanted = parseVersion(String(spec.kubernetes?.version ?? ''));
  if (!wanted) return `unable to parse the desired Kubernetes version: ${spec.kubernetes?.version ?? '(none)'}`;
  const wantedMinor = { ...wanted, patch: 0 };
  if (!old) {
    if (cmp(wantedMinor, supported) > 0)
      return `unable to create a TenantControlPlane with a Kubernetes version greater than the supported one, actually v${supported.major}.${supported.minor}`;
  } else if (!tcp.metadata.deletionTimestamp) {
    const before = parseVersion(String(old.spec?.kubernetes?.version ?? ''));
    if (!before) return 'unable to parse the previous Kubernetes version';
    const beforeMinor = { ...before, patch: 0 };
    if (cmp(wantedMinor, supported) > 0) return `unable to upgrade to a version greater than the supported one (v${supported.major}.${supported.minor})`;
    if (cmp(wantedMinor, beforeMinor) < 0)
      return `unable to downgrade a TenantControlPlane from ${before.major}.${before.minor}.0 to ${wanted.major}.${wanted.minor}.0`;
    if (wanted.minor - before.minor > 1) return 'unable to upgrade to a minor version in a non-sequential mode';
  }
  // tcp_datastore.go: the named DataStore exists (create and update); without one, each override's,
  // and no resource overridden twice (create only).
  if (spec.dataStore) {
    if (!lookup.dataStoreExists(spec.dataStore)) return `${spec.dataStore} DataStore does not exist`;
  } else if (!old) {
    const seen = new Set<string>();
    for (const o of (spec.dataStoreOverrides ?? []) as { resource: string; dataStore: string }[]) {
      if (seen.has(o.resource)) return 'duplicate resource override in Spec.DataStoreOverrides';
      seen.add(o.resource);
      if (!lookup.dataStoreExists(o.dataStore)) return `${o.dataStore} DataStore does not exist`;
    }
  }
  // tcp_deployment.go validates additional containers and volumes by a dry-run of the Deployment
  // (played: controlPlaneDeployment, dry-run by the player on the real management API server);
  // pvekaas renders no additional containers, so they are refused rather than skipped.
  const dep = spec.controlPlane?.deployment ?? {};
  if (dep.additionalInitContainers?.length || dep.additionalContainers?.length) {
    return 'additional containers: not played by the lab twin (pvekaas renders none)';
  }
  if (spec.controlPlane?.gateway) return 'spec.controlPlane.gateway: not played by the lab twin';
  return undefined;
}

/** What the DataStore controller reads: Secrets by namespace and name, with their data keys. */
export type SecretLookup = (namespace: string, name: string) => Record<string, string> | undefined;

/**
 * Kamaji's DataStore controller (controllers/datastore_controller.go validateBasicAuth,
 * validateTLSConfig, validateContentReference): the condition `kamaji.clastix.io/DataStoreValidation`
 * and `status.ready`. Returns the reason it is not valid, or undefined when it is. Note Kamaji
 * checks that each referenced Secret exists (not its keys); the key is read when connecting
 * (internal/datastore/connection.go), which the twin checks too (`keyPath` present).
 */
export function validateDataStore(ds: Obj, secret: SecretLookup): { reason: string; message: string } | undefined {
  const spec = ds.spec ?? {};
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- an unstructured Kubernetes object read by path, as the controller reads it
  const ref = (r: any): string | undefined => {
    if (r?.content) return undefined;
    if (!r?.secretReference) return 'the Secret reference is mandatory when bare content is not specified';
    if (!r.secretReference.name) return 'the Secret reference name is mandatory';
    if (!r.secretReference.namespace) return 'the Secret reference namespace is mandatory';
    const data = secret(r.secretReference.namespace, r.secretReference.name);
    if (!data) return `secret ${r.secretReference.namespace}/${r.secretReference.name} is not found`;
    // internal/datastore/connection.go: the content under keyPath is what the connection uses.
    if (!data[r.secretReference.keyPath]) return `secret ${r.secretReference.namespace}/${r.secretReference.name} has no key ${r.secretReference.keyPath}`;
    return undefined;
  };
  if (!['etcd', 'MySQL', 'PostgreSQL', 'NATS'].includes(spec.driver)) return { reason: 'InvalidDriver', message: `unsupported driver ${spec.driver}` };
  if (!spec.endpoints?.length) return { reason: 'InvalidEndpoints', message: 'no endpoints' };
  if (spec.basicAuth) {
    const p = ref(spec.basicAuth.password);
    if (p) return { reason: 'BasicAuthValidationFailed', message: `basic-auth password is not valid, ${p}` };
    const u = ref(spec.basicAuth.username);
    if (u) return { reason: 'BasicAuthValidationFailed', message: `basic-auth username is not valid, ${u}` };
  }
  const tls = spec.tlsConfig;
  if (!tls && spec.driver !== 'etcd') return undefined;
  const fail = (message: string) => ({ reason: 'TLSConfigurationValidationFailed', message });
  // A nil TLSConfig with the etcd driver: upstream dereferences it and the reconcile panics; no status is written.
  if (!tls) return fail('the etcd driver needs spec.tlsConfig (Kamaji would fail this reconcile)');
  const ca = ref(tls.certificateAuthority?.certificate);
  if (ca) return fail(`CA certificate is not valid, ${ca}`);
  if (spec.driver === 'etcd') {
    if (!tls.certificateAuthority?.privateKey) return fail('CA private key is required when using the etcd driver');
    if (!tls.clientCertificate) return fail('client certificate is required when using the etcd driver');
  }
  if (tls.certificateAuthority?.privateKey) {
    const k = ref(tls.certificateAuthority.privateKey);
    if (k) return fail(`CA private key is not valid, ${k}`);
  }
  if (tls.clientCertificate) {
    const c = ref(tls.clientCertificate.certificate);
    if (c) return fail(`client certificate is not valid, ${c}`);
    const k = ref(tls.clientCertificate.privateKey);
    if (k) return fail(`client private key is not valid, ${k}`);
  }
  return undefined;
}

/**
 * The DataStore the kamaji-etcd chart 0.17.0 renders (templates/etcd_datastore.yaml with
 * `certManager.enabled`; names from templates/_helpers.tpl), from the release's values and namespace.
 * Undefined when `datastore.enabled` is false.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Helm chart values: free-form YAML read by path, as the chart reads it
export function kamajiEtcdDataStore(values: any, releaseName: string, namespace: string): Obj | undefined {
  if (!values?.datastore?.enabled) return undefined;
  const fullname = values.fullnameOverride || (releaseName.includes('kamaji-etcd') ? releaseName : `${releaseName}-kamaji-etcd`);
  if (!values.certManager?.enabled) throw new Error('kamaji-etcd without certManager: the lab twin plays the cert-manager layout only');
  const caName = values.certManager.ca?.nameOverride || `${fullname}-ca`;
  const clientName = values.certManager.clientCert?.nameOverride || `${fullname}-client-certs`;
  const replicas = Number(values.replicas ?? 3);
  const domain = values.clusterDomain ?? 'cluster.local';
  const port = Number(values.clientPort ?? 2379);
  const headless = values.datastore.headless === undefined || values.datastore.headless;
  const endpoints = headless
    ? Array.from({ length: replicas }, (_, i) => `${fullname}-${i}.${fullname}.${namespace}.svc.${domain}:${port}`)
    : [`${fullname}-client.${namespace}.svc.${domain}:${port}`];
  const secretRef = (name: string, keyPath: string) => ({ secretReference: { keyPath, name, namespace } });
  return {
    apiVersion: TCP_API,
    kind: 'DataStore',
    metadata: {
      name: values.datastore.name || fullname,
      ...(values.datastore.annotations ? { annotations: values.datastore.annotations } : {}),
    },
    spec: {
      driver: 'etcd',
      endpoints,
      tlsConfig: {
        certificateAuthority: { certificate: secretRef(caName, 'tls.crt'), privateKey: secretRef(caName, 'tls.key') },
        clientCertificate: { certificate: secretRef(clientName, 'tls.crt'), privateKey: secretRef(clientName, 'tls.key') },
      },
    },
  };
}

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
