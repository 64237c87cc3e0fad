/**
 * The lab twin's Kamaji and provider rules (twin/kamaji-rules.ts), on what pvekaas renders:
 * the KamajiControlPlaneTemplate of the class, the kamaji-etcd values of the example lab. Each
 * refusal is the message Kamaji's webhook or DataStore controller gives (kamaji-rules.ts cites them).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseLab } from '../../modules/config/load';
import { renderManagement } from '../../modules/management';
import { clusterClassTemplates } from '../../modules/tenants/cluster-class-templates';
import { KAMAJI_DATASTORE_NAME } from '../../modules/versions/layout';
import { defaultTenantControlPlane, tenantControlPlaneFor, validateTenantControlPlane } from '../../twin/kamaji-rules';
import { kamajiEtcdDataStore, validateDataStore } from '../../twin/kamaji/datastore-rules';
import { konnectivityAgentObjects } from '../../twin/kamaji/konnectivity-rules';

const root = join(__dirname, '../..');
const lab = parseLab(readFileSync(join(root, 'examples/lab.yaml'), 'utf8'), 'examples/lab.yaml');
const management = renderManagement(lab);

/** The KamajiControlPlane CAPI's topology makes from the class template (its spec, owned by the Cluster). */
function kcpFromClass(dataStoreName = KAMAJI_DATASTORE_NAME, version = 'v1.36.3') {
  const template = clusterClassTemplates({ dataStoreName, multiInstance: 'refuse' }).find((t) => t.kind === 'KamajiControlPlaneTemplate') as any;
  return {
    apiVersion: 'controlplane.cluster.x-k8s.io/v1alpha2',
    kind: 'KamajiControlPlane',
    metadata: {
      name: 'tenant-a',
      namespace: 'tenant-a',
      uid: 'kcp-uid',
      labels: { 'cluster.x-k8s.io/cluster-name': 'tenant-a' },
      ownerReferences: [{ kind: 'Cluster', name: 'tenant-a' }],
    },
    spec: {
      ...structuredClone(template.spec.template.spec),
      version,
      replicas: 2,
      network: { ...template.spec.template.spec.network, serviceAddress: '10.10.0.5' },
    },
  };
}
const cluster = {
  metadata: { name: 'tenant-a', namespace: 'tenant-a' },
  spec: {
    clusterNetwork: {
      apiServerPort: 6443,
      services: { cidrBlocks: ['10.96.0.0/12'] },
      pods: { cidrBlocks: ['10.244.0.0/16'] },
      serviceDomain: 'cluster.local',
    },
  },
};
const exists = (...names: string[]) => ({ dataStoreExists: (n: string) => names.includes(n) });

describe('the provider: TenantControlPlane from a KamajiControlPlane (createOrUpdateTenantControlPlane)', () => {
  it('maps the rendered class template field by field', () => {
    const tcp = tenantControlPlaneFor(kcpFromClass(), cluster);
    expect(tcp.metadata).toMatchObject({ name: 'tenant-a', namespace: 'tenant-a', labels: { 'cluster.x-k8s.io/cluster-name': 'tenant-a' } });
    expect(tcp.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'KamajiControlPlane', name: 'tenant-a', uid: 'kcp-uid', controller: true })]);
    expect(tcp.spec.dataStore).toBe(KAMAJI_DATASTORE_NAME);
    expect(tcp.spec.kubernetes).toMatchObject({ version: 'v1.36.3', kubelet: { cgroupfs: 'systemd' } });
    expect(tcp.spec.networkProfile).toMatchObject({
      port: 6443,
      serviceCidr: '10.96.0.0/12',
      podCidr: '10.244.0.0/16',
      clusterDomain: 'cluster.local',
      address: '10.10.0.5',
    });
    expect(tcp.spec.controlPlane.service.serviceType).toBe('LoadBalancer');
    expect(tcp.spec.controlPlane.deployment.replicas).toBe(2);
    expect(tcp.spec.addons.konnectivity.agent.mode).toBe('DaemonSet');
    // CoreDNS's dnsServiceIPs are the provider's override of the network profile, not an addon field.
    expect(tcp.spec.addons.coreDNS).toEqual({});
  });

  it('prefixes a version without "v", and refuses a cert SAN with a port', () => {
    const kcp = kcpFromClass(undefined, '1.35.4');
    expect(tenantControlPlaneFor(kcp, cluster).spec.kubernetes.version).toBe('v1.35.4');
    kcp.spec.network.certSANs = ['api.example:6443'];
    expect(() => tenantControlPlaneFor(kcp, cluster)).toThrow('entry api.example:6443 is invalid');
  });
});

describe("Kamaji's admission webhooks", () => {
  const created = (kcp = kcpFromClass()) => defaultTenantControlPlane(tenantControlPlaneFor(kcp, cluster), KAMAJI_DATASTORE_NAME);

  it('admits what the class renders when its DataStore exists, with the defaults (DNS service IP = service CIDR + 10)', () => {
    const tcp = created();
    expect(tcp.spec.networkProfile.dnsServiceIPs).toEqual(['10.96.0.10']);
    expect(validateTenantControlPlane(tcp, undefined, exists(KAMAJI_DATASTORE_NAME))).toBeUndefined();
  });

  it('refuses a DataStore that does not exist (tcp_datastore.go), on create and on update', () => {
    const tcp = created(kcpFromClass('does-not-exist'));
    expect(validateTenantControlPlane(tcp, undefined, exists(KAMAJI_DATASTORE_NAME))).toBe('does-not-exist DataStore does not exist');
    expect(validateTenantControlPlane(tcp, created(), exists(KAMAJI_DATASTORE_NAME))).toBe('does-not-exist DataStore does not exist');
  });

  it("refuses a version above Kamaji's KubeadmVersion minor, a downgrade and a skipped minor (tcp_version.go)", () => {
    const ok = exists(KAMAJI_DATASTORE_NAME);
    expect(validateTenantControlPlane(created(kcpFromClass(undefined, 'v1.36.9')), undefined, ok)).toBeUndefined();
    expect(validateTenantControlPlane(created(kcpFromClass(undefined, 'v1.37.0')), undefined, ok)).toMatch(/greater than the supported one, actually v1\.36/);
    // From 1.34 a skipped minor (1.36) stays within KubeadmVersion: refused for the skip, not for the bound.
    const old = created(kcpFromClass(undefined, 'v1.34.2'));
    expect(validateTenantControlPlane(created(kcpFromClass(undefined, 'v1.35.4')), old, ok)).toBeUndefined();
    expect(validateTenantControlPlane(created(kcpFromClass(undefined, 'v1.33.0')), old, ok)).toMatch(/unable to downgrade/);
    expect(validateTenantControlPlane(created(kcpFromClass(undefined, 'v1.36.3')), old, ok)).toBe(
      'unable to upgrade to a minor version in a non-sequential mode',
    );
  });

  it('refuses DNS service IPs outside the service CIDRs (tcp_dns.go)', () => {
    const kcp = kcpFromClass();
    kcp.spec.addons.coreDNS = { dnsServiceIPs: ['10.200.0.10'] };
    expect(validateTenantControlPlane(created(kcp), undefined, exists(KAMAJI_DATASTORE_NAME))).toBe(
      'DNS service IP "10.200.0.10" is not contained in any configured service CIDR',
    );
  });
});

describe("the kamaji-etcd release and Kamaji's DataStore controller", () => {
  const { values } = management;
  const ds = kamajiEtcdDataStore(values.kamajiEtcd, 'kamaji-etcd', 'kamaji-system')!;
  const issued: Record<string, Record<string, string>> = {
    'kamaji-system/kamaji-etcd-ca': { 'tls.crt': 'x', 'tls.key': 'x', 'ca.crt': 'x' },
    'kamaji-system/kamaji-etcd-client-certs': { 'tls.crt': 'x', 'tls.key': 'x', 'ca.crt': 'x' },
  };

  it("renders the chart's DataStore under the name Kamaji defaults to", () => {
    expect(ds.metadata.name).toBe(KAMAJI_DATASTORE_NAME);
    expect((values.kamaji as any).defaultDatastoreName).toBe(ds.metadata.name);
    expect(ds.spec.driver).toBe('etcd');
    expect(ds.spec.endpoints).toHaveLength(lab.management.datastore.replicas);
    expect(ds.spec.endpoints[0]).toBe(`kamaji-etcd-0.kamaji-etcd.kamaji-system.svc.${lab.management.clusterDomain}:2379`);
  });

  it('is ready only with its TLS Secrets present', () => {
    expect(validateDataStore(ds, (ns, n) => issued[`${ns}/${n}`])).toBeUndefined();
    expect(validateDataStore(ds, (ns, n) => (n === 'kamaji-etcd-client-certs' ? undefined : issued[`${ns}/${n}`]))).toEqual({
      reason: 'TLSConfigurationValidationFailed',
      message: 'client certificate is not valid, secret kamaji-system/kamaji-etcd-client-certs is not found',
    });
    const noClient = structuredClone(ds);
    delete noClient.spec.tlsConfig.clientCertificate;
    expect(validateDataStore(noClient, (ns, n) => issued[`${ns}/${n}`])?.message).toBe('client certificate is required when using the etcd driver');
    const basic = structuredClone(ds);
    basic.spec.basicAuth = {
      username: { content: 'dXNlcg==' },
      password: { secretReference: { name: 'pw', namespace: 'kamaji-system', keyPath: 'password' } },
    };
    expect(validateDataStore(basic, (ns, n) => issued[`${ns}/${n}`])).toEqual({
      reason: 'BasicAuthValidationFailed',
      message: 'basic-auth password is not valid, secret kamaji-system/pw is not found',
    });
  });
});

describe("Kamaji's Konnectivity addon in the tenant cluster", () => {
  it('runs the agent the class asks for (DaemonSet, pod network), dialing the VIP on the Konnectivity server port', () => {
    const tcp = tenantControlPlaneFor(kcpFromClass(), cluster);
    const [sa, crb, agent] = konnectivityAgentObjects(tcp);
    expect(sa).toMatchObject({ kind: 'ServiceAccount', metadata: { name: 'konnectivity-agent', namespace: 'kube-system' } });
    expect(sa.metadata.labels['kamaji.clastix.io/component']).toBe('konnectivity-sa');
    expect(crb).toMatchObject({
      kind: 'ClusterRoleBinding',
      roleRef: { name: 'system:auth-delegator' },
      subjects: [{ kind: 'User', name: 'system:konnectivity-server' }],
    });
    expect(agent.kind).toBe('DaemonSet');
    expect(agent.spec.template.spec.hostNetwork).toBe(false);
    expect(agent.spec.template.spec.tolerations).toEqual([{ operator: 'Exists' }]);
    const args: string[] = agent.spec.template.spec.containers[0].args;
    expect(args).toContain('--proxy-server-host=10.10.0.5');
    expect(args).toContain(`--proxy-server-port=${tcp.spec.addons.konnectivity.server.port}`);
    expect(agent.spec.template.spec.containers[0].image).toBe('registry.k8s.io/kas-network-proxy/proxy-agent:v0.36.0');
  });

  it('writes nothing without the addon, and refuses a control plane without an address', () => {
    const tcp = tenantControlPlaneFor(kcpFromClass(), cluster);
    delete tcp.spec.addons.konnectivity;
    expect(konnectivityAgentObjects(tcp)).toEqual([]);
    const noAddress = tenantControlPlaneFor(kcpFromClass(), cluster);
    delete noAddress.spec.networkProfile.address;
    expect(() => konnectivityAgentObjects(noAddress)).toThrow('unable to retrieve the Tenant Control Plane address');
  });
});
