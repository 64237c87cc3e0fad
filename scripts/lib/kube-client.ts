/**
 * A small client for a Kubernetes API server of the test tier or the lab twin
 * (scripts/lib/kube-apiserver.ts): plain HTTPS with the admin client certificate, server-side apply.
 */
import { request as httpsRequest, Agent } from 'node:https';

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; resourceVersion?: string; [key: string]: unknown };
  [key: string]: unknown;
}

export interface KubeResponse {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the API server's JSON for the path asked; the caller reads the kind it asked for
  body: any;
  text: string;
  /**
   * The seconds of a Retry-After header, when the server sent one (an API server shutting down answers
   * 503 with `Retry-After: 1`, apiserver pkg/server/filters/waitgroup.go); client-go waits that long
   * and retries (rest/with_retry.go checkWait, up to 10 times).
   */
  retryAfter?: number;
}

export interface ApplyOptions {
  /** @default 'pvekaas-kube-tier' */
  fieldManager?: string;
  /** Server-side dry run: the server validates and admits the object but stores nothing. @default false */
  dryRun?: boolean;
  /** Take over fields another manager owns. @default false */
  force?: boolean;
}

interface ApiResource {
  name: string;
  kind: string;
  namespaced: boolean;
}

/** A small client for the test server: plain HTTPS with the admin client certificate. */
export class KubeClient {
  private readonly agent: Agent;
  private readonly resources = new Map<string, ApiResource[]>();

  /** `token`: a bearer token (a pod's ServiceAccount) instead of, or beside, a client certificate. */
  constructor(
    readonly url: string,
    tls: { ca?: string; cert?: string; key?: string },
    private readonly token?: string,
  ) {
    this.agent = new Agent({ ca: tls.ca, cert: tls.cert, key: tls.key, keepAlive: true, maxSockets: 4 });
  }

  /**
   * Requests sent by every client of this process, by server and `METHOD path` (namespace and name
   * segments kept, query dropped): where the twin's own polling goes (twin/timeline.ts).
   */
  static readonly sent = new Map<string, number>();

  request(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<KubeResponse> {
    const key = `${this.url} ${method} ${path.split('?')[0]}`;
    KubeClient.sent.set(key, (KubeClient.sent.get(key) ?? 0) + 1);
    const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    return new Promise((resolvePromise, reject) => {
      const req = httpsRequest(
        new URL(path, this.url),
        {
          method,
          agent: this.agent,
          headers: {
            Accept: 'application/json',
            ...(this.token ? { Authorization: `Bearer ${this.token}` } : {}),
            ...(payload === undefined ? {} : { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(payload) }),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed: unknown = text;
            try {
              parsed = JSON.parse(text);
            } catch {
              // Health endpoints answer in plain text.
            }
            const after = Number(res.headers['retry-after']);
            resolvePromise({
              status: res.statusCode ?? 0,
              body: parsed,
              text,
              ...(Number.isFinite(after) && res.headers['retry-after'] ? { retryAfter: after } : {}),
            });
          });
          res.on('error', reject);
        },
      );
      req.setTimeout(60000, () => req.destroy(new Error(`${method} ${path}: no answer within 60 s`)));
      req.on('error', reject);
      if (payload !== undefined) req.write(payload);
      req.end();
    });
  }

  get(path: string): Promise<KubeResponse> {
    return this.request('GET', path);
  }

  post(path: string, body: unknown): Promise<KubeResponse> {
    return this.request('POST', path, body);
  }

  delete(path: string, options: { propagationPolicy?: 'Foreground' | 'Background' | 'Orphan' } = {}): Promise<KubeResponse> {
    return this.request('DELETE', path, { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: options.propagationPolicy ?? 'Background' });
  }

  /** Server-side apply (what the hashicorp/kubernetes provider does for kubernetes_manifest). */
  async apply(object: KubeObject, options: ApplyOptions = {}): Promise<KubeResponse> {
    const query = new URLSearchParams({ fieldManager: options.fieldManager ?? 'pvekaas-kube-tier' });
    if (options.force) query.set('force', 'true');
    if (options.dryRun) query.set('dryRun', 'All');
    return this.request('PATCH', `${await this.objectPath(object)}?${query}`, object, 'application/apply-patch+yaml');
  }

  /** Like apply, but throws with the server's message unless it answered 200 or 201. */
  async applyOrThrow(object: KubeObject, options: ApplyOptions = {}): Promise<KubeObject> {
    const r = await this.apply(object, options);
    if (r.status !== 200 && r.status !== 201) throw new Error(`apply ${describeObject(object)}: HTTP ${r.status}: ${r.body?.message ?? r.text}`);
    return r.body as KubeObject;
  }

  /** The REST path of an object, found through discovery (so it works for every installed CRD). */
  async objectPath(object: Pick<KubeObject, 'apiVersion' | 'kind' | 'metadata'>): Promise<string> {
    const resource = await this.resourceFor(object.apiVersion, object.kind);
    const base = object.apiVersion.includes('/') ? `/apis/${object.apiVersion}` : `/api/${object.apiVersion}`;
    const name = encodeURIComponent(object.metadata.name);
    if (!resource.namespaced) return `${base}/${resource.name}/${name}`;
    const namespace = object.metadata.namespace;
    if (!namespace) throw new Error(`${describeObject(object)} is namespaced (${resource.name}) but has no metadata.namespace`);
    return `${base}/namespaces/${encodeURIComponent(namespace)}/${resource.name}/${name}`;
  }

  async resourceFor(apiVersion: string, kind: string): Promise<ApiResource> {
    for (let attempt = 0; attempt < 2; attempt++) {
      if (attempt > 0 || !this.resources.has(apiVersion)) {
        const r = await this.get(apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`);
        this.resources.set(apiVersion, r.status === 200 ? (r.body.resources as ApiResource[]).filter((x) => !x.name.includes('/')) : []);
      }
      const found = this.resources.get(apiVersion)?.find((x) => x.kind === kind);
      if (found) return found;
    }
    throw new Error(`the server does not serve ${kind} in ${apiVersion} (is its CRD installed, and is that version served?)`);
  }

  close(): void {
    this.agent.destroy();
  }
}

export function describeObject(object: Pick<KubeObject, 'apiVersion' | 'kind' | 'metadata'>): string {
  const ns = object.metadata?.namespace ? `${object.metadata.namespace}/` : '';
  return `${object.kind} ${ns}${object.metadata?.name} (${object.apiVersion})`;
}
