/**
 * The `lab-tenant` ClusterClass and its templates: a Kamaji hosted control plane, a ProxmoxCluster
 * managed by CAPMOX with an externally managed control plane, and one worker class. Everything
 * that differs between tenants or machine deployments is a variable, patched into the place where
 * CAPMOX, Kamaji or kubeadm read it.
 */
import { classPatches } from './cluster-class-patches';
import { classTemplates, type ClusterClassOptions, type WorkerHealthCheckTimeouts } from './cluster-class-templates';
import { classVariables } from './cluster-class-variables';
import { API, type KubernetesObject } from './manifest';
import { CLUSTER_CLASS_NAME, CLUSTER_CLASS_NAMESPACE, WORKER_CLASS } from './names';

// The variables, templates and patches live in their own files; every name importers used from
// here is still exported here.
export { classVariables, proposalVariables, releasedVariables, type ClassVariable, type MultiInstanceRendering } from './cluster-class-variables';
export { canonicalJson } from '../config/canonical-json';
export {
  classTemplates,
  clusterClassTemplates,
  contentHash,
  KONNECTIVITY_PORT,
  PLACEHOLDER_IPV4_CONFIG,
  PROVIDER_ID_ARG,
  TEMPLATE_NAMES,
  workerMachineTemplateName,
  type ClassTemplates,
  type ClusterClassOptions,
  type WorkerHealthCheckTimeouts,
} from './cluster-class-templates';
export { CONTROL_PLANE_SPREAD, proposalPatches, releasedPatches, workerMachineVariables } from './cluster-class-patches';

export const DEFAULT_HEALTH_CHECK: WorkerHealthCheckTimeouts = { nodeStartupSeconds: 1200, unhealthySeconds: 300 };

/**
 * MachineHealthCheck remediation limit of the worker class: at most one unhealthy machine per
 * machine deployment. Not CAPMOX's `33%`: CAPI scales a percentage down (v1.12 and v1.13
 * `getMaxUnhealthy`, `GetScaledValueFromIntOrPercent(…, roundUp=false)`), so 33% of the 1–3
 * machines a per-node machine deployment holds is 0 and nothing is ever remediated (the lab twin
 * showed a stopped VM's machine left alone). One keeps the limit's point: a dead Proxmox node
 * makes all machines of its deployments unhealthy at once, and with more than one unhealthy CAPI
 * leaves them (recreating them would clone onto the same dead node).
 */
export const MHC_UNHEALTHY_LIMIT = 1;

export function clusterClass(options: ClusterClassOptions): KubernetesObject {
  const namespace = options.namespace ?? CLUSTER_CLASS_NAMESPACE;
  const templates = classTemplates(options);
  const nameOf = (t: KubernetesObject) => t.metadata.name;
  const ref = (apiVersion: string, kind: string, name: string) => ({ templateRef: { apiVersion, kind, name } });
  const patches = classPatches(options.multiInstance, options.identity === true);
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
      variables: classVariables(options.multiInstance, options.identity === true).map((v) => ({
        name: v.name,
        required: v.required,
        schema: { openAPIV3Schema: v.schema },
      })),
      patches,
    },
  };
}
