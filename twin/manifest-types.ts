/**
 * The type model hashicorp/kubernetes 2.38.0 gives a `kubernetes_manifest` object, and what it
 * makes of the manifest with it: the planned `object`, the consistency check OpenTofu runs on the
 * applied value, the plan of an existing object, and the payload the provider sends. Pure: no I/O.
 *
 * Read from the provider's source at tag v2.38.0 (github.com/hashicorp/terraform-provider-kubernetes):
 * - manifest/openapi/schema.go `getTypeFromSchema`: `type: object` with `properties` is an object (its
 *   unset attributes unknown in a plan), with `additionalProperties` a map (its keys exactly the
 *   manifest's), with neither — or no type, or `x-kubernetes-preserve-unknown-fields` without
 *   properties — dynamic (the whole value exactly the manifest's); arrays are lists (or tuples when the
 *   element type holds a dynamic part); `int-or-string` is a string.
 * - manifest/provider/resource.go `TFTypeFromOpenAPI`: a CRD's type from its openAPIV3Schema, other
 *   kinds from the cluster's OpenAPI v2; `status` dropped; `metadata` is always v1 ObjectMeta.
 * - manifest/morph/morph.go `morphObjectToType`: a manifest attribute the schema lacks is dropped with
 *   the warning "Attribute not found in schema".
 * - manifest/morph/scaffold.go `DeepUnknown`, manifest/provider/plan.go `PlanResourceChange`: on
 *   create every value the manifest sets is known, every other one unknown, and each path of
 *   `computed_fields` unknown (default `metadata.labels` and `metadata.annotations`; a given list
 *   replaces the default); on update a value the manifest sets is planned as set, a computed one as
 *   the prior object holds it (unknown when its configuration changed), every other one as the prior
 *   (refreshed) object holds it.
 * - manifest/provider/apply.go `ApplyResourceChange`: computed unknowns take the manifest's value,
 *   unknowns are dropped, empty objects the manifest does not set are dropped, the rest is sent as a
 *   server-side apply; the new `object` is the server's answer without `status`, `uid`,
 *   `creationTimestamp`, `resourceVersion`, `generation`, `selfLink`, `managedFields`
 *   (resource.go `RemoveServerSideFields`).
 * - OpenTofu v1.12.6 internal/plans/objchange/compatible.go `assertValueCompatible`: every known planned
 *   value must equal the applied one; a known map gains or loses no key ("new element %q has
 *   appeared", "element %q has vanished"), a known list no element; the error is reported as
 *   "Provider produced inconsistent result after apply" (internal/tofu/node_resource_abstract_instance.go).
 */

/** The tftypes a Kubernetes object is typed with (tuples are lists here: both are checked by index). */
export type TfType =
  /** `intOrString`: the provider's IntOrString type hint (an int is typed as its decimal string and sent back as an int). */
  | { kind: 'string'; intOrString?: boolean }
  | { kind: 'number' }
  | { kind: 'bool' }
  | { kind: 'dynamic' }
  | { kind: 'map'; element: TfType }
  | { kind: 'list'; element: TfType }
  | { kind: 'object'; readonly attributes: Record<string, TfType> };

/** An OpenAPI (v2 definition or CRD v3) schema node, as far as the provider reads it. */
export interface OpenApiSchema {
  type?: string;
  format?: string;
  $ref?: string;
  properties?: Record<string, OpenApiSchema>;
  additionalProperties?: OpenApiSchema | boolean;
  items?: OpenApiSchema;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
}

/** The definition the provider types JSONSchemaProps with: dynamic (schema.go `resolveSchemaRef`). */
const DYNAMIC_DEFINITIONS = new Set([
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1beta1.JSONSchemaProps',
]);

/** A type from a schema; object attributes are resolved on first use (definitions are recursive). */
export function typeFromSchema(schema: OpenApiSchema, definitions: Record<string, OpenApiSchema> = {}): TfType {
  let s = schema;
  for (let hops = 0; s.$ref; hops++) {
    const id = s.$ref.split('/').pop() as string;
    if (DYNAMIC_DEFINITIONS.has(id)) return { kind: 'dynamic' };
    const next = definitions[id];
    if (!next || hops > 50) throw new Error(`schema not found: ${s.$ref}`);
    s = next;
  }
  switch (s.type) {
    case 'string':
      return s.format === 'int-or-string' ? { kind: 'string', intOrString: true } : { kind: 'string' };
    case 'boolean':
      return { kind: 'bool' };
    case 'number':
    case 'integer':
      return { kind: 'number' };
    case undefined:
    case '':
      return s['x-kubernetes-int-or-string'] ? { kind: 'string', intOrString: true } : { kind: 'dynamic' };
    case 'array': {
      const items = s.items ?? (typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined);
      if (!items) throw new Error('unknown type: array without items');
      return { kind: 'list', element: typeFromSchema(items, definitions) };
    }
    case 'object': {
      const additional = typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
      if (s.properties && !additional) {
        const properties = s.properties;
        let resolved: Record<string, TfType> | undefined;
        return {
          kind: 'object',
          get attributes() {
            resolved ??= Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, typeFromSchema(v, definitions)]));
            return resolved;
          },
        };
      }
      if (!s.properties && additional) return { kind: 'map', element: typeFromSchema(additional, definitions) };
      if (!s.properties && !additional) return { kind: 'dynamic' };
      throw new Error('unknown type: object with both properties and additionalProperties');
    }
    default:
      throw new Error(`unknown type: ${s.type}`);
  }
}

/** The resource type as the provider builds it: `status` dropped (unless for waiting), apiVersion/kind added, metadata ObjectMeta. */
export function resourceType(object: TfType, objectMeta: TfType, withStatus = false): TfType {
  if (object.kind !== 'object') return object;
  const attributes: Record<string, TfType> = { ...object.attributes };
  if (!withStatus) delete attributes.status;
  attributes.apiVersion ??= { kind: 'string' };
  attributes.kind ??= { kind: 'string' };
  attributes.metadata = objectMeta;
  return { kind: 'object', attributes };
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A path step: an attribute (object) or an element key (map: string, list: number). */
export type Step = { attr: string } | { key: string | number };

/** A path as OpenTofu prints it (tfdiags.FormatCtyPath): `.spec.selector.matchLabels["a"]`, `[0]`. */
export function formatPath(path: Step[]): string {
  return path.map((s) => ('attr' in s ? `.${s.attr}` : typeof s.key === 'number' ? `[${s.key}]` : `[${JSON.stringify(s.key)}]`)).join('');
}

/** A path as tftypes.AttributePath.String() gives it, the key the provider matches computed_fields by. */
function pathKey(path: Step[]): string {
  return path
    .map((s) => ('attr' in s ? `AttributeName("${s.attr}")` : typeof s.key === 'number' ? `ElementKeyInt(${s.key})` : `ElementKeyString("${s.key}")`))
    .join('.');
}

/**
 * A `computed_fields` entry or a `wait.fields` key parsed as the provider does (waiter.go
 * `FieldPathToTftypesPath`: an HCL traversal — `a.b["c"][0]`; splats refused).
 */
export function parseFieldPath(text: string): Step[] {
  const steps: Step[] = [];
  let i = 0;
  const fail = (why: string): never => {
    throw new Error(`invalid field path ${JSON.stringify(text)}: ${why}`);
  };
  const ident = () => {
    const m = /^[A-Za-z_][A-Za-z0-9_-]*/.exec(text.slice(i));
    if (!m) fail(`expected a name at ${i}`);
    i += m![0].length;
    return m![0];
  };
  steps.push({ attr: ident() });
  while (i < text.length) {
    if (text[i] === '.') {
      i++;
      if (text[i] === '*') fail('splat is not supported');
      if (/[0-9]/.test(text[i] ?? '')) {
        const m = /^[0-9]+/.exec(text.slice(i))!;
        i += m[0].length;
        steps.push({ key: Number(m[0]) });
      } else steps.push({ attr: ident() });
    } else if (text[i] === '[') {
      i++;
      if (text[i] === '"') {
        let value = '';
        i++;
        while (i < text.length && text[i] !== '"') {
          if (text[i] === '\\') i++;
          value += text[i++];
        }
        if (text[i] !== '"') fail('unterminated string');
        i++;
        steps.push({ key: value });
      } else if (text[i] === '*') fail('splat is not supported');
      else {
        const m = /^-?[0-9]+(\.[0-9]+)?/.exec(text.slice(i));
        if (!m) fail(`expected an index at ${i}`);
        if (m![1]) fail('index in field path must be an integer');
        i += m![0].length;
        steps.push({ key: Number(m![0]) });
      }
      if (text[i] !== ']') fail(`expected ] at ${i}`);
      i++;
    } else fail(`unexpected ${JSON.stringify(text[i])} at ${i}`);
  }
  return steps;
}

/** The paths planned unknown: `computed_fields` when given (it replaces the default), else labels and annotations (plan.go). */
export function computedPaths(computedFields: string[] | undefined): Set<string> {
  const fields = computedFields ?? ['metadata.annotations', 'metadata.labels'];
  return new Set(fields.map((f) => pathKey(parseFieldPath(f))));
}

/** A planned value: unknown, or known (null, a primitive, an object/map/list of planned values, a dynamic JSON value). */
export type Planned =
  | { unknown: true }
  | { null: true }
  | { value: string | number | boolean }
  | { dynamic: Json }
  /** `open`: the attributes not listed are unknown (a create plan); otherwise null. */
  | { object: Record<string, Planned>; open?: boolean }
  | { map: Record<string, Planned> }
  | { list: Planned[] };

const UNKNOWN: Planned = { unknown: true };
const NULL: Planned = { null: true };

export interface PlanWarning {
  path: string;
  message: string;
}

function isSet(v: unknown): boolean {
  return v !== undefined && v !== null;
}

function convertPrimitive(v: unknown, t: TfType, path: Step[]): string | number | boolean {
  if (t.kind === 'string') {
    if (typeof v === 'string') return v;
    if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  } else if (t.kind === 'number') {
    if (typeof v === 'number') return v;
    if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  } else if (t.kind === 'bool') {
    if (typeof v === 'boolean') return v;
    if (v === 'true' || v === 'false') return v === 'true';
  }
  throw new Error(
    `Manifest configuration incompatible with resource schema: Value incompatible with expected type at ${formatPath(path)} (${JSON.stringify(v)} is not a ${t.kind})`,
  );
}

/** The live (or applied) value as the provider types it: known everywhere, null where absent. */
export function typedLive(v: unknown, t: TfType, path: Step[] = []): Planned {
  switch (t.kind) {
    case 'string':
    case 'number':
    case 'bool':
      return isSet(v) ? { value: convertPrimitive(v, t, path) } : NULL;
    case 'dynamic':
      return isSet(v) ? { dynamic: v as Json } : NULL;
    case 'map':
      if (!isSet(v) || typeof v !== 'object' || Array.isArray(v)) return NULL;
      return { map: Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, e]) => [k, typedLive(e, t.element, [...path, { key: k }])])) };
    case 'list':
      if (!Array.isArray(v)) return NULL;
      return { list: v.map((e, i) => typedLive(e, t.element, [...path, { key: i }])) };
    case 'object': {
      // DeepUnknown then UnknownToNull: an object is always present, its absent attributes null.
      const o = (isSet(v) && typeof v === 'object' && !Array.isArray(v) ? v : {}) as Record<string, unknown>;
      return {
        object: Object.fromEntries(
          Object.keys(o)
            .filter((k) => k in t.attributes)
            .map((k) => [k, typedLive(o[k], t.attributes[k], [...path, { attr: k }])]),
        ),
      };
    }
  }
}

/** `object` without the fields the provider removes from every answer (resource.go RemoveServerSideFields). */
export function withoutServerSideFields(object: Record<string, unknown>): Record<string, unknown> {
  const { status: _status, ...rest } = object;
  const metadata = { ...((rest.metadata ?? {}) as Record<string, unknown>) };
  for (const k of ['uid', 'creationTimestamp', 'resourceVersion', 'generation', 'selfLink', 'managedFields']) delete metadata[k];
  return { ...rest, metadata };
}

export interface PlanInput {
  /** The manifest as configured now. */
  manifest: Record<string, unknown>;
  type: TfType;
  computed: Set<string>;
  /** Update: the manifest in state and the prior (refreshed) object, without server-side fields. Create: absent. */
  prior?: { manifest: Record<string, unknown>; object: Record<string, unknown> };
}

/**
 * The planned `object` (plan.go PlanResourceChange), with the warnings the provider gives (a manifest
 * attribute the schema lacks is dropped).
 */
export function planObject(input: PlanInput): { planned: Planned; warnings: PlanWarning[] } {
  const warnings: PlanWarning[] = [];
  const { computed, prior } = input;
  const equal = (a: unknown, b: unknown) => JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
  const node = (m: unknown, pm: unknown, live: unknown, t: TfType, path: Step[]): Planned => {
    const isComputed = computed.has(pathKey(path));
    const fromPrior = () => typedLive(live, t, path);
    if (t.kind === 'object') {
      const mo = (isSet(m) && typeof m === 'object' && !Array.isArray(m) ? m : undefined) as Record<string, unknown> | undefined;
      const po = (isSet(pm) && typeof pm === 'object' && !Array.isArray(pm) ? pm : undefined) as Record<string, unknown> | undefined;
      const lo = (isSet(live) && typeof live === 'object' && !Array.isArray(live) ? live : undefined) as Record<string, unknown> | undefined;
      for (const k of Object.keys(mo ?? {}))
        if (!(k in t.attributes))
          warnings.push({ path: formatPath([...path, { attr: k }]), message: 'Attribute not found in schema: the provider drops it from what it applies' });
      const keys = new Set([...Object.keys(mo ?? {}), ...Object.keys(po ?? {}), ...(prior ? Object.keys(lo ?? {}) : [])].filter((k) => k in t.attributes));
      const attrs: Record<string, Planned> = {};
      for (const k of keys) attrs[k] = node(mo?.[k], po?.[k], lo?.[k], t.attributes[k], [...path, { attr: k }]);
      const planned: Planned = prior ? { object: attrs } : { object: attrs, open: true };
      if (!isComputed) return planned;
      if (!prior) return UNKNOWN;
      return isSet(m) && !equal(m, pm) ? UNKNOWN : fromPrior();
    }
    if (isSet(m)) {
      if (isComputed) {
        if (!prior) return UNKNOWN;
        return !equal(m, pm) ? UNKNOWN : fromPrior();
      }
      switch (t.kind) {
        case 'map': {
          if (typeof m !== 'object' || Array.isArray(m))
            throw new Error(`Manifest configuration incompatible with resource schema: ${formatPath(path)} is a map`);
          const pmo = (pm ?? {}) as Record<string, unknown>;
          const lmo = (live ?? {}) as Record<string, unknown>;
          return {
            map: Object.fromEntries(
              Object.entries(m as Record<string, unknown>).map(([k, e]) => [k, node(e, pmo[k], lmo[k], t.element, [...path, { key: k }])]),
            ),
          };
        }
        case 'list': {
          if (!Array.isArray(m)) throw new Error(`Manifest configuration incompatible with resource schema: ${formatPath(path)} is a list`);
          const pl = Array.isArray(pm) ? pm : [];
          const ll = Array.isArray(live) ? live : [];
          return { list: m.map((e, i) => node(e, pl[i], ll[i], t.element, [...path, { key: i }])) };
        }
        case 'dynamic':
          return { dynamic: m as Json };
        default:
          return { value: convertPrimitive(m, t, path) };
      }
    }
    // Not set now: unknown on create; on update unknown if it was set before (the API may default it), else the prior value.
    if (!prior || isSet(pm)) return UNKNOWN;
    return fromPrior();
  };
  const planned = node(input.manifest, prior?.manifest, prior?.object, input.type, []);
  return { planned, warnings };
}

function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
    );
  return v;
}

/** cty's GoString of a value, as OpenTofu prints it in these errors (go-cty v1.18.0 value_ops.go). */
export function ctyString(p: Planned): string {
  if ('unknown' in p) return 'cty.DynamicVal';
  if ('null' in p) return 'cty.NullVal(cty.DynamicPseudoType)';
  if ('value' in p) {
    if (typeof p.value === 'string') return `cty.StringVal(${JSON.stringify(p.value)})`;
    if (typeof p.value === 'boolean') return p.value ? 'cty.True' : 'cty.False';
    return Number.isInteger(p.value) ? `cty.NumberIntVal(${p.value})` : `cty.NumberFloatVal(${p.value})`;
  }
  if ('dynamic' in p) return JSON.stringify(p.dynamic);
  if ('map' in p)
    return `cty.MapVal(map[string]cty.Value{${Object.entries(p.map)
      .map(([k, v]) => `${JSON.stringify(k)}:${ctyString(v)}`)
      .join(', ')}})`;
  if ('list' in p) return `cty.ListVal([]cty.Value{${p.list.map(ctyString).join(', ')}})`;
  return `cty.ObjectVal(map[string]cty.Value{${Object.entries(p.object)
    .map(([k, v]) => `${JSON.stringify(k)}:${ctyString(v)}`)
    .join(', ')}})`;
}

/**
 * OpenTofu's check that `actual` is a valid completion of `planned` (objchange.assertValueCompatible),
 * each problem as `<path>: <message>` with the path from the resource (`.object...`).
 */
export function assertCompatible(planned: Planned, actual: Planned, path: Step[] = [{ attr: 'object' }]): string[] {
  const at = (message: string) => `${formatPath(path)}: ${message}`;
  if ('unknown' in planned) return [];
  const actualNull = 'null' in actual;
  if ('null' in planned) return actualNull ? [] : [at(`was null, but now ${ctyString(actual)}`)];
  if ('object' in planned) {
    // Objects are never null on either side (DeepUnknown); compare every attribute either side holds.
    const ao = 'object' in actual ? actual.object : {};
    const errs: string[] = [];
    for (const k of [...new Set([...Object.keys(planned.object), ...Object.keys(ao)])].sort()) {
      const pv = planned.object[k] ?? (planned.open ? UNKNOWN : NULL);
      const av = ao[k] ?? NULL;
      if ('unknown' in pv) continue;
      errs.push(...assertCompatible(pv, av, [...path, { attr: k }]));
    }
    return errs;
  }
  if (actualNull) return [at(`was ${ctyString(planned)}, but now null`)];
  if ('value' in planned) {
    if (!('value' in actual) || actual.value !== planned.value) return [at(`was ${ctyString(planned)}, but now ${ctyString(actual)}`)];
    return [];
  }
  if ('dynamic' in planned) return dynamicCompatible(planned.dynamic, 'dynamic' in actual ? actual.dynamic : null, path);
  if ('map' in planned) {
    const am = 'map' in actual ? actual.map : {};
    const errs: string[] = [];
    for (const k of Object.keys(planned.map).sort()) {
      if (!(k in am)) errs.push(at(`element ${JSON.stringify(k)} has vanished`));
      else errs.push(...assertCompatible(planned.map[k], am[k], [...path, { key: k }]));
    }
    for (const k of Object.keys(am).sort()) if (!(k in planned.map)) errs.push(at(`new element ${JSON.stringify(k)} has appeared`));
    return errs;
  }
  const al = 'list' in actual ? actual.list : [];
  const errs: string[] = [];
  planned.list.forEach((pv, i) => {
    if (i >= al.length) errs.push(at(`element ${i} has vanished`));
    else errs.push(...assertCompatible(pv, al[i], [...path, { key: i }]));
  });
  for (let i = planned.list.length; i < al.length; i++) errs.push(at(`new element ${i} has appeared`));
  return errs;
}

/** A dynamic value must match exactly, type (object attributes) included. */
function dynamicCompatible(planned: Json, actual: Json, path: Step[]): string[] {
  const at = (message: string) => `${formatPath(path)}: ${message}`;
  if (planned === null) return actual === null ? [] : [at(`was null, but now ${JSON.stringify(actual)}`)];
  if (actual === null) return [at(`was ${JSON.stringify(planned)}, but now null`)];
  if (Array.isArray(planned)) {
    if (!Array.isArray(actual) || actual.length !== planned.length) return [at(`wrong final value type: tuple required`)];
    return planned.flatMap((p, i) => dynamicCompatible(p, actual[i], [...path, { key: i }]));
  }
  if (typeof planned === 'object') {
    if (typeof actual !== 'object' || Array.isArray(actual)) return [at('wrong final value type: object required')];
    const missing = Object.keys(planned)
      .filter((k) => !(k in actual))
      .sort();
    if (missing.length > 0)
      return [
        at(
          `wrong final value type: ${missing.length === 1 ? `attribute ${JSON.stringify(missing[0])} is required` : `attributes ${missing.map((m) => JSON.stringify(m)).join(', ')} are required`}`,
        ),
      ];
    if (Object.keys(actual).some((k) => !(k in planned))) return [at('wrong final value type: incorrect object attributes')];
    return Object.keys(planned)
      .sort()
      .flatMap((k) => dynamicCompatible(planned[k], actual[k], [...path, { attr: k }]));
  }
  return planned === actual ? [] : [at(`was ${JSON.stringify(planned)}, but now ${JSON.stringify(actual)}`)];
}

/**
 * What the provider sends (apply.go): the planned object with computed unknowns filled from the
 * manifest, other unknowns and nulls dropped, and objects left empty dropped unless the manifest
 * sets them.
 */
export function payload(planned: Planned, manifest: Record<string, unknown>, type: TfType, computed: Set<string>): Record<string, unknown> {
  const walk = (p: Planned, m: unknown, t: TfType, path: Step[]): unknown => {
    if ('unknown' in p) {
      // Computed and unknown: the manifest's value, if it sets one.
      if (computed.has(pathKey(path)) && isSet(m))
        return walk(planObject({ manifest: m as Record<string, unknown>, type: t, computed: new Set() }).planned, m, t, path);
      return undefined;
    }
    if ('null' in p) return undefined;
    // payload.FromTFValue: an IntOrString-hinted string that is an integer goes out as an int.
    if ('value' in p) return t.kind === 'string' && t.intOrString && typeof p.value === 'string' && /^-?[0-9]+$/.test(p.value) ? Number(p.value) : p.value;
    if ('dynamic' in p) return p.dynamic;
    if ('list' in p)
      return p.list
        .map((e, i) => walk(e, Array.isArray(m) ? m[i] : undefined, t.kind === 'list' ? t.element : { kind: 'dynamic' }, [...path, { key: i }]))
        .filter((e) => e !== undefined);
    const entries = 'map' in p ? p.map : p.object;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(entries)) {
      const et = t.kind === 'map' ? t.element : t.kind === 'object' ? t.attributes[k] : { kind: 'dynamic' as const };
      const mv = isSet(m) && typeof m === 'object' ? (m as Record<string, unknown>)[k] : undefined;
      const w = walk(v, mv, et, [...path, 'map' in p ? { key: k } : { attr: k }]);
      if (w !== undefined) out[k] = w;
    }
    if (Object.keys(out).length === 0 && !isSet(m)) return undefined;
    return out;
  };
  return (walk(planned, manifest, type, []) ?? {}) as Record<string, unknown>;
}
