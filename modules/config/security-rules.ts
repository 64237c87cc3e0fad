/**
 * Rules about what the credentials pvekaas creates can reach (see docs/proxmox.md, "The privileges
 * CAPMOX gets"). CAPMOX uploads each machine's cloud-init ISO and deletes it once the machine is
 * up; Proxmox asks `Datastore.Allocate` on the storage to delete a file, and that privilege
 * reaches every file on the storage. So the cloud-init storage must hold nothing else: not the
 * downloaded node images, not the VM disks.
 *
 * Nor may it be one of Proxmox VE's default storages: `local` (`/var/lib/vz`) holds the node's ISO
 * images, container templates, backups and snippets (hook scripts), `local-lvm`/`local-zfs` its VM
 * disks — a tenant token's Datastore.Allocate there would reach all of them.
 *
 * The templates pool must not be a tenant's pool (`<pools.vms>-<tenant>`): that tenant's token has
 * VM.* privileges on its own pool, so it could change or delete every template of the instance.
 *
 * Written defensively: it also runs on a description that failed the schema (see load.ts).
 */
import type { Problem } from './problems';
import type { Lab } from './schema';

/** Proxmox VE's default storages of a node (pve-manager's installer: `local` dir, `local-lvm` or `local-zfs`). */
const PVE_DEFAULT_STORAGES = new Set(['local', 'local-lvm', 'local-zfs']);

export function checkSecurityRules(lab: Lab): Problem[] {
  const problems: Problem[] = [];
  const instances = Array.isArray(lab?.proxmox?.instances) ? lab.proxmox.instances : [];
  const tenants = (Array.isArray(lab?.tenants) ? lab.tenants : []).map((t) => t?.name).filter((n): n is string => typeof n === 'string');
  instances.forEach((instance, ii) => {
    const pools = instance?.pools;
    if (pools && typeof pools.templates === 'string' && typeof pools.vms === 'string') {
      const owner = tenants.find((t) => `${pools.vms}-${t}` === pools.templates);
      if (owner !== undefined) {
        problems.push({
          path: ['proxmox', 'instances', ii, 'pools', 'templates'],
          message: `the templates pool is tenant ${owner}'s own pool (${pools.vms}-${owner}): its CAPMOX token has VM privileges on that pool, so it could change or delete every template of the instance`,
          value: pools.templates,
          fix: 'give the templates a pool of their own, e.g. pools.templates: templates (the default)',
        });
      }
    }
    const storage = instance?.storage;
    if (storage && typeof storage.cloudInit === 'string' && PVE_DEFAULT_STORAGES.has(storage.cloudInit) && storage.images !== storage.cloudInit && storage.disks !== storage.cloudInit) {
      problems.push({
        path: ['proxmox', 'instances', ii, 'storage', 'cloudInit'],
        message:
          `${storage.cloudInit} is a default storage of every Proxmox VE node (${storage.cloudInit === 'local' ? "/var/lib/vz: the node's ISO images, container templates, backups and snippets" : "the node's VM disks"}): ` +
          "CAPMOX's cloud-init ISOs need Datastore.Allocate there, which would let every tenant's token delete any of it",
        value: storage.cloudInit,
        fix:
          'give CAPMOX a directory storage of its own for the ISOs, e.g. `pvesm add dir capmox-cloudinit --path /var/lib/capmox-cloudinit --content iso` on the instance, ' +
          'and set storage.cloudInit: capmox-cloudinit (the default)',
      });
    }
    if (!storage || typeof storage.cloudInit !== 'string') return;
    const shared = [storage.images === storage.cloudInit ? 'storage.images' : undefined, storage.disks === storage.cloudInit ? 'storage.disks' : undefined].filter(
      (s): s is string => s !== undefined,
    );
    if (shared.length === 0) return;
    problems.push({
      path: ['proxmox', 'instances', ii, 'storage', 'cloudInit'],
      message:
        `the cloud-init storage is also ${shared.join(' and ')}: CAPMOX deletes its cloud-init ISOs, which takes Datastore.Allocate on the storage, ` +
        `and that would let every tenant's token delete ${shared.includes('storage.images') ? 'the downloaded node images' : 'VM disks'} and any other file there`,
      value: storage.cloudInit,
      fix:
        'give CAPMOX a directory storage of its own for the ISOs, e.g. `pvesm add dir capmox-cloudinit --path /var/lib/capmox-cloudinit --content iso` on the instance, ' +
        'and set storage.cloudInit: capmox-cloudinit (the default)',
    });
  });
  return problems;
}
