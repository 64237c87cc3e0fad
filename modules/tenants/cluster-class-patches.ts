/**
 * The patches of the `lab-tenant` ClusterClass: where each class variable goes in the templates
 * (CAPI's topology controller applies them per Cluster and machine deployment). class-patches.ts
 * interprets them (the one interpreter: for the secondary Clusters, and in the tests).
 */
import type { MultiInstanceRendering } from './cluster-class-variables';
import { API } from './manifest';
import { WORKER_CLASS } from './names';
import { AUTHENTICATION_CONFIG_KEY, AUTHENTICATION_MOUNT_PATH, AUTHENTICATION_VOLUME } from './identity-names';

export type JsonPatch =
  | { op: 'add' | 'replace'; path: string; valueFrom: { variable: string } | { template: string } }
  | { op: 'add' | 'replace'; path: string; value: unknown }
  | { op: 'remove'; path: string };

export interface Selector {
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

export interface ClassPatch {
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
      description: "The Proxmox API of the tenant's instance.",
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
      description: "Bridge of the workers' first network device.",
      definitions: [{ selector: SELECT.workerMachine, jsonPatches: [fromVariable('add', `${MACHINE}/network/networkDevices/0/bridge`, 'bridge')] }],
    },
    {
      name: 'worker-vlan',
      description: "VLAN tag of the workers' first network device.",
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
        "Clone the template VM tagged with these tags; with appendVersionTag also with the machine deployment's Kubernetes version, so an upgrade switches the image exactly when CAPI rolls that machine deployment.",
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
      description: "CPU, memory and boot disk of a machine deployment's VMs.",
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

/** The proposal's patch (CAPMOX #887/#889): the zones on the ProxmoxCluster; machines find theirs through their failure domain. */
export function proposalPatches(): ClassPatch[] {
  return [
    {
      name: 'proxmox-availability-zones',
      description: 'Multi-instance proposal (CAPMOX #887/#889): one availability zone per Proxmox instance, with its nodes and credentials.',
      enabledIf: '{{ if .proxmoxAvailabilityZones }}true{{ end }}',
      definitions: [
        { selector: SELECT.infrastructureCluster, jsonPatches: [fromVariable('add', '/spec/template/spec/availabilityZones', 'proxmoxAvailabilityZones')] },
      ],
    },
  ];
}

/** The control-plane pod's volume of the AuthenticationConfiguration ConfigMap (a Go template CAPI renders, then reads as YAML). */
export const AUTHENTICATION_VOLUMES = `- name: ${AUTHENTICATION_VOLUME}
  configMap:
    name: "{{ .tenantAuthentication.configMap }}"
`;

/**
 * The patch of a lab with an identity provider (issue 39, modules/tenants/identity.ts): Kamaji's
 * kube-apiserver reads the AuthenticationConfiguration of the Cluster's `tenantAuthentication`
 * ConfigMap. KamajiControlPlane v1alpha2 (provider v0.20.0) carries `apiServer.extraArgs`,
 * `apiServer.extraVolumeMounts` and `deployment.extraVolumes` (a ConfigMap volume: the pod is in
 * the Cluster's namespace). After control-plane-spread, which sets the whole `deployment`.
 */
export function identityPatches(): ClassPatch[] {
  return [
    {
      name: 'tenant-authentication',
      description: "The tenant API server authenticates people through the lab's identity provider: its AuthenticationConfiguration, from a ConfigMap.",
      enabledIf: '{{ if .tenantAuthentication }}true{{ end }}',
      definitions: [
        {
          selector: SELECT.controlPlane,
          jsonPatches: [
            {
              op: 'add',
              path: '/spec/template/spec/apiServer',
              value: {
                extraArgs: [`--authentication-config=${AUTHENTICATION_MOUNT_PATH}/${AUTHENTICATION_CONFIG_KEY}`],
                extraVolumeMounts: [{ name: AUTHENTICATION_VOLUME, mountPath: AUTHENTICATION_MOUNT_PATH, readOnly: true }],
              },
            },
            fromTemplate('add', '/spec/template/spec/deployment/extraVolumes', AUTHENTICATION_VOLUMES),
          ],
        },
      ],
    },
  ];
}

export function classPatches(multiInstance: MultiInstanceRendering, identity = false): ClassPatch[] {
  return [...releasedPatches(), ...(multiInstance === 'proposal' ? proposalPatches() : []), ...(identity ? identityPatches() : [])];
}

/**
 * The variables (top-level names; `builtin` for CAPI's builtins) that the class's patches read
 * to build a worker's ProxmoxMachineTemplate, taken from the patches themselves: their selectors,
 * `valueFrom.variable`, and the variables named in `enabledIf` and value templates.
 */
export function workerMachineVariables(multiInstance: MultiInstanceRendering): string[] {
  let known = workerVariableNames.get(multiInstance);
  if (known === undefined) {
    known = readWorkerMachineVariables(multiInstance);
    workerVariableNames.set(multiInstance, known);
  }
  return [...known];
}
/** workerMachineVariables per rendering, read once per process (the patches are constants). */
const workerVariableNames = new Map<MultiInstanceRendering, string[]>();

function readWorkerMachineVariables(multiInstance: MultiInstanceRendering): string[] {
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
