/**
 * kubernetes_manifest in HCL: cdktf 0.21's map renderer turns lists inside a manifest into maps of
 * indices with unquoted values; KubernetesManifest writes the exact HCL expression instead.
 */
import { Manifest } from '@cdktf/provider-kubernetes/lib/manifest';
import { SecretV1 } from '@cdktf/provider-kubernetes/lib/secret-v1';
import { KubernetesManifest, hclExpression } from '../../constructs/providers/kubernetes-manifest';
import { synthStack } from '../support/synth-stack';

const synth = synthStack;

const manifest = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'm', namespace: 'default', labels: { replicas: '2' } },
  data: { 'a.b': '{{ x }}', quote: 'say "hi"\n', dollar: '$5' },
  list: [{ name: 'provider-id', value: "proxmox://'{{ ds.meta_data.instance_id }}'" }, 'plain', 3, true, null],
};

describe('KubernetesManifest', () => {
  it('the stock Manifest writes lists as index maps with unquoted values (the defect repaired)', () => {
    const hcl = synth(true, (stack) => new Manifest(stack, 'm', { manifest }));
    expect(hcl).toMatch(/0 = proxmox:\/\//);
  });

  it('writes objects with quoted keys, lists as lists, and strings exactly', () => {
    const hcl = synth(true, (stack) => new KubernetesManifest(stack, 'm', { manifest }));
    expect(hcl).toContain('"list" = [');
    expect(hcl).toContain('"value" = "proxmox://\'{{ ds.meta_data.instance_id }}\'"');
    expect(hcl).toContain('"replicas" = "2"'); // a string stays a string
    expect(hcl).toContain('"quote" = "say \\"hi\\"\\n"');
    expect(hcl).toContain('"a.b" = "{{ x }}"');
    expect(hcl).toMatch(/"plain",\n\s+3,\n\s+true,\n\s+null,/);
  });

  it('keeps references to other resources as references', () => {
    const hcl = synth(true, (stack) => {
      const secret = new SecretV1(stack, 's', { metadata: { name: 's' } });
      new KubernetesManifest(stack, 'm', { manifest: { ...manifest, data: { secret: secret.metadata.name } } });
    });
    expect(hcl).toMatch(/"secret" = "\$\{kubernetes_secret_v1\.s\.metadata\[0\]\.name\}"/);
  });

  it('leaves the JSON output as the stock Manifest writes it', () => {
    expect(synth(false, (stack) => new KubernetesManifest(stack, 'm', { manifest }))).toBe(synth(false, (stack) => new Manifest(stack, 'm', { manifest })));
  });

  it('renders empty and nested values', () => {
    expect(hclExpression({ a: [], b: {}, c: [[1]], 'x-y': '\b' })).toBe(
      '{\n  "a" = []\n  "b" = {}\n  "c" = [\n    [\n      1,\n    ],\n  ]\n  "x-y" = "\\u0008"\n}',
    );
  });
});
