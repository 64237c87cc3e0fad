/** How the kube tier reads a synthesized stack: order, reference resolution, and what it refuses to guess. */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withoutConversionWebhook } from '../support/kube-apiserver';
import { missingFromServer, readStackManifests, readStackNamespaces } from './stack-manifests';

let dir: string;
beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'pvekaas-stack-manifests-'))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function stackWith(resource: Record<string, unknown>): string {
  const name = `s${Math.random().toString(36).slice(2)}`;
  mkdirSync(join(dir, name));
  writeFileSync(join(dir, name, 'cdk.tf.json'), JSON.stringify({ resource }));
  return name;
}

const ns = (name: string) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });

describe('reading the objects of a stack', () => {
  it('creates namespaces first, then dependencies before dependents', () => {
    const stack = stackWith({
      kubernetes_manifest: {
        a_cluster: {
          manifest: { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster', metadata: { name: 'c', namespace: 't' } },
          depends_on: ['kubernetes_manifest.z_proxmox'],
        },
        z_proxmox: { manifest: { apiVersion: 'infrastructure.cluster.x-k8s.io/v1alpha2', kind: 'ProxmoxCluster', metadata: { name: 'c', namespace: 't' } } },
        zz_namespace: { manifest: ns('t') },
      },
      helm_release: { autoscaler: {} },
    });
    const m = readStackManifests(dir, stack);
    expect(m.objects.map((o) => o.address)).toEqual(['kubernetes_manifest.zz_namespace', 'kubernetes_manifest.z_proxmox', 'kubernetes_manifest.a_cluster']);
    expect(m.otherResources).toEqual({ helm_release: 1 });
    expect(m.unresolved).toEqual([]);
  });

  it('resolves a plain reference to another manifest, and orders by it', () => {
    const stack = stackWith({
      kubernetes_manifest: {
        a_pool: {
          manifest: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'p', namespace: '${kubernetes_manifest.b_ns.manifest.metadata.name}' } },
        },
        b_ns: { manifest: ns('tenant-a') },
      },
    });
    const m = readStackManifests(dir, stack);
    expect(m.objects[1].object.metadata.namespace).toBe('tenant-a');
    expect(m.objects[1].dependsOn).toEqual(['kubernetes_manifest.b_ns']);
    expect(m.unresolved).toEqual([]);
  });

  it('reports, and does not guess, values only the provider or the workspace knows', () => {
    const stack = stackWith({
      kubernetes_manifest: {
        secret: {
          manifest: {
            apiVersion: 'v1',
            kind: 'Secret',
            metadata: { name: 's', namespace: 'x' },
            stringData: { token: '${var.token}', uid: '${kubernetes_manifest.other.object.metadata.uid}', joined: 'a-${var.x}' },
          },
        },
        other: { manifest: ns('x') },
      },
    });
    const m = readStackManifests(dir, stack);
    expect(m.unresolved.map((u) => [u.path, u.expression])).toEqual([
      ['stringData.token', '${var.token}'],
      ['stringData.uid', '${kubernetes_manifest.other.object.metadata.uid}'],
      ['stringData.joined', 'a-${var.x}'],
    ]);
  });

  it('refuses a dependency cycle', () => {
    const stack = stackWith({
      kubernetes_manifest: {
        a: { manifest: ns('a'), depends_on: ['kubernetes_manifest.b'] },
        b: { manifest: ns('b'), depends_on: ['kubernetes_manifest.a'] },
      },
    });
    expect(() => readStackManifests(dir, stack)).toThrow(/dependency cycle among kubernetes_manifest.a, kubernetes_manifest.b/);
  });
});

describe('the namespaces a stack creates with kubernetes_namespace_v1', () => {
  it('become Namespace objects with their labels, sorted by name', () => {
    const stack = stackWith({
      kubernetes_namespace_v1: {
        'namespace-metallb-system': { metadata: { name: 'metallb-system', labels: { 'pod-security.kubernetes.io/enforce': 'privileged' } } },
        'namespace-capi-system': { metadata: { name: 'capi-system' } },
      },
    });
    expect(readStackNamespaces(dir, stack)).toEqual([
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'capi-system' } },
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'metallb-system', labels: { 'pod-security.kubernetes.io/enforce': 'privileged' } } },
    ]);
  });

  it('refuses metadata only Terraform can compute', () => {
    const stack = stackWith({ kubernetes_namespace_v1: { ns: { metadata: { name: '${var.namespace}' } } } });
    expect(() => readStackNamespaces(dir, stack)).toThrow(/kubernetes_namespace_v1.ns has metadata only Terraform can compute/);
  });
});

describe('comparing what was sent with what the server stored', () => {
  it('accepts server defaults and metadata, and names a pruned or changed field', () => {
    const sent = { spec: { a: 1, list: [{ x: 'y' }], nested: { keep: true, dropped: 'z' } } };
    const stored = { metadata: { uid: 'u' }, spec: { a: 1, extra: 'default', list: [{ x: 'y', d: 1 }], nested: { keep: false } } };
    expect(missingFromServer(sent, stored)).toEqual([
      'spec.nested.keep: sent true, the server stored false',
      'spec.nested.dropped: sent "z", the server dropped it (not in the CRD schema?)',
    ]);
    expect(missingFromServer(sent, { ...stored, spec: { ...sent.spec, more: 1 } })).toEqual([]);
  });
});

describe('the test copy of a CRD', () => {
  it('turns a conversion webhook off and leaves other CRDs as they are', () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'x' },
      spec: { group: 'g', conversion: { strategy: 'Webhook', webhook: {} } },
    };
    expect(withoutConversionWebhook(crd).spec).toEqual({ group: 'g', conversion: { strategy: 'None' } });
    const plain = { ...crd, spec: { group: 'g' } };
    expect(withoutConversionWebhook(plain)).toBe(plain);
  });
});
