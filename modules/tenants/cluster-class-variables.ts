/**
 * The variables of the `lab-tenant` ClusterClass: their names and OpenAPI schemas, released
 * CAPMOX's and the multi-instance proposal's. cluster-class.ts declares them on the class; the
 * patches (cluster-class-patches.ts) read them, and a tenant's Cluster (cluster.ts) sets them.
 */

/** `capmox.multiInstance`; `secondary-clusters` uses the released class (modules/tenants/secondary.ts). */
export type MultiInstanceRendering = 'refuse' | 'proposal' | 'secondary-clusters';

/** A ClusterClass variable: name, whether each Cluster must set it, and its OpenAPI schema. */
export interface ClassVariable {
  name: keyof ClassVariableValues;
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
    "The VM template CAPMOX clones: sourceNode + templateID, or matchTags (plus the machine deployment's Kubernetes version when appendVersionTag is true).",
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
      schema: { type: 'string', minLength: 1, description: "Proxmox bridge of the workers' net0." },
    },
    {
      name: 'vlan',
      required: false,
      schema: { type: 'integer', minimum: 1, maximum: 4094, description: "VLAN tag of the workers' net0; untagged when unset." },
    },
    {
      name: 'proxmoxCredentials',
      required: true,
      schema: {
        type: 'object',
        description: "Secret (in the Cluster's namespace) with the url, token and secret of the Proxmox API CAPMOX uses.",
        required: ['name'],
        properties: { name: KUBERNETES_NAME },
      },
    },
    { name: 'proxmoxTemplate', required: true, schema: templateSourceSchema },
    {
      name: 'proxmoxPool',
      required: true,
      schema: { type: 'string', minLength: 1, description: "Proxmox resource pool the worker VMs join (CAPMOX's ACLs are on it)." },
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

/**
 * Variables for a CAPMOX implementing the multi-instance proposal as its open pull requests do
 * (ionos-cloud/cluster-api-provider-proxmox #887 "Multi-AZ / FailureDomain support", #888 zones as
 * CAPI failure domains, #889 per-zone credentials; open on 2026-12-03, in no release): the
 * ProxmoxCluster's `spec.availabilityZones`, one zone per Proxmox instance with its nodes and its
 * own `credentialsRef`. Each machine deployment names its zone as its CAPI `failureDomain` (a field
 * of the topology, not a variable), and CAPMOX schedules and clones through that zone's client.
 */
export function proposalVariables(): ClassVariable[] {
  return [
    {
      name: 'proxmoxAvailabilityZones',
      required: false,
      schema: {
        type: 'array',
        description:
          'ProxmoxCluster spec.availabilityZones (CAPMOX #887/#889): one zone per Proxmox instance, with its nodes and the Secret of its credentials.',
        minItems: 1,
        items: {
          type: 'object',
          required: ['name', 'nodes', 'credentialsRef'],
          properties: {
            name: { type: 'string', minLength: 1 },
            nodes: NODE_NAMES,
            credentialsRef: { type: 'object', required: ['name'], properties: { name: KUBERNETES_NAME } },
          },
        },
      },
    },
  ];
}

/**
 * The variable of a lab with an identity provider (issue 39, modules/tenants/identity.ts): the
 * ConfigMap in the Cluster's namespace holding its API server's AuthenticationConfiguration. Set by
 * the tenant stack together with that ConfigMap, so no control plane mounts one that is not there yet.
 */
export function identityVariables(): ClassVariable[] {
  return [
    {
      name: 'tenantAuthentication',
      required: false,
      schema: {
        type: 'object',
        description:
          "ConfigMap (in the Cluster's namespace) with the API server's AuthenticationConfiguration, mounted into Kamaji's kube-apiserver container.",
        required: ['configMap'],
        properties: { configMap: KUBERNETES_NAME },
      },
    },
  ];
}

export function classVariables(multiInstance: MultiInstanceRendering, identity = false): ClassVariable[] {
  return [...releasedVariables(), ...(multiInstance === 'proposal' ? proposalVariables() : []), ...(identity ? identityVariables() : [])];
}

/** The `proxmoxTemplate` value: a fixed template (node and id), or tags (see `templateSourceSchema`). */
export type TemplateSourceValue = { sourceNode: string; templateID: number } | { matchTags: string[]; appendVersionTag?: true };

/**
 * The values of the class variables, by name, as a Cluster sets them (cluster.ts builds its
 * `topology.variables` and machine deployment overrides as `TopologyVariable`s of these). Each
 * key is a variable declared above (`ClassVariable.name`), so a value without a declared variable
 * (or of the wrong shape) does not compile.
 */
export interface ClassVariableValues {
  controlPlaneVIP: string;
  dnsServiceIP: string;
  nodeIPv4Config: { addresses: string[]; prefix: number; gateway: string };
  dnsServers: string[];
  bridge: string;
  vlan?: number;
  proxmoxCredentials: { name: string };
  proxmoxTemplate: TemplateSourceValue;
  proxmoxPool: string;
  proxmoxStorage: string;
  allowedNodes: string[];
  workerSize?: { cpu: number; memoryMiB: number; diskGiB: number };
  proxmoxAvailabilityZones?: { name: string; nodes: string[]; credentialsRef: { name: string } }[];
  tenantAuthentication?: { configMap: string };
}

/** One entry of a Cluster's `topology.variables` (or a machine deployment's overrides): a name and its typed value. */
export type TopologyVariable = { [K in keyof ClassVariableValues]-?: { name: K; value: NonNullable<ClassVariableValues[K]> } }[keyof ClassVariableValues];
