/**
 * The twin stands in for the management stack's cluster-api-operator release with the controllers
 * it starts: they must be ready within the release's `timeout` when it waits (hashicorp/helm 3.1.1
 * defaults: wait true, timeout 300 s), or the twin fails as the provider would.
 */
import { helmRelease, helmTimeout } from '../../twin/index';
import type { StackContents } from '../../twin/stack-objects';

const stack = (releases: Record<string, unknown>): StackContents => ({
  stack: 'management',
  objects: [],
  skipped: [],
  config: { resource: { helm_release: releases } },
});

describe('the helm_release stand-in', () => {
  it("reads wait and timeout with the provider's defaults", () => {
    expect(helmRelease(stack({ op: { name: 'capi-operator', chart: 'cluster-api-operator' } }), 'cluster-api-operator')).toEqual({
      address: 'helm_release.op',
      name: 'capi-operator',
      chart: 'cluster-api-operator',
      wait: true,
      timeoutSeconds: 300,
    });
    expect(helmRelease(stack({ op: { name: 'x', chart: 'cluster-api-operator', wait: false, timeout: 900 } }), 'cluster-api-operator')).toMatchObject({
      wait: false,
      timeoutSeconds: 900,
    });
    expect(() => helmRelease(stack({}), 'cluster-api-operator')).toThrow(/has no cluster-api-operator release/);
  });

  it("fails with the provider's text past the timeout", () => {
    const e = helmTimeout({ address: 'helm_release.op', name: 'capi-operator', chart: 'cluster-api-operator', wait: true, timeoutSeconds: 900 }, 1000);
    expect(e.message).toContain('Helm release "capi-operator" was created but has a failed status');
    expect(e.message).toContain('Error: Helm release error: context deadline exceeded');
  });
});
