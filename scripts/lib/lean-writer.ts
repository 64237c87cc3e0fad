/**
 * The lean writer: a tenant stack's Terraform JSON written from its rendering, without cdktf's
 * runtime (no construct tree, no token resolution, no provider bindings loaded).
 *
 * cdktf stays the user's API (`cdktf synth|diff|deploy` build stacks/tenant-stack.ts) and the
 * reference: this file writes what cdktf 0.21 writes for that construct tree, element by element
 * — the same logical ids (cdktf's `makeUniqueId`: the path under the stack, an MD5 suffix), the
 * same `//` metadata blocks (each element's construct path and id, the stack's backend, name,
 * version and outputs), the same provider, backend, variable and output blocks — serialized with
 * the json-stable-stringify cdktf itself uses, so the bytes are cdktf's.
 * test/synth/lean-writer.test.ts compares the two over random labs (fast-check).
 *
 * Anything it does not write gives `undefined`, and the stack goes through cdktf: HCL output, a
 * Terraform Cloud backend, and any text cdktf would read as a token (a `{TfToken[` marker, a map
 * token's value, a number-token-tagged number, a non-plain object), whose resolution is cdktf's.
 * When the tenant stack (stacks/tenant-stack.ts) or its constructs change, this file changes with
 * them; the property test fails until it does.
 */
import { createHash } from 'node:crypto';
import { dirname } from 'node:path';
import type { Delivery, Management } from '../../modules/config/schema';
import {
  MANAGEMENT_CA_VARIABLE,
  MANAGEMENT_TOKEN_VARIABLE,
  SECONDARY_AUTOSCALED_COMPUTED_FIELDS,
  helmValues,
  literalManifest,
} from '../../modules/config/terraform-literal';
import type { TenantRendering } from '../../modules/tenants';
import { resolveToolchain } from '../../modules/versions';

/**
 * The provider pins cdktf writes into `required_providers`: each binding's provider release, which
 * is the toolchain's pin (test/versions holds the bindings and the pins equal; the lean writer's
 * property test compares the bytes with cdktf's).
 */
const pinnedProviders = resolveToolchain().providers;
export const REQUIRED_PROVIDERS = {
  kubernetes: { source: 'kubernetes', version: pinnedProviders.kubernetes.version },
  helm: { source: 'helm', version: pinnedProviders.helm.version },
};

/** cdktf's version (manifest.json and each stack's metadata), read from its package.json without loading cdktf. */
export function cdktfVersion(): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require(`${dirname(require.resolve('cdktf'))}/../package.json`) as { version: string }).version;
}

/** cdktf's `makeUniqueId` (lib/private/unique.js): the logical id of the element at `components` under its stack. */
export function makeUniqueId(components: string[]): string {
  components = components.filter((x) => x !== 'Default');
  const clean = (s: string) => s.replace(/[^A-Za-z0-9_-]/g, '');
  if (components.length === 1) {
    const candidate = clean(components[0]);
    if (candidate.length <= 255) return candidate;
  }
  const hash = createHash('md5').update(components.join('/')).digest('hex').slice(0, 8).toUpperCase();
  const human: string[] = [];
  for (const c of components) if (human.length === 0 || !human[human.length - 1].endsWith(c)) human.push(c);
  return `${human
    .filter((x) => x !== 'Resource')
    .map(clean)
    .join('_')
    .slice(0, 240)}_${hash}`;
}

/**
 * `json-stable-stringify(value, { space: 2 })` (1.3, the one cdktf writes its files with), for
 * plain JSON data (what `plain` returns, or JSON.parse's): keys sorted by UTF-16 code units, two
 * spaces per level, an empty array or object as its brackets on two lines, `undefined` skipped in
 * objects and written `null` in arrays. About a third of its time (it binds, sorts and copies per
 * node); test/synth/lean-writer.test.ts compares the two on random JSON.
 */
export function stableStringify(value: unknown): string {
  return stableAt(value, 0) ?? 'undefined';
}
const INDENTS: string[] = [];
const indentOf = (level: number) => (INDENTS[level] ??= `\n${'  '.repeat(level)}`);
function stableAt(node: unknown, level: number): string | undefined {
  if (node === undefined || typeof node === 'function' || typeof node === 'symbol') return undefined;
  if (typeof node !== 'object' || node === null) return JSON.stringify(node);
  const indent = indentOf(level);
  const inner = indentOf(level + 1);
  let out = '';
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) out += `${i === 0 ? '' : ','}${inner}${stableAt(node[i], level + 1) ?? 'null'}`;
    return `[${out}${indent}]`;
  }
  const record = node as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  let first = true;
  for (const key of keys) {
    const v = stableAt(record[key], level + 1);
    if (v === undefined) continue;
    out += `${first ? '' : ','}${inner}${JSON.stringify(key)}: ${v}`;
    first = false;
  }
  return `{${out}${indent}}`;
}

/** What the lean writer gives for a stack: its cdk.tf.json object and its entry in manifest.json. */
export interface LeanStack {
  json: Record<string, unknown>;
  manifest: Record<string, unknown>;
}

export interface LeanTenantOptions {
  /** How Terraform reaches the management cluster (`management.kubernetes`). */
  access: Management['kubernetes'];
  delivery: Delivery;
  stateDirFromStack: string;
  /** cdktf's version (`cdktfVersion()`). */
  version: string;
}

/** cdktf's tags of a token-encoded double, its map-token values (lib/tokens): text cdktf would resolve. */
const MAP_TOKEN_STRINGS = new Set(['String Map Token Value', 'Any Map Token Value']);
const NUMBER_TOKEN = /[-|\d|.+]+(e[-|\d|.|e|E|+]+)/g;
const float = new Float64Array(1);
const words = new Uint32Array(float.buffer);
function taggedNumber(n: number): boolean {
  if (n === -123456789) return true;
  float[0] = n;
  const tag = words[1] >>> 16;
  return tag === 0xfdff || tag === 0xfbff;
}
/** Whether cdktf's resolver would change a string (else it writes it as it is). */
function tokenText(s: string): boolean {
  if (s.includes('{TfToken[') || MAP_TOKEN_STRINGS.has(s)) return true;
  if (!s.includes('e')) return false;
  for (const m of s.matchAll(NUMBER_TOKEN)) if (taggedNumber(parseFloat(m[0]))) return true;
  return false;
}

/** A plain object: its prototype is `Object.prototype`, this realm's or another's (a `vm` context's: jest's, `structuredClone`'s). */
function plainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value) as object | null;
  if (proto === Object.prototype) return true;
  return proto !== null && Object.getPrototypeOf(proto) === null && (proto as { constructor?: { name?: string } }).constructor?.name === 'Object';
}

/**
 * Plain data as cdktf resolves it: `undefined` dropped from arrays and objects, everything else
 * as it is; `undefined` (for a fallback to cdktf) where cdktf's resolver would do more than that.
 */
const NOT_PLAIN = Symbol('not plain');
function plain(value: unknown): unknown {
  switch (typeof value) {
    case 'string':
      return tokenText(value) ? NOT_PLAIN : value;
    case 'number':
      return taggedNumber(value) ? NOT_PLAIN : value;
    case 'boolean':
      return value;
    case 'object': {
      if (value === null) return null;
      if (Array.isArray(value)) {
        const out: unknown[] = [];
        for (const x of value) {
          if (x === undefined) continue;
          const v = plain(x);
          if (v === NOT_PLAIN) return NOT_PLAIN;
          out.push(v);
        }
        return out;
      }
      if (!plainObject(value)) return NOT_PLAIN;
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(value)) {
        if (x === undefined) continue;
        if (tokenText(k)) return NOT_PLAIN;
        const v = plain(x);
        if (v === NOT_PLAIN) return NOT_PLAIN;
        out[k] = v;
      }
      return out;
    }
    default:
      return NOT_PLAIN;
  }
}

/**
 * The tenant stack `stackName` (stacks/tenant-stack.ts) as cdktf writes it, or `undefined` where
 * cdktf must write it (see the file's comment).
 */
export function leanTenantStack(stackName: string, rendering: TenantRendering, o: LeanTenantOptions): LeanStack | undefined {
  if (o.delivery.backend === 'cloud' && o.delivery.cloud) return undefined;
  const resource: Record<string, Record<string, unknown>> = {};
  const data: Record<string, Record<string, unknown>> = {};
  const output: Record<string, unknown> = {};
  const outputIds: Record<string, string> = {};

  /** An element's logical id and `//` block; `type.id` is how others depend on it. */
  const element = (path: string[]) => {
    const id = makeUniqueId(path);
    return { id, meta: { metadata: { path: [stackName, ...path].join('/'), uniqueId: id } } };
  };
  const addResource = (type: string, path: string[], attributes: Record<string, unknown>): string => {
    const { id, meta } = element(path);
    (resource[type] ??= {})[id] = { ...attributes, '//': meta };
    return `${type}.${id}`;
  };
  interface ManifestOptions {
    dependsOn?: string[];
    fieldManager?: { name: string };
    wait?: { condition: { type: string; status: string }[] };
    timeouts?: { create?: string; update?: string; delete?: string };
    computedFields?: string[];
    createBeforeDestroy?: boolean;
  }
  /** A KubernetesManifest (constructs/providers/kubernetes-manifest.ts). */
  const manifest = (path: string[], object: unknown, m: ManifestOptions = {}): string =>
    addResource('kubernetes_manifest', path, {
      computed_fields: m.computedFields,
      field_manager: m.fieldManager ? { name: m.fieldManager.name } : undefined,
      manifest: literalManifest(object),
      timeouts: m.timeouts ? { create: m.timeouts.create, delete: m.timeouts.delete, update: m.timeouts.update } : undefined,
      wait: m.wait ? { condition: m.wait.condition.map((c) => ({ status: c.status, type: c.type })) } : undefined,
      depends_on: m.dependsOn,
      lifecycle: m.createBeforeDestroy ? { create_before_destroy: true } : undefined,
    });
  const addOutput = (name: string, value: unknown, description: string) => {
    output[name] = { value, description };
    outputIds[name] = makeUniqueId([name]);
  };

  const { tenant } = rendering;
  // ManagementClusterProviders (constructs/management-cluster-providers.ts), with helm.
  const variable: Record<string, unknown> = {};
  let connection: Record<string, unknown>;
  if ('host' in o.access) {
    variable[MANAGEMENT_CA_VARIABLE] = { description: 'PEM CA certificate of the management cluster API server', sensitive: true, type: 'string' };
    variable[MANAGEMENT_TOKEN_VARIABLE] = { description: 'bearer token for the management cluster', sensitive: true, type: 'string' };
    connection = {
      cluster_ca_certificate: `\${var.${MANAGEMENT_CA_VARIABLE}}`,
      host: o.access.host,
      token: `\${var.${MANAGEMENT_TOKEN_VARIABLE}}`,
    };
  } else {
    connection = { config_context: o.access.context || undefined, config_path: o.access.configPath };
  }

  // TenantStack (stacks/tenant-stack.ts), in its order.
  const namespace = manifest(['namespace'], rendering.namespace);
  const credentials = rendering.credentials.map((copy) => {
    const dir = `credentials-${copy.instance}`;
    const source = element([dir, 'source']);
    data.kubernetes_secret_v1 ??= {};
    data.kubernetes_secret_v1[source.id] = { metadata: { name: copy.source.name, namespace: copy.source.namespace }, '//': source.meta };
    const lookup = (key: string) => `\${data.kubernetes_secret_v1.${source.id}.data.${key}}`;
    return addResource('kubernetes_secret_v1', [dir, 'copy'], {
      data: { url: lookup('url'), token: lookup('token'), secret: lookup('secret'), ...copy.tlsData },
      metadata: { labels: copy.labels, name: copy.target.name, namespace: copy.target.namespace },
      type: 'Opaque',
      depends_on: [namespace],
    });
  });
  const role = manifest(['access', 'role'], rendering.role, { dependsOn: [namespace] });
  if (rendering.roleBinding) manifest(['access', 'role-binding'], rendering.roleBinding, { dependsOn: [namespace, role] });
  const cni = manifest([`cni-${tenant.cni}`, 'proxy'], rendering.cniProxy, { dependsOn: [namespace] });
  let authentication: string | undefined;
  if (rendering.identity) {
    const identity = rendering.identity;
    authentication = manifest(['identity', 'authentication'], identity.authentication, { dependsOn: [namespace] });
    const access = manifest(['identity', 'access'], identity.access, { dependsOn: [namespace] });
    manifest(['identity', 'resource-set'], identity.resourceSet, { dependsOn: [namespace, access] });
  }
  const cluster = manifest(['cluster', 'cluster'], rendering.cluster, {
    fieldManager: { name: 'pvekaas' },
    wait: { condition: [{ type: 'ControlPlaneInitialized', status: 'True' }] },
    timeouts: { create: '30m', update: '30m', delete: '60m' },
    dependsOn: [namespace, ...credentials, cni, ...(authentication ? [authentication] : [])],
  });
  const machineDeployments: string[] = [];
  if (rendering.secondaries) {
    // TenantSecondaries (constructs/tenant-secondaries.ts).
    const s = rendering.secondaries;
    const at = (id: string) => ['secondaries', id];
    const account = manifest(at('mirror-service-account'), s.mirror.serviceAccount, { dependsOn: [namespace] });
    const mirrorRole = manifest(at('mirror-role'), s.mirror.role, { dependsOn: [namespace] });
    const binding = manifest(at('mirror-role-binding'), s.mirror.roleBinding, { dependsOn: [account, mirrorRole] });
    manifest(at('mirror-cron-job'), s.mirror.cronJob, { dependsOn: [binding, cluster] });
    const credentialsOf = new Map(rendering.credentials.map((copy, i) => [copy.instance, credentials[i]]));
    for (const sc of s.clusters) {
      const after = [namespace, cluster, ...(credentialsOf.has(sc.instance) ? [credentialsOf.get(sc.instance)!] : [])];
      const controlPlane = manifest(at(`${sc.instance}-control-plane`), sc.controlPlane, { dependsOn: after });
      const proxmoxCluster = manifest(at(`${sc.instance}-proxmox-cluster`), sc.proxmoxCluster, { dependsOn: after });
      const secondary = manifest(at(`${sc.instance}-cluster`), sc.cluster, {
        fieldManager: { name: 'pvekaas' },
        wait: { condition: [{ type: 'ControlPlaneInitialized', status: 'True' }] },
        timeouts: { create: '10m', update: '10m', delete: '60m' },
        dependsOn: [controlPlane, proxmoxCluster],
      });
      for (const md of sc.machineDeployments) {
        const key = `${sc.instance}-${md.name}`;
        const templates = [
          manifest(at(`${key}-bootstrap-template`), md.bootstrapTemplate, { createBeforeDestroy: true, dependsOn: [secondary] }),
          manifest(at(`${key}-machine-template`), md.machineTemplate, { createBeforeDestroy: true, dependsOn: [secondary] }),
        ];
        machineDeployments.push(
          manifest(at(`${key}-machine-deployment`), md.machineDeployment, {
            fieldManager: { name: 'pvekaas' },
            computedFields: md.plan.scale.kind === 'autoscaled' ? [...SECONDARY_AUTOSCALED_COMPUTED_FIELDS] : undefined,
            timeouts: { delete: '60m' },
            dependsOn: templates,
          }),
        );
        manifest(at(`${key}-health-check`), sc.healthChecks.get(md.name)!, { dependsOn: [secondary] });
      }
    }
  }
  if (rendering.storage) {
    // TenantStorage (constructs/tenant-storage.ts).
    const st = rendering.storage;
    const after = [namespace, ...credentials];
    const config = manifest(['storage', 'config'], st.management.config, { dependsOn: after });
    const account = manifest(['storage', 'service-account'], st.management.serviceAccount, { dependsOn: after });
    manifest(['storage', 'controller'], st.management.controller, { dependsOn: [...after, config, account] });
    const resources = manifest(['storage', 'tenant-resources'], st.resources, { dependsOn: after });
    manifest(['storage', 'resource-set'], st.resourceSet, { dependsOn: [...after, resources] });
  }
  if (rendering.autoscaler) {
    // TenantAutoscaler (constructs/tenant-autoscaler.ts).
    const a = rendering.autoscaler;
    addResource('helm_release', ['autoscaler', 'release'], {
      chart: a.chart.chart,
      name: a.name,
      namespace: a.namespace,
      repository: a.repository,
      timeout: 600,
      values: [helmValues(a.values)],
      version: a.chart.version,
      wait: true,
      depends_on: [cluster, ...machineDeployments],
    });
  }

  addOutput(
    'vip',
    rendering.vip.vip,
    `control-plane VIP of tenant ${tenant.name} (${rendering.vip.source === 'allocated' ? 'allocated from the load-balancer pool' : 'from the description'})`,
  );
  addOutput('placement', rendering.placement, 'instance and nodes of each machine deployment');
  addOutput(
    'clusters',
    rendering.clusters,
    'the CAPI Clusters of the tenant per instance: the primary (control plane and its workers) and a secondary per other instance',
  );
  addOutput('kubeconfig_command', rendering.kubeconfigCommand, "writes the tenant's admin kubeconfig to a file (needs read access to the kubeconfig Secret)");
  if (rendering.identity) {
    const identity = rendering.identity;
    addOutput(
      'oidc_kubeconfig',
      JSON.stringify(identity.kubeconfig, null, 2),
      `the kubeconfig people log in with through the lab's identity provider (kubelogin); it names the CA file ${identity.caFile} beside it and holds no secret`,
    );
    addOutput(
      'oidc_ca_command',
      rendering.caFileCommand,
      `writes ${identity.caFile}, the public certificate of the tenant API server's CA, beside the people's kubeconfig (needs read access to the <cluster>-ca Secret)`,
    );
    addOutput(
      'oidc_access',
      identity.groups,
      "the identity provider's groups bound in the tenant cluster: admins to cluster-admin, editors to edit, viewers to view",
    );
  }

  const stack: Record<string, unknown> = {
    '//': { metadata: { backend: 'local', stackName, version: o.version }, outputs: { [stackName]: outputIds } },
    terraform: {
      backend: { local: { path: `${o.stateDirFromStack}/${stackName}.tfstate` } },
      required_providers: { helm: REQUIRED_PROVIDERS.helm, kubernetes: REQUIRED_PROVIDERS.kubernetes },
    },
    provider: { helm: [{ kubernetes: connection }], kubernetes: [connection] },
    resource,
    ...(Object.keys(data).length > 0 ? { data } : {}),
    ...(Object.keys(variable).length > 0 ? { variable } : {}),
    output,
  };
  const json = plain(stack);
  if (json === NOT_PLAIN) return undefined;
  return {
    json: json as Record<string, unknown>,
    manifest: {
      annotations: [],
      constructPath: stackName,
      dependencies: ['management-config'],
      name: stackName,
      stackMetadataPath: `stacks/${stackName}/metadata.json`,
      synthesizedStackPath: `stacks/${stackName}/cdk.tf.json`,
      workingDirectory: `stacks/${stackName}`,
    },
  };
}
