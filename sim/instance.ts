/**
 * The state of one simulated Proxmox VE instance (cluster): nodes, storages and their volumes,
 * users, tokens, roles, ACLs, pools, VMs and tasks — and the bookkeeping the API routes share
 * (authentication, permission checks, asynchronous tasks with real UPIDs).
 */
import { createHash, randomUUID } from 'node:crypto';
import { PveError, fail, forbidden } from './errors';
import type { FaultPlan } from './faults';
import { BUILTIN_ROLES, builtinRole, hasPrivileges, privilegesOf, type AccessView, type AclEntry } from './permissions';

export interface SimNodeSpec {
  name: string;
  /** vCPUs the node reports (`maxcpu`). */
  cpu: number;
  /** Memory the node reports, in MiB (`maxmem`). */
  memoryMiB: number;
}

export interface SimStorageSpec {
  id: string;
  /** `dir` keeps files (images to import, ISOs); `lvmthin` keeps VM disks. */
  type: 'dir' | 'lvmthin';
  content: string[];
  /** Capacity on every node (local storage) or in total (shared). */
  capacityGiB: number;
  shared?: boolean;
  /** A directory storage's path on the nodes (as `POST /storage` set it). */
  path?: string;
  /** The nodes the storage is restricted to (`nodes`); undefined: every node. */
  nodes?: string[];
}

/** A VM that exists before anything is applied (e.g. a template the lab names by `templateID`). */
export interface SimExistingVm {
  vmid: number;
  node: string;
  name: string;
  template?: boolean;
  tags?: string[];
  diskStorage?: string;
  diskGiB?: number;
}

export interface InstanceSpec {
  name: string;
  nodes: SimNodeSpec[];
  /** @default local (dir: import, iso, vztmpl, backup, snippets; 100 GiB) and local-lvm (lvmthin: images, rootdir; 400 GiB) */
  storages?: SimStorageSpec[];
  /** Linux bridges on every node. @default ['vmbr0'] */
  bridges?: string[];
  /** The PVE version the instance reports. @default '8.4.1' */
  version?: string;
  existingVms?: SimExistingVm[];
  /** Secret of the `root@pam!pvekaas` administrator token. @default a random UUID */
  adminTokenSecret?: string;
  /** Password of root@pam for ticket login (`POST /access/ticket`). @default a random UUID */
  rootPassword?: string;
}

/** An image "on the internet": what Proxmox would find behind a URL. */
export interface RemoteImage {
  /** Bytes downloaded. */
  size: number;
  /** Virtual disk size once imported. */
  virtualSize: number;
  /** Known digests by algorithm; a checksum that differs fails the download like on PVE. */
  checksums?: Partial<Record<string, string>>;
}

export interface Volume {
  volid: string;
  storage: string;
  /** Node that holds it; undefined on shared storage. */
  node?: string;
  content: string;
  format: string;
  size: number;
  /** Disk size once imported, for images of content type `import`. */
  virtualSize?: number;
  vmid?: number;
  ctime: number;
  /** The file's bytes, for files uploaded or downloaded into the simulator (ISOs, images). */
  data?: Buffer;
}

export interface User {
  userid: string;
  comment?: string;
  email?: string;
  firstname?: string;
  lastname?: string;
  keys?: string;
  enable: boolean;
  expire: number;
  groups: string[];
  /** sha256 of the password, for `pve` realm users and root@pam (ticket login). */
  passwordHash?: string;
}

export interface Token {
  /** `user@realm!name` */
  fullid: string;
  userid: string;
  name: string;
  secret: string;
  privsep: boolean;
  comment?: string;
  expire: number;
}

export interface Pool {
  poolid: string;
  comment?: string;
  vms: Set<number>;
  storage: Set<string>;
}

export interface Vm {
  vmid: number;
  node: string;
  /** Raw config values as PVE stores them (`key: value` lines of qemu-server/<vmid>.conf). */
  config: Map<string, string>;
  status: 'running' | 'stopped';
  lock?: string;
  startedAt?: number;
  /** The API token (or user) that created or cloned it; undefined for VMs that existed before. */
  createdBy?: string;
  /** The VM it was cloned from. */
  cloneOf?: number;
  /** Guest-agent `exec` runs by pid. */
  agentExecs?: Map<number, { command: string[]; startedAt: number }>;
}

export interface Task {
  upid: string;
  node: string;
  type: string;
  id: string;
  user: string;
  pid: number;
  pstart: number;
  starttime: number;
  status: 'running' | 'stopped';
  exitstatus?: string;
  log: string[];
  endtime?: number;
  /** Runs the work and records the result; idempotent. */
  finish: () => void;
  timer?: NodeJS.Timeout;
  stalled: boolean;
}

export interface InstanceOptions {
  /** How long a task runs before it completes. @default 250 */
  taskDurationMs: number;
  /** How long after a start a VM's guest agent answers. */
  agentStartMs: number;
  remoteImages: Record<string, RemoteImage>;
  faults: FaultPlan;
  /** Called when a VM starts (through the API or the simulator's own methods). */
  vmStarted?: (instance: string, vm: Vm) => void;
}

const GiB = 1024 ** 3;

export const DEFAULT_STORAGES: SimStorageSpec[] = [
  { id: 'local', type: 'dir', content: ['backup', 'import', 'iso', 'snippets', 'vztmpl'], capacityGiB: 100 },
  { id: 'local-lvm', type: 'lvmthin', content: ['images', 'rootdir'], capacityGiB: 400 },
];

export class SimulatedInstance {
  readonly name: string;
  readonly version: string;
  readonly nodes: Map<string, SimNodeSpec>;
  readonly storages: Map<string, SimStorageSpec>;
  readonly bridges: string[];
  readonly volumes: Volume[] = [];
  readonly users = new Map<string, User>();
  readonly tokens = new Map<string, Token>();
  readonly groups = new Map<string, { comment?: string }>();
  readonly customRoles = new Map<string, Set<string>>();
  readonly acl: AclEntry[] = [];
  readonly pools = new Map<string, Pool>();
  readonly vms = new Map<number, Vm>();
  readonly tasks = new Map<string, Task>();
  readonly adminToken: string;
  readonly rootPassword: string;
  /** Tickets from `POST /access/ticket`: ticket → user id, CSRF token, issue time. */
  readonly tickets = new Map<string, { userid: string; csrf: string; issued: number }>();
  readonly startedAt = Math.floor(Date.now() / 1000);
  private nextPid = 0x1000;
  private readonly pstart = 0x2a00 + Math.floor(Math.random() * 0x1000);

  constructor(
    spec: InstanceSpec,
    readonly options: InstanceOptions,
  ) {
    this.name = spec.name;
    this.version = spec.version ?? '8.4.1';
    this.nodes = new Map(spec.nodes.map((n) => [n.name, n]));
    this.storages = new Map((spec.storages ?? DEFAULT_STORAGES).map((s) => [s.id, s]));
    this.bridges = spec.bridges ?? ['vmbr0'];
    this.users.set('root@pam', { userid: 'root@pam', comment: 'Built-in Superuser', enable: true, expire: 0, groups: [] });
    const secret = spec.adminTokenSecret ?? randomUUID();
    this.tokens.set('root@pam!pvekaas', {
      fullid: 'root@pam!pvekaas',
      userid: 'root@pam',
      name: 'pvekaas',
      secret,
      privsep: false,
      expire: 0,
      comment: 'simulator administrator',
    });
    this.adminToken = `root@pam!pvekaas=${secret}`;
    this.rootPassword = spec.rootPassword ?? randomUUID();
    this.users.get('root@pam')!.passwordHash = passwordHash(this.rootPassword);
    for (const vm of spec.existingVms ?? []) this.addExistingVm(vm);
  }

  private addExistingVm(spec: SimExistingVm): void {
    const storage = spec.diskStorage ?? 'local-lvm';
    const size = (spec.diskGiB ?? 20) * GiB;
    const volname = `${spec.template ? 'base' : 'vm'}-${spec.vmid}-disk-0`;
    this.volumes.push({
      volid: `${storage}:${volname}`,
      storage,
      node: spec.node,
      content: 'images',
      format: 'raw',
      size,
      vmid: spec.vmid,
      ctime: this.startedAt,
    });
    const config = new Map<string, string>([
      ['name', spec.name],
      ['cores', '2'],
      ['memory', '2048'],
      ['scsi0', `${storage}:${volname},size=${formatSize(size)}`],
      ['net0', `virtio=${macFor(spec.vmid, 0)},bridge=${this.bridges[0]}`],
      ['ostype', 'l26'],
      // What PVE's GUI writes for a new VM (CAPMOX appends its ISO drive to it: `<boot>;ide0`).
      ['boot', 'order=scsi0;net0'],
      // A node template made for Cluster API runs the QEMU guest agent (CAPMOX waits for it,
      // image-builder's Proxmox images enable it); without it CAPMOX gets PVE's 500
      // "No QEMU guest agent configured" and never finishes a machine.
      ['agent', '1'],
    ]);
    if (spec.tags?.length) config.set('tags', [...spec.tags].sort().join(';'));
    if (spec.template) config.set('template', '1');
    config.set('smbios1', `uuid=${randomUUID()}`);
    this.vms.set(spec.vmid, { vmid: spec.vmid, node: spec.node, config, status: 'stopped' });
  }

  // ---- authentication and permissions -------------------------------------------------------

  /**
   * The authenticated id of a request: an `Authorization: PVEAPIToken=user@realm!name=secret`
   * header, or a `PVEAuthCookie` ticket from `POST /access/ticket` — which, like on PVE, needs the
   * `CSRFPreventionToken` header on every request that is not a GET.
   */
  authenticate(header: string | undefined, cookie?: string, csrf?: string, method = 'GET'): string {
    if (!header) {
      const ticket = /(?:^|;\s*)PVEAuthCookie=([^;]+)/.exec(cookie ?? '')?.[1];
      if (!ticket) throw new PveError(401, 'No ticket');
      const session = this.tickets.get(decodeURIComponentSafe(ticket));
      // PVE tickets are valid for two hours.
      if (!session || Date.now() - session.issued > 2 * 3600 * 1000) throw new PveError(401, 'permission denied - invalid PVE ticket');
      if (method !== 'GET' && csrf !== session.csrf) throw new PveError(401, 'Permission check failed - invalid CSRF token');
      const user = this.users.get(session.userid);
      if (!user || !user.enable) throw new PveError(401, `user '${session.userid}' is disabled`);
      return session.userid;
    }
    const m = /^PVEAPIToken=([^!=\s]+@[^!=\s]+)!([^=\s]+)=(\S+)$/.exec(header.trim());
    if (!m) throw new PveError(401, 'invalid token value!');
    const [, userid, name, secret] = m;
    const user = this.users.get(userid);
    if (!user) throw new PveError(401, `no such user ('${userid}')`);
    const token = this.tokens.get(`${userid}!${name}`);
    if (!token) throw new PveError(401, `no such token '${name}' for user '${userid}'`);
    if (token.secret !== secret) throw new PveError(401, 'invalid token value!');
    const now = Math.floor(Date.now() / 1000);
    if (!user.enable) throw new PveError(401, `user '${userid}' is disabled`);
    if ((user.expire && user.expire < now) || (token.expire && token.expire < now)) throw new PveError(401, 'account expired');
    return token.fullid;
  }

  accessView(): AccessView {
    const roles = new Map<string, ReadonlySet<string>>(Object.entries(BUILTIN_ROLES).map(([k, v]) => [k, new Set(v)]));
    for (const [k, v] of this.customRoles) roles.set(k, v);
    return {
      roles,
      acl: this.acl,
      groupsOf: (userid) => this.users.get(userid)?.groups ?? [],
      poolOfVm: (vmid) => [...this.pools.values()].find((p) => p.vms.has(vmid))?.poolid,
      poolOfStorage: (storage) => [...this.pools.values()].find((p) => p.storage.has(storage))?.poolid,
      tokenPrivsep: (tokenid) => this.tokens.get(tokenid)?.privsep,
    };
  }

  can(authid: string, path: string, privs: readonly string[]): boolean {
    return hasPrivileges(this.accessView(), authid, path, privs);
  }

  privileges(authid: string, path: string): string[] {
    return [...privilegesOf(this.accessView(), authid, path)].sort();
  }

  /** Throws 403 unless `authid` holds every privilege on the path. */
  require(authid: string, path: string, privs: readonly string[]): void {
    if (!this.can(authid, path, privs)) forbidden(path, privs);
  }

  /** Throws 403 unless `authid` holds at least one of the privileges on the path. */
  requireAny(authid: string, path: string, privs: readonly string[]): void {
    if (!privs.some((p) => this.can(authid, path, [p]))) forbidden(path, privs);
  }

  roleExists(roleid: string): boolean {
    return builtinRole(roleid) !== undefined || this.customRoles.has(roleid);
  }

  // ---- nodes, storages, volumes --------------------------------------------------------------

  node(name: string): SimNodeSpec {
    const node = this.nodes.get(name);
    if (!node) fail(`no such cluster node '${name}'`);
    return node;
  }

  storage(node: string, id: string): SimStorageSpec {
    const storage = this.storages.get(id);
    if (!storage) fail(`storage '${id}' does not exist`);
    this.node(node);
    return storage;
  }

  volumesOn(node: string, storage: string): Volume[] {
    const spec = this.storages.get(storage);
    return this.volumes.filter((v) => v.storage === storage && (spec?.shared || v.node === node));
  }

  findVolume(node: string, volid: string): Volume | undefined {
    const [storage] = volid.split(':');
    return this.volumesOn(node, storage).find((v) => v.volid === volid);
  }

  used(node: string, storage: string): number {
    return this.volumesOn(node, storage).reduce((sum, v) => sum + v.size, 0);
  }

  capacity(storage: string): number {
    return (this.storages.get(storage)?.capacityGiB ?? 0) * GiB;
  }

  /** Allocates a new VM disk volume on a storage; returns it (with PVE's naming). */
  allocateDisk(node: string, storage: string, vmid: number, size: number, prefix: 'vm' | 'base' = 'vm'): Volume {
    const spec = this.storage(node, storage);
    if (!spec.content.includes('images')) fail(`storage '${storage}' does not support vm images`);
    // No free-space check: both storage types here are thin. pve-storage's LvmThinPlugin::alloc_image
    // runs `lvcreate -V <size> --thinpool` with no check (a thin LV allocates no blocks until written;
    // LVM only warns when the thin volumes' sum exceeds the pool), and Plugin::alloc_image of a `dir`
    // storage runs `qemu-img create` (a sparse file). Only the thick `lvm` type checks
    // ("not enough free space ($free < $size)", LVMPlugin::alloc_image), which this simulator has not.
    // A thin pool that fills up fails the guests' writes later, which no API call reports.
    const taken = new Set(this.volumesOn(node, storage).map((v) => v.volid));
    let n = 0;
    const name = (i: number) => (spec.type === 'dir' ? `${vmid}/${prefix}-${vmid}-disk-${i}.qcow2` : `${prefix}-${vmid}-disk-${i}`);
    while (taken.has(`${storage}:${name(n)}`)) n++;
    const volume: Volume = {
      volid: `${storage}:${name(n)}`,
      storage,
      node: spec.shared ? undefined : node,
      content: 'images',
      format: spec.type === 'dir' ? 'qcow2' : 'raw',
      size,
      vmid,
      ctime: Math.floor(Date.now() / 1000),
    };
    this.volumes.push(volume);
    return volume;
  }

  removeVolume(volume: Volume): void {
    const i = this.volumes.indexOf(volume);
    if (i >= 0) this.volumes.splice(i, 1);
  }

  // ---- VMs ----------------------------------------------------------------------------------

  vm(node: string, vmid: number): Vm {
    const vm = this.vms.get(vmid);
    if (!vm || vm.node !== node) fail(`Configuration file 'nodes/${node}/qemu-server/${vmid}.conf' does not exist`);
    return vm;
  }

  isTemplate(vm: Vm): boolean {
    return vm.config.get('template') === '1';
  }

  /** Marks a VM running (a start task, or a power-on outside the API) and tells the listeners. */
  markRunning(vm: Vm): void {
    if (vm.status === 'running') return;
    vm.status = 'running';
    vm.startedAt = Date.now();
    vm.agentExecs = new Map();
    this.options.vmStarted?.(this.name, vm);
  }

  /** Moves a VM and its node-local volumes to another node (a migration's end state). */
  moveVm(vm: Vm, toNode: string): void {
    if (vm.node === toNode) return;
    for (const v of this.volumes) if (v.vmid === vm.vmid && v.node === vm.node) v.node = toNode;
    vm.node = toNode;
  }

  markStopped(vm: Vm): void {
    vm.status = 'stopped';
    delete vm.startedAt;
    delete vm.agentExecs;
  }

  poolOf(vmid: number): string | undefined {
    return [...this.pools.values()].find((p) => p.vms.has(vmid))?.poolid;
  }

  // ---- tasks --------------------------------------------------------------------------------

  /**
   * Starts a worker task: returns its UPID at once; `work` runs when the task completes (after
   * `taskDurationMs`, or later when a stall fault holds it) and may throw to fail the task.
   */
  startTask(node: string, type: string, id: string, authid: string, work: () => string[] | void | Promise<string[] | void>): string {
    const pid = this.nextPid++;
    const starttime = Math.floor(Date.now() / 1000);
    const hex = (n: number) => n.toString(16).toUpperCase().padStart(8, '0');
    let finishing = false;
    const upid = `UPID:${node}:${hex(pid)}:${hex(this.pstart)}:${hex(starttime)}:${type}:${id}:${authid}:`;
    const task: Task = {
      upid,
      node,
      type,
      id,
      user: authid,
      pid,
      pstart: this.pstart,
      starttime,
      status: 'running',
      log: [],
      stalled: false,
      finish: () => {
        if (task.status === 'stopped' || finishing) return;
        if (task.timer) clearTimeout(task.timer);
        const ok = (lines: string[] | void) => {
          task.log.push(...(lines ?? []), 'TASK OK');
          task.exitstatus = 'OK';
          done();
        };
        const failed = (e: unknown) => {
          const message = e instanceof Error ? e.message : String(e);
          task.log.push(message, `TASK ERROR: ${message}`);
          task.exitstatus = message;
          done();
        };
        const done = () => {
          task.status = 'stopped';
          task.endtime = Math.floor(Date.now() / 1000);
        };
        try {
          const injected = this.options.faults.taskFailure(this.name, type);
          if (injected) throw new Error(injected);
          const result = work();
          if (result instanceof Promise) {
            // Work that waits (a download): the task runs until it settles.
            finishing = true;
            result.then(ok, failed);
          } else ok(result);
        } catch (e) {
          failed(e);
        }
      },
    };
    this.tasks.set(upid, task);
    const stall = this.options.faults.taskStall(this.name, type);
    if (stall === 'forever') {
      task.stalled = true;
    } else {
      task.timer = setTimeout(task.finish, this.options.taskDurationMs + (stall ?? 0));
      task.timer.unref?.();
    }
    return upid;
  }

  /** Completes every task held by a stall fault (the admin API's `release-tasks`). */
  releaseStalledTasks(): number {
    let released = 0;
    for (const task of this.tasks.values()) {
      if (task.status === 'running' && task.stalled) {
        task.stalled = false;
        task.finish();
        released++;
      }
    }
    return released;
  }

  /** Stops pending timers (when the simulator shuts down). */
  dispose(): void {
    for (const task of this.tasks.values()) if (task.timer) clearTimeout(task.timer);
  }
}

/** The stored form of a password (never the password itself). */
export function passwordHash(password: string): string {
  return createHash('sha256').update(password).digest('hex');
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** PVE's size notation: `20G`, `3584M`, or bytes. */
export function formatSize(bytes: number): string {
  if (bytes % GiB === 0) return `${bytes / GiB}G`;
  if (bytes % 1024 ** 2 === 0) return `${bytes / 1024 ** 2}M`;
  if (bytes % 1024 === 0) return `${bytes / 1024}K`;
  return String(bytes);
}

/** Bytes from `20G`, `3584M`, `512K`, `1T` or a plain byte count. */
export function parseSize(text: string): number {
  const m = /^(\d+(?:\.\d+)?)([KMGT]?)$/i.exec(text.trim());
  if (!m) throw new PveError(400, 'Parameter verification failed.', { size: `invalid size '${text}'` });
  const unit = { '': 1, K: 1024, M: 1024 ** 2, G: GiB, T: 1024 ** 4 }[m[2].toUpperCase() as '' | 'K' | 'M' | 'G' | 'T'];
  return Math.ceil(Number(m[1]) * unit);
}

/** A stable MAC in Proxmox's BC:24:11 prefix for a VM's n-th NIC. */
export function macFor(vmid: number, index: number): string {
  const h = createHash('sha1').update(`${vmid}/${index}`).digest();
  return ['BC', '24', '11', ...[h[0], h[1], h[2]].map((b) => b.toString(16).toUpperCase().padStart(2, '0'))].join(':');
}
