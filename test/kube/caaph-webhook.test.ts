/**
 * CAAPH's admission webhooks (the pinned release) as the twin plays them (twin/caaph-webhook.ts), on a
 * real API server that calls them (upstream's own webhook configurations, failurePolicy Fail):
 * defaulting, the repoURL check and the immutable fields; and the repoURL check against Go's own
 * net/url ParseRequestURI on a corpus (the toolchain's Go runs the comparison).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cniHelmChartProxy } from '../../modules/tenants/cni';
import { cniCharts } from '../../modules/versions/cni';
import { parseRequestUriError, startCaaphWebhook, type CaaphWebhook } from '../../twin/caaph-webhook';
import { webhookCertificates } from '../../twin/controllers';
import { withReleaseLabels } from '../../twin/crd-labels';
import { startKubeServer, type KubeObject, type KubeServer } from '../support/kube-apiserver';
import { started, tearDown } from '../support/lifecycle';

const root = join(__dirname, '../..');
const ADDONS = '/apis/addons.cluster.x-k8s.io/v1alpha1';
const ns = 'tenant-w';

const CORPUS = [
  'https://helm.cilium.io',
  'https://helm.cilium.io/',
  'https://docs.tigera.io/calico/charts',
  'oci://registry.example:5000/charts',
  'http://mirror.lab:8080/charts?x=1',
  'helm.cilium.io',
  'helm.cilium.io/charts',
  '',
  '*',
  '/charts',
  '//host/charts',
  ':charts',
  '1http://x',
  'mailto:ops@example.com',
  'http://[::1]:8080/x',
  'http://[::1/x',
  'http://[::1]x/',
  'https://host:port/x',
  'https://host:/x',
  'https://ho st/x',
  'https://ho%zzst/x',
  'https://ho%41st/x',
  'https://host/%zz',
  'https://host/a b',
  'https://us er@host/x',
  'https://user:pa@ss@host/x',
  'https://host/x\x7f',
  'https://host/x\ty',
  'https://héllo.example/charts',
  'https://host?',
];

/** Go's own answers: each corpus entry through net/url.ParseRequestURI, its error text or "". */
function goAnswers(inputs: string[]): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'pvekaas-parse-uri-'));
  writeFileSync(
    join(dir, 'main.go'),
    [
      'package main',
      'import ("encoding/json"; "net/url"; "os")',
      'func main() {',
      '  var in []string',
      '  if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil { panic(err) }',
      '  out := make([]string, len(in))',
      '  for i, s := range in { if _, err := url.ParseRequestURI(s); err != nil { out[i] = err.Error() } }',
      '  json.NewEncoder(os.Stdout).Encode(out)',
      '}',
    ].join('\n'),
  );
  const text = execFileSync('go', ['run', join(dir, 'main.go')], {
    cwd: dir,
    input: JSON.stringify(inputs),
    encoding: 'utf8',
    env: { ...process.env, GOFLAGS: '' },
  });
  return JSON.parse(text) as string[];
}

describe("the repoURL check is Go's url.ParseRequestURI", () => {
  it('answers every corpus entry as Go does, error text included', () => {
    const go = goAnswers(CORPUS);
    const ours = CORPUS.map((s) => parseRequestUriError(s) ?? '');
    const differ = CORPUS.map((s, i) => ({ input: s, go: go[i], ours: ours[i] })).filter((r) => r.go !== r.ours);
    expect(differ).toEqual([]);
    // The corpus holds both kinds.
    expect(go.filter((e) => e === '').length).toBeGreaterThan(5);
    expect(go.filter((e) => e !== '').length).toBeGreaterThan(5);
  }, 120000);
});

let mgmt: KubeServer | undefined;
let webhook: CaaphWebhook | undefined;
beforeAll(async () => {
  mgmt = await startKubeServer({ controllerManager: false, transformCrd: withReleaseLabels(root) });
  const { client, dir } = started(mgmt);
  webhook = await startCaaphWebhook({ root, client, ...webhookCertificates(join(dir, 'caaph')) });
  await client.applyOrThrow({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
}, 300000);
afterAll(async () => {
  await webhook?.stop();
  await tearDown(undefined, mgmt);
}, 60000);

const proxy = (name: string, spec: Record<string, unknown>): KubeObject =>
  ({
    apiVersion: 'addons.cluster.x-k8s.io/v1alpha1',
    kind: 'HelmChartProxy',
    metadata: { name, namespace: ns },
    spec: { clusterSelector: { matchLabels: { a: 'b' } }, chartName: 'cilium', ...spec },
  }) as KubeObject;

describe("CAAPH's webhooks on the management API server", () => {
  it('admits the HelmChartProxy pvekaas renders, keeping its namespace, options and timeout', async () => {
    const { client } = started(mgmt);
    const rendered = cniHelmChartProxy('cilium', ns);
    const stored: any = await client.applyOrThrow(rendered);
    expect(stored.spec.repoURL).toBe('https://helm.cilium.io');
    expect(stored.spec.namespace).toBe('kube-system');
    expect(stored.spec.options).toEqual(expect.objectContaining({ wait: false, timeout: '10m' }));
    expect(webhook!.seen.some((s) => s.name === rendered.metadata.name && s.path.startsWith('/validate-') && s.allowed)).toBe(true);
  });

  it('defaults the release namespace, wait under atomic, and the 10m timeout', async () => {
    const { client } = started(mgmt);
    const stored: any = await client.applyOrThrow(proxy('defaults', { repoURL: 'https://helm.cilium.io', options: { atomic: true } }));
    expect(stored.spec.namespace).toBe('default');
    // enableClientCache: false is the CRD schema's own default.
    expect(stored.spec.options).toEqual({ atomic: true, wait: true, timeout: '10m0s', enableClientCache: false });
  });

  it('refuses a repoURL Go cannot parse as a request URI, with upstream words', async () => {
    const { client } = started(mgmt);
    const r = await client.apply(proxy('no-scheme', { repoURL: 'helm.cilium.io' }));
    expect(r.status).toBe(403);
    expect(r.body.message).toBe(
      'admission webhook "vhelmchartproxy.kb.io" denied the request: specified repoURL helm.cilium.io is not valid: parse "helm.cilium.io": invalid URI for request',
    );
    const got = await client.get(`${ADDONS}/namespaces/${ns}/helmchartproxies/no-scheme`);
    expect(got.status).toBe(404);
  });

  it('refuses the rendered CNI HelmChartProxy whose repoURL lost its scheme', async () => {
    const { client } = started(mgmt);
    const rendered: any = cniHelmChartProxy('cilium', ns);
    const mutated = {
      ...rendered,
      metadata: { ...rendered.metadata, name: 'cni-cilium-mutated' },
      spec: { ...rendered.spec, repoURL: rendered.spec.repoURL.replace(/^https:\/\//, '') },
    };
    const r = await client.apply(mutated);
    expect(r.status).toBe(403);
    expect(r.body.message).toContain('denied the request: specified repoURL helm.cilium.io is not valid');
  });

  it('refuses a change of reconcileStrategy (immutable) and names the field', async () => {
    const { client } = started(mgmt);
    await client.applyOrThrow(proxy('strategy', { repoURL: 'https://helm.cilium.io', reconcileStrategy: 'Continuous' }));
    const r = await client.apply(proxy('strategy', { repoURL: 'https://helm.cilium.io', reconcileStrategy: 'InstallOnce' }), { force: true });
    expect(r.status).toBe(422);
    expect(r.body.message).toContain('spec.ReconcileStrategy: Invalid value: "InstallOnce": field is immutable');
  });

  it("keeps a HelmReleaseProxy's chart, repository and namespace as created", async () => {
    const { client } = started(mgmt);
    const hrp = {
      apiVersion: 'addons.cluster.x-k8s.io/v1alpha1',
      kind: 'HelmReleaseProxy',
      metadata: { name: 'cilium-x', namespace: ns },
      spec: {
        clusterRef: { kind: 'Cluster', name: 'x', namespace: ns },
        chartName: 'cilium',
        repoURL: 'https://helm.cilium.io',
        version: cniCharts.cilium.version,
      },
    } as any;
    const stored: any = await client.applyOrThrow(hrp);
    expect(stored.spec.namespace).toBe('default');
    const r = await client.apply({ ...hrp, spec: { ...hrp.spec, repoURL: 'https://mirror.lab/charts' } } as KubeObject, { force: true });
    expect(r.status).toBe(422);
    expect(r.body.message).toContain('spec.RepoURL: Invalid value: "https://mirror.lab/charts": field is immutable');
    const ok = await client.apply({ ...hrp, spec: { ...hrp.spec, version: `${cniCharts.cilium.version}-next`, namespace: 'default' } } as KubeObject, {
      force: true,
    });
    expect(ok.status).toBe(200);
  });
});
