/**
 * The Proxmox VE API simulator: several instances (clusters), each on its own loopback https port
 * with its own state, serving `/api2/json/...` like PVE and a small admin API under `/_sim/`
 * (state, faults, permission checks) for tests and curious people. Node's http(s) module only.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { findRoute, routeTemplates, setFingerprint, type Params } from './api';
import { PveError, badParams } from './errors';
import { FaultPlan, type FaultSpec } from './faults';
import { SimulatedInstance, passwordHash, type InstanceSpec, type RemoteImage, type Vm } from './instance';
import { cloudInitFiles } from './iso9660';
import { DRIVE_KEY, parseProperties } from './qemu';
import { selfSignedCertificate } from './tls';
import { BodyTooLarge, MAX_BODY, MAX_UPLOAD_BODY, MAX_URL, closeIdleConnections, parseInput, readBody, refuseUnread, send } from './http';

// The limits and the idle close are the HTTP side's (./http.ts); importers find them here too.
export { IDLE_CLOSE_MS, MAX_BODY, MAX_UPLOAD_BODY, parseMultipart } from './http';

export interface SimulatorOptions {
  instances: (InstanceSpec & { /** @default 0 (any free port) */ port?: number })[];
  /** @default '127.0.0.1' */
  host?: string;
  /** How long tasks run. @default 250 */
  taskDurationMs?: number;
  /** What download URLs serve; others get a made-up image (see docs/proxmox.md). */
  remoteImages?: Record<string, RemoteImage>;
  faults?: FaultSpec;
  /** Called with one line per API request. */
  log?: (line: string) => void;
  /** The secret of the `/_sim/*` admin API (`Authorization: Bearer <secret>`). @default random */
  adminSecret?: string;
  /** How long after a VM starts its guest agent answers. @default 4 × taskDurationMs */
  agentStartMs?: number;
}

/** A VM as the lab twin sees it (see `PveSimulator.listVms`). */
export interface SimVmView {
  instance: string;
  vmid: number;
  node: string;
  name?: string;
  template: boolean;
  status: 'running' | 'stopped';
  tags: string[];
  pool?: string;
  cores?: number;
  sockets?: number;
  memoryMiB?: number;
  disks: { key: string; storage: string; sizeGiB: number }[];
  /** The `uuid` of `smbios1` (CAPMOX's providerID is `proxmox://<uuid>`). */
  uuid?: string;
  /** The API token (e.g. `capmox@pve!capi`) or user that created or cloned the VM. */
  createdBy?: string;
  cloneOf?: number;
  cdroms: { key: string; volid: string }[];
  /** The cloud-init files of the ISO9660 image attached as a cdrom, if any (CAPMOX's bootstrap ISO). */
  bootstrap?: { userData?: string; metaData?: string; networkConfig?: string };
  /** `ipconfigN` values (PVE's own cloud-init), by key. */
  ipConfig?: Record<string, string>;
}

export interface RequestRecord {
  instance: string;
  method: string;
  path: string;
  status: number;
  authid?: string;
}

/** A JSON view of an instance's state (no token secrets). */
export interface InstanceSnapshot {
  name: string;
  version: string;
  nodes: string[];
  users: { userid: string; enable: boolean; comment?: string; groups: string[] }[];
  tokens: { tokenid: string; privsep: boolean; comment?: string }[];
  roles: Record<string, string[]>;
  acl: { path: string; type: string; ugid: string; roleid: string; propagate: boolean }[];
  pools: { poolid: string; comment?: string; vms: number[]; storage: string[] }[];
  storages: { storage: string; type: string; content: string[]; shared: boolean; path?: string; nodes?: string[] }[];
  vms: {
    vmid: number;
    node: string;
    name?: string;
    template: boolean;
    tags: string[];
    pool?: string;
    status: string;
    lock?: string;
    config: Record<string, string>;
  }[];
  volumes: { volid: string; node?: string; content: string; format: string; size: number; vmid?: number }[];
  tasks: { upid: string; type: string; status: string; exitstatus?: string }[];
}

export class PveSimulator {
  readonly faults: FaultPlan;
  readonly requests: RequestRecord[] = [];
  private readonly instances = new Map<string, { state: SimulatedInstance; server: Server; port: number }>();
  private readonly host: string;
  private readonly startedListeners: ((vm: SimVmView) => void)[] = [];
  /** Requests being handled now: read, maybe delayed by a fault, not answered yet. */
  private handling = 0;
  /** The secret of the `/_sim/*` admin API: `Authorization: Bearer <adminSecret>`. */
  readonly adminSecret: string;

  private constructor(private readonly options: SimulatorOptions) {
    this.faults = new FaultPlan(options.faults);
    this.host = options.host ?? '127.0.0.1';
    this.adminSecret = options.adminSecret ?? randomBytes(18).toString('base64url');
  }

  static async start(options: SimulatorOptions): Promise<PveSimulator> {
    const names = options.instances.map((i) => i.name);
    const duplicate = names.find((n, i) => names.indexOf(n) !== i);
    if (duplicate) throw new Error(`instance ${duplicate} is listed twice`);
    const sim = new PveSimulator(options);
    const tls = selfSignedCertificate();
    setFingerprint(tls.fingerprint);
    try {
      for (const spec of options.instances) {
        const state = new SimulatedInstance(spec, {
          taskDurationMs: options.taskDurationMs ?? 250,
          agentStartMs: options.agentStartMs ?? 4 * (options.taskDurationMs ?? 250),
          remoteImages: options.remoteImages ?? {},
          faults: sim.faults,
          vmStarted: (instance, vm) => sim.vmStarted(instance, vm),
        });
        const server = createServer({ key: tls.key, cert: tls.cert }, (req, res) =>
          // Whatever a request does, the server lives on: an unexpected error ends that response only.
          sim.track(
            sim.serve(state, req, res).catch(() => {
              try {
                if (!res.headersSent) send(res, 500, { data: null }, 'Internal Server Error');
                else res.destroy();
              } catch {
                res.destroy();
              }
            }),
          ),
        );
        closeIdleConnections(server);
        const port = await new Promise<number>((resolve, reject) => {
          server.once('error', reject);
          server.listen(spec.port ?? 0, sim.host, () => resolve((server.address() as AddressInfo).port));
        });
        sim.instances.set(spec.name, { state, server, port });
      }
    } catch (e) {
      await sim.stop();
      throw e;
    }
    return sim;
  }

  get names(): string[] {
    return [...this.instances.keys()];
  }

  instance(name: string): SimulatedInstance {
    const entry = this.instances.get(name);
    if (!entry) throw new Error(`the simulator has no instance ${name} (it has ${this.names.join(', ')})`);
    return entry.state;
  }

  /** The endpoint to put in a lab description: `https://127.0.0.1:<port>/`. */
  endpoint(name: string): string {
    this.instance(name);
    return `https://${this.host}:${this.instances.get(name)!.port}/`;
  }

  /** `root@pam!pvekaas=<secret>`: an administrator token for the instance (what TF_VAR_proxmox_api_token takes). */
  adminToken(name: string): string {
    return this.instance(name).adminToken;
  }

  /** root@pam's password on the instance, for ticket login (`POST /access/ticket`). */
  rootPassword(name: string): string {
    return this.instance(name).rootPassword;
  }

  /** Every VM of every instance, by instance and VM id. */
  listVms(): SimVmView[] {
    const out: SimVmView[] = [];
    for (const name of [...this.instances.keys()].sort()) {
      const s = this.instance(name);
      for (const vm of [...s.vms.values()].sort((a, b) => a.vmid - b.vmid)) out.push(vmView(s, vm));
    }
    return out;
  }

  /** A crash or a power-on outside the API: no task, no permission check. */
  setVmStatus(instance: string, vmid: number, status: 'stopped' | 'running'): void {
    const s = this.instance(instance);
    const vm = this.vmOf(s, vmid);
    if (status === 'running') {
      if (s.isTemplate(vm)) throw new Error(`VM ${vmid} on ${instance} is a template and cannot run`);
      s.markRunning(vm);
    } else s.markStopped(vm);
  }

  /** Moves a VM to another node outside the API (like an HA failover): its local disks move with it. */
  migrateVm(instance: string, vmid: number, toNode: string): void {
    const s = this.instance(instance);
    const vm = this.vmOf(s, vmid);
    if (!s.nodes.has(toNode)) throw new Error(`instance ${instance} has no node ${toNode} (it has ${[...s.nodes.keys()].join(', ')})`);
    s.moveVm(vm, toNode);
  }

  /** Calls `listener` each time a VM starts, on any instance (through the API or `setVmStatus`). */
  onVmStarted(listener: (vm: SimVmView) => void): void {
    this.startedListeners.push(listener);
  }

  private vmStarted(instance: string, vm: Vm): void {
    const view = vmView(this.instance(instance), vm);
    for (const l of this.startedListeners) {
      try {
        l(view);
      } catch (e) {
        this.options.log?.(`onVmStarted listener failed: ${(e as Error).message}`);
      }
    }
  }

  private vmOf(s: SimulatedInstance, vmid: number): Vm {
    const vm = s.vms.get(vmid);
    if (!vm) throw new Error(`instance ${s.name} has no VM ${vmid}`);
    return vm;
  }

  snapshot(name: string): InstanceSnapshot {
    const s = this.instance(name);
    return {
      name: s.name,
      version: s.version,
      nodes: [...s.nodes.keys()].sort(),
      users: [...s.users.values()]
        .sort((a, b) => a.userid.localeCompare(b.userid))
        .map((u) => ({ userid: u.userid, enable: u.enable, ...(u.comment ? { comment: u.comment } : {}), groups: u.groups })),
      tokens: [...s.tokens.values()]
        .sort((a, b) => a.fullid.localeCompare(b.fullid))
        .map((t) => ({ tokenid: t.fullid, privsep: t.privsep, ...(t.comment ? { comment: t.comment } : {}) })),
      roles: Object.fromEntries([...s.customRoles].sort(([a], [b]) => a.localeCompare(b)).map(([id, p]) => [id, [...p].sort()])),
      acl: s.acl.map((e) => ({ ...e })).sort((a, b) => a.path.localeCompare(b.path) || a.ugid.localeCompare(b.ugid) || a.roleid.localeCompare(b.roleid)),
      pools: [...s.pools.values()]
        .sort((a, b) => a.poolid.localeCompare(b.poolid))
        .map((p) => ({
          poolid: p.poolid,
          ...(p.comment ? { comment: p.comment } : {}),
          vms: [...p.vms].sort((a, b) => a - b),
          storage: [...p.storage].sort(),
        })),
      storages: [...s.storages.values()]
        .sort((a, b) => a.id.localeCompare(b.id))
        .map((st) => ({
          storage: st.id,
          type: st.type,
          content: [...st.content].sort(),
          shared: !!st.shared,
          ...(st.path ? { path: st.path } : {}),
          ...(st.nodes ? { nodes: [...st.nodes] } : {}),
        })),
      vms: [...s.vms.values()]
        .sort((a, b) => a.vmid - b.vmid)
        .map((vm) => ({
          vmid: vm.vmid,
          node: vm.node,
          name: vm.config.get('name'),
          template: s.isTemplate(vm),
          tags: (vm.config.get('tags') ?? '').split(';').filter(Boolean),
          ...(s.poolOf(vm.vmid) ? { pool: s.poolOf(vm.vmid) } : {}),
          status: vm.status,
          ...(vm.lock ? { lock: vm.lock } : {}),
          // Like PVE's own config view, never the cloud-init password.
          config: Object.fromEntries([...vm.config].sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, k === 'cipassword' ? '**********' : v])),
        })),
      volumes: s.volumes
        .map((v) => ({
          volid: v.volid,
          ...(v.node ? { node: v.node } : {}),
          content: v.content,
          format: v.format,
          size: v.size,
          ...(v.vmid !== undefined ? { vmid: v.vmid } : {}),
        }))
        .sort((a, b) => (a.node ?? '').localeCompare(b.node ?? '') || a.volid.localeCompare(b.volid)),
      tasks: [...s.tasks.values()].map((t) => ({ upid: t.upid, type: t.type, status: t.status, ...(t.exitstatus ? { exitstatus: t.exitstatus } : {}) })),
    };
  }

  async stop(): Promise<void> {
    const servers = [...this.instances.values()];
    this.instances.clear();
    for (const { state } of servers) state.dispose();
    await Promise.all(
      servers.map(
        ({ server }) =>
          new Promise<void>((resolve) => {
            server.close(() => resolve());
            server.closeAllConnections();
          }),
      ),
    );
  }

  private track(served: Promise<void>): void {
    this.handling++;
    void served.finally(() => this.handling--);
  }

  /**
   * Resolves once no request is being handled (every one answered, or its client gone and its work
   * done): as on Proxmox VE, a request whose client disconnected (a killed or interrupted tofu) is
   * still carried out by the server. Rejects after `withinMs`.
   */
  async settled(withinMs = 60_000): Promise<void> {
    const until = Date.now() + withinMs;
    while (this.handling > 0) {
      if (Date.now() > until) throw new Error(`the simulator still handles ${this.handling} request(s) after ${withinMs} ms`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  private async serve(state: SimulatedInstance, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = (req.method ?? 'GET').toUpperCase();
    let url: URL;
    try {
      if ((req.url ?? '').length > MAX_URL) throw new Error('URL too long');
      url = new URL(req.url ?? '/', 'https://pve-sim');
      decodeURIComponent(url.pathname);
    } catch (e) {
      // PVE's pveproxy answers a request line it cannot parse with 400; the simulator never crashes on one.
      req.resume();
      send(res, 400, { data: null }, `Bad Request - ${(e as Error).message === 'URL too long' ? 'URI too long' : 'malformed URL'}`);
      return;
    }
    const isAdmin = url.pathname === '/_sim' || url.pathname.startsWith('/_sim/');
    const isApi = url.pathname.startsWith('/api2/json');
    const path = url.pathname.slice('/api2/json'.length) || '/';
    const isLogin = method === 'POST' && /^\/access\/ticket\/?$/.test(path);
    // Authentication comes before a single byte of the body is read, as in PVE's pveproxy
    // (proxmox/pve-http-server, src/PVE/APIServer/AnyEvent.pm, unshift_read_header: auth_handler
    // runs on the headers, then the body is read — an upload streamed to a file only after it):
    // an anonymous client can make the simulator neither buffer an upload nor parse a body.
    let authid: string | undefined;
    let record: RequestRecord | undefined;
    if (isApi) {
      record = { instance: state.name, method, path, status: 200 };
      this.requests.push(record);
      if (this.requests.length > MAX_REQUEST_RECORDS) this.requests.splice(0, this.requests.length - MAX_REQUEST_RECORDS);
      if (!isLogin) {
        try {
          const csrf = req.headers.csrfpreventiontoken;
          authid = state.authenticate(req.headers.authorization, req.headers.cookie, Array.isArray(csrf) ? csrf[0] : csrf, method);
          record.authid = authid;
        } catch (e) {
          const error = e instanceof PveError ? e : new PveError(401, 'authentication failure');
          record.status = error.status;
          refuseUnread(req, res, error.status, { data: null, message: `${error.message}\n` }, error.message);
          this.options.log?.(`${state.name} ${method} ${path} -> ${record.status} (not authenticated; body not read)`);
          return;
        }
      }
    } else if (isAdmin && req.headers.authorization !== `Bearer ${this.adminSecret}`) {
      refuseUnread(
        req,
        res,
        401,
        { error: 'the simulator admin API needs the header Authorization: Bearer <admin secret> (printed when the simulator starts)' },
        'authentication required',
      );
      return;
    }
    const limit = method === 'POST' && /\/storage\/[^/]+\/upload\/?$/.test(url.pathname) ? MAX_UPLOAD_BODY : MAX_BODY;
    let body: Buffer;
    try {
      body = await readBody(req, limit);
    } catch (e) {
      if (e instanceof BodyTooLarge) refuseUnread(req, res, 413, { data: null }, `Request Entity Too Large - request body exceeds ${limit} bytes`);
      return;
    }
    if (isAdmin) {
      this.admin(state, method, url, req.headers.authorization, body.toString('utf8'), res);
      return;
    }
    if (!isApi || !record) {
      send(res, 501, { data: null }, `Method '${method} ${url.pathname}' not implemented`);
      return;
    }
    const fault = this.faults.forRequest(state.name, method, path);
    if (fault.latencyMs) await new Promise((r) => setTimeout(r, fault.latencyMs));
    try {
      if (fault.error) throw new PveError(fault.error.status, fault.error.message);
      const input = parseInput(url, body, req.headers['content-type']);
      let data: unknown;
      if (isLogin) {
        // The one call without authentication: password login.
        data = login(state, input.params);
        record.authid = (data as { username: string }).username;
      } else {
        const match = findRoute(method, path);
        if (!match) throw new PveError(501, `Method '${method} /api2/json${path}' not implemented`);
        data = await match.handler({ inst: state, authid: authid!, params: input.params, arrays: input.arrays, upload: input.upload, at: match.at });
      }
      send(res, 200, { data: data ?? null });
    } catch (e) {
      const error = e instanceof PveError ? e : new PveError(500, (e as Error).message);
      record.status = error.status;
      send(res, error.status, { data: null, ...(error.errors ? { errors: error.errors } : {}), message: `${error.message}\n` }, error.message);
    }
    this.options.log?.(
      `${state.name} ${method} ${path}${url.search.length > 200 ? `${url.search.slice(0, 200)}…` : url.search} -> ${record.status}${record.authid ? ` (${record.authid})` : ''}`,
    );
  }

  private admin(state: SimulatedInstance, method: string, url: URL, authorization: string | undefined, body: string, res: ServerResponse): void {
    if (authorization !== `Bearer ${this.adminSecret}`) {
      send(
        res,
        401,
        { error: 'the simulator admin API needs the header Authorization: Bearer <admin secret> (printed when the simulator starts)' },
        'authentication required',
      );
      return;
    }
    try {
      const what = `${method} ${url.pathname}`;
      switch (what) {
        case 'GET /_sim/state':
          return send(res, 200, this.snapshot(state.name));
        case 'GET /_sim/vms':
          return send(
            res,
            200,
            this.listVms().filter((v) => v.instance === state.name),
          );
        case 'GET /_sim/routes':
          return send(res, 200, routeTemplates());
        case 'GET /_sim/faults':
          return send(res, 200, { ...this.faults.describe(), injected: this.faults.injected });
        case 'PUT /_sim/faults':
          this.faults.set(JSON.parse(body || '{}') as FaultSpec);
          return send(res, 200, this.faults.describe());
        case 'DELETE /_sim/faults':
          this.faults.clear();
          return send(res, 200, this.faults.describe());
        case 'POST /_sim/release-tasks':
          return send(res, 200, { released: state.releaseStalledTasks() });
        case 'GET /_sim/privileges': {
          const authid = url.searchParams.get('authid') ?? '';
          const path = url.searchParams.get('path') ?? '/';
          return send(res, 200, { authid, path, privileges: state.privileges(authid, path) });
        }
        default:
          return send(res, 404, {
            error: `no admin route ${what}; try GET /_sim/state, /_sim/vms, /_sim/routes, /_sim/faults, /_sim/privileges?authid=&path=`,
          });
      }
    } catch (e) {
      send(res, 400, { error: (e as Error).message });
    }
  }
}

const GiB = 1024 ** 3;

function vmView(s: SimulatedInstance, vm: Vm): SimVmView {
  const num = (key: string) => (vm.config.has(key) && /^\d+$/.test(vm.config.get(key)!) ? Number(vm.config.get(key)) : undefined);
  const disks: SimVmView['disks'] = [];
  const cdroms: SimVmView['cdroms'] = [];
  let bootstrap: SimVmView['bootstrap'];
  for (const [key, value] of [...vm.config].sort(([a], [b]) => a.localeCompare(b))) {
    if (!DRIVE_KEY.test(key)) continue;
    const props = parseProperties(value, 'file');
    const volid = props.head ?? '';
    if (props.pairs.some(([k, v]) => k === 'media' && v === 'cdrom')) {
      cdroms.push({ key, volid });
      const volume = s.findVolume(vm.node, volid);
      if (!bootstrap && volume?.data) {
        try {
          const files = cloudInitFiles(volume.data);
          bootstrap = {
            ...(files.userData !== undefined ? { userData: files.userData } : {}),
            ...(files.metaData !== undefined ? { metaData: files.metaData } : {}),
            ...(files.networkConfig !== undefined ? { networkConfig: files.networkConfig } : {}),
          };
        } catch {
          // Not an ISO9660 image: no bootstrap data.
        }
      }
    } else if (volid.includes(':')) {
      const volume = s.findVolume(vm.node, volid);
      disks.push({ key, storage: volid.split(':')[0], sizeGiB: (volume?.size ?? 0) / GiB });
    }
  }
  const ipConfig = Object.fromEntries([...vm.config].filter(([k]) => /^ipconfig\d+$/.test(k)).sort(([a], [b]) => a.localeCompare(b)));
  const uuid = /(?:^|,)uuid=([0-9a-fA-F-]{36})/.exec(vm.config.get('smbios1') ?? '')?.[1];
  const pool = s.poolOf(vm.vmid);
  const cores = num('cores');
  const sockets = num('sockets');
  const memoryMiB = num('memory');
  return {
    instance: s.name,
    vmid: vm.vmid,
    node: vm.node,
    ...(vm.config.has('name') ? { name: vm.config.get('name') } : {}),
    template: s.isTemplate(vm),
    status: vm.status,
    tags: (vm.config.get('tags') ?? '').split(';').filter(Boolean),
    ...(pool ? { pool } : {}),
    ...(cores !== undefined ? { cores } : {}),
    ...(sockets !== undefined ? { sockets } : {}),
    ...(memoryMiB !== undefined ? { memoryMiB } : {}),
    disks,
    ...(uuid ? { uuid } : {}),
    ...(vm.createdBy ? { createdBy: vm.createdBy } : {}),
    ...(vm.cloneOf !== undefined ? { cloneOf: vm.cloneOf } : {}),
    cdroms,
    ...(bootstrap ? { bootstrap } : {}),
    ...(Object.keys(ipConfig).length ? { ipConfig } : {}),
  };
}

/** `POST /access/ticket`: password login (PVE::API2::AccessControl create_ticket). */
function login(
  state: SimulatedInstance,
  params: Params,
): { username: string; ticket: string; CSRFPreventionToken: string; cap: Record<string, Record<string, number>> } {
  const username = params.username;
  const password = params.password;
  if (!username) badParams({ username: 'property is missing and it is not optional' });
  if (password === undefined) badParams({ password: 'property is missing and it is not optional' });
  const userid = params.realm && !username.includes('@') ? `${username}@${params.realm}` : username;
  const user = state.users.get(userid);
  const hash = Buffer.from(passwordHash(password));
  const ok = !!user?.passwordHash && timingSafeEqual(hash, Buffer.from(user.passwordHash)) && user.enable && (!user.expire || user.expire > Date.now() / 1000);
  // PVE answers every failed login the same way, after a delay, whatever the reason.
  if (!ok) throw new PveError(401, 'authentication failure');
  const issued = Date.now();
  const ticket = `PVE:${userid}:${Math.floor(issued / 1000)
    .toString(16)
    .toUpperCase()}::${randomBytes(192).toString('base64')}`;
  const csrf = `${Math.floor(issued / 1000)
    .toString(16)
    .toUpperCase()}:${randomBytes(32).toString('base64').replace(/=+$/, '')}`;
  state.tickets.set(ticket, { userid, csrf, issued });
  const cap = Object.fromEntries(
    ['/vms', '/storage', '/access', '/nodes', '/sdn', '/mapping'].map((p) => [p.slice(1), Object.fromEntries(state.privileges(userid, p).map((x) => [x, 1]))]),
  );
  return { username: userid, ticket, CSRFPreventionToken: csrf, cap };
}

const MAX_REQUEST_RECORDS = 100_000;
