/**
 * The review's section on persistent volumes (issue 38, docs/storage.md): from the two
 * descriptions, each tenant's storage classes added, removed or changed (storage, default, reclaim
 * policy), and each instance's volume storages. A class removed, or one whose storage changes,
 * is a warning: its StorageClass goes (or is replaced) in the tenant cluster, and the tenant's
 * token loses the grant on a storage no class names any more — its volumes there can no longer be
 * attached or deleted by the tenant's controller.
 */
import type { Lab } from '../config/schema';
import type { TenantStorageClass } from '../config/storage-schema';
import type { ReviewInput, ReviewSection } from './index';

const classesOf = (lab: Lab) => new Map(lab.tenants.map((t) => [t.name, new Map((t.storage?.classes ?? []).map((c) => [c.name, c]))]));

const describe = (c: TenantStorageClass) => `storage \`${c.storage}\`, ${c.reclaimPolicy ?? 'Delete'}${c.default ? ', default' : ''}`;

/** Review section: storage classes and volume storages that change. */
export const storageSection: ReviewSection = (input: ReviewInput) => {
  const was = classesOf(input.before.lab);
  const is = classesOf(input.after.lab);
  const rows: string[] = [];
  const warnings: string[] = [];
  for (const tenant of [...new Set([...was.keys(), ...is.keys()])].sort()) {
    const before = was.get(tenant) ?? new Map<string, TenantStorageClass>();
    const after = is.get(tenant) ?? new Map<string, TenantStorageClass>();
    for (const name of [...new Set([...before.keys(), ...after.keys()])].sort()) {
      const a = before.get(name);
      const b = after.get(name);
      if (a && b && describe(a) === describe(b)) continue;
      rows.push(`| ${tenant} | \`${name}\` | ${a ? describe(a) : '—'} | ${b ? describe(b) : '—'} |`);
      if (a && !b)
        warnings.push(
          `tenant ${tenant}: storage class ${name} removed; volumes on \`${a.storage}\` stay, and its controller may no longer reach them if no class names the storage`,
        );
      else if (a && b && a.storage !== b.storage)
        warnings.push(
          `tenant ${tenant}: storage class ${name} moves from \`${a.storage}\` to \`${b.storage}\`: existing volumes stay on \`${a.storage}\`; new ones go to \`${b.storage}\``,
        );
    }
  }
  const volumes = (lab: Lab) => new Map(lab.proxmox.instances.map((i) => [i.name, [...(i.storage.volumes ?? [])].sort().join(', ')]));
  const vb = volumes(input.before.lab);
  const va = volumes(input.after.lab);
  const lines: string[] = [];
  for (const instance of [...new Set([...vb.keys(), ...va.keys()])].sort()) {
    if ((vb.get(instance) ?? '') === (va.get(instance) ?? '')) continue;
    lines.push(`- instance ${instance}: volume storages ${vb.get(instance) || 'none'} → ${va.get(instance) || 'none'}.`);
  }
  if (rows.length === 0 && lines.length === 0) return undefined;
  return {
    title: 'Storage: persistent volume classes',
    lines: [...lines, ...(rows.length > 0 ? [...(lines.length > 0 ? [''] : []), '| tenant | class | before | after |', '|---|---|---|---|', ...rows] : [])],
    warnings,
  };
};
