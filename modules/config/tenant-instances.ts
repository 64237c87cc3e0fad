/**
 * The instances a tenant really puts machines on, as far as the description alone tells: those its
 * pools (and the pools of `previous`) are pinned to, and, when any pool is not pinned, the instances
 * placement may choose for it (the first instance for Default, `placement.instances` or all for the
 * other modes). A tenant whose every pool is pinned needs a template and a node network on the
 * pinned instances only (issue 43, finding 4: a tenant pinned to west was asked for both on east).
 */
import type { Lab, Tenant } from './schema';

/** Instance names, in description order. */
export function possibleInstances(lab: Lab, tenant: Tenant): string[] {
  const names = lab.proxmox.instances.map((i) => i.name);
  const pools = [...tenant.pools, ...(tenant.previous?.pools ?? [])];
  const pinned = new Set(pools.map((p) => p.instance).filter((n): n is string => n !== undefined));
  const unpinned = pools.some((p) => p.instance === undefined);
  const eligible = !unpinned
    ? []
    : tenant.placement.mode === 'Default'
      ? names.slice(0, 1)
      : names.filter((n) => (tenant.placement.instances ?? names).includes(n));
  return names.filter((n) => eligible.includes(n) || pinned.has(n));
}
