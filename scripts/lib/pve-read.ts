/**
 * Read-only Proxmox VE API reads for the drift audit (`GET /cluster/resources?type=vm` and
 * `?type=node`) and for deploy's recovery after an interrupt (`readInventory`, and its one write,
 * `deleteToken`), with an API token.
 * The token is sent in the Authorization header only; errors name the instance and the endpoint,
 * never the token.
 */
import { request } from 'node:https';
import type { ObservedInstance, ResourceNode, ResourceVm } from '../../modules/foresight/audit';
import type { ProxmoxInventory } from '../../modules/foresight/recover';

export interface ReadTarget {
  instance: string;
  /** e.g. https://pmox-txl.lab.example:8006/ */
  endpoint: string;
  /** `user@realm!tokenname=secret`, for a token with read access (PVEAuditor on /). */
  token: string;
  /** Skip TLS verification (the instance's `insecure`). */
  insecure: boolean;
  /** The whole answer of each request must arrive within this time. @default 30000 */
  timeoutMs?: number;
}

/** The largest answer read: `GET /cluster/resources` of 10,000 VMs is about 4 MiB. */
export const MAX_ANSWER_BYTES = 32 * 1024 * 1024;
/** How deep an answer may nest: `/cluster/resources` is a list of flat objects inside `data` (3 levels). */
export const MAX_ANSWER_DEPTH = 32;

/**
 * How deep JSON text nests (brackets outside strings), in one pass and without parsing it: an
 * answer of millions of nested `[` under the size cap made JSON.parse build millions of arrays
 * (gigabytes) before anything looked at it.
 */
export function jsonDepth(text: string, stopAt = Infinity): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) {
        max = depth;
        if (max > stopAt) return max;
      }
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return max;
}

/**
 * One GET, bounded three ways: `timeoutMs` for the whole answer (an endpoint that trickles a byte at
 * a time never trips an idle timeout, so this is a deadline from the start), `MAX_ANSWER_BYTES`,
 * and `MAX_ANSWER_DEPTH` checked before the text is parsed.
 */
function getJson(target: ReadTarget, path: string, method: 'GET' | 'DELETE' = 'GET'): Promise<unknown> {
  const url = new URL(`api2/json${path}`, target.endpoint.endsWith('/') ? target.endpoint : `${target.endpoint}/`);
  const where = `${method} ${url.origin}${url.pathname}${url.search}`;
  const timeoutMs = target.timeoutMs ?? 30000;
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      fn();
    };
    const req = request(url, { method, rejectUnauthorized: !target.insecure, headers: { Authorization: `PVEAPIToken=${target.token}` } }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > MAX_ANSWER_BYTES) {
          settle(() => reject(new Error(`${where} answered more than ${MAX_ANSWER_BYTES / 1024 / 1024} MiB; a cluster's resources are a few MiB at most`)));
          req.destroy();
          return;
        }
        chunks.push(c);
      });
      res.on('end', () => {
        if (res.statusCode !== 200) {
          settle(() => reject(new Error(`${where} answered ${res.statusCode} ${(res.statusMessage ?? '').slice(0, 200)}`.trim())));
          return;
        }
        const text = Buffer.concat(chunks).toString('utf8');
        if (jsonDepth(text, MAX_ANSWER_DEPTH) > MAX_ANSWER_DEPTH) {
          settle(() =>
            reject(new Error(`${where} answered JSON nested more than ${MAX_ANSWER_DEPTH} levels deep; Proxmox VE's answer is 3 levels (not read)`)),
          );
          return;
        }
        try {
          const data = (JSON.parse(text) as { data: unknown }).data;
          settle(() => resolve(data));
        } catch {
          settle(() => reject(new Error(`${where} did not answer JSON`)));
        }
      });
      res.on('error', (e) => settle(() => reject(new Error(`${url.origin}: ${e.message}`))));
    });
    const deadline = setTimeout(() => {
      settle(() => reject(new Error(`no complete answer from ${url.origin} in ${timeoutMs / 1000} s (${where})`)));
      req.destroy();
    }, timeoutMs);
    req.on('error', (e) => settle(() => reject(new Error(`${url.origin}: ${e.message}`))));
    req.end();
  });
}

export async function readInstance(target: ReadTarget): Promise<ObservedInstance> {
  const [vms, nodes] = await Promise.all([getJson(target, '/cluster/resources?type=vm'), getJson(target, '/cluster/resources?type=node')]);
  const observed = {
    instance: target.instance,
    vms: (Array.isArray(vms) ? vms : []).filter((r: { type?: string }) => r?.type === 'qemu') as ResourceVm[],
    nodes: (Array.isArray(nodes) ? nodes : []).filter((r: { type?: string }) => r?.type === 'node') as ResourceNode[],
  };
  // PVE leaves out what a token may not see: no node at all means missing rights, not a cluster without nodes.
  if (observed.nodes.length === 0) {
    throw new Error(
      'the token sees no node, so every comparison would be wrong: give the user and its token the PVEAuditor role on / (VM.Audit and Sys.Audit)',
    );
  }
  return observed;
}

/** What `readInventory` needs to look at beyond the cluster-wide lists. */
export interface InventoryScope {
  /** Users whose tokens to list (`GET /access/users/{userid}/token`), those that exist. */
  tokenUsers: string[];
  /** Storages to list the content of, by node (`GET /nodes/{node}/storage/{storage}/content`). */
  fileStores: { node: string; storage: string }[];
}

/**
 * Everything of an instance that deploy's recovery (scripts/lib/deploy-recover.ts) compares with a
 * stack's state: users, tokens of the given users, ACL entries, roles, pools, storages, VMs (by id)
 * and the files on the given storages. Read with the administrator token deploy applies with.
 */
export async function readInventory(target: ReadTarget, scope: InventoryScope): Promise<ProxmoxInventory> {
  const list = async (path: string): Promise<Record<string, unknown>[]> => {
    const data = await getJson(target, path);
    return Array.isArray(data) ? (data.filter((x) => x && typeof x === 'object') as Record<string, unknown>[]) : [];
  };
  const text = (v: unknown) => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');
  const [users, acl, roles, pools, storages, vms] = await Promise.all([
    list('/access/users'),
    list('/access/acl'),
    list('/access/roles'),
    list('/pools'),
    list('/storage'),
    list('/cluster/resources?type=vm'),
  ]);
  const userIds = users.map((u) => text(u.userid)).filter(Boolean);
  const tokens = (
    await Promise.all(
      [...new Set(scope.tokenUsers)]
        .filter((u) => userIds.includes(u))
        .map(async (u) => (await list(`/access/users/${encodeURIComponent(u)}/token`)).map((t) => `${u}!${text(t.tokenid)}`)),
    )
  ).flat();
  const storageIds = storages.map((s) => text(s.storage)).filter(Boolean);
  const files = (
    await Promise.all(
      scope.fileStores
        .filter((f, i, all) => storageIds.includes(f.storage) && all.findIndex((g) => g.node === f.node && g.storage === f.storage) === i)
        .map(async (f) =>
          (await list(`/nodes/${encodeURIComponent(f.node)}/storage/${encodeURIComponent(f.storage)}/content`)).map((c) => ({
            node: f.node,
            volid: text(c.volid),
          })),
        ),
    )
  ).flat();
  return {
    users: userIds,
    tokens,
    acl: acl.map((e) => ({ path: text(e.path), type: text(e.type), ugid: text(e.ugid), roleid: text(e.roleid) })),
    roles: roles.map((r) => text(r.roleid)).filter(Boolean),
    pools: pools.map((p) => text(p.poolid)).filter(Boolean),
    storages: storageIds,
    vms: vms.filter((v) => v.type === 'qemu').map((v) => ({ vmid: Number(v.vmid), node: text(v.node) })),
    files,
  };
}

/**
 * The one write: deletes an API token (`DELETE /access/users/{userid}/token/{tokenid}`; PVE removes
 * its ACL entries with it). Recovery deletes a token an interrupted run created, whose secret no
 * one can read back, so that the apply creates it anew.
 */
export async function deleteToken(target: ReadTarget, fullTokenId: string): Promise<void> {
  const bang = fullTokenId.indexOf('!');
  if (bang <= 0) throw new Error(`${fullTokenId}: not a token id (user@realm!name)`);
  await getJson(target, `/access/users/${encodeURIComponent(fullTokenId.slice(0, bang))}/token/${encodeURIComponent(fullTokenId.slice(bang + 1))}`, 'DELETE');
}
