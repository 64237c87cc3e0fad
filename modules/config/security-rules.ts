/**
 * Rules about what the credentials pvekaas creates can reach (see docs/proxmox.md, "The privileges
 * CAPMOX gets"). CAPMOX uploads each machine's cloud-init ISO and deletes it once the machine is
 * up; Proxmox asks `Datastore.Allocate` on the storage to delete a file, and that privilege
 * reaches every file on the storage. So the cloud-init storage must hold nothing else: not the
 * downloaded node images, not the VM disks.
 *
 * Written defensively: it also runs on a description that failed the schema (see load.ts).
 */
import type { Problem } from './problems';
import type { Lab } from './schema';

export function checkSecurityRules(lab: Lab): Problem[] {
  const problems: Problem[] = [];
  const instances = Array.isArray(lab?.proxmox?.instances) ? lab.proxmox.instances : [];
  instances.forEach((instance, ii) => {
    const storage = instance?.storage;
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
