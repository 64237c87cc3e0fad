/**
 * Address edits (issue 42, item 4): a tenant's node network — its ranges, prefix, gateway, DNS
 * servers — changed between the deployed (old) description and the new one. What the parts do with
 * such an edit, at the pinned versions:
 *
 * - The network is the infrastructure cluster's: pvekaas patches `ipv4Config` and `dnsServers` into
 *   the ProxmoxClusterTemplate (modules/tenants/cluster-class-patches.ts), never into a machine
 *   template. Cluster API's topology controller patches the ProxmoxCluster in place
 *   (sigs.k8s.io/cluster-api v1.13.6 internal/controllers/topology/cluster/reconcile_state.go,
 *   `reconcileInfrastructureCluster`) and rotates machine templates only when they change
 *   (`reconcileReferencedTemplate`): no machine is rolled for an address edit.
 * - CAPMOX writes a machine's network configuration (address, gateway, DNS) into its cloud-init
 *   once, while the VM waits for its bootstrap data (github.com/ionos-cloud/cluster-api-provider-proxmox
 *   v0.9.0 internal/service/vmservice/bootstrap.go, `reconcileBootstrapData`): running machines keep
 *   the old gateway and DNS servers until they are replaced; new machines get the new ones.
 * - CAPMOX updates the tenant's InClusterIPPool from the ProxmoxCluster (pkg/kubernetes/ipam/ipam.go,
 *   `CreateOrUpdateInClusterIPPool`), and the in-cluster IPAM provider refuses a pool update that
 *   drops an address in use (sigs.k8s.io/cluster-api-ipam-provider-in-cluster v1.1.0
 *   internal/webhooks/inclusterippool.go, `ValidateUpdate`: "pool addresses do not contain allocated
 *   addresses"): the edit would fail at apply, and CAPMOX retry for ever. It hands out the lowest
 *   free address first (internal/poolutil/pool.go, `FindFreeAddress`) from the pool's ranges without
 *   the subnet's network and broadcast addresses and the gateway (`PoolSpecToIPSet`), so the
 *   addresses running machines may hold are the pool's first N, N the most machines the tenant had
 *   there at once.
 *
 * So: a range edit that leaves out any of those first N addresses is refused at synth, with the
 * addresses; any other edit is explained (`notes`, for review).
 */
import { parseRange, numberToIp, ipToNumber } from '../config/ip';
import type { Problem } from '../config/problems';
import type { Lab, Tenant } from '../config/schema';
import { machinesAtMost } from '../placement/scale';
import type { PlacementPlan, TenantPlan } from '../placement/types';

type Network = NonNullable<Tenant['network']>;

export interface AddressEditNote {
  tenant: string;
  /** `network` or `networks.<instance>`. */
  network: string;
  lines: string[];
}

export interface AddressEdits {
  problems: Problem[];
  notes: AddressEditNote[];
}

/** The addresses IPAM hands out from a network, lowest first (PoolSpecToIPSet: ranges, less network, broadcast and gateway), at most `count`. */
function firstAddresses(network: Network, count: number): number[] {
  const ranges = network.addresses
    .map((a) => parseRange(a))
    .filter((r) => r !== undefined && r.first <= r.last)
    .map((r) => ({ first: r!.first, last: r!.last }))
    .sort((a, b) => a.first - b.first);
  const first = ranges[0]?.first;
  if (first === undefined || count <= 0) return [];
  const size = 2 ** (32 - network.prefix);
  const subnet = first - (first % size);
  const reserved = new Set([subnet, subnet + size - 1, ipToNumber(network.gateway) ?? -1]);
  const out: number[] = [];
  let last = -1;
  for (const r of ranges) {
    for (let a = Math.max(r.first, last + 1); a <= r.last && out.length < count; a++) if (!reserved.has(a)) out.push(a);
    last = Math.max(last, r.last);
    if (out.length >= count) break;
  }
  return out;
}

function contains(network: Network, address: number): boolean {
  return network.addresses.some((a) => {
    const r = parseRange(a);
    return r !== undefined && r.first <= address && address <= r.last;
  });
}

/** Machines at once at most on the given instances: every placement at its maximum, plus one surge machine each (CAPI's default MaxSurge 1). */
function machinesOn(plan: TenantPlan | undefined, instances: (instance: string) => boolean): number {
  let n = 0;
  for (const pool of plan?.pools ?? []) for (const p of pool.placements) if (instances(p.instance)) n += machinesAtMost(p.scale) + 1;
  return n;
}

/** Runs of consecutive addresses as text: 10.0.0.1-10.0.0.4, 10.0.0.9. */
function runs(addresses: number[]): string {
  const out: string[] = [];
  for (let i = 0; i < addresses.length;) {
    let j = i;
    while (j + 1 < addresses.length && addresses[j + 1] === addresses[j] + 1) j++;
    out.push(i === j ? numberToIp(addresses[i]) : `${numberToIp(addresses[i])}-${numberToIp(addresses[j])}`);
    i = j + 1;
  }
  return out.join(', ');
}

const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/** Every address edit of every tenant in both descriptions: refused where it strands running machines, else explained. */
export function addressEdits(before: Lab, beforePlan: PlacementPlan, after: Lab): AddressEdits {
  const problems: Problem[] = [];
  const notes: AddressEditNote[] = [];
  const oldTenants = new Map(before.tenants.map((t) => [t.name, t]));
  const oldPlans = new Map(beforePlan.tenants.map((t) => [t.name, t]));
  after.tenants.forEach((tenant, index) => {
    const old = oldTenants.get(tenant.name);
    if (!old) return;
    const pairs: { key: string; path: (string | number)[]; was?: Network; now?: Network; instances: (i: string) => boolean }[] = [];
    const oldOwn = new Set(Object.keys(old.networks ?? {}));
    pairs.push({ key: 'network', path: ['tenants', index, 'network'], was: old.network, now: tenant.network, instances: (i) => !oldOwn.has(i) });
    for (const instance of Object.keys(tenant.networks ?? {}).sort())
      pairs.push({
        key: `networks.${instance}`,
        path: ['tenants', index, 'networks', instance],
        was: old.networks?.[instance],
        now: tenant.networks?.[instance],
        instances: (i) => i === instance,
      });
    for (const { key, path, was, now, instances } of pairs) {
      if (!was || !now) continue;
      const lines: string[] = [];
      const inUse = firstAddresses(was, machinesOn(oldPlans.get(tenant.name), instances));
      const dropped = inUse.filter((a) => !contains(now, a));
      if (dropped.length > 0) {
        problems.push({
          path: [...path, 'addresses'],
          message: `tenant ${tenant.name}'s ${key} no longer holds ${runs(dropped)}, addresses its running machines may hold (IPAM hands out the lowest free address first, and the tenant had up to ${inUse.length} machines there); the IPAM provider refuses a pool update that drops an address in use, so the change would fail at apply`,
          value: now.addresses,
          fix: `keep ${runs(inUse)} in ${key}.addresses (add new ranges beside the old one); shrink it only after the tenant has fewer machines there`,
          rule: 'edit.node-range-in-use',
        });
      } else if (!same(was.addresses, now.addresses)) {
        lines.push(
          `node ranges ${was.addresses.join(', ')} → ${now.addresses.join(', ')}: running machines keep their addresses; new machines get the lowest free address of the new ranges`,
        );
      }
      if (was.gateway !== now.gateway || was.prefix !== now.prefix)
        lines.push(
          `gateway ${was.gateway}/${was.prefix} → ${now.gateway}/${now.prefix}: no machine is rolled for it; running machines keep the old gateway until they are replaced (CAPMOX writes a machine's network into its cloud-init once, at bootstrap); new machines get the new one`,
        );
      if (!same(was.dnsServers, now.dnsServers))
        lines.push(
          `DNS servers ${was.dnsServers.join(', ')} → ${now.dnsServers.join(', ')}: no machine is rolled for it; running machines keep the old servers until they are replaced, new machines get the new ones`,
        );
      if (lines.length > 0) notes.push({ tenant: tenant.name, network: key, lines });
    }
  });
  return { problems, notes };
}
