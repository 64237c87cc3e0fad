/**
 * What one `proxmox-<instance>` stack holds, as plain data: the provider's endpoint, one resource
 * pool and one cloud-init storage per tenant with machines on the instance, the templates pool, the
 * CAPMOX service account (user, custom roles, the user's ACLs, one privilege-separated token per
 * tenant and its ACLs), and one node template (image download and template VM) per `images` entry
 * and target node. The stack and its constructs only turn this into bpg/proxmox resources; the
 * references between them (a token's id, an ACL after its pool) are all they add.
 * See docs/proxmox.md for why each grant is there.
 */
import { previousInstance, previousTenant } from '../placement/surge';
import type { PlacementPlan } from '../placement/types';
import { tenantCloudInitPath, tenantCloudInitStorage, tenantProxmoxPool, tenantTokenName, tenantVlanOn } from '../config/proxmox-access';
import { IMAGE_TEMPLATE_DISK_GIB, imageNodes, type Instance, type Lab } from '../config/schema';
import { templateVmIds } from '../config/template-ids';

/** Custom roles CAPMOX's least-privilege setup creates (the built-in PVE roles cover the rest). */
export const CAPMOX_ROLES = {
  /** Reads cluster, node and storage status (`/`, `/nodes`). */
  sysAudit: { id: 'CapmoxSysAudit', privileges: ['Sys.Audit'] },
  /** Allocates the disks of cloned VMs on the VM disk storage. */
  allocateSpace: { id: 'CapmoxDatastoreAllocateSpace', privileges: ['Datastore.AllocateSpace'] },
  /**
   * The cloud-init ISOs, on the tenant's own cloud-init storage only: CAPMOX (go-proxmox v0.6)
   * finds the storage by listing the node's storages (Datastore.Audit), uploads
   * `user-data-<vmid>.iso` (Datastore.AllocateTemplate) and deletes it once the machine is up (PVE
   * asks Datastore.Allocate to delete a non-backup volume). No Datastore.AllocateSpace: no disks there.
   */
  cloudInit: { id: 'CapmoxCloudInit', privileges: ['Datastore.Allocate', 'Datastore.AllocateTemplate', 'Datastore.Audit'] },
} as const;

/**
 * A tenant's persistent volumes (docs/storage.md), on each of its own volume storages only and
 * rendered only when a tenant has one: the Proxmox CSI plugin v0.19.1 creates a volume with
 * `POST /nodes/{node}/storage/{storage}/content` (pve-storage PVE::API2::Storage::Content create:
 * Datastore.AllocateSpace on the storage), attaches it to the tenant's VM, whose VM.Config.Disk the
 * token has on its pool already (PVEVMAdmin), with the volume owned by the controller's VM id
 * (PVE::Storage::check_volume_access: Datastore.Allocate on the storage, or Datastore.Audit and
 * VM.Config.Disk on the owner VM), lists it (Datastore.Audit) and deletes it (Content delete:
 * Datastore.Allocate). So the role is the three Datastore privileges, without propagation, on a
 * storage that holds only this tenant's volumes (modules/config/storage-rules.ts).
 */
export const VOLUMES_ROLE = { id: 'PvekaasTenantVolumes', privileges: ['Datastore.Allocate', 'Datastore.AllocateSpace', 'Datastore.Audit'] } as const;

/** The grants of a tenant's persistent volumes: its volume storages, each alone. */
export function volumeGrants(tenant: string, storages: readonly string[]): CapmoxGrant[] {
  return [...new Set(storages)].sort().map((sid) => ({
    path: `/storage/${sid}`,
    roleId: VOLUMES_ROLE.id,
    propagate: false,
    reason: `create, attach, list and delete the persistent volumes of tenant ${tenant} (Proxmox CSI), on a storage that holds only its volumes`,
  }));
}

/** One ACL entry, granted to the user and to its token. */
export interface CapmoxGrant {
  readonly path: string;
  readonly roleId: string;
  readonly propagate: boolean;
  /** Why CAPMOX needs it, for docs/proxmox.md and reviewers. */
  readonly reason: string;
}

/** A tenant with machines on the instance: its own token, with VM privileges on its own pool. */
export interface CapmoxTenant {
  readonly name: string;
  /** The tenant's resource pool (`tenantProxmoxPool`). */
  readonly pool: string;
  /** The tenant's own cloud-init storage (`tenantCloudInitStorage`): its ISOs, nobody else's. */
  readonly cloudInitStorage: string;
  /** The VLAN tag of its machines on the instance (`tenantVlanOn`); undefined: untagged. */
  readonly vlan?: number;
}

/** The ACLs every tenant's token (and the user) needs, in a stable order (path, then role). */
export function capmoxGrants(props: {
  readonly templates: { readonly pool: string } | { readonly vmIds: readonly number[] };
  readonly diskStorage: string;
}): CapmoxGrant[] {
  const grants: CapmoxGrant[] = [
    { path: '/', roleId: CAPMOX_ROLES.sysAudit.id, propagate: false, reason: 'read the cluster status and /cluster/resources (template lookup by tags)' },
    { path: '/nodes', roleId: CAPMOX_ROLES.sysAudit.id, propagate: true, reason: 'read node status and memory for scheduling' },
    ...('pool' in props.templates
      ? [
          {
            path: `/pool/${props.templates.pool}`,
            roleId: 'PVETemplateUser',
            propagate: true,
            reason: 'clone the templates (VM.Clone, VM.Audit), nothing else',
          },
        ]
      : // One existing template per Kubernetes version (template.kubernetesVersion and template.versions).
        [...new Set(props.templates.vmIds)].map((id) => ({
          path: `/vms/${id}`,
          roleId: 'PVETemplateUser',
          propagate: false,
          reason: 'clone the existing template (VM.Clone, VM.Audit), nothing else',
        }))),
    { path: `/storage/${props.diskStorage}`, roleId: CAPMOX_ROLES.allocateSpace.id, propagate: true, reason: 'allocate the cloned disks' },
  ];
  return sortGrants(grants);
}

/**
 * The grants only one tenant's token holds: its VMs, in its pool; its own cloud-init storage; its
 * own VLAN of the bridge. Proxmox VE checks a NIC with pve-guest-common PVE::GuestHelpers::
 * check_vnet_access: SDN.Use on `/sdn/zones/<zone>/<bridge>/<tag>` for a tag and for every trunk
 * tag, on `/sdn/zones/<zone>/<bridge>` itself only for an untagged NIC. So a tagged tenant gets its
 * VLAN's path, an untagged one the bridge's path without propagation: neither reaches another
 * VLAN (the management VIP VLAN), nor trunks.
 */
export function tenantGrants(tenant: CapmoxTenant, bridge: string, sdnZone = 'localnetwork'): CapmoxGrant[] {
  const bridgePath = `/sdn/zones/${sdnZone}/${bridge}`;
  return [
    {
      path: `/pool/${tenant.pool}`,
      roleId: 'PVEVMAdmin',
      propagate: true,
      reason: `create, configure, start, stop and delete the machines of tenant ${tenant.name}, only inside its pool`,
    },
    {
      path: `/storage/${tenant.cloudInitStorage}`,
      roleId: CAPMOX_ROLES.cloudInit.id,
      propagate: false,
      reason: `upload and delete the bootstrap (cloud-init) ISO of each machine of tenant ${tenant.name}, on a storage of its own that holds nothing else`,
    },
    tenant.vlan === undefined
      ? {
          path: bridgePath,
          roleId: 'PVESDNUser',
          propagate: false,
          reason: `attach the machines of tenant ${tenant.name} to the bridge, untagged only (SDN.Use; no VLAN, no trunk)`,
        }
      : {
          path: `${bridgePath}/${tenant.vlan}`,
          roleId: 'PVESDNUser',
          propagate: false,
          reason: `attach the machines of tenant ${tenant.name} to VLAN ${tenant.vlan} of the bridge only (SDN.Use)`,
        },
  ];
}

/** `localeCompare` without arguments, as one collator (the same order: ECMA-402 defines it so), not one per comparison. */
const byLocale = new Intl.Collator().compare;

function sortGrants(grants: CapmoxGrant[]): CapmoxGrant[] {
  const unique = new Map(grants.map((g) => [`${g.path} ${g.roleId}`, g]));
  return [...unique.values()].sort((a, b) => (a.path === b.path ? byLocale(a.roleId, b.roleId) : byLocale(a.path, b.path)));
}

/** The tenants with machines (or autoscaler room) on an instance, by name. */
export function tenantsOnInstance(plan: Pick<PlacementPlan, 'tenants'>, instance: string): string[] {
  const names = plan.tenants.filter((t) => t.pools.some((p) => p.placements.some((pl) => pl.instance === instance))).map((t) => t.name);
  return [...new Set(names)].sort();
}

/** `pvekaas-v1.35.4.qcow2`, keeping the URL's extension when it is one `import` accepts. */
export function defaultImageFileName(kubernetesVersion: string, url: string): string {
  const ext = /\.(qcow2|raw|vmdk)$/i.exec(new URL(url).pathname)?.[1]?.toLowerCase() ?? 'qcow2';
  return `pvekaas-${kubernetesVersion}.${ext}`;
}

/** The tags of a template: Proxmox keeps tags sorted, so they are written sorted to avoid a diff. */
export function templateTags(kubernetesVersion: string, tags: string[] = ['capi']): string[] {
  return [...new Set([...tags, kubernetesVersion])].sort();
}

/** A resource pool (`proxmox_virtual_environment_pool`). */
export interface PoolRendering {
  /** Construct id, from the pool's meaning (`tenant-pool-<tenant>`, `pool-<templates pool>`). */
  readonly id: string;
  readonly poolId: string;
  readonly comment: string;
  /** The ACL path that names it: ACLs on it are created after it. */
  readonly aclPath: string;
}

/** A tenant's own cloud-init storage (`proxmox_storage_directory`). */
export interface CloudInitStorageRendering {
  readonly id: string;
  readonly tenant: string;
  readonly storageId: string;
  readonly path: string;
  readonly content: string[];
  readonly shared: boolean;
  readonly aclPath: string;
}

/** One ACL entry of the user or of a token. */
export interface AclRendering extends CapmoxGrant {
  /** Construct id, from the path and role (`acl-user-…`, `acl-token-<tenant>-…`). */
  readonly id: string;
}

export interface TokenRendering {
  readonly tenant: string;
  /** Construct id (`token-<tenant>`). */
  readonly id: string;
  readonly tokenName: string;
  readonly comment: string;
  readonly privilegesSeparation: boolean;
  readonly grants: readonly AclRendering[];
}

export interface ServiceAccountRendering {
  /** `user@realm`, e.g. capmox@pve. */
  readonly userId: string;
  readonly comment: string;
  /** The custom roles, each with its construct id (`role-<id>`). */
  readonly roles: readonly { readonly id: string; readonly roleId: string; readonly privileges: readonly string[] }[];
  /** The user's grants: the shared ones and every tenant's own. */
  readonly grants: readonly AclRendering[];
  /** One token per tenant, by tenant name. */
  readonly tokens: readonly TokenRendering[];
}

/** One node template: an image Proxmox downloads itself, and a template VM imported from it. */
export interface NodeTemplateRendering {
  /** Construct id (`template-<version>-<node>`). */
  readonly id: string;
  readonly kubernetesVersion: string;
  readonly node: string;
  readonly vmId: number;
  readonly download: {
    readonly datastoreId: string;
    readonly url: string;
    readonly fileName: string;
    readonly checksum?: string;
    readonly checksumAlgorithm?: string;
  };
  readonly vm: {
    readonly name: string;
    readonly description: string;
    readonly tags: readonly string[];
    readonly poolId: string;
    readonly diskStorage: string;
    readonly diskSizeGiB: number;
  };
}

/** Everything a `proxmox-<instance>` stack holds. */
export interface InstanceRendering {
  readonly name: string;
  readonly provider: { readonly endpoint: string; readonly insecure: boolean };
  /** The Terraform variable of the administrator API token and its description. */
  readonly apiToken: { readonly variable: string; readonly description: string };
  /** Proxmox API URL without a trailing slash, as the CAPMOX credentials carry it. */
  readonly url: string;
  /** The tenants with machines on the instance, by name. */
  readonly tenants: readonly string[];
  readonly tenantPools: readonly PoolRendering[];
  readonly templatesPool: PoolRendering;
  readonly cloudInitStorages: readonly CloudInitStorageRendering[];
  readonly serviceAccount: ServiceAccountRendering;
  readonly templates: readonly NodeTemplateRendering[];
  /** Template VM id per Kubernetes version and node (empty when the instance uses `templateID`). */
  readonly templateIds: Readonly<Record<string, Readonly<Record<string, number>>>>;
}

/** Name of the Terraform variable that carries the administrator API token (`user@realm!id=secret`). */
export const API_TOKEN_VARIABLE = 'proxmox_api_token';

const aclName = (grant: CapmoxGrant) => `${grant.path === '/' ? 'root' : grant.path.slice(1).replace(/\//g, '-')}-${grant.roleId}`;

/**
 * One instance's stack, rendered. `tenants`: the tenants with machines on it (`tenantsOnInstance`);
 * `vlans`: each one's VLAN tag there (`tenantVlanOn`), undefined for untagged.
 */
export function renderInstance(
  instance: Instance,
  tenants: readonly string[],
  vlans: Readonly<Record<string, number | undefined>> = {},
  userId = 'capmox@pve',
  sdnZone = 'localnetwork',
  surging: Readonly<Record<string, SurgingTenant>> = {},
  volumeStorages: Readonly<Record<string, readonly string[]>> = {},
): InstanceRendering {
  const own: CapmoxTenant[] = tenants.map((name) => ({
    name,
    pool: tenantProxmoxPool(instance, name),
    cloudInitStorage: tenantCloudInitStorage(instance, name),
    vlan: Object.hasOwn(vlans, name) ? vlans[name] : undefined,
  }));
  const tenantPools = own.map((t): PoolRendering => ({
    id: `tenant-pool-${t.name}`,
    poolId: t.pool,
    comment: `Cluster API machines (CAPMOX) of tenant ${t.name}; managed by pvekaas`,
    aclPath: `/pool/${t.pool}`,
  }));
  const templatesPool: PoolRendering = {
    id: `pool-${instance.pools.templates}`,
    poolId: instance.pools.templates,
    comment: 'Node templates CAPMOX clones; managed by pvekaas',
    aclPath: `/pool/${instance.pools.templates}`,
  };
  // One cloud-init storage per tenant: Proxmox VE grants ISOs per storage only, so a shared one
  // would let every tenant's token list, attach, replace and delete every tenant's bootstrap ISO.
  const cloudInitStorages = own.map((t): CloudInitStorageRendering => ({
    id: `cloudinit-storage-${t.name}`,
    tenant: t.name,
    storageId: t.cloudInitStorage,
    path: tenantCloudInitPath(instance, t.name),
    content: ['iso'],
    shared: false,
    aclPath: `/storage/${t.cloudInitStorage}`,
  }));

  const existingTemplate = 'templateID' in instance.template ? instance.template : undefined;
  const grantsOf = (i: Instance) => {
    const fixed = 'templateID' in i.template ? i.template : undefined;
    return capmoxGrants({
      templates: fixed ? { vmIds: [fixed.templateID, ...(fixed.versions ?? []).map((v) => v.templateID)] } : { pool: i.pools.templates },
      diskStorage: i.storage.disks,
    });
  };
  // Surge, then retire: until the retire step the retiring machines (their remediation, their
  // deletion) need what they were made with — the old disk storage, template, bridge and VLAN.
  const shared = sortGrants([...grantsOf(instance), ...own.filter((t) => surging[t.name]).flatMap((t) => grantsOf(surging[t.name].instance))]);
  const sorted = [...own].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const ownGrants = (t: CapmoxTenant) =>
    sortGrants([
      ...tenantGrants(t, instance.bridge, sdnZone),
      ...(surging[t.name] ? tenantGrants({ ...t, vlan: surging[t.name].vlan }, surging[t.name].instance.bridge, sdnZone) : []),
      ...volumeGrants(t.name, Object.hasOwn(volumeStorages, t.name) ? volumeStorages[t.name] : []),
    ]);
  const volumesUsed = own.some((t) => Object.hasOwn(volumeStorages, t.name) && volumeStorages[t.name].length > 0);
  const serviceAccount: ServiceAccountRendering = {
    userId,
    comment: 'Cluster API Provider Proxmox (CAPMOX); managed by pvekaas',
    roles: [...Object.values(CAPMOX_ROLES), ...(volumesUsed ? [VOLUMES_ROLE] : [])].map((role) => ({
      id: `role-${role.id}`,
      roleId: role.id,
      privileges: [...role.privileges],
    })),
    grants: sortGrants([...shared, ...sorted.flatMap(ownGrants)]).map((g) => ({ ...g, id: `acl-user-${aclName(g)}` })),
    tokens: sorted.map((t) => ({
      tenant: t.name,
      id: `token-${t.name}`,
      tokenName: tenantTokenName(t.name),
      comment: `CAPMOX credentials of tenant ${t.name}; managed by pvekaas`,
      privilegesSeparation: true,
      grants: sortGrants([...shared, ...ownGrants(t)]).map((g) => ({ ...g, id: `acl-token-${t.name}-${aclName(g)}` })),
    })),
  };

  const templates: NodeTemplateRendering[] = [];
  const templateIds: Record<string, Record<string, number>> = {};
  if (!existingTemplate) {
    const ids = templateVmIds(
      instance.name,
      instance.vmIdRange,
      instance.nodes.map((n) => n.name),
      instance.images.map((i) => i.kubernetesVersion),
    );
    for (const image of [...instance.images].sort((a, b) => a.kubernetesVersion.localeCompare(b.kubernetesVersion))) {
      const perNode: Record<string, number> = {};
      for (const node of imageNodes(instance, image)) {
        const vmId = ids.get(image.kubernetesVersion)!.get(node)!;
        const version = image.kubernetesVersion;
        templates.push({
          id: `template-${version}-${node}`,
          kubernetesVersion: version,
          node,
          vmId,
          download: {
            datastoreId: instance.storage.images,
            url: image.url,
            fileName: image.fileName ?? defaultImageFileName(version, image.url),
            ...(image.checksum ? { checksum: image.checksum, checksumAlgorithm: image.checksumAlgorithm ?? 'sha256' } : {}),
          },
          vm: {
            name: `pvekaas-template-${version.replace(/\./g, '-')}`,
            description: `Kubernetes ${version} node template, imported from ${image.url}; managed by pvekaas`,
            tags: templateTags(version),
            poolId: instance.pools.templates,
            diskStorage: instance.storage.disks,
            diskSizeGiB: IMAGE_TEMPLATE_DISK_GIB,
          },
        });
        perNode[node] = vmId;
      }
      templateIds[image.kubernetesVersion] = perNode;
    }
  }
  return {
    name: instance.name,
    provider: { endpoint: instance.endpoint, insecure: instance.insecure },
    apiToken: {
      variable: API_TOKEN_VARIABLE,
      description: `API token of an administrator of ${instance.name}, as user@realm!tokenid=secret (set TF_VAR_${API_TOKEN_VARIABLE})`,
    },
    url: instance.endpoint.replace(/\/+$/, ''),
    tenants: [...tenants],
    tenantPools,
    templatesPool,
    cloudInitStorages,
    serviceAccount,
    templates,
    templateIds,
  };
}

/** A tenant in the surge step of a change (`previous`): the instance and its VLAN there as its retiring machines were made. */
export interface SurgingTenant {
  readonly instance: Instance;
  readonly vlan?: number;
}

/** Every instance of a lab, rendered, by name: the tenants the plan puts on each, with their VLANs. */
export function renderInstances(lab: Lab, plan: Pick<PlacementPlan, 'tenants'>): Map<string, InstanceRendering> {
  const out = new Map<string, InstanceRendering>();
  for (const instance of lab.proxmox.instances) {
    const vlans = Object.fromEntries(lab.tenants.map((t) => [t.name, tenantVlanOn(t, instance.name)]));
    const surging = Object.fromEntries(
      lab.tenants.flatMap((t) => {
        const before = previousTenant(t);
        return before
          ? [[t.name, { instance: previousInstance(instance, t.previous?.instances?.[instance.name]), vlan: tenantVlanOn(before, instance.name) }]]
          : [];
      }),
    );
    // Persistent volumes: each tenant's classes' storages that this instance lists (storage.volumes).
    const listed = new Set(instance.storage.volumes ?? []);
    const volumeStorages = Object.fromEntries(
      lab.tenants.flatMap((t) => {
        const own = (t.storage?.classes ?? []).map((c) => c.storage).filter((sid) => listed.has(sid));
        return own.length > 0 ? [[t.name, own]] : [];
      }),
    );
    out.set(instance.name, renderInstance(instance, tenantsOnInstance(plan, instance.name), vlans, undefined, undefined, surging, volumeStorages));
  }
  return out;
}
