/**
 * The plan rules: what is refused once the placement plan exists (or while it is made), beside the
 * rule table's checks of the description alone (./rule-table.ts). Each has an id, one home (the file
 * that finds it, the only one that may raise a problem with that id), a sentence saying what it
 * refuses and the general fix; every problem its home raises carries the id (`Problem.rule`).
 *
 * They run on one road, the same for `validate` and `synth`: `planPlacement` (modules/placement),
 * then `renderLab` (modules/rendering), which collects every problem of every tenant, of the
 * management plane and of the datastore memory before anything is synthesized, and throws them as
 * one `ProblemError` (aws-cdk's collected validation: every failure of the tree in one error).
 * docs/rules.md lists them (scripts/rules-doc.ts); test/config/plan-rule-fixtures.ts fires each with
 * its own fixture through that road; test/lint/problems-in-tables.test.ts holds that no problem is
 * raised without an id of a table, nor with an id away from its home.
 *
 * Only text lives here (no check): the homes are in modules/placement, modules/tenants and
 * modules/management, above this folder, and import nothing from it but the ids they name.
 */
import type { RuleText } from './rule';

export interface PlanRuleHome {
  readonly home: string;
  readonly rules: readonly RuleText[];
}

export const PLAN_RULE_HOMES: readonly PlanRuleHome[] = [
  {
    home: 'modules/placement/placer.ts',
    rules: [
      {
        id: 'placement.no-room-on-instance',
        refuses: 'a pool pinned to an instance (instance:), or of a tenant in Default mode, whose machines at their maximum do not fit on that instance',
        fix: 'add nodes or capacity to the instance, make the pool smaller, or pin it elsewhere (Default mode: choose SingleInstance or MultiInstance)',
      },
      {
        id: 'placement.single-instance-no-room',
        refuses: 'a SingleInstance tenant whose machines (autoscaled pools at their max) fit on none of its eligible instances',
        fix: 'add nodes or capacity to one of them, make the pools smaller, allow more instances in placement.instances, or use mode MultiInstance',
      },
      {
        id: 'placement.multi-instance-no-room',
        refuses: 'a pool of a MultiInstance tenant whose machines do not fit on all of its eligible instances together',
        fix: 'add nodes or capacity, make the pool smaller, or allow more instances in placement.instances',
      },
    ],
  },
  {
    home: 'modules/placement/plan.ts',
    rules: [
      {
        id: 'placement.previous-does-not-place',
        refuses: "a tenant's previous (the lab as it runs now) that does not place on the instances as they are",
        fix: 'make previous the tenant as it was last deployed (its kubernetesVersion and pools), or remove previous',
      },
    ],
  },
  {
    home: 'modules/placement/surge.ts',
    rules: [
      {
        id: 'surge.stage-unknown-node-group',
        refuses: 'a previous.stage.surge or previous.stage.hold entry that is not a node group the change replaces',
        fix: 'name a node group the change replaces (npm run upgrade-plan prints the steps), or remove previous.stage',
      },
      {
        id: 'surge.stage-surge-and-hold',
        refuses: 'a node group both in previous.stage.surge and in previous.stage.hold',
        fix: 'keep it in one list: a node group either surges in this step or is held back',
      },
      {
        id: 'surge.stage-pool-shortfall',
        refuses: 'a step of a staged surge in which a pool has fewer machines than it asks for',
        fix: 'surge the node groups where the pool gains machines no later than those where it loses them (npm run upgrade-plan prints such steps)',
      },
      {
        id: 'surge.node-no-room',
        refuses: 'a surge whose new machines and retiring ones do not fit on a node at once',
        fix: 'surge in smaller steps (previous.stage), add capacity to the node, or remove previous to replace without a surge',
      },
    ],
  },
  {
    home: 'modules/placement/failover.ts',
    rules: [
      {
        id: 'failover.no-room',
        refuses: 'a pool with failover: true whose machines have no room on the surviving nodes when one node is lost',
        fix: 'add nodes or capacity to the other nodes the pool may use, make the pool (or others on those nodes) smaller, or remove failover',
      },
    ],
  },
  {
    home: 'modules/tenants/index.ts',
    rules: [
      {
        id: 'tenant.reserved-namespace',
        refuses: 'a tenant whose namespace belongs to Kubernetes or the management plane (deleting the tenant would delete it)',
        fix: 'rename the tenant',
      },
      {
        id: 'tenant.nothing-placed',
        refuses: 'a tenant of which the placement plan puts no machine anywhere',
        fix: 'see the placement report (npm run placement)',
      },
      {
        id: 'template.node-down',
        refuses: "a node marked down that holds the only template a tenant's machines on its instance are cloned from (CAPMOX clones through it)",
        fix: 'copy the template (or build the image) on a node that is up, or remove down once the node is back',
      },
      {
        id: 'template.missing-on-node',
        refuses: "machines planned on a node of an instance with local disks that has no template of the tenant's version (Proxmox VE cannot clone it there)",
        fix: 'list the node in the images of the version, set storage.disksShared: true if the disks are shared, or let the instance build its templates',
      },
      {
        id: 'template.missing-on-failover-node',
        refuses: "a failover pool whose re-plan after the loss of a node puts machines on a node with local disks and no template of the tenant's version",
        fix: 'list the node in the images of the version, set storage.disksShared: true if the disks are shared, or remove failover',
      },
      {
        id: 'previous.unknown-instance',
        refuses: 'a previous.instances entry that is not an instance of proxmox.instances',
        fix: 'name an instance of proxmox.instances, or remove the entry',
      },
      {
        id: 'surge.retiring-cannot-stay',
        refuses:
          'a surge whose retiring machine deployments cannot stay as they were: one moves between the primary Cluster and a secondary one, or the Cluster gained a variable their worker template lacks',
        fix: 'surge in smaller steps (docs/tenants.md, "Surge, then retire"), or remove previous to replace the node groups without a surge',
      },
    ],
  },
  {
    home: 'modules/tenants/floor.ts',
    rules: [
      {
        id: 'pool.floor-unknown-node-group',
        refuses: "an autoscaling.floor entry naming no node group of the pool in the tenant's topology Cluster (<instance>/<node>)",
        fix: 'name a node group of the pool (npm run placement shows them; the retire guard names the one it needs), or remove the entry',
      },
      {
        id: 'pool.floor-above-node-max',
        refuses: "an autoscaling.floor entry above its node group's max in the plan (placement splits the pool's max over its nodes)",
        fix: 'make it at most that max, or raise autoscaling.max so that the plan gives the node group room for it',
      },
    ],
  },
  {
    home: 'modules/tenants/network.ts',
    rules: [
      {
        id: 'network.missing',
        refuses: 'a tenant without a node network (CAPMOX has no DHCP mode: every worker gets a static address from IPAM)',
        fix: 'add network: { addresses, prefix, gateway, dnsServers }',
      },
      {
        id: 'network.service-overlaps-pod',
        refuses: "a tenant's service CIDR that overlaps its pod CIDR",
        fix: 'use disjoint CIDRs, e.g. podCIDR: 10.244.0.0/16 and serviceCIDR: 10.96.0.0/12',
      },
      {
        id: 'network.cidr-holds-node-address',
        refuses: 'a pod or service CIDR that contains the node network, its gateway or DNS servers, or the VIP',
        fix: 'choose a CIDR that leaves out the node network, its gateway and DNS servers and the VIP',
      },
      {
        id: 'network.range-outside-subnet',
        refuses: "a node range not inside the subnet of the network's gateway",
        fix: "give node addresses from the gateway's subnet, or correct prefix/gateway",
      },
      {
        id: 'network.range-holds-gateway',
        refuses: 'a node range that contains the gateway (IPAM would hand it to a worker)',
        fix: 'leave the gateway out of the node range',
      },
      {
        id: 'network.too-few-addresses',
        refuses:
          'node ranges with fewer addresses than the tenant can have workers at once (every pool at its maximum, one surge machine per machine deployment)',
        fix: 'widen the node ranges, or surge one pool at a time',
      },
    ],
  },
  {
    home: 'modules/tenants/multi-instance.ts',
    rules: [
      {
        id: 'tenant.multi-instance-refused',
        refuses:
          'a tenant with machines on several Proxmox instances while capmox.multiInstance is refuse (released CAPMOX binds a Cluster to one Proxmox API)',
        fix: 'keep the tenant on one instance, or set capmox.multiInstance: secondary-clusters (or proposal)',
      },
    ],
  },
  {
    home: 'modules/tenants/machine-deployments.ts',
    rules: [
      {
        id: 'node.names-collide',
        refuses:
          'two Proxmox nodes whose names differ only in case or punctuation, so that the machine deployments of one pool on them get one Kubernetes name',
        fix: 'rename one of the nodes in the description',
      },
    ],
  },
  {
    home: 'modules/tenants/vip.ts',
    rules: [
      {
        id: 'vip.pool-too-large',
        refuses: 'a load-balancer pool larger than VIP allocation ranks',
        fix: 'give management.loadBalancer.addresses a range of at most a /16 for tenant VIPs',
      },
      {
        id: 'vip.outside-pool',
        refuses: 'a tenant vip outside management.loadBalancer.addresses (MetalLB would not announce it)',
        fix: 'take the VIP from management.loadBalancer.addresses, or leave vip out to allocate one',
      },
      {
        id: 'vip.pool-exhausted',
        refuses: 'more tenants needing a VIP than the load-balancer pool has free addresses',
        fix: 'add a range to management.loadBalancer.addresses',
      },
    ],
  },
  {
    home: 'modules/management/index.ts',
    rules: [
      {
        id: 'management.capmox-global-credentials',
        refuses: "a CAPMOX installed with global credentials (a configSecret or PROXMOX_* variables), which override every tenant's credentialsRef",
        fix: 'give CAPMOX no configSecret and no PROXMOX_* variables',
      },
    ],
  },
];

/** Every plan rule id, each once. */
export const PLAN_RULE_IDS: readonly string[] = PLAN_RULE_HOMES.flatMap((h) => h.rules.map((r) => r.id));
