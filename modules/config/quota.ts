/**
 * Tenant quotas: the vCPUs, memory and (when the quota names it) machine disk a tenant's pools
 * reserve, every pool at its maximum (as placement reserves them), must stay within the tenant's
 * optional `quota`. Persistent volumes are not counted here: each volume storage is one tenant's
 * alone (rule storage.shared-between-tenants), so the storage's own size bounds them. A tenant over quota
 * gets one problem at the pool that takes it over (the first, in description order), listing
 * every pool's share so the fix can be chosen.
 */
import { machinesAtMost, poolScale } from './scale';
import type { Lab } from './schema';
import type { Problem } from './problems';
import type { LabRule } from './rule';

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function checkQuotas(lab: Lab): Problem[] {
  const problems: Problem[] = [];
  lab.tenants.forEach((tenant, t) => {
    const quota = tenant.quota;
    if (!quota) return;
    let cpu = 0;
    let memoryMiB = 0;
    let diskGiB = 0;
    const diskOver = () => quota.diskGiB !== undefined && diskGiB > quota.diskGiB;
    let over: number | undefined;
    const shares: string[] = [];
    tenant.pools.forEach((pool, p) => {
      const machines = machinesAtMost(poolScale(pool));
      cpu += machines * pool.size.cpu;
      memoryMiB += machines * pool.size.memoryMiB;
      diskGiB += machines * pool.size.diskGiB;
      const disk = quota.diskGiB !== undefined ? ` / ${pool.size.diskGiB} GiB disk` : '';
      shares.push(
        `${pool.name} ${plural(machines, 'machine')} × ${pool.size.cpu} cpu / ${pool.size.memoryMiB} MiB${disk}${pool.autoscaling ? ' (autoscaling max)' : ''}`,
      );
      if (over === undefined && (cpu > quota.cpu || memoryMiB > quota.memoryMiB || diskOver())) over = p;
    });
    if (over === undefined) return;
    const pool = tenant.pools[over];
    const exceeded = [
      ...(cpu > quota.cpu ? [`${cpu} cpu (quota ${quota.cpu})`] : []),
      ...(memoryMiB > quota.memoryMiB ? [`${memoryMiB} MiB memory (quota ${quota.memoryMiB})`] : []),
      ...(diskOver() ? [`${diskGiB} GiB of machine disks (quota ${quota.diskGiB})`] : []),
    ];
    const disk = quota.diskGiB !== undefined ? `, diskGiB: ${Math.max(diskGiB, quota.diskGiB)}` : '';
    problems.push({
      path: ['tenants', t, 'pools', over],
      message:
        `pool ${pool.name} takes tenant ${tenant.name} over its quota: its pools reserve ${exceeded.join(' and ')}, ` +
        `every pool at its max (${shares.join(', ')})`,
      fix:
        `make pool ${pool.name} (or another pool) smaller, or raise tenants[${t}].quota to at least ` +
        `{ cpu: ${Math.max(cpu, quota.cpu)}, memoryMiB: ${Math.max(memoryMiB, quota.memoryMiB)}${disk} }`,
    });
  });
  return problems;
}

export const QUOTA_RULES: readonly LabRule[] = [
  {
    id: 'tenant.over-quota',
    refuses: "pools that reserve more vCPUs, memory or machine disk than the tenant's quota, every pool at its maximum",
    fix: "make a pool smaller, or raise the tenant's quota",
    check: checkQuotas,
  },
];
