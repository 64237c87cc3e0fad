/**
 * Rules about what the credentials pvekaas creates can reach (see docs/proxmox.md, "The privileges
 * CAPMOX gets"). CAPMOX uploads each machine's cloud-init ISO and deletes it once the machine is
 * up; Proxmox asks `Datastore.Allocate` on the storage to delete a file, and that privilege
 * reaches every file on the storage. So each tenant's cloud-init storage (`<cloudInit>-<tenant>`,
 * created by the instance stack) must hold nothing else: not the downloaded node images, not the
 * VM disks, not another tenant's ISOs, not the `local` storage's directory.
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
import { tenantCloudInitStorage, tenantVlanOn } from './proxmox-access';
import { rulesOf, type LabRule } from './rule';

/** Proxmox VE's default storages of a node (pve-manager's installer: `local` dir, `local-lvm` or `local-zfs`). */
const PVE_DEFAULT_STORAGES = new Set(['local', 'local-lvm', 'local-zfs']);

function checkSecurityRules(lab: Lab): Problem[] {
  const problems: Problem[] = [];
  const instances = Array.isArray(lab?.proxmox?.instances) ? lab.proxmox.instances : [];
  const tenants = (Array.isArray(lab?.tenants) ? lab.tenants : []).map((t) => t?.name).filter((n): n is string => typeof n === 'string');
  instances.forEach((instance, ii) => {
    const pools = instance?.pools;
    if (pools && typeof pools.templates === 'string' && typeof pools.vms === 'string') {
      const owner = tenants.find((t) => `${pools.vms}-${t}` === pools.templates);
      if (owner !== undefined) {
        problems.push({
          rule: 'storage.templates-pool-of-tenant',
          path: ['proxmox', 'instances', ii, 'pools', 'templates'],
          message: `the templates pool is tenant ${owner}'s own pool (${pools.vms}-${owner}): its CAPMOX token has VM privileges on that pool, so it could change or delete every template of the instance`,
          value: pools.templates,
          fix: 'give the templates a pool of their own, e.g. pools.templates: templates (the default)',
        });
      }
    }
    const storage = instance?.storage;
    if (
      storage &&
      typeof storage.cloudInit === 'string' &&
      PVE_DEFAULT_STORAGES.has(storage.cloudInit) &&
      storage.images !== storage.cloudInit &&
      storage.disks !== storage.cloudInit
    ) {
      problems.push({
        rule: 'storage.cloud-init-default-storage',
        path: ['proxmox', 'instances', ii, 'storage', 'cloudInit'],
        message:
          `storage.cloudInit is the prefix of each tenant's own cloud-init storage (<cloudInit>-<tenant>), and ${storage.cloudInit} is a default storage of every Proxmox VE node ` +
          `(${storage.cloudInit === 'local' ? "/var/lib/vz: the node's ISO images, container templates, backups and snippets" : "the node's VM disks"}): ` +
          'a description that names it was written for a shared cloud-init storage, where every tenant token needed Datastore.Allocate on that storage and could delete any of it',
        value: storage.cloudInit,
        fix: 'set storage.cloudInit to a prefix of its own, e.g. capmox-cloudinit (the default): the instance stack creates one directory storage per tenant under storage.cloudInitPath',
      });
    }
    if (!storage || typeof storage.cloudInit !== 'string') return;
    const shared = [
      storage.images === storage.cloudInit ? 'storage.images' : undefined,
      storage.disks === storage.cloudInit ? 'storage.disks' : undefined,
    ].filter((s): s is string => s !== undefined);
    // Each tenant's own storage, <cloudInit>-<tenant>, must not be one of them either.
    for (const tenant of Array.isArray(lab?.tenants) ? lab.tenants : []) {
      if (typeof tenant?.name !== 'string') continue;
      const id = tenantCloudInitStorage({ storage }, tenant.name);
      const same = [storage.images === id ? 'storage.images' : undefined, storage.disks === id ? 'storage.disks' : undefined].filter(
        (s): s is string => s !== undefined,
      );
      if (same.length === 0) continue;
      problems.push({
        rule: 'storage.cloud-init-is-tenant-storage',
        path: ['proxmox', 'instances', ii, 'storage', 'cloudInit'],
        message: `tenant ${tenant.name}'s cloud-init storage would be ${id}, which is ${same.join(' and ')}: the instance stack creates that storage for the tenant's ISOs alone`,
        value: storage.cloudInit,
        fix: `choose another storage.cloudInit prefix (the default is capmox-cloudinit), or rename ${same.join(' and ')}`,
      });
    }
    const path = typeof storage.cloudInitPath === 'string' ? storage.cloudInitPath.replace(/\/+$/, '') : undefined;
    if (path !== undefined && (path === '/var/lib/vz' || path.startsWith('/var/lib/vz/') || '/var/lib/vz'.startsWith(`${path}/`))) {
      problems.push({
        rule: 'storage.cloud-init-path-in-var-lib-vz',
        path: ['proxmox', 'instances', ii, 'storage', 'cloudInitPath'],
        message:
          "the cloud-init storages would overlap /var/lib/vz, the directory of every node's `local` storage: its ISOs, templates and backups would sit beside the tenants' bootstrap ISOs",
        value: storage.cloudInitPath,
        fix: 'use a directory of their own, e.g. /var/lib/capmox-cloudinit (the default)',
      });
    }
    const system = path === undefined ? undefined : SYSTEM_DIRECTORIES.find((d) => path === d || path.startsWith(`${d}/`));
    if (path !== undefined && (system !== undefined || SYSTEM_PARENTS.includes(path))) {
      problems.push({
        rule: 'storage.cloud-init-path-system',
        path: ['proxmox', 'instances', ii, 'storage', 'cloudInitPath'],
        message:
          system !== undefined
            ? `the cloud-init storages would be directories under ${system}, a system directory of every node (${system === '/etc' ? "/etc/pve is the cluster's configuration file system" : 'the operating system or Proxmox VE keeps its own files there'}): each tenant's token could write and delete files there`
            : `the cloud-init storages would be directories ${path}/<tenant> beside the node's own ${path === '/var' ? '/var/lib, /var/log' : '/var/lib/vz, /var/lib/pve-cluster'}: a tenant named after one of them would be given it`,
        value: storage.cloudInitPath,
        fix: 'use a directory of their own, e.g. /var/lib/capmox-cloudinit (the default)',
      });
    }
    if (shared.length === 0) return;
    problems.push({
      rule: 'storage.cloud-init-shared',
      path: ['proxmox', 'instances', ii, 'storage', 'cloudInit'],
      message:
        `the cloud-init storage is also ${shared.join(' and ')}: CAPMOX deletes its cloud-init ISOs, which takes Datastore.Allocate on the storage, ` +
        `and that would let every tenant's token delete ${shared.includes('storage.images') ? 'the downloaded node images' : 'VM disks'} and any other file there`,
      value: storage.cloudInit,
      fix: 'set storage.cloudInit to a prefix of its own, e.g. capmox-cloudinit (the default): the instance stack creates one directory storage per tenant, <cloudInit>-<tenant>, for the ISOs alone',
    });
  });
  return problems;
}

/** Directories of a node's operating system and of Proxmox VE (pmxcfs at /etc/pve, /var/lib/pve-cluster): no cloud-init storage under them. */
const SYSTEM_DIRECTORIES = [
  '/etc',
  '/boot',
  '/proc',
  '/sys',
  '/dev',
  '/run',
  '/usr',
  '/bin',
  '/sbin',
  '/lib',
  '/lib32',
  '/lib64',
  '/libx32',
  '/root',
  '/var/lib/pve-cluster',
  '/var/lib/pve-manager',
  '/var/log',
];
/** Their parents: a storage directory <path>/<tenant> there would be a system directory for a tenant of that name. */
const SYSTEM_PARENTS = ['/var', '/var/lib'];

export const SECURITY_RULES: readonly LabRule[] = rulesOf(checkSecurityRules, [
  {
    id: 'storage.templates-pool-of-tenant',
    refuses: "a templates pool that is a tenant's own pool (<pools.vms>-<tenant>): its token could change or delete every template",
    fix: 'give the templates a pool of their own, e.g. pools.templates: templates (the default)',
  },
  {
    id: 'storage.cloud-init-default-storage',
    refuses: 'storage.cloudInit naming a default storage of every Proxmox VE node (local, local-lvm, local-zfs)',
    fix: 'set storage.cloudInit to a prefix of its own, e.g. capmox-cloudinit (the default)',
  },
  {
    id: 'storage.cloud-init-is-tenant-storage',
    refuses: "a tenant's cloud-init storage (<cloudInit>-<tenant>) that is storage.images or storage.disks",
    fix: 'choose another storage.cloudInit prefix, or rename the images or disks storage',
  },
  {
    id: 'storage.cloud-init-path-in-var-lib-vz',
    refuses: "storage.cloudInitPath overlapping /var/lib/vz, the directory of every node's local storage",
    fix: 'use a directory of their own, e.g. /var/lib/capmox-cloudinit (the default)',
  },
  {
    id: 'storage.cloud-init-path-system',
    refuses:
      'storage.cloudInitPath in or under a system directory of the nodes (/etc and /etc/pve, /boot, /proc, /sys, /dev, /run, /usr, /root, /var/log, …) or /var, /var/lib',
    fix: 'use a directory of their own, e.g. /var/lib/capmox-cloudinit (the default)',
  },
  {
    id: 'storage.cloud-init-shared',
    refuses: 'storage.cloudInit that is also storage.images or storage.disks (every tenant token could delete what is there)',
    fix: 'set storage.cloudInit to a prefix of its own, e.g. capmox-cloudinit (the default)',
  },
]);

/**
 * A warning for an existing template (`template.templateID`) that a tenant on a VLAN clones:
 * Proxmox VE checks SDN.Use on the template's own NICs at clone (qemu-server PVE::API2::Qemu
 * clone_vm → check_bridge_access), and that tenant's token may use its VLAN only. pvekaas cannot
 * see the template's NICs at synth, so it says so and goes on.
 */
export function templateVlanWarnings(lab: Lab): Problem[] {
  const problems: Problem[] = [];
  lab.proxmox.instances.forEach((instance, ii) => {
    const template = instance.template;
    if (!('templateID' in template)) return;
    for (const tenant of lab.tenants) {
      const eligible = tenant.placement?.instances;
      if (eligible && !eligible.includes(instance.name)) continue;
      const vlan = tenantVlanOn(tenant, instance.name);
      if (vlan === undefined) continue;
      problems.push({
        path: ['proxmox', 'instances', ii, 'template', 'templateID'],
        severity: 'warning',
        message:
          `tenant ${tenant.name} uses VLAN ${vlan} on ${instance.name}, and its CAPMOX token may put NICs on that VLAN only: Proxmox VE refuses its clone of ` +
          `template ${template.templateID} if the template has a network device on a bridge untagged or on another VLAN (qemu-server checks the source's NICs at clone)`,
        value: template.templateID,
        fix: "remove the network device from the existing template (CAPMOX adds net0 with the tenant's bridge and VLAN to every clone), or let the instance build its templates (images with templateSelector)",
      });
    }
  });
  return problems;
}
