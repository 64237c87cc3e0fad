/**
 * hashicorp/helm 3.x takes the provider's `kubernetes` and a release's `set`, `set_sensitive` and
 * `postrender` as nested attributes. The bindings of @cdktf/provider-helm 12.x render them as HCL
 * blocks; HelmV3Provider and HelmV3Release render attribute values instead, and keep JSON as is.
 */
import { HelmProvider } from '@cdktf/provider-helm/lib/provider';
import { Release } from '@cdktf/provider-helm/lib/release';
import { HelmV3Provider, HelmV3Release } from '../../constructs/providers/helm-v3';
import { fixHcl } from '../../scripts/lib/hcl-fixups';
import { synthStack } from '../support/synth-stack';

const synth = synthStack;

const releaseConfig = {
  name: 'cert-manager',
  chart: 'cert-manager',
  repository: 'https://charts.jetstack.io',
  version: 'v1.21.0',
  set: [
    { name: 'crds.enabled', value: 'true' },
    { name: 'replicaCount', value: '2' },
  ],
  setSensitive: [{ name: 'secret', value: '${var.secret}' }],
  postrender: { binaryPath: '/bin/cat' },
};

describe('helm 3.x in HCL', () => {
  it('the stock bindings write blocks (the defect these classes repair)', () => {
    const hcl = synth(true, (stack) => {
      new HelmProvider(stack, 'helm', { kubernetes: { configPath: '~/.kube/config' } });
      new Release(stack, 'release', releaseConfig);
    });
    expect(hcl).toMatch(/kubernetes \{/);
    expect(hcl).toMatch(/\nset \{/);
  });

  it('writes the provider kubernetes and the release set, set_sensitive and postrender as attributes', () => {
    const hcl = fixHcl(
      synth(true, (stack) => {
        new HelmV3Provider(stack, 'helm', { kubernetes: { configPath: '~/.kube/config', configContext: 'lab' } });
        new HelmV3Release(stack, 'release', releaseConfig);
      }),
    );
    expect(hcl).toContain('provider "helm" {\n  kubernetes = {\n    config_context = "lab"\n    config_path = "~/.kube/config"\n  }\n}');
    expect(hcl).not.toMatch(/\b(kubernetes|set|set_sensitive|postrender) \{/);
    expect(hcl).toMatch(
      /set = \[\n\s+\{\n\s+name = "crds.enabled"\n\s+value = "true"\n\s+\},\n\s+\{\n\s+name = "replicaCount"\n\s+value = "?2"?\n\s+\},\n\s+\]/,
    );
    expect(hcl).toMatch(/set_sensitive = \[\n\s+\{\n\s+name = "secret"\n\s+value = "\$\{var.secret\}"/);
    expect(hcl).toMatch(/postrender = \{\n\s+binary_path = "\/bin\/cat"\n\s+\}/);
  });

  it('leaves the JSON output as the stock bindings write it', () => {
    const stock = synth(false, (stack) => {
      new HelmProvider(stack, 'helm', { kubernetes: { configPath: '~/.kube/config' } });
      new Release(stack, 'release', releaseConfig);
    });
    const v3 = synth(false, (stack) => {
      new HelmV3Provider(stack, 'helm', { kubernetes: { configPath: '~/.kube/config' } });
      new HelmV3Release(stack, 'release', releaseConfig);
    });
    expect(v3).toBe(stock);
  });
});
