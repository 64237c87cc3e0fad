/**
 * The twin's Kamaji for the user's additions to the kube-apiserver container (issue 39): what the
 * provider copies from a KamajiControlPlane (apiServer.extraArgs, apiServer.extraVolumeMounts,
 * deployment.extraVolumes), which of the extra args Kamaji keeps (mergeAPIServerArgs drops those it
 * manages), the Deployment it would create with the user's volumes first, and the kubelet's part
 * (ConfigMap and Secret volumes as files, arguments under a mount path pointed at them).
 */
import { applyClassPatches } from '../../modules/tenants/class-patches';
import { classTemplates } from '../../modules/tenants/cluster-class';
import { classPatches } from '../../modules/tenants/cluster-class-patches';
import { KAMAJI_DATASTORE_NAME } from '../../modules/versions/layout';
import { apiServerMounts, apiServerUserArgs, controlPlaneDeployment, hostArgs, volumeFiles } from '../../twin/kamaji/api-server-rules';
import { tenantControlPlaneFor, validateTenantControlPlane } from '../../twin/kamaji-rules';

/** The KamajiControlPlane CAPI's topology makes for a tenant of a lab with identity. */
function kcp() {
  const template = structuredClone(classTemplates({ dataStoreName: KAMAJI_DATASTORE_NAME, multiInstance: 'secondary-clusters', identity: true }).controlPlane);
  applyClassPatches(classPatches('secondary-clusters', true), template, (m) => m.controlPlane === true, {
    controlPlaneVIP: '10.10.0.5',
    dnsServiceIP: '10.96.0.10',
    tenantAuthentication: { configMap: 'pvekaas-authentication' },
    builtin: { cluster: { name: 'tenant-a', namespace: 'tenant-a' } },
  });
  return {
    apiVersion: 'controlplane.cluster.x-k8s.io/v1alpha2',
    kind: 'KamajiControlPlane',
    metadata: { name: 'tenant-a', namespace: 'tenant-a', uid: 'u', ownerReferences: [{ kind: 'Cluster', name: 'tenant-a' }] },
    spec: { ...(template.spec as any).template.spec, version: 'v1.35.4', replicas: 2 },
  };
}
const cluster = { metadata: { name: 'tenant-a' }, spec: { clusterNetwork: { services: { cidrBlocks: ['10.96.0.0/12'] } } } };
const ok = { dataStoreExists: () => true };

describe("Kamaji's kube-apiserver additions, as the twin plays them", () => {
  it('the provider copies the extra args, mounts and volumes onto the TenantControlPlane, and the webhook admits them', () => {
    const tcp = tenantControlPlaneFor(kcp(), cluster);
    expect(tcp.spec.controlPlane.deployment.extraArgs.apiServer).toEqual([
      '--authentication-config=/etc/kubernetes/pvekaas-authentication/authentication-config.json',
    ]);
    expect(tcp.spec.controlPlane.deployment.additionalVolumeMounts.apiServer).toEqual([
      { name: 'pvekaas-authentication', mountPath: '/etc/kubernetes/pvekaas-authentication', readOnly: true },
    ]);
    expect(tcp.spec.controlPlane.deployment.additionalVolumes).toEqual([{ name: 'pvekaas-authentication', configMap: { name: 'pvekaas-authentication' } }]);
    expect(validateTenantControlPlane(tcp, undefined, ok)).toBeUndefined();
    // What the twin does not play is refused, not ignored.
    const withContainer = structuredClone(tcp);
    withContainer.spec.controlPlane.deployment.additionalContainers = [{ name: 'sidecar', image: 'x' }];
    expect(validateTenantControlPlane(withContainer, undefined, ok)).toMatch(/additional containers: not played/);
  });

  it("keeps the user's extra args in order, less the flags Kamaji manages", () => {
    const tcp = {
      metadata: {},
      spec: { controlPlane: { deployment: { extraArgs: { apiServer: ['--secure-port=1', '--authentication-config=/a/b', '--v=2', '--etcd-prefix=/x'] } } } },
    };
    expect(apiServerUserArgs(tcp)).toEqual(['--authentication-config=/a/b', '--v=2']);
  });

  it('plays configMap and secret volumes, refuses other sources and subPath, and leaves a mount of no volume to the dry-run', () => {
    const tcp = tenantControlPlaneFor(kcp(), cluster);
    expect(apiServerMounts(tcp)).toEqual([
      {
        name: 'pvekaas-authentication',
        mountPath: '/etc/kubernetes/pvekaas-authentication',
        source: { kind: 'ConfigMap', name: 'pvekaas-authentication', optional: false, items: undefined },
      },
    ]);
    const dep = tcp.spec.controlPlane.deployment;
    const other = structuredClone(tcp);
    other.spec.controlPlane.deployment.additionalVolumes = [{ name: 'pvekaas-authentication', emptyDir: {} }];
    expect(() => apiServerMounts(other)).toThrow(/only configMap and secret volumes are played/);
    const sub = structuredClone(tcp);
    sub.spec.controlPlane.deployment.additionalVolumeMounts.apiServer[0].subPath = 'x';
    expect(() => apiServerMounts(sub)).toThrow(/subPath is not played/);
    const orphan = structuredClone(tcp);
    orphan.spec.controlPlane.deployment.additionalVolumes = [];
    expect(apiServerMounts(orphan)).toEqual([]);
    // The Deployment Kamaji would create: the user's volumes and mounts before its own.
    const d = controlPlaneDeployment(tcp);
    expect(d.spec.template.spec.volumes.map((v: any) => v.name)).toEqual([
      dep.additionalVolumes[0].name,
      'etc-kubernetes-pki',
      'etc-ca-certificates',
      'usr-share-ca-certificates',
      'usr-local-share-ca-certificates',
      'scheduler-kubeconfig',
      'controller-manager-kubeconfig',
    ]);
    expect(d.spec.template.spec.containers[0].volumeMounts[0]).toEqual(dep.additionalVolumeMounts.apiServer[0]);
  });

  it("writes a volume's keys (or its items) as files, and points arguments under the mount path at them", () => {
    const [mount] = apiServerMounts(tenantControlPlaneFor(kcp(), cluster));
    expect([...volumeFiles(mount, { 'authentication-config.json': '{}' }, false)]).toEqual([['authentication-config.json', Buffer.from('{}')]]);
    const items = { ...mount, source: { ...mount.source, items: [{ key: 'missing', path: 'x' }] } };
    expect(() => volumeFiles(items, {}, false)).toThrow(/non-existent config key: missing/);
    expect(
      hostArgs(
        ['--authentication-config=/etc/kubernetes/pvekaas-authentication/authentication-config.json', '--v=2'],
        [{ mountPath: '/etc/kubernetes/pvekaas-authentication', hostDir: '/tmp/v/pvekaas-authentication' }],
      ),
    ).toEqual(['--authentication-config=/tmp/v/pvekaas-authentication/authentication-config.json', '--v=2']);
    expect(() =>
      hostArgs(['--authentication-config=/etc/kubernetes/other/config.json'], [{ mountPath: '/etc/kubernetes/pvekaas-authentication', hostDir: '/tmp/v' }]),
    ).toThrow(/no volume is mounted at that path/);
  });
});
