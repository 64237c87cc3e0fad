/**
 * Access control: users, API tokens, roles, ACLs and permissions (`/access/*`).
 */
import { randomUUID } from 'node:crypto';
import { PveError, badParams, fail } from '../errors';
import { passwordHash, type SimulatedInstance } from '../instance';
import { BUILTIN_ROLES, builtinRole, isPrivilege } from '../permissions';
import { ID, bit, flag, int, list, nonEmpty, required, type AddRoute } from './router';

const REALMS = ['pam', 'pve'];

function user(inst: SimulatedInstance, userid: string) {
  const u = inst.users.get(userid);
  if (!u) fail(`user '${userid}' does not exist`);
  return u;
}

function canManageUsers(inst: SimulatedInstance, authid: string): boolean {
  return inst.can(authid, '/access/groups', ['User.Modify']);
}

function requireSelfOrUserAdmin(inst: SimulatedInstance, authid: string, userid: string, audit = false): void {
  if (authid.split('!')[0] === userid && !authid.includes('!')) return;
  if (authid.split('!')[0] === userid && audit) return;
  if (audit && inst.can(authid, '/access/groups', ['Sys.Audit'])) return;
  inst.require(authid, '/access/groups', ['User.Modify']);
}

function tokensOf(inst: SimulatedInstance, userid: string) {
  return [...inst.tokens.values()].filter((t) => t.userid === userid).sort((a, b) => a.name.localeCompare(b.name));
}

function tokenInfo(t: { privsep: boolean; expire: number; comment?: string }) {
  return nonEmpty({ privsep: bit(t.privsep), expire: t.expire, comment: t.comment });
}

function userJson(inst: SimulatedInstance, u: ReturnType<typeof user>, withTokens: boolean) {
  return {
    ...nonEmpty({ comment: u.comment, email: u.email, firstname: u.firstname, lastname: u.lastname, keys: u.keys }),
    enable: bit(u.enable),
    expire: u.expire,
    groups: [...u.groups].sort(),
    ...(withTokens ? { tokens: Object.fromEntries(tokensOf(inst, u.userid).map((t) => [t.name, tokenInfo(t)])) } : {}),
  };
}

function membersOf(inst: SimulatedInstance, groupid: string): string[] {
  return [...inst.users.values()]
    .filter((u) => u.groups.includes(groupid))
    .map((u) => u.userid)
    .sort();
}

/** PVE's password rules: at least 5 characters (pve-password schema), at most 64 bytes. */
function checkedPassword(password: string): string {
  if (password.length < 5) badParams({ password: 'value must have a minimum length of 5' });
  if (Buffer.byteLength(password) > 64) badParams({ password: 'value may only be 64 characters long' });
  return passwordHash(password);
}

export function removeAclEntries(inst: SimulatedInstance, match: (e: SimulatedInstance['acl'][number]) => boolean): void {
  for (let i = inst.acl.length - 1; i >= 0; i--) if (match(inst.acl[i])) inst.acl.splice(i, 1);
}

function token(inst: SimulatedInstance, userid: string, name: string) {
  user(inst, userid);
  const t = inst.tokens.get(`${userid}!${name}`);
  if (!t) fail(`no such token '${name}' for user '${userid}'`);
  return t;
}

function privilegeList(text: string | undefined): string[] {
  const privs = list(text);
  for (const p of privs) if (!isPrivilege(p)) fail(`invalid privilege '${p}'`);
  return privs;
}

/** The ACL paths PVE accepts (PVE::AccessControl::check_path). */
const ACL_PATH =
  /^\/$|^\/(access(\/(groups|realm)(\/[^/]+)?)?|nodes(\/[^/]+)?|pool(\/[^/]+){0,2}|sdn(\/(zones|vnets)(\/[^/]+){0,3})?|storage(\/[^/]+)?|vms(\/\d+)?|mapping(\/[^/]+){0,2})$/;

export function registerAccess(route: AddRoute): void {
  route('GET', '/access/users', ({ inst, authid, params }) => {
    const visible = [...inst.users.values()].filter(
      (u) => canManageUsers(inst, authid) || inst.can(authid, '/access/groups', ['Sys.Audit']) || u.userid === authid.split('!')[0],
    );
    return visible
      .filter((u) => params.enabled === undefined || u.enable === flag(params.enabled))
      .sort((a, b) => a.userid.localeCompare(b.userid))
      .map((u) => ({ userid: u.userid, ...userJson(inst, u, flag(params.full)) }));
  });

  route('POST', '/access/users', ({ inst, authid, params }) => {
    const userid = required(params, 'userid');
    const m = /^([^\s:/@]+)@([A-Za-z][A-Za-z0-9.\-_]+)$/.exec(userid);
    if (!m) badParams({ userid: `value '${userid}' does not look like a valid user name` });
    inst.require(authid, '/access/groups', ['User.Modify']);
    inst.require(authid, `/access/realm/${m[2]}`, ['Realm.AllocateUser']);
    if (!REALMS.includes(m[2])) fail(`create user failed: domain '${m[2]}' does not exist`);
    if (inst.users.has(userid)) fail(`create user failed: user '${userid}' already exists`);
    const groups = list(params.groups);
    for (const g of groups) if (!inst.groups.has(g)) fail(`create user failed: no such group '${g}'`);
    inst.users.set(userid, {
      userid,
      comment: params.comment,
      email: params.email,
      firstname: params.firstname,
      lastname: params.lastname,
      keys: params.keys,
      enable: flag(params.enable, true),
      expire: int(params, 'expire', { min: 0 }) ?? 0,
      groups,
      // Only the pve realm keeps passwords (pam users log in with their system password).
      ...(params.password !== undefined && m[2] === 'pve' ? { passwordHash: checkedPassword(params.password) } : {}),
    });
    return null;
  });

  // PVE::API2::AccessControl change_password: your own, or anyone's with User.Modify.
  route('PUT', '/access/password', ({ inst, authid, params }) => {
    const userid = required(params, 'userid');
    const password = required(params, 'password');
    const u = user(inst, userid);
    if (authid.includes('!')) throw new PveError(403, 'Permission check failed - API tokens cannot change passwords');
    if (authid !== userid) inst.require(authid, '/access/groups', ['User.Modify']);
    if (!userid.endsWith('@pve') && userid !== 'root@pam') fail(`change password failed: the realm of '${userid}' does not store passwords`);
    u.passwordHash = checkedPassword(password);
    return null;
  });

  // Groups (PVE::API2::Group).
  route('GET', '/access/groups', ({ inst, authid }) =>
    [...inst.groups.entries()]
      .filter(([g]) => inst.can(authid, `/access/groups/${g}`, ['Sys.Audit']) || inst.can(authid, `/access/groups/${g}`, ['Group.Allocate']))
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([groupid, g]) => ({ groupid, ...nonEmpty({ comment: g.comment }), users: membersOf(inst, groupid).join(',') })),
  );

  route('POST', '/access/groups', ({ inst, authid, params }) => {
    const groupid = required(params, 'groupid');
    if (!/^[A-Za-z0-9.\-_]+$/.test(groupid)) badParams({ groupid: `value '${groupid}' does not look like a valid group name` });
    inst.require(authid, '/access/groups', ['Group.Allocate']);
    if (inst.groups.has(groupid)) fail(`create group failed: group '${groupid}' already exists`);
    inst.groups.set(groupid, { comment: params.comment });
    return null;
  });

  route('GET', '/access/groups/{groupid}', ({ inst, authid, at }) => {
    const g = inst.groups.get(at.groupid);
    if (!g) fail(`group '${at.groupid}' does not exist`);
    inst.requireAny(authid, `/access/groups/${at.groupid}`, ['Sys.Audit', 'Group.Allocate']);
    return { ...nonEmpty({ comment: g.comment }), members: membersOf(inst, at.groupid) };
  });

  route('PUT', '/access/groups/{groupid}', ({ inst, authid, at, params }) => {
    const g = inst.groups.get(at.groupid);
    if (!g) fail(`update group failed: group '${at.groupid}' does not exist`);
    inst.require(authid, `/access/groups/${at.groupid}`, ['Group.Allocate']);
    if (params.comment !== undefined) g.comment = params.comment;
    return null;
  });

  route('DELETE', '/access/groups/{groupid}', ({ inst, authid, at }) => {
    if (!inst.groups.has(at.groupid)) fail(`delete group failed: group '${at.groupid}' does not exist`);
    inst.require(authid, `/access/groups/${at.groupid}`, ['Group.Allocate']);
    inst.groups.delete(at.groupid);
    for (const u of inst.users.values()) u.groups = u.groups.filter((g) => g !== at.groupid);
    removeAclEntries(inst, (e) => e.type === 'group' && e.ugid === at.groupid);
    return null;
  });

  route('GET', '/access/users/{userid}', ({ inst, authid, at }) => {
    const u = user(inst, at.userid);
    requireSelfOrUserAdmin(inst, authid, at.userid, true);
    return userJson(inst, u, true);
  });

  route('PUT', '/access/users/{userid}', ({ inst, authid, at, params }) => {
    const u = user(inst, at.userid);
    inst.require(authid, '/access/groups', ['User.Modify']);
    for (const key of ['comment', 'email', 'firstname', 'lastname', 'keys'] as const) if (params[key] !== undefined) u[key] = params[key];
    if (params.enable !== undefined) u.enable = flag(params.enable);
    if (params.expire !== undefined) u.expire = int(params, 'expire', { min: 0 }) ?? 0;
    if (params.groups !== undefined) {
      const groups = list(params.groups);
      for (const g of groups) if (!inst.groups.has(g)) fail(`update user failed: no such group '${g}'`);
      u.groups = flag(params.append) ? [...new Set([...u.groups, ...groups])] : groups;
    }
    return null;
  });

  route('DELETE', '/access/users/{userid}', ({ inst, authid, at }) => {
    user(inst, at.userid);
    inst.require(authid, '/access/groups', ['User.Modify']);
    if (at.userid === 'root@pam') fail("delete user failed: can't delete the root user");
    inst.users.delete(at.userid);
    for (const t of tokensOf(inst, at.userid)) inst.tokens.delete(t.fullid);
    removeAclEntries(inst, (e) => (e.type === 'user' && e.ugid === at.userid) || (e.type === 'token' && e.ugid.startsWith(`${at.userid}!`)));
    return null;
  });

  route('GET', '/access/users/{userid}/token', ({ inst, authid, at }) => {
    user(inst, at.userid);
    requireSelfOrUserAdmin(inst, authid, at.userid, true);
    return tokensOf(inst, at.userid).map((t) => ({ tokenid: t.name, ...tokenInfo(t) }));
  });

  route('GET', '/access/users/{userid}/token/{tokenid}', ({ inst, authid, at }) => {
    requireSelfOrUserAdmin(inst, authid, at.userid, true);
    return tokenInfo(token(inst, at.userid, at.tokenid));
  });

  route('POST', '/access/users/{userid}/token/{tokenid}', ({ inst, authid, at, params }) => {
    user(inst, at.userid);
    requireSelfOrUserAdmin(inst, authid, at.userid);
    if (!/^[A-Za-z][A-Za-z0-9.\-_]+$/.test(at.tokenid)) badParams({ tokenid: `invalid format - value '${at.tokenid}' does not look like a valid token ID` });
    const fullid = `${at.userid}!${at.tokenid}`;
    if (inst.tokens.has(fullid)) fail('Token already exists.');
    const t = {
      fullid,
      userid: at.userid,
      name: at.tokenid,
      secret: randomUUID(),
      privsep: flag(params.privsep, true),
      comment: params.comment,
      expire: int(params, 'expire', { min: 0 }) ?? 0,
    };
    inst.tokens.set(fullid, t);
    return { 'full-tokenid': fullid, info: tokenInfo(t), value: t.secret };
  });

  route('PUT', '/access/users/{userid}/token/{tokenid}', ({ inst, authid, at, params }) => {
    requireSelfOrUserAdmin(inst, authid, at.userid);
    const t = token(inst, at.userid, at.tokenid);
    if (params.comment !== undefined) t.comment = params.comment;
    if (params.privsep !== undefined) t.privsep = flag(params.privsep);
    if (params.expire !== undefined) t.expire = int(params, 'expire', { min: 0 }) ?? 0;
    return tokenInfo(t);
  });

  route('DELETE', '/access/users/{userid}/token/{tokenid}', ({ inst, authid, at }) => {
    requireSelfOrUserAdmin(inst, authid, at.userid);
    const t = token(inst, at.userid, at.tokenid);
    inst.tokens.delete(t.fullid);
    removeAclEntries(inst, (e) => e.type === 'token' && e.ugid === t.fullid);
    return null;
  });

  route('GET', '/access/roles', ({ inst }) => {
    const all = [
      ...Object.entries(BUILTIN_ROLES).map(([id, p]) => [id, [...p], 1] as const),
      ...[...inst.customRoles].map(([id, p]) => [id, [...p], 0] as const),
    ];
    return all.sort((a, b) => a[0].localeCompare(b[0])).map(([roleid, privs, special]) => ({ roleid, privs: [...privs].sort().join(','), special }));
  });

  route('GET', '/access/roles/{roleid}', ({ inst, at }) => {
    const privs = builtinRole(at.roleid) ?? inst.customRoles.get(at.roleid);
    if (!privs) fail(`role '${at.roleid}' does not exist`);
    return Object.fromEntries([...privs].sort().map((p) => [p, 1]));
  });

  route('POST', '/access/roles', ({ inst, authid, params }) => {
    const roleid = required(params, 'roleid');
    if (!ID.test(roleid)) badParams({ roleid: `invalid format - value does not look like a valid role ID` });
    inst.require(authid, '/access', ['Sys.Modify']);
    if (inst.roleExists(roleid)) fail(`role '${roleid}' already exists`);
    inst.customRoles.set(roleid, new Set(privilegeList(params.privs)));
    return null;
  });

  route('PUT', '/access/roles/{roleid}', ({ inst, authid, at, params }) => {
    inst.require(authid, '/access', ['Sys.Modify']);
    if (builtinRole(at.roleid)) fail(`cannot modify predefined role '${at.roleid}'`);
    const role = inst.customRoles.get(at.roleid);
    if (!role) fail(`role '${at.roleid}' does not exist`);
    const privs = privilegeList(params.privs);
    inst.customRoles.set(at.roleid, new Set(flag(params.append) ? [...role, ...privs] : privs));
    return null;
  });

  route('DELETE', '/access/roles/{roleid}', ({ inst, authid, at }) => {
    inst.require(authid, '/access', ['Sys.Modify']);
    if (builtinRole(at.roleid)) fail(`cannot delete predefined role '${at.roleid}'`);
    if (!inst.customRoles.delete(at.roleid)) fail(`role '${at.roleid}' does not exist`);
    removeAclEntries(inst, (e) => e.roleid === at.roleid);
    return null;
  });

  route('GET', '/access/acl', ({ inst, authid }) =>
    inst.acl
      .filter((e) => inst.can(authid, e.path, ['Sys.Audit']) || inst.can(authid, e.path, ['Permissions.Modify']))
      .slice()
      .sort((a, b) => a.path.localeCompare(b.path) || a.ugid.localeCompare(b.ugid) || a.roleid.localeCompare(b.roleid))
      .map((e) => ({ path: e.path, type: e.type, ugid: e.ugid, roleid: e.roleid, propagate: bit(e.propagate) })),
  );

  route('PUT', '/access/acl', ({ inst, authid, params }) => {
    const path = required(params, 'path');
    if (!ACL_PATH.test(path)) badParams({ path: `invalid ACL path '${path}'` });
    const roles = list(required(params, 'roles'));
    inst.require(authid, path, ['Permissions.Modify']);
    for (const r of roles) if (!inst.roleExists(r)) fail(`role '${r}' does not exist`);
    const subjects: { type: 'user' | 'group' | 'token'; ugid: string }[] = [];
    for (const u of list(params.users)) {
      if (!inst.users.has(u)) fail(`user '${u}' does not exist`);
      subjects.push({ type: 'user', ugid: u });
    }
    for (const g of list(params.groups)) {
      if (!inst.groups.has(g)) fail(`group '${g}' does not exist`);
      subjects.push({ type: 'group', ugid: g });
    }
    for (const t of list(params.tokens)) {
      const [u, name] = t.split('!');
      if (!inst.tokens.has(t)) fail(`no such token '${name}' for user '${u}'`);
      subjects.push({ type: 'token', ugid: t });
    }
    if (subjects.length === 0) badParams({ users: 'at least one of users, groups or tokens is required' });
    const remove = flag(params.delete);
    const propagate = flag(params.propagate, true);
    for (const s of subjects) {
      for (const roleid of roles) {
        removeAclEntries(inst, (e) => e.path === path && e.type === s.type && e.ugid === s.ugid && e.roleid === roleid);
        if (!remove) inst.acl.push({ path, type: s.type, ugid: s.ugid, roleid, propagate });
      }
    }
    return null;
  });

  route('GET', '/access/permissions', ({ inst, authid, params }) => {
    let who = authid;
    if (params.userid && params.userid !== authid) {
      inst.require(authid, '/access', ['Sys.Audit']);
      who = params.userid;
    }
    const paths = params.path ? [params.path] : [...new Set(['/', ...inst.acl.map((e) => e.path)])].sort();
    return Object.fromEntries(paths.map((p) => [p, Object.fromEntries(inst.privileges(who, p).map((priv) => [priv, 1]))]));
  });
}
