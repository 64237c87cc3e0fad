/**
 * Persistent volumes (issue 38, docs/storage.md): the rules that relate a tenant's
 * `storage.classes` to the instances it runs on and to the other tenants.
 *
 * Why a volume storage is one tenant's alone: the Proxmox CSI plugin v0.19.1 deletes a volume with
 * `DELETE /nodes/{node}/storage/{storage}/content/{volume}` (go-proxmox v0.2.0
 * virtual_machine_disk.go DeleteVMDisk, called by pkg/csi/controller.go DeleteVolume), and Proxmox
 * VE asks Datastore.Allocate on `/storage/<sid>` for that (pve-storage PVE::API2::Storage::Content
 * delete, every volume but a VM's backup). Datastore.Allocate on a storage also passes
 * PVE::Storage::check_volume_access for every volume on it (src/PVE/Storage.pm: its first check),
 * and there is no ACL path below a storage. So the token that may delete its tenant's volumes
 * may read, attach and delete every volume of that storage: the storage must hold nothing of
 * anybody else — no other tenant's volumes, no VM disks (storage.disks), no images, no cloud-init ISOs.
 */
import type { Problem } from './problems';
import { possibleInstances } from './tenant-instances';
import { rulesOf, type LabRule } from './rule';
import type { Instance, Lab } from './schema';
import type { TenantStorageClass } from './storage-schema';

function volumeStorages(instance: Instance): string[] {
  const v = instance.storage?.volumes;
  // The rules also run on a description the schema refused (modules/config/lenient.ts): only what has the shape.
  return Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : [];
}

/** The storages a storage of `storage.volumes` may not be: what every tenant's machines use. */
function machineStorageClash(instance: Instance, sid: string): string | undefined {
  const s = instance.storage;
  if (!s) return undefined;
  if (sid === s.disks) return `storage.disks, where every tenant's VM disks are`;
  if (sid === s.images) return `storage.images, where the downloaded cloud images are`;
  if (s.cloudInit && sid.startsWith(`${s.cloudInit}-`))
    return `a cloud-init storage (${s.cloudInit}-<tenant>, storage.cloudInit), where a tenant's bootstrap ISOs are`;
  return undefined;
}

function checkStorage(lab: Lab): Problem[] {
  const problems: Problem[] = [];
  const instances = lab.proxmox?.instances ?? [];
  (instances as Instance[]).forEach((instance, ii) => {
    volumeStorages(instance).forEach((sid, k) => {
      const clash = machineStorageClash(instance, sid);
      if (clash)
        problems.push({
          rule: 'storage.volumes-is-machine-storage',
          path: ['proxmox', 'instances', ii, 'storage', 'volumes', k],
          message:
            `storage ${sid} of instance ${instance.name} is ${clash}: the token that deletes a tenant's volumes needs Datastore.Allocate on it, ` +
            'which reaches every volume on that storage (Proxmox has no ACL below a storage)',
          value: sid,
          fix: `list a storage that holds only tenants' volumes (one tenant's per storage), e.g. a thin pool of its own, instead of ${sid}`,
        });
    });
  });

  // storage -> instance -> the first tenant (and where it names it) that uses it there.
  const owners = new Map<string, { tenant: string; path: (string | number)[] }>();
  (lab.tenants ?? []).forEach((tenant, ti) => {
    const raw: unknown = tenant.storage?.classes;
    // Kept at their index (the problem paths), undefined where the schema refused the entry.
    const classes = (Array.isArray(raw) ? raw : []).map((c: unknown) =>
      typeof c === 'object' && c !== null && typeof (c as TenantStorageClass).name === 'string' && typeof (c as TenantStorageClass).storage === 'string'
        ? (c as TenantStorageClass)
        : undefined,
    );
    const base = ['tenants', ti, 'storage', 'classes'];
    const seen = new Map<string, number>();
    classes.forEach((c, ci) => {
      if (!c) return;
      if (seen.has(c.name))
        problems.push({
          rule: 'storage.class-name-twice',
          path: [...base, ci, 'name'],
          message: `tenant ${tenant.name} has two storage classes named ${c.name} (classes ${seen.get(c.name)} and ${ci})`,
          value: c.name,
          fix: 'give each storage class of the tenant its own name',
        });
      else seen.set(c.name, ci);
    });
    const defaults = classes.map((c, ci) => ({ c, ci })).filter((d): d is { c: TenantStorageClass; ci: number } => d.c?.default === true);
    if (defaults.length > 1)
      for (const { c, ci } of defaults.slice(1))
        problems.push({
          rule: 'storage.default-twice',
          path: [...base, ci, 'default'],
          message: `tenant ${tenant.name} marks ${defaults.length} storage classes as default (${defaults.map((d) => d.c.name).join(', ')}); Kubernetes then gives a PVC without a class the newest of them`,
          value: c.default,
          fix: `mark one class default (e.g. ${defaults[0].c.name}) and remove default from the others`,
        });
    const on = possibleInstances(lab, tenant)
      .map((name) => (instances as Instance[]).find((i) => i.name === name))
      .filter((i): i is Instance => i !== undefined);
    classes.forEach((c, ci) => {
      if (!c) return;
      const path = [...base, ci, 'storage'];
      const missing = on.filter((i) => !volumeStorages(i).includes(c.storage));
      if (missing.length > 0)
        problems.push({
          rule: 'storage.unknown-storage',
          path,
          message:
            `storage class ${c.name} of tenant ${tenant.name} names storage ${c.storage}, which ${missing.map((i) => `instance ${i.name} does not list in storage.volumes (${volumeStorages(i).join(', ') || 'none'})`).join('; ')}: ` +
            "the tenant's volumes may be created on every instance its machines run on",
          value: c.storage,
          fix: `add ${c.storage} to storage.volumes of ${missing.map((i) => i.name).join(', ')} (a storage that exists there and holds nothing else), or name a storage listed there`,
        });
      for (const instance of on) {
        if (!volumeStorages(instance).includes(c.storage)) continue;
        const key = `${instance.name}\0${c.storage}`;
        const owner = owners.get(key);
        if (!owner) owners.set(key, { tenant: tenant.name, path });
        else if (owner.tenant !== tenant.name)
          problems.push({
            rule: 'storage.shared-between-tenants',
            path,
            message:
              `storage ${c.storage} of instance ${instance.name} is named by tenants ${owner.tenant} and ${tenant.name}: a tenant's token deletes its volumes with Datastore.Allocate on the storage, ` +
              "which would let it read, attach and delete the other tenant's volumes",
            value: c.storage,
            fix: `give tenant ${tenant.name} a volume storage of its own on ${instance.name} (add it to storage.volumes there)`,
          });
      }
    });
  });
  return problems;
}

export const STORAGE_RULES: readonly LabRule[] = rulesOf(checkStorage, [
  {
    id: 'storage.volumes-is-machine-storage',
    refuses: "a volume storage (storage.volumes) that is the instance's storage.disks, storage.images or a cloud-init storage",
    fix: "list storages that hold only one tenant's volumes",
  },
  { id: 'storage.class-name-twice', refuses: 'two storage classes of one tenant with the same name', fix: 'give each storage class its own name' },
  { id: 'storage.default-twice', refuses: 'more than one default storage class in one tenant', fix: 'mark at most one class default' },
  {
    id: 'storage.unknown-storage',
    refuses: "a storage class naming a storage that an instance the tenant's machines may run on does not list in storage.volumes",
    fix: 'add the storage to storage.volumes of those instances, or name one listed there',
  },
  {
    id: 'storage.shared-between-tenants',
    refuses: 'one volume storage of an instance named by the storage classes of two tenants',
    fix: 'give each tenant a volume storage of its own',
  },
]);
