/**
 * The Proxmox VE API simulator: several instances (clusters), each on its own loopback https port
 * with its own state, serving `/api2/json/...` like PVE and a small admin API under `/_sim/`
 * (state, faults, permission checks) for tests and curious people. Node's http(s) module only.
 */
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { findRoute, routeTemplates, setFingerprint, type Params } from './api';
import { PveError } from './errors';
import { FaultPlan, type FaultSpec } from './faults';
import { SimulatedInstance, type InstanceSpec, type RemoteImage } from './instance';
import { selfSignedCertificate } from './tls';

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
  vms: { vmid: number; node: string; name?: string; template: boolean; tags: string[]; pool?: string; status: string; lock?: string; config: Record<string, string> }[];
  volumes: { volid: string; node?: string; content: string; format: string; size: number; vmid?: number }[];
  tasks: { upid: string; type: string; status: string; exitstatus?: string }[];
}

export class PveSimulator {
  readonly faults: FaultPlan;
  readonly requests: RequestRecord[] = [];
  private readonly instances = new Map<string, { state: SimulatedInstance; server: Server; port: number }>();
  private readonly host: string;

  private constructor(private readonly options: SimulatorOptions) {
    this.faults = new FaultPlan(options.faults);
    this.host = options.host ?? '127.0.0.1';
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
          remoteImages: options.remoteImages ?? {},
          faults: sim.faults,
        });
        const server = createServer({ key: tls.key, cert: tls.cert }, (req, res) => void sim.serve(state, req, res));
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

  snapshot(name: string): InstanceSnapshot {
    const s = this.instance(name);
    return {
      name: s.name,
      version: s.version,
      nodes: [...s.nodes.keys()].sort(),
      users: [...s.users.values()].sort((a, b) => a.userid.localeCompare(b.userid)).map((u) => ({ userid: u.userid, enable: u.enable, ...(u.comment ? { comment: u.comment } : {}), groups: u.groups })),
      tokens: [...s.tokens.values()].sort((a, b) => a.fullid.localeCompare(b.fullid)).map((t) => ({ tokenid: t.fullid, privsep: t.privsep, ...(t.comment ? { comment: t.comment } : {}) })),
      roles: Object.fromEntries([...s.customRoles].sort(([a], [b]) => a.localeCompare(b)).map(([id, p]) => [id, [...p].sort()])),
      acl: s.acl.map((e) => ({ ...e })).sort((a, b) => a.path.localeCompare(b.path) || a.ugid.localeCompare(b.ugid) || a.roleid.localeCompare(b.roleid)),
      pools: [...s.pools.values()].sort((a, b) => a.poolid.localeCompare(b.poolid)).map((p) => ({ poolid: p.poolid, ...(p.comment ? { comment: p.comment } : {}), vms: [...p.vms].sort((a, b) => a - b), storage: [...p.storage].sort() })),
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
          config: Object.fromEntries([...vm.config].sort(([a], [b]) => a.localeCompare(b))),
        })),
      volumes: s.volumes
        .map((v) => ({ volid: v.volid, ...(v.node ? { node: v.node } : {}), content: v.content, format: v.format, size: v.size, ...(v.vmid !== undefined ? { vmid: v.vmid } : {}) }))
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

  private async serve(state: SimulatedInstance, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'https://pve-sim');
    const method = (req.method ?? 'GET').toUpperCase();
    let body = '';
    try {
      body = await readBody(req);
    } catch {
      return;
    }
    if (url.pathname.startsWith('/_sim/')) {
      this.admin(state, method, url, body, res);
      return;
    }
    if (!url.pathname.startsWith('/api2/json')) {
      send(res, 501, { data: null }, `Method '${method} ${url.pathname}' not implemented`);
      return;
    }
    const path = url.pathname.slice('/api2/json'.length) || '/';
    const record: RequestRecord = { instance: state.name, method, path, status: 200 };
    this.requests.push(record);
    const fault = this.faults.forRequest(state.name, method, path);
    if (fault.latencyMs) await new Promise((r) => setTimeout(r, fault.latencyMs));
    try {
      if (fault.error) throw new PveError(fault.error.status, fault.error.message);
      const authid = state.authenticate(req.headers.authorization);
      record.authid = authid;
      const match = findRoute(method, path);
      if (!match) throw new PveError(501, `Method '${method} /api2/json${path}' not implemented`);
      const params = { ...Object.fromEntries(url.searchParams), ...parseBody(body, req.headers['content-type']) };
      const data = match.handler({ inst: state, authid, params, at: match.at });
      send(res, 200, { data: data ?? null });
    } catch (e) {
      const error = e instanceof PveError ? e : new PveError(500, (e as Error).message);
      record.status = error.status;
      send(res, error.status, { data: null, ...(error.errors ? { errors: error.errors } : {}), message: `${error.message}\n` }, error.message);
    }
    this.options.log?.(`${state.name} ${method} ${path}${url.search} -> ${record.status}${record.authid ? ` (${record.authid})` : ''}`);
  }

  private admin(state: SimulatedInstance, method: string, url: URL, body: string, res: ServerResponse): void {
    try {
      const what = `${method} ${url.pathname}`;
      switch (what) {
        case 'GET /_sim/state':
          return send(res, 200, this.snapshot(state.name));
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
          return send(res, 404, { error: `no admin route ${what}; try GET /_sim/state, /_sim/routes, /_sim/faults, /_sim/privileges?authid=&path=` });
      }
    } catch (e) {
      send(res, 400, { error: (e as Error).message });
    }
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function parseBody(body: string, contentType: string | undefined): Params {
  if (!body) return {};
  if (contentType?.includes('application/json')) {
    const json = JSON.parse(body) as Record<string, unknown>;
    return Object.fromEntries(Object.entries(json).map(([k, v]) => [k, typeof v === 'boolean' ? (v ? '1' : '0') : String(v)]));
  }
  return Object.fromEntries(new URLSearchParams(body));
}

function send(res: ServerResponse, status: number, body: unknown, reason?: string): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  if (reason) res.statusMessage = reason.replace(/[\r\n]+/g, ' ').slice(0, 500);
  res.setHeader('Content-Type', 'application/json;charset=UTF-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.setHeader('Server', 'pve-api-daemon/3.0 (pvekaas simulator)');
  res.end(text);
}
