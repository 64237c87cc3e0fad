/**
 * What the lab twin applies: the Kubernetes objects a synthesized stack (`cdk.tf.json`) holds —
 * every `kubernetes_manifest` manifest, and every `kubernetes_namespace_v1`, `kubernetes_secret_v1`
 * and `kubernetes_config_map_v1` resource as the object the hashicorp/kubernetes provider would
 * write — in the stack's `depends_on` order. Terraform expressions in them (`${...}`) are resolved
 * from the same sources the stack reads (another stack's state outputs, a Secret in the management
 * cluster) by a small evaluator that knows exactly the forms pvekaas writes and refuses any other,
 * so nothing is ever applied half-resolved.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface KubeObjectJson {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; [key: string]: unknown };
  [key: string]: unknown;
}

/** One resource of a stack that becomes one object. */
export interface StackObject {
  /** Terraform address, e.g. `kubernetes_manifest.cluster_A4C38409`. */
  address: string;
  /** The object with its expressions unresolved. */
  object: KubeObjectJson;
  dependsOn: string[];
}

/** Values the expressions of a stack may read. */
export interface ExpressionSources {
  /** `var.<name>`: the value the apply is given (or the variable's default). */
  variable?(name: string): string;
  /** `data.terraform_remote_state.<name>.outputs.<output>`: the other stack's state outputs. */
  remoteStateOutputs(dataName: string): Record<string, unknown>;
  /** `data.kubernetes_secret_v1.<name>.data`: the Secret's data, decoded, as the provider returns it. */
  secretData(namespace: string, name: string): Promise<Record<string, string>>;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Resource types the twin applies, and how each becomes an object. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a synthesized cdk.tf.json block: untyped JSON read by path, as tofu reads it
const CONVERTERS: Record<string, (r: Record<string, any>) => KubeObjectJson> = {
  kubernetes_manifest: (r) => r.manifest,
  kubernetes_namespace_v1: (r) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: r.metadata }),
  kubernetes_secret_v1: (r) => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: r.metadata,
    ...(r.type ? { type: r.type } : {}),
    // The provider base64-encodes `data` itself: it is plain text in the configuration.
    ...(r.data !== undefined ? { stringData: r.data } : {}),
  }),
  kubernetes_config_map_v1: (r) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: r.metadata, ...(r.data !== undefined ? { data: r.data } : {}) }),
};

/** Resource types a stack may hold that the twin does not apply, and why (reported, never silent). */
export const NOT_APPLIED: Record<string, string> = {
  helm_release:
    'Helm releases install the controllers, which the twin runs as processes built from their Go modules (test/helm installs the releases themselves)',
  kubernetes_job_v1: 'no container runtime: the providers-ready Job waits for controllers that the twin starts itself',
  kubernetes_service_account_v1: 'belongs to the providers-ready Job',
  kubernetes_cluster_role_v1: 'belongs to the providers-ready Job',
  kubernetes_cluster_role_binding_v1: 'belongs to the providers-ready Job',
  kubernetes_cron_job_v1: 'no container runtime: etcd backups',
};

export interface StackContents {
  stack: string;
  objects: StackObject[];
  /** Resources not applied, by type, with the reason. */
  skipped: { address: string; reason: string }[];
  /** The raw configuration (for data sources and helm values). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a synthesized cdk.tf.json block: untyped JSON read by path, as tofu reads it
  config: Record<string, any>;
}

export function readStack(out: string, stack: string): StackContents {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a synthesized cdk.tf.json block: untyped JSON read by path, as tofu reads it
  const config = JSON.parse(readFileSync(join(out, 'stacks', stack, 'cdk.tf.json'), 'utf8')) as Record<string, any>;
  const objects: StackObject[] = [];
  const skipped: { address: string; reason: string }[] = [];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a synthesized cdk.tf.json block: untyped JSON read by path, as tofu reads it
  for (const [type, resources] of Object.entries((config.resource ?? {}) as Record<string, Record<string, any>>)) {
    for (const [name, r] of Object.entries(resources)) {
      const address = `${type}.${name}`;
      const convert = CONVERTERS[type];
      if (convert) objects.push({ address, object: convert(r), dependsOn: r.depends_on ?? [] });
      else if (NOT_APPLIED[type]) skipped.push({ address, reason: NOT_APPLIED[type] });
      else throw new Error(`${stack}: resource type ${type} (${address}) is neither applied by the twin nor listed as not applied`);
    }
  }
  return { stack, objects: dependencyOrder(stack, objects), skipped, config };
}

/** Topological order by `depends_on`, ties by address (stable). Dependencies on skipped resources are dropped. */
function dependencyOrder(stack: string, objects: StackObject[]): StackObject[] {
  const byAddress = new Map(objects.map((o) => [o.address, o]));
  const done = new Set<string>();
  const visiting = new Set<string>();
  const ordered: StackObject[] = [];
  const visit = (o: StackObject) => {
    if (done.has(o.address)) return;
    if (visiting.has(o.address)) throw new Error(`${stack}: dependency cycle through ${o.address}`);
    visiting.add(o.address);
    for (const dep of [...o.dependsOn].sort()) {
      const d = byAddress.get(dep);
      if (d) visit(d);
    }
    visiting.delete(o.address);
    done.add(o.address);
    ordered.push(o);
  };
  for (const o of [...objects].sort((a, b) => a.address.localeCompare(b.address))) visit(o);
  return ordered;
}

/** Resolves every `${...}` in a value; a string that is exactly one interpolation takes the value's type. */
export async function resolveExpressions(value: unknown, stack: StackContents, sources: ExpressionSources): Promise<unknown> {
  if (typeof value === 'string') {
    const unescape = (t: string) => t.replace(/\$\$\{/g, '${').replace(/%%\{/g, '%{');
    const next = (t: string) => {
      for (let at = t.indexOf('${'); at >= 0; at = t.indexOf('${', at + 2)) if (at === 0 || t[at - 1] !== '$') return at;
      return -1;
    };
    if (next(value) < 0) return unescape(value);
    const whole = /^\$\{([\s\S]*)\}$/.exec(value);
    if (whole && !whole[1].includes('${')) return evaluate(parse(whole[1], stack.stack), stack, sources);
    const parts: string[] = [];
    let rest = value;
    for (;;) {
      const at = next(rest);
      if (at < 0) break;
      parts.push(unescape(rest.slice(0, at)));
      const end = matchingBrace(rest, at + 2, stack.stack);
      parts.push(String(await evaluate(parse(rest.slice(at + 2, end), stack.stack), stack, sources)));
      rest = rest.slice(end + 1);
    }
    parts.push(unescape(rest));
    return parts.join('');
  }
  if (Array.isArray(value)) return Promise.all(value.map((v) => resolveExpressions(v, stack, sources)));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = await resolveExpressions(v, stack, sources);
    return out;
  }
  return value;
}

function matchingBrace(s: string, from: number, stack: string): number {
  let depth = 1;
  let inString = false;
  for (let i = from; i < s.length; i++) {
    const c = s[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i;
  }
  throw new Error(`${stack}: unterminated interpolation in ${JSON.stringify(s.slice(0, 80))}`);
}

type Expr =
  { kind: 'string'; value: string } | { kind: 'number'; value: number } | { kind: 'ref'; path: string[] } | { kind: 'call'; name: string; args: Expr[] };

/** The expression forms pvekaas writes: string and number literals, references, function calls. */
function parse(text: string, stack: string): Expr {
  let i = 0;
  const fail = (what: string): never => {
    throw new Error(`${stack}: the twin cannot evaluate \${${text}} (${what} at ${i}); teach twin/stack-objects.ts this form`);
  };
  const ws = () => {
    while (i < text.length && /\s/.test(text[i])) i++;
  };
  const expr = (): Expr => {
    ws();
    if (text[i] === '"') {
      let value = '';
      i++;
      while (i < text.length && text[i] !== '"') {
        if (text[i] === '\\') {
          i++;
          value += { n: '\n', t: '\t', '"': '"', '\\': '\\' }[text[i]] ?? fail('escape');
        } else value += text[i];
        i++;
      }
      if (text[i] !== '"') fail('unterminated string');
      i++;
      return { kind: 'string', value };
    }
    const number = /^-?\d+(\.\d+)?/.exec(text.slice(i));
    if (number) {
      i += number[0].length;
      return { kind: 'number', value: Number(number[0]) };
    }
    const ident = /^[A-Za-z_][A-Za-z0-9_-]*/.exec(text.slice(i));
    if (!ident) return fail('unexpected character');
    i += ident[0].length;
    ws();
    if (text[i] === '(') {
      i++;
      const args: Expr[] = [];
      ws();
      while (text[i] !== ')') {
        args.push(expr());
        ws();
        if (text[i] === ',') i++;
        else if (text[i] !== ')') fail('expected , or )');
      }
      i++;
      return { kind: 'call', name: ident[0], args };
    }
    const path = [ident[0]];
    for (;;) {
      if (text[i] === '.') {
        i++;
        const part = /^[A-Za-z0-9_-]+/.exec(text.slice(i));
        if (!part) fail('bad reference');
        path.push(part![0]);
        i += part![0].length;
      } else if (text[i] === '[') {
        // An index: ["key"] or [0].
        i++;
        const key = expr();
        ws();
        if (text[i] !== ']' || (key.kind !== 'string' && key.kind !== 'number')) fail('bad index');
        i++;
        path.push(String((key as { value: string | number }).value));
      } else break;
    }
    return { kind: 'ref', path };
  };
  const result = expr();
  ws();
  if (i !== text.length) fail('trailing text');
  return result;
}

async function evaluate(e: Expr, stack: StackContents, sources: ExpressionSources): Promise<Json> {
  switch (e.kind) {
    case 'string':
    case 'number':
      return e.value;
    case 'call': {
      const args = await Promise.all(e.args.map((a) => evaluate(a, stack, sources)));
      if (e.name === 'split' && typeof args[0] === 'string' && typeof args[1] === 'string') return args[1].split(args[0]);
      if (e.name === 'element' && Array.isArray(args[0]) && typeof args[1] === 'number') return args[0][args[1] % args[0].length];
      if (e.name === 'jsonencode') return JSON.stringify(args[0]);
      if (e.name === 'base64encode' && typeof args[0] === 'string') return Buffer.from(args[0]).toString('base64');
      throw new Error(`${stack.stack}: the twin does not evaluate the function ${e.name}(${args.map((a) => typeof a).join(', ')})`);
    }
    case 'ref': {
      const [root, type, name, attribute, ...rest] = e.path;
      if (root === 'var' && e.path.length === 2 && sources.variable) return sources.variable(type);
      if (root === 'data' && type === 'terraform_remote_state' && attribute === 'outputs') {
        const outputs = sources.remoteStateOutputs(name);
        const [output, ...deeper] = rest;
        if (!(output in outputs)) throw new Error(`${stack.stack}: remote state ${name} has no output ${output}`);
        return dig(outputs[output] as Json, deeper, e.path.join('.'));
      }
      if (root === 'data' && type === 'kubernetes_secret_v1' && attribute === 'data') {
        const data = stack.config.data?.kubernetes_secret_v1?.[name];
        if (!data) throw new Error(`${stack.stack}: no data source kubernetes_secret_v1.${name}`);
        const md = (await resolveExpressions(data.metadata, stack, sources)) as { name: string; namespace: string };
        return dig((await sources.secretData(md.namespace, md.name)) as Json, rest, e.path.join('.'));
      }
      throw new Error(`${stack.stack}: the twin cannot resolve the reference ${e.path.join('.')}`);
    }
  }
}

function dig(value: Json, path: string[], what: string): Json {
  let v: Json = value;
  for (const p of path) {
    if (v === null || typeof v !== 'object' || Array.isArray(v) || !(p in v)) throw new Error(`cannot resolve ${what}: no ${p}`);
    v = (v as Record<string, Json>)[p];
  }
  return v;
}

/**
 * What a resource depends on, as OpenTofu records it in state and walks it on destroy: its
 * `depends_on` and every resource its configuration references in a `${...}` expression
 * (e.g. `${kubernetes_manifest.namespace.object.metadata.name}`), among the stack's resources.
 */
export function resourceDependencies(stack: StackContents, address: string): string[] {
  const [type, name] = address.split('.');
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a synthesized cdk.tf.json block: untyped JSON read by path, as tofu reads it
  const config = (stack.config.resource?.[type]?.[name] ?? {}) as Record<string, any>;
  const known = new Set(Object.entries((stack.config.resource ?? {}) as Record<string, object>).flatMap(([t, rs]) => Object.keys(rs).map((n) => `${t}.${n}`)));
  const deps = new Set<string>(((config.depends_on ?? []) as string[]).filter((d) => known.has(d)));
  const { depends_on: _explicit, ...rest } = config;
  for (const expression of JSON.stringify(rest).match(/\$\{[^}]*\}/g) ?? []) {
    for (const m of expression.matchAll(/\b([a-z][a-z0-9_]*)\.([A-Za-z0-9_-]+)/g)) {
      const ref = `${m[1]}.${m[2]}`;
      if (ref !== address && known.has(ref)) deps.add(ref);
    }
  }
  return [...deps].sort();
}
