/**
 * The part of the Proxmox VE API (`/api2/json/...`) that bpg/proxmox uses for the instance stack,
 * and that CAPMOX uses for its machines: one table of routes, each with the permission PVE checks
 * and PVE's response shape and errors. See docs/proxmox.md for the list.
 */
import { createHash, randomUUID } from 'node:crypto';
import { PveError, badParams, fail } from './errors';
import { formatSize, macFor, parseSize, type SimulatedInstance, type Vm, type Volume } from './instance';
import { BUILTIN_ROLES, isPrivilege } from './permissions';
import { DRIVE_KEY, NET_KEY, configDigest, configJson, get, normalizeNic, normalizeTags, parseProperties, printProperties, privilegeForKey, without } from './qemu';

export type Params = Record<string, string>;

export interface Call {
  inst: SimulatedInstance;
  authid: string;
  params: Params;
  /** Values of the `{placeholders}` of the route. */
  at: Record<string, string>;
}

interface Route {
  method: string;
  template: string;
  re: RegExp;
  keys: string[];
  handler: (call: Call) => unknown;
}

const routes: Route[] = [];

function route(method: string, template: string, handler: (call: Call) => unknown): void {
  const keys: string[] = [];
  const re = new RegExp(
    `^${template.replace(/\{(\w+)\}/g, (_, k: string) => {
      keys.push(k);
      return '([^/]+)';
    })}/?$`,
  );
  routes.push({ method, template, re, keys, handler });
}

/** The route for a request, or undefined (PVE answers 501 "Method ... not implemented"). */
export function findRoute(method: string, path: string): { route: Route; at: Record<string, string> } | undefined {
  for (const r of routes) {
    if (r.method !== method) continue;
    const m = r.re.exec(path);
    if (m) return { route: r, at: Object.fromEntries(r.keys.map((k, i) => [k, decodeURIComponent(m[i + 1])])) };
  }
  return undefined;
}

export function routeTemplates(): string[] {
  return routes.map((r) => `${r.method} ${r.template}`);
}

// ---- parameter helpers --------------------------------------------------------------------------

const flag = (v: string | undefined, dflt = false) => (v === undefined || v === '' ? dflt : v === '1' || v === 'true');
const list = (v: string | undefined) => (v ? v.split(/[,;\s]+/).filter(Boolean) : []);
const bit = (b: boolean) => (b ? 1 : 0);

function int(params: Params, key: string, opts: { min?: number; max?: number; required?: boolean } = {}): number | undefined {
  const raw = params[key];
  if (raw === undefined || raw === '') {
    if (opts.required) badParams({ [key]: 'property is missing and it is not optional' });
    return undefined;
  }
  if (!/^-?\d+$/.test(raw)) badParams({ [key]: `type check ('integer') failed - got '${raw}'` });
  const n = Number(raw);
  if (opts.min !== undefined && n < opts.min) badParams({ [key]: `value must have a minimum value of ${opts.min}` });
  if (opts.max !== undefined && n > opts.max) badParams({ [key]: `value may have a maximum value of ${opts.max}` });
  return n;
}

function required(params: Params, key: string): string {
  const v = params[key];
  if (v === undefined || v === '') badParams({ [key]: 'property is missing and it is not optional' });
  return v;
}

const ID = /^[A-Za-z0-9][A-Za-z0-9.\-_]*$/;

function nonEmpty<T extends Record<string, unknown>>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== '')) as Partial<T>;
}

// ---- root, version, nodes, cluster -------------------------------------------------------------

route('GET', '/', () => ['access', 'cluster', 'nodes', 'pools', 'storage', 'version'].map((subdir) => ({ subdir })));

route('GET', '/version', ({ inst }) => ({ version: inst.version, release: inst.version.split('.').slice(0, 2).join('.'), repoid: 'c2d3e1d6', console: 'html5' }));

function nodeEntry(inst: SimulatedInstance, name: string, fingerprint: string) {
  const node = inst.node(name);
  const running = [...inst.vms.values()].filter((v) => v.node === name && v.status === 'running');
  const mem = running.reduce((s, v) => s + Number(v.config.get('memory') ?? 512) * 1024 ** 2, 0);
  return {
    id: `node/${name}`,
    type: 'node',
    node: name,
    status: 'online',
    cpu: 0.02,
    maxcpu: node.cpu,
    mem,
    maxmem: node.memoryMiB * 1024 ** 2,
    disk: 0,
    maxdisk: 100 * 1024 ** 3,
    uptime: Math.floor(Date.now() / 1000) - inst.startedAt + 86400,
    level: '',
    ssl_fingerprint: fingerprint,
  };
}

let certificateFingerprint = '';
/** The fingerprint the nodes report (the simulator's TLS certificate). */
export function setFingerprint(fp: string): void {
  certificateFingerprint = fp;
}

route('GET', '/nodes', ({ inst }) => [...inst.nodes.keys()].sort().map((n) => nodeEntry(inst, n, certificateFingerprint)));

route('GET', '/nodes/{node}', ({ inst, at }) => {
  inst.node(at.node);
  return ['qemu', 'storage', 'tasks', 'status', 'query-url-metadata'].map((subdir) => ({ subdir }));
});

route('GET', '/nodes/{node}/status', ({ inst, authid, at }) => {
  inst.require(authid, `/nodes/${at.node}`, ['Sys.Audit']);
  const n = nodeEntry(inst, at.node, certificateFingerprint);
  return { cpu: n.cpu, cpuinfo: { cpus: n.maxcpu }, memory: { total: n.maxmem, used: n.mem, free: n.maxmem - n.mem }, uptime: n.uptime, pveversion: `pve-manager/${inst.version}` };
});

function vmResource(inst: SimulatedInstance, vm: Vm) {
  const disks = inst.volumes.filter((v) => v.vmid === vm.vmid).reduce((s, v) => s + v.size, 0);
  return nonEmpty({
    id: `qemu/${vm.vmid}`,
    type: 'qemu',
    vmid: vm.vmid,
    node: vm.node,
    name: vm.config.get('name'),
    status: vm.status,
    template: bit(inst.isTemplate(vm)),
    tags: vm.config.get('tags'),
    pool: inst.poolOf(vm.vmid),
    lock: vm.lock,
    maxcpu: Number(vm.config.get('cores') ?? 1) * Number(vm.config.get('sockets') ?? 1),
    maxmem: Number(vm.config.get('memory') ?? 512) * 1024 ** 2,
    maxdisk: disks,
    cpu: 0,
    mem: 0,
    disk: 0,
    uptime: vm.status === 'running' && vm.startedAt ? Math.floor((Date.now() - vm.startedAt) / 1000) : 0,
  });
}

route('GET', '/cluster/resources', ({ inst, authid, params }) => {
  const type = params.type;
  const out: unknown[] = [];
  if (!type || type === 'vm') {
    for (const vm of [...inst.vms.values()].sort((a, b) => a.vmid - b.vmid)) if (inst.can(authid, `/vms/${vm.vmid}`, ['VM.Audit'])) out.push(vmResource(inst, vm));
  }
  if (!type || type === 'node') {
    for (const n of [...inst.nodes.keys()].sort()) {
      if (inst.can(authid, `/nodes/${n}`, ['Sys.Audit'])) {
        const { ssl_fingerprint: _fp, ...entry } = nodeEntry(inst, n, certificateFingerprint);
        out.push(entry);
      }
    }
  }
  if (!type || type === 'storage') {
    for (const n of [...inst.nodes.keys()].sort()) {
      for (const s of [...inst.storages.values()]) {
        if (!inst.can(authid, `/storage/${s.id}`, ['Datastore.Audit']) && !inst.can(authid, `/storage/${s.id}`, ['Datastore.AllocateSpace'])) continue;
        out.push({ id: `storage/${n}/${s.id}`, type: 'storage', storage: s.id, node: n, plugintype: s.type, content: s.content.join(','), shared: bit(!!s.shared), status: 'available', maxdisk: inst.capacity(s.id), disk: inst.used(n, s.id) });
      }
    }
  }
  if (!type || type === 'pool') {
    for (const p of [...inst.pools.keys()].sort()) if (inst.can(authid, `/pool/${p}`, ['Pool.Audit'])) out.push({ id: `/pool/${p}`, type: 'pool', pool: p });
  }
  return out;
});

route('GET', '/cluster/nextid', ({ inst, params }) => {
  const wanted = int(params, 'vmid', { min: 100, max: 999999999 });
  if (wanted !== undefined) {
    if (inst.vms.has(wanted)) badParams({ vmid: `VM ${wanted} already exists` });
    return String(wanted);
  }
  let id = 100;
  while (inst.vms.has(id)) id++;
  return String(id);
});

// ---- access: users, tokens, roles, ACLs -------------------------------------------------------

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

route('GET', '/access/users', ({ inst, authid, params }) => {
  const visible = [...inst.users.values()].filter((u) => canManageUsers(inst, authid) || inst.can(authid, '/access/groups', ['Sys.Audit']) || u.userid === authid.split('!')[0]);
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
  });
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

function removeAclEntries(inst: SimulatedInstance, match: (e: SimulatedInstance['acl'][number]) => boolean): void {
  for (let i = inst.acl.length - 1; i >= 0; i--) if (match(inst.acl[i])) inst.acl.splice(i, 1);
}

function token(inst: SimulatedInstance, userid: string, name: string) {
  user(inst, userid);
  const t = inst.tokens.get(`${userid}!${name}`);
  if (!t) fail(`no such token '${name}' for user '${userid}'`);
  return t;
}

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
  const t = { fullid, userid: at.userid, name: at.tokenid, secret: randomUUID(), privsep: flag(params.privsep, true), comment: params.comment, expire: int(params, 'expire', { min: 0 }) ?? 0 };
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

function privilegeList(text: string | undefined): string[] {
  const privs = list(text);
  for (const p of privs) if (!isPrivilege(p)) fail(`invalid privilege '${p}'`);
  return privs;
}

route('GET', '/access/roles', ({ inst }) => {
  const all = [...Object.entries(BUILTIN_ROLES).map(([id, p]) => [id, [...p], 1] as const), ...[...inst.customRoles].map(([id, p]) => [id, [...p], 0] as const)];
  return all.sort((a, b) => a[0].localeCompare(b[0])).map(([roleid, privs, special]) => ({ roleid, privs: [...privs].sort().join(','), special }));
});

route('GET', '/access/roles/{roleid}', ({ inst, at }) => {
  const privs = BUILTIN_ROLES[at.roleid] ?? inst.customRoles.get(at.roleid);
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
  if (at.roleid in BUILTIN_ROLES) fail(`cannot modify predefined role '${at.roleid}'`);
  const role = inst.customRoles.get(at.roleid);
  if (!role) fail(`role '${at.roleid}' does not exist`);
  const privs = privilegeList(params.privs);
  inst.customRoles.set(at.roleid, new Set(flag(params.append) ? [...role, ...privs] : privs));
  return null;
});

route('DELETE', '/access/roles/{roleid}', ({ inst, authid, at }) => {
  inst.require(authid, '/access', ['Sys.Modify']);
  if (at.roleid in BUILTIN_ROLES) fail(`cannot delete predefined role '${at.roleid}'`);
  if (!inst.customRoles.delete(at.roleid)) fail(`role '${at.roleid}' does not exist`);
  removeAclEntries(inst, (e) => e.roleid === at.roleid);
  return null;
});

/** The ACL paths PVE accepts (PVE::AccessControl::check_path). */
const ACL_PATH =
  /^\/$|^\/(access(\/(groups|realm)(\/[^/]+)?)?|nodes(\/[^/]+)?|pool(\/[^/]+){0,2}|sdn(\/(zones|vnets)(\/[^/]+){0,3})?|storage(\/[^/]+)?|vms(\/\d+)?|mapping(\/[^/]+){0,2})$/;

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

// ---- pools --------------------------------------------------------------------------------------

function pool(inst: SimulatedInstance, poolid: string) {
  const p = inst.pools.get(poolid);
  if (!p) fail(`pool '${poolid}' does not exist`);
  return p;
}

function poolMembers(inst: SimulatedInstance, p: ReturnType<typeof pool>) {
  const vms = [...p.vms]
    .sort((a, b) => a - b)
    .map((vmid) => inst.vms.get(vmid))
    .filter((vm): vm is Vm => !!vm)
    .map((vm) => vmResource(inst, vm));
  const storage = [...p.storage].sort().flatMap((s) => [...inst.nodes.keys()].sort().map((node) => ({ id: `storage/${node}/${s}`, type: 'storage', storage: s, node })));
  return [...vms, ...storage];
}

function poolDetail(inst: SimulatedInstance, authid: string, poolid: string) {
  const p = pool(inst, poolid);
  inst.require(authid, `/pool/${poolid}`, ['Pool.Audit']);
  return { poolid, ...nonEmpty({ comment: p.comment }), members: poolMembers(inst, p) };
}

route('GET', '/pools', ({ inst, authid, params }) => {
  if (params.poolid) return [poolDetail(inst, authid, params.poolid)];
  return [...inst.pools.values()]
    .filter((p) => inst.can(authid, `/pool/${p.poolid}`, ['Pool.Audit']))
    .sort((a, b) => a.poolid.localeCompare(b.poolid))
    .map((p) => ({ poolid: p.poolid, ...nonEmpty({ comment: p.comment }) }));
});

route('GET', '/pools/{poolid}', ({ inst, authid, at }) => {
  const { poolid: _id, ...rest } = poolDetail(inst, authid, at.poolid);
  return rest;
});

route('POST', '/pools', ({ inst, authid, params }) => {
  const poolid = required(params, 'poolid');
  if (!ID.test(poolid)) badParams({ poolid: `invalid format - value does not look like a valid pool ID` });
  inst.require(authid, `/pool/${poolid}`, ['Pool.Allocate']);
  if (inst.pools.has(poolid)) fail(`pool '${poolid}' already exists`);
  inst.pools.set(poolid, { poolid, comment: params.comment, vms: new Set(), storage: new Set() });
  return null;
});

function updatePool(call: Call, poolid: string): null {
  const { inst, authid, params } = call;
  const p = pool(inst, poolid);
  inst.require(authid, `/pool/${poolid}`, ['Pool.Allocate']);
  if (params.comment !== undefined) p.comment = params.comment;
  const remove = flag(params.delete);
  for (const raw of list(params.vms)) {
    const vmid = Number(raw);
    if (!inst.vms.has(vmid)) fail(`VM ${vmid} does not exist`);
    inst.require(authid, `/vms/${vmid}`, ['VM.Allocate']);
    if (remove) {
      p.vms.delete(vmid);
      continue;
    }
    const current = inst.poolOf(vmid);
    if (current && current !== poolid) {
      if (!flag(params['allow-move'])) fail(`VM ${vmid} belongs already to pool '${current}' and allow-move is not set`);
      inst.pools.get(current)!.vms.delete(vmid);
    }
    p.vms.add(vmid);
  }
  for (const s of list(params.storage)) {
    if (!inst.storages.has(s)) fail(`storage '${s}' does not exist`);
    if (remove) p.storage.delete(s);
    else p.storage.add(s);
  }
  return null;
}

route('PUT', '/pools', (call) => updatePool(call, required(call.params, 'poolid')));
route('PUT', '/pools/{poolid}', (call) => updatePool(call, call.at.poolid));

function deletePool({ inst, authid }: Call, poolid: string): null {
  const p = pool(inst, poolid);
  inst.require(authid, `/pool/${poolid}`, ['Pool.Allocate']);
  if (p.vms.size > 0 || p.storage.size > 0) fail(`delete pool failed: pool '${poolid}' is not empty`);
  inst.pools.delete(poolid);
  removeAclEntries(inst, (e) => e.path === `/pool/${poolid}` || e.path.startsWith(`/pool/${poolid}/`));
  return null;
}

route('DELETE', '/pools', (call) => deletePool(call, required(call.params, 'poolid')));
route('DELETE', '/pools/{poolid}', (call) => deletePool(call, call.at.poolid));

// ---- storage ------------------------------------------------------------------------------------

function canSeeStorage(inst: SimulatedInstance, authid: string, id: string): boolean {
  return inst.can(authid, `/storage/${id}`, ['Datastore.Audit']) || inst.can(authid, `/storage/${id}`, ['Datastore.AllocateSpace']);
}

route('GET', '/storage', ({ inst, authid }) =>
  [...inst.storages.values()]
    .filter((s) => canSeeStorage(inst, authid, s.id))
    .sort((a, b) => a.id.localeCompare(b.id))
    .map((s) => ({ storage: s.id, type: s.type, content: s.content.join(','), shared: bit(!!s.shared) })),
);

route('GET', '/storage/{storage}', ({ inst, authid, at }) => {
  const s = inst.storages.get(at.storage);
  if (!s) fail(`storage '${at.storage}' does not exist`);
  inst.require(authid, `/storage/${at.storage}`, ['Datastore.Allocate']);
  return { storage: s.id, type: s.type, content: s.content.join(','), shared: bit(!!s.shared), ...(s.type === 'dir' ? { path: '/var/lib/vz' } : { vgname: 'pve', thinpool: 'data' }) };
});

function storageStatus(inst: SimulatedInstance, node: string, id: string) {
  const s = inst.storages.get(id)!;
  const total = inst.capacity(id);
  const used = inst.used(node, id);
  return { storage: id, type: s.type, content: s.content.join(','), shared: bit(!!s.shared), active: 1, enabled: 1, total, used, avail: total - used, used_fraction: total ? used / total : 0 };
}

route('GET', '/nodes/{node}/storage', ({ inst, authid, at, params }) => {
  inst.node(at.node);
  return [...inst.storages.values()]
    .filter((s) => canSeeStorage(inst, authid, s.id) && (!params.content || list(params.content).every((c) => s.content.includes(c))))
    .sort((a, b) => a.id.localeCompare(b.id))
    .map((s) => storageStatus(inst, at.node, s.id));
});

route('GET', '/nodes/{node}/storage/{storage}/status', ({ inst, authid, at }) => {
  inst.storage(at.node, at.storage);
  inst.requireAny(authid, `/storage/${at.storage}`, ['Datastore.Audit', 'Datastore.AllocateSpace']);
  return storageStatus(inst, at.node, at.storage);
});

function volumeJson(v: Volume) {
  return nonEmpty({ volid: v.volid, content: v.content, format: v.format, size: v.size, used: v.size, ctime: v.ctime, vmid: v.vmid });
}

route('GET', '/nodes/{node}/storage/{storage}/content', ({ inst, authid, at, params }) => {
  inst.storage(at.node, at.storage);
  inst.requireAny(authid, `/storage/${at.storage}`, ['Datastore.Audit', 'Datastore.AllocateSpace']);
  const vmid = int(params, 'vmid');
  return inst
    .volumesOn(at.node, at.storage)
    .filter((v) => (!params.content || v.content === params.content) && (vmid === undefined || v.vmid === vmid))
    .sort((a, b) => a.volid.localeCompare(b.volid))
    .map(volumeJson);
});

function volidOf(storage: string, volume: string): string {
  return volume.includes(':') ? volume : `${storage}:${volume}`;
}

route('GET', '/nodes/{node}/storage/{storage}/content/{volume}', ({ inst, authid, at }) => {
  const s = inst.storage(at.node, at.storage);
  inst.requireAny(authid, `/storage/${at.storage}`, ['Datastore.Audit', 'Datastore.AllocateSpace']);
  const volid = volidOf(at.storage, at.volume);
  const v = inst.findVolume(at.node, volid);
  if (!v) fail(`volume '${volid}' does not exist`);
  const path = s.type === 'dir' ? `/var/lib/vz/${volid.split(':')[1].replace(/^(\d+)\//, 'images/$1/')}` : `/dev/pve/${volid.split(':')[1]}`;
  return { path, format: v.format, size: v.size, used: v.size };
});

route('DELETE', '/nodes/{node}/storage/{storage}/content/{volume}', ({ inst, authid, at }) => {
  inst.storage(at.node, at.storage);
  const volid = volidOf(at.storage, at.volume);
  const v = inst.findVolume(at.node, volid);
  if (!v) fail(`volume '${volid}' does not exist`);
  if (v.vmid !== undefined && inst.vms.has(v.vmid)) {
    inst.require(authid, `/vms/${v.vmid}`, ['VM.Config.Disk']);
    const owner = inst.vms.get(v.vmid)!;
    if ([...owner.config.values()].some((value) => value.split(',')[0] === volid)) fail(`unable to delete '${volid}' - volume is still in use (referenced by VM ${v.vmid})`);
  } else {
    inst.require(authid, `/storage/${at.storage}`, ['Datastore.Allocate']);
  }
  inst.removeVolume(v);
  return inst.startTask(at.node, 'imgdel', volid, authid, () => [`removed volume '${volid}'`]);
});

// ---- downloads ----------------------------------------------------------------------------------

/** What the simulated internet serves at a URL: the catalog entry, or a stable made-up image. */
function remoteImage(inst: SimulatedInstance, url: string) {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    badParams({ url: `invalid URL '${url}'` });
  }
  if (!['http:', 'https:', 'ftp:'].includes(parsed.protocol)) badParams({ url: `unsupported URL scheme in '${url}'` });
  const known = inst.options.remoteImages[url];
  if (known) return { ...known, filename: parsed.pathname.split('/').pop() || 'index.html', known: true };
  const h = createHash('sha256').update(url).digest();
  const size = (600 + (h.readUInt16BE(0) % 300)) * 1024 ** 2;
  return { size, virtualSize: 3584 * 1024 ** 2, checksums: {}, filename: parsed.pathname.split('/').pop() || 'index.html', known: false };
}

route('GET', '/nodes/{node}/query-url-metadata', ({ inst, authid, at, params }) => {
  inst.node(at.node);
  inst.require(authid, `/nodes/${at.node}`, ['Sys.Audit', 'Sys.Modify']);
  const image = remoteImage(inst, required(params, 'url'));
  return { filename: image.filename, size: image.size, mimetype: 'application/octet-stream' };
});

const CONTENT_FILE: Record<string, RegExp> = {
  iso: /\.(iso|img)$/i,
  vztmpl: /\.tar\.(gz|xz|zst)$/i,
  import: /\.(ova|qcow2|raw|vmdk)$/i,
};

route('POST', '/nodes/{node}/storage/{storage}/download-url', ({ inst, authid, at, params }) => {
  const storage = inst.storage(at.node, at.storage);
  const content = required(params, 'content');
  const filename = required(params, 'filename');
  const url = required(params, 'url');
  const allowed = inst.version.localeCompare('8.4', undefined, { numeric: true }) >= 0 ? ['iso', 'vztmpl', 'import'] : ['iso', 'vztmpl'];
  if (!allowed.includes(content)) badParams({ content: `value '${content}' does not have a value in the enumeration '${allowed.join(', ')}'` });
  if (!/^[-\w.]+$/.test(filename) || !CONTENT_FILE[content].test(filename)) badParams({ filename: `invalid filename or wrong extension for content type '${content}'` });
  inst.require(authid, `/storage/${at.storage}`, ['Datastore.AllocateTemplate']);
  inst.require(authid, `/nodes/${at.node}`, ['Sys.Audit', 'Sys.Modify']);
  if (!storage.content.includes(content)) fail(`storage '${at.storage}' does not support content type '${content}'`);
  const volid = `${at.storage}:${content}/${filename}`;
  if (inst.findVolume(at.node, volid)) fail(`refusing to override existing file '${filename}'`);
  const image = remoteImage(inst, url);
  const algorithm = params['checksum-algorithm'];
  const checksum = params.checksum?.toLowerCase();
  if (checksum && !algorithm) badParams({ 'checksum-algorithm': "'checksum-algorithm' is required when 'checksum' is set" });
  const path = `/var/lib/vz/${content === 'import' ? 'import' : content === 'iso' ? 'template/iso' : 'template/cache'}/${filename}`;
  return inst.startTask(at.node, 'download', filename, authid, () => {
    if (inst.findVolume(at.node, volid)) throw new Error(`refusing to override existing file '${filename}'`);
    const expected = algorithm ? image.checksums?.[algorithm]?.toLowerCase() : undefined;
    if (checksum && expected && checksum !== expected) throw new Error(`checksum mismatch: got '${expected}' != expect '${checksum}'`);
    const free = inst.capacity(at.storage) - inst.used(at.node, at.storage);
    if (image.size > free) throw new Error(`write error: No space left on device (downloading ${formatSize(image.size)} to '${at.storage}', ${formatSize(Math.max(0, free))} free)`);
    inst.volumes.push({
      volid,
      storage: at.storage,
      node: storage.shared ? undefined : at.node,
      content,
      format: filename.split('.').pop()!.toLowerCase(),
      size: image.size,
      virtualSize: image.virtualSize,
      ctime: Math.floor(Date.now() / 1000),
    });
    return [
      `downloading ${url} to ${path}`,
      `${formatSize(image.size)} downloaded${image.known ? '' : ' (simulated content: the URL is not in the simulator catalog)'}`,
      ...(checksum ? [expected ? `calculating checksum...OK, checksum verified` : 'checksum not verified (simulated content)'] : []),
      `download of '${url}' to '${path}' finished`,
    ];
  });
});

// ---- QEMU ---------------------------------------------------------------------------------------

function vmListEntry(inst: SimulatedInstance, vm: Vm) {
  return nonEmpty({
    vmid: vm.vmid,
    name: vm.config.get('name'),
    status: vm.status,
    template: inst.isTemplate(vm) ? 1 : undefined,
    tags: vm.config.get('tags'),
    lock: vm.lock,
    cpus: Number(vm.config.get('cores') ?? 1) * Number(vm.config.get('sockets') ?? 1),
    maxmem: Number(vm.config.get('memory') ?? 512) * 1024 ** 2,
    maxdisk: inst.volumes.filter((v) => v.vmid === vm.vmid).reduce((s, v) => s + v.size, 0),
    uptime: vm.status === 'running' && vm.startedAt ? Math.floor((Date.now() - vm.startedAt) / 1000) : 0,
  });
}

route('GET', '/nodes/{node}/qemu', ({ inst, authid, at }) => {
  inst.node(at.node);
  return [...inst.vms.values()]
    .filter((vm) => vm.node === at.node && inst.can(authid, `/vms/${vm.vmid}`, ['VM.Audit']))
    .sort((a, b) => a.vmid - b.vmid)
    .map((vm) => vmListEntry(inst, vm));
});

function vmid(at: Record<string, string>): number {
  if (!/^\d+$/.test(at.vmid)) badParams({ vmid: `type check ('integer') failed - got '${at.vmid}'` });
  return Number(at.vmid);
}

/** Checks what a new or changed drive needs and returns the work that allocates it. */
function planDrive(inst: SimulatedInstance, authid: string, node: string, id: number, key: string, value: string): (allocated: Volume[]) => string {
  const props = parseProperties(value, 'file');
  const file = props.head ?? '';
  const media = get(props, 'media');
  if (file === 'none' || file === 'cdrom' || (media === 'cdrom' && !/:cloudinit$/.test(file))) {
    return () => printProperties(file, without(props, 'size'));
  }
  const [storage, rest] = file.split(':');
  if (rest === undefined) badParams({ [key]: `invalid volume '${file}'` });
  inst.storage(node, storage);
  inst.require(authid, `/storage/${storage}`, ['Datastore.AllocateSpace']);
  const options = without(props, 'import-from', 'size', 'format', 'file');
  if (rest === 'cloudinit') {
    return (allocated) => {
      const v = inst.allocateDisk(node, storage, id, 4 * 1024 ** 2);
      v.volid = `${storage}:vm-${id}-cloudinit`;
      allocated.push(v);
      return printProperties(v.volid, [...without(props, 'media', 'size', 'format'), ['media', 'cdrom']]);
    };
  }
  const importFrom = get(props, 'import-from');
  if (importFrom) {
    const [srcStorage] = importFrom.split(':');
    inst.storage(node, srcStorage);
    inst.requireAny(authid, `/storage/${srcStorage}`, ['Datastore.Audit', 'Datastore.AllocateSpace']);
    const source = inst.findVolume(node, importFrom);
    if (!source) fail(`${key}: volume '${importFrom}' does not exist on node '${node}'`);
    if (!['import', 'images'].includes(source.content)) fail(`${key}: '${importFrom}' is not an importable disk image`);
    return (allocated) => {
      const v = inst.allocateDisk(node, storage, id, source.virtualSize ?? source.size);
      allocated.push(v);
      return printProperties(v.volid, [...options, ['size', formatSize(v.size)]]);
    };
  }
  if (/^\d+(\.\d+)?$/.test(rest)) {
    const gib = Number(rest);
    if (gib <= 0) badParams({ [key]: `invalid size '${rest}' for a new disk` });
    return (allocated) => {
      const v = inst.allocateDisk(node, storage, id, Math.ceil(gib * 1024 ** 3));
      allocated.push(v);
      return printProperties(v.volid, [...options, ['size', formatSize(v.size)]]);
    };
  }
  const existing = inst.findVolume(node, file);
  if (!existing) fail(`${key}: volume '${file}' does not exist`);
  return () => printProperties(file, [...options, ['size', formatSize(existing.size)]]);
}

function checkBridge(inst: SimulatedInstance, authid: string, key: string, bridge: string | undefined, tag: string | undefined): void {
  if (!bridge) return;
  if (!inst.bridges.includes(bridge)) fail(`${key}: bridge '${bridge}' does not exist`);
  const path = `/sdn/zones/localnetwork/${bridge}${tag ? `/${tag}` : ''}`;
  if (!inst.can(authid, path, ['SDN.Use'])) throw new PveError(403, `Permission check failed (${path}, SDN.Use)`);
}

route('POST', '/nodes/{node}/qemu', ({ inst, authid, at, params }) => {
  inst.node(at.node);
  const id = int(params, 'vmid', { min: 100, max: 999999999, required: true })!;
  const poolid = params.pool;
  if (poolid) {
    pool(inst, poolid);
    if (!inst.can(authid, `/vms/${id}`, ['VM.Allocate']) && !inst.can(authid, `/pool/${poolid}`, ['VM.Allocate'])) {
      throw new PveError(403, `Permission check failed (/vms/${id}, VM.Allocate)`);
    }
  } else {
    inst.require(authid, `/vms/${id}`, ['VM.Allocate']);
  }
  const existing = inst.vms.get(id);
  if (existing) fail(`VM ${id} already exists on node '${existing.node}'`);
  const config = new Map<string, string>();
  const drives: [string, (allocated: Volume[]) => string][] = [];
  for (const [key, value] of Object.entries(params)) {
    if (['vmid', 'pool', 'node', 'start', 'unique', 'live-restore', 'archive', 'force', 'storage'].includes(key)) continue;
    if (DRIVE_KEY.test(key)) drives.push([key, planDrive(inst, authid, at.node, id, key, value)]);
    else if (NET_KEY.test(key)) {
      const nic = normalizeNic(value, macFor(id, Number(key.slice(3))));
      checkBridge(inst, authid, key, nic.bridge, nic.tag);
      config.set(key, nic.value);
    } else if (key === 'tags') config.set(key, normalizeTags(value));
    else if (key === 'delete' || key === 'digest') continue;
    else config.set(key, value);
  }
  if (!config.has('name')) config.set('name', `VM${id}`);
  config.set('meta', `creation-qemu=9.2.0,ctime=${Math.floor(Date.now() / 1000)}`);
  const vm: Vm = { vmid: id, node: at.node, config, status: 'stopped', lock: 'create' };
  inst.vms.set(id, vm);
  if (poolid) inst.pools.get(poolid)!.vms.add(id);
  return inst.startTask(at.node, 'qmcreate', String(id), authid, () => {
    const allocated: Volume[] = [];
    try {
      for (const [key, allocate] of drives) vm.config.set(key, allocate(allocated));
    } catch (e) {
      for (const v of allocated) inst.removeVolume(v);
      inst.vms.delete(id);
      for (const p of inst.pools.values()) p.vms.delete(id);
      throw new Error(`unable to create VM ${id} - ${(e as Error).message}`);
    }
    delete vm.lock;
    return allocated.map((v) => `  ${v.volid} (${formatSize(v.size)}) allocated`);
  });
});

route('GET', '/nodes/{node}/qemu/{vmid}', ({ inst, authid, at }) => {
  inst.vm(at.node, vmid(at));
  inst.require(authid, `/vms/${at.vmid}`, ['VM.Audit']);
  return ['config', 'pending', 'status', 'resize', 'template', 'clone'].map((subdir) => ({ subdir }));
});

route('GET', '/nodes/{node}/qemu/{vmid}/config', ({ inst, authid, at }) => {
  const vm = inst.vm(at.node, vmid(at));
  inst.require(authid, `/vms/${vm.vmid}`, ['VM.Audit']);
  return { ...configJson(vm.config), ...(vm.lock ? { lock: vm.lock } : {}) };
});

route('GET', '/nodes/{node}/qemu/{vmid}/pending', ({ inst, authid, at }) => {
  const vm = inst.vm(at.node, vmid(at));
  inst.require(authid, `/vms/${vm.vmid}`, ['VM.Audit']);
  return Object.entries(configJson(vm.config))
    .filter(([k]) => k !== 'digest')
    .map(([key, value]) => ({ key, value }));
});

function updateConfig(call: Call, asTask: boolean): unknown {
  const { inst, authid, at, params } = call;
  const vm = inst.vm(at.node, vmid(at));
  if (vm.lock && !flag(params.skiplock)) fail(`VM is locked (${vm.lock})`);
  if (params.digest && params.digest !== configDigest(vm.config)) fail('detected modified configuration - file changed by other user? Try again.');
  const changes = Object.entries(params).filter(([k]) => !['digest', 'skiplock', 'delete', 'revert', 'background_delay', 'node', 'vmid'].includes(k));
  const deletions = list(params.delete);
  for (const key of [...changes.map(([k]) => k), ...deletions]) inst.require(authid, `/vms/${vm.vmid}`, [privilegeForKey(key)]);
  const drives: [string, (allocated: Volume[]) => string][] = [];
  for (const [key, value] of changes) {
    if (DRIVE_KEY.test(key)) drives.push([key, planDrive(inst, authid, at.node, vm.vmid, key, value)]);
    else if (NET_KEY.test(key)) {
      const previous = vm.config.get(key);
      const previousMac = previous ? /^[a-z0-9]+=([0-9A-Fa-f:]{17})/.exec(previous)?.[1] : undefined;
      const nic = normalizeNic(value, previousMac ?? macFor(vm.vmid, Number(key.slice(3))));
      checkBridge(inst, authid, key, nic.bridge, nic.tag);
    }
  }
  const apply = () => {
    const allocated: Volume[] = [];
    for (const [key, value] of changes) {
      if (DRIVE_KEY.test(key)) continue;
      if (NET_KEY.test(key)) {
        const previous = vm.config.get(key);
        const previousMac = previous ? /^[a-z0-9]+=([0-9A-Fa-f:]{17})/.exec(previous)?.[1] : undefined;
        vm.config.set(key, normalizeNic(value, previousMac ?? macFor(vm.vmid, Number(key.slice(3)))).value);
      } else vm.config.set(key, key === 'tags' ? normalizeTags(value) : value);
    }
    for (const [key, allocate] of drives) {
      const before = vm.config.get(key)?.split(',')[0];
      const value = allocate(allocated);
      const after = value.split(',')[0];
      if (before && before !== after && before.includes(':')) {
        let n = 0;
        while (vm.config.has(`unused${n}`)) n++;
        vm.config.set(`unused${n}`, before);
      }
      vm.config.set(key, value);
    }
    for (const key of deletions) {
      const value = vm.config.get(key);
      if (value && DRIVE_KEY.test(key) && value.includes(':') && !/media=cdrom/.test(value)) {
        let n = 0;
        while (vm.config.has(`unused${n}`)) n++;
        vm.config.set(`unused${n}`, value.split(',')[0]);
      } else if (key.startsWith('unused') && value) {
        const v = inst.findVolume(vm.node, value);
        if (v) inst.removeVolume(v);
      }
      vm.config.delete(key);
    }
  };
  if (!asTask) {
    apply();
    return null;
  }
  return inst.startTask(at.node, 'qmconfig', String(vm.vmid), authid, () => {
    apply();
  });
}

route('PUT', '/nodes/{node}/qemu/{vmid}/config', (call) => updateConfig(call, false));
route('POST', '/nodes/{node}/qemu/{vmid}/config', (call) => updateConfig(call, true));

route('GET', '/nodes/{node}/qemu/{vmid}/status', ({ inst, at }) => {
  inst.vm(at.node, vmid(at));
  return ['current', 'start', 'stop', 'shutdown', 'reboot'].map((subdir) => ({ subdir }));
});

route('GET', '/nodes/{node}/qemu/{vmid}/status/current', ({ inst, authid, at }) => {
  const vm = inst.vm(at.node, vmid(at));
  inst.require(authid, `/vms/${vm.vmid}`, ['VM.Audit']);
  const entry = vmListEntry(inst, vm);
  return {
    ...entry,
    qmpstatus: vm.status,
    agent: /(^|,)(enabled=)?1(,|$)/.test(vm.config.get('agent') ?? '') ? 1 : 0,
    ha: { managed: 0 },
    ...(inst.isTemplate(vm) ? { template: 1 } : {}),
    ...(vm.status === 'running' ? { pid: 40000 + vm.vmid } : {}),
  };
});

function power(action: 'start' | 'stop' | 'shutdown' | 'reboot' | 'reset'): (call: Call) => string {
  return ({ inst, authid, at, params }) => {
    const vm = inst.vm(at.node, vmid(at));
    inst.require(authid, `/vms/${vm.vmid}`, ['VM.PowerMgmt']);
    if (vm.lock && !flag(params.skiplock)) fail(`VM is locked (${vm.lock})`);
    if (action === 'start' && inst.isTemplate(vm)) fail("you can't start a vm if it's a template");
    if ((action === 'reboot' || action === 'reset' || action === 'shutdown') && vm.status !== 'running') fail(`VM ${vm.vmid} not running`);
    const type = { start: 'qmstart', stop: 'qmstop', shutdown: 'qmshutdown', reboot: 'qmreboot', reset: 'qmreset' }[action];
    return inst.startTask(at.node, type, String(vm.vmid), authid, () => {
      if (action === 'start') {
        if (vm.status === 'running') throw new Error(`VM ${vm.vmid} already running`);
        vm.status = 'running';
        vm.startedAt = Date.now();
      } else if (action === 'stop' || action === 'shutdown') {
        vm.status = 'stopped';
        delete vm.startedAt;
      }
    });
  };
}

for (const action of ['start', 'stop', 'shutdown', 'reboot', 'reset'] as const) route('POST', `/nodes/{node}/qemu/{vmid}/status/${action}`, power(action));

route('PUT', '/nodes/{node}/qemu/{vmid}/resize', ({ inst, authid, at, params }) => {
  const vm = inst.vm(at.node, vmid(at));
  inst.require(authid, `/vms/${vm.vmid}`, ['VM.Config.Disk']);
  const disk = required(params, 'disk');
  const sizeText = required(params, 'size');
  if (vm.lock && !flag(params.skiplock)) fail(`VM is locked (${vm.lock})`);
  const value = vm.config.get(disk);
  if (!value || !DRIVE_KEY.test(disk)) fail(`disk '${disk}' does not exist`);
  const props = parseProperties(value, 'file');
  const volume = inst.findVolume(vm.node, props.head ?? '');
  if (!volume) fail(`disk '${disk}' has no volume`);
  inst.require(authid, `/storage/${volume.storage}`, ['Datastore.AllocateSpace']);
  const wanted = sizeText.startsWith('+') ? volume.size + parseSize(sizeText.slice(1)) : parseSize(sizeText);
  if (wanted < volume.size) fail(`shrinking disks is not supported`);
  return inst.startTask(at.node, 'resize', String(vm.vmid), authid, () => {
    if (wanted > volume.size) inst.ensureRoom(vm.node, volume.storage, wanted - volume.size, `unable to resize ${disk}`);
    volume.size = wanted;
    vm.config.set(disk, printProperties(props.head, [...without(props, 'size'), ['size', formatSize(wanted)]]));
    return [`resized ${disk} to ${formatSize(wanted)}`];
  });
});

route('POST', '/nodes/{node}/qemu/{vmid}/template', ({ inst, authid, at, params }) => {
  const vm = inst.vm(at.node, vmid(at));
  inst.require(authid, `/vms/${vm.vmid}`, ['VM.Allocate']);
  if (vm.lock) fail(`VM is locked (${vm.lock})`);
  if (vm.status === 'running') fail("you can't convert a VM to template if VM is running");
  return inst.startTask(at.node, 'qmtemplate', String(vm.vmid), authid, () => {
    const renamed: string[] = [];
    for (const [key, value] of vm.config) {
      if (!DRIVE_KEY.test(key) || (params.disk && key !== params.disk)) continue;
      const props = parseProperties(value, 'file');
      const volume = props.head ? inst.findVolume(vm.node, props.head) : undefined;
      if (!volume || !volume.volid.includes(`vm-${vm.vmid}-disk-`)) continue;
      const base = volume.volid.replace(`vm-${vm.vmid}-disk-`, `base-${vm.vmid}-disk-`);
      renamed.push(`${volume.volid} -> ${base}`);
      volume.volid = base;
      vm.config.set(key, printProperties(base, props.pairs));
    }
    vm.config.set('template', '1');
    return renamed.map((r) => `  renamed ${r}`);
  });
});

route('POST', '/nodes/{node}/qemu/{vmid}/clone', ({ inst, authid, at, params }) => {
  const source = inst.vm(at.node, vmid(at));
  const newid = int(params, 'newid', { min: 100, max: 999999999, required: true })!;
  inst.require(authid, `/vms/${source.vmid}`, ['VM.Clone']);
  const poolid = params.pool;
  if (poolid) {
    pool(inst, poolid);
    if (!inst.can(authid, `/vms/${newid}`, ['VM.Allocate']) && !inst.can(authid, `/pool/${poolid}`, ['VM.Allocate'])) {
      throw new PveError(403, `Permission check failed (/vms/${newid}, VM.Allocate)`);
    }
  } else {
    inst.require(authid, `/vms/${newid}`, ['VM.Allocate']);
  }
  const existing = inst.vms.get(newid);
  if (existing) fail(`VM ${newid} already exists on node '${existing.node}'`);
  const target = params.target ?? source.node;
  inst.node(target);
  const full = flag(params.full, !inst.isTemplate(source));
  if (!full && !inst.isTemplate(source)) fail('linked clone feature is only available for templates');
  const disks = [...source.config].filter(([k, v]) => DRIVE_KEY.test(k) && !/media=cdrom/.test(v));
  for (const [, value] of disks) {
    const volume = inst.findVolume(source.node, value.split(',')[0]);
    const targetStorage = params.storage ?? volume?.storage;
    if (volume && target !== source.node && !inst.storages.get(volume.storage)?.shared && !params.storage) {
      fail(`can't clone VM to node '${target}' (VM uses local storage)`);
    }
    if (targetStorage) inst.require(authid, `/storage/${targetStorage}`, ['Datastore.AllocateSpace']);
  }
  for (const [key, value] of source.config) {
    if (NET_KEY.test(key)) {
      const nic = normalizeNic(value, macFor(newid, Number(key.slice(3))));
      checkBridge(inst, authid, key, nic.bridge, nic.tag);
    }
  }
  const config = new Map<string, string>();
  for (const [key, value] of source.config) {
    if (key === 'template' || key === 'meta') continue;
    if (NET_KEY.test(key)) {
      const rest = value.replace(/^([a-z0-9]+)=[0-9A-Fa-f:]{17}/, '$1');
      config.set(key, normalizeNic(rest, macFor(newid, Number(key.slice(3)))).value);
    } else config.set(key, value);
  }
  if (params.name) config.set('name', params.name);
  if (params.description) config.set('description', params.description);
  const vm: Vm = { vmid: newid, node: target, config, status: 'stopped', lock: 'clone' };
  inst.vms.set(newid, vm);
  if (poolid) inst.pools.get(poolid)!.vms.add(newid);
  return inst.startTask(source.node, 'qmclone', String(source.vmid), authid, () => {
    const allocated: Volume[] = [];
    try {
      for (const [key, value] of disks) {
        const props = parseProperties(value, 'file');
        const volume = inst.findVolume(source.node, props.head ?? '');
        if (!volume) continue;
        const v = inst.allocateDisk(target, params.storage ?? volume.storage, newid, volume.size);
        allocated.push(v);
        vm.config.set(key, printProperties(v.volid, [...without(props, 'size'), ['size', formatSize(v.size)]]));
      }
    } catch (e) {
      for (const v of allocated) inst.removeVolume(v);
      inst.vms.delete(newid);
      for (const p of inst.pools.values()) p.vms.delete(newid);
      throw e;
    }
    delete vm.lock;
    return [`create ${full ? 'full' : 'linked'} clone of drive(s) of VM ${source.vmid} to VM ${newid}`];
  });
});

route('DELETE', '/nodes/{node}/qemu/{vmid}', ({ inst, authid, at, params }) => {
  const vm = inst.vm(at.node, vmid(at));
  inst.require(authid, `/vms/${vm.vmid}`, ['VM.Allocate']);
  if (vm.lock && !flag(params.skiplock)) fail(`VM is locked (${vm.lock})`);
  if (vm.status === 'running') fail(`VM ${vm.vmid} is running - destroy failed`);
  if (flag(vm.config.get('protection'))) fail(`can't remove VM ${vm.vmid} - protection mode enabled`);
  vm.lock = 'destroyed';
  return inst.startTask(at.node, 'qmdestroy', String(vm.vmid), authid, () => {
    const removed = inst.volumes.filter((v) => v.vmid === vm.vmid && (v.node === vm.node || v.node === undefined));
    for (const v of removed) inst.removeVolume(v);
    for (const p of inst.pools.values()) p.vms.delete(vm.vmid);
    if (flag(params.purge)) removeAclEntries(inst, (e) => e.path === `/vms/${vm.vmid}`);
    inst.vms.delete(vm.vmid);
    return removed.map((v) => `  removed ${v.volid}`);
  });
});

// ---- tasks --------------------------------------------------------------------------------------

function task(inst: SimulatedInstance, authid: string, node: string, upid: string) {
  inst.node(node);
  const t = inst.tasks.get(upid);
  if (!t || t.node !== node) fail(`unable to open file '/var/log/pve/tasks/active' - No such file or directory (no task ${upid})`);
  if (t.user !== authid && t.user.split('!')[0] !== authid.split('!')[0]) inst.require(authid, `/nodes/${node}`, ['Sys.Audit']);
  return t;
}

function taskJson(t: ReturnType<typeof task>) {
  return {
    upid: t.upid,
    node: t.node,
    pid: t.pid,
    pstart: t.pstart,
    starttime: t.starttime,
    type: t.type,
    id: t.id,
    user: t.user.split('!')[0],
    ...(t.user.includes('!') ? { tokenid: t.user.split('!')[1] } : {}),
    status: t.status,
    ...(t.status === 'stopped' ? { exitstatus: t.exitstatus, endtime: t.endtime } : {}),
  };
}

route('GET', '/nodes/{node}/tasks', ({ inst, authid, at }) => {
  inst.node(at.node);
  const all = inst.can(authid, `/nodes/${at.node}`, ['Sys.Audit']);
  return [...inst.tasks.values()]
    .filter((t) => t.node === at.node && (all || t.user.split('!')[0] === authid.split('!')[0]))
    .sort((a, b) => b.starttime - a.starttime || b.pid - a.pid)
    .map((t) => {
      const { status, exitstatus, ...rest } = taskJson(t);
      return { ...rest, ...(status === 'stopped' ? { status: exitstatus } : {}) };
    });
});

route('GET', '/nodes/{node}/tasks/{upid}', ({ inst, authid, at }) => {
  task(inst, authid, at.node, at.upid);
  return [{ subdir: 'log' }, { subdir: 'status' }];
});

route('GET', '/nodes/{node}/tasks/{upid}/status', ({ inst, authid, at }) => taskJson(task(inst, authid, at.node, at.upid)));

route('GET', '/nodes/{node}/tasks/{upid}/log', ({ inst, authid, at, params }) => {
  const t = task(inst, authid, at.node, at.upid);
  const start = int(params, 'start', { min: 0 }) ?? 0;
  const limit = int(params, 'limit', { min: 0 }) ?? 50;
  return t.log.slice(start, start + limit).map((line, i) => ({ n: start + i + 1, t: line }));
});

route('DELETE', '/nodes/{node}/tasks/{upid}', ({ inst, authid, at }) => {
  const t = task(inst, authid, at.node, at.upid);
  if (t.user.split('!')[0] !== authid.split('!')[0]) inst.require(authid, `/nodes/${at.node}`, ['Sys.Modify']);
  if (t.status === 'running') {
    if (t.timer) clearTimeout(t.timer);
    t.status = 'stopped';
    t.exitstatus = 'interrupted by signal';
    t.log.push('received interrupt', 'TASK ERROR: interrupted by signal');
    t.endtime = Math.floor(Date.now() / 1000);
  }
  return null;
});
