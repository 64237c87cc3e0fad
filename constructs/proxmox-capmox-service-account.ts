/**
 * The Proxmox VE identity Cluster API Provider Proxmox (CAPMOX) runs as, with the least privilege
 * its documentation asks for (docs/advanced-setups.md, "Least-privilege setup"; see docs/proxmox.md):
 * a user in the `pve` realm, two custom roles, an API token with privilege separation, and the same
 * ACLs for the user and for the token — with privilege separation a token holds the intersection
 * of its own ACLs and its user's, so both need every grant.
 */
import { Construct } from 'constructs';
import { Acl } from '../.gen/providers/proxmox/acl';
import { UserToken } from '../.gen/providers/proxmox/user-token';
import { VirtualEnvironmentRole } from '../.gen/providers/proxmox/virtual-environment-role';
import { VirtualEnvironmentUser } from '../.gen/providers/proxmox/virtual-environment-user';
import { Fn, type ITerraformDependable } from 'cdktf';

/** Custom roles CAPMOX's least-privilege setup creates (the built-in PVE roles cover the rest). */
export const CAPMOX_ROLES = {
  /** Reads cluster, node and storage status (`/`, `/nodes`). */
  sysAudit: { id: 'CapmoxSysAudit', privileges: ['Sys.Audit'] },
  /** Allocates the disks of cloned VMs on the VM disk storage. */
  allocateSpace: { id: 'CapmoxDatastoreAllocateSpace', privileges: ['Datastore.AllocateSpace'] },
} as const;

/** One ACL entry, granted to the user and to its token. */
export interface CapmoxGrant {
  readonly path: string;
  readonly roleId: string;
  readonly propagate: boolean;
  /** Why CAPMOX needs it, for docs/proxmox.md and reviewers. */
  readonly reason: string;
}

export interface CapmoxServiceAccountProps {
  /**
   * The user CAPMOX authenticates as.
   * @default 'capmox@pve'
   */
  readonly userId?: string;
  /**
   * Name of the API token (the token id is `<userId>!<tokenName>`).
   * @default 'capi'
   */
  readonly tokenName?: string;
  /** Resource pool the CAPMOX VMs are created in. */
  readonly vmPool: string;
  /** Where the templates CAPMOX clones live: a pool (templates this stack builds) or one existing VM id. */
  readonly templates: { readonly pool: string } | { readonly vmId: number };
  /** Storage for the cloned VMs' disks. */
  readonly diskStorage: string;
  /** Storage for the cloud-init (bootstrap) ISO CAPMOX attaches to each VM. */
  readonly cloudInitStorage: string;
  /** Linux bridge the VMs attach to. */
  readonly bridge: string;
  /**
   * SDN zone of the bridge; plain Linux bridges live in PVE's built-in `localnetwork` zone.
   * @default 'localnetwork'
   */
  readonly sdnZone?: string;
  /**
   * Resources the ACL paths name (the pools): PVE refuses an ACL on a pool that does not exist,
   * so the ACLs are created after them and removed before them.
   * @default []
   */
  readonly aclDependsOn?: ITerraformDependable[];
}

/** The ACLs CAPMOX needs, in a stable order (path, then role). */
export function capmoxGrants(props: CapmoxServiceAccountProps): CapmoxGrant[] {
  const zone = props.sdnZone ?? 'localnetwork';
  const grants: CapmoxGrant[] = [
    { path: '/', roleId: CAPMOX_ROLES.sysAudit.id, propagate: false, reason: 'read the cluster status and /cluster/resources (template lookup by tags)' },
    { path: '/nodes', roleId: CAPMOX_ROLES.sysAudit.id, propagate: true, reason: 'read node status and memory for scheduling' },
    { path: `/pool/${props.vmPool}`, roleId: 'PVEVMAdmin', propagate: true, reason: 'create, configure, start, stop and delete the machines, only inside its pool' },
    'pool' in props.templates
      ? { path: `/pool/${props.templates.pool}`, roleId: 'PVETemplateUser', propagate: true, reason: 'clone the templates (VM.Clone, VM.Audit), nothing else' }
      : { path: `/vms/${props.templates.vmId}`, roleId: 'PVETemplateUser', propagate: false, reason: 'clone the existing template (VM.Clone, VM.Audit), nothing else' },
    { path: `/sdn/zones/${zone}/${props.bridge}`, roleId: 'PVESDNUser', propagate: true, reason: 'attach the machines to the bridge and its VLANs (SDN.Use)' },
    { path: `/storage/${props.cloudInitStorage}`, roleId: 'PVEDatastoreAdmin', propagate: true, reason: 'write the bootstrap (cloud-init) ISO of each machine' },
    { path: `/storage/${props.diskStorage}`, roleId: CAPMOX_ROLES.allocateSpace.id, propagate: true, reason: 'allocate the cloned disks' },
  ];
  const unique = new Map(grants.map((g) => [`${g.path} ${g.roleId}`, g]));
  return [...unique.values()].sort((a, b) => (a.path === b.path ? a.roleId.localeCompare(b.roleId) : a.path.localeCompare(b.path)));
}

export class CapmoxServiceAccount extends Construct {
  /** `user@realm`, e.g. capmox@pve. */
  readonly userId: string;
  /** Token id as CAPMOX's credentials Secret wants it, e.g. capmox@pve!capi (a Terraform reference). */
  readonly tokenId: string;
  /** The token's secret (UUID), sensitive: never printed, only passed on by reference. */
  readonly tokenSecret: string;
  readonly grants: CapmoxGrant[];

  constructor(scope: Construct, id: string, props: CapmoxServiceAccountProps) {
    super(scope, id);
    this.userId = props.userId ?? 'capmox@pve';
    const tokenName = props.tokenName ?? 'capi';
    this.grants = capmoxGrants(props);

    const roles = new Map<string, VirtualEnvironmentRole>(
      Object.values(CAPMOX_ROLES).map((role) => [role.id, new VirtualEnvironmentRole(this, `role-${role.id}`, { roleId: role.id, privileges: [...role.privileges] })]),
    );
    const user = new VirtualEnvironmentUser(this, 'user', {
      userId: this.userId,
      comment: 'Cluster API Provider Proxmox (CAPMOX); managed by pvekaas',
      enabled: true,
    });
    const token = new UserToken(this, 'token', {
      userId: user.userId,
      tokenName,
      comment: 'CAPMOX credentials; managed by pvekaas',
      privilegesSeparation: true,
    });
    this.tokenId = token.id;
    // The provider stores the token as `<user>!<name>=<secret>`; CAPMOX wants the secret alone.
    this.tokenSecret = Fn.element(Fn.split('=', token.value), 1);

    for (const grant of this.grants) {
      // A reference to a custom role orders the ACL after it (and its removal before the role's).
      const common = { path: grant.path, roleId: roles.get(grant.roleId)?.roleId ?? grant.roleId, propagate: grant.propagate, dependsOn: props.aclDependsOn };
      const name = `${grant.path === '/' ? 'root' : grant.path.slice(1).replace(/\//g, '-')}-${grant.roleId}`;
      new Acl(this, `acl-user-${name}`, { ...common, userId: user.userId });
      new Acl(this, `acl-token-${name}`, { ...common, tokenId: token.id });
    }
  }
}
