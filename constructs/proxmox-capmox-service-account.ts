/**
 * The Proxmox VE identity Cluster API Provider Proxmox (CAPMOX) runs as, with least privilege
 * (see docs/proxmox.md): a user in the `pve` realm, three custom roles, and — per tenant with
 * machines on the instance — a privilege-separated API token whose VM privileges cover that
 * tenant's own resource pool only. With privilege separation a token holds the intersection of
 * its own ACLs and its user's, so the user gets every grant and each token only its own.
 */
import { Construct } from 'constructs';
import { Acl } from '../.gen/providers/proxmox/acl';
import { UserToken } from '../.gen/providers/proxmox/user-token';
import { VirtualEnvironmentRole } from '../.gen/providers/proxmox/virtual-environment-role';
import { VirtualEnvironmentUser } from '../.gen/providers/proxmox/virtual-environment-user';
import { Fn, type ITerraformDependable } from 'cdktf';
import { tenantTokenName } from '../modules/config/proxmox-access';

/** Custom roles CAPMOX's least-privilege setup creates (the built-in PVE roles cover the rest). */
export const CAPMOX_ROLES = {
  /** Reads cluster, node and storage status (`/`, `/nodes`). */
  sysAudit: { id: 'CapmoxSysAudit', privileges: ['Sys.Audit'] },
  /** Allocates the disks of cloned VMs on the VM disk storage. */
  allocateSpace: { id: 'CapmoxDatastoreAllocateSpace', privileges: ['Datastore.AllocateSpace'] },
  /**
   * The cloud-init ISOs, on the tenant's own cloud-init storage only: CAPMOX (go-proxmox v0.6)
   * finds the storage by listing the node's storages (Datastore.Audit), uploads
   * `user-data-<vmid>.iso` (Datastore.AllocateTemplate) and deletes it once the machine is up (PVE
   * asks Datastore.Allocate to delete a non-backup volume). No Datastore.AllocateSpace: no disks there.
   */
  cloudInit: { id: 'CapmoxCloudInit', privileges: ['Datastore.Allocate', 'Datastore.AllocateTemplate', 'Datastore.Audit'] },
} as const;

/** One ACL entry, granted to the user and to its token. */
export interface CapmoxGrant {
  readonly path: string;
  readonly roleId: string;
  readonly propagate: boolean;
  /** Why CAPMOX needs it, for docs/proxmox.md and reviewers. */
  readonly reason: string;
}

/** A tenant with machines on the instance: its own token, with VM privileges on its own pool. */
export interface CapmoxTenant {
  readonly name: string;
  /** The tenant's resource pool (`tenantProxmoxPool`). */
  readonly pool: string;
  /** The tenant's own cloud-init storage (`tenantCloudInitStorage`): its ISOs, nobody else's. */
  readonly cloudInitStorage: string;
  /** The VLAN tag of its machines on the instance (`tenantVlanOn`); undefined: untagged. */
  readonly vlan?: number;
}

export interface CapmoxServiceAccountProps {
  /**
   * The user CAPMOX authenticates as.
   * @default 'capmox@pve'
   */
  readonly userId?: string;
  /** The tenants with machines on the instance, each with its pool; one token each. */
  readonly tenants: readonly CapmoxTenant[];
  /** Where the templates CAPMOX clones live: a pool (templates this stack builds) or one existing VM id. */
  readonly templates: { readonly pool: string } | { readonly vmIds: readonly number[] };
  /** Storage for the cloned VMs' disks. */
  readonly diskStorage: string;
  /** Linux bridge the VMs attach to. */
  readonly bridge: string;
  /**
   * SDN zone of the bridge; plain Linux bridges live in PVE's built-in `localnetwork` zone.
   * @default 'localnetwork'
   */
  readonly sdnZone?: string;
  /**
   * The resource behind an ACL path, by path (the pools `/pool/<id>`, the tenants' cloud-init
   * storages `/storage/<id>`): PVE refuses an ACL on a pool that does not exist, so each ACL is
   * created after the one resource its path names and removed before it. Only that one: every ACL depending on every pool made the instance stack
   * grow with tenants² (1,000 tenants: millions of depends_on entries, minutes of synth).
   * @default {}
   */
  readonly aclPathDependsOn?: Readonly<Record<string, ITerraformDependable>>;
}

/** The ACLs every tenant's token (and the user) needs, in a stable order (path, then role). */
export function capmoxGrants(props: Omit<CapmoxServiceAccountProps, 'tenants' | 'bridge'>): CapmoxGrant[] {
  const grants: CapmoxGrant[] = [
    { path: '/', roleId: CAPMOX_ROLES.sysAudit.id, propagate: false, reason: 'read the cluster status and /cluster/resources (template lookup by tags)' },
    { path: '/nodes', roleId: CAPMOX_ROLES.sysAudit.id, propagate: true, reason: 'read node status and memory for scheduling' },
    ...('pool' in props.templates
      ? [{ path: `/pool/${props.templates.pool}`, roleId: 'PVETemplateUser', propagate: true, reason: 'clone the templates (VM.Clone, VM.Audit), nothing else' }]
      : // One existing template per Kubernetes version (template.kubernetesVersion and template.versions).
        [...new Set(props.templates.vmIds)].map((id) => ({ path: `/vms/${id}`, roleId: 'PVETemplateUser', propagate: false, reason: 'clone the existing template (VM.Clone, VM.Audit), nothing else' }))),
    { path: `/storage/${props.diskStorage}`, roleId: CAPMOX_ROLES.allocateSpace.id, propagate: true, reason: 'allocate the cloned disks' },
  ];
  return sortGrants(grants);
}

/**
 * The grants only one tenant's token holds: its VMs, in its pool; its own cloud-init storage; its
 * own VLAN of the bridge. Proxmox VE checks a NIC with pve-guest-common PVE::GuestHelpers::
 * check_vnet_access: SDN.Use on `/sdn/zones/<zone>/<bridge>/<tag>` for a tag and for every trunk
 * tag, on `/sdn/zones/<zone>/<bridge>` itself only for an untagged NIC. So a tagged tenant gets its
 * VLAN's path, an untagged one the bridge's path without propagation: neither reaches another
 * VLAN (the management VIP VLAN), nor trunks.
 */
export function tenantGrants(tenant: CapmoxTenant, bridge: string, sdnZone = 'localnetwork'): CapmoxGrant[] {
  const bridgePath = `/sdn/zones/${sdnZone}/${bridge}`;
  return [
    { path: `/pool/${tenant.pool}`, roleId: 'PVEVMAdmin', propagate: true, reason: `create, configure, start, stop and delete the machines of tenant ${tenant.name}, only inside its pool` },
    {
      path: `/storage/${tenant.cloudInitStorage}`,
      roleId: CAPMOX_ROLES.cloudInit.id,
      propagate: false,
      reason: `upload and delete the bootstrap (cloud-init) ISO of each machine of tenant ${tenant.name}, on a storage of its own that holds nothing else`,
    },
    tenant.vlan === undefined
      ? { path: bridgePath, roleId: 'PVESDNUser', propagate: false, reason: `attach the machines of tenant ${tenant.name} to the bridge, untagged only (SDN.Use; no VLAN, no trunk)` }
      : { path: `${bridgePath}/${tenant.vlan}`, roleId: 'PVESDNUser', propagate: false, reason: `attach the machines of tenant ${tenant.name} to VLAN ${tenant.vlan} of the bridge only (SDN.Use)` },
  ];
}

function sortGrants(grants: CapmoxGrant[]): CapmoxGrant[] {
  const unique = new Map(grants.map((g) => [`${g.path} ${g.roleId}`, g]));
  return [...unique.values()].sort((a, b) => (a.path === b.path ? a.roleId.localeCompare(b.roleId) : a.path.localeCompare(b.path)));
}

/** A tenant's token and what it may do. */
export interface CapmoxTenantToken {
  /** Token id as CAPMOX's credentials Secret wants it, e.g. capmox@pve!tenant-a (a Terraform reference). */
  readonly tokenId: string;
  /** The token's secret (UUID), sensitive: never printed, only passed on by reference. */
  readonly tokenSecret: string;
  readonly grants: CapmoxGrant[];
}

export class CapmoxServiceAccount extends Construct {
  /** `user@realm`, e.g. capmox@pve. */
  readonly userId: string;
  /** The grants of the user: the shared ones and every tenant's pool. */
  readonly grants: CapmoxGrant[];
  /** One token per tenant, by tenant name. */
  readonly tokens: ReadonlyMap<string, CapmoxTenantToken>;

  constructor(scope: Construct, id: string, props: CapmoxServiceAccountProps) {
    super(scope, id);
    this.userId = props.userId ?? 'capmox@pve';
    const shared = capmoxGrants(props);
    const tenants = [...props.tenants].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const own = (tenant: CapmoxTenant) => tenantGrants(tenant, props.bridge, props.sdnZone);
    this.grants = sortGrants([...shared, ...tenants.flatMap(own)]);

    const roles = new Map<string, VirtualEnvironmentRole>(
      Object.values(CAPMOX_ROLES).map((role) => [role.id, new VirtualEnvironmentRole(this, `role-${role.id}`, { roleId: role.id, privileges: [...role.privileges] })]),
    );
    const user = new VirtualEnvironmentUser(this, 'user', {
      userId: this.userId,
      comment: 'Cluster API Provider Proxmox (CAPMOX); managed by pvekaas',
      enabled: true,
    });
    const dependsOnPath = (path: string) => {
      const resource = props.aclPathDependsOn?.[path];
      return resource ? [resource] : undefined;
    };
    const aclName = (grant: CapmoxGrant) => `${grant.path === '/' ? 'root' : grant.path.slice(1).replace(/\//g, '-')}-${grant.roleId}`;
    // A reference to a custom role orders the ACL after it (and its removal before the role's).
    const common = (grant: CapmoxGrant) => ({ path: grant.path, roleId: roles.get(grant.roleId)?.roleId ?? grant.roleId, propagate: grant.propagate, dependsOn: dependsOnPath(grant.path) });
    for (const grant of this.grants) new Acl(this, `acl-user-${aclName(grant)}`, { ...common(grant), userId: user.userId });

    const tokens = new Map<string, CapmoxTenantToken>();
    for (const tenant of tenants) {
      const token = new UserToken(this, `token-${tenant.name}`, {
        userId: user.userId,
        tokenName: tenantTokenName(tenant.name),
        comment: `CAPMOX credentials of tenant ${tenant.name}; managed by pvekaas`,
        privilegesSeparation: true,
      });
      const grants = sortGrants([...shared, ...own(tenant)]);
      for (const grant of grants) new Acl(this, `acl-token-${tenant.name}-${aclName(grant)}`, { ...common(grant), tokenId: token.id });
      // The provider stores the token as `<user>!<name>=<secret>`; CAPMOX wants the secret alone.
      tokens.set(tenant.name, { tokenId: token.id, tokenSecret: Fn.element(Fn.split('=', token.value), 1), grants });
    }
    this.tokens = tokens;
  }
}
