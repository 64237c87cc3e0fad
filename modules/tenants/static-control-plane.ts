/**
 * The static control plane: a CRD of pvekaas's own, with no controller, that a secondary Cluster
 * (modules/tenants/secondary.ts) names as its `controlPlaneRef`. Its schema *defaults*
 * `status.initialization.controlPlaneInitialized: true` and `status.externalManagedControlPlane:
 * true`; the API server applies schema defaults whenever it decodes an object (on requests and on
 * every read from etcd), so the object always reports an initialized, externally managed control
 * plane without anybody writing its status. CAPI v1.12 then lets CABPK hand the secondary's workers
 * join data, and drains and deletes their Nodes on scale-down; without a `controlPlaneRef` it does
 * neither.
 *
 * With `spec.version` (the tenant's version, from the stack) and `status.version` (what the
 * primary's KamajiControlPlane reports in its `status.version`, copied by the secondary mirror,
 * secondary-mirror.ts): the pinned CAPI core's MachineSet preflight checks
 * (`internal/controllers/machineset/machineset_preflight.go`, reading `spec.version` and
 * `status.version` through `internal/contract/controlplane.go`) then hold a secondary's new
 * machines while the control plane is "provisioning" (no status.version yet) or "upgrading"
 * (spec.version above status.version), and refuse a MachineSet whose minor is above the control
 * plane's (KubernetesVersionSkew) or differs from it (KubeadmVersionSkew, the kubeadm join rule):
 * no secondary worker is ever newer than the Kamaji API server. Without a version those checks are
 * skipped altogether. Deliberately without a status subresource: the API server applies the schema
 * defaults on every read, and the mirror writes status.version with a plain merge patch.
 *
 * The committed YAML (crds/pvekaas/v1alpha1/static-control-plane.yaml) is this, written out;
 * test/tenants/secondary-crd.test.ts keeps the two equal.
 */
import { stringify } from 'yaml';
import type { KubernetesObject } from './manifest';

export const STATIC_CONTROL_PLANE_GROUP = 'controlplane.pvekaas.lab';
export const STATIC_CONTROL_PLANE_VERSION = 'v1alpha1';
export const STATIC_CONTROL_PLANE_API = `${STATIC_CONTROL_PLANE_GROUP}/${STATIC_CONTROL_PLANE_VERSION}`;
export const STATIC_CONTROL_PLANE_KIND = 'StaticControlPlane';
export const STATIC_CONTROL_PLANE_PLURAL = 'staticcontrolplanes';
/** Where the committed copy of the CRD and its ClusterRole lives, relative to the project. */
export const STATIC_CONTROL_PLANE_FILE = 'crds/pvekaas/v1alpha1/static-control-plane.yaml';
/** The ClusterRole the CAPI manager aggregates (label `cluster.x-k8s.io/aggregate-to-manager`). */
export const STATIC_CONTROL_PLANE_ROLE = 'pvekaas-capi-static-control-plane';

export function staticControlPlaneCrd(): KubernetesObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: `${STATIC_CONTROL_PLANE_PLURAL}.${STATIC_CONTROL_PLANE_GROUP}`,
      labels: {
        // How CAPI reads the contract of a referenced object: contract v1beta2 is served as v1alpha1.
        'cluster.x-k8s.io/v1beta2': STATIC_CONTROL_PLANE_VERSION,
        'app.kubernetes.io/managed-by': 'pvekaas',
      },
    },
    spec: {
      group: STATIC_CONTROL_PLANE_GROUP,
      scope: 'Namespaced',
      names: {
        kind: STATIC_CONTROL_PLANE_KIND,
        listKind: `${STATIC_CONTROL_PLANE_KIND}List`,
        plural: STATIC_CONTROL_PLANE_PLURAL,
        singular: 'staticcontrolplane',
      },
      versions: [
        {
          name: STATIC_CONTROL_PLANE_VERSION,
          served: true,
          storage: true,
          additionalPrinterColumns: [
            { name: 'Initialized', type: 'boolean', jsonPath: '.status.initialization.controlPlaneInitialized' },
            { name: 'Endpoint', type: 'string', jsonPath: '.spec.controlPlaneEndpoint.host' },
            { name: 'Version', type: 'string', jsonPath: '.status.version' },
          ],
          schema: {
            openAPIV3Schema: {
              type: 'object',
              description:
                "A control plane that is already there (the tenant's Kamaji control plane, owned by its primary Cluster), for a secondary Cluster whose workers join it. pvekaas; no controller.",
              properties: {
                apiVersion: { type: 'string' },
                kind: { type: 'string' },
                metadata: { type: 'object' },
                spec: {
                  type: 'object',
                  description: "The control plane the secondary's workers join.",
                  properties: {
                    version: {
                      type: 'string',
                      description:
                        "The Kubernetes version the tenant's control plane is to run (the tenant stack writes it); CAPI's MachineSet preflight checks compare the workers with it.",
                    },
                    controlPlaneEndpoint: {
                      type: 'object',
                      description:
                        'The API endpoint of the control plane the workers join (the tenant VIP), for people and tools; CAPI reads the endpoint from the infrastructure cluster.',
                      required: ['host', 'port'],
                      properties: {
                        host: { type: 'string', minLength: 1, maxLength: 512 },
                        port: { type: 'integer', format: 'int32', minimum: 1, maximum: 65535 },
                      },
                    },
                  },
                },
                status: {
                  type: 'object',
                  description: 'Defaulted by the API server on every read; version is written by the pvekaas-secondary-secrets mirror.',
                  default: {},
                  properties: {
                    version: {
                      type: 'string',
                      description: "The version the control plane runs: the primary KamajiControlPlane's status.version, copied by the mirror.",
                    },
                    initialization: {
                      type: 'object',
                      default: {},
                      properties: { controlPlaneInitialized: { type: 'boolean', default: true } },
                    },
                    externalManagedControlPlane: { type: 'boolean', default: true },
                  },
                },
              },
            },
          },
        },
      ],
    },
  };
}

/**
 * Lets the CAPI core manager (aggregated ClusterRole) read, watch and set owner references on
 * static control planes, and delete them: deleting a Cluster, CAPI deletes its `controlPlaneRef`
 * object before it removes the Cluster's finalizer (without `delete`, a secondary Cluster is never
 * gone — found by the lab twin, whose controllers run with their own RBAC).
 */
export function staticControlPlaneClusterRole(): KubernetesObject {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: {
      name: STATIC_CONTROL_PLANE_ROLE,
      labels: { 'cluster.x-k8s.io/aggregate-to-manager': 'true', 'app.kubernetes.io/managed-by': 'pvekaas' },
    },
    rules: [
      { apiGroups: [STATIC_CONTROL_PLANE_GROUP], resources: [STATIC_CONTROL_PLANE_PLURAL], verbs: ['get', 'list', 'watch', 'patch', 'update', 'delete'] },
    ],
  };
}

/** The header of the committed YAML: where it comes from. */
export const STATIC_CONTROL_PLANE_HEADER = [
  '# Source: pvekaas (modules/tenants/static-control-plane.ts), not an upstream project.',
  '# The static control plane of secondary Clusters (capmox.multiInstance: secondary-clusters) and the',
  '# ClusterRole the CAPI core manager aggregates for it. Installed by the management stack in that mode.',
  '# Regenerate: npm run build && node dist/scripts/static-control-plane-crd.js (test/tenants/secondary-crd.test.ts checks it).',
].join('\n');

/** The committed file's text: the header, then the CRD and the ClusterRole as YAML documents. */
export function staticControlPlaneFile(): string {
  const docs = [staticControlPlaneCrd(), staticControlPlaneClusterRole()].map((o) => stringify(o, { lineWidth: 0 }));
  return `${STATIC_CONTROL_PLANE_HEADER}\n---\n${docs.join('---\n')}`;
}
