/**
 * Network checks of a tenant that the description rules cannot make alone: they need the tenant's
 * VIP (allocated or described) and its machine count from the placement plan. Node ranges that
 * overlap each other or the load-balancer pool, and a pinned VIP in a node range, are description
 * rules (`addresses.overlap`, `vip.in-node-range`, modules/config/rules.ts), refused before rendering.
 */
import { ipToNumber, numberToIp, overlaps, parseRange, type Ipv4Range } from '../config/ip';
import type { Problem } from '../config/problems';
import type { Tenant } from '../config/schema';

type TenantNetwork = NonNullable<Tenant['network']>;

export interface TenantNetworkInput {
  tenant: Tenant;
  /** Index in lab.tenants, for paths. */
  index: number;
  vip: string;
  /** Machines at once at most: every pool at its maximum, plus one surge machine per machine deployment. */
  machinesAtMost: number;
  /** Surge, then retire: `machinesAtMost` counts the retiring machines too (`tenants[].previous`). */
  surge?: boolean;
  /** Another node network of the tenant to check (a `networks` entry) and its path. @default tenant.network */
  network?: TenantNetwork;
  networkPath?: (string | number)[];
}

function range(text: string): Ipv4Range {
  return parseRange(text) as Ipv4Range;
}

function single(ip: string): Ipv4Range {
  const n = ipToNumber(ip) as number;
  return { first: n, last: n, text: ip };
}

function size(r: Ipv4Range): number {
  return r.last - r.first + 1;
}

/** The tenant's node network; CAPMOX has no DHCP mode, so a tenant without one cannot get workers. */
export function requireNetwork(tenant: Tenant, index: number): Problem[] {
  if (tenant.network) return [];
  return [
    {
      path: ['tenants', index, 'network'],
      message: `tenant ${tenant.name} has no network: CAPMOX gives every worker a static address from an in-cluster IPAM pool (it has no DHCP mode)`,
      fix: 'add network: { addresses: [10.10.9.10-10.10.9.60], prefix: 24, gateway: 10.10.9.1, dnsServers: [10.10.9.1] }',
      rule: 'network.missing',
    },
  ];
}

export function checkTenantNetwork(input: TenantNetworkInput): Problem[] {
  const { tenant, index, vip } = input;
  const network = input.network ?? (tenant.network as TenantNetwork);
  const base = ['tenants', index];
  const netPath = input.networkPath ?? [...base, 'network'];
  const problems: Problem[] = [];
  const pods = range(tenant.podCIDR);
  const services = range(tenant.serviceCIDR);
  const nodes = network.addresses.map(range);

  if (overlaps(pods, services)) {
    problems.push({
      path: [...base, 'serviceCIDR'],
      message: `the service CIDR ${tenant.serviceCIDR} overlaps the pod CIDR ${tenant.podCIDR}`,
      value: tenant.serviceCIDR,
      fix: 'use disjoint CIDRs, e.g. podCIDR: 10.244.0.0/16 and serviceCIDR: 10.96.0.0/12',
      rule: 'network.service-overlaps-pod',
    });
  }
  const reachable: { what: string; range: Ipv4Range; path: (string | number)[] }[] = [
    ...network.addresses.map((a, i) => ({ what: `node range ${a}`, range: nodes[i], path: [...netPath, 'addresses', i] })),
    { what: `gateway ${network.gateway}`, range: single(network.gateway), path: [...netPath, 'gateway'] },
    ...network.dnsServers.map((d, i) => ({ what: `DNS server ${d}`, range: single(d), path: [...netPath, 'dnsServers', i] })),
    { what: `control-plane VIP ${vip}`, range: single(vip), path: [...base, 'vip'] },
  ];
  for (const [cidrName, cidr, text] of [
    ['podCIDR', pods, tenant.podCIDR],
    ['serviceCIDR', services, tenant.serviceCIDR],
  ] as const) {
    for (const r of reachable) {
      if (overlaps(cidr, r.range)) {
        problems.push({
          path: [...base, cidrName],
          message: `${cidrName} ${text} contains the ${r.what}; inside the tenant cluster that address would be routed to pods or services instead`,
          value: text,
          fix: `choose a ${cidrName} that leaves out the node network, its gateway and DNS servers and the VIP`,
          rule: 'network.cidr-holds-node-address',
        });
      }
    }
  }

  const subnetSize = 2 ** (32 - network.prefix);
  const gateway = ipToNumber(network.gateway) as number;
  const subnet: Ipv4Range = { first: gateway - (gateway % subnetSize), last: gateway - (gateway % subnetSize) + subnetSize - 1, text: '' };
  subnet.text = `${numberToIp(subnet.first)}/${network.prefix}`;
  network.addresses.forEach((a, i) => {
    const r = nodes[i];
    if (r.first < subnet.first || r.last > subnet.last) {
      problems.push({
        path: [...netPath, 'addresses', i],
        message: `node range ${a} is not inside the subnet ${subnet.text} of the gateway ${network.gateway}`,
        value: a,
        fix: "give node addresses from the gateway's subnet, or correct prefix/gateway",
        rule: 'network.range-outside-subnet',
      });
    }
    if (r.first <= gateway && gateway <= r.last) {
      problems.push({
        path: [...netPath, 'addresses', i],
        message: `node range ${a} contains the gateway ${network.gateway}; IPAM would hand it to a worker`,
        value: a,
        fix: 'leave the gateway out of the node range',
        rule: 'network.range-holds-gateway',
      });
    }
  });

  const available = nodes.reduce((n, r) => n + size(r), 0);
  if (available < input.machinesAtMost) {
    problems.push({
      path: [...netPath, 'addresses'],
      message: input.surge
        ? `the node ranges hold ${available} addresses but tenant ${tenant.name} can have ${input.machinesAtMost} workers at once while it surges (every new pool at its maximum, one surge machine per machine deployment, and the retiring machines of previous until the retire step)`
        : `the node ranges hold ${available} addresses but tenant ${tenant.name} can have ${input.machinesAtMost} workers at once (every pool at its maximum, plus one surge machine per machine deployment during a rollout)`,
      value: network.addresses,
      fix: input.surge
        ? `widen ${netPath.slice(2).join('.')}.addresses to at least ${input.machinesAtMost} addresses, or surge one pool at a time (docs/tenants.md, "Surge, then retire")`
        : `widen ${netPath.slice(2).join('.')}.addresses to at least ${input.machinesAtMost} addresses`,
      rule: 'network.too-few-addresses',
    });
  }
  return problems;
}

/** The CoreDNS Service address: the tenth address of the service CIDR, as kubeadm chooses it. */
export function dnsServiceIP(serviceCIDR: string): string {
  return numberToIp(range(serviceCIDR).first + 10);
}
