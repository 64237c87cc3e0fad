/**
 * The `lab-tenant` class's patches, applied outside CAPI: what the topology controller would make
 * of the class's templates for a given set of variables. The one interpreter of the class's
 * patches: the secondary Clusters (secondary.ts) have no topology (a ClusterClass needs a
 * control-plane template, and a static control plane has none), so their ProxmoxCluster,
 * ProxmoxMachineTemplates and KubeadmConfigTemplates are rendered here from the very templates and
 * patches the class carries; the tests' topology model (test/tenants/topology.ts) applies the
 * class with it too, and test/tenants/class-patches.test.ts checks its reading of the Go templates
 * against CAPI's own rules (a Go text/template render, then YAML) rather than against a copy.
 *
 * CAPI v1.13 (the pinned clusterApi, modules/versions/toolchain.json; renderValueTemplate and patchIsEnabled unchanged from v1.12),
 * internal/controllers/topology/cluster/patches/inline/json_patch_generator.go: a patch applies when its
 * rendered `enabledIf` is `true` (patchIsEnabled); a value comes from
 * `value`, a variable (`valueFrom.variable`, a dotted path) or a rendered template
 * (`valueFrom.template`, parsed as YAML: renderValueTemplate); `remove` has no value. The patches
 * are RFC 6902 operations (evanphx/json-patch in patches/engine.go).
 *
 * The class's Go templates are interpreted by an explicit table; a template that is not in the
 * table is an error, so a new patch in the class needs its meaning here before it renders.
 */
import { clusterClassTemplates, releasedPatches } from './cluster-class';
import { AUTHENTICATION_VOLUMES, CONTROL_PLANE_SPREAD, type ClassPatch, type JsonPatch, type Selector } from './cluster-class-patches';
import { AUTHENTICATION_VOLUME } from './identity-names';
import type { KubernetesObject } from './manifest';
import { WORKER_CLASS } from './names';

export type Variables = Record<string, unknown>;
export type MatchResources = Selector['matchResources'];

/** The value at a dotted path (`builtin.cluster.name`), undefined when any step is missing. */
const get = (v: Variables, path: string): unknown =>
  path.split('.').reduce<unknown>((o, k) => (o !== null && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined), v);

/** Go's truthiness for the values variables hold: false, 0, "", nil and empty lists and maps are false. */
function truthy(value: unknown): boolean {
  if (value === undefined || value === null || value === false || value === 0 || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value as object).length > 0;
  return true;
}

const IF = /^\{\{ if (not )?\.([A-Za-z0-9_.]+) \}\}true\{\{ end \}\}$/;

const VALUE_TEMPLATES: Record<string, (v: Variables) => unknown> = {
  'metallb.io/loadBalancerIPs: "{{ .controlPlaneVIP }}"': (v) => ({ 'metallb.io/loadBalancerIPs': get(v, 'controlPlaneVIP') }),
  '["{{ .dnsServiceIP }}"]': (v) => [get(v, 'dnsServiceIP')],
  '{{ if .proxmoxTemplate.appendVersionTag }}{{ append (default list .proxmoxTemplate.matchTags) .builtin.machineDeployment.version | toJson }}{{ else }}{{ .proxmoxTemplate.matchTags | toJson }}{{ end }}':
    (v) => {
      const tags = get(v, 'proxmoxTemplate.matchTags');
      return truthy(get(v, 'proxmoxTemplate.appendVersionTag'))
        ? [...(truthy(tags) ? (tags as unknown[]) : []), get(v, 'builtin.machineDeployment.version')]
        : tags;
    },
  [AUTHENTICATION_VOLUMES]: (v) => [{ name: AUTHENTICATION_VOLUME, configMap: { name: get(v, 'tenantAuthentication.configMap') } }],
  [CONTROL_PLANE_SPREAD]: (v) => ({
    topologySpreadConstraints: [
      {
        maxSkew: 1,
        topologyKey: 'kubernetes.io/hostname',
        whenUnsatisfiable: 'DoNotSchedule',
        nodeTaintsPolicy: 'Honor',
        matchLabelKeys: ['pod-template-hash'],
        labelSelector: { matchLabels: { 'kamaji.clastix.io/name': get(v, 'builtin.cluster.name') } },
      },
    ],
  }),
};

export class ClassTemplateError extends Error {}

/** Every Go template (enabledIf and valueFrom.template) whose meaning this interpreter knows: the value templates; conditions match IF. */
export function knownValueTemplates(): string[] {
  return Object.keys(VALUE_TEMPLATES);
}

/** Whether a patch's `enabledIf` holds for the variables (a missing enabledIf always holds). */
export function enabled(enabledIf: string | undefined, vars: Variables): boolean {
  if (enabledIf === undefined) return true;
  const m = IF.exec(enabledIf);
  if (!m) throw new ClassTemplateError(`the class patch condition ${JSON.stringify(enabledIf)} has no meaning in modules/tenants/class-patches.ts: add one`);
  return m[1] ? !truthy(get(vars, m[2])) : truthy(get(vars, m[2]));
}

/** The value a `valueFrom.template` renders to, for these variables. */
export function templateValue(template: string, vars: Variables): unknown {
  const f = VALUE_TEMPLATES[template];
  if (!f) throw new ClassTemplateError(`the class patch template ${JSON.stringify(template)} has no meaning in modules/tenants/class-patches.ts: add one`);
  return f(vars);
}

function variable(vars: Variables, path: string): unknown {
  const value = get(vars, path);
  if (value === undefined) throw new ClassTemplateError(`the class patches read variable ${path}, which is not set`);
  return value;
}

type Container = Record<string, unknown> | unknown[];
const isContainer = (v: unknown): v is Container => v !== null && typeof v === 'object';

/** RFC 6902 add / replace / remove on a plain object (the operations the class uses). */
function applyPatch(target: Container, op: string, pointer: string, value?: unknown): void {
  const parts = pointer
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  const last = parts.pop() as string;
  let parent: Container = target;
  for (const p of parts) {
    const next: unknown = (parent as Record<string, unknown>)[p];
    if (!isContainer(next)) throw new ClassTemplateError(`class patch ${op} ${pointer}: ${p} does not exist`);
    parent = next;
  }
  if (op === 'remove') {
    if (!(last in parent)) throw new ClassTemplateError(`class patch remove ${pointer}: nothing to remove`);
    if (Array.isArray(parent)) parent.splice(Number(last), 1);
    else delete parent[last];
    return;
  }
  if (op === 'replace' && !(last in parent)) throw new ClassTemplateError(`class patch replace ${pointer}: nothing to replace`);
  if (Array.isArray(parent) && op === 'add') parent.splice(last === '-' ? parent.length : Number(last), 0, structuredClone(value));
  else (parent as Record<string, unknown>)[last] = structuredClone(value);
}

/** The value one JSON patch writes (none for remove). */
function patchValue(jp: JsonPatch, vars: Variables): unknown {
  if (jp.op === 'remove') return undefined;
  if ('value' in jp) return jp.value;
  return 'variable' in jp.valueFrom ? variable(vars, jp.valueFrom.variable) : templateValue(jp.valueFrom.template, vars);
}

/**
 * `object` (a template; changed in place and returned) with every enabled patch whose selector
 * picks it applied, in the class's order. `selects` says which `matchResources` pick this object
 * (the control plane, the infrastructure cluster, a machine deployment class).
 */
export function applyClassPatches<T extends KubernetesObject>(
  patches: readonly ClassPatch[],
  object: T,
  selects: (m: MatchResources) => boolean,
  vars: Variables,
): T {
  for (const patch of patches) {
    if (!enabled(patch.enabledIf, vars)) continue;
    for (const def of patch.definitions) {
      if (def.selector.apiVersion !== object.apiVersion || def.selector.kind !== object.kind || !selects(def.selector.matchResources)) continue;
      for (const jp of def.jsonPatches) applyPatch(object as unknown as Container, jp.op, jp.path, patchValue(jp, vars));
    }
  }
  return object;
}

type Target = 'infrastructureCluster' | 'workerMachine' | 'workerBootstrap';

function selects(matchResources: MatchResources, target: Target): boolean {
  if (target === 'infrastructureCluster') return matchResources.infrastructureCluster === true;
  return matchResources.machineDeploymentClass?.names?.includes(WORKER_CLASS) === true;
}

const KINDS: Record<Target, string> = {
  infrastructureCluster: 'ProxmoxClusterTemplate',
  workerMachine: 'ProxmoxMachineTemplate',
  workerBootstrap: 'KubeadmConfigTemplate',
};

/**
 * The class's template of one kind with every released patch that selects it applied, for these
 * variables (a Cluster's variables merged with a machine deployment's overrides and `builtin`).
 * Returns the template's `spec.template.spec`.
 */
export function patchedTemplateSpec(target: Target, vars: Variables): Record<string, unknown> {
  const kind = KINDS[target];
  const template = structuredClone(
    clusterClassTemplates({ dataStoreName: 'unused', multiInstance: 'refuse' }).find((t) => t.kind === kind),
  ) as KubernetesObject;
  applyClassPatches(releasedPatches(), template, (m) => selects(m, target), vars);
  return (template.spec as { template: { spec: Record<string, unknown> } }).template.spec;
}
