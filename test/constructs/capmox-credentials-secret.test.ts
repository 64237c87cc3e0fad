/** CapmoxCredentialsSecret writes one tenant's token on one instance, named and labelled for both. */
import { CapmoxCredentialsSecret } from '../../constructs/capmox-credentials-secret';
import { CAPMOX_CREDENTIALS_NAMESPACE, CAPMOX_SECRET_TYPE_LABEL, capmoxTenantCredentialsSecretName } from '../../modules/versions/layout';
import { kubernetes, resourcesOf, synthJson } from './support';

describe('CapmoxCredentialsSecret', () => {
  it('writes the url, token and secret it is given, in CAPMOX namespace, named for instance and tenant', () => {
    const json = synthJson(
      (stack) =>
        new CapmoxCredentialsSecret(stack, 'tenant-a', {
          provider: kubernetes(stack),
          instance: 'pmox-txl',
          tenant: 'tenant-a',
          url: 'https://pmox-txl.lab.example:8006',
          token: 'capmox@pve!tenant-tenant-a',
          secret: 'not-a-real-secret',
        }),
    );
    const [[id, s]] = Object.entries(resourcesOf(json, 'kubernetes_secret_v1'));
    expect(id).toMatch(/^tenant-a_secret_[0-9A-F]{8}$/);
    expect(s.metadata).toEqual({
      name: capmoxTenantCredentialsSecretName('pmox-txl', 'tenant-a'),
      namespace: CAPMOX_CREDENTIALS_NAMESPACE,
      labels: { ...CAPMOX_SECRET_TYPE_LABEL, 'app.kubernetes.io/managed-by': 'pvekaas', 'pvekaas.dev/instance': 'pmox-txl', 'pvekaas.dev/tenant': 'tenant-a' },
    });
    expect(s.data).toEqual({ url: 'https://pmox-txl.lab.example:8006', token: 'capmox@pve!tenant-tenant-a', secret: 'not-a-real-secret' });
  });
});
