/**
 * One fixture per validation rule of the rule table (modules/config/rule-table.ts): a change to the
 * example lab (examples/lab.yaml, as parsed YAML) that makes exactly that rule fire, and no other
 * rule nor the schema. test/config/rules.test.ts runs each through the real loader (`parseLab`) and
 * fails for a rule without a fixture, for a fixture without a rule, and for a fixture that fires
 * anything else — so a rule disabled in its home fails a test.
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- a fixture edits the raw YAML document, before any type applies */

type Doc = any;

const FRA_IMAGE = {
  url: 'https://images.lab.example/ubuntu-2404-kube-v1.37.2.qcow2',
  checksum: '0c1f8a5e0f3f6b1d9a0d0c5c1a3b6e2f4d7c8b9a0e1f2a3b4c5d6e7f8091a2b3',
};

/** A valid identity provider (no CA: the system's roots). */
const IDENTITY = { issuer: 'https://login.lab.example/realms/lab', clientID: 'kubernetes' };

/** A second node network for tenant-c, apart from every range of the example. */
const network = (third: number) => ({
  addresses: [`10.30.${third}.10-10.30.${third}.60`],
  prefix: 24,
  gateway: `10.30.${third}.1`,
  dnsServers: [`10.30.${third}.1`],
});

export const RULE_FIXTURES: Record<string, (doc: Doc) => void> = {
  // modules/config/rules.ts
  'instance.name-twice': (d) => d.proxmox.instances.push({ ...d.proxmox.instances[1] }),
  'node.name-twice': (d) => (d.proxmox.instances[0].nodes[1].name = 'pmox-txl-1'),
  'template.unknown-source-node': (d) => (d.proxmox.instances[0].template.sourceNode = 'pmox-txl-9'),
  'template.version-twice': (d) => (d.proxmox.instances[0].template.versions = [{ kubernetesVersion: 'v1.35.4', templateID: 1001 }]),
  'vmid-range.reversed': (d) => (d.proxmox.instances[1].vmIdRange = { start: 9049, end: 9000 }),
  // pmox-fra's one image is built on its 3 nodes: 3 template ids, the range holds 2.
  'vmid-range.too-small': (d) => (d.proxmox.instances[1].vmIdRange = { start: 9000, end: 9001 }),
  // The issue 43 user's mistakes: the API path in the endpoint, an existing template inside the range, images never built.
  'instance.endpoint-api-path': (d) => (d.proxmox.instances[1].endpoint = 'https://pmox-fra.lab.example:8006/api2/json'),
  'template.id-in-vmid-range': (d) => (d.proxmox.instances[0].template.templateID = 9010),
  'image.not-built': (d) => (d.proxmox.instances[0].images = [{ kubernetesVersion: 'v1.35.4', ...FRA_IMAGE }]),
  'image.version-twice': (d) => d.proxmox.instances[1].images.push({ ...d.proxmox.instances[1].images[0] }),
  // 6 ids for 3 nodes: 2 minor slots, and v1.37 falls on v1.35's (an image only: no tenant runs it).
  'vmid-range.template-ids-collide': (d) => {
    d.proxmox.instances[1].images.push({ kubernetesVersion: 'v1.37.2', nodes: ['pmox-fra-1', 'pmox-fra-2', 'pmox-fra-3'], ...FRA_IMAGE });
    d.proxmox.instances[1].vmIdRange = { start: 9000, end: 9005 };
  },
  'image.several-tagged-templates': (d) => (d.proxmox.instances[1].storage = { disks: 'ceph-vm', disksShared: true }),
  'image.unknown-node': (d) => (d.proxmox.instances[1].images[0].nodes = ['pmox-fra-1', 'pmox-fra-2', 'pmox-fra-9']),
  'tenant.name-twice': (d) => (d.tenants[1].name = 'tenant-a'),
  'tenant.unknown-instance': (d) => (d.tenants[1].placement.instances = ['pmox-txl', 'pmox-frx']),
  'pool.name-twice': (d) => (d.tenants[1].pools[1].name = 'workers'),
  'pool.no-size': (d) => delete d.tenants[0].pools[0].replicas,
  'pool.replicas-and-autoscaling': (d) => (d.tenants[0].pools[0].autoscaling = { min: 1, max: 3 }),
  'pool.autoscaling-min-above-max': (d) => (d.tenants[1].pools[0].autoscaling = { min: 7, max: 6 }),
  'pool.floor-above-max': (d) => (d.tenants[1].pools[0].autoscaling.floor = { 'pmox-txl/pmox-txl-1': 7 }),
  'pool.floor-in-previous': (d) => {
    d.tenants[1].previous = { pools: structuredClone(d.tenants[1].pools) };
    d.tenants[1].previous.pools[0].autoscaling.floor = { 'pmox-txl/pmox-txl-1': 2 };
  },
  'pool.unknown-instance': (d) => (d.tenants[1].pools[1].instance = 'pmox-frx'),
  'previous.newer': (d) => {
    d.proxmox.instances[0].template.versions = [{ kubernetesVersion: 'v1.35.5', templateID: 1001 }];
    d.tenants[0].previous = { kubernetesVersion: 'v1.35.5' };
  },
  'previous.minor-jump': (d) => {
    d.proxmox.instances[0].template.versions = [{ kubernetesVersion: 'v1.33.4', templateID: 1001 }];
    d.tenants[0].previous = { kubernetesVersion: 'v1.33.4' };
  },
  'previous.no-template': (d) => (d.tenants[0].previous = { kubernetesVersion: 'v1.34.2' }),
  'tenant.no-template': (d) => (d.tenants[0].kubernetesVersion = 'v1.35.5'),
  // pmox-txl's template has a 64 GiB boot disk: the 40 GiB pools cloned from it could never boot.
  'pool.disk-below-template': (d) => (d.proxmox.instances[0].template.diskGiB = 64),
  'addresses.range-reversed': (d) => (d.tenants[0].network.addresses = ['10.10.1.60-10.10.1.10']),
  'addresses.overlap': (d) => (d.tenants[1].network.addresses = ['10.10.1.50-10.10.1.70']),
  'vip.pinned-twice': (d) => {
    d.tenants[0].vip = '10.4.0.120';
    d.tenants[1].vip = '10.4.0.120';
  },
  'vip.in-node-range': (d) => (d.tenants[0].vip = '10.10.1.20'),
  'delivery.cloud-missing': (d) => (d.delivery = { backend: 'cloud' }),
  // modules/config/quota.ts
  'tenant.over-quota': (d) => (d.tenants[0].quota = { cpu: 4, memoryMiB: 8192 }),
  // modules/config/instance-network-rules.ts
  'networks.not-secondary-clusters': (d) => (d.capmox.multiInstance = 'proposal'),
  'networks.unknown-instance': (d) => (d.tenants[2].networks['pmox-frx'] = network(3)),
  'networks.unused-instance': (d) => (d.tenants[0].networks = { 'pmox-fra': network(1) }),
  'networks.missing': (d) => delete d.tenants[2].network,
  'networks.shared': (d) => delete d.tenants[2].networks,
  // modules/config/management-rules.ts
  'versions.guard': (d) => (d.management.versions = { kamajiProvider: 'v0.19.0' }),
  // One minor above what the pinned Kamaji accepts, with its template (so only the version rule fires).
  'versions.tenant-kubernetes': (d) => {
    d.proxmox.instances[0].template.versions = [{ kubernetesVersion: 'v1.37.2', templateID: 1001 }];
    d.tenants[0].kubernetesVersion = 'v1.37.2';
  },
  'management.vlan-without-interfaces': (d) => delete d.management.loadBalancer.interfaces,
  'management.mirror-providers-without-images': (d) => (d.management.mirror = { providers: 'registry.lab.example/capi' }),
  'management.datastore-too-small': (d) => (d.management.datastore.size = '512Mi'),
  'management.local-path-without-chart-mirror': (d) => (d.management.datastore.csi = 'local-path'),
  // modules/config/server-rules.ts
  'node.name-not-label-value': (d) => (d.proxmox.instances[0].nodes[1].name = 'pmox-txl-2_'),
  'template.match-tag-twice': (d) => d.proxmox.instances[1].template.templateSelector.matchTags.push('capi'),
  'tenant.control-plane-replicas-int32': (d) => (d.tenants[0].controlPlane = { replicas: 2147483648 }),
  'network.dns-server-twice': (d) => d.tenants[0].network.dnsServers.push('10.10.1.1'),
  // modules/config/security-rules.ts
  'storage.templates-pool-of-tenant': (d) => (d.proxmox.instances[0].pools = { vms: 'capi', templates: 'capi-tenant-a' }),
  'storage.cloud-init-default-storage': (d) => (d.proxmox.instances[1].storage = { cloudInit: 'local-zfs' }),
  'storage.cloud-init-is-tenant-storage': (d) => (d.proxmox.instances[1].storage = { disks: 'ci-tenant-a', cloudInit: 'ci' }),
  'storage.cloud-init-path-in-var-lib-vz': (d) => (d.proxmox.instances[1].storage = { cloudInitPath: '/var/lib/vz/ci' }),
  'storage.cloud-init-shared': (d) => (d.proxmox.instances[1].storage = { images: 'shared-ci', cloudInit: 'shared-ci' }),
  'storage.cloud-init-path-system': (d) => (d.proxmox.instances[0].storage.cloudInitPath = '/etc/pve'),
  // modules/config/layer2-rules.ts
  'network.vlan-is-management-vip-vlan': (d) => (d.tenants[0].network.vlan = 4),
  // tenant-b (SingleInstance) may land on pmox-txl beside tenant-a.
  'network.vlan-shared': (d) => {
    d.tenants[0].network.vlan = 10;
    d.tenants[1].network.vlan = 10;
  },
  'network.shares-layer2-with-unknown': (d) => (d.tenants[0].sharesLayer2With = ['tenant-x']),
  // modules/config/identity-rules.ts
  'identity.issuer-not-https': (d) => (d.identity = { issuer: 'http://login.lab.example/realms/lab', clientID: 'kubernetes' }),
  'identity.issuer-is-service-account-issuer': (d) => (d.identity = { issuer: 'https://kubernetes.default.svc.cluster.local', clientID: 'kubernetes' }),
  'identity.ca-not-x509': (d) =>
    (d.identity = {
      ...IDENTITY,
      certificateAuthorityData: Buffer.from('-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n').toString('base64'),
    }),
  'identity.system-prefix': (d) => (d.identity = { ...IDENTITY, groupsPrefix: 'system:' }),
  'access.without-identity': (d) => (d.tenants[0].access = { admins: ['team-a-admins'] }),
  'access.prefix-and-lists': (d) => {
    d.identity = IDENTITY;
    d.tenants[0].access = { prefix: 'team-a-', admins: ['team-a-admins'] };
  },
  'access.group-in-two-roles': (d) => {
    d.identity = IDENTITY;
    d.tenants[0].access = { admins: ['team-a'], viewers: ['auditors', 'team-a'] };
  },
  // modules/config/storage-rules.ts
  'storage.volumes-is-machine-storage': (d) => (d.proxmox.instances[0].storage.volumes = ['ceph-vm']),
  'storage.class-name-twice': (d) => {
    d.proxmox.instances[0].storage.volumes = ['tenant-a-lvm'];
    d.tenants[0].storage = {
      classes: [
        { name: 'fast', storage: 'tenant-a-lvm' },
        { name: 'fast', storage: 'tenant-a-lvm' },
      ],
    };
  },
  'storage.default-twice': (d) => {
    d.proxmox.instances[0].storage.volumes = ['tenant-a-lvm'];
    d.tenants[0].storage = {
      classes: [
        { name: 'fast', storage: 'tenant-a-lvm', default: true },
        { name: 'keep', storage: 'tenant-a-lvm', default: true, reclaimPolicy: 'Retain' },
      ],
    };
  },
  'storage.unknown-storage': (d) => (d.tenants[0].storage = { classes: [{ name: 'fast', storage: 'tenant-a-lvm' }] }),
  // tenant-b (SingleInstance) may run on either instance; on pmox-txl it would share tenant-a's storage.
  'storage.shared-between-tenants': (d) => {
    d.proxmox.instances[0].storage.volumes = ['volumes-lvm'];
    d.proxmox.instances[1].storage = { volumes: ['volumes-lvm'] };
    d.tenants[0].storage = { classes: [{ name: 'fast', storage: 'volumes-lvm' }] };
    d.tenants[1].storage = { classes: [{ name: 'fast', storage: 'volumes-lvm' }] };
  },
};

/** One fixture per warning rule (modules/config/warning-rules.ts): the example lab, changed so that exactly that warning fires. */
export const WARNING_FIXTURES: Record<string, (doc: Doc) => void> = {
  // A v1.36.1 image on pmox-fra, where every tenant runs v1.35.4.
  'image.unused': (d) => d.proxmox.instances[1].images.push({ kubernetesVersion: 'v1.36.1', nodes: ['pmox-fra-1', 'pmox-fra-2', 'pmox-fra-3'], ...FRA_IMAGE }),
  // tenant-a (pmox-txl) in step 1 of a staged surge from v1.35.4 to v1.36.3, one group held back.
  'surge.held-cannot-heal': (d) => {
    d.proxmox.instances[0].template.versions = [{ kubernetesVersion: 'v1.36.3', templateID: 1001 }];
    d.tenants[0].kubernetesVersion = 'v1.36.3';
    d.tenants[0].previous = { kubernetesVersion: 'v1.35.4', stage: { surge: ['workers/pmox-txl/pmox-txl-2'], hold: ['workers/pmox-txl/pmox-txl-1'] } };
  },
};
