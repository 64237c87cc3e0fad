/**
 * Test support (moved from modules/crds, issue 23: nothing the product ships validates with ajv).
 * CustomResourceDefinitions and manifest validation: every custom resource pvekaas renders is
 * checked against the pinned upstream CRDs (the tree `scripts/toolchain install crds` lays out in
 * `.toolchain/crds` from the pinned Go modules) before anything reaches a cluster.
 *
 * Stable API (management and tenant stacks' tests use it; keep it):
 *
 *   const crds = loadPinnedCrds(projectRoot);             // or loadCrds([dir, ...])
 *   const errors = validateManifest(manifest, crds);      // string[]; [] means valid
 *   const cel = uncheckedRules(manifest, crds);           // CEL rules ajv cannot run
 *
 * - `loadCrds(dirs)` reads every `*.yaml`/`*.yml` under the given directories (recursively) and
 *   keeps the `apiextensions.k8s.io/v1` CustomResourceDefinitions. Two files defining the same
 *   group and kind are an error: load the pinned directories only (`pinnedCrdDirs()`), not the
 *   whole tree, which also holds older releases.
 * - `validateManifest(manifest, crds)` picks the CRD by the manifest's group and kind, requires the
 *   version to be served, and validates against that version's `openAPIV3Schema` the way an API
 *   server does with strict field validation: unknown fields are errors (except below
 *   `x-kubernetes-preserve-unknown-fields`), `x-kubernetes-int-or-string` takes an integer or a
 *   string, `x-kubernetes-embedded-resource` objects take apiVersion/kind/metadata, list-map keys
 *   must be unique, and required, enum, pattern, bounds and the formats date-time, date, byte,
 *   uri, hostname, email, ipv4, ipv6, cidr, mac, uuid and duration are checked. `metadata` is
 *   checked as ObjectMeta (name, namespace, label syntax) and against the CRD's scope. Each error
 *   reads `<Kind> <namespace>/<name>: <json path>: <what is wrong>`.
 * - CEL rules (`x-kubernetes-validations`) are NOT checked here; `uncheckedRules` lists the ones
 *   that apply to a manifest (a later issue runs them in a real API server).
 * - `crdsDir(projectRoot, env)` resolves the CRD tree: `$PVEKAAS_CRDS_DIR` if set (CI), else
 *   `.toolchain/crds` in the project. Only scripts and tests call it.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import { parseAllDocuments } from 'yaml';
import { pinnedCrdDirs } from '../../modules/versions';
import { crdsDir } from '../../scripts/lib/crd-tree';

export { crdsDir };

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Schema = Record<string, any>;

/** One version of a CRD. */
export interface CrdVersion {
  readonly name: string;
  readonly served: boolean;
  readonly storage: boolean;
  readonly schema?: Schema;
}

/** A loaded CustomResourceDefinition. */
export interface Crd {
  readonly group: string;
  readonly kind: string;
  readonly plural: string;
  readonly scope: 'Namespaced' | 'Cluster';
  readonly versions: readonly CrdVersion[];
  /** The file it came from. */
  readonly file: string;
}

/** A set of CRDs, keyed by `<group>/<Kind>`, with compiled validators cached per version. */
export interface CrdSet {
  readonly crds: ReadonlyMap<string, Crd>;
  /** @internal compiled validators, per `<group>/<version>/<Kind>`. */
  readonly validators: Map<string, ValidateFunction>;
  /** @internal */
  readonly ajv: Ajv;
}

/** A CEL rule of a CRD that applies to a manifest but is not evaluated by `validateManifest`. */
export interface CelRule {
  /** Where in the manifest it applies, e.g. `spec.template.spec`. */
  readonly path: string;
  readonly rule: string;
  readonly message?: string;
}

/** The CRDs of everything the pinned management plane installs (see modules/versions). */
export function loadPinnedCrds(projectRoot: string, env: Readonly<Record<string, string | undefined>> = {}): CrdSet {
  const root = crdsDir(projectRoot, env);
  return loadCrds(pinnedCrdDirs().map((dir) => join(root, dir)));
}

/** Loads every CustomResourceDefinition in the given directories (recursively, in name order). */
export function loadCrds(dirs: string | readonly string[]): CrdSet {
  const crds = new Map<string, Crd>();
  for (const dir of typeof dirs === 'string' ? [dirs] : dirs) {
    for (const file of yamlFiles(dir)) {
      for (const doc of parseAllDocuments(readFileSync(file, 'utf8'))) {
        if (doc.errors.length > 0) throw new Error(`${file}: not valid YAML: ${doc.errors[0].message}`);
        const crd = toCrd(doc.toJS(), file);
        if (!crd) continue;
        const key = `${crd.group}/${crd.kind}`;
        const other = crds.get(key);
        if (other) throw new Error(`${crd.kind}.${crd.group} is defined twice: in ${other.file} and in ${file}; load one release's CRDs only`);
        crds.set(key, crd);
      }
    }
  }
  if (crds.size === 0) throw new Error(`no CustomResourceDefinitions found in ${[dirs].flat().join(', ')}`);
  return { crds, validators: new Map(), ajv: newAjv() };
}

function yamlFiles(dir: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir).sort();
  } catch (e) {
    throw new Error(
      `cannot read the CRD directory ${dir}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message} (run scripts/toolchain install crds, or set PVEKAAS_CRDS_DIR to the CRD tree)`,
    );
  }
  return entries.flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return yamlFiles(path);
    return /\.ya?ml$/.test(entry) ? [path] : [];
  });
}

function toCrd(doc: any, file: string): Crd | undefined {
  if (!doc || doc.kind !== 'CustomResourceDefinition' || doc.apiVersion !== 'apiextensions.k8s.io/v1') return undefined;
  const spec = doc.spec ?? {};
  return {
    group: spec.group,
    kind: spec.names?.kind,
    plural: spec.names?.plural,
    scope: spec.scope,
    versions: (spec.versions ?? []).map((v: any) => ({
      name: v.name,
      served: v.served === true,
      storage: v.storage === true,
      schema: v.schema?.openAPIV3Schema,
    })),
    file,
  };
}

/** Validates one manifest; returns every problem found (empty when valid). */
export function validateManifest(manifest: unknown, crds: CrdSet): string[] {
  const resolved = resolveCrd(manifest, crds);
  if ('error' in resolved) return [resolved.error];
  const { crd, version, label, object } = resolved;
  const errors: string[] = [];
  const namespace = object.metadata?.namespace;
  if (crd.scope === 'Cluster' && namespace !== undefined) {
    errors.push(`${label}: metadata.namespace: ${crd.kind} is cluster-scoped and takes no namespace`);
  }
  if (crd.scope === 'Namespaced' && (typeof namespace !== 'string' || namespace === '')) {
    errors.push(`${label}: metadata.namespace: ${crd.kind} is namespaced; set the namespace explicitly`);
  }
  if (!object.metadata?.name && !object.metadata?.generateName) errors.push(`${label}: metadata.name: required field missing`);
  const validate = validatorFor(crd, version, crds);
  if (!validate(object)) {
    for (const error of validate.errors ?? []) errors.push(`${label}: ${describeError(error, object)}`);
  }
  return [...new Set(errors)];
}

/** The CEL rules (x-kubernetes-validations) of the manifest's CRD that apply to the fields it sets. */
export function uncheckedRules(manifest: unknown, crds: CrdSet): CelRule[] {
  const resolved = resolveCrd(manifest, crds);
  if ('error' in resolved) return [];
  const rules: CelRule[] = [];
  const walk = (schema: Schema | undefined, data: unknown, path: string) => {
    if (!schema || data === undefined) return;
    for (const v of (schema['x-kubernetes-validations'] ?? []) as { rule: string; message?: string }[]) {
      rules.push({ path: path || '(root)', rule: v.rule, ...(v.message ? { message: v.message } : {}) });
    }
    if (Array.isArray(data)) {
      data.forEach((item, i) => walk(schema.items, item, `${path}[${i}]`));
    } else if (data !== null && typeof data === 'object') {
      for (const [key, value] of Object.entries(data)) {
        const child = schema.properties?.[key] ?? (typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined);
        walk(child, value, joinPath(path, key));
      }
    }
  };
  walk(resolved.version.schema, resolved.object, '');
  return rules;
}

function resolveCrd(manifest: unknown, crds: CrdSet): { crd: Crd; version: CrdVersion; label: string; object: any } | { error: string } {
  if (manifest === null || typeof manifest !== 'object' || Array.isArray(manifest)) return { error: 'a manifest must be an object' };
  const object = manifest as any;
  const kind = object.kind;
  const apiVersion = object.apiVersion;
  const label = `${typeof kind === 'string' ? kind : '(no kind)'} ${object.metadata?.namespace ? `${object.metadata.namespace}/` : ''}${object.metadata?.name ?? '(no name)'}`;
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') return { error: `${label}: apiVersion and kind are required strings` };
  const slash = apiVersion.lastIndexOf('/');
  if (slash < 0) return { error: `${label}: ${apiVersion} is a core Kubernetes API, not a custom resource; validateManifest checks custom resources only` };
  const group = apiVersion.slice(0, slash);
  const versionName = apiVersion.slice(slash + 1);
  const crd = crds.crds.get(`${group}/${kind}`);
  if (!crd) {
    const sameKind = [...crds.crds.values()].filter((c) => c.kind === kind).map((c) => c.group);
    return { error: `${label}: no CRD defines ${kind} in group ${group}${sameKind.length ? ` (${kind} exists in ${sameKind.join(', ')})` : ''}` };
  }
  const version = crd.versions.find((v) => v.name === versionName);
  const served = crd.versions.filter((v) => v.served).map((v) => v.name);
  if (!version || !version.served) {
    return { error: `${label}: ${group}/${versionName} is not served by the ${kind} CRD (${crd.file}); served: ${served.join(', ')}` };
  }
  if (!version.schema) return { error: `${label}: the ${kind} CRD has no schema for ${versionName}` };
  return { crd, version, label, object };
}

function validatorFor(crd: Crd, version: CrdVersion, crds: CrdSet): ValidateFunction {
  const key = `${crd.group}/${version.name}/${crd.kind}`;
  let validate = crds.validators.get(key);
  if (!validate) {
    const root = toJsonSchema(version.schema ?? {}, false);
    root.properties = { ...(root.properties ?? {}), metadata: objectMetaSchema };
    root.additionalProperties = false;
    validate = crds.ajv.compile(root);
    crds.validators.set(key, validate);
  }
  return validate;
}

const DNS_SUBDOMAIN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$';
const DNS_LABEL = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$';
const LABEL_KEY = '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$';
const LABEL_VALUE = '^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$';

/** ObjectMeta as the API server checks it for a custom resource. */
const objectMetaSchema: Schema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    name: { type: 'string', maxLength: 253, pattern: DNS_SUBDOMAIN },
    generateName: { type: 'string' },
    namespace: { type: 'string', maxLength: 63, pattern: DNS_LABEL },
    labels: {
      type: 'object',
      propertyNames: { pattern: LABEL_KEY, maxLength: 317 },
      additionalProperties: { type: 'string', maxLength: 63, pattern: LABEL_VALUE },
    },
    annotations: { type: 'object', propertyNames: { pattern: LABEL_KEY }, additionalProperties: { type: 'string' } },
    finalizers: { type: 'array', items: { type: 'string' } },
    ownerReferences: {
      type: 'array',
      items: {
        type: 'object',
        required: ['apiVersion', 'kind', 'name', 'uid'],
        additionalProperties: false,
        properties: {
          apiVersion: { type: 'string' },
          kind: { type: 'string' },
          name: { type: 'string' },
          uid: { type: 'string' },
          controller: { type: 'boolean' },
          blockOwnerDeletion: { type: 'boolean' },
        },
      },
    },
    uid: { type: 'string' },
    resourceVersion: { type: 'string' },
    generation: { type: 'integer' },
    creationTimestamp: { type: ['string', 'null'] },
    deletionTimestamp: { type: 'string' },
    deletionGracePeriodSeconds: { type: 'integer' },
    managedFields: { type: 'array' },
    selfLink: { type: 'string' },
  },
};

/** Formats the API server validates (others, like int32 or double, it ignores — and so do we). */
const checkedFormats: Record<string, (value: string) => boolean> = {
  'date-time': (v) => /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(v) && !Number.isNaN(Date.parse(v.replace(' ', 'T'))),
  date: (v) => /^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(v)),
  byte: (v) => /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(v),
  uri: (v) => {
    try {
      return new URL(v).protocol.length > 1;
    } catch {
      return false;
    }
  },
  hostname: (v) => v.length <= 253 && /^[A-Za-z0-9]([-A-Za-z0-9]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([-A-Za-z0-9]{0,61}[A-Za-z0-9])?)*\.?$/.test(v),
  email: (v) => /^[^\s@]+@[^\s@]+$/.test(v),
  ipv4: (v) => isIpv4(v),
  ipv6: (v) => isIpv6(v),
  cidr: (v) => {
    const [ip, prefix, ...rest] = v.split('/');
    if (rest.length > 0 || prefix === undefined || !/^\d{1,3}$/.test(prefix)) return false;
    return (isIpv4(ip) && Number(prefix) <= 32) || (isIpv6(ip) && Number(prefix) <= 128);
  },
  mac: (v) => /^([0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}$/.test(v),
  uuid: (v) => /^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$/.test(v),
  duration: (v) => /^([+-]?(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+|0)$/.test(v),
};

function isIpv4(v: string): boolean {
  const parts = v.split('.');
  return parts.length === 4 && parts.every((p) => /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/.test(p));
}

function isIpv6(v: string): boolean {
  if (!v.includes(':') || !/^[0-9A-Fa-f:.]+$/.test(v)) return false;
  const doubles = v.split('::').length - 1;
  if (doubles > 1) return false;
  const groups = v.split(':').filter((g) => g !== '');
  const last = groups[groups.length - 1] ?? '';
  const v4Tail = last.includes('.') ? (isIpv4(last) ? 1 : -1) : 0;
  if (v4Tail < 0) return false;
  const count = groups.length + v4Tail;
  const hexOk = groups.slice(0, v4Tail ? -1 : undefined).every((g) => /^[0-9A-Fa-f]{1,4}$/.test(g));
  return hexOk && (doubles === 1 ? count < 8 : count === 8);
}

function newAjv(): Ajv {
  const ajv = new Ajv({ allErrors: true, strict: false, allowUnionTypes: true, validateFormats: true, validateSchema: false, verbose: true });
  for (const [name, check] of Object.entries(checkedFormats)) ajv.addFormat(name, { type: 'string', validate: check });
  ajv.addKeyword({
    keyword: 'intOrString',
    errors: false,
    validate: function intOrString(this: unknown, _schema: boolean, data: unknown) {
      return typeof data === 'string' || (typeof data === 'number' && Number.isInteger(data));
    },
  });
  ajv.addKeyword({
    keyword: 'listMapKeys',
    type: 'array',
    errors: false,
    validate: function listMapKeys(keys: string[], data: unknown[]) {
      const seen = new Set<string>();
      for (const item of data) {
        if (item === null || typeof item !== 'object') continue;
        const id = JSON.stringify(keys.map((k) => (item as Record<string, unknown>)[k] ?? null));
        if (seen.has(id)) return false;
        seen.add(id);
      }
      return true;
    },
  });
  return ajv;
}

const passThrough = [
  'enum',
  'pattern',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'multipleOf',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'required',
];

/**
 * An OpenAPI v3 structural schema of a CRD → a JSON Schema ajv runs. `inLogic` is set inside
 * allOf/anyOf/oneOf/not, where a structural schema only adds value checks: no unknown-field
 * rule is added there (the enclosing object already has it).
 */
function toJsonSchema(s: Schema, inLogic: boolean): Schema {
  const out: Schema = {};
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  const embedded = s['x-kubernetes-embedded-resource'] === true;
  if (s['x-kubernetes-int-or-string'] === true) {
    out.intOrString = true;
  } else if (typeof s.type === 'string') {
    out.type = s.nullable === true ? [s.type, 'null'] : s.type;
  }
  for (const key of passThrough) if (s[key] !== undefined) out[key] = s[key];
  if (Array.isArray(out.enum) && s.nullable === true && !out.enum.includes(null)) out.enum = [...out.enum, null];
  if (s.exclusiveMinimum === true && s.minimum !== undefined) {
    delete out.minimum;
    out.exclusiveMinimum = s.minimum;
  }
  if (s.exclusiveMaximum === true && s.maximum !== undefined) {
    delete out.maximum;
    out.exclusiveMaximum = s.maximum;
  }
  if (typeof s.format === 'string' && s.format in checkedFormats) out.format = s.format;
  if (s.properties) {
    out.properties = Object.fromEntries(Object.entries(s.properties as Record<string, Schema>).map(([k, v]) => [k, toJsonSchema(v, inLogic)]));
  }
  if (embedded) {
    out.properties = { apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: objectMetaSchema, ...(out.properties ?? {}) };
  }
  if (typeof s.additionalProperties === 'object') out.additionalProperties = toJsonSchema(s.additionalProperties, inLogic);
  else if (typeof s.additionalProperties === 'boolean') out.additionalProperties = s.additionalProperties;
  else if (!inLogic && !preserve && (s.type === 'object' || s.properties || embedded)) out.additionalProperties = false;
  if (s.items && !Array.isArray(s.items)) out.items = toJsonSchema(s.items, inLogic);
  for (const logic of ['allOf', 'anyOf', 'oneOf'] as const) {
    // controller-gen writes int-or-string as anyOf [integer, string] as well; intOrString covers it.
    if (logic === 'anyOf' && out.intOrString) continue;
    if (Array.isArray(s[logic])) out[logic] = s[logic].map((x: Schema) => toJsonSchema(x, true));
  }
  if (s.not) out.not = toJsonSchema(s.not, true);
  if (s['x-kubernetes-list-type'] === 'map' && Array.isArray(s['x-kubernetes-list-map-keys'])) out.listMapKeys = s['x-kubernetes-list-map-keys'];
  if (s['x-kubernetes-list-type'] === 'set') out.uniqueItems = true;
  return out;
}

function joinPath(path: string, key: string): string {
  const plain = /^[A-Za-z_$][A-Za-z0-9_$-]*$/.test(key);
  if (plain) return path ? `${path}.${key}` : key;
  return `${path}[${JSON.stringify(key)}]`;
}

/** `/spec/addresses/0` of an ajv error → `spec.addresses[0]`, resolving indices against the data. */
function pathOf(instancePath: string, data: unknown): string {
  let path = '';
  let node: any = data;
  for (const raw of instancePath.split('/').slice(1)) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node)) {
      path += `[${segment}]`;
      node = node[Number(segment)];
    } else {
      path = joinPath(path, segment);
      node = node?.[segment];
    }
  }
  return path;
}

function valueAt(instancePath: string, data: unknown): Json | undefined {
  let node: any = data;
  for (const raw of instancePath.split('/').slice(1)) node = node?.[raw.replace(/~1/g, '/').replace(/~0/g, '~')];
  return node;
}

function show(value: unknown): string {
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function describeError(error: ErrorObject, data: unknown): string {
  const at = pathOf(error.instancePath, data);
  const where = (child?: string) => (child === undefined ? at || '(root)' : joinPath(at, child));
  const value = valueAt(error.instancePath, data);
  const p = error.params as Record<string, any>;
  switch (error.keyword) {
    case 'additionalProperties':
      return `${where(p.additionalProperty)}: unknown field (not in the CRD schema)`;
    case 'required':
      return `${where(p.missingProperty)}: required field missing`;
    case 'enum':
      return `${where()}: ${show(value)} is not one of ${p.allowedValues.map(show).join(', ')}`;
    case 'type':
      return `${where()}: must be ${[p.type].flat().join(' or ')}, got ${value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value}`;
    case 'intOrString':
      return `${where()}: must be an integer or a string, got ${show(value)}`;
    case 'listMapKeys':
      return `${where()}: two items have the same key (${(error.schema as string[] | undefined)?.join(', ') ?? 'map keys'})`;
    case 'pattern':
      return `${where()}: ${show(value)} does not match ${p.pattern}`;
    case 'format':
      return `${where()}: ${show(value)} is not a valid ${p.format}`;
    case 'propertyNames':
      return `${where()}: key ${show(p.propertyName)} is not a valid name`;
    default:
      return `${where()}: ${error.message ?? error.keyword}${value !== undefined && typeof value !== 'object' ? ` (got ${show(value)})` : ''}`;
  }
}
