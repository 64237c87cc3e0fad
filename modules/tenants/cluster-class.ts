/**
 * The `lab-tenant` ClusterClass and its templates: a Kamaji hosted control plane, a ProxmoxCluster
 * managed by CAPMOX with an externally managed control plane, and one worker class. Everything
 * that differs between tenants or machine deployments is a variable, patched into the place where
 * CAPMOX, Kamaji or kubeadm read it.
 */
import { createHash } from 'node:crypto';
import { API, type KubernetesObject } from './manifest';
import { CLUSTER_CLASS_NAME, CLUSTER_CLASS_NAMESPACE, WORKER_CLASS } from './names';

/** `capmox.multiInstance`; `secondary-clusters` uses the released class (modules/tenants/secondary.ts). */
export type MultiInstanceRendering = 'refuse' | 'proposal' | 'secondary-clusters';

export interface ClusterClassOptions {
  /** Kamaji DataStore the tenant control planes keep their state in. */
  dataStoreName: string;
  /** `proposal` adds the variables and patches for a CAPMOX implementing the multi-instance proposal. */
  multiInstance: MultiInstanceRendering;
  /** @default CLUSTER_CLASS_NAMESPACE */
  namespace?: string;
  /** The worker health check's timeouts (`management.healthCheck`). @default DEFAULT_HEALTH_CHECK */
  healthCheck?: WorkerHealthCheckTimeouts;
}

export interface WorkerHealthCheckTimeouts {
  /** A machine without a Node after this long is remediated. */
  nodeStartupSeconds: number;
  /** A Node whose Ready condition is False or Unknown this long is remediated. */
  unhealthySeconds: number;
}

export const DEFAULT_HEALTH_CHECK: WorkerHealthCheckTimeouts = { nodeStartupSeconds: 1200, unhealthySeconds: 300 };

/** A ClusterClass variable: name, whether each Cluster must set it, and its OpenAPI schema. */
export interface ClassVariable {
  name: string;
  required: boolean;
  /** Set per machine deployment (topology `variables.overrides`) rather than per Cluster. */
  perMachineDeployment?: boolean;
  schema: Record<string, unknown>;
}

const KUBERNETES_NAME = { type: 'string', minLength: 1, maxLength: 253 };
const IPV4 = { type: 'string', format: 'ipv4' };
// CAPMOX's tag pattern without RE2's inline (?i), which JSON Schema validators do not take.
const PROXMOX_TAG = { type: 'string', pattern: '^[a-zA-Z0-9_][a-zA-Z0-9_\\-\\+\\.]*$' };
const NODE_NAMES = { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } };

const templateSourceSchema = {
  type: 'object',
  description:
    'The VM template CAPMOX clones: sourceNode + templateID, or matchTags (plus the machine deployment\'s Kubernetes version when appendVersionTag is true).',
  properties: {
    sourceNode: { type: 'string', minLength: 1 },
    templateID: { type: 'integer', minimum: 100, maximum: 999999999 },
    matchTags: { type: 'array', items: PROXMOX_TAG },
    appendVersionTag: { type: 'boolean' },
  },
  'x-kubernetes-validations': [
    {
      rule: 'has(self.templateID) == has(self.sourceNode) && has(self.templateID) != has(self.matchTags)',
      message: 'give either sourceNode and templateID, or matchTags',
    },
  ],
};

/** The variables of the class as released CAPMOX (v0.9) can use them. */
export function releasedVariables(): ClassVariable[] {
  return [
    {
      name: 'controlPlaneVIP',
      required: true,
      schema: { ...IPV4, description: 'Address of the Kamaji LoadBalancer Service (MetalLB) that serves the API server and Konnectivity.' },
    },
    {
      name: 'dnsServiceIP',
      required: true,
      schema: { ...IPV4, description: 'ClusterIP of CoreDNS in the tenant cluster, inside the service CIDR; kubelets get it as clusterDNS.' },
    },
    {
      name: 'nodeIPv4Config',
      required: true,
      schema: {
        type: 'object',
        description: 'Node addresses handed out by the in-cluster IPAM pool CAPMOX creates for the cluster.',
        required: ['addresses', 'prefix', 'gateway'],
        properties: {
          addresses: { type: 'array', minItems: 1, items: { type: 'string', minLength: 7 } },
          prefix: { type: 'integer', minimum: 1, maximum: 32 },
          gateway: IPV4,
        },
      },
    },
    {
      name: 'dnsServers',
      required: true,
      schema: { type: 'array', minItems: 1, items: IPV4, description: 'DNS servers of the worker nodes.' },
    },
    {
      name: 'bridge',
      required: true,
      schema: { type: 'string', minLength: 1, description: 'Proxmox bridge of the workers\' net0.' },
    },
    {
      name: 'vlan',
      required: false,
      schema: { type: 'integer', minimum: 1, maximum: 4094, description: 'VLAN tag of the workers\' net0; untagged when unset.' },
    },
    {
      name: 'proxmoxCredentials',
      required: true,
      schema: {
        type: 'object',
        description: 'Secret (in the Cluster\'s namespace) with the url, token and secret of the Proxmox API CAPMOX uses.',
        required: ['name'],
        properties: { name: KUBERNETES_NAME },
      },
    },
    { name: 'proxmoxTemplate', required: true, schema: templateSourceSchema },
    {
      name: 'proxmoxPool',
      required: true,
      schema: { type: 'string', minLength: 1, description: 'Proxmox resource pool the worker VMs join (CAPMOX\'s ACLs are on it).' },
    },
    {
      name: 'proxmoxStorage',
      required: true,
      schema: { type: 'string', minLength: 1, description: 'Proxmox storage for the cloned disks.' },
    },
    {
      name: 'allowedNodes',
      required: true,
      schema: {
        ...NODE_NAMES,
        description: 'Proxmox nodes of the cluster; overridden per machine deployment with the nodes of its placement group.',
      },
    },
    {
      name: 'workerSize',
      required: false,
      perMachineDeployment: true,
      schema: {
        type: 'object',
        description: 'Size of the worker VMs of a machine deployment.',
        required: ['cpu', 'memoryMiB', 'diskGiB'],
        properties: {
          cpu: { type: 'integer', minimum: 1 },
          memoryMiB: { type: 'integer', minimum: 8 },
          diskGiB: { type: 'integer', minimum: 5 },
        },
      },
    },
  ];
}

/** Variables for a CAPMOX implementing the multi-instance proposal (not in any release). */
export function proposalVariables(): ClassVariable[] {
  return [
    {
      name: 'proxmoxSettings',
      required: false,
      schema: {
        type: 'object',
        description: 'ProxmoxCluster spec.settings of the multi-instance proposal: the mode and each instance with its nodes, template and credentials.',
        required: ['mode', 'instances'],
        properties: {
          mode: { type: 'string', enum: ['Default', 'SingleInstance', 'MultiInstance'] },
          instances: {
            type: 'array',
            minItems: 1,
            items: {
              type: 'object',
              required: ['name', 'nodes', 'template', 'credentialsRef'],
              properties: {
                name: { type: 'string', minLength: 1 },
                nodes: NODE_NAMES,
                template: {
                  type: 'object',
                  properties: {
                    sourceNode: { type: 'string', minLength: 1 },
                    templateID: { type: 'integer', minimum: 100, maximum: 999999999 },
                    templateSelector: {
                      type: 'object',
                      required: ['matchTags'],
                      properties: { matchTags: { type: 'array', minItems: 1, items: PROXMOX_TAG } },
                    },
                  },
                },
                credentialsRef: { type: 'object', required: ['name'], properties: { name: KUBERNETES_NAME } },
              },
            },
          },
        },
      },
    },
    {
      name: 'proxmoxInstance',
      required: false,
      perMachineDeployment: true,
      schema: { type: 'string', minLength: 1, description: 'ProxmoxMachine spec.instance of the proposal: the instance a machine deployment\'s VMs go to.' },
    },
  ];
}

export function classVariables(multiInstance: MultiInstanceRendering): ClassVariable[] {
  return multiInstance === 'proposal' ? [...releasedVariables(), ...proposalVariables()] : releasedVariables();
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

/** JSON with object keys sorted, so equal content hashes equally whatever the key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The first 10 hex digits of the SHA-256 of a value's canonical JSON. */
export function contentHash(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex').slice(0, 10);
}

/** A class template's name: its prefix and the hash of its kind and spec. */
function templateName(prefix: string, kind: string, spec: unknown): string {
  return `${prefix}-${contentHash({ kind, spec })}`;
}

/**
 * MachineHealthCheck remediation limit of the worker class: at most one unhealthy machine per
 * machine deployment. Not CAPMOX's `33%`: CAPI scales a percentage down (v1.12
 * `getMaxUnhealthy`, `GetScaledValueFromIntOrPercent(…, roundUp=false)`), so 33% of the 1–3
 * machines a per-node machine deployment holds is 0 and nothing is ever remediated (the lab twin
 * showed a stopped VM's machine left alone). One keeps the limit's point: a dead Proxmox node
 * makes all machines of its deployments unhealthy at once, and with more than one unhealthy CAPI
 * leaves them (recreating them would clone onto the same dead node).
 */
export const MHC_UNHEALTHY_LIMIT = 1;

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

/** The name of the class's worker ProxmoxMachineTemplate (it depends on its content only). */
export function workerMachineTemplateName(): string {
  return templateName(TEMPLATE_NAMES.workerMachine, 'ProxmoxMachineTemplate', workerMachineSpec());
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

type JsonPatch =
  | { op: 'add' | 'replace'; path: string; valueFrom: { variable: string } | { template: string } }
  | { op: 'add' | 'replace'; path: string; value: unknown }
  | { op: 'remove'; path: string };

interface Selector {
  apiVersion: string;
  kind: string;
  matchResources: { controlPlane?: boolean; infrastructureCluster?: boolean; machineDeploymentClass?: { names: string[] } };
}

const SELECT = {
  controlPlane: { apiVersion: API.controlPlane, kind: 'KamajiControlPlaneTemplate', matchResources: { controlPlane: true } },
  infrastructureCluster: { apiVersion: API.infrastructure, kind: 'ProxmoxClusterTemplate', matchResources: { infrastructureCluster: true } },
  workerMachine: {
    apiVersion: API.infrastructure,
    kind: 'ProxmoxMachineTemplate',
    matchResources: { machineDeploymentClass: { names: [WORKER_CLASS] } },
  },
} satisfies Record<string, Selector>;

interface ClassPatch {
  name: string;
  description: string;
  enabledIf?: string;
  definitions: { selector: Selector; jsonPatches: JsonPatch[] }[];
}

const fromVariable = (op: 'add' | 'replace', path: string, variable: string): JsonPatch => ({ op, path, valueFrom: { variable } });
const fromTemplate = (op: 'add' | 'replace', path: string, template: string): JsonPatch => ({ op, path, valueFrom: { template } });

const MACHINE = '/spec/template/spec';

/**
 * Kamaji labels a TenantControlPlane's pods `kamaji.clastix.io/name: <its name>` (the Kamaji
 * provider's own samples spread on it), and the class names the TenantControlPlane after the
 * Cluster. `nodeTaintsPolicy: Honor` leaves a tainted (NotReady, cordoned) node out of the skew, so
 * a dead node does not block rescheduling; `matchLabelKeys` counts each rollout's pods apart.
 */
export const CONTROL_PLANE_SPREAD = `topologySpreadConstraints:
- maxSkew: 1
  topologyKey: kubernetes.io/hostname
  whenUnsatisfiable: DoNotSchedule
  nodeTaintsPolicy: Honor
  matchLabelKeys:
  - pod-template-hash
  labelSelector:
    matchLabels:
      kamaji.clastix.io/name: "{{ .builtin.cluster.name }}"
`;

export function releasedPatches(): ClassPatch[] {
  return [
    {
      name: 'control-plane-vip',
      description: 'Kamaji exposes the tenant API server and Konnectivity on a LoadBalancer Service with this address; MetalLB announces it.',
      definitions: [
        {
          selector: SELECT.controlPlane,
          jsonPatches: [
            fromVariable('add', '/spec/template/spec/network/serviceAddress', 'controlPlaneVIP'),
            fromTemplate('add', '/spec/template/spec/network/serviceAnnotations', 'metallb.io/loadBalancerIPs: "{{ .controlPlaneVIP }}"'),
          ],
        },
      ],
    },
    {
      name: 'control-plane-spread',
      description:
        "Spread a tenant's Kamaji control-plane pods over the management cluster's nodes (at most one more on any node), so one node lost keeps the API server up when it has 2 or more replicas.",
      definitions: [{ selector: SELECT.controlPlane, jsonPatches: [fromTemplate('add', '/spec/template/spec/deployment', CONTROL_PLANE_SPREAD)] }],
    },
    {
      name: 'cluster-dns',
      description: 'CoreDNS Service address, and the clusterDNS the kubelets are configured with.',
      definitions: [
        {
          selector: SELECT.controlPlane,
          jsonPatches: [
            fromTemplate('add', '/spec/template/spec/network/dnsServiceIPs', '["{{ .dnsServiceIP }}"]'),
            fromTemplate('add', '/spec/template/spec/addons/coreDNS/dnsServiceIPs', '["{{ .dnsServiceIP }}"]'),
          ],
        },
      ],
    },
    {
      name: 'node-network',
      description: 'Node addresses (CAPMOX creates an in-cluster IPAM pool from them) and DNS servers.',
      definitions: [
        {
          selector: SELECT.infrastructureCluster,
          jsonPatches: [
            fromVariable('add', '/spec/template/spec/ipv4Config', 'nodeIPv4Config'),
            fromVariable('add', '/spec/template/spec/dnsServers', 'dnsServers'),
          ],
        },
      ],
    },
    {
      name: 'proxmox-credentials',
      description: 'The Proxmox API of the tenant\'s instance.',
      definitions: [{ selector: SELECT.infrastructureCluster, jsonPatches: [fromVariable('add', '/spec/template/spec/credentialsRef', 'proxmoxCredentials')] }],
    },
    {
      name: 'allowed-nodes',
      description: 'Proxmox nodes of the cluster, and of each machine deployment (its placement group).',
      definitions: [
        { selector: SELECT.infrastructureCluster, jsonPatches: [fromVariable('add', '/spec/template/spec/allowedNodes', 'allowedNodes')] },
        { selector: SELECT.workerMachine, jsonPatches: [fromVariable('add', `${MACHINE}/allowedNodes`, 'allowedNodes')] },
      ],
    },
    {
      name: 'worker-network',
      description: 'Bridge of the workers\' first network device.',
      definitions: [{ selector: SELECT.workerMachine, jsonPatches: [fromVariable('add', `${MACHINE}/network/networkDevices/0/bridge`, 'bridge')] }],
    },
    {
      name: 'worker-vlan',
      description: 'VLAN tag of the workers\' first network device.',
      enabledIf: '{{ if .vlan }}true{{ end }}',
      definitions: [{ selector: SELECT.workerMachine, jsonPatches: [fromVariable('add', `${MACHINE}/network/networkDevices/0/vlan`, 'vlan')] }],
    },
    {
      name: 'worker-template-by-id',
      description: 'Clone a fixed template VM: its node and id.',
      enabledIf: '{{ if .proxmoxTemplate.templateID }}true{{ end }}',
      definitions: [
        {
          selector: SELECT.workerMachine,
          jsonPatches: [
            { op: 'remove', path: `${MACHINE}/templateSelector` },
            fromVariable('add', `${MACHINE}/sourceNode`, 'proxmoxTemplate.sourceNode'),
            fromVariable('add', `${MACHINE}/templateID`, 'proxmoxTemplate.templateID'),
          ],
        },
      ],
    },
    {
      name: 'worker-template-by-tags',
      description:
        'Clone the template VM tagged with these tags; with appendVersionTag also with the machine deployment\'s Kubernetes version, so an upgrade switches the image exactly when CAPI rolls that machine deployment.',
      enabledIf: '{{ if not .proxmoxTemplate.templateID }}true{{ end }}',
      definitions: [
        {
          selector: SELECT.workerMachine,
          jsonPatches: [
            fromTemplate(
              'add',
              `${MACHINE}/templateSelector/matchTags`,
              '{{ if .proxmoxTemplate.appendVersionTag }}{{ append (default list .proxmoxTemplate.matchTags) .builtin.machineDeployment.version | toJson }}{{ else }}{{ .proxmoxTemplate.matchTags | toJson }}{{ end }}',
            ),
          ],
        },
      ],
    },
    {
      name: 'worker-proxmox-resources',
      description: 'Resource pool and storage of the worker VMs on the instance.',
      definitions: [
        {
          selector: SELECT.workerMachine,
          jsonPatches: [fromVariable('add', `${MACHINE}/pool`, 'proxmoxPool'), fromVariable('add', `${MACHINE}/storage`, 'proxmoxStorage')],
        },
      ],
    },
    {
      name: 'worker-size',
      description: 'CPU, memory and boot disk of a machine deployment\'s VMs.',
      enabledIf: '{{ if .workerSize }}true{{ end }}',
      definitions: [
        {
          selector: SELECT.workerMachine,
          jsonPatches: [
            fromVariable('add', `${MACHINE}/numCores`, 'workerSize.cpu'),
            fromVariable('add', `${MACHINE}/memoryMiB`, 'workerSize.memoryMiB'),
            fromVariable('add', `${MACHINE}/disks/bootVolume/sizeGb`, 'workerSize.diskGiB'),
          ],
        },
      ],
    },
  ];
}

export function proposalPatches(): ClassPatch[] {
  return [
    {
      name: 'proxmox-settings',
      description: 'Multi-instance proposal: the instances the cluster spans, with their nodes, templates and credentials.',
      enabledIf: '{{ if .proxmoxSettings }}true{{ end }}',
      definitions: [{ selector: SELECT.infrastructureCluster, jsonPatches: [fromVariable('add', '/spec/template/spec/settings', 'proxmoxSettings')] }],
    },
    {
      name: 'worker-instance',
      description: 'Multi-instance proposal: the instance of a machine deployment\'s VMs.',
      enabledIf: '{{ if .proxmoxInstance }}true{{ end }}',
      definitions: [{ selector: SELECT.workerMachine, jsonPatches: [fromVariable('add', `${MACHINE}/instance`, 'proxmoxInstance')] }],
    },
  ];
}

function classPatches(multiInstance: MultiInstanceRendering): ClassPatch[] {
  return multiInstance === 'proposal' ? [...releasedPatches(), ...proposalPatches()] : releasedPatches();
}

/**
 * The variables (top-level names; `builtin` for CAPI's builtins) that the class's patches read
 * to build a worker's ProxmoxMachineTemplate, taken from the patches themselves: their selectors,
 * `valueFrom.variable`, and the variables named in `enabledIf` and value templates.
 */
export function workerMachineVariables(multiInstance: MultiInstanceRendering): string[] {
  const names = new Set<string>();
  const fromTemplate = (text: string) => {
    for (const m of text.matchAll(/(?:^|[\s(])\.([A-Za-z_]\w*)/g)) names.add(m[1]);
  };
  for (const patch of classPatches(multiInstance)) {
    const defs = patch.definitions.filter((d) => d.selector.kind === 'ProxmoxMachineTemplate');
    if (defs.length === 0) continue;
    if (patch.enabledIf) fromTemplate(patch.enabledIf);
    for (const d of defs) {
      for (const jp of d.jsonPatches) {
        if (!('valueFrom' in jp)) continue;
        if ('variable' in jp.valueFrom) names.add(jp.valueFrom.variable.split('.')[0]);
        else fromTemplate(jp.valueFrom.template);
      }
    }
  }
  return [...names].sort();
}

export function clusterClass(options: ClusterClassOptions): KubernetesObject {
  const namespace = options.namespace ?? CLUSTER_CLASS_NAMESPACE;
  const templates = classTemplates(options);
  const nameOf = (t: KubernetesObject) => t.metadata.name;
  const ref = (apiVersion: string, kind: string, name: string) => ({ templateRef: { apiVersion, kind, name } });
  const patches = classPatches(options.multiInstance);
  const health = options.healthCheck ?? DEFAULT_HEALTH_CHECK;
  return {
    apiVersion: API.cluster,
    kind: 'ClusterClass',
    metadata: { name: CLUSTER_CLASS_NAME, namespace },
    spec: {
      controlPlane: {
        ...ref(API.controlPlane, 'KamajiControlPlaneTemplate', nameOf(templates.controlPlane)),
        // The TenantControlPlane, its Service and its kubeconfig are named after the tenant.
        naming: { template: '{{ .cluster.name }}' },
      },
      infrastructure: ref(API.infrastructure, 'ProxmoxClusterTemplate', nameOf(templates.infrastructureCluster)),
      workers: {
        machineDeployments: [
          {
            class: WORKER_CLASS,
            bootstrap: ref(API.bootstrap, 'KubeadmConfigTemplate', nameOf(templates.workerBootstrap)),
            infrastructure: ref(API.infrastructure, 'ProxmoxMachineTemplate', nameOf(templates.workerMachine)),
            healthCheck: {
              checks: {
                nodeStartupTimeoutSeconds: health.nodeStartupSeconds,
                unhealthyNodeConditions: [
                  { type: 'Ready', status: 'False', timeoutSeconds: health.unhealthySeconds },
                  { type: 'Ready', status: 'Unknown', timeoutSeconds: health.unhealthySeconds },
                ],
              },
              // One unhealthy machine per machine deployment at a time (MHC_UNHEALTHY_LIMIT), so a
              // dead Proxmox node or network does not make CAPI delete and recreate every machine.
              remediation: { triggerIf: { unhealthyLessThanOrEqualTo: MHC_UNHEALTHY_LIMIT } },
            },
          },
        ],
      },
      variables: classVariables(options.multiInstance).map((v) => ({
        name: v.name,
        required: v.required,
        schema: { openAPIV3Schema: v.schema },
      })),
      patches,
    },
  };
}
