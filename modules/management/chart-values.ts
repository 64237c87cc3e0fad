/**
 * What the management plane's Helm releases and custom resources say, as plain data: chart values
 * per release, the CAPI operator's provider resources, and the MetalLB pool. The constructs turn
 * these into Terraform resources; tests validate the custom resources against the pinned CRDs.
 * Pure: no cdktf, no I/O.
 */
import type { Management } from '../config/schema';
import { capiProviders, managementImages, type CapiProvider, type ImagePin, type ManagementVersions } from '../versions';
import {
  KAMAJI_DATASTORE_NAME,
  KAMAJI_ETCD_FULLNAME,
  SYNCED_MACHINE_LABELS,
  TENANT_VIP_POOL,
  managementNamespaces,
  providerNamespaces,
  releaseNames,
} from '../versions/layout';
import { mirroredImage, mirroredRepository, providerComponentsArtifact, type Mirror } from '../versions/mirror';
import { LOCAL_PATH_NODE_PATH, datastoreStorageClass } from './datastore';

/** What every builder needs: the lab's `management:` and its effective versions. */
export interface ManagementSettings {
  readonly management: Management;
  readonly versions: ManagementVersions;
}

/** A Kubernetes object as a plain JSON value. */
export interface KubernetesObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string;
    readonly labels?: Record<string, string>;
    readonly annotations?: Record<string, string>;
  };
  readonly spec?: Record<string, unknown>;
}

const OPERATOR_API = 'operator.cluster.x-k8s.io/v1alpha2';

function mirrorOf(s: ManagementSettings): Mirror | undefined {
  return s.management.mirror;
}

function image(pin: ImagePin, mirror?: Mirror): { repository: string; tag: string } {
  const m = mirroredImage(pin, mirror);
  return { repository: m.repository, tag: m.digest ? `${m.tag}@${m.digest}` : m.tag };
}

/**
 * The operator's provider resources, one per CAPI provider. The cluster-api-operator chart renders
 * exactly these from its values (`capiOperatorValues`); they are built here as objects so the
 * tests can validate them against the operator's CRDs.
 */
export function capiProviderResources(s: ManagementSettings): KubernetesObject[] {
  const mirror = mirrorOf(s);
  const images = managementImages(s.versions).capiProviders;
  return capiProviders.map((provider) => {
    const spec: Record<string, unknown> = { version: s.versions[provider.versionKey] };
    if (provider.kind === 'core') {
      // ClusterClass (the tenants' `lab-tenant` class) needs the topology controller, alpha and off by default.
      spec.manager = { featureGates: { ClusterTopology: true } };
    }
    const artifact = providerComponentsArtifact(provider, mirror);
    if (artifact) spec.fetchConfig = { oci: artifact };
    // The manager container: its image from the mirror, its flags (the chart passes `deployment`
    // whole; of `manager` it passes only featureGates and metrics, so not `manager.additionalArgs`).
    const manager: Record<string, unknown> = {};
    if (mirror?.images) manager.imageUrl = imageString(images[provider.kind], mirror);
    const tuning = controllerTuning(provider, s.versions[provider.versionKey]);
    if (tuning) manager.args = tuning;
    if (Object.keys(manager).length > 0) spec.deployment = { containers: [{ name: 'manager', ...manager }] };
    return {
      apiVersion: OPERATOR_API,
      kind: provider.operatorKind,
      metadata: { name: provider.name, namespace: providerNamespaces[provider.kind] },
      spec,
    };
  });
}

/**
 * The controllers' concurrency and client rate limits: on Cluster API 1.12, the defaults CAPI 1.13
 * ships (`main.go` and `bootstrap/kubeadm/main.go` of v1.13.x, from commits "Increase default
 * kube-api qps/burst" and "Tune controller concurrency and cache timeout for scale"), upstream's
 * answer to 1.12's 20 QPS / 30 burst and 10 workers per controller at scale. At 30 tenants they
 * change nothing measurable (no throttling before or after: docs/development.md, "The management
 * controllers' settings", `npm run bench:twin`); they are set for larger management planes and so
 * that the move to 1.13 changes no controller behaviour.
 * From 1.13 on these are upstream's defaults and nothing of them is rendered. They go in the provider's
 * `deployment.containers[manager].args`, which the operator sets on the manager container as
 * `key=value`, replacing the components' own value of that flag (cluster-api-operator
 * `internal/controller/component_customizer.go`, `customizeContainer`). Not in
 * `manager.additionalArgs`: the operator chart's templates pass only `featureGates` and `metrics`
 * of `manager` (templates/core.yaml, bootstrap.yaml of the pinned chart), so those flags would be
 * dropped — and a `manager` with nothing left renders as `manager: null`, which the
 * BootstrapProvider CRD refuses (test/helm/real-charts.test.ts). An unknown flag stops the manager
 * at start, which the lab twin's real controllers show.
 */
export const CAPI_1_12_TUNING: Readonly<Record<'core' | 'bootstrap', Readonly<Record<string, string>>>> = {
  core: {
    '--cluster-concurrency': '50',
    '--clustertopology-concurrency': '50',
    '--machine-concurrency': '100',
    '--machinedeployment-concurrency': '50',
    '--machinehealthcheck-concurrency': '50',
    '--machineset-concurrency': '50',
    '--kube-api-qps': '100',
    '--kube-api-burst': '200',
  },
  bootstrap: {
    '--kubeadmconfig-concurrency': '100',
    '--kube-api-qps': '100',
    '--kube-api-burst': '200',
  },
};

/** The core manager's flag that copies the tenants' topology labels from Machines to Nodes, on every CAPI minor. */
export const CORE_SYNC_ARGS: Readonly<Record<string, string>> = { '--additional-sync-machine-labels': SYNCED_MACHINE_LABELS };

function controllerTuning(provider: CapiProvider, version: string | undefined): Record<string, string> | undefined {
  if (provider.kind !== 'core' && provider.kind !== 'bootstrap') return undefined;
  // The core manager copies the tenants' topology labels from Machines to Nodes (modules/versions/layout.ts).
  const sync = provider.kind === 'core' ? CORE_SYNC_ARGS : {};
  const tuning = version && /^v?1\.12\./.test(version) ? CAPI_1_12_TUNING[provider.kind] : {};
  const args = { ...tuning, ...sync };
  return Object.keys(args).length > 0 ? args : undefined;
}

function imageString(pin: ImagePin, mirror?: Mirror): string {
  const m = mirroredImage(pin, mirror);
  return `${m.repository}:${m.tag}${m.digest ? `@${m.digest}` : ''}`;
}

export function certManagerValues(s: ManagementSettings): Record<string, unknown> {
  const mirror = mirrorOf(s);
  const images = managementImages(s.versions).certManager;
  return {
    crds: { enabled: true, keep: true },
    image: image(images.controller, mirror),
    webhook: { image: image(images.webhook, mirror) },
    cainjector: { image: image(images.cainjector, mirror) },
    acmesolver: { image: image(images.acmesolver, mirror) },
    startupapicheck: { image: image(images.startupapicheck, mirror) },
  };
}

/** cluster-api-operator values: the operator image and the providers, keyed by chart section and provider name. */
export function capiOperatorValues(s: ManagementSettings): Record<string, unknown> {
  const mirror = mirrorOf(s);
  const values: Record<string, unknown> = {
    image: { manager: { ...image(managementImages(s.versions).clusterApiOperator.manager, mirror), pullPolicy: 'IfNotPresent' } },
  };
  const resources = capiProviderResources(s);
  capiProviders.forEach((provider: CapiProvider, i) => {
    const resource = resources[i];
    // Namespaces are created by Terraform (not by chart hooks, which Helm deletes and recreates on upgrade).
    values[provider.kind] = { [provider.name]: { namespace: resource.metadata.namespace, createNamespace: false, ...resource.spec } };
  });
  return values;
}

export function kamajiValues(s: ManagementSettings): Record<string, unknown> {
  const mirror = mirrorOf(s);
  return {
    image: { ...image(managementImages(s.versions).kamaji.controller, mirror), pullPolicy: 'IfNotPresent' },
    defaultDatastoreName: KAMAJI_DATASTORE_NAME,
    // kamaji-etcd is its own release (kamajiEtcdValues), pinned independently of what the chart bundles.
    'kamaji-etcd': { deploy: false },
    telemetry: { disabled: true },
  };
}

/** Etcd's backend quota: three quarters of the volume, at most the 8 GiB etcd recommends. */
export function etcdQuotaBytes(size: string): number {
  const m = /^(\d+)(Mi|Gi|Ti)$/.exec(size);
  const bytes = m ? Number(m[1]) * { Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40 }[m[2] as 'Mi' | 'Gi' | 'Ti'] : 8 * 2 ** 30;
  return Math.min(8 * 2 ** 30, Math.floor((bytes * 3) / 4));
}

export function kamajiEtcdValues(s: ManagementSettings): Record<string, unknown> {
  const mirror = mirrorOf(s);
  const images = managementImages(s.versions).kamajiEtcd;
  const datastore = s.management.datastore;
  const setupEtcd = image(images.setupEtcdctl, mirror);
  const setupKubectl = image(images.setupKubectl, mirror);
  return {
    fullnameOverride: KAMAJI_ETCD_FULLNAME,
    replicas: datastore.replicas,
    clusterDomain: s.management.clusterDomain,
    image: { ...image(images.etcd, mirror), pullPolicy: 'IfNotPresent' },
    quotaBackendBytes: String(etcdQuotaBytes(datastore.size)),
    persistentVolumeClaim: { size: datastore.size, storageClassName: datastoreStorageClass(datastore), accessModes: ['ReadWriteOnce'] },
    // One member per node: with node-local volumes, two members on one node lose quorum together.
    affinity: {
      podAntiAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: [
          {
            labelSelector: { matchLabels: { 'app.kubernetes.io/name': 'kamaji-etcd', 'app.kubernetes.io/instance': releaseNames.kamajiEtcd } },
            topologyKey: 'kubernetes.io/hostname',
          },
        ],
      },
    },
    selfSignedCertificates: { enabled: false },
    certManager: { enabled: true, issuerRef: { name: 'kamaji-selfsigned-issuer', kind: 'Issuer', group: 'cert-manager.io' } },
    // Every tenant's control plane points at this DataStore; uninstalling the chart must not delete it.
    datastore: { enabled: true, name: KAMAJI_DATASTORE_NAME, headless: true, annotations: { 'helm.sh/resource-policy': 'keep' } },
    jobs: {
      etcd: { image: setupEtcd.repository, tag: setupEtcd.tag, pullPolicy: 'IfNotPresent' },
      kubectl: { image: setupKubectl.repository, tag: setupKubectl.tag },
    },
  };
}

export function metallbValues(s: ManagementSettings): Record<string, unknown> {
  const mirror = mirrorOf(s);
  const images = managementImages(s.versions).metallb;
  return {
    crds: { enabled: true },
    controller: { image: image(images.controller, mirror) },
    // L2 only: no FRR container, no frr-k8s.
    speaker: { image: image(images.speaker, mirror), frr: { enabled: false } },
    frrk8s: { enabled: false },
  };
}

/** OpenEBS LocalPV splits registry (ending in "/") from repository. */
function splitRegistry(pin: ImagePin, mirror?: Mirror): { registry: string; repository: string; tag: string } {
  const full = mirroredRepository(pin.repository, mirror);
  const path = pin.repository.split('/').slice(1).join('/');
  return { registry: `${full.slice(0, full.length - path.length)}`, repository: path, tag: pin.tag };
}

export function localpvValues(s: ManagementSettings): Record<string, unknown> {
  const mirror = mirrorOf(s);
  const images = managementImages(s.versions).localpvProvisioner;
  return {
    localpv: { image: { ...splitRegistry(images.provisioner, mirror), pullPolicy: 'IfNotPresent' } },
    helperPod: { image: { ...splitRegistry(images.helper, mirror), pullPolicy: 'IfNotPresent' } },
    hostpathClass: {
      enabled: true,
      name: datastoreStorageClass(s.management.datastore),
      isDefaultClass: false,
      // The datastore holds every tenant: a deleted claim must not delete the data with it.
      reclaimPolicy: 'Retain',
    },
    analytics: { enabled: false },
  };
}

/**
 * Rancher local-path-provisioner (`datastore.csi: local-path`), keys of its chart's values.yaml at the
 * pinned release (deploy/chart/local-path-provisioner; test/helm/real-charts.test.ts renders it with
 * these). The provisioner name stays the chart's (`cluster.local/<release>`, templates/_helpers.tpl
 * `local-path-provisioner.provisionerName`), not k3s's `rancher.io/local-path`: a k3s management
 * cluster keeps its own provisioner and class beside this one.
 */
export function localPathValues(s: ManagementSettings): Record<string, unknown> {
  const mirror = mirrorOf(s);
  const images = managementImages(s.versions).localPathProvisioner;
  return {
    // The chart's templates use image.pullPolicy for the helper pod too (templates/configmap.yaml).
    image: { ...image(images.provisioner, mirror), pullPolicy: 'IfNotPresent' },
    helperImage: image(images.helper, mirror),
    storageClass: {
      create: true,
      name: datastoreStorageClass(s.management.datastore),
      defaultClass: false,
      // The datastore holds every tenant: a deleted claim must not delete the data with it.
      reclaimPolicy: 'Retain',
      // A node-local volume is made on the node the etcd member is scheduled to (anti-affinity: one per node).
      volumeBindingMode: 'WaitForFirstConsumer',
    },
    nodePathMap: [{ node: 'DEFAULT_PATH_FOR_NON_LISTED_NODES', paths: [LOCAL_PATH_NODE_PATH] }],
  };
}

/** The MetalLB pool of tenant VIPs and its L2 advertisement (management-config stack). */
export function tenantVipPoolManifests(management: Management): KubernetesObject[] {
  const lb = management.loadBalancer;
  const metadata = { name: TENANT_VIP_POOL, namespace: managementNamespaces.metallb };
  return [
    // autoAssign false: only a Service that asks for one of these addresses gets it (Kamaji's, by
    // the metallb.io/loadBalancerIPs annotation the class sets); MetalLB's default (true) would hand
    // a tenant's pre-allocated VIP to any LoadBalancer Service of the management cluster.
    { apiVersion: 'metallb.io/v1beta1', kind: 'IPAddressPool', metadata, spec: { addresses: [...lb.addresses], autoAssign: false } },
    {
      apiVersion: 'metallb.io/v1beta1',
      kind: 'L2Advertisement',
      metadata,
      spec: { ipAddressPools: [TENANT_VIP_POOL], ...(lb.interfaces.length > 0 ? { interfaces: [...lb.interfaces] } : {}) },
    },
  ];
}
