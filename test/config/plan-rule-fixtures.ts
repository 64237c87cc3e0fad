/**
 * One fixture per plan rule (modules/config/plan-rule-table.ts): a change to the example lab
 * (examples/lab.yaml, as parsed YAML) that passes the schema and the rule table and then fires that
 * rule on the road `validate` and `synth` share (placement, then `renderLab`; with the memories
 * given, for the rules that compare with the last synth). test/config/plan-rules.test.ts runs each.
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- a fixture edits the raw YAML document, before any type applies */

type Doc = any;

/** tenant-a's pool as it runs now, with smaller machines: the change replaces its node groups (a surge with previous). */
const surging = (d: Doc, extra: Doc = {}) => {
  d.tenants[0].previous = { pools: [{ name: 'workers', replicas: 3, size: { cpu: 2, memoryMiB: 8192, diskGiB: 40 } }], ...extra };
};

export const PLAN_RULE_FIXTURES: Record<string, (doc: Doc) => void> = {
  // modules/placement/placer.ts
  'placement.no-room-on-instance': (d) => (d.tenants[0].pools[0].replicas = 40),
  'placement.single-instance-no-room': (d) => (d.tenants[1].pools[1].replicas = 30),
  'placement.multi-instance-no-room': (d) => (d.tenants[2].pools[0].replicas = 60),
  // modules/placement/plan.ts: previous wants more than the instances hold.
  'placement.previous-does-not-place': (d) => surging(d, { pools: [{ name: 'workers', replicas: 40, size: { cpu: 4, memoryMiB: 8192, diskGiB: 40 } }] }),
  // modules/placement/surge.ts
  'surge.stage-unknown-node-group': (d) => surging(d, { stage: { surge: ['workers/pmox-txl/pmox-txl-9'] } }),
  'surge.stage-surge-and-hold': (d) => surging(d, { stage: { surge: ['workers/pmox-txl/pmox-txl-1'], hold: ['workers/pmox-txl/pmox-txl-1'] } }),
  'surge.node-no-room': (d) => {
    d.tenants[0].pools[0] = { name: 'workers', replicas: 6, size: { cpu: 8, memoryMiB: 8192, diskGiB: 40 } };
    surging(d, { pools: [{ name: 'workers', replicas: 6, size: { cpu: 7, memoryMiB: 8192, diskGiB: 40 } }] });
  },
  // modules/placement/failover.ts
  'failover.no-room': (d) => Object.assign(d.tenants[0].pools[0], { replicas: 12, failover: true }),
  // modules/tenants/index.ts
  // tenant-c's machines all on pmox-fra before (its primary then), on both instances now: the old
  // pmox-fra machine deployments were the primary Cluster's and would have to retire in a secondary one.
  'surge.retiring-cannot-stay': (d) => {
    d.tenants[2].previous = { pools: [{ name: 'workers', replicas: 5, size: { cpu: 2, memoryMiB: 8192, diskGiB: 40 }, instance: 'pmox-fra' }] };
  },
  'tenant.reserved-namespace': (d) => (d.tenants[0].name = 'kube-system'),
  // modules/tenants/floor.ts: tenant-b's workers are 1..3 on pmox-txl-1 and 0..3 on pmox-txl-2 (npm run placement).
  'pool.floor-unknown-node-group': (d) => (d.tenants[1].pools[0].autoscaling.floor = { 'pmox-txl/pmox-txl-9': 2 }),
  'pool.floor-above-node-max': (d) => (d.tenants[1].pools[0].autoscaling.floor = { 'pmox-txl/pmox-txl-1': 4 }),
  'template.node-down': (d) => (d.proxmox.instances[0].nodes[0].down = true),
  'template.missing-on-node': (d) => (d.proxmox.instances[1].images[0].nodes = ['pmox-fra-1']),
  'template.missing-on-failover-node': (d) => {
    d.tenants[2].placement.instances = ['pmox-txl'];
    d.tenants[2].pools[0].replicas = 2;
    delete d.tenants[2].networks;
    d.tenants[0].pools.push({ name: 'edge', replicas: 1, size: { cpu: 2, memoryMiB: 4096, diskGiB: 40 }, instance: 'pmox-fra', failover: true });
    d.tenants[0].networks = { 'pmox-fra': { addresses: ['10.20.1.10-10.20.1.60'], prefix: 24, gateway: '10.20.1.1', dnsServers: ['10.20.1.1'] } };
    d.proxmox.instances[1].images[0].nodes = ['pmox-fra-1'];
  },
  'previous.unknown-instance': (d) => (d.tenants[0].previous = { instances: { 'pmox-xyz': { bridge: 'vmbr0' } } }),
  // modules/tenants/network.ts
  'network.missing': (d) => {
    d.capmox.multiInstance = 'refuse';
    delete d.tenants[2].networks;
    delete d.tenants[0].network;
  },
  'network.service-overlaps-pod': (d) => Object.assign(d.tenants[0], { podCIDR: '10.96.0.0/16', serviceCIDR: '10.96.0.0/12' }),
  'network.cidr-holds-node-address': (d) => (d.tenants[0].podCIDR = '10.10.0.0/16'),
  'network.range-outside-subnet': (d) => (d.tenants[0].network.addresses = ['10.10.9.10-10.10.9.60']),
  'network.range-holds-gateway': (d) => (d.tenants[0].network.addresses = ['10.10.1.1-10.10.1.60']),
  'network.too-few-addresses': (d) => (d.tenants[0].network.addresses = ['10.10.1.10-10.10.1.11']),
  // modules/tenants/multi-instance.ts
  'tenant.multi-instance-refused': (d) => {
    d.capmox.multiInstance = 'refuse';
    delete d.tenants[2].networks;
  },
  // modules/tenants/machine-deployments.ts
  'node.names-collide': (d) => (d.proxmox.instances[0].nodes[1].name = 'pmox-txl_1'),
  // modules/tenants/vip.ts
  'vip.pool-too-large': (d) => (d.management.loadBalancer.addresses = ['172.16.0.0/12']),
  'vip.outside-pool': (d) => (d.tenants[0].vip = '10.4.1.7'),
  'vip.pool-exhausted': (d) => {
    d.management.loadBalancer.addresses = ['10.4.0.100-10.4.0.101'];
    for (const t of d.tenants) delete t.vip;
  },
};

/**
 * The plan rules no fixture fires yet, each with why: the lead reads this list; a fixture added
 * for one of them fails the test until it is taken off.
 */
export const WITHOUT_FIXTURE: Record<string, string> = {
  'surge.stage-pool-shortfall':
    "fired by test/tenants/surge-staged.test.ts on a hand-made plan (poolShortfalls): the example lab's placement spreads a pool the same way before and after, so no edit of it makes a done group lose what a held one gains",
  'tenant.nothing-placed': 'a guard: placement refuses a pool it cannot place, and the schema refuses a pool of no machines',
  'management.capmox-global-credentials':
    "a guard over pvekaas's own provider resources: no field of the description gives CAPMOX a configSecret or PROXMOX_* variables",
};
