/**
 * CRD loading and manifest validation: strict like server-side field validation, against the
 * pinned upstream CRDs and against small CRDs written here to pin down each rule.
 */
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { stringify } from 'yaml';
import { crdsDir, loadCrds, loadPinnedCrds, uncheckedRules, validateManifest, type CrdSet } from '../support/crds';

const projectRoot = resolve(__dirname, '../..');
const pinned = loadPinnedCrds(projectRoot, process.env);

const pool = (spec: Record<string, unknown>, metadata: Record<string, unknown> = { name: 'tenant-vips', namespace: 'metallb-system' }) => ({
  apiVersion: 'metallb.io/v1beta1',
  kind: 'IPAddressPool',
  metadata,
  spec,
});

describe('the pinned CRDs', () => {
  it('load without two releases defining the same kind', () => {
    const kinds = [...pinned.crds.values()].map((c) => `${c.kind}.${c.group}`);
    expect(kinds).toEqual(expect.arrayContaining(['Cluster.cluster.x-k8s.io', 'KamajiControlPlane.controlplane.cluster.x-k8s.io', 'IPAddressPool.metallb.io', 'CoreProvider.operator.cluster.x-k8s.io', 'TenantControlPlane.kamaji.clastix.io', 'ProxmoxCluster.infrastructure.cluster.x-k8s.io', 'HelmChartProxy.addons.cluster.x-k8s.io', 'InClusterIPPool.ipam.cluster.x-k8s.io']));
    expect(new Set(kinds).size).toBe(kinds.length);
  });

  it('refuse two releases of one kind, naming both files', () => {
    const two = mkdtempSync(join(tmpdir(), 'pvekaas-crds-'));
    const kcp = join(crdsDir(projectRoot, process.env), 'cluster-api-control-plane-provider-kamaji/v0.20.0/controlplane.cluster.x-k8s.io_kamajicontrolplanes.yaml');
    for (const release of ['v0.19.0', 'v0.20.0']) {
      mkdirSync(join(two, release));
      writeFileSync(join(two, release, 'kcp.yaml'), readFileSync(kcp));
    }
    try {
      expect(() => loadCrds(two)).toThrow(/KamajiControlPlane\.controlplane\.cluster\.x-k8s\.io is defined twice: in .*v0\.19\.0.* and in .*v0\.20\.0/);
    } finally {
      rmSync(two, { recursive: true, force: true });
    }
  });

  it('accept a valid MetalLB pool', () => {
    expect(validateManifest(pool({ addresses: ['10.4.0.100-10.4.0.149'], autoAssign: true }), pinned)).toEqual([]);
  });

  it('report an unknown field with its path, as strict server-side field validation would', () => {
    expect(validateManifest(pool({ addresses: ['10.4.0.100-10.4.0.149'], adresses: [] }), pinned)).toEqual([
      'IPAddressPool metallb-system/tenant-vips: spec.adresses: unknown field (not in the CRD schema)',
    ]);
  });

  it('report a wrong type deep inside a list', () => {
    const errors = validateManifest(pool({ addresses: ['10.4.0.100-10.4.0.149'], serviceAllocation: { namespaces: [42] } }), pinned);
    expect(errors).toEqual(['IPAddressPool metallb-system/tenant-vips: spec.serviceAllocation.namespaces[0]: must be string, got number']);
  });

  it('report a version the CRD does not serve, listing the served ones', () => {
    const errors = validateManifest({ apiVersion: 'controlplane.cluster.x-k8s.io/v1alpha1', kind: 'KamajiControlPlane', metadata: { name: 'a', namespace: 'b' }, spec: {} }, pinned);
    expect(errors[0]).toMatch(/controlplane\.cluster\.x-k8s\.io\/v1alpha1 is not served by the KamajiControlPlane CRD .*served: v1alpha2/);
  });

  it('report a kind no CRD defines', () => {
    expect(validateManifest({ apiVersion: 'metallb.io/v1beta1', kind: 'IPPool', metadata: { name: 'a', namespace: 'b' } }, pinned)[0]).toMatch(/no CRD defines IPPool in group metallb\.io/);
  });

  it('check metadata: namespace by scope, name syntax, label syntax', () => {
    const datastore = { apiVersion: 'kamaji.clastix.io/v1alpha1', kind: 'DataStore', metadata: { name: 'default', namespace: 'kamaji-system' }, spec: { driver: 'etcd', endpoints: ['e:2379'] } };
    expect(validateManifest(datastore, pinned)).toContain('DataStore kamaji-system/default: metadata.namespace: DataStore is cluster-scoped and takes no namespace');
    expect(validateManifest(pool({ addresses: [] }, { name: 'Tenant_VIPs', namespace: 'metallb-system' }), pinned).join('\n')).toMatch(/metadata\.name: "Tenant_VIPs" does not match/);
    expect(validateManifest(pool({ addresses: [] }, { name: 'p' }), pinned).join('\n')).toMatch(/IPAddressPool is namespaced; set the namespace explicitly/);
    expect(validateManifest(pool({ addresses: [] }, { name: 'p', namespace: 'n', labels: { 'bad key!': 'x' } }), pinned).join('\n')).toMatch(/metadata\.labels: key "bad key!" is not a valid name/);
    expect(validateManifest(pool({ addresses: [] }, { name: 'p', namespace: 'n', labl: {} }), pinned)).toEqual(['IPAddressPool n/p: metadata.labl: unknown field (not in the CRD schema)']);
  });

  it('check enums of the real CRDs (DataStore driver)', () => {
    const datastore = { apiVersion: 'kamaji.clastix.io/v1alpha1', kind: 'DataStore', metadata: { name: 'default' }, spec: { driver: 'Etcd', endpoints: ['e:2379'] } };
    expect(validateManifest(datastore, pinned).join('\n')).toMatch(/spec\.driver: "Etcd" is not one of "etcd", "MySQL", "PostgreSQL", "NATS"/);
  });

  it('list the CEL rules that apply instead of pretending to check them', () => {
    const provider = { apiVersion: 'operator.cluster.x-k8s.io/v1alpha2', kind: 'CoreProvider', metadata: { name: 'cluster-api', namespace: 'capi-system' }, spec: { version: 'v1.13.6', fetchConfig: { oci: 'r.example/x' } } };
    expect(validateManifest(provider, pinned)).toEqual([]);
    const rules = uncheckedRules(provider, pinned);
    expect(rules).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'spec.fetchConfig', message: 'Must specify one and only one of {oci, url, selector}' })]));
  });
});

describe('validation rules, on CRDs written for the test', () => {
  let dir: string;
  let crds: CrdSet;
  const widget = (spec: unknown) => ({ apiVersion: 'example.pvekaas.dev/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'n' }, spec });

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'pvekaas-crds-'));
    mkdirSync(join(dir, 'nested'));
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.pvekaas.dev' },
      spec: {
        group: 'example.pvekaas.dev',
        names: { kind: 'Widget', plural: 'widgets' },
        scope: 'Namespaced',
        versions: [
          { name: 'v0', served: false, storage: false, schema: { openAPIV3Schema: { type: 'object' } } },
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  apiVersion: { type: 'string' },
                  kind: { type: 'string' },
                  metadata: { type: 'object' },
                  spec: {
                    type: 'object',
                    required: ['size'],
                    'x-kubernetes-validations': [{ rule: 'self.size != "0"', message: 'size must not be zero' }],
                    properties: {
                      size: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
                      mode: { type: 'string', enum: ['fast', 'safe'] },
                      count: { type: 'integer', minimum: 0, exclusiveMinimum: true },
                      when: { type: 'string', format: 'date-time' },
                      address: { type: 'string', format: 'ipv4' },
                      width: { type: 'integer', format: 'int32' },
                      free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                      labels: { type: 'object', additionalProperties: { type: 'string' } },
                      maybe: { type: 'string', nullable: true },
                      template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': false, properties: { spec: { type: 'object', properties: { replicas: { type: 'integer' } } } } },
                      ports: {
                        type: 'array',
                        'x-kubernetes-list-type': 'map',
                        'x-kubernetes-list-map-keys': ['name'],
                        items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, port: { type: 'integer' } } },
                      },
                    },
                  },
                },
              },
            },
          },
        ],
      },
    };
    writeFileSync(join(dir, 'nested', 'widgets.yaml'), `# a comment\n---\n${stringify(crd)}---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: ignored}\n`);
    crds = loadCrds(dir);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('finds CRDs in nested directories among other documents', () => {
    expect([...crds.crds.keys()]).toEqual(['example.pvekaas.dev/Widget']);
  });

  it('refuses a version that exists but is not served', () => {
    expect(validateManifest({ ...widget({ size: 1 }), apiVersion: 'example.pvekaas.dev/v0' }, crds)[0]).toMatch(/v0 is not served .*served: v1/);
  });

  it('takes an integer or a string for x-kubernetes-int-or-string, and nothing else', () => {
    expect(validateManifest(widget({ size: 3 }), crds)).toEqual([]);
    expect(validateManifest(widget({ size: '50%' }), crds)).toEqual([]);
    expect(validateManifest(widget({ size: 1.5 }), crds)).toEqual(['Widget n/w: spec.size: must be an integer or a string, got 1.5']);
    expect(validateManifest(widget({ size: true }), crds)).toEqual(['Widget n/w: spec.size: must be an integer or a string, got true']);
  });

  it('reports a missing required field at its path', () => {
    expect(validateManifest(widget({}), crds)).toEqual(['Widget n/w: spec.size: required field missing']);
  });

  it('checks enums, exclusive bounds and the formats the API server checks, and ignores int32', () => {
    expect(validateManifest(widget({ size: 1, mode: 'slow', count: 0, when: 'yesterday', address: '10.0.0.256', width: 3 }), crds)).toEqual([
      'Widget n/w: spec.mode: "slow" is not one of "fast", "safe"',
      'Widget n/w: spec.count: must be > 0 (got 0)',
      'Widget n/w: spec.when: "yesterday" is not a valid date-time',
      'Widget n/w: spec.address: "10.0.0.256" is not a valid ipv4',
    ]);
    expect(validateManifest(widget({ size: 1, when: '2026-12-02T09:00:00Z', address: '10.0.0.1', count: 1 }), crds)).toEqual([]);
  });

  it('keeps unknown fields below x-kubernetes-preserve-unknown-fields and in maps', () => {
    expect(validateManifest(widget({ size: 1, free: { anything: { goes: [1] } }, labels: { a: 'b' } }), crds)).toEqual([]);
    expect(validateManifest(widget({ size: 1, labels: { a: 1 } }), crds)).toEqual(['Widget n/w: spec.labels.a: must be string, got number']);
  });

  it('allows null only where the schema is nullable', () => {
    expect(validateManifest(widget({ size: 1, maybe: null }), crds)).toEqual([]);
    expect(validateManifest(widget({ size: 1, mode: null }), crds).join('\n')).toMatch(/spec\.mode: must be string, got null/);
  });

  it('treats an embedded resource as apiVersion/kind/metadata plus its own fields', () => {
    const template = { apiVersion: 'v1', kind: 'Thing', metadata: { name: 't', labels: { a: 'b' } }, spec: { replicas: 2 } };
    expect(validateManifest(widget({ size: 1, template }), crds)).toEqual([]);
    expect(validateManifest(widget({ size: 1, template: { ...template, extra: 1 } }), crds)).toEqual(['Widget n/w: spec.template.extra: unknown field (not in the CRD schema)']);
  });

  it('refuses two list-map items with the same key', () => {
    expect(validateManifest(widget({ size: 1, ports: [{ name: 'a', port: 1 }, { name: 'b' }] }), crds)).toEqual([]);
    expect(validateManifest(widget({ size: 1, ports: [{ name: 'a', port: 1 }, { name: 'a', port: 2 }] }), crds)).toEqual(['Widget n/w: spec.ports: two items have the same key (name)']);
  });

  it('lists CEL rules for the fields present, with their message', () => {
    expect(uncheckedRules(widget({ size: 1 }), crds)).toEqual([{ path: 'spec', rule: 'self.size != "0"', message: 'size must not be zero' }]);
  });

  it('names the directory when it cannot be read', () => {
    expect(() => loadCrds(join(dir, 'missing'))).toThrow(/cannot read the CRD directory .*missing.*PVEKAAS_CRDS_DIR/);
  });

  it('resolves the CRD tree from PVEKAAS_CRDS_DIR relative to the project, or .toolchain/crds', () => {
    expect(crdsDir('/p/main', {})).toBe('/p/main/.toolchain/crds');
    expect(crdsDir('/p/main', { PVEKAAS_CRDS_DIR: 'ci/crds' })).toBe('/p/main/ci/crds');
    expect(crdsDir('/p/main', { PVEKAAS_CRDS_DIR: '/abs/crds' })).toBe('/abs/crds');
  });
});
