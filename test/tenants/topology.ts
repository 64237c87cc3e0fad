/**
 * A small model of what the CAPI topology controller does with the `lab-tenant` class and a
 * tenant Cluster: merge the Cluster's variables (plus a machine deployment's overrides and the
 * builtins), evaluate each patch's enabledIf and value templates, and apply the JSON patches to
 * the templates. The Go templates of the class are interpreted by an explicit table below; a
 * template that is not in the table fails the test, so a new patch needs a reviewed meaning here.
 */
import { CONTROL_PLANE_SPREAD } from '../../modules/tenants/cluster-class';
import type { KubernetesObject } from '../../modules/tenants/manifest';

type Vars = Record<string, any>;

const TEMPLATES: Record<string, (v: Vars) => unknown> = {
  '{{ if .vlan }}true{{ end }}': (v) => (v.vlan ? true : ''),
  '{{ if .proxmoxTemplate.templateID }}true{{ end }}': (v) => (v.proxmoxTemplate?.templateID ? true : ''),
  '{{ if not .proxmoxTemplate.templateID }}true{{ end }}': (v) => (!v.proxmoxTemplate?.templateID ? true : ''),
  '{{ if .workerSize }}true{{ end }}': (v) => (v.workerSize ? true : ''),
  '{{ if .proxmoxAvailabilityZones }}true{{ end }}': (v) => (v.proxmoxAvailabilityZones ? true : ''),
  'metallb.io/loadBalancerIPs: "{{ .controlPlaneVIP }}"': (v) => ({ 'metallb.io/loadBalancerIPs': v.controlPlaneVIP }),
  '["{{ .dnsServiceIP }}"]': (v) => [v.dnsServiceIP],
  '{{ if .proxmoxTemplate.appendVersionTag }}{{ append (default list .proxmoxTemplate.matchTags) .builtin.machineDeployment.version | toJson }}{{ else }}{{ .proxmoxTemplate.matchTags | toJson }}{{ end }}':
    (v) => (v.proxmoxTemplate.appendVersionTag ? [...(v.proxmoxTemplate.matchTags ?? []), v.builtin.machineDeployment.version] : v.proxmoxTemplate.matchTags),
};

TEMPLATES[CONTROL_PLANE_SPREAD] = (v) => ({
  topologySpreadConstraints: [
    {
      maxSkew: 1,
      topologyKey: 'kubernetes.io/hostname',
      whenUnsatisfiable: 'DoNotSchedule',
      nodeTaintsPolicy: 'Honor',
      matchLabelKeys: ['pod-template-hash'],
      labelSelector: { matchLabels: { 'kamaji.clastix.io/name': v.builtin.cluster.name } },
    },
  ],
});

export function knownTemplates(): string[] {
  return Object.keys(TEMPLATES);
}

function render(template: string, vars: Vars): unknown {
  const f = TEMPLATES[template];
  if (!f) throw new Error(`no interpretation for class template ${JSON.stringify(template)}: add one to test/tenants/topology.ts`);
  return f(vars);
}

function lookup(vars: Vars, path: string): unknown {
  const value = path.split('.').reduce<any>((o, k) => (o === undefined ? undefined : o[k]), vars);
  if (value === undefined) throw new Error(`variable ${path} is not set`);
  return value;
}

function applyPatch(target: any, op: string, pointer: string, value?: unknown): void {
  const parts = pointer.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  const last = parts.pop() as string;
  let parent = target;
  for (const p of parts) {
    if (parent[p] === undefined) throw new Error(`JSON patch ${op} ${pointer}: ${p} does not exist`);
    parent = parent[p];
  }
  if (op === 'remove') {
    if (!(last in parent)) throw new Error(`JSON patch remove ${pointer}: nothing to remove`);
    if (Array.isArray(parent)) parent.splice(Number(last), 1);
    else delete parent[last];
    return;
  }
  if (op === 'replace' && !(last in parent)) throw new Error(`JSON patch replace ${pointer}: nothing to replace`);
  if (Array.isArray(parent) && op === 'add') parent.splice(last === '-' ? parent.length : Number(last), 0, value);
  else parent[last] = structuredClone(value);
}

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

  const patchObject = (object: any, select: (s: any) => boolean, vars: Vars) => {
    for (const patch of clusterClass.spec.patches) {
      if (patch.enabledIf !== undefined && render(patch.enabledIf, vars) !== true) continue;
      for (const def of patch.definitions) {
        if (def.selector.apiVersion !== object.apiVersion || def.selector.kind !== object.kind || !select(def.selector.matchResources)) continue;
        for (const jp of def.jsonPatches) {
          const value =
            jp.op === 'remove' ? undefined : jp.value !== undefined ? jp.value : jp.valueFrom.variable ? lookup(vars, jp.valueFrom.variable) : render(jp.valueFrom.template, vars);
          applyPatch(object, jp.op, jp.path, value);
        }
      }
    }
    return object;
  };

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
    md.metadata?.annotations?.['topology.cluster.x-k8s.io/defer-upgrade'] !== undefined && current?.has(md.name) ? (current.get(md.name) as string) : topology.version;
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

/** Every Go template string the class uses (enabledIf and valueFrom.template). */
export function templatesOf(clusterClass: any): string[] {
  const out: string[] = [];
  for (const patch of clusterClass.spec.patches) {
    if (patch.enabledIf) out.push(patch.enabledIf);
    for (const def of patch.definitions) for (const jp of def.jsonPatches) if (jp.valueFrom?.template) out.push(jp.valueFrom.template);
  }
  return out;
}
