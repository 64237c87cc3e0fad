/** CniHelmChartProxy writes the rendered HelmChartProxy as it is given: namespace, selector, chart. */
import { CniHelmChartProxy } from '../../constructs/cni-helm-chart-proxy';
import { cniHelmChartProxy } from '../../modules/tenants/cni';
import { resourcesOf, synthJson } from './support';

describe('CniHelmChartProxy', () => {
  it('writes exactly the proxy it is given, in the tenant namespace, under the construct id', () => {
    const proxy = cniHelmChartProxy('cilium', 'tenant-a', { charts: 'https://charts.mirror.example' });
    const json = synthJson((stack) => new CniHelmChartProxy(stack, 'cni-cilium', { proxy }));
    const written = resourcesOf(json, 'kubernetes_manifest');
    expect(Object.keys(written)).toEqual([expect.stringMatching(/^cni-cilium_proxy_[0-9A-F]{8}$/)]);
    const manifest = Object.values(written)[0].manifest;
    expect(manifest).toEqual(JSON.parse(JSON.stringify(proxy).replace(/\$\{/g, '$${')));
    expect(manifest.metadata.namespace).toBe('tenant-a');
  });

  it('writes another namespace when given one (nothing of its own)', () => {
    const proxy = cniHelmChartProxy('calico', 'tenant-b');
    const json = synthJson((stack) => new CniHelmChartProxy(stack, 'cni-calico', { proxy }));
    expect(Object.values(resourcesOf(json, 'kubernetes_manifest'))[0].manifest.metadata).toEqual({ name: proxy.metadata.name, namespace: 'tenant-b' });
  });
});
