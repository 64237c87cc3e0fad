/**
 * Reads the objects a synthesized stack would send to the API server: every `kubernetes_manifest`
 * resource's `manifest`, in the order Terraform would create them (depends_on and references),
 * with Terraform expressions resolved where that needs no provider. What cannot be resolved here is
 * reported, not guessed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeObject } from '../support/kube-apiserver';

export interface StackObject {
  /** Terraform address, e.g. `kubernetes_manifest.tenant-a_namespace_0A1B2C3D`. */
  address: string;
  object: KubeObject;
  /** Addresses this resource depends on (depends_on plus references in its values). */
  dependsOn: string[];
  /** The resource's `field_manager.name`, as the provider sends it. @default 'Terraform' */
  fieldManager: string;
  /** The resource's `field_manager.force_conflicts`. @default false */
  forceConflicts: boolean;
}

export interface UnresolvedValue {
  address: string;
  /** Path inside the manifest, e.g. `spec.credentialsRef.name`. */
  path: string;
  expression: string;
  reason: string;
}

export interface StackManifests {
  stack: string;
  /** In creation order. */
  objects: StackObject[];
  unresolved: UnresolvedValue[];
  /** Resource types in the stack other than kubernetes_manifest, with their counts (e.g. helm_release). */
  otherResources: Record<string, number>;
}

interface TerraformResource {
  manifest?: unknown;
  depends_on?: string[];
  field_manager?: { name?: string; force_conflicts?: boolean };
  [key: string]: unknown;
}

// A whole-string reference to an attribute of another resource: ${TYPE.NAME.ATTR...}.
const PLAIN_REFERENCE = /^\$\{([a-z][a-z0-9_]*)\.([A-Za-z0-9_-]+)((?:\.[A-Za-z0-9_-]+|\[\d+\]|\["[^"\]]+"\])*)\}$/;
const ANY_EXPRESSION = /\$\{/;

function segments(path: string): (string | number)[] {
  const out: (string | number)[] = [];
  const re = /\.([A-Za-z0-9_-]+)|\[(\d+)\]|\["([^"\]]+)"\]/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(path)) !== null) out.push(m[1] ?? (m[2] !== undefined ? Number(m[2]) : m[3]));
  return out;
}

function at(value: unknown, path: (string | number)[]): unknown {
  let v = value;
  for (const s of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string | number, unknown>)[s];
  }
  return v;
}

/**
 * A reference to `kubernetes_manifest.X.manifest.<path>` or `kubernetes_manifest.X.object.<path>`
 * is known before apply when X's own manifest holds a literal at that path (the provider's
 * `object` echoes the manifest for the fields it sets). Anything else needs the provider.
 */
function resolveReference(
  expression: string,
  resources: Record<string, Record<string, TerraformResource>>,
  seen: Set<string>,
): { value?: unknown; address?: string; reason?: string } {
  const m = PLAIN_REFERENCE.exec(expression);
  if (!m) return { reason: 'not a plain reference to another resource (an expression, a function call or interpolation inside a string)' };
  const [, type, name, rest] = m;
  if (type === 'var' || type === 'local' || type === 'data' || type === 'module') {
    return { reason: `${type}.* values come from the workspace or the provider at plan time` };
  }
  const address = `${type}.${name}`;
  const target = resources[type]?.[name];
  if (!target) return { reason: `${address} is not a resource of this stack` };
  if (type !== 'kubernetes_manifest') return { address, reason: `${type} attributes are only known to its provider` };
  const path = segments(rest);
  if (path[0] !== 'manifest' && path[0] !== 'object') return { address, reason: `${path[0]} is computed by the provider` };
  if (seen.has(address)) return { address, reason: 'circular reference' };
  const value = at(target.manifest, path.slice(1));
  if (value === undefined) return { address, reason: `${address}.manifest has no value at ${path.slice(1).join('.')}` };
  if (typeof value === 'string' && ANY_EXPRESSION.test(value)) {
    return resolveReference(value, resources, new Set([...seen, address]));
  }
  return { value, address };
}

function resolveValues(
  value: unknown,
  path: string,
  address: string,
  resources: Record<string, Record<string, TerraformResource>>,
  references: Set<string>,
  unresolved: UnresolvedValue[],
): unknown {
  if (typeof value === 'string') {
    if (!ANY_EXPRESSION.test(value)) return value;
    const r = resolveReference(value, resources, new Set([address]));
    if (r.address) references.add(r.address);
    if (r.reason !== undefined) {
      unresolved.push({ address, path, expression: value, reason: r.reason });
      return value;
    }
    return r.value;
  }
  if (Array.isArray(value)) return value.map((v, i) => resolveValues(v, `${path}[${i}]`, address, resources, references, unresolved));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, resolveValues(v, path ? `${path}.${k}` : k, address, resources, references, unresolved)]),
    );
  }
  return value;
}

/** Namespaces first, then dependencies before dependents; ties by address, so the order is stable. */
function creationOrder(objects: StackObject[]): StackObject[] {
  const byAddress = new Map(objects.map((o) => [o.address, o]));
  const done = new Set<string>();
  const order: StackObject[] = [];
  const rank = (o: StackObject) => (o.object.kind === 'Namespace' ? 0 : 1);
  while (order.length < objects.length) {
    const ready = objects
      .filter((o) => !done.has(o.address) && o.dependsOn.every((d) => done.has(d) || !byAddress.has(d)))
      .sort((a, b) => rank(a) - rank(b) || a.address.localeCompare(b.address));
    if (ready.length === 0) {
      const stuck = objects.filter((o) => !done.has(o.address)).map((o) => o.address);
      throw new Error(`dependency cycle among ${stuck.join(', ')}`);
    }
    // One at a time: a namespace that becomes ready later still goes before other ready objects.
    order.push(ready[0]);
    done.add(ready[0].address);
  }
  return order;
}

export function readStackManifests(stacksDir: string, stack: string): StackManifests {
  const json = JSON.parse(readFileSync(join(stacksDir, stack, 'cdk.tf.json'), 'utf8'));
  const resources = (json.resource ?? {}) as Record<string, Record<string, TerraformResource>>;
  const unresolved: UnresolvedValue[] = [];
  const otherResources: Record<string, number> = {};
  for (const [type, byName] of Object.entries(resources)) {
    if (type !== 'kubernetes_manifest') otherResources[type] = Object.keys(byName).length;
  }
  const objects: StackObject[] = [];
  for (const [name, resource] of Object.entries(resources.kubernetes_manifest ?? {})) {
    const address = `kubernetes_manifest.${name}`;
    const references = new Set<string>();
    const object = resolveValues(resource.manifest, '', address, resources, references, unresolved) as KubeObject;
    const dependsOn = [...new Set([...(resource.depends_on ?? []), ...references])].sort();
    objects.push({
      address,
      object,
      dependsOn,
      fieldManager: resource.field_manager?.name ?? 'Terraform',
      forceConflicts: resource.field_manager?.force_conflicts ?? false,
    });
  }
  return { stack, objects: creationOrder(objects), unresolved, otherResources };
}

/**
 * Paths where `actual` (what the server stored) lacks or changes a value of `expected` (what was
 * sent). Extra fields in `actual` (defaults, status, metadata the server adds) are fine; a missing
 * one means the server pruned a field its schema does not know.
 */
export function missingFromServer(expected: unknown, actual: unknown, path = ''): string[] {
  if (expected !== null && typeof expected === 'object' && !Array.isArray(expected)) {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual))
      return [`${path || '(root)'}: expected an object, got ${JSON.stringify(actual)}`];
    return Object.entries(expected).flatMap(([k, v]) => missingFromServer(v, (actual as Record<string, unknown>)[k], path ? `${path}.${k}` : k));
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) return [`${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`];
    return expected.flatMap((v, i) => missingFromServer(v, actual[i], `${path}[${i}]`));
  }
  if (expected === actual) return [];
  if (actual === undefined) return [`${path}: sent ${JSON.stringify(expected)}, the server dropped it (not in the CRD schema?)`];
  return [`${path}: sent ${JSON.stringify(expected)}, the server stored ${JSON.stringify(actual)}`];
}

/**
 * The namespaces a stack creates with the typed `kubernetes_namespace_v1` resource (the management
 * stack does, for the Helm releases and for management-config's objects), as Namespace objects.
 * Only their metadata matters to the server; a value that is a Terraform expression is refused.
 */
export function readStackNamespaces(stacksDir: string, stack: string): KubeObject[] {
  const json = JSON.parse(readFileSync(join(stacksDir, stack, 'cdk.tf.json'), 'utf8'));
  const namespaces = (json.resource?.kubernetes_namespace_v1 ?? {}) as Record<string, { metadata?: { name?: string; labels?: object; annotations?: object } }>;
  return Object.entries(namespaces)
    .map(([name, resource]) => {
      const metadata = resource.metadata ?? {};
      if (ANY_EXPRESSION.test(JSON.stringify(metadata))) {
        throw new Error(`${stack}: kubernetes_namespace_v1.${name} has metadata only Terraform can compute: ${JSON.stringify(metadata)}`);
      }
      const { name: namespace, labels, annotations } = metadata;
      if (!namespace) throw new Error(`${stack}: kubernetes_namespace_v1.${name} has no metadata.name`);
      return {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: namespace, ...(labels ? { labels } : {}), ...(annotations ? { annotations } : {}) },
      } as KubeObject;
    })
    .sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
}
