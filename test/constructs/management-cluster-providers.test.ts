/**
 * The one provider setup of the stacks that talk to the management cluster (management,
 * management-config, every tenant): a kubeconfig, or a host whose CA and token are sensitive
 * variables with the same names in every stack; the helm provider only when asked for.
 */
import { ManagementClusterProviders, MANAGEMENT_CA_VARIABLE, MANAGEMENT_TOKEN_VARIABLE } from '../../constructs/management-cluster-providers';
import { synthStack } from '../support/synth-stack';

const synthJson = (build: Parameters<typeof synthStack>[1]) => JSON.parse(synthStack(false, build));

describe('ManagementClusterProviders', () => {
  it('points both providers at a kubeconfig, with no variables', () => {
    const json = synthJson((stack) => {
      new ManagementClusterProviders(stack, 'access', { access: { configPath: '~/.kube/mgmt', context: 'lab' }, helm: true });
    });
    expect(json.provider.kubernetes).toEqual([{ config_path: '~/.kube/mgmt', config_context: 'lab' }]);
    expect(json.provider.helm).toEqual([{ kubernetes: { config_path: '~/.kube/mgmt', config_context: 'lab' } }]);
    expect(json.variable).toBeUndefined();
  });

  it('omits the context when the lab names none, and the helm provider unless asked for', () => {
    const json = synthJson((stack) => {
      new ManagementClusterProviders(stack, 'access', { access: { configPath: '~/.kube/mgmt' } });
    });
    expect(json.provider.kubernetes).toEqual([{ config_path: '~/.kube/mgmt' }]);
    expect(json.provider.helm).toBeUndefined();
  });

  it('takes CA and token from sensitive variables named the same in every stack', () => {
    const json = synthJson((stack) => {
      new ManagementClusterProviders(stack, 'providers', {
        access: { host: 'https://mgmt.lab.example:6443' },
        helm: true,
        tokenDescription: 'bearer token for the management cluster',
      });
    });
    expect(Object.keys(json.variable).sort()).toEqual([MANAGEMENT_CA_VARIABLE, MANAGEMENT_TOKEN_VARIABLE].sort());
    expect(json.variable[MANAGEMENT_CA_VARIABLE]).toMatchObject({ type: 'string', sensitive: true });
    expect(json.variable[MANAGEMENT_TOKEN_VARIABLE]).toEqual({ type: 'string', sensitive: true, description: 'bearer token for the management cluster' });
    const connection = {
      host: 'https://mgmt.lab.example:6443',
      cluster_ca_certificate: `\${var.${MANAGEMENT_CA_VARIABLE}}`,
      token: `\${var.${MANAGEMENT_TOKEN_VARIABLE}}`,
    };
    expect(json.provider.kubernetes).toEqual([connection]);
    expect(json.provider.helm).toEqual([{ kubernetes: connection }]);
  });

  it('creates its variables and providers under itself', () => {
    let paths: string[] = [];
    synthStack(false, (stack) => {
      const providers = new ManagementClusterProviders(stack, 'access', { access: { host: 'https://mgmt.lab.example:6443' }, helm: true });
      paths = stack.node.children.map((c) => c.node.id);
      expect(providers.node.children.map((c) => c.node.id).sort()).toEqual(['ca', 'helm', 'kubernetes', 'token']);
    });
    expect(paths).toEqual(['access']);
  });
});
