import type { Tenant } from '../../modules/config/schema';
import { checkLab } from '../../modules/config/rule-table';
import { checkTenantNetwork, dnsServiceIP, requireNetwork } from '../../modules/tenants/network';
import { exampleLab } from './fixtures';

function tenantWith(change: Partial<Tenant>): Tenant {
  return { ...exampleLab().tenants[0], ...change };
}

const check = (tenant: Tenant, vip = '10.4.0.120', machinesAtMost = 4) => checkTenantNetwork({ tenant, index: 0, vip, machinesAtMost });

describe('tenant network checks', () => {
  it('accepts the example tenants', () => {
    for (const t of exampleLab().tenants) expect(check(t)).toEqual([]);
  });

  it('refuses a pod CIDR overlapping the service CIDR', () => {
    const problems = check(tenantWith({ podCIDR: '10.96.0.0/16', serviceCIDR: '10.96.0.0/12' }));
    expect(problems.map((p) => p.message)).toContain('the service CIDR 10.96.0.0/12 overlaps the pod CIDR 10.96.0.0/16');
  });

  it('refuses pod or service CIDRs that contain the node range, gateway, DNS servers or the VIP', () => {
    const t = tenantWith({ podCIDR: '10.10.0.0/16' });
    const messages = check(t).map((p) => p.message);
    expect(messages).toContain(
      'podCIDR 10.10.0.0/16 contains the node range 10.10.1.10-10.10.1.60; inside the tenant cluster that address would be routed to pods or services instead',
    );
    expect(messages.some((m) => m.includes('gateway 10.10.1.1'))).toBe(true);
    expect(check(tenantWith({ serviceCIDR: '10.4.0.0/16' }), '10.4.0.120').map((p) => p.message)).toContain(
      'serviceCIDR 10.4.0.0/16 contains the control-plane VIP 10.4.0.120; inside the tenant cluster that address would be routed to pods or services instead',
    );
  });

  it('refuses a node range outside the gateway subnet or containing the gateway', () => {
    const base = exampleLab().tenants[0].network!;
    const outside = check(tenantWith({ network: { ...base, addresses: ['10.10.2.10-10.10.2.20'] } }));
    expect(outside.map((p) => p.message)).toContain('node range 10.10.2.10-10.10.2.20 is not inside the subnet 10.10.1.0/24 of the gateway 10.10.1.1');
    const withGateway = check(tenantWith({ network: { ...base, addresses: ['10.10.1.1-10.10.1.20'] } }));
    expect(withGateway.map((p) => p.message)).toContain('node range 10.10.1.1-10.10.1.20 contains the gateway 10.10.1.1; IPAM would hand it to a worker');
  });

  it('refuses node ranges too small for every pool at its maximum plus rollout surge', () => {
    const base = exampleLab().tenants[0].network!;
    const problems = check(tenantWith({ network: { ...base, addresses: ['10.10.1.10-10.10.1.12'] } }), '10.4.0.120', 5);
    expect(problems).toHaveLength(1);
    expect(problems[0].message).toContain('the node ranges hold 3 addresses but tenant tenant-a can have 5 workers at once');
    expect(problems[0].path).toEqual(['tenants', 0, 'network', 'addresses']);
  });

  // One home: the description rule addresses.overlap (modules/config/rules.ts); the rendering no longer repeats it.
  it('detects node ranges of two tenants overlapping each other or the VIP pool', () => {
    const lab = exampleLab();
    lab.tenants[1] = { ...lab.tenants[1], network: { ...lab.tenants[1].network!, addresses: ['10.10.1.50-10.10.1.70'] } };
    lab.tenants[2] = { ...lab.tenants[2], network: { ...lab.tenants[2].network!, addresses: ['10.4.0.140-10.4.0.160'] } };
    const overlaps = (l: typeof lab) => checkLab(l).filter((p) => p.rule === 'addresses.overlap');
    expect(overlaps(lab).map((p) => [p.message, p.value])).toEqual([
      ['the node range of tenant tenant-b overlaps the node range of tenant tenant-a (10.10.1.10-10.10.1.60)', '10.10.1.50-10.10.1.70'],
      ['the node range of tenant tenant-c overlaps the load-balancer pool (10.4.0.100-10.4.0.149)', '10.4.0.140-10.4.0.160'],
    ]);
    expect(overlaps(exampleLab())).toEqual([]);
  });

  it('requires a network: CAPMOX has no DHCP mode', () => {
    const problems = requireNetwork(tenantWith({ network: undefined }), 3);
    expect(problems[0].path).toEqual(['tenants', 3, 'network']);
    expect(problems[0].message).toContain('no DHCP mode');
  });

  it('puts CoreDNS on the tenth address of the service CIDR', () => {
    expect(dnsServiceIP('10.96.0.0/12')).toBe('10.96.0.10');
    expect(dnsServiceIP('172.20.0.0/16')).toBe('172.20.0.10');
  });
});
