/**
 * Who may do what on a Proxmox instance, per tenant: each tenant that has machines on an instance
 * gets its own resource pool there and its own API token, and that token's VM privileges are on
 * that pool only. So the credentials in a tenant's namespace reach its own VMs and nothing else.
 * Pure names and lists, shared by the instance stack (which creates pools, tokens and ACLs) and
 * the tenant rendering (whose ProxmoxMachines join the pool).
 */
import type { PlacementPlan } from '../placement/types';
import type { Instance } from './schema';

/** The tenant's resource pool on an instance: `<pools.vms>-<tenant>`, e.g. capi-tenant-a. */
export function tenantProxmoxPool(instance: Pick<Instance, 'pools'>, tenant: string): string {
  return `${instance.pools.vms}-${tenant}`;
}

/**
 * The name of the tenant's API token (`capmox@pve!<name>`). PVE token names start with a letter,
 * tenant names may start with a digit, hence the prefix.
 */
export function tenantTokenName(tenant: string): string {
  return `tenant-${tenant}`;
}

/** The tenants with machines (or autoscaler room) on an instance, by name. */
export function tenantsOnInstance(plan: Pick<PlacementPlan, 'tenants'>, instance: string): string[] {
  const names = plan.tenants.filter((t) => t.pools.some((p) => p.placements.some((pl) => pl.instance === instance))).map((t) => t.name);
  return [...new Set(names)].sort();
}
