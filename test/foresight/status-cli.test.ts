/**
 * The `status` command (scripts/status.ts, dist/) against an HTTPS API server that answers the
 * lists it reads with the objects of test/foresight/status-fixtures.ts and refuses anything else:
 * which kubeconfig and context it uses, that it reads lists of the tenants' namespaces and never a
 * Secret, that the bearer token never reaches its output, and its exit codes (0 as planned, 2 now ≠
 * plan, 1 not read). The real thing, against the twin's management cluster: test/twin/example-lab.test.ts.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { selfSignedCertificate } from '../../sim/tls';
import type { LiveTenant } from '../../modules/foresight/status';
import { TENANT_LISTS } from '../../scripts/lib/status-read';
import { asPlanned, exampleText, expectedOf } from './status-fixtures';

const root = join(__dirname, '../..');
const TOKEN = 'status-test-s3cret-token';
const tenants = ['tenant-a', 'tenant-b', 'tenant-c'];

let server: Server;
let url: string;
let dir: string;
const requests: string[] = [];
let live: Map<string, LiveTenant>;
/** Extra primary Clusters in other namespaces (a tenant not in the lab). */
let others: string[] = [];

function answer(path: string): { status: number; body: unknown } {
  const u = new URL(path, 'https://x');
  if (u.pathname === '/apis/cluster.x-k8s.io/v1beta2/clusters' && u.searchParams.get('labelSelector') === 'pvekaas.lab/tenant') {
    const items = [...live.values()].flatMap((t) => t.clusters).filter((c) => !c.metadata.name.includes('-pmox-'));
    return {
      status: 200,
      body: {
        items: [...items, ...others.map((n) => ({ metadata: { name: n, namespace: n } }))].map((c) => ({
          ...c,
          metadata: { ...c.metadata, labels: { 'pvekaas.lab/tenant': c.metadata.name } },
        })),
      },
    };
  }
  for (const [ns, objects] of live) {
    for (const l of TENANT_LISTS) {
      const want = new URL(l.path(ns), 'https://x');
      if (want.pathname === u.pathname && want.search === u.search) return { status: 200, body: { kind: 'List', items: objects[l.field] } };
    }
  }
  return { status: 404, body: { kind: 'Status', message: `the test server does not answer ${u.pathname}` } };
}

beforeAll(async () => {
  const tls = selfSignedCertificate();
  server = createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    requests.push(`${req.method} ${req.url}`);
    const authorized = req.headers.authorization === `Bearer ${TOKEN}`;
    const { status, body } = authorized ? answer(req.url ?? '/') : { status: 401, body: { kind: 'Status', message: 'Unauthorized' } };
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  dir = mkdtempSync(join(tmpdir(), 'pvekaas-status-'));
  const kubeconfig = (token: string) =>
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'mgmt', cluster: { server: url, 'certificate-authority-data': Buffer.from(tls.cert).toString('base64') } }],
      users: [
        { name: 'reader', user: { token } },
        { name: 'wrong', user: { token: 'not-the-token' } },
      ],
      contexts: [
        { name: 'lab-mgmt', context: { cluster: 'mgmt', user: 'reader' } },
        { name: 'other', context: { cluster: 'mgmt', user: 'wrong' } },
      ],
      'current-context': 'other',
    });
  writeFileSync(join(dir, 'kubeconfig'), kubeconfig(TOKEN));
});

afterAll(() => {
  server?.closeAllConnections();
  server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
  requests.length = 0;
  others = [];
  live = new Map(tenants.map((t) => [t, asPlanned(expectedOf(exampleText, t))]));
});

const status = (args: string[], env: Record<string, string> = {}) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [join(root, 'dist/scripts/status.js'), '--config', 'examples/lab.yaml', ...args],
      { cwd: root, env: { ...process.env, KUBECONFIG: '', ...env }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });

describe('npm run status', () => {
  it('reads every tenant of the lab through --kubeconfig/--context, lists only, never a Secret, and exits 0 when all run as planned', async () => {
    const r = await status(['--kubeconfig', join(dir, 'kubeconfig'), '--context', 'lab-mgmt']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`read from ${url} (context lab-mgmt)`);
    for (const t of tenants) expect(r.stdout).toMatch(new RegExp(`## ${t} \\(\\w+\\): as planned`));
    expect(requests.length).toBe(tenants.length * TENANT_LISTS.length + 1);
    expect(requests.every((q) => q.startsWith('GET ') && !/secret/i.test(q))).toBe(true);
    expect(r.stdout + r.stderr).not.toContain(TOKEN);
  });

  it('exits 2 and names the difference when now ≠ plan (a Node not Ready), in the table and in --json', async () => {
    const a = live.get('tenant-a')!;
    const m = a.machines[0];
    m.status!.conditions = m.status!.conditions!.map((c) => (c.type === 'NodeReady' ? { ...c, status: 'False', reason: 'NodeNotReady' } : c));
    const r = await status(['--kubeconfig', join(dir, 'kubeconfig'), '--context', 'lab-mgmt', '--tenant', 'tenant-a']);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain('## tenant-a (Default): 1 difference from the plan');
    expect(r.stdout).toContain(`- machine ${m.metadata.name}: Node ${m.metadata.name} is not Ready (NodeReady False (NodeNotReady))`);
    expect(r.stdout).not.toContain('## tenant-b');
    const j = await status(['--kubeconfig', join(dir, 'kubeconfig'), '--context', 'lab-mgmt', '--tenant', 'tenant-a', '--json']);
    expect(j.code).toBe(2);
    const doc = JSON.parse(j.stdout);
    expect(doc.asPlanned).toBe(false);
    expect(doc.tenants.map((t: { name: string }) => t.name)).toEqual(['tenant-a']);
    expect(doc.tenants[0].machines.find((x: { name: string }) => x.name === m.metadata.name).nodeReady).toEqual({
      type: 'NodeReady',
      status: 'False',
      reason: 'NodeNotReady',
    });
  });

  it('takes KUBECONFIG and its current-context when no flag is given, and exits 1 with the server’s answer when it refuses the reader', async () => {
    const r = await status([], { KUBECONFIG: join(dir, 'kubeconfig') });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`the management cluster ${url} (context other of ${join(dir, 'kubeconfig')}) could not be read`);
    expect(r.stderr).toContain('HTTP 401: Unauthorized');
    expect(r.stdout).toBe('');
  });

  it('names tenants that run but are not in the lab, and refuses a --tenant the lab does not have', async () => {
    others = ['tenant-gone'];
    const r = await status(['--kubeconfig', join(dir, 'kubeconfig'), '--context', 'lab-mgmt']);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain('Tenant tenant-gone runs in the management cluster but is not in the lab');
    const bad = await status(['--kubeconfig', join(dir, 'kubeconfig'), '--tenant', 'tenant-x']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('examples/lab.yaml: no tenant tenant-x in the lab\n  fix: --tenant one of tenant-a, tenant-b, tenant-c');
  });

  it('refuses a kubeconfig without the context asked for, naming the file and not its contents', async () => {
    const r = await status(['--kubeconfig', join(dir, 'kubeconfig'), '--context', 'nope']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`the kubeconfig ${join(dir, 'kubeconfig')} (--kubeconfig) has no context nope`);
    expect(r.stderr).not.toContain(TOKEN);
  });
});
