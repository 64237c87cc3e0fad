/**
 * The tenant kube-controller-manager's arguments (twin/tenant-controller-manager.ts): the
 * pinned Kamaji's buildControllerManager map, the TenantControlPlane's extraArgs merged over it, the
 * twin's stated deviations last. The process itself runs in test/kube/tenant-identity.test.ts and
 * test/twin/identity.test.ts.
 */
import { controllerManagerArgs } from '../../twin/tenant-controller-manager';

const files = { kubeconfig: '/t/controller-manager.conf', caCert: '/t/ca.crt', caKey: '/t/ca.key', serviceAccountKey: '/t/service-account.key' };
const tcp = (spec: Record<string, unknown>) => ({ metadata: { name: 'tenant-a' }, spec });

describe("the tenant kube-controller-manager's arguments", () => {
  it("are Kamaji's, sorted, with the twin's files and deviations", () => {
    expect(controllerManagerArgs(tcp({ networkProfile: { podCidrs: ['10.244.0.0/16'], serviceCidr: '10.96.0.0/16' } }), files)).toEqual([
      '--allocate-node-cidrs=true',
      '--bind-address=127.0.0.1',
      '--client-ca-file=/t/ca.crt',
      '--cluster-cidr=10.244.0.0/16',
      '--cluster-name=tenant-a',
      '--cluster-signing-cert-file=/t/ca.crt',
      '--cluster-signing-key-file=/t/ca.key',
      '--controllers=*,bootstrapsigner,tokencleaner,-node-lifecycle-controller',
      '--kubeconfig=/t/controller-manager.conf',
      '--leader-elect=false',
      '--root-ca-file=/t/ca.crt',
      '--secure-port=0',
      '--service-account-private-key-file=/t/service-account.key',
      '--service-cluster-ip-range=10.96.0.0/16',
      '--use-service-account-credentials=true',
    ]);
  });

  it("take the plural CIDR fields over the deprecated singular ones (utilities.GetEffectiveCIDRs) and the user's extraArgs over Kamaji's", () => {
    const args = controllerManagerArgs(
      tcp({
        networkProfile: { podCidr: '10.1.0.0/16', podCidrs: ['10.2.0.0/16', 'fd00::/56'], serviceCidr: '10.96.0.0/16' },
        controlPlane: { deployment: { extraArgs: { controllerManager: ['--controllers=*', '--node-cidr-mask-size=25', '--profiling'] } } },
      }),
      files,
    );
    expect(args).toContain('--cluster-cidr=10.2.0.0/16,fd00::/56');
    expect(args).toContain('--node-cidr-mask-size=25');
    expect(args).toContain('--profiling');
    expect(args).toContain('--controllers=*,-node-lifecycle-controller');
    expect(args.filter((a) => a.startsWith('--controllers'))).toHaveLength(1);
  });
});
