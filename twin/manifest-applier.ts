/**
 * `kubernetes_manifest` applied as hashicorp/kubernetes 2.38.0 applies it, and planned again as it
 * plans it (the rules, each cited, are in manifest-types.ts). From the provider's source at v2.38.0:
 *
 * - manifest/provider/apply.go: create refuses an object that already exists ("Cannot create resource
 *   that already exists"); the object is server-side applied with `field_manager.name` (default
 *   "Terraform") and `field_manager.force_conflicts` (default false; a conflict is "There was a field
 *   manager conflict when trying to apply the manifest for ..."); the deadline is `timeouts.create`
 *   or `timeouts.update` (default 10m, Go durations; one that does not parse is 0) from before the
 *   PATCH; `wait` is evaluated against it and the object read again after it; delete sends a DELETE
 *   and polls every second until the object is gone or `timeouts.delete` passes ("Timed out when
 *   waiting for resource ... to be deleted").
 * - manifest/provider/waiter.go: `wait.rollout` first (a status viewer: Deployment, DaemonSet,
 *   StatefulSet; any other kind is an error), then `wait.condition` (every listed condition's status
 *   equals the first condition of its type in `status.conditions`), then `wait.fields` (each path's
 *   primitive value matches its regular expression, "*" anything), polled every second; past the
 *   deadline "Operation timed out" / "timed out waiting on <what>".
 * - OpenTofu v1.12.6 internal/tofu/node_resource_abstract_instance.go: an applied value that is not a
 *   valid completion of the planned one is "Provider produced inconsistent result after apply".
 *
 * The twin plans each resource right before applying it (tofu plans the whole stack first: a controller
 * acting in between is not modelled).
 */
import {
  assertCompatible,
  computedPaths,
  parseFieldPath,
  payload,
  planObject,
  resourceType,
  typedLive,
  typeFromSchema,
  withoutServerSideFields,
  type OpenApiSchema,
  type Planned,
  type Step,
  type TfType,
} from './manifest-types';

/** An unstructured object (what the twin reads by path); one reasoned `any`, kept on its own line so formatting cannot move it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an unstructured Kubernetes object read by path, as the controller reads it
type Unstructured = Record<string, any>;

export interface KubeResponseLike {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the API server's JSON for the path asked; the caller reads the kind it asked for
  body: any;
  text: string;
  /** The seconds of the response's Retry-After header, when it had a numeric one. */
  retryAfter?: number;
}

/** What the applier needs of a Kubernetes client (scripts/lib/kube-apiserver.ts KubeClient has it). */
export interface KubeClientLike {
  request(method: string, path: string, body?: unknown, contentType?: string): Promise<KubeResponseLike>;
  get(path: string): Promise<KubeResponseLike>;
  objectPath(object: { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } }): Promise<string>;
}

export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const realClock: Clock = { now: () => Date.now(), sleep: (ms) => new Promise((r) => setTimeout(r, ms)) };

/** The provider polls every second (waiter.go waiterSleepTime, apply.go delete loop). */
export const POLL_MS = 1000;

/** How many times client-go's REST client asks again (client-go v0.36.3 rest/request.go: `maxRetries: 10` in NewRequest). */
export const CLIENT_GO_MAX_RETRIES = 10;

/**
 * One request sent as the provider's client-go REST client sends it (hashicorp/kubernetes 2.38.0
 * talks to the API server through client-go's dynamic client): an answer of 429 or any 5xx with a
 * numeric Retry-After header (API Priority and Fairness throttling, "apiserver is shutting down",
 * "storage is (re)initializing") is waited out and the request sent again, whatever its verb (its body
 * is bytes, so it rewinds), up to CLIENT_GO_MAX_RETRIES times (rest/request.go `checkWait`,
 * rest/with_retry.go `IsNextRetry`); a GET cut by a connection reset or EOF is sent again after a
 * second (request.go `isErrRetryableFunc`: GET only). Any other answer or error is the caller's,
 * as client-go returns it: a 500 without Retry-After (a webhook that timed out) fails the apply.
 */
export async function sendLikeClientGo<T extends KubeResponseLike>(
  verb: string,
  send: () => Promise<T>,
  clock: Clock = realClock,
  maxRetries = CLIENT_GO_MAX_RETRIES,
): Promise<T> {
  for (let retries = 0; ; retries++) {
    let r: T;
    try {
      r = await send();
    } catch (e) {
      const resetOrEof = /ECONNRESET|socket hang up|EOF|socket disconnected/.test((e as Error).message);
      if (verb !== 'GET' || !resetOrEof || retries >= maxRetries) throw e;
      await clock.sleep(1000);
      continue;
    }
    const wait = (r.status === 429 || r.status >= 500) && r.retryAfter !== undefined;
    if (!wait || retries >= maxRetries) return r;
    await clock.sleep(r.retryAfter! * 1000);
  }
}

/** `client` with every request sent as client-go sends it (sendLikeClientGo). */
export function clientGoRest(client: KubeClientLike, clock: Clock = realClock): KubeClientLike {
  return {
    request: (method, path, body, contentType) => sendLikeClientGo(method, () => client.request(method, path, body, contentType), clock),
    get: (path) => sendLikeClientGo('GET', () => client.get(path), clock),
    objectPath: (object) => client.objectPath(object),
  };
}

export interface WaitConfig {
  rollout?: boolean;
  fields?: Record<string, string>;
  condition?: { type: string; status: string }[];
}

/** One `kubernetes_manifest` resource of a stack, its expressions resolved. */
export interface ManifestResource {
  address: string;
  manifest: Record<string, unknown> & { apiVersion: string; kind: string; metadata: { name: string; namespace?: string; [key: string]: unknown } };
  computedFields?: string[];
  fieldManager: { name: string; forceConflicts: boolean };
  wait?: WaitConfig;
  /** Milliseconds. */
  timeouts: { create: number; update: number; delete: number };
  createBeforeDestroy: boolean;
}

/** Go's time.ParseDuration, as the provider calls it: a duration that does not parse is 0. */
export function goDuration(text: string | undefined, fallback: string): number {
  const parse = (t: string): number | undefined => {
    const units: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60000, h: 3600000 };
    if (t === '0') return 0;
    const re = /([0-9]*\.?[0-9]+)(ns|us|µs|ms|s|m|h)/y;
    let total = 0;
    let at = 0;
    while (at < t.length) {
      re.lastIndex = at;
      const m = re.exec(t);
      if (!m) return undefined;
      total += Number(m[1]) * units[m[2]];
      at = re.lastIndex;
    }
    return t.length > 0 ? total : undefined;
  };
  return parse(text !== undefined && text !== '' ? text : fallback) ?? 0;
}

/** A `kubernetes_manifest` block of cdk.tf.json, with its manifest already resolved. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a synthesized cdk.tf.json block: untyped JSON read by path, as tofu reads it
export function manifestResource(address: string, config: Record<string, any>, manifest: ManifestResource['manifest']): ManifestResource {
  const fm = config.field_manager ?? {};
  const t = config.timeouts ?? {};
  const wait = config.wait ?? config.wait_for;
  return {
    address,
    manifest,
    ...(config.computed_fields !== undefined ? { computedFields: config.computed_fields as string[] } : {}),
    fieldManager: { name: fm.name ?? 'Terraform', forceConflicts: fm.force_conflicts === true },
    ...(wait
      ? {
          wait: {
            ...(wait.rollout !== undefined ? { rollout: wait.rollout } : {}),
            ...(wait.fields ? { fields: wait.fields } : {}),
            ...(wait.condition ? { condition: [wait.condition].flat() } : {}),
          },
        }
      : {}),
    timeouts: { create: goDuration(t.create, '10m'), update: goDuration(t.update, '10m'), delete: goDuration(t.delete, '10m') },
    createBeforeDestroy: config.lifecycle?.create_before_destroy === true,
  };
}

/** A diagnostic as OpenTofu shows it: `Error: <summary>` and its detail. */
export class ApplyError extends Error {
  constructor(
    readonly address: string,
    readonly summary: string,
    readonly detail: string,
  ) {
    super(`${address}: Error: ${summary}\n\n${detail}`);
  }
}

/** What state holds for an applied resource. */
export interface AppliedState {
  manifest: ManifestResource['manifest'];
  /** The object as the provider stored it (server-side fields removed). */
  object: Record<string, unknown>;
  path: string;
  /** The resource's configuration when applied (its delete timeout is the one in state). */
  resource: ManifestResource;
}

const PROVIDER = 'provider["registry.opentofu.org/hashicorp/kubernetes"]';

function nn(m: ManifestResource['manifest']): string {
  return m.metadata.namespace ? `${m.metadata.namespace}/${m.metadata.name}` : m.metadata.name;
}

function sameIdentity(a: ManifestResource['manifest'], b: ManifestResource['manifest']): boolean {
  return (
    a.apiVersion === b.apiVersion && a.kind === b.kind && a.metadata.name === b.metadata.name && (a.metadata.namespace ?? '') === (b.metadata.namespace ?? '')
  );
}

function canonicalJson(v: unknown): string {
  const c = (x: unknown): unknown =>
    Array.isArray(x)
      ? x.map(c)
      : x && typeof x === 'object'
        ? Object.fromEntries(
            Object.keys(x)
              .sort()
              .map((k) => [k, c((x as Record<string, unknown>)[k])]),
          )
        : x;
  return JSON.stringify(c(v));
}

export type PlanAction = 'create' | 'update' | 'no-op' | 'replace';

export interface ResourcePlan {
  action: PlanAction;
  /** Why: the attributes that differ (update), or what forces the replacement. */
  changes: string[];
}

type Definitions = Record<string, OpenApiSchema & { 'x-kubernetes-group-version-kind'?: { group: string; version: string; kind: string }[] }>;

/** Where the applier gets a resource's type from. */
export interface TypeSource {
  typeOf(apiVersion: string, kind: string, withStatus?: boolean): Promise<TfType>;
}

/** Types from the API server as the provider reads them: a CRD's schema, else the cluster's OpenAPI v2. */
export class ServerTypes implements TypeSource {
  private definitionsRead?: Promise<unknown>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the API server's JSON for the path asked; the caller reads the kind it asked for
  private crdsRead?: Promise<any[]>;
  private readonly cache = new Map<string, TfType>();

  constructor(private readonly client: KubeClientLike) {}

  private v2(): Promise<Definitions> {
    // One read per applier (the provider caches its foundry too); concurrent callers share it.
    this.definitionsRead ??= this.client.get('/openapi/v2').then((r) => {
      if (r.status !== 200) {
        this.definitionsRead = undefined;
        throw new Error(`cannot get OpenAPI foundry: HTTP ${r.status}`);
      }
      return r.body.definitions as Definitions;
    });
    return this.definitionsRead as Promise<Definitions>;
  }

  private async crdSchema(group: string, version: string, kind: string, refresh: boolean): Promise<OpenApiSchema | undefined> {
    if (!this.crdsRead || refresh) {
      this.crdsRead = this.client.get('/apis/apiextensions.k8s.io/v1/customresourcedefinitions').then((r) => {
        if (r.status !== 200) throw new Error(`failed to look up GVK among available CRDs: HTTP ${r.status}`);
        // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the API server's JSON for the path asked; the caller reads the kind it asked for
        return r.body.items as any[];
      });
    }
    const crds = await this.crdsRead;
    const crd = crds.find((c) => c.spec.group === group && c.spec.names.kind === kind);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the API server's JSON for the path asked; the caller reads the kind it asked for
    return crd?.spec.versions.find((v: any) => v.name === version)?.schema?.openAPIV3Schema;
  }

  /** The resource type (`status` kept only for waiting: apply.go asks with status=true there). */
  async typeOf(apiVersion: string, kind: string, withStatus = false): Promise<TfType> {
    const key = `${apiVersion}/${kind}/${withStatus}`;
    const hit = this.cache.get(key);
    if (hit) return hit;
    const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
    const definitions = await this.v2();
    const meta = typeFromSchema(definitions['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'], definitions);
    let schema = group ? ((await this.crdSchema(group, version, kind, false)) ?? (await this.crdSchema(group, version, kind, true))) : undefined;
    let defs: Record<string, OpenApiSchema> = {};
    if (!schema) {
      schema = Object.values(definitions).find((d) =>
        d['x-kubernetes-group-version-kind']?.some((g) => g.group === group && g.version === version && g.kind === kind),
      );
      defs = definitions;
    }
    if (!schema) throw new Error(`API did not recognize GroupVersionKind from manifest (CRD may not be installed): ${kind} ${apiVersion}`);
    const type = resourceType(typeFromSchema(schema, defs), meta, withStatus);
    this.cache.set(key, type);
    return type;
  }
}

export class ManifestApplier {
  readonly types: TypeSource;

  constructor(
    client: KubeClientLike,
    private readonly clock: Clock = realClock,
    types?: TypeSource,
  ) {
    this.client = clientGoRest(client, clock);
    this.types = types ?? new ServerTypes(this.client);
  }

  private readonly client: KubeClientLike;

  private async live(path: string): Promise<Record<string, unknown> | undefined> {
    const r = await this.client.get(path);
    if (r.status === 404) return undefined;
    if (r.status !== 200) throw new Error(`GET ${path}: HTTP ${r.status}: ${r.body?.message ?? r.text}`);
    return r.body;
  }

  /**
   * What `tofu plan` would do with the resource given its state (undefined: not in state): refresh
   * (an object gone from the cluster leaves state), then the provider's plan compared with the
   * refreshed object.
   */
  async plan(resource: ManifestResource, state?: AppliedState): Promise<ResourcePlan & { live?: Record<string, unknown> }> {
    if (!state) return { action: 'create', changes: [] };
    if (!sameIdentity(state.manifest, resource.manifest))
      return {
        action: 'replace',
        changes: ['manifest.apiVersion, manifest.kind, manifest.metadata.name or manifest.metadata.namespace changed (RequiresReplace)'],
      };
    const live = await this.live(state.path);
    if (!live) return { action: 'create', changes: ['the object is gone from the cluster (refresh removed it from state)'] };
    const type = await this.types.typeOf(resource.manifest.apiVersion, resource.manifest.kind);
    const computed = computedPaths(resource.computedFields);
    const prior = withoutServerSideFields(live);
    const { planned } = planObject({ manifest: resource.manifest, type, computed, prior: { manifest: state.manifest, object: prior } });
    const changes = assertCompatible(planned, typedLive(prior, type));
    if (canonicalJson(state.manifest) !== canonicalJson(resource.manifest)) changes.unshift('manifest: the configuration changed');
    return { action: changes.length > 0 ? 'update' : 'no-op', changes, live };
  }

  /**
   * Applies the resource as `tofu apply` would (create when `state` is undefined, else update), and
   * returns the new state. Throws an ApplyError with the provider's or OpenTofu's text.
   */
  async apply(resource: ManifestResource, state?: AppliedState): Promise<{ state: AppliedState; action: PlanAction; warnings: string[] }> {
    const { address, manifest } = resource;
    const path = await this.client.objectPath(manifest);
    const type = await this.types.typeOf(manifest.apiVersion, manifest.kind);
    const computed = computedPaths(resource.computedFields);
    const plan = await this.plan(resource, state);
    if (plan.action === 'no-op') return { state: { ...state!, resource }, action: 'no-op', warnings: [] };
    if (plan.action === 'replace') throw new Error(`${address}: a replacement is the caller's to order (destroy and create)`);
    const create = plan.action === 'create';
    const prior = !create && plan.live ? { manifest: state!.manifest, object: withoutServerSideFields(plan.live) } : undefined;
    const { planned, warnings } = planObject({ manifest, type, computed, prior });
    const body = payload(planned, manifest, type, computed);
    const deadline = this.clock.now() + (create ? resource.timeouts.create : resource.timeouts.update);
    if (create && (await this.live(path)))
      throw new ApplyError(address, 'Cannot create resource that already exists', `resource "${nn(manifest)}" already exists`);
    const query = new URLSearchParams({ fieldManager: resource.fieldManager.name, force: String(resource.fieldManager.forceConflicts) });
    const r = await this.client.request('PATCH', `${path}?${query}`, body, 'application/apply-patch+yaml');
    if (r.status === 409) {
      throw new ApplyError(
        address,
        `There was a field manager conflict when trying to apply the manifest for "${nn(manifest)}"`,
        `The API returned the following conflict: ${JSON.stringify(r.body?.message ?? r.text)}\n\nYou can override this conflict by setting "force_conflicts" to true in the "field_manager" block.`,
      );
    }
    if (r.status !== 200 && r.status !== 201)
      throw new ApplyError(address, `API response status: ${r.body?.status ?? 'Failure'}`, `${r.body?.message ?? r.text}`);
    let result = r.body as Record<string, unknown>;
    let timedOut: ApplyError | undefined;
    if (resource.wait) {
      const outcome = await this.wait(resource, path, deadline);
      if (outcome) {
        if (outcome.timedOut) timedOut = new ApplyError(address, 'Operation timed out', outcome.message);
        else throw new ApplyError(address, 'Error waiting for operation to complete', outcome.message);
      }
      const again = await this.live(path);
      if (!again) throw new ApplyError(address, `Failed to read resource "${manifest.metadata.name}" after wait conditions`, 'not found');
      result = again;
    }
    const object = withoutServerSideFields(result);
    const newState: AppliedState = { manifest, object, path, resource };
    // The provider returns the new state with the timeout (OpenTofu saves it, a created object tainted).
    if (timedOut) throw Object.assign(timedOut, { state: newState });
    const errors = assertCompatible(planned, typedLive(object, type));
    if (errors.length > 0) throw Object.assign(inconsistentResult(address, errors), { state: newState });
    return { state: newState, action: plan.action, warnings: warnings.map((w) => `${w.path}: ${w.message}`) };
  }

  /** The provider's waiters; undefined when done, else why not. */
  async wait(resource: ManifestResource, path: string, deadline: number): Promise<{ timedOut: boolean; message: string } | undefined> {
    const w = resource.wait!;
    const get = async () => {
      const o = await this.live(path);
      if (!o) throw new Error(`resource ${resource.manifest.metadata.name} not found`);
      return o;
    };
    const loop = async (what: string, done: (o: Unstructured) => Promise<boolean> | boolean): Promise<{ timedOut: boolean; message: string } | undefined> => {
      for (;;) {
        if (this.clock.now() > deadline) return { timedOut: true, message: `timed out waiting on ${what}` };
        let o: Record<string, unknown>;
        try {
          o = await get();
        } catch (e) {
          return { timedOut: false, message: (e as Error).message };
        }
        try {
          if (await done(o)) return undefined;
        } catch (e) {
          return { timedOut: false, message: (e as Error).message };
        }
        await this.clock.sleep(POLL_MS);
      }
    };
    if (w.rollout) return loop('rollout to complete', (o) => rolloutDone(o));
    if (w.condition && w.condition.length > 0) {
      return loop('conditions', (o) => {
        const conditions = (o.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions;
        if (!Array.isArray(conditions) || conditions.length === 0) return false;
        return w.condition!.every((c) => conditions.find((x) => x.type === c.type)?.status === c.status);
      });
    }
    if (!w.fields) return undefined;
    const matchers = Object.entries(w.fields).map(([k, v]) => {
      let re: RegExp;
      try {
        re = v === '*' ? /(.*)?/ : new RegExp(v);
      } catch {
        throw new ApplyError(resource.address, 'Error waiting for operation to complete', `invalid regular expression: ${JSON.stringify(v)}`);
      }
      return { path: parseFieldPath(k), re };
    });
    const type = await this.types.typeOf(resource.manifest.apiVersion, resource.manifest.kind, true);
    return loop('field matchers', (o) => {
      const { managedFields: _m, ...metadata } = (o.metadata ?? {}) as Record<string, unknown>;
      const typed = typedLive({ ...o, metadata }, type);
      for (const m of matchers) {
        const v = walk(typed, m.path);
        // An attribute the type lacks: the provider's matcher fails and it keeps waiting.
        if (v === undefined) return false;
        let s: string;
        if ('null' in v) s = '';
        else if ('value' in v) s = typeof v.value === 'number' ? (Number.isInteger(v.value) ? String(v.value) : v.value.toFixed(6)) : String(v.value);
        else throw new Error(`wait_for: cannot match on type ${'map' in v ? 'map' : 'list' in v ? 'list' : 'object'}`);
        if (!m.re.test(s)) return false;
      }
      return true;
    });
  }

  /** Deletes as the provider does, waiting until the object is gone (the state's delete timeout). */
  async destroy(state: AppliedState): Promise<string[]> {
    const { address, manifest } = state.resource;
    const deadline = this.clock.now() + state.resource.timeouts.delete;
    const r = await this.client.request('DELETE', state.path, { apiVersion: 'v1', kind: 'DeleteOptions' });
    if (r.status === 404) return [`Resource "${manifest.metadata.name}" was already deleted`];
    if (r.status !== 200 && r.status !== 202)
      throw new ApplyError(address, `Error deleting resource ${manifest.metadata.name}: ${r.body?.message ?? r.text}`, `${r.body?.message ?? r.text}`);
    for (;;) {
      if (this.clock.now() > deadline) {
        throw new ApplyError(
          address,
          `Timed out when waiting for resource "${manifest.metadata.name}" to be deleted`,
          'Deletion timed out. This can happen when there is a finalizer on a resource. You may need to delete this resource manually with kubectl.',
        );
      }
      if (!(await this.live(state.path))) return [];
      await this.clock.sleep(POLL_MS);
    }
  }
}

/** OpenTofu's error for an applied value that does not complete the planned one. */
export function inconsistentResult(address: string, errors: string[]): ApplyError {
  return new ApplyError(
    address,
    'Provider produced inconsistent result after apply',
    errors
      .map(
        (e) =>
          `When applying changes to ${address}, provider ${JSON.stringify(PROVIDER)} produced an unexpected new value: ${e}.\n\nThis is a bug in the provider, which should be reported in the provider's own issue tracker.`,
      )
      .join('\n\n'),
  );
}

function walk(v: Planned, path: Step[]): Planned | undefined {
  let cur: Planned = v;
  for (const s of path) {
    if ('attr' in s) {
      if (!('object' in cur)) return undefined;
      cur = cur.object[s.attr] ?? { null: true };
    } else if ('map' in cur && typeof s.key === 'string') cur = cur.map[s.key] ?? ({ null: true } as Planned);
    else if ('list' in cur && typeof s.key === 'number') {
      if (s.key >= cur.list.length) return undefined;
      cur = cur.list[s.key];
    } else return undefined;
  }
  return cur;
}

/**
 * kubectl's status viewers (k8s.io/kubectl/pkg/polymorphichelpers, as the provider's RolloutWaiter
 * uses them): done when the controller observed the spec and every replica is updated and available.
 */
function rolloutDone(o: Unstructured): boolean {
  const kind = `${o.kind}.${String(o.apiVersion).split('/')[0]}`;
  const spec = o.spec ?? {};
  const status = o.status ?? {};
  const observed = (o.metadata?.generation ?? 0) <= (status.observedGeneration ?? -1);
  if (kind === 'Deployment.apps') {
    if (!observed) return false;
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- an unstructured Kubernetes object read by path, as the controller reads it
    const progressing = (status.conditions ?? []).find((c: any) => c.type === 'Progressing');
    if (progressing?.reason === 'ProgressDeadlineExceeded') throw new Error(`deployment "${o.metadata.name}" exceeded its progress deadline`);
    const replicas = spec.replicas ?? 1;
    return (
      (status.updatedReplicas ?? 0) >= replicas &&
      (status.replicas ?? 0) <= (status.updatedReplicas ?? 0) &&
      (status.availableReplicas ?? 0) >= (status.updatedReplicas ?? 0)
    );
  }
  if (kind === 'StatefulSet.apps')
    return observed && (status.readyReplicas ?? 0) >= (spec.replicas ?? 1) && (status.updatedReplicas ?? 0) >= (spec.replicas ?? 1);
  if (kind === 'DaemonSet.apps')
    return (
      observed &&
      (status.updatedNumberScheduled ?? 0) >= (status.desiredNumberScheduled ?? 0) &&
      (status.numberAvailable ?? 0) >= (status.desiredNumberScheduled ?? 0)
    );
  throw new Error(`error getting resource status: no status viewer has been implemented for ${kind}`);
}
