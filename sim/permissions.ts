/**
 * The Proxmox VE permission model, as PVE 8 documents it (pve-admin-guide, "User Management"):
 *
 * - a role is a set of privileges; the built-in roles cannot be changed;
 * - an ACL entry grants a role to a user, group or API token on a path, optionally propagating to
 *   the paths below it;
 * - walking from `/` down to the path, the entries of the deepest level that has any for the
 *   subject replace the ones above (a user's own entries win over its groups' on the same level);
 *   entries that do not propagate count only on their own path; `NoAccess` there wins;
 * - a VM or storage in a pool also gets the pool's permissions (`/pool/<pool>`);
 * - an API token with privilege separation holds the intersection of its own ACLs and its user's;
 *   without it, the user's; `root@pam` holds every privilege.
 */

export const ALL_PRIVILEGES = [
  'Datastore.Allocate',
  'Datastore.AllocateSpace',
  'Datastore.AllocateTemplate',
  'Datastore.Audit',
  'Group.Allocate',
  'Mapping.Audit',
  'Mapping.Modify',
  'Mapping.Use',
  'Permissions.Modify',
  'Pool.Allocate',
  'Pool.Audit',
  'Realm.Allocate',
  'Realm.AllocateUser',
  'SDN.Allocate',
  'SDN.Audit',
  'SDN.Use',
  'Sys.AccessNetwork',
  'Sys.Audit',
  'Sys.Console',
  'Sys.Incoming',
  'Sys.Modify',
  'Sys.PowerMgmt',
  'Sys.Syslog',
  'User.Modify',
  'VM.Allocate',
  'VM.Audit',
  'VM.Backup',
  'VM.Clone',
  'VM.Config.CDROM',
  'VM.Config.CPU',
  'VM.Config.Cloudinit',
  'VM.Config.Disk',
  'VM.Config.HWType',
  'VM.Config.Memory',
  'VM.Config.Network',
  'VM.Config.Options',
  'VM.Console',
  'VM.Migrate',
  'VM.Monitor',
  'VM.PowerMgmt',
  'VM.Snapshot',
  'VM.Snapshot.Rollback',
] as const;

export type Privilege = (typeof ALL_PRIVILEGES)[number];

// PVEVMAdmin holds every VM privilege there is; derived, so the two lists cannot drift apart.
const VM_ADMIN: readonly Privilege[] = ALL_PRIVILEGES.filter((p) => p.startsWith('VM.'));

/** A predefined role by its id, or undefined (an own key only: "constructor" is no role). */
export function builtinRole(roleid: string): readonly Privilege[] | undefined {
  return Object.hasOwn(BUILTIN_ROLES, roleid) ? BUILTIN_ROLES[roleid] : undefined;
}

/** The predefined roles of PVE 8 ("special": they cannot be changed or deleted). */
export const BUILTIN_ROLES: Record<string, readonly Privilege[]> = {
  Administrator: ALL_PRIVILEGES,
  NoAccess: [],
  PVEAdmin: ALL_PRIVILEGES.filter((p) => !['Permissions.Modify', 'Realm.Allocate', 'Sys.Modify', 'Sys.PowerMgmt'].includes(p)),
  PVEAuditor: ['Datastore.Audit', 'Mapping.Audit', 'Pool.Audit', 'SDN.Audit', 'Sys.Audit', 'VM.Audit'],
  PVEDatastoreAdmin: ['Datastore.Allocate', 'Datastore.AllocateSpace', 'Datastore.AllocateTemplate', 'Datastore.Audit'],
  PVEDatastoreUser: ['Datastore.AllocateSpace', 'Datastore.Audit'],
  PVEMappingAdmin: ['Mapping.Audit', 'Mapping.Modify', 'Mapping.Use'],
  PVEMappingUser: ['Mapping.Audit', 'Mapping.Use'],
  PVEPoolAdmin: ['Pool.Allocate', 'Pool.Audit'],
  PVEPoolUser: ['Pool.Audit'],
  PVESDNAdmin: ['SDN.Allocate', 'SDN.Audit', 'SDN.Use'],
  PVESDNUser: ['SDN.Audit', 'SDN.Use'],
  PVESysAdmin: ['Sys.Audit', 'Sys.Console', 'Sys.Incoming', 'Sys.Modify', 'Sys.PowerMgmt', 'Sys.Syslog'],
  PVETemplateUser: ['VM.Audit', 'VM.Clone'],
  PVEUserAdmin: ['Group.Allocate', 'Realm.AllocateUser', 'User.Modify'],
  PVEVMAdmin: VM_ADMIN,
  PVEVMUser: ['VM.Audit', 'VM.Backup', 'VM.Config.CDROM', 'VM.Config.Cloudinit', 'VM.Console', 'VM.PowerMgmt'],
};

export function isPrivilege(name: string): name is Privilege {
  return (ALL_PRIVILEGES as readonly string[]).includes(name);
}

export interface AclEntry {
  path: string;
  /** `user` (user@realm), `group`, or `token` (user@realm!name). */
  type: 'user' | 'group' | 'token';
  ugid: string;
  roleid: string;
  propagate: boolean;
}

/** What the permission model needs to know about an instance. */
export interface AccessView {
  roles: Map<string, ReadonlySet<string>>;
  acl: readonly AclEntry[];
  /** Groups of each user. */
  groupsOf(userid: string): readonly string[];
  /** Pool a VM (by id) or storage (by name) belongs to, if any. */
  poolOfVm(vmid: number): string | undefined;
  poolOfStorage(storage: string): string | undefined;
  /** Token privilege separation, or undefined when the token does not exist. */
  tokenPrivsep(tokenid: string): boolean | undefined;
}

/** `/`, `/vms`, `/vms/100` for `/vms/100`. */
export function pathPrefixes(path: string): string[] {
  const parts = path.split('/').filter(Boolean);
  return ['/', ...parts.map((_, i) => `/${parts.slice(0, i + 1).join('/')}`)];
}

/** Roles a subject holds on a path, by PVE's inheritance rule. */
function rolesAt(view: AccessView, path: string, owns: (e: AclEntry) => 'own' | 'group' | undefined): Set<string> {
  let roles = new Set<string>();
  for (const level of pathPrefixes(path)) {
    const final = level === path;
    const entries = view.acl.filter((e) => e.path === level && (final || e.propagate));
    const own = entries.filter((e) => owns(e) === 'own');
    const viaGroup = entries.filter((e) => owns(e) === 'group');
    const winning = own.length > 0 ? own : viaGroup;
    if (winning.length > 0) roles = new Set(winning.map((e) => e.roleid));
  }
  if (roles.has('NoAccess')) return new Set(['NoAccess']);
  return roles;
}

function privilegesOfRoles(view: AccessView, roles: Set<string>): Set<string> {
  const privs = new Set<string>();
  for (const role of roles) for (const p of view.roles.get(role) ?? []) privs.add(p);
  return privs;
}

/** The paths whose permissions apply to `path`: itself, and its pool's path for pool members. */
function effectivePaths(view: AccessView, path: string): string[] {
  const vm = /^\/vms\/(\d+)$/.exec(path);
  const pool = vm ? view.poolOfVm(Number(vm[1])) : /^\/storage\/([^/]+)$/.test(path) ? view.poolOfStorage(path.split('/')[2]) : undefined;
  return pool ? [path, `/pool/${pool}`] : [path];
}

function subjectPrivileges(view: AccessView, path: string, owns: (e: AclEntry) => 'own' | 'group' | undefined): Set<string> {
  const privs = new Set<string>();
  for (const p of effectivePaths(view, path)) for (const priv of privilegesOfRoles(view, rolesAt(view, p, owns))) privs.add(priv);
  return privs;
}

/**
 * The privileges an authenticated id (`user@realm` or `user@realm!token`) holds on a path.
 */
export function privilegesOf(view: AccessView, authid: string, path: string): Set<string> {
  const [userid, tokenName] = authid.split('!');
  if (userid === 'root@pam' && tokenName === undefined) return new Set(ALL_PRIVILEGES);
  const groups = new Set(view.groupsOf(userid));
  const user =
    userid === 'root@pam'
      ? new Set<string>(ALL_PRIVILEGES)
      : subjectPrivileges(view, path, (e) => (e.type === 'user' && e.ugid === userid ? 'own' : e.type === 'group' && groups.has(e.ugid) ? 'group' : undefined));
  if (tokenName === undefined) return user;
  const privsep = view.tokenPrivsep(authid);
  if (privsep === undefined) return new Set();
  if (!privsep) return user;
  const token = subjectPrivileges(view, path, (e) => (e.type === 'token' && e.ugid === authid ? 'own' : undefined));
  return new Set([...token].filter((p) => user.has(p)));
}

/** Whether `authid` holds every one of `privs` on `path`. */
export function hasPrivileges(view: AccessView, authid: string, path: string, privs: readonly string[]): boolean {
  const held = privilegesOf(view, authid, path);
  return privs.every((p) => held.has(p));
}

/** Whether `authid` holds any privilege on `path` or below it (PVE's "any" check for listings). */
export function hasAnyBelow(view: AccessView, authid: string, path: string, privs: readonly string[]): boolean {
  const paths = new Set([path, ...view.acl.map((e) => e.path).filter((p) => p.startsWith(path === '/' ? '/' : `${path}/`))]);
  return [...paths].some((p) => privs.some((priv) => privilegesOf(view, authid, p).has(priv)));
}
