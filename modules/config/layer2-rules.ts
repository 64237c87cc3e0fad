/**
 * Layer 2 between tenants and the management plane. A tenant's workers attach to the bridge of each
 * instance it uses, on its VLAN (`network.vlan`, or its `networks` entry there) or untagged. Two
 * tenants on one VLAN of one bridge share a broadcast domain: each can reach, spoof and ARP-poison
 * the other's machines below any network policy. The management VIP VLAN
 * (`management.loadBalancer.vlan`) carries every tenant's control-plane VIP; a tenant on it could
 * answer ARP for another tenant's API server. So a tenant VLAN equal to the VIP VLAN is refused, and
 * two tenants on one VLAN of one bridge of one instance are refused unless each names the other in
 * `sharesLayer2With` (an explicit, mutual opt-in). Tenants without a VLAN share the bridge untagged:
 * allowed (a lab without VLANs is common), but warned about (`layer2Warnings`), and said in
 * docs/guarantees.md.
 */
import type { Problem } from './problems';
import { possibleInstances } from './instance-network-rules';
import { tenantVlanOn } from './proxmox-access';
import { rulesOf, type LabRule } from './rule';
import type { Lab, Tenant } from './schema';

/** The VLAN path of a tenant on an instance: its networks entry there, or its network. */
function vlanPath(tenant: Tenant, ti: number, instance: string): (string | number)[] {
  const own = tenant.networks && Object.hasOwn(tenant.networks, instance);
  return own ? ['tenants', ti, 'networks', instance, 'vlan'] : ['tenants', ti, 'network', 'vlan'];
}

/** Whether two tenants both opted in to sharing layer 2 with each other. */
export function sharesLayer2(a: Tenant, b: Tenant): boolean {
  return (a.sharesLayer2With ?? []).includes(b.name) && (b.sharesLayer2With ?? []).includes(a.name);
}

/** The tenants on each (instance, VLAN or untagged) segment, in description order. */
function segments(lab: Lab): Map<string, { instance: string; bridge: string; vlan?: number; tenants: { tenant: Tenant; ti: number }[] }> {
  const out = new Map<string, { instance: string; bridge: string; vlan?: number; tenants: { tenant: Tenant; ti: number }[] }>();
  const bridges = new Map(lab.proxmox.instances.map((i) => [i.name, i.bridge]));
  lab.tenants.forEach((tenant, ti) => {
    for (const instance of possibleInstances(lab, tenant)) {
      const vlan = tenantVlanOn(tenant, instance);
      const bridge = bridges.get(instance) ?? 'vmbr0';
      const key = `${instance}\0${bridge}\0${vlan ?? 'untagged'}`;
      let segment = out.get(key);
      if (!segment) out.set(key, (segment = { instance, bridge, vlan, tenants: [] }));
      segment.tenants.push({ tenant, ti });
    }
  });
  return out;
}

function checkLayer2(lab: Lab): Problem[] {
  const problems: Problem[] = [];
  const vipVlan = lab.management.loadBalancer?.vlan;
  const names = new Set(lab.tenants.map((t) => t.name));
  lab.tenants.forEach((tenant, ti) => {
    (tenant.sharesLayer2With ?? []).forEach((other, k) => {
      if (other === tenant.name || !names.has(other))
        problems.push({
          rule: 'network.shares-layer2-with-unknown',
          path: ['tenants', ti, 'sharesLayer2With', k],
          message:
            other === tenant.name
              ? `tenant ${tenant.name} names itself in sharesLayer2With`
              : `tenant ${tenant.name} would share layer 2 with "${other}", which is not a tenant of this lab`,
          value: other,
          fix: 'name other tenants of this lab (each of the two names the other), or remove the entry',
        });
    });
    if (vipVlan === undefined) return;
    const seen = new Set<string>();
    for (const instance of possibleInstances(lab, tenant)) {
      if (tenantVlanOn(tenant, instance) !== vipVlan) continue;
      const path = vlanPath(tenant, ti, instance);
      if (seen.has(path.join('.'))) continue;
      seen.add(path.join('.'));
      problems.push({
        rule: 'network.vlan-is-management-vip-vlan',
        path,
        message: `tenant ${tenant.name}'s workers on ${instance} would be on VLAN ${vipVlan}, the VLAN of the management load balancer (management.loadBalancer.vlan), where every tenant's control-plane VIP is announced: they could answer ARP for another tenant's API server`,
        value: vipVlan,
        fix: `give tenant ${tenant.name} a VLAN of its own (network.vlan), not ${vipVlan}`,
      });
    }
  });
  for (const segment of segments(lab).values()) {
    if (segment.vlan === undefined || segment.tenants.length < 2 || segment.vlan === vipVlan) continue;
    segment.tenants.forEach(({ tenant, ti }, j) => {
      // Each tenant is refused once per segment, naming the earlier tenants there it did not agree to share with.
      const earlier = segment.tenants
        .slice(0, j)
        .filter((o) => !sharesLayer2(o.tenant, tenant))
        .map((o) => o.tenant.name);
      if (earlier.length === 0) return;
      problems.push({
        rule: 'network.vlan-shared',
        path: vlanPath(tenant, ti, segment.instance),
        message: `tenant ${tenant.name} would share VLAN ${segment.vlan} of bridge ${segment.bridge} on ${segment.instance} with tenant ${earlier.join(', ')}: one layer-2 network, where each can reach and spoof the other's machines`,
        value: segment.vlan,
        fix: `give tenant ${tenant.name} a VLAN of its own, or, if they are meant to share it, let each name the other in sharesLayer2With (tenant ${tenant.name}: sharesLayer2With: [${earlier[0]}], and tenant ${earlier[0]}: sharesLayer2With: [${tenant.name}])`,
      });
    });
  }
  return problems;
}

export const LAYER2_RULES: readonly LabRule[] = rulesOf(checkLayer2, [
  {
    id: 'network.vlan-is-management-vip-vlan',
    refuses: "a tenant's VLAN (network.vlan or a networks entry) equal to management.loadBalancer.vlan, where every tenant's control-plane VIP is announced",
    fix: 'give the tenant a VLAN of its own',
  },
  {
    id: 'network.vlan-shared',
    refuses: 'two tenants on one VLAN of one bridge of one instance (one layer-2 network), unless each names the other in sharesLayer2With',
    fix: 'give each tenant a VLAN of its own, or name each other in sharesLayer2With if they are meant to share it',
  },
  {
    id: 'network.shares-layer2-with-unknown',
    refuses: 'a sharesLayer2With entry that is not another tenant of the lab',
    fix: 'name other tenants of this lab, or remove the entry',
  },
]);

/**
 * Several tenants untagged on one bridge of one instance share its untagged network (layer 2):
 * allowed, said as a warning per bridge, unless every pair of them opted in (sharesLayer2With).
 */
export function layer2Warnings(lab: Lab): Problem[] {
  const warnings: Problem[] = [];
  for (const segment of segments(lab).values()) {
    if (segment.vlan !== undefined || segment.tenants.length < 2) continue;
    const all = segment.tenants.map((t) => t.tenant);
    if (all.every((a) => all.every((b) => a === b || sharesLayer2(a, b)))) continue;
    const ii = lab.proxmox.instances.findIndex((i) => i.name === segment.instance);
    warnings.push({
      path: ['proxmox', 'instances', ii, 'bridge'],
      severity: 'warning',
      message: `tenants ${all.map((t) => t.name).join(', ')} have no VLAN and share bridge ${segment.bridge} of ${segment.instance} untagged: one layer-2 network, where each can reach and spoof the others' machines`,
      value: segment.bridge,
      fix: 'give each tenant its own network.vlan (its CAPMOX token may then use that VLAN only), or, if they are meant to share it, let each name the others in sharesLayer2With',
    });
  }
  return warnings;
}
