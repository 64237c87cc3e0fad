/**
 * Persistent volumes for tenants on Proxmox storage (issue 38, docs/storage.md): the shapes, with
 * the rest of the schema (modules/config/schema.ts imports them). What relates several fields (a
 * class naming a storage its instances do not list, two defaults, a storage two tenants name) is
 * a rule of modules/config/storage-rules.ts.
 */
import { z } from 'zod';

/** A Proxmox storage id (pve-storage PVE::JSONSchema `pve-storage-id`; the schema's own pattern). */
const PVE_STORAGE = /^[a-z][a-z0-9._-]*[a-z0-9]$/;
/** A Kubernetes object name (DNS-1123 subdomain), at most 63 characters here: a StorageClass name is also a label value. */
const CLASS_NAME = /^[a-z0-9]([-a-z0-9.]{0,61}[a-z0-9])?$/;

export const storageIdOf = (what: string) =>
  z.string().regex(PVE_STORAGE, {
    error: `${what} must be a Proxmox storage id: a lowercase letter first, then lowercase letters, digits, '.', '-' or '_' (no '/')`,
  });

/**
 * `proxmox.instances[].storage.volumes`: the storages of an instance that may hold tenants'
 * persistent volumes. Each is one tenant's alone (rule storage.shared-between-tenants): deleting a
 * volume takes Datastore.Allocate on its storage (pve-storage PVE::API2::Storage::Content delete),
 * which is every volume of that storage.
 */
export const instanceVolumeStoragesSchema = z
  .array(storageIdOf('storage.volumes[]'))
  .optional()
  .describe(
    "storages of this instance that may hold tenants' persistent volumes (block storage: LVM-thin, ZFS; each one tenant's alone, named by that tenant's storage.classes)",
  );

export const reclaimPolicies = ['Delete', 'Retain'] as const;

export const storageClassSchema = z.strictObject({
  name: z
    .string()
    .regex(CLASS_NAME, { error: 'a storage class name is a Kubernetes object name: lowercase letters, digits, - and ., at most 63 characters' })
    .describe('the StorageClass name in the tenant cluster'),
  storage: storageIdOf('storage').describe("the Proxmox storage its volumes go on: one of storage.volumes of every instance the tenant's machines run on"),
  default: z.boolean({ error: 'default is true or false' }).optional().describe('the default StorageClass of the tenant cluster (at most one)'),
  reclaimPolicy: z
    .enum(reclaimPolicies, { error: 'reclaimPolicy is Delete or Retain' })
    .default('Delete')
    .describe('Delete: the Proxmox disk goes with the PVC (and with the tenant); Retain: it stays for an administrator'),
});

/** `tenants[].storage`: opt-in persistent volumes (the Proxmox CSI plugin, its controller in the management cluster). */
export const tenantStorageSchema = z
  .strictObject({
    classes: z.array(storageClassSchema).min(1, { error: 'storage.classes needs at least one class' }).describe('the StorageClasses of the tenant cluster'),
  })
  .optional()
  .describe(
    "persistent volumes on Proxmox storage: the CSI controller runs in the tenant's namespace of the management cluster with the tenant's token; the tenant cluster gets the node plugin and these StorageClasses, and no Proxmox credential (docs/storage.md)",
  );

export type TenantStorage = NonNullable<z.output<typeof tenantStorageSchema>>;
export type TenantStorageClass = TenantStorage['classes'][number];
