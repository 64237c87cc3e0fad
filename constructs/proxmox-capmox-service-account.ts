/**
 * The Proxmox VE identity Cluster API Provider Proxmox (CAPMOX) runs as, with least privilege
 * (see docs/proxmox.md): a user in the `pve` realm, three custom roles, and — per tenant with
 * machines on the instance — a privilege-separated API token whose VM privileges cover that
 * tenant's own resource pool only. With privilege separation a token holds the intersection of
 * its own ACLs and its user's, so the user gets every grant and each token only its own.
 * The grants themselves are rendered in modules/rendering/instance.ts; this construct writes them.
 */
import { Construct } from 'constructs';
import { Acl } from '../.gen/providers/proxmox/acl';
import { UserToken } from '../.gen/providers/proxmox/user-token';
import { VirtualEnvironmentRole } from '../.gen/providers/proxmox/virtual-environment-role';
import { VirtualEnvironmentUser } from '../.gen/providers/proxmox/virtual-environment-user';
import { Fn, type ITerraformDependable } from 'cdktf';
import type { AclRendering, CapmoxGrant, ServiceAccountRendering } from '../modules/rendering/instance';

export interface CapmoxServiceAccountProps {
  /** The user, its roles, its grants and one token per tenant with its grants (modules/rendering/instance.ts `renderInstance`). */
  readonly account: ServiceAccountRendering;
  /**
   * The resource behind an ACL path, by path (the pools `/pool/<id>`, the tenants' cloud-init
   * storages `/storage/<id>`): PVE refuses an ACL on a pool that does not exist, so each ACL is
   * created after the one resource its path names and removed before it. Only that one: every ACL depending on every pool made the instance stack
   * grow with tenants² (1,000 tenants: millions of depends_on entries, minutes of synth).
   * @default {}
   */
  readonly aclPathDependsOn?: Readonly<Record<string, ITerraformDependable>>;
}

/** A tenant's token and what it may do. */
export interface CapmoxTenantToken {
  /** Token id as CAPMOX's credentials Secret wants it, e.g. capmox@pve!tenant-a (a Terraform reference). */
  readonly tokenId: string;
  /** The token's secret (UUID), sensitive: never printed, only passed on by reference. */
  readonly tokenSecret: string;
  readonly grants: readonly CapmoxGrant[];
}

export class CapmoxServiceAccount extends Construct {
  /** `user@realm`, e.g. capmox@pve. */
  readonly userId: string;
  /** The grants of the user: the shared ones and every tenant's pool. */
  readonly grants: readonly CapmoxGrant[];
  /** One token per tenant, by tenant name. */
  readonly tokens: ReadonlyMap<string, CapmoxTenantToken>;

  constructor(scope: Construct, id: string, props: CapmoxServiceAccountProps) {
    super(scope, id);
    const account = props.account;
    this.userId = account.userId;
    this.grants = account.grants;

    const roles = new Map<string, VirtualEnvironmentRole>(
      account.roles.map((role) => [role.roleId, new VirtualEnvironmentRole(this, role.id, { roleId: role.roleId, privileges: [...role.privileges] })]),
    );
    const user = new VirtualEnvironmentUser(this, 'user', { userId: account.userId, comment: account.comment, enabled: true });
    const dependsOnPath = (path: string) => {
      const resource = props.aclPathDependsOn?.[path];
      return resource ? [resource] : undefined;
    };
    // A reference to a custom role orders the ACL after it (and its removal before the role's).
    const common = (grant: AclRendering) => ({
      path: grant.path,
      roleId: roles.get(grant.roleId)?.roleId ?? grant.roleId,
      propagate: grant.propagate,
      dependsOn: dependsOnPath(grant.path),
    });
    for (const grant of account.grants) new Acl(this, grant.id, { ...common(grant), userId: user.userId });

    const tokens = new Map<string, CapmoxTenantToken>();
    for (const t of account.tokens) {
      const token = new UserToken(this, t.id, {
        userId: user.userId,
        tokenName: t.tokenName,
        comment: t.comment,
        privilegesSeparation: t.privilegesSeparation,
      });
      for (const grant of t.grants) new Acl(this, grant.id, { ...common(grant), tokenId: token.id });
      // The provider stores the token as `<user>!<name>=<secret>`; CAPMOX wants the secret alone.
      tokens.set(t.tenant, { tokenId: token.id, tokenSecret: Fn.element(Fn.split('=', token.value), 1), grants: t.grants });
    }
    this.tokens = tokens;
  }
}
