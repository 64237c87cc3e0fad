/**
 * Simulated instances from a lab description: one per Proxmox instance, with its nodes, the
 * disk and image storages and the bridge the description names (the tenants' cloud-init storages
 * are the instance stack's to create), and the existing template it points at by
 * `templateID` (so it can be granted to CAPMOX and cloned, like on the real cluster).
 */
import type { Instance, Lab } from '../modules/config/schema';
import { DEFAULT_STORAGES, type InstanceSpec, type SimStorageSpec } from './instance';

export function instanceSpec(instance: Instance): InstanceSpec {
  const storages = new Map<string, SimStorageSpec>();
  const add = (s: SimStorageSpec) => {
    const existing = storages.get(s.id);
    if (existing) existing.content = [...new Set([...existing.content, ...s.content])].sort();
    else storages.set(s.id, { ...s, content: [...s.content].sort() });
  };
  const [files, disks] = DEFAULT_STORAGES;
  add({ ...files, id: instance.storage.images });
  // Shared disks (Ceph RBD, NFS, iSCSI) let a template clone to every node; local ones only to its own (B2).
  add({ ...disks, id: instance.storage.disks, ...(instance.storage.disksShared ? { shared: true } : {}) });
  // The tenants' volume storages (storage.volumes, docs/storage.md): LVM-thin pools that exist on
  // every node, each one tenant's, as the lab says they already exist on the real cluster.
  for (const id of instance.storage.volumes ?? []) add({ ...disks, id, content: ['images'] });
  // No cloud-init storage: the instance stack creates one per tenant (`<storage.cloudInit>-<tenant>`).
  const existing = 'templateID' in instance.template ? instance.template : undefined;
  return {
    name: instance.name,
    nodes: instance.nodes.map((n) => ({ name: n.name, cpu: n.cpu, memoryMiB: n.memoryMiB })),
    storages: [...storages.values()],
    bridges: [instance.bridge],
    // One template VM per Kubernetes version the description names (`versions[]`: e.g. the next
    // minor for an upgrade), named after its version as an image builder would.
    existingVms: existing
      ? [
          { templateID: existing.templateID, sourceNode: existing.sourceNode, kubernetesVersion: existing.kubernetesVersion },
          ...(existing.versions ?? []).map((v) => ({
            templateID: v.templateID,
            sourceNode: v.sourceNode ?? existing.sourceNode,
            kubernetesVersion: v.kubernetesVersion,
          })),
        ].map((t) => ({
          vmid: t.templateID,
          node: t.sourceNode,
          name: t.kubernetesVersion ? `existing-node-template-${t.kubernetesVersion.replace(/\./g, '-')}` : 'existing-node-template',
          template: true,
          tags: ['template'],
          diskStorage: instance.storage.disks,
        }))
      : [],
  };
}

/** Specs for the named instances of a lab (all when `names` is empty), in the given order. */
export function instanceSpecsFromLab(lab: Lab, names: string[] = []): InstanceSpec[] {
  const chosen = names.length > 0 ? names : lab.proxmox.instances.map((i) => i.name);
  return chosen.map((name) => {
    const instance = lab.proxmox.instances.find((i) => i.name === name);
    if (!instance) throw new Error(`the lab has no instance ${name} (it has ${lab.proxmox.instances.map((i) => i.name).join(', ')})`);
    return instanceSpec(instance);
  });
}
