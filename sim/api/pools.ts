/**
 * Resource pools (`/pools`).
 */
import { badParams, fail } from '../errors';
import type { SimulatedInstance, Vm } from '../instance';
import { removeAclEntries } from './access';
import { vmResource } from './cluster';
import { flag, list, nonEmpty, required, type AddRoute, type Call } from './router';

const POOL_ID = /^[A-Za-z0-9.\-_]+(\/[A-Za-z0-9.\-_]+){0,2}$/;

export function pool(inst: SimulatedInstance, poolid: string) {
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
  const storage = [...p.storage]
    .sort()
    .flatMap((s) => [...inst.nodes.keys()].sort().map((node) => ({ id: `storage/${node}/${s}`, type: 'storage', storage: s, node })));
  return [...vms, ...storage];
}

function poolDetail(inst: SimulatedInstance, authid: string, poolid: string) {
  const p = pool(inst, poolid);
  inst.require(authid, `/pool/${poolid}`, ['Pool.Audit']);
  return { poolid, ...nonEmpty({ comment: p.comment }), members: poolMembers(inst, p) };
}

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

function deletePool({ inst, authid }: Call, poolid: string): null {
  const p = pool(inst, poolid);
  inst.require(authid, `/pool/${poolid}`, ['Pool.Allocate']);
  if (p.vms.size > 0 || p.storage.size > 0) fail(`delete pool failed: pool '${poolid}' is not empty`);
  if ([...inst.pools.keys()].some((id) => id.startsWith(`${poolid}/`))) fail(`delete pool failed: pool '${poolid}' is not empty (it has child pools)`);
  inst.pools.delete(poolid);
  removeAclEntries(inst, (e) => e.path === `/pool/${poolid}` || e.path.startsWith(`/pool/${poolid}/`));
  return null;
}

export function registerPools(route: AddRoute): void {
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
    // pve-poolid: nested pools (PVE 8.1) `parent/child`, at most three levels.
    if (!POOL_ID.test(poolid)) badParams({ poolid: `invalid format - value does not look like a valid pool ID` });
    inst.require(authid, `/pool/${poolid}`, ['Pool.Allocate']);
    if (inst.pools.has(poolid)) fail(`pool '${poolid}' already exists`);
    const parent = poolid.includes('/') ? poolid.slice(0, poolid.lastIndexOf('/')) : undefined;
    if (parent && !inst.pools.has(parent)) fail(`parent '${parent}' does not exist`);
    inst.pools.set(poolid, { poolid, comment: params.comment, vms: new Set(), storage: new Set() });
    return null;
  });

  route('PUT', '/pools', (call) => updatePool(call, required(call.params, 'poolid')));
  route('PUT', '/pools/{poolid}', (call) => updatePool(call, call.at.poolid));

  route('DELETE', '/pools', (call) => deletePool(call, required(call.params, 'poolid')));
  route('DELETE', '/pools/{poolid}', (call) => deletePool(call, call.at.poolid));
}
