/**
 * A best-effort reading of a description that failed the schema, so the cross-field rules can still
 * run and every problem is reported at once. Each instance, tenant and pool is parsed on its own;
 * one that fails keeps only what can be read of it (its name) and neutral values elsewhere.
 * Cross-field problems at or around a schema problem are dropped by the caller, so the neutral
 * values never produce a problem of their own.
 */
import { INT32_MAX, instanceSchema, labSchema, poolSchema, tenantSchema, type Instance, type Lab, type Pool, type Tenant } from './schema';

type Raw = Record<string, unknown>;
const isRaw = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

function field<T>(schema: { safeParse(v: unknown): { success: boolean; data?: T } }, value: unknown, fallback: T): T {
  const r = schema.safeParse(value);
  return r.success ? (r.data as T) : fallback;
}

function instanceOf(raw: unknown): Instance {
  const parsed = instanceSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const r = isRaw(raw) ? raw : {};
  return {
    ...field(
      instanceSchema,
      { name: 'x', endpoint: 'https://x/', nodes: [{ name: 'x', cpu: 1, memoryMiB: 8 }], template: { templateSelector: { matchTags: ['x'] } } },
      {} as Instance,
    ),
    name: text(r.name),
    nodes: list(r.nodes).map((n) => field(instanceSchema.shape.nodes.element, n, { name: isRaw(n) ? text(n.name) : '', cpu: 1, memoryMiB: 8 })),
    template: field(instanceSchema.shape.template, r.template, { templateID: 100, sourceNode: '' }),
    images: [],
  };
}

function poolOf(raw: unknown): Pool {
  const parsed = poolSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const r = isRaw(raw) ? raw : {};
  // The largest disk: neutral for pool.disk-below-template (no template is larger), as the tiny CPU and memory are for capacity.
  return {
    name: text(r.name),
    replicas: 1,
    size: { cpu: 1, memoryMiB: 8, diskGiB: INT32_MAX },
    instance: typeof r.instance === 'string' ? r.instance : undefined,
  };
}

function tenantOf(raw: unknown): Tenant {
  const parsed = tenantSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const r = isRaw(raw) ? raw : {};
  const shape = tenantSchema.shape;
  return {
    ...field(
      tenantSchema,
      { name: 'x', kubernetesVersion: 'v1.0.0', pools: [{ name: 'x', replicas: 1, size: { cpu: 1, memoryMiB: 8, diskGiB: 5 } }] },
      {} as Tenant,
    ),
    name: text(r.name),
    kubernetesVersion: field(shape.kubernetesVersion, r.kubernetesVersion, ''),
    placement: field(shape.placement, r.placement, { mode: 'Default' as const }),
    pools: list(r.pools).map(poolOf),
    vip: field(shape.vip, r.vip, undefined),
    network: field(shape.network, r.network, undefined),
    networks: field(shape.networks, r.networks, undefined),
  };
}

export function lenientLab(raw: unknown): Lab {
  const r = isRaw(raw) ? raw : {};
  const proxmox = isRaw(r.proxmox) ? r.proxmox : {};
  const shape = labSchema.shape;
  return {
    proxmox: {
      reserve: field(shape.proxmox.shape.reserve, proxmox.reserve, { cpu: 2, memoryMiB: 8192 }),
      instances: list(proxmox.instances).map(instanceOf),
    },
    management: field(shape.management, r.management, {
      kubernetes: { configPath: '' },
      loadBalancer: { addresses: [], interfaces: [] },
      datastore: { size: '8Gi', storageClass: '' },
      versions: {},
    } as unknown as Lab['management']),
    capmox: field(shape.capmox, r.capmox, { multiInstance: 'secondary-clusters' as const }),
    tenants: list(r.tenants).map(tenantOf),
    delivery: field(shape.delivery, r.delivery, { backend: 'local' as const, local: { stateDir: 'state' } }),
    // An identity with a mistake is still there: the access rules must not say the lab has none (the
    // identity rules read it defensively; what sits at the schema problem is dropped by the caller).
    ...(isRaw(r.identity) ? { identity: field(shape.identity, r.identity, r.identity as unknown as Lab['identity']) } : {}),
  };
}
