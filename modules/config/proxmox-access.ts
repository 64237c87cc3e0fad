/**
 * Who may do what on a Proxmox instance, per tenant: each tenant that has machines on an instance
 * gets its own resource pool there and its own API token, and that token's VM privileges are on
 * that pool only. So the credentials in a tenant's namespace reach its own VMs and nothing else.
 * Pure names and lists, shared by the instance stack (which creates pools, tokens and ACLs) and
 * the tenant rendering (whose ProxmoxMachines join the pool). Which tenants are on an instance is
 * the rendering's (modules/rendering/instance.ts `tenantsOnInstance`): config never reads the plan.
 */
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

/**
 * The tenant's own cloud-init storage on an instance: `<storage.cloudInit>-<tenant>`, a directory
 * storage (content iso) the instance stack creates. Proxmox VE grants ISO access per storage only
 * (pve-storage PVE::Storage::check_volume_access: Datastore.Allocate, or for `iso` volumes
 * Datastore.Audit/AllocateSpace, on `/storage/<storage>`; there is no ACL path below a storage),
 * so a storage per tenant is the only way one tenant's token cannot list, attach, replace or
 * delete another tenant's bootstrap ISO.
 */
export function tenantCloudInitStorage(instance: { readonly storage: { readonly cloudInit: string } }, tenant: string): string {
  return `${instance.storage.cloudInit}-${tenant}`;
}

/** The directory of the tenant's cloud-init storage on every node: `<storage.cloudInitPath>/<tenant>`. */
export function tenantCloudInitPath(instance: { readonly storage: { readonly cloudInitPath: string } }, tenant: string): string {
  return `${instance.storage.cloudInitPath.replace(/\/+$/, '')}/${tenant}`;
}

/**
 * The VLAN tag of the tenant's machines on an instance (`networks.<instance>.vlan`, else
 * `network.vlan`), or undefined for untagged: what its token may use of the bridge (SDN.Use on
 * `/sdn/zones/localnetwork/<bridge>/<vlan>`, or on the bridge itself for untagged, never both).
 */
export function tenantVlanOn(
  tenant: { readonly network?: { readonly vlan?: number }; readonly networks?: Readonly<Record<string, { readonly vlan?: number }>> },
  instance: string,
): number | undefined {
  const own = tenant.networks && Object.hasOwn(tenant.networks, instance) ? tenant.networks[instance] : undefined;
  return (own ?? tenant.network)?.vlan;
}
