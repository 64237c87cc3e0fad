/**
 * A small model of what the CAPI topology controller does with the `lab-tenant` class and a
 * tenant Cluster: merge the Cluster's variables (plus a machine deployment's overrides and the
 * builtins), apply the class's patches to the templates, and build the objects from them. The
 * patches are applied by the product's one interpreter (modules/tenants/class-patches.ts), not a
 * copy of it: test/tenants/class-patches.test.ts checks that interpreter against CAPI's own rules
 * (Go text/template, then YAML), and the twin's real CAPI controllers are the final judge.
 */
import { applyClassPatches, type MatchResources } from '../../modules/tenants/class-patches';
import type { KubernetesObject } from '../../modules/tenants/manifest';

type Vars = Record<string, any>;

export interface Generated {
  controlPlane: KubernetesObject;
  infrastructureCluster: KubernetesObject;
  machineTemplates: Map<string, KubernetesObject>;
  bootstrapTemplates: Map<string, KubernetesObject>;
}

const clone = <T>(v: T): T => structuredClone(v);
const toMap = (vars: { name: string; value: unknown }[] = []) => Object.fromEntries(vars.map((v) => [v.name, v.value]));

/** The objects the topology controller would create for `cluster` from `clusterClass` and `templates`. */
export function generate(clusterClass: any, templates: KubernetesObject[], cluster: any, current?: ReadonlyMap<string, string>): Generated {
  const byKind = (kind: string) => templates.find((t) => t.kind === kind) as KubernetesObject;
  const topology = cluster.spec.topology;
  const ns = cluster.metadata.namespace;
  const name = cluster.metadata.name;
  const builtin = { cluster: { name, namespace: ns, topology: { version: topology.version, class: topology.classRef.name } } };
  const global = { ...toMap(topology.variables), builtin };

  const patchObject = (object: any, select: (m: MatchResources) => boolean, vars: Vars) => applyClassPatches(clusterClass.spec.patches, object, select, vars);

  const cpTemplate = patchObject(clone(byKind('KamajiControlPlaneTemplate')), (m) => m.controlPlane === true, global);
  const controlPlane: KubernetesObject = {
    apiVersion: cpTemplate.apiVersion,
    kind: 'KamajiControlPlane',
    metadata: { name, namespace: ns },
    spec: { ...cpTemplate.spec.template.spec, replicas: topology.controlPlane.replicas, version: topology.version },
  };
  const infraTemplate = patchObject(clone(byKind('ProxmoxClusterTemplate')), (m) => m.infrastructureCluster === true, global);
  const infrastructureCluster: KubernetesObject = {
    apiVersion: infraTemplate.apiVersion,
    kind: 'ProxmoxCluster',
    metadata: { name, namespace: ns },
    spec: infraTemplate.spec.template.spec,
  };
  // CAPI v1.12 computeMachineDeploymentVersion (exp/topology/desiredstate/desired_state.go): an
  // existing machine deployment with topology.cluster.x-k8s.io/defer-upgrade keeps its current
  // version (`current`, by topology name), and the patches see that version as builtin.
  const versionOf = (md: any): string =>
    md.metadata?.annotations?.['topology.cluster.x-k8s.io/defer-upgrade'] !== undefined && current?.has(md.name)
      ? (current.get(md.name) as string)
      : topology.version;
  const machineTemplates = new Map<string, KubernetesObject>();
  const bootstrapTemplates = new Map<string, KubernetesObject>();
  for (const md of topology.workers.machineDeployments) {
    const vars = {
      ...global,
      ...toMap(md.variables?.overrides),
      builtin: { ...builtin, machineDeployment: { version: versionOf(md), class: md.class, topologyName: md.name, name: `${name}-${md.name}` } },
    };
    const select = (m: any) => m.machineDeploymentClass?.names?.includes(md.class) === true;
    const machine = patchObject(clone(byKind('ProxmoxMachineTemplate')), select, vars);
    machine.metadata = { name: `${name}-${md.name}`, namespace: ns };
    machineTemplates.set(md.name, machine);
    const bootstrap = patchObject(clone(byKind('KubeadmConfigTemplate')), select, vars);
    bootstrap.metadata = { name: `${name}-${md.name}`, namespace: ns };
    bootstrapTemplates.set(md.name, bootstrap);
  }
  return { controlPlane, infrastructureCluster, machineTemplates, bootstrapTemplates };
}

/** Every Go template string the class uses: its patches' conditions (enabledIf) and value templates (valueFrom.template). */
export function templatesOf(clusterClass: any): { conditions: string[]; values: string[] } {
  const conditions: string[] = [];
  const values: string[] = [];
  for (const patch of clusterClass.spec.patches) {
    if (patch.enabledIf) conditions.push(patch.enabledIf);
    for (const def of patch.definitions) for (const jp of def.jsonPatches) if (jp.valueFrom?.template) values.push(jp.valueFrom.template);
  }
  return { conditions, values };
}
