/**
 * The `lab-tenant` class's own patches, applied outside CAPI: what the topology controller would
 * make of the class's templates for a given set of variables. The secondary Clusters
 * (secondary.ts) have no topology (a ClusterClass needs a control-plane template, and a static
 * control plane has none), so their ProxmoxCluster, ProxmoxMachineTemplates and
 * KubeadmConfigTemplates are rendered here from the very templates and patches the class carries:
 * one source for the primary's workers and the secondaries'.
 *
 * The class's Go templates (`enabledIf`, `valueFrom.template`) are interpreted by an explicit table;
 * a template that is not in the table is an error, so a new patch in the class needs its meaning
 * here before a secondary can be rendered with it.
 */
import { clusterClassTemplates, releasedPatches } from './cluster-class';
import type { KubernetesObject } from './manifest';
import { WORKER_CLASS } from './names';

export type Variables = Record<string, unknown>;

/* eslint-disable @typescript-eslint/no-explicit-any */
const get = (v: Variables, path: string): any => path.split('.').reduce<any>((o, k) => (o === undefined || o === null ? undefined : o[k]), v);

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
    (v) =>
      truthy(get(v, 'proxmoxTemplate.appendVersionTag'))
        ? [...((get(v, 'proxmoxTemplate.matchTags') as string[] | undefined) ?? []), get(v, 'builtin.machineDeployment.version')]
        : get(v, 'proxmoxTemplate.matchTags'),
};

export class ClassTemplateError extends Error {}

/** Whether a patch's `enabledIf` holds for the variables (a missing enabledIf always holds). */
export function enabled(enabledIf: string | undefined, vars: Variables): boolean {
  if (enabledIf === undefined) return true;
  const m = IF.exec(enabledIf);
  if (!m) throw new ClassTemplateError(`the class patch condition ${JSON.stringify(enabledIf)} has no meaning in modules/tenants/class-patches.ts: add one`);
  return m[1] ? !truthy(get(vars, m[2])) : truthy(get(vars, m[2]));
}

function valueOf(template: string, vars: Variables): unknown {
  const f = VALUE_TEMPLATES[template];
  if (!f) throw new ClassTemplateError(`the class patch template ${JSON.stringify(template)} has no meaning in modules/tenants/class-patches.ts: add one`);
  return f(vars);
}

function variable(vars: Variables, path: string): unknown {
  const value = get(vars, path);
  if (value === undefined) throw new ClassTemplateError(`the class patches read variable ${path}, which is not set`);
  return value;
}

/** RFC 6902 add / replace / remove on a plain object (the operations the class uses). */
function applyPatch(target: any, op: string, pointer: string, value?: unknown): void {
  const parts = pointer.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  const last = parts.pop() as string;
  let parent = target;
  for (const p of parts) {
    if (parent[p] === undefined) throw new ClassTemplateError(`class patch ${op} ${pointer}: ${p} does not exist`);
    parent = parent[p];
  }
  if (op === 'remove') {
    if (!(last in parent)) throw new ClassTemplateError(`class patch remove ${pointer}: nothing to remove`);
    if (Array.isArray(parent)) parent.splice(Number(last), 1);
    else delete parent[last];
    return;
  }
  if (op === 'replace' && !(last in parent)) throw new ClassTemplateError(`class patch replace ${pointer}: nothing to replace`);
  if (Array.isArray(parent) && op === 'add') parent.splice(last === '-' ? parent.length : Number(last), 0, structuredClone(value));
  else parent[last] = structuredClone(value);
}

type Target = 'infrastructureCluster' | 'workerMachine' | 'workerBootstrap';

function selects(matchResources: any, target: Target): boolean {
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
  const template = structuredClone(clusterClassTemplates({ dataStoreName: 'unused', multiInstance: 'refuse' }).find((t) => t.kind === kind)) as KubernetesObject;
  for (const patch of releasedPatches()) {
    if (!enabled(patch.enabledIf, vars)) continue;
    for (const def of patch.definitions) {
      if (def.selector.apiVersion !== template.apiVersion || def.selector.kind !== template.kind || !selects(def.selector.matchResources, target)) continue;
      for (const jp of def.jsonPatches) {
        const value =
          jp.op === 'remove'
            ? undefined
            : 'value' in jp
              ? jp.value
              : 'variable' in jp.valueFrom
                ? variable(vars, jp.valueFrom.variable)
                : valueOf(jp.valueFrom.template, vars);
        applyPatch(template, jp.op, jp.path, value);
      }
    }
  }
  return (template.spec as any).template.spec as Record<string, unknown>;
}
