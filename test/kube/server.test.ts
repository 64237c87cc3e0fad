/**
 * The test API server itself: the version the toolchain pins, loopback only, client-certificate
 * access, every pinned CRD established, validation that only the server runs (CEL, multipleOf),
 * and namespaces finalised by kube-controller-manager. If this suite fails, the stack suites'
 * results mean nothing.
 */
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { loadPinnedCrds, startKubeServer, type KubeServer } from '../support/kube-apiserver';
import { missingFromServer } from './stack-manifests';
import { projectRoot } from '../support/toolchain';
import { started, tearDown } from '../support/lifecycle';

let server: KubeServer | undefined;
beforeAll(async () => {
  server = await startKubeServer();
}, 300000);
afterAll(() => tearDown(undefined, server), 60000);

const requireServer = (): KubeServer => started(server);

const pins = JSON.parse(readFileSync(join(projectRoot, 'modules/versions/toolchain.json'), 'utf8')).kubernetes;

describe('the test API server', () => {
  it('reports the pinned Kubernetes version and listens on loopback only', async () => {
    const { client, url } = requireServer();
    const version = await client.get('/version');
    expect(version.body.gitVersion).toBe(pins.version);
    expect(`v${version.body.major}.${version.body.minor}`).toBe(pins.version.split('.').slice(0, 2).join('.'));
    expect(new URL(url).hostname).toBe('127.0.0.1');
  });

  it('refuses a client without the client certificate', async () => {
    const { url, dir } = requireServer();
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(new URL('/api/v1/namespaces', url), { ca: readFileSync(join(dir, 'ca.crt')) }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(403);
  });

  it('serves every pinned CRD, established', async () => {
    const { client, crds } = requireServer();
    expect(crds).toEqual(
      loadPinnedCrds()
        .map((c) => c.metadata.name)
        .sort(),
    );
    expect(crds.length).toBeGreaterThanOrEqual(40);
    const proxmox = await client.resourceFor('infrastructure.cluster.x-k8s.io/v1alpha2', 'ProxmoxMachineTemplate');
    expect(proxmox).toMatchObject({ name: 'proxmoxmachinetemplates', namespaced: true });
  });

  it('runs the CRD validation that only a server runs', async () => {
    const { client } = requireServer();
    await client.applyOrThrow({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'server-rules' } });
    const template = (spec: Record<string, unknown>) => ({
      apiVersion: 'infrastructure.cluster.x-k8s.io/v1alpha2',
      kind: 'ProxmoxMachineTemplate',
      metadata: { name: 'workers', namespace: 'server-rules' },
      spec: { template: { spec: { sourceNode: 'pmox-txl-1', templateID: 1000, network: { networkDevices: [{ bridge: 'vmbr0' }] }, ...spec } } },
    });
    const accepted = await client.apply(template({ memoryMiB: 8192 }), { dryRun: true });
    expect({ status: accepted.status, message: accepted.body.message }).toEqual({ status: 201, message: undefined });
    const notMultipleOf8 = await client.apply(template({ memoryMiB: 8193 }), { dryRun: true });
    expect(notMultipleOf8.status).toBe(422);
    expect(notMultipleOf8.body.message).toMatch(/memoryMiB.*multiple of 8/);
    // A CEL rule (x-kubernetes-validations) of the CAPMOX CRD.
    const noTemplate = await client.apply(template({ templateID: undefined, sourceNode: undefined }), { dryRun: true });
    expect(noTemplate.status).toBe(422);
    expect(noTemplate.body.message).toMatch(/Must specify either templateID or templateSelector/);
  });

  it('refuses, on server-side apply, a field the CRD does not know', async () => {
    const { client } = requireServer();
    await client.applyOrThrow({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'unknown-fields' } });
    const pool = {
      apiVersion: 'metallb.io/v1beta1',
      kind: 'IPAddressPool',
      metadata: { name: 'tenant-vips', namespace: 'unknown-fields' },
      spec: { addresses: ['10.4.0.100-10.4.0.149'], autoAssign: false },
    };
    const stored = await client.applyOrThrow(pool);
    expect(missingFromServer(pool, stored)).toEqual([]);
    const unknown = await client.apply({ ...pool, spec: { ...pool.spec, notAField: 'x' } });
    expect(unknown.status).toBeGreaterThanOrEqual(400);
    expect(unknown.body.message).toMatch(/\.spec\.notAField: field not declared in schema/);
  });

  it('finalises a deleted namespace (kube-controller-manager runs)', async () => {
    const { client } = requireServer();
    await client.applyOrThrow({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'finalised' } });
    await client.applyOrThrow({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'inside', namespace: 'finalised' }, data: { a: 'b' } });
    expect((await client.delete('/api/v1/namespaces/finalised')).status).toBe(200);
    const deadline = Date.now() + 60000;
    let status = 0;
    while (Date.now() < deadline && (status = (await client.get('/api/v1/namespaces/finalised')).status) !== 404) await new Promise((r) => setTimeout(r, 250));
    expect(status).toBe(404);
  }, 90000);
});
