/**
 * The templates of the `lab-tenant` ClusterClass (Kamaji control plane, ProxmoxCluster, worker
 * ProxmoxMachine and KubeadmConfig), each named after the hash of its content so that a changed
 * template is a new object. The per-Cluster values are patched in (cluster-class-patches.ts).
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '../config/canonical-json';
import type { MultiInstanceRendering } from './cluster-class-variables';
import { API, type KubernetesObject } from './manifest';
import { CLUSTER_CLASS_NAME, CLUSTER_CLASS_NAMESPACE } from './names';

export interface ClusterClassOptions {
  /** Kamaji DataStore the tenant control planes keep their state in. */
  dataStoreName: string;
  /** `proposal` adds the variable and patch for a CAPMOX implementing its open multi-instance pull requests (availabilityZones). */
  multiInstance: MultiInstanceRendering;
  /** @default CLUSTER_CLASS_NAMESPACE */
  namespace?: string;
  /** The worker health check's timeouts (`management.healthCheck`). @default DEFAULT_HEALTH_CHECK */
  healthCheck?: WorkerHealthCheckTimeouts;
  /** The lab has an identity provider: the class declares `tenantAuthentication` and its patch (issue 39). @default false */
  identity?: boolean;
}

export interface WorkerHealthCheckTimeouts {
  /** A machine without a Node after this long is remediated. */
  nodeStartupSeconds: number;
  /** A Node whose Ready condition is False or Unknown this long is remediated. */
  unhealthySeconds: number;
}

/**
 * Name prefixes of the class's templates. Each template is named `<prefix>-<hash of its content>`
 * (`templateName`): CAPMOX v0.9.0's ProxmoxMachineTemplate webhook refuses every spec change
 * (`internal/webhook/proxmoxmachinetemplate_webhook.go`), so a changed template must be a new
 * object that the class points at, never an update of the old one. The other three templates
 * follow the same rule, so no template the class uses ever changes under it.
 */
export const TEMPLATE_NAMES = {
  controlPlane: `${CLUSTER_CLASS_NAME}-control-plane`,
  infrastructureCluster: `${CLUSTER_CLASS_NAME}-proxmox-cluster`,
  workerMachine: `${CLUSTER_CLASS_NAME}-worker`,
  workerBootstrap: `${CLUSTER_CLASS_NAME}-worker`,
};

/** The first 10 hex digits of the SHA-256 of a value's canonical JSON. */
export function contentHash(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex').slice(0, 10);
}

/** A class template's name: its prefix and the hash of its kind and spec. */
function templateName(prefix: string, kind: string, spec: unknown): string {
  return `${prefix}-${contentHash({ kind, spec })}`;
}

/** Konnectivity's server port on the control-plane Service (Kamaji's default). */
export const KONNECTIVITY_PORT = 8132;

/**
 * CAPMOX sets the machine's providerID from this kubelet flag: cloud-init renders the instance id
 * (the VM's BIOS UUID) into it, as in CAPMOX's own templates.
 */
export const PROVIDER_ID_ARG = { name: 'provider-id', value: "proxmox://'{{ ds.meta_data.instance_id }}'" };

/** Placeholder node pool of the ProxmoxClusterTemplate (TEST-NET-1, never routed); see below. */
export const PLACEHOLDER_IPV4_CONFIG = { addresses: ['192.0.2.10-192.0.2.19'], prefix: 24, gateway: '192.0.2.1' };

export interface ClassTemplates {
  controlPlane: KubernetesObject;
  infrastructureCluster: KubernetesObject;
  workerMachine: KubernetesObject;
  workerBootstrap: KubernetesObject;
}

/** The worker ProxmoxMachineTemplate's spec before the per-Cluster patches. */
function workerMachineSpec(): Record<string, unknown> {
  return {
    full: true,
    numSockets: 1,
    numCores: 2,
    memoryMiB: 4096,
    disks: { bootVolume: { disk: 'scsi0', sizeGb: 20 } },
    // The CRD requires a template source in the template itself; the proxmoxTemplate patches
    // replace its tags or remove it (source node and id). `uniqueSubset`: the template's tags must
    // contain all of these and may carry more (user-built templates often do), and exactly one
    // template may match (CAPMOX's TemplateMatchPolicySubset; the default `exact` needs the
    // very same tag set).
    templateSelector: { matchTags: ['capi'], matchPolicy: 'uniqueSubset' },
    network: { networkDevices: [{ name: 'net0', bridge: 'vmbr0', model: 'virtio' }] },
  };
}

let workerMachineName: string | undefined;
/**
 * The name of the class's worker ProxmoxMachineTemplate (it depends on its content only, a
 * constant: computed once per process, not once per machine deployment — hashing it for every
 * machine deployment of a 100-tenant lab was 8–14 % of a synth's CPU profile).
 */
export function workerMachineTemplateName(): string {
  workerMachineName ??= templateName(TEMPLATE_NAMES.workerMachine, 'ProxmoxMachineTemplate', workerMachineSpec());
  return workerMachineName;
}

export function classTemplates(options: ClusterClassOptions): ClassTemplates {
  const namespace = options.namespace ?? CLUSTER_CLASS_NAMESPACE;
  const template = (apiVersion: string, kind: string, prefix: string, spec: Record<string, unknown>): KubernetesObject => ({
    apiVersion,
    kind,
    metadata: { name: templateName(prefix, kind, spec), namespace },
    spec: { template: { spec } },
  });
  const controlPlane = template(API.controlPlane, 'KamajiControlPlaneTemplate', TEMPLATE_NAMES.controlPlane, {
    dataStoreName: options.dataStoreName,
    addons: {
      coreDNS: {},
      kubeProxy: {},
      konnectivity: {
        server: { port: KONNECTIVITY_PORT },
        // Not on the host network: Kamaji 26.8.2-edge writes `clusterCIDR: ""` into the tenant's
        // kube-proxy configuration (clastix/kamaji#1289, fixed by #1291 in a later edge), which
        // breaks ClusterIP traffic from host-network pods such as this agent. On the pod network
        // the agent starts once the CNI runs; logs and exec wait for it.
        agent: { mode: 'DaemonSet', tolerations: [{ operator: 'Exists' }] },
      },
    },
    kubelet: { cgroupfs: 'systemd', preferredAddressTypes: ['InternalIP', 'ExternalIP', 'Hostname'] },
    network: { serviceType: 'LoadBalancer' },
  });
  const infrastructureCluster = template(API.infrastructure, 'ProxmoxClusterTemplate', TEMPLATE_NAMES.infrastructureCluster, {
    // Kamaji's provider writes the control-plane endpoint; CAPMOX waits for it.
    externalManagedControlPlane: true,
    // CAPMOX's ProxmoxClusterTemplate webhook refuses a template without an IP pool ("proxmox
    // cluster must define at least one IP pool config", internal/webhook/
    // proxmoxclustertemplate_webhook.go, failurePolicy Fail), and the CRD requires a DNS server.
    // As in CAPMOX's own templates/cluster-class.yaml, the template carries placeholders that
    // every Cluster's node-network patch replaces (192.0.2.0/24 is TEST-NET-1, never routed).
    ipv4Config: PLACEHOLDER_IPV4_CONFIG,
    dnsServers: ['192.0.2.53'],
  });
  const workerMachine = template(API.infrastructure, 'ProxmoxMachineTemplate', TEMPLATE_NAMES.workerMachine, workerMachineSpec());
  const workerBootstrap = template(API.bootstrap, 'KubeadmConfigTemplate', TEMPLATE_NAMES.workerBootstrap, {
    joinConfiguration: {
      nodeRegistration: {
        name: '{{ local_hostname }}',
        kubeletExtraArgs: [PROVIDER_ID_ARG],
      },
    },
  });
  return { controlPlane, infrastructureCluster, workerMachine, workerBootstrap };
}

export function clusterClassTemplates(options: ClusterClassOptions): KubernetesObject[] {
  const t = classTemplates(options);
  return [t.controlPlane, t.infrastructureCluster, t.workerMachine, t.workerBootstrap];
}
