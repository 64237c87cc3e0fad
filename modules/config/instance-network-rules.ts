/**
 * Rules of the per-instance node networks (`tenants[].networks`), read by the released-CAPMOX
 * MultiInstance rendering (`capmox.multiInstance: secondary-clusters`): each instance a tenant may
 * use gets one node network of its own, since every instance's ProxmoxCluster makes its own IPAM
 * pool and two pools over one range would hand the same address to two workers. Overlaps with
 * other ranges are checked with every other range in rules.ts; subnet and gateway checks run with
 * the tenant's (modules/tenants/network.ts), which needs the VIP and the plan.
 */
import type { Problem } from './problems';
import type { Lab, Tenant } from './schema';
import { editDistance } from './rule-helpers';
import { rulesOf, type LabRule } from './rule';
import { possibleInstances } from './tenant-instances';

/** Instances a tenant may put machines on (./tenant-instances.ts). */
export { possibleInstances };

function guess(name: string, known: readonly string[]): string | undefined {
  const scored = known.map((k) => ({ k, d: editDistance(name, k) })).sort((a, b) => a.d - b.d);
  return scored[0] && scored[0].d <= Math.max(2, Math.floor(name.length / 3)) ? scored[0].k : undefined;
}

/**
 * Instances without a networks entry that can hold the tenant's machines at the same time (and so
 * would share `network`): with MultiInstance every eligible one; otherwise the instances pools are
 * pinned to, plus one eligible instance for the unpinned pools (SingleInstance picks only one).
 */
function sharingNetwork(tenant: Tenant, possible: string[], networks: Record<string, unknown>): string[] {
  const lacking = (i: string) => networks[i] === undefined;
  if (tenant.placement.mode === 'MultiInstance') return possible.filter(lacking);
  const pinned = [...new Set(tenant.pools.map((p) => p.instance).filter((n): n is string => n !== undefined))];
  const unpinned = tenant.pools.some((p) => p.instance === undefined);
  const free = unpinned ? possible.filter((i) => !pinned.includes(i) && lacking(i)) : [];
  return possible.filter((i) => (pinned.includes(i) && lacking(i)) || i === free[0]);
}

function checkInstanceNetworks(lab: Lab): Problem[] {
  const problems: Problem[] = [];
  const mode = lab.capmox.multiInstance;
  const known = lab.proxmox.instances.map((i) => i.name);
  lab.tenants.forEach((tenant, ti) => {
    const base = ['tenants', ti];
    const networks = tenant.networks ?? {};
    const keys = Object.keys(networks).sort();
    // Surge, then retire: previous.networks says what an entry was (docs/tenants.md), by the same instance names.
    for (const key of Object.keys(tenant.previous?.networks ?? {}).sort()) {
      const path = [...base, 'previous', 'networks', key];
      if (mode !== 'secondary-clusters') {
        problems.push({
          rule: 'networks.not-secondary-clusters',
          path,
          message: `tenant ${tenant.name} has previous.networks, but per-instance networks are only used with capmox.multiInstance: secondary-clusters (this lab has ${mode}, where every machine uses network)`,
          value: key,
          fix: 'say the node network as it was in previous.network instead',
        });
      } else if (!known.includes(key)) {
        const g = guess(key, known);
        problems.push({
          rule: 'networks.unknown-instance',
          path,
          message: `previous.networks names "${key}", which is not an instance of proxmox.instances`,
          value: key,
          fix: g ? `did you mean "${g}"? Known: ${known.join(', ')}` : `use one of: ${known.join(', ')}`,
        });
      }
    }
    if (keys.length > 0 && mode !== 'secondary-clusters') {
      problems.push({
        rule: 'networks.not-secondary-clusters',
        path: [...base, 'networks'],
        message: `tenant ${tenant.name} has per-instance networks, but they are only used with capmox.multiInstance: secondary-clusters (this lab has ${mode}, where one ProxmoxCluster uses network for every machine)`,
        value: keys,
        fix: 'remove networks, or set capmox.multiInstance: secondary-clusters',
      });
      return;
    }
    const possible = possibleInstances(lab, tenant);
    for (const key of keys) {
      if (!known.includes(key)) {
        const g = guess(key, known);
        problems.push({
          rule: 'networks.unknown-instance',
          path: [...base, 'networks', key],
          message: `unknown instance "${key}"`,
          value: key,
          fix: g ? `did you mean "${g}"? Known: ${known.join(', ')}` : `use one of: ${known.join(', ')}`,
        });
      } else if (!possible.includes(key)) {
        problems.push({
          rule: 'networks.unused-instance',
          path: [...base, 'networks', key],
          message: `tenant ${tenant.name} never puts machines on ${key} (it may use ${possible.join(', ')}), so this network would never be used`,
          value: key,
          fix: `remove networks.${key}, or make ${key} eligible (placement.instances) or pin a pool to it`,
        });
      }
    }
    if (mode !== 'secondary-clusters' || possible.length <= 1) return;
    const withoutOwn = possible.filter((i) => networks[i] === undefined);
    if (!tenant.network && withoutOwn.length > 0) {
      problems.push({
        rule: 'networks.missing',
        path: [...base, 'networks'],
        message: `tenant ${tenant.name} may put machines on ${withoutOwn.join(', ')} but has no node network there (no networks entry and no network): CAPMOX gives every worker a static address from its instance's IPAM pool`,
        fix: `add networks.${withoutOwn[0]}: { addresses: [...], prefix: 24, gateway: ..., dnsServers: [...] }${withoutOwn.length > 1 ? ' (and one for each of the others)' : ''}`,
      });
      return;
    }
    const sharing = sharingNetwork(tenant, possible, networks);
    if (sharing.length > 1) {
      problems.push({
        rule: 'networks.shared',
        path: [...base, 'networks'],
        message: `instances ${sharing.join(' and ')} of tenant ${tenant.name} can hold its machines at the same time and would both take their node addresses from network: each instance's ProxmoxCluster makes its own IPAM pool, and two pools over one range hand the same address to two workers`,
        value: keys,
        fix: `give each of them but one its own range in networks, e.g. networks.${sharing[1]}: { addresses: [...], prefix: 24, gateway: ..., dnsServers: [...] }`,
      });
    }
  });
  return problems;
}

export const INSTANCE_NETWORK_RULES: readonly LabRule[] = rulesOf(checkInstanceNetworks, [
  {
    id: 'networks.not-secondary-clusters',
    refuses: 'per-instance networks (tenants[].networks, tenants[].previous.networks) unless capmox.multiInstance is secondary-clusters',
    fix: 'remove networks, or set capmox.multiInstance: secondary-clusters',
  },
  {
    id: 'networks.unknown-instance',
    refuses: 'a networks (or previous.networks) entry for an instance the lab does not have',
    fix: 'name an instance of proxmox.instances',
  },
  {
    id: 'networks.unused-instance',
    refuses: 'a networks entry for an instance the tenant never puts machines on',
    fix: 'remove the entry, or make the instance eligible (placement.instances) or pin a pool to it',
  },
  {
    id: 'networks.missing',
    refuses: 'with secondary clusters, an instance the tenant may use that has no node network (no networks entry and no network)',
    fix: 'add a networks entry for that instance',
  },
  {
    id: 'networks.shared',
    refuses: 'two instances that can hold the tenant at once taking node addresses from one network (two IPAM pools over one range)',
    fix: 'give each of them but one its own range in networks',
  },
]);
