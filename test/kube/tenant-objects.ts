/**
 * Every object of a tenant that reaches the API server: what the tenant stack applies, and what
 * the CAPI topology controller creates from its Cluster and the `lab-tenant` class (with the
 * topology model of the tenant tests). Rendered in-process from the pure modules, so that many
 * lab variants can be tried against the real server in seconds.
 */
import type { Lab } from '../../modules/config/schema';
import { planPlacement } from '../../modules/placement';
import { renderTenant } from '../../modules/tenants';
import { clusterClass, clusterClassTemplates } from '../../modules/tenants/cluster-class';
import { KAMAJI_DATASTORE_NAME } from '../../modules/versions/layout';
import { availabilityZonesSchema } from '../tenants/proposal-crds';
import { generate } from '../tenants/topology';
import type { KubeObject } from '../support/kube-apiserver';

export interface ServerBoundObject {
  /** `stack` objects are sent by the tenant stack; `capi` objects by CAPI's topology controller. */
  source: 'stack' | 'capi';
  object: KubeObject;
}

/**
 * The MachineDeployment the topology controller creates for a topology entry. Only what the API
 * server itself validates matters here: its name and the labels on its metadata and on its
 * machines' template, which CAPI takes from the topology's `metadata.labels`.
 */
function machineDeploymentAsCreated(cluster: KubeObject, md: { name: string; class: string; metadata?: { labels?: Record<string, string> } }): KubeObject {
  const clusterName = cluster.metadata.name;
  const labels = {
    ...(md.metadata?.labels ?? {}),
    'cluster.x-k8s.io/cluster-name': clusterName,
    'topology.cluster.x-k8s.io/owned': '',
    'topology.cluster.x-k8s.io/deployment-name': md.name,
  };
  const version = (cluster.spec as { topology: { version: string } }).topology.version;
  return {
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'MachineDeployment',
    metadata: { name: `${clusterName}-${md.name}`, namespace: cluster.metadata.namespace, labels },
    spec: {
      clusterName,
      selector: { matchLabels: { 'cluster.x-k8s.io/cluster-name': clusterName, 'topology.cluster.x-k8s.io/deployment-name': md.name } },
      template: {
        metadata: { labels },
        spec: {
          clusterName,
          version,
          bootstrap: { configRef: { apiGroup: 'bootstrap.cluster.x-k8s.io', kind: 'KubeadmConfigTemplate', name: `${clusterName}-${md.name}` } },
          infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'ProxmoxMachineTemplate', name: `${clusterName}-${md.name}` },
        },
      },
    },
  };
}

export function tenantObjects(lab: Lab, tenantName: string): ServerBoundObject[] {
  const r = renderTenant(lab, planPlacement(lab), tenantName);
  const options = { dataStoreName: KAMAJI_DATASTORE_NAME, multiInstance: lab.capmox.multiInstance };
  const cluster = r.cluster as KubeObject;
  const generated = generate(clusterClass(options), clusterClassTemplates(options), cluster);
  const stack = [r.namespace, r.role, ...(r.roleBinding ? [r.roleBinding] : []), r.cniProxy, r.cluster] as KubeObject[];
  const topology = (cluster.spec as { topology: { workers: { machineDeployments: { name: string; class: string }[] } } }).topology;
  const capi = [
    generated.controlPlane,
    generated.infrastructureCluster,
    ...generated.machineTemplates.values(),
    ...generated.bootstrapTemplates.values(),
    ...topology.workers.machineDeployments.map((md) => machineDeploymentAsCreated(cluster, md)),
  ] as KubeObject[];
  return [...stack.map((object) => ({ source: 'stack' as const, object })), ...capi.map((object) => ({ source: 'capi' as const, object }))];
}

/**
 * The pinned CAPMOX CRDs with exactly the fields of the multi-instance proposal, as the tenant
 * tests define them, so that a lab rendered for the proposal (the example lab is) is checked
 * against released CAPMOX plus those fields and nothing else.
 */
export function withProposalFields(crd: KubeObject): KubeObject {
  const names: Record<string, (schema: any) => any> = {
    'proxmoxclusters.infrastructure.cluster.x-k8s.io': (s) => s.properties.spec,
    'proxmoxclustertemplates.infrastructure.cluster.x-k8s.io': (s) => s.properties.spec.properties.template.properties.spec,
  };
  const at = names[crd.metadata.name];
  if (!at) return crd;
  const copy = structuredClone(crd) as any;
  const version = copy.spec.versions.find((v: any) => v.name === 'v1alpha2');
  const spec = at(version.schema.openAPIV3Schema);
  spec.properties.availabilityZones = availabilityZonesSchema;
  return copy;
}
