/** CapiProvidersReadyJob waits for each given provider at its given version, with the given image, in the given namespace. */
import { CapiProvidersReadyJob } from '../../constructs/capi-providers-ready-job';
import { kubernetes, resourcesOf, synthJson } from './support';

describe('CapiProvidersReadyJob', () => {
  it('one container per provider, each waiting for its installedVersion; RBAC on exactly those resources', () => {
    const providers = [
      { resource: 'infrastructureproviders', name: 'proxmox', namespace: 'capmox-system', version: 'v9.2.0' },
      { resource: 'coreproviders', name: 'cluster-api', namespace: 'capi-system', version: 'v9.1.0' },
    ];
    const json = synthJson(
      (stack) =>
        new CapiProvidersReadyJob(stack, 'capi-providers-ready', {
          provider: kubernetes(stack),
          namespace: 'capi-operator-system',
          kubectlImage: 'registry.example/kubectl:v1',
          providers,
        }),
    );
    const [[, job]] = Object.entries(resourcesOf(json, 'kubernetes_job_v1'));
    expect(job.metadata.namespace).toBe('capi-operator-system');
    const containers = job.spec.template.spec.container;
    expect(containers.map((c: any) => [c.image, c.args.slice(0, 2), c.args.slice(3)])).toEqual([
      [
        'registry.example/kubectl:v1',
        ['wait', '--for=jsonpath={.status.installedVersion}=v9.1.0'],
        ['--namespace', 'capi-system', 'coreproviders/cluster-api'],
      ],
      [
        'registry.example/kubectl:v1',
        ['wait', '--for=jsonpath={.status.installedVersion}=v9.2.0'],
        ['--namespace', 'capmox-system', 'infrastructureproviders/proxmox'],
      ],
    ]);
    const [[, role]] = Object.entries(resourcesOf(json, 'kubernetes_cluster_role_v1'));
    expect(role.rule).toEqual([
      { api_groups: ['operator.cluster.x-k8s.io'], resources: ['coreproviders', 'infrastructureproviders'], verbs: ['get', 'list', 'watch'] },
    ]);
    expect(Object.values(resourcesOf(json, 'kubernetes_service_account_v1'))[0].metadata.namespace).toBe('capi-operator-system');
  });
});
