/**
 * Kamaji's and its CAPI provider's rules, played from their source at the pinned versions (the lab
 * twin cannot run either: no container runtime for Kamaji, and the provider's module needs a Kamaji
 * pseudo-version the Go module proxy refuses). Pure functions, so each rule is unit-tested
 * (test/players/kamaji-rules.test.ts) and the player (kamaji/index.ts) only does the I/O. Here: the
 * TenantControlPlane the provider makes and Kamaji's webhooks for it; beside it, one part a file:
 * kamaji/datastore-rules.ts (DataStores), kamaji/konnectivity-rules.ts (the Konnectivity addon),
 * kamaji/api-server-rules.ts (the kube-apiserver container of Kamaji's Deployment).
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
export type Obj = { apiVersion?: string; kind?: string; metadata: Record<string, any>; spec?: any; status?: any; [key: string]: any };

export function parseVersion(text: string): { major: number; minor: number; patch: number } | undefined {
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
