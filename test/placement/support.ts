/**
 * Lab descriptions for placement tests: written compactly, completed by the real schema (so the
 * defaults are those a file would get), and fast-check generators of whole labs.
 */
import fc from 'fast-check';
import { labSchema, type Lab, type LabInput, type PlacementMode } from '../../modules/config/schema';
import { machinesAtLeast, machinesAtMost, type PlacementPlan, type PoolPlan, type TenantPlan } from '../../modules/placement';

export interface NodeSpec {
  name: string;
  cpu: number;
  memoryMiB: number;
  down?: boolean;
}

export interface InstanceSpec {
  name: string;
  nodes: NodeSpec[];
}

export interface PoolSpec {
  name: string;
  replicas?: number;
  autoscaling?: { min: number; max: number };
  size: { cpu: number; memoryMiB: number };
  instance?: string;
  failover?: boolean;
}

export interface TenantSpec {
  name: string;
  mode: PlacementMode;
  instances?: string[];
  pools: PoolSpec[];
}

export interface LabSpec {
  reserve?: { cpu: number; memoryMiB: number };
  instances: InstanceSpec[];
  tenants: TenantSpec[];
}

/** A complete, schema-checked `Lab` from a compact spec. */
export function labOf(spec: LabSpec): Lab {
  const input: LabInput = {
    proxmox: {
      reserve: spec.reserve ?? { cpu: 0, memoryMiB: 0 },
      instances: spec.instances.map((i) => ({
        name: i.name,
        endpoint: `https://${i.name}.test.example:8006/`,
        nodes: i.nodes.map((n) => ({ ...n })),
        template: { sourceNode: i.nodes[0].name, templateID: 1000 },
      })),
    },
    management: { loadBalancer: { addresses: ['10.0.0.10-10.0.0.250'] } },
    tenants: spec.tenants.map((t) => ({
      name: t.name,
      kubernetesVersion: 'v1.35.4',
      placement: { mode: t.mode, ...(t.instances ? { instances: [...t.instances] } : {}) },
      pools: t.pools.map((p) => ({
        name: p.name,
        ...(p.replicas !== undefined ? { replicas: p.replicas } : {}),
        ...(p.autoscaling ? { autoscaling: { ...p.autoscaling } } : {}),
        size: { cpu: p.size.cpu, memoryMiB: p.size.memoryMiB, diskGiB: 20 },
        ...(p.instance !== undefined ? { instance: p.instance } : {}),
        ...(p.failover !== undefined ? { failover: p.failover } : {}),
      })),
    })),
  };
  return labSchema.parse(input);
}

/** The two clusters of the CAPMOX multi-instance proposal, with the example lab's node sizes. */
export const proposalInstances: InstanceSpec[] = [
  {
    name: 'pmox-txl',
    nodes: [
      { name: 'pmox-txl-1', cpu: 32, memoryMiB: 131072 },
      { name: 'pmox-txl-2', cpu: 32, memoryMiB: 131072 },
    ],
  },
  {
    name: 'pmox-fra',
    nodes: [
      { name: 'pmox-fra-1', cpu: 48, memoryMiB: 196608 },
      { name: 'pmox-fra-2', cpu: 48, memoryMiB: 196608 },
      { name: 'pmox-fra-3', cpu: 48, memoryMiB: 196608 },
    ],
  },
];

// ---- reading plans ----------------------------------------------------------------------------

export function tenantOf(plan: PlacementPlan, name: string): TenantPlan {
  const tenant = plan.tenants.find((t) => t.name === name);
  if (!tenant) throw new Error(`no tenant ${name} in the plan`);
  return tenant;
}

export function poolOf(plan: PlacementPlan, tenant: string, pool: string): PoolPlan {
  const found = tenantOf(plan, tenant).pools.find((p) => p.name === pool);
  if (!found) throw new Error(`no pool ${tenant}/${pool} in the plan`);
  return found;
}

/** Machines of a pool per instance: `replicas` its machines (autoscaled: min), `max` the reserved capacity of autoscaled pools. */
export function perInstance(pool: PoolPlan, field: 'replicas' | 'max' = 'replicas'): Map<string, number> {
  const counts = new Map<string, number>();
  for (const p of pool.placements)
    counts.set(p.instance, (counts.get(p.instance) ?? 0) + (field === 'max' ? machinesAtMost(p.scale) : machinesAtLeast(p.scale)));
  return counts;
}

export function perNode(pool: PoolPlan, instance: string, field: 'replicas' | 'max' = 'replicas'): Map<string, number> {
  const counts = new Map<string, number>();
  for (const p of pool.placements) if (p.instance === instance) counts.set(p.node, field === 'max' ? machinesAtMost(p.scale) : machinesAtLeast(p.scale));
  return counts;
}

// ---- generators -------------------------------------------------------------------------------

const INSTANCE_NAMES = ['pve-a', 'pve-b', 'pve-c', 'pve-d', 'pve-e'];
const TENANT_NAMES = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel'];
const POOL_NAMES = ['workers', 'batch', 'gpu', 'infra'];
const MODES: PlacementMode[] = ['Default', 'SingleInstance', 'MultiInstance'];

export interface LabShape {
  /** Node cpu and memory ranges: roomy labs never fill a node, tight ones often do. */
  nodeCpu: [number, number];
  nodeMemoryGiB: [number, number];
  maxTenants: number;
  maxReplicas: number;
}

export const roomy: LabShape = { nodeCpu: [4000, 8000], nodeMemoryGiB: [16000, 32000], maxTenants: 6, maxReplicas: 12 };
export const tight: LabShape = { nodeCpu: [8, 128], nodeMemoryGiB: [16, 512], maxTenants: 5, maxReplicas: 8 };

const nodeArb = (shape: LabShape) =>
  fc.record({
    cpu: fc.integer({ min: shape.nodeCpu[0], max: shape.nodeCpu[1] }),
    memoryMiB: fc.integer({ min: shape.nodeMemoryGiB[0], max: shape.nodeMemoryGiB[1] }).map((g) => g * 1024),
  });

const poolArb = (instances: string[], shape: LabShape) =>
  fc.record({
    count: fc.oneof(
      fc.integer({ min: 1, max: shape.maxReplicas }).map((replicas) => ({ replicas })),
      fc
        .tuple(fc.integer({ min: 0, max: shape.maxReplicas }), fc.integer({ min: 1, max: shape.maxReplicas }))
        .map(([a, b]) => ({ autoscaling: { min: Math.min(a, b), max: Math.max(a, b, 1) } })),
    ),
    size: fc.record({ cpu: fc.integer({ min: 1, max: 8 }), memoryMiB: fc.integer({ min: 1, max: 32 }).map((g) => g * 1024) }),
    instance: fc.option(fc.constantFrom(...instances), { freq: 6, nil: undefined }),
  });

const tenantArb = (instances: string[], shape: LabShape) =>
  fc.record({
    mode: fc.constantFrom(...MODES),
    instances: fc.option(fc.subarray(instances, { minLength: 1 }), { freq: 2, nil: undefined }),
    pools: fc.uniqueArray(fc.tuple(fc.constantFrom(...POOL_NAMES), poolArb(instances, shape)), {
      minLength: 1,
      maxLength: 3,
      selector: ([name]) => name,
    }),
  });

/** A random lab: 1-4 instances of 1-4 nodes, up to `maxTenants` tenants of every mode. */
export function labSpecArb(shape: LabShape, options: { pins?: boolean } = {}): fc.Arbitrary<LabSpec> {
  return fc
    .record({
      instanceCount: fc.integer({ min: 1, max: 4 }),
      reserve: fc.record({ cpu: fc.integer({ min: 0, max: 2 }), memoryMiB: fc.constantFrom(0, 1024, 4096) }),
    })
    .chain(({ instanceCount, reserve }) => {
      const names = INSTANCE_NAMES.slice(0, instanceCount);
      return fc.record({
        reserve: fc.constant(reserve),
        instances: fc.tuple(
          ...names.map((name) =>
            fc.array(nodeArb(shape), { minLength: 1, maxLength: 4 }).map((nodes) => ({
              name,
              nodes: nodes.map((n, i) => ({ name: `${name}-${i + 1}`, ...n })),
            })),
          ),
        ),
        tenants: fc.uniqueArray(fc.tuple(fc.constantFrom(...TENANT_NAMES), tenantArb(names, shape)), {
          maxLength: shape.maxTenants,
          selector: ([name]) => name,
        }),
      });
    })
    .map(({ reserve, instances, tenants }) => ({
      reserve,
      instances,
      tenants: tenants.map(([name, t]) => ({
        name,
        mode: t.mode,
        instances: t.instances,
        pools: t.pools.map(([poolName, p]) => ({
          name: poolName,
          ...p.count,
          size: p.size,
          instance: options.pins === false ? undefined : p.instance,
        })),
      })),
    }));
}

/** A permutation of a list, driven by fast-check so that failures shrink and replay. */
export function permutationArb<T>(items: readonly T[]): fc.Arbitrary<T[]> {
  return fc.array(fc.nat(), { minLength: items.length, maxLength: items.length }).map((keys) =>
    items
      .map((item, i) => ({ item, key: keys[i], i }))
      .sort((a, b) => a.key - b.key || a.i - b.i)
      .map((x) => x.item),
  );
}

/** The spec with tenants, pools, nodes and eligible-instance lists reordered by `seed`. */
export function shuffledArb(spec: LabSpec): fc.Arbitrary<LabSpec> {
  return fc
    .record({
      tenants: permutationArb(spec.tenants).chain((tenants) =>
        fc.tuple(
          ...tenants.map((t) =>
            fc
              .record({ pools: permutationArb(t.pools), instances: t.instances ? permutationArb(t.instances) : fc.constant(undefined) })
              .map((r) => ({ ...t, ...r })),
          ),
        ),
      ),
      instances: fc.tuple(...spec.instances.map((i) => permutationArb(i.nodes).map((nodes) => ({ ...i, nodes })))),
    })
    .map(({ tenants, instances }) => ({ ...spec, tenants: spec.tenants.length === 0 ? [] : tenants, instances }));
}
