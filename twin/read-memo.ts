/**
 * What a played controller reads in one pass, read once (docs/development.md, "Where the time goes").
 *
 * A real controller reads from its informer cache and writes only what changes: controller-runtime's
 * `controllerutil.CreateOrUpdate` skips the update when the mutated object equals what it read, and
 * Kamaji's and the CAPI providers' resource handlers are built on it. The twin's players run one
 * pass a second; reading every object with a GET and writing every object on every pass made the
 * management kube-apiserver spend a third of its CPU on requests that changed nothing (its pprof:
 * `GuaranteedUpdate` of status patches that stored nothing, and the x509 check of each request).
 *
 * `ReadMemo` is the pass's view: each object is read once per pass (or from a list the pass already
 * made), a write's answer replaces what was read, and `clear()` starts the next pass. Like an
 * informer's cache it can be a moment behind other writers; the next pass reads again. The pure
 * helpers say whether a write would change anything, with the semantics of the write it stands for.
 */
import type { KubeClient, KubeObject } from '../scripts/lib/kube-apiserver';
import { sendLikeClientGo } from './manifest-applier';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- unstructured objects read by path
type Obj = KubeObject & { spec?: any; status?: any; data?: Record<string, string> };

/** The path of one item of a list read at `listPath` (`/api/v1/secrets`, `/apis/g/v/namespaces/ns/things`). */
export function itemPath(listPath: string, item: Pick<KubeObject, 'metadata'>): string {
  const path = listPath.split('?')[0];
  const m = /^(\/api\/[^/]+|\/apis\/[^/]+\/[^/]+)(?:\/namespaces\/[^/]+)?\/([^/]+)$/.exec(path);
  if (!m) throw new Error(`not a list path: ${listPath}`);
  const ns = item.metadata.namespace;
  return `${m[1]}${ns ? `/namespaces/${ns}` : ''}/${m[2]}/${item.metadata.name}`;
}

/** The namespaced list path an object path belongs to, for the kinds read by list (`/api/v1/namespaces/ns/secrets`). */
function collectionOf(path: string): string {
  return path.slice(0, path.lastIndexOf('/'));
}

export class ReadMemo {
  private readonly objects = new Map<string, { at: number; object: Obj | undefined }>();
  private readonly lists = new Map<string, { at: number; items: Obj[] }>();
  /**
   * `byList`: resources read a namespace at a time (one LIST per namespace and pass instead of a GET
   * per object), e.g. `secrets`: a control plane pass reads four of them. `maxAgeMs`: what was read
   * longer ago is read again, also within a pass (a pass that waited for a tenant API server to
   * start reads afresh), so players that share the memo without clearing it see at most that old.
   */
  constructor(
    private readonly client: KubeClient,
    private readonly byList: readonly string[] = [],
    private readonly maxAgeMs = 1000,
  ) {}

  clear(): void {
    this.objects.clear();
    this.lists.clear();
  }

  private fresh<T extends { at: number }>(entry: T | undefined): entry is T {
    return entry !== undefined && Date.now() - entry.at <= this.maxAgeMs;
  }

  /** The object at `path`, undefined when it does not exist; other answers throw. */
  async get(path: string): Promise<Obj | undefined> {
    const known = this.objects.get(path);
    if (this.fresh(known)) return known.object;
    const collection = collectionOf(path);
    const resource = collection.slice(collection.lastIndexOf('/') + 1);
    if (this.byList.includes(resource) && collection.includes('/namespaces/')) {
      await this.list(collection);
      const listed = this.objects.get(path);
      if (this.fresh(listed)) return listed.object;
      this.objects.set(path, { at: this.lists.get(collection)!.at, object: undefined });
      return undefined;
    }
    const r = await this.read(path);
    if (r.status === 404) {
      this.objects.set(path, { at: Date.now(), object: undefined });
      return undefined;
    }
    if (r.status !== 200) throw new Error(`GET ${path}: HTTP ${r.status}: ${r.body?.message ?? r.text}`);
    this.objects.set(path, { at: Date.now(), object: r.body as Obj });
    return r.body as Obj;
  }

  /** The items at `listPath` (no query): listed once per pass, every item kept for the pass. */
  async list(listPath: string): Promise<Obj[]> {
    const known = this.lists.get(listPath);
    if (this.fresh(known)) return known.items;
    const r = await this.read(listPath);
    if (r.status !== 200) throw new Error(`listing ${listPath}: HTTP ${r.status}: ${r.body?.message ?? r.text}`);
    const kind = String(r.body.kind ?? '').replace(/List$/, '');
    // A list's items carry no apiVersion and kind of their own.
    const items = ((r.body.items ?? []) as Obj[]).map((item) => ({ ...item, apiVersion: item.apiVersion ?? r.body.apiVersion, kind: item.kind ?? kind }));
    const at = Date.now();
    for (const item of items) this.objects.set(itemPath(listPath, item), { at, object: item });
    this.lists.set(listPath, { at, items });
    return items;
  }

  /**
   * A GET as client-go's REST client sends it (manifest-applier.ts sendLikeClientGo): a 429 or 5xx
   * with Retry-After asked again after it, up to 10 times (e.g. "storage is (re)initializing" while a
   * new CRD's watch cache fills), a reset or EOF asked again after a second.
   */
  private read(path: string): ReturnType<KubeClient['get']> {
    return sendLikeClientGo('GET', () => this.client.get(path));
  }

  /** What a write at `path` (or its status) answered: what the rest of the pass reads. */
  wrote(path: string, object: unknown): void {
    const objectPath = path.replace(/\/status$/, '').split('?')[0];
    this.objects.set(objectPath, { at: Date.now(), object: object as Obj });
    // A list that held the object is read again.
    this.lists.delete(collectionOf(objectPath));
  }

  /** Forgets `path`: the next read asks the API server. */
  forget(path: string): void {
    this.objects.delete(path);
    this.lists.delete(collectionOf(path));
  }
}

/** Deep equality of JSON values, key order ignored (semantic.DeepEqual for decoded JSON). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const y = b as unknown[];
    return a.length === y.length && a.every((v, i) => jsonEqual(v, y[i]));
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const keys = Object.keys(x).filter((k) => x[k] !== undefined);
  if (keys.length !== Object.keys(y).filter((k) => y[k] !== undefined).length) return false;
  return keys.every((k) => Object.prototype.hasOwnProperty.call(y, k) && jsonEqual(x[k], y[k]));
}

/** RFC 7386 JSON merge patch of `target` with `patch` (what a merge-patch+json PATCH stores). */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> = typeof target === 'object' && target !== null && !Array.isArray(target) ? { ...(target as object) } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === undefined) continue;
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

/** Whether a merge patch of `current` with `patch` would store nothing new. */
export function mergePatchUnchanged(current: unknown, patch: unknown): boolean {
  return jsonEqual(mergePatch(current, JSON.parse(JSON.stringify(patch))), current);
}

/**
 * Whether every field `desired` sets already has that value in `current`: a forced server-side
 * apply of `desired` would change no value. Maps compare key by key (other keys may be there,
 * owned by others); lists and scalars compare whole, except that list items are compared the same
 * way item by item (a Service port the server completed with its nodePort still matches).
 */
export function containsAll(desired: unknown, current: unknown): boolean {
  if (desired === undefined) return true;
  if (typeof desired !== 'object' || desired === null) return desired === current;
  if (typeof current !== 'object' || current === null) return false;
  if (Array.isArray(desired)) {
    if (!Array.isArray(current) || current.length !== desired.length) return false;
    return desired.every((v, i) => containsAll(v, current[i]));
  }
  if (Array.isArray(current)) return false;
  const c = current as Record<string, unknown>;
  return Object.entries(desired).every(([k, v]) => containsAll(v, c[k]));
}

/**
 * Whether a forced server-side apply of `desired` would change nothing: every field it sets is
 * there with its value, and a Secret's or ConfigMap's data is exactly the applied data (a key the
 * manager dropped would be removed by the apply).
 */
export function applyUnchanged(desired: KubeObject & { data?: unknown }, current: Obj | undefined): boolean {
  if (!current) return false;
  if (desired.data !== undefined && !jsonEqual(desired.data, current.data ?? {})) return false;
  const { data: _data, ...rest } = desired;
  return containsAll(rest, current);
}
