/** TenantCredentials copies url, token and secret of its own source Secret, with the given name, labels and TLS keys. */
import { TenantCredentials } from '../../constructs/tenant-credentials';
import { planPlacement } from '../../modules/placement';
import { renderTenant } from '../../modules/tenants';
import { exampleLab } from '../management/synth';
import { resourcesOf, synthJson } from './support';

describe('TenantCredentials', () => {
  it('reads the given source and writes the given copy, its keys by reference to that source only', () => {
    const lab = exampleLab();
    const [copy] = renderTenant(lab, planPlacement(lab), 'tenant-a').credentials;
    const json = synthJson((stack) => new TenantCredentials(stack, `credentials-${copy.instance}`, { tenant: 'tenant-a', ...copy }));
    const [[sourceId, source]] = Object.entries(json.data.kubernetes_secret_v1) as [string, any][];
    expect(source.metadata).toEqual({ name: copy.source.name, namespace: copy.source.namespace });
    const [[id, secret]] = Object.entries(resourcesOf(json, 'kubernetes_secret_v1'));
    expect(id).toMatch(new RegExp(`^credentials-${copy.instance}_copy_[0-9A-F]{8}$`));
    expect(secret.metadata).toEqual({ name: copy.target.name, namespace: copy.target.namespace, labels: copy.labels });
    expect(secret.type).toBe('Opaque');
    const ref = (key: string) => `\${data.kubernetes_secret_v1.${sourceId}.data.${key}}`;
    expect(secret.data).toEqual({ url: ref('url'), token: ref('token'), secret: ref('secret'), ...copy.tlsData });
  });
});
