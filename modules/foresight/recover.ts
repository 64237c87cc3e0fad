/**
 * Recovery after an interrupted apply of a `proxmox-<instance>` stack. Pure: the synthesized stack
 * (its `resource` block), the resources of its state and what the Proxmox instance holds in, the
 * orphans and what to do with each out.
 *
 * Why. OpenTofu stops gracefully on an interrupt, but the provider's requests already on their way
 * complete on the server while tofu records nothing for them (the provider's call was cancelled):
 * users, tokens, ACL entries, storages, pools, roles and VMs exist in Proxmox and not in the state,
 * and the next apply fails creating them ("already exists"). Every object pvekaas renders into an
 * instance stack is named deterministically (user and token ids, ACL path + entity + role, storage,
 * pool and role ids, VM ids), so each desired resource has a natural key that can be looked up in
 * the instance; one that is there but not in the state is an orphan.
 *
 * What is done with it (bpg/proxmox at the pinned version, v0.111.1, supports `tofu import` for each
 * of these types; the import ids are those of its importers):
 * - users, roles, pools, storages, ACL entries: `import` (the object is what the stack would create;
 *   a later plan reconciles any attribute the interrupted request did not set).
 * - API tokens: `delete-recreate`: PVE never shows a secret again, and an imported token has none
 *   (its importer sets `value` to null, fwprovider/access/resource_user_token.go ImportState; the
 *   stack's outputs, which split the secret, then fail every later tofu run, `tofu import` itself
 *   included), so the token is deleted through the API and the apply creates it anew. ACL entries
 *   of that token go with it (PVE removes a deleted token's ACL entries): an orphaned one is left to
 *   the apply to create, and one in the state is replaced. A token in the state without a secret
 *   (imported by hand) is replaced the same way.
 * - VMs: `import` then `replace`: an interrupted create may have left a half-built VM (no disk
 *   imported yet, not yet a template).
 * - downloaded files with `overwrite_unmanaged`: nothing; the provider deletes an unmanaged file of
 *   the same name and downloads it again (fwprovider/nodes/resource_download_file.go, Create). Without
 *   it: `import` then `replace`.
 *
 * A desired resource whose identity depends on something only known after apply is not checked.
 */

/** The natural key of a Proxmox object pvekaas renders, e.g. `storage:capmox-cloudinit-tenant-a`. */
export type ObjectKind = 'user' | 'token' | 'acl' | 'role' | 'pool' | 'storage' | 'vm' | 'file';

export interface DesiredObject {
  /** Terraform address, e.g. `proxmox_storage_directory.cloudinit-storage-tenant-a`. */
  address: string;
  kind: ObjectKind;
  /** The key it is looked up by in the inventory and the state. */
  key: string;
  /** What `tofu import <address> <id>` takes for it. */
  importId: string;
  /** What a person recognizes it by: `token capmox@pve!tenant-tenant-a`. */
  label: string;
  /** For an ACL entry of a token: that token's key. */
  tokenKey?: string;
  /** A downloaded file the provider overwrites itself when it is there unmanaged. */
  providerOverwrites?: boolean;
}

/** What a Proxmox instance holds, as keys (see `inventoryKeys`). */
export interface ProxmoxInventory {
  users: string[];
  /** Full token ids, `user@realm!name`. */
  tokens: string[];
  acl: { path: string; type: string; ugid: string; roleid: string }[];
  roles: string[];
  pools: string[];
  storages: string[];
  vms: { vmid: number; node: string }[];
  /** Volume ids by node: `local:import/pvekaas-v1.35.4.qcow2`. */
  files: { node: string; volid: string }[];
}

/** One resource instance of a state file (`resources[].instances[]`), flattened. */
export interface StateResource {
  address: string;
  type: string;
  attributes: Record<string, unknown>;
  tainted: boolean;
}

/**
 * `import`: into the state as found; `import-replace`: imported, then marked for replacement;
 * `replace`: in the state, marked for replacement; `delete-recreate`: deleted from Proxmox (the
 * apply creates it); `leave-to-apply`: nothing (the apply deals with it).
 */
export type RecoveryAction = 'import' | 'import-replace' | 'replace' | 'delete-recreate' | 'leave-to-apply';

export interface RecoveryStep {
  address: string;
  kind: ObjectKind;
  label: string;
  importId?: string;
  /** For `delete-recreate`: the object's id in Proxmox (a full token id). */
  deleteId?: string;
  action: RecoveryAction;
  /** Why this action, one clause. */
  why: string;
}

type Json = Record<string, unknown>;

const TYPE_KIND: Record<string, ObjectKind> = {
  proxmox_virtual_environment_user: 'user',
  proxmox_user: 'user',
  proxmox_user_token: 'token',
  proxmox_virtual_environment_user_token: 'token',
  proxmox_acl: 'acl',
  proxmox_virtual_environment_acl: 'acl',
  proxmox_virtual_environment_role: 'role',
  proxmox_role: 'role',
  proxmox_virtual_environment_pool: 'pool',
  proxmox_pool: 'pool',
  proxmox_storage_directory: 'storage',
  proxmox_virtual_environment_storage_directory: 'storage',
  proxmox_virtual_environment_vm: 'vm',
  proxmox_vm: 'vm',
  proxmox_download_file: 'file',
  proxmox_virtual_environment_download_file: 'file',
};

/** The object kind a resource type renders, or undefined for one recovery does not know. */
export function kindOf(type: string): ObjectKind | undefined {
  return Object.prototype.hasOwnProperty.call(TYPE_KIND, type) ? TYPE_KIND[type] : undefined;
}

const REF = /^\$\{([A-Za-z0-9_]+)\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_]+)\}$/;

/** Reads a resource's attribute, following `${type.name.attr}` references to other resources of the stack. */
function resolver(resources: Record<string, Record<string, Json>>) {
  const attr = (type: string, name: string, attribute: string, depth: number): string | undefined => {
    const config = resources[type]?.[name];
    if (!config || depth > 8) return undefined;
    const kind = kindOf(type);
    if (attribute === 'id') {
      if (kind === 'token') {
        const user = value(config.user_id, depth + 1);
        const token = value(config.token_name, depth + 1);
        return user && token ? `${user}!${token}` : undefined;
      }
      if (kind === 'storage') return value(config.id, depth + 1);
      if (kind === 'user') return value(config.user_id, depth + 1);
      if (kind === 'role') return value(config.role_id, depth + 1);
      if (kind === 'pool') return value(config.pool_id, depth + 1);
      if (kind === 'file') {
        const [store, content, file] = [value(config.datastore_id, depth + 1), value(config.content_type, depth + 1), value(config.file_name, depth + 1)];
        return store && content && file ? `${store}:${content}/${file}` : undefined;
      }
      if (kind === 'vm') return value(config.vm_id, depth + 1);
      return undefined;
    }
    return value(config[attribute], depth + 1);
  };
  const value = (v: unknown, depth = 0): string | undefined => {
    if (typeof v === 'number' && Number.isFinite(v)) return String(v);
    if (typeof v !== 'string') return undefined;
    const ref = REF.exec(v);
    if (ref) return attr(ref[1], ref[2], ref[3], depth);
    return v.includes('${') ? undefined : v;
  };
  return value;
}

function aclKey(path: string, type: string, ugid: string, role: string): string {
  return `acl:${path}|${type}|${ugid}|${role}`;
}

/** The key, import id and label of one resource from its attributes (`value` reads and resolves one). */
function identify(type: string, attrs: Json, value: (v: unknown) => string | undefined): Omit<DesiredObject, 'address'> | undefined {
  const kind = kindOf(type);
  if (!kind) return undefined;
  switch (kind) {
    case 'user': {
      const id = value(attrs.user_id);
      return id ? { kind, key: `user:${id}`, importId: id, label: `user ${id}` } : undefined;
    }
    case 'token': {
      const user = value(attrs.user_id);
      const name = value(attrs.token_name);
      if (!user || !name) return undefined;
      const id = `${user}!${name}`;
      return { kind, key: `token:${id}`, importId: id, label: `token ${id}` };
    }
    case 'acl': {
      const path = value(attrs.path);
      const role = value(attrs.role_id);
      const entity = (['token_id', 'user_id', 'group_id'] as const).find((f) => attrs[f] !== undefined && attrs[f] !== null && attrs[f] !== '');
      if (!path || !role || !entity) return undefined;
      const ugid = value(attrs[entity]);
      if (!ugid) return undefined;
      const type = entity === 'token_id' ? 'token' : entity === 'user_id' ? 'user' : 'group';
      return {
        kind,
        key: aclKey(path, type, ugid, role),
        importId: `${path}?${ugid}?${role}`,
        label: `ACL ${path} ${ugid} ${role}`,
        ...(type === 'token' ? { tokenKey: `token:${ugid}` } : {}),
      };
    }
    case 'role': {
      const id = value(attrs.role_id);
      return id ? { kind, key: `role:${id}`, importId: id, label: `role ${id}` } : undefined;
    }
    case 'pool': {
      const id = value(attrs.pool_id);
      return id ? { kind, key: `pool:${id}`, importId: id, label: `pool ${id}` } : undefined;
    }
    case 'storage': {
      const id = value(attrs.id);
      return id ? { kind, key: `storage:${id}`, importId: id, label: `storage ${id}` } : undefined;
    }
    case 'vm': {
      const vmid = value(attrs.vm_id);
      const node = value(attrs.node_name);
      if (!vmid || !node || !/^\d+$/.test(vmid)) return undefined;
      return { kind, key: `vm:${vmid}`, importId: `${node}/${vmid}`, label: `VM ${vmid} on ${node}` };
    }
    case 'file': {
      const node = value(attrs.node_name);
      const store = value(attrs.datastore_id);
      const content = value(attrs.content_type);
      const file = value(attrs.file_name);
      if (!node || !store || !content || !file) return undefined;
      const volid = `${store}:${content}/${file}`;
      return {
        kind,
        key: `file:${node}/${volid}`,
        importId: `${node}/${volid}`,
        label: `file ${volid} on ${node}`,
        ...(attrs.overwrite_unmanaged === true ? { providerOverwrites: true } : {}),
      };
    }
  }
}

/** Every object a synthesized stack (`cdk.tf.json`, parsed) renders that recovery can look up, in address order. */
export function desiredObjects(stack: { resource?: Record<string, Record<string, Json>> }): DesiredObject[] {
  const resources = stack.resource ?? {};
  const value = resolver(resources);
  const out: DesiredObject[] = [];
  for (const type of Object.keys(resources).sort()) {
    for (const name of Object.keys(resources[type]).sort()) {
      const config = resources[type][name];
      if (config.count !== undefined || config.for_each !== undefined) continue; // pvekaas renders neither
      const id = identify(type, config, value);
      if (id) out.push({ address: `${type}.${name}`, ...id });
    }
  }
  return out;
}

/** The keys of what an instance holds. */
export function inventoryKeys(inventory: ProxmoxInventory): Set<string> {
  return new Set([
    ...inventory.users.map((u) => `user:${u}`),
    ...inventory.tokens.map((t) => `token:${t}`),
    ...inventory.acl.map((e) => aclKey(e.path, e.type, e.ugid, e.roleid)),
    ...inventory.roles.map((r) => `role:${r}`),
    ...inventory.pools.map((p) => `pool:${p}`),
    ...inventory.storages.map((s) => `storage:${s}`),
    ...inventory.vms.map((v) => `vm:${v.vmid}`),
    ...inventory.files.map((f) => `file:${f.node}/${f.volid}`),
  ]);
}

/** A state file's (version 4) resource instances of the root module, managed ones only. */
export function stateResources(state: unknown): StateResource[] {
  const resources = (state as { resources?: unknown } | null)?.resources;
  if (!Array.isArray(resources)) return [];
  const out: StateResource[] = [];
  for (const r of resources as Json[]) {
    if (r.mode !== 'managed' || (r.module !== undefined && r.module !== '') || typeof r.type !== 'string' || typeof r.name !== 'string') continue;
    for (const i of Array.isArray(r.instances) ? (r.instances as Json[]) : []) {
      if (i.index_key !== undefined) continue;
      out.push({
        address: `${r.type}.${r.name}`,
        type: r.type,
        attributes: (i.attributes as Json | undefined) ?? {},
        tainted: i.status === 'tainted',
      });
    }
  }
  return out;
}

/** The key of a resource in the state (its attributes hold literal values), or undefined. */
export function stateKey(resource: StateResource): string | undefined {
  return identify(resource.type, resource.attributes, (v) => (typeof v === 'number' ? String(v) : typeof v === 'string' && v !== '' ? v : undefined))?.key;
}

/**
 * What to do before the apply: for each desired object that the instance holds but the state does
 * not (an orphan), and for each token in the state without its secret. Objects held in the state
 * under another address are left alone (a rename: the plan deals with it).
 */
export function planRecovery(desired: DesiredObject[], state: StateResource[], inventory: ProxmoxInventory): RecoveryStep[] {
  const held = inventoryKeys(inventory);
  const inState = new Map(state.map((r) => [r.address, r]));
  const stateKeys = new Set(state.map(stateKey).filter((k): k is string => k !== undefined));
  const steps: RecoveryStep[] = [];
  const replacedTokens = new Set<string>();

  // Tokens first: what happens to a token decides what happens to its ACL entries.
  for (const d of desired.filter((x) => x.kind === 'token')) {
    const current = inState.get(d.address);
    if (current) {
      const secret = current.attributes.value;
      if (!current.tainted && (typeof secret !== 'string' || secret === '')) {
        steps.push({ ...pick(d), action: 'replace', why: 'in the state without its secret (imported earlier): deleted and created anew' });
        replacedTokens.add(d.key);
      } else if (current.tainted) replacedTokens.add(d.key);
      continue;
    }
    if (held.has(d.key) && !stateKeys.has(d.key)) {
      steps.push({
        ...pick(d),
        deleteId: d.importId,
        action: 'delete-recreate',
        why: 'created by the interrupted run; its secret cannot be read back, so it is deleted and the apply creates it anew',
      });
      replacedTokens.add(d.key);
    }
  }
  for (const d of desired.filter((x) => x.kind !== 'token')) {
    const current = inState.get(d.address);
    if (d.kind === 'acl' && d.tokenKey && replacedTokens.has(d.tokenKey)) {
      if (current && !current.tainted)
        steps.push({ ...pick(d), action: 'replace', why: 'an ACL entry of a token that is replaced (PVE removes it with the token): created anew' });
      else if (!current && held.has(d.key))
        steps.push({
          ...pick(d),
          action: 'leave-to-apply',
          why: 'an ACL entry of a token that is replaced: PVE removes it with the token, the apply creates it',
        });
      continue;
    }
    if (current || !held.has(d.key) || stateKeys.has(d.key)) continue;
    if (d.kind === 'file' && d.providerOverwrites) {
      steps.push({ ...pick(d), action: 'leave-to-apply', why: 'overwrite_unmanaged: the provider replaces the file itself' });
      continue;
    }
    if (d.kind === 'vm' || d.kind === 'file')
      steps.push({
        ...pick(d),
        importId: d.importId,
        action: 'import-replace',
        why: `created by the interrupted run, perhaps half-built: deleted and created anew`,
      });
    else steps.push({ ...pick(d), importId: d.importId, action: 'import', why: 'created by the interrupted run: brought into the state' });
  }
  return steps;
}

function pick(d: DesiredObject): Pick<RecoveryStep, 'address' | 'kind' | 'label'> {
  return { address: d.address, kind: d.kind, label: d.label };
}

/** The objects an instance holds that a set of states does not, among those `desired` names (what the random-interrupt test counts). */
export function orphansOf(desired: DesiredObject[], state: StateResource[], inventory: ProxmoxInventory): DesiredObject[] {
  const held = inventoryKeys(inventory);
  const stateKeys = new Set(state.map(stateKey).filter((k): k is string => k !== undefined));
  return desired.filter((d) => held.has(d.key) && !stateKeys.has(d.key));
}
