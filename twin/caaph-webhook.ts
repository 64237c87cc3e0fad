/**
 * SIMULATED in the lab twin: the admission webhooks of the Cluster API add-on provider for Helm
 * (CAAPH) v0.6.2, whose module the Go proxy does not serve (crds/README.md). Its webhook
 * configurations are upstream's own (`config/webhook/manifests.yaml` at v0.6.2, committed unedited
 * under crds/cluster-api-addon-provider-helm/v0.6.2/webhook/), registered on the management API
 * server with `failurePolicy: Fail` and pointed at this HTTPS server, so the real API server calls
 * them on every create and update of a HelmChartProxy or HelmReleaseProxy, as in a cluster. The
 * rules, from api/v1alpha1/helmchartproxy_webhook.go and helmreleaseproxy_webhook.go at v0.6.2:
 *
 * - HelmChartProxy Default: `spec.namespace` (ReleaseNamespace) "" → "default"; `options.atomic`
 *   sets `options.wait`; no `options.timeout` → 10m (helmTimeout).
 * - HelmChartProxy ValidateCreate: `spec.repoURL` must pass Go's url.ParseRequestURI (isUrlValid);
 *   a plain error, so controller-runtime answers Denied (403) with its text.
 * - HelmChartProxy ValidateUpdate: the same repoURL check, and `spec.reconcileStrategy` immutable
 *   (field.Invalid → 422 Invalid).
 * - HelmReleaseProxy Default: `spec.namespace` "" → "default". ValidateUpdate: `repoURL`,
 *   `chartName`, `namespace` and `reconcileStrategy` immutable.
 *
 * Deviation (docs/twin.md): controller-runtime's defaulter patches the object re-encoded from the
 * Go type (`options: {}` and other empty structs appear); here only the defaulted fields are added.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { KubeClient } from '../scripts/lib/kube-apiserver';
import { webhookConfigurations } from './controllers';

/** The committed upstream webhook configurations (relative to the project root). */
export const CAAPH_WEBHOOK_MANIFESTS = 'crds/cluster-api-addon-provider-helm/v0.6.2/webhook/manifests.yaml';
const HELM_TIMEOUT = '10m0s';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an unstructured object read by path
type Obj = any;

const CTL = /[\x00-\x1f\x7f]/;

/** Go's strconv.Quote for the ASCII and UTF-8 text a URL holds (what url.Error and its causes print). */
export function goQuote(text: string): string {
  const named: Record<string, string> = { '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v' };
  let out = '"';
  for (const c of text) {
    if (c === '"' || c === '\\') out += `\\${c}`;
    else if (named[c]) out += named[c];
    else if (c < ' ' || c === '\x7f') out += `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`;
    else out += c;
  }
  return `${out}"`;
}

const isHex = (c: string | undefined) => c !== undefined && /^[0-9A-Fa-f]$/.test(c);
/** net/url shouldEscape(c, encodeHost) is false for these (bytes ≥ 0x80 are not checked). */
const HOST_OK = /^[A-Za-z0-9\-_.~!$&'()*+,;=:[\]<>"]$/;

/** net/url unescape in host or path mode: the error text of the first byte it refuses. */
function unescapeError(text: string, mode: 'host' | 'path'): string | undefined {
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '%') {
      if (!isHex(text[i + 1]) || !isHex(text[i + 2])) return `invalid URL escape ${goQuote(text.slice(i, i + 3))}`;
      // In a host, %-encoding may only stand for a byte ≥ 0x80, or be %25 (RFC 6874 zone ids).
      if (mode === 'host' && parseInt(text[i + 1], 16) < 8 && text.slice(i, i + 3) !== '%25') return `invalid URL escape ${goQuote(text.slice(i, i + 3))}`;
      i += 2;
    } else if (mode === 'host' && c.charCodeAt(0) < 0x80 && !HOST_OK.test(c)) return `invalid character ${goQuote(c)} in host name`;
  }
  return undefined;
}

/** net/url validUserinfo: unreserved, sub-delims, ':' and '%' (the escapes are checked by unescape). */
const USERINFO_OK = /^[A-Za-z0-9\-._~:!$&'()*+,;=%@\u0080-\uffff]*$/;

/**
 * Go's net/url ParseRequestURI (url.go `parse` with viaRequest, `getScheme`, `parseAuthority`,
 * `parseHost`, `validOptionalPort`, `unescape`, `setPath`): the error text it returns, or undefined
 * when the URI parses. test/kube/caaph-webhook.test.ts compares it with Go's own on a corpus.
 */
export function parseRequestUriError(raw: string): string | undefined {
  const fail = (why: string) => `parse ${goQuote(raw)}: ${why}`;
  if (CTL.test(raw)) return fail('net/url: invalid control character in URL');
  if (raw === '') return fail('empty url');
  if (raw === '*') return undefined;
  // getScheme: letters first, then letters, digits, + - .; a ':' ends it (at 0: missing scheme).
  let scheme = '';
  let rest = raw;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (/[A-Za-z]/.test(c)) continue;
    if (/[0-9+\-.]/.test(c)) {
      if (i === 0) break;
      continue;
    }
    if (c === ':') {
      if (i === 0) return fail('missing protocol scheme');
      scheme = raw.slice(0, i);
      rest = raw.slice(i + 1);
    }
    break;
  }
  if (rest.endsWith('?') && rest.split('?').length === 2) rest = rest.slice(0, -1);
  else rest = rest.split('?')[0];
  if (!rest.startsWith('/')) {
    if (scheme !== '') return undefined; // an opaque URI (mailto:…) is accepted
    return fail('invalid URI for request');
  }
  if (scheme !== '' && rest.startsWith('//')) {
    let authority = rest.slice(2);
    const slash = authority.indexOf('/');
    rest = slash >= 0 ? authority.slice(slash) : '';
    if (slash >= 0) authority = authority.slice(0, slash);
    const at = authority.lastIndexOf('@');
    const host = at >= 0 ? authority.slice(at + 1) : authority;
    const hostError = (() => {
      if (host.startsWith('[')) {
        const close = host.lastIndexOf(']');
        if (close < 0) return "missing ']' in host";
        const port = host.slice(close + 1);
        if (!/^(:[0-9]*)?$/.test(port)) return `invalid port ${goQuote(port)} after host`;
        return unescapeError(host, 'host');
      }
      const colon = host.lastIndexOf(':');
      if (colon >= 0 && !/^:[0-9]*$/.test(host.slice(colon))) return `invalid port ${goQuote(host.slice(colon))} after host`;
      return unescapeError(host, 'host');
    })();
    if (hostError) return fail(hostError);
    if (at >= 0) {
      const userinfo = authority.slice(0, at);
      if (!USERINFO_OK.test(userinfo)) return fail('net/url: invalid userinfo');
      const bad = unescapeError(userinfo, 'path');
      if (bad) return fail(bad);
    }
  }
  const pathError = unescapeError(rest, 'path');
  return pathError ? fail(pathError) : undefined;
}

interface Verdict {
  allowed: boolean;
  patch?: object[];
  status?: { code: number; reason?: string; message: string };
}

const invalid = (kind: string, name: string, causes: { field: string; value: unknown; detail: string }[]): Verdict => ({
  allowed: false,
  status: {
    code: 422,
    reason: 'Invalid',
    // apierrors.NewInvalid: `<Kind>.<group> "<name>" is invalid: [a, b]` (one cause: without brackets).
    message: `${kind}.addons.cluster.x-k8s.io ${JSON.stringify(name)} is invalid: ${
      causes.length === 1 ? cause(causes[0]) : `[${causes.map(cause).join(', ')}]`
    }`,
  },
});
const cause = (c: { field: string; value: unknown; detail: string }) => `${c.field}: Invalid value: ${JSON.stringify(c.value)}: ${c.detail}`;

/** The defaulting patch (JSON Patch) of one object. */
function defaults(kind: string, object: Obj): object[] {
  const patch: object[] = [];
  const spec = object.spec ?? {};
  if (!object.spec) patch.push({ op: 'add', path: '/spec', value: {} });
  if (!spec.namespace) patch.push({ op: spec.namespace === undefined ? 'add' : 'replace', path: '/spec/namespace', value: 'default' });
  if (kind === 'HelmChartProxy') {
    const options = spec.options;
    if (options === undefined) patch.push({ op: 'add', path: '/spec/options', value: { timeout: HELM_TIMEOUT } });
    else {
      if (options.atomic === true && options.wait !== true)
        patch.push({ op: options.wait === undefined ? 'add' : 'replace', path: '/spec/options/wait', value: true });
      if (options.timeout === undefined || options.timeout === null) patch.push({ op: 'add', path: '/spec/options/timeout', value: HELM_TIMEOUT });
    }
  }
  return patch;
}

/** One admission request answered as CAAPH v0.6.2's webhook would. */
export function review(path: string, request: Obj): Verdict {
  const kind = request.kind?.kind as string;
  const object = request.object as Obj;
  const old = request.oldObject as Obj | undefined;
  const name = object?.metadata?.name ?? object?.metadata?.generateName ?? '';
  if (path.startsWith('/mutate-')) return { allowed: true, patch: defaults(kind, object) };
  if (path === '/validate-addons-cluster-x-k8s-io-v1alpha1-helmchartproxy') {
    const bad = parseRequestUriError(object.spec?.repoURL ?? '');
    if (request.operation === 'CREATE')
      return bad
        ? { allowed: false, status: { code: 403, reason: 'Forbidden', message: `specified repoURL ${object.spec?.repoURL ?? ''} is not valid: ${bad}` } }
        : { allowed: true };
    const causes = [
      // field.Invalid(spec.RepoURL, newObj.Spec.ReleaseNamespace, …): upstream reports the namespace as the value.
      ...(bad
        ? [{ field: 'spec.RepoURL', value: object.spec?.namespace ?? '', detail: `specified repoURL ${object.spec?.repoURL ?? ''} is not valid: ${bad}` }]
        : []),
      ...((object.spec?.reconcileStrategy ?? '') !== (old?.spec?.reconcileStrategy ?? '')
        ? [{ field: 'spec.ReconcileStrategy', value: object.spec?.reconcileStrategy ?? '', detail: 'field is immutable' }]
        : []),
    ];
    return causes.length > 0 ? invalid('HelmChartProxy', name, causes) : { allowed: true };
  }
  if (path === '/validate-addons-cluster-x-k8s-io-v1alpha1-helmreleaseproxy') {
    if (request.operation !== 'UPDATE') return { allowed: true };
    const causes = (
      [
        ['repoURL', 'spec.RepoURL'],
        ['chartName', 'spec.ChartName'],
        ['namespace', 'spec.ReleaseNamespace'],
        ['reconcileStrategy', 'spec.ReconcileStrategy'],
      ] as const
    )
      .filter(([f]) => (object.spec?.[f] ?? '') !== (old?.spec?.[f] ?? ''))
      .map(([f, field]) => ({ field, value: object.spec?.[f] ?? '', detail: 'field is immutable' }));
    return causes.length > 0 ? invalid('HelmReleaseProxy', name, causes) : { allowed: true };
  }
  return { allowed: false, status: { code: 404, message: `no webhook at ${path}` } };
}

export interface CaaphWebhook {
  /** Every request answered, for the suite's checks: path, operation, object name, allowed. */
  readonly seen: { path: string; operation: string; name: string; allowed: boolean }[];
  stop(): Promise<void>;
}

/**
 * Serves the webhooks on 127.0.0.1 with the twin's webhook certificate and registers upstream's
 * configurations (named `caaph-…`) on the management API server, pointed at it with the CA.
 */
export async function startCaaphWebhook(options: { root: string; client: KubeClient; certDir: string; caPem: string }): Promise<CaaphWebhook> {
  const seen: CaaphWebhook['seen'] = [];
  const server: Server = createServer(
    { key: readFileSync(join(options.certDir, 'tls.key')), cert: readFileSync(join(options.certDir, 'tls.crt')) },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        let body: Obj;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          res.writeHead(400).end('not an AdmissionReview');
          return;
        }
        const request = body.request ?? {};
        const path = (req.url ?? '/').split('?')[0];
        const verdict = review(path, request);
        seen.push({ path, operation: request.operation, name: request.object?.metadata?.name ?? request.name ?? '', allowed: verdict.allowed });
        const response: Obj = { uid: request.uid, allowed: verdict.allowed };
        if (verdict.patch && verdict.patch.length > 0) {
          response.patchType = 'JSONPatch';
          response.patch = Buffer.from(JSON.stringify(verdict.patch)).toString('base64');
        }
        if (verdict.status) response.status = verdict.status;
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response }));
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  // Upstream's configurations, each webhook's service reference replaced by this server's URL and CA.
  for (const config of webhookConfigurations(join(options.root, CAAPH_WEBHOOK_MANIFESTS), 'caaph', port, options.caPem))
    await options.client.applyOrThrow(config);
  return { seen, stop: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
