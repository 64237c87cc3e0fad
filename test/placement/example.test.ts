/**
 * The CAPMOX multi-instance proposal's own example (pmox-txl with two nodes, pmox-fra with three)
 * and the project's example lab, with expectations worked out by hand from the rules.
 */
import { join } from 'node:path';
import { loadLabFile } from '../../modules/config/load';
import { machinesAtLeast, machinesAtMost, planPlacement } from '../../modules/placement';
import { labOf, perInstance, perNode, poolOf, proposalInstances, tenantOf, type PoolSpec } from './support';

const workers = (replicas: number, instance?: string): PoolSpec => ({ name: 'workers', replicas, size: { cpu: 4, memoryMiB: 8192 }, instance });
const sorted = (m: Map<string, number>) => [...m.values()].sort((a, b) => b - a);

describe('the proposal example: pmox-txl (2 nodes) and pmox-fra (3 nodes)', () => {
  // The proposal's cluster is called "test"; its rendezvous ranking is pmox-fra > pmox-txl
  // (pinned in hash-and-spread.test.ts: weight 3465524215 for pmox-fra, 2009293845 for pmox-txl).
  const lab = (mode: 'Default' | 'SingleInstance' | 'MultiInstance', pools: PoolSpec[], name = 'test') =>
    labOf({ reserve: { cpu: 2, memoryMiB: 8192 }, instances: proposalInstances, tenants: [{ name, mode, pools }] });

  it('a MultiInstance tenant with 5 workers over 2 instances gets 3 and 2, the 3 on its best-ranked instance', () => {
    const plan = planPlacement(lab('MultiInstance', [workers(5)]));
    const test = tenantOf(plan, 'test');
    expect(test.ranking).toEqual(['pmox-fra', 'pmox-txl']);
    const pool = poolOf(plan, 'test', 'workers');
    expect(Object.fromEntries(perInstance(pool))).toEqual({ 'pmox-fra': 3, 'pmox-txl': 2 });
    // Within each instance, one machine per node.
    expect(Object.fromEntries(perNode(pool, 'pmox-fra'))).toEqual({ 'pmox-fra-1': 1, 'pmox-fra-2': 1, 'pmox-fra-3': 1 });
    expect(Object.fromEntries(perNode(pool, 'pmox-txl'))).toEqual({ 'pmox-txl-1': 1, 'pmox-txl-2': 1 });
    expect(test.ha).toEqual({ survivesNodeLoss: true, survivesInstanceLoss: true });
    expect(test.instances).toEqual(['pmox-fra', 'pmox-txl']);
  });

  it('the extra machine follows the ranking: for "web" (pmox-txl first) 3 go to pmox-txl as 2 + 1', () => {
    const plan = planPlacement(lab('MultiInstance', [workers(5)], 'web'));
    expect(tenantOf(plan, 'web').ranking).toEqual(['pmox-txl', 'pmox-fra']);
    const pool = poolOf(plan, 'web', 'workers');
    expect(Object.fromEntries(perInstance(pool))).toEqual({ 'pmox-txl': 3, 'pmox-fra': 2 });
    expect(sorted(perNode(pool, 'pmox-txl'))).toEqual([2, 1]);
    expect(sorted(perNode(pool, 'pmox-fra'))).toEqual([1, 1]);
  });

  it('Default mode puts everything on pmox-txl, the first instance, and cannot survive its loss', () => {
    const plan = planPlacement(lab('Default', [workers(4)]));
    const pool = poolOf(plan, 'test', 'workers');
    expect(Object.fromEntries(perNode(pool, 'pmox-txl'))).toEqual({ 'pmox-txl-1': 2, 'pmox-txl-2': 2 });
    expect(tenantOf(plan, 'test').ha).toEqual({ survivesNodeLoss: true, survivesInstanceLoss: false });
    expect(tenantOf(plan, 'test').ranking).toBeUndefined();
  });

  it('SingleInstance puts the whole tenant on its best-ranked instance, pmox-fra for "test"', () => {
    const plan = planPlacement(lab('SingleInstance', [workers(6), { name: 'gpu', replicas: 1, size: { cpu: 8, memoryMiB: 32768 } }]));
    expect(tenantOf(plan, 'test').instances).toEqual(['pmox-fra']);
    expect(sorted(perNode(poolOf(plan, 'test', 'workers'), 'pmox-fra'))).toEqual([2, 2, 2]);
    expect(tenantOf(plan, 'test').ha).toEqual({ survivesNodeLoss: false, survivesInstanceLoss: false });
  });

  it('a pool pinned to pmox-txl (the proposal\'s ProxmoxMachineTemplate "instance: pmox-txl") stays there in MultiInstance mode', () => {
    const plan = planPlacement(lab('MultiInstance', [workers(4, 'pmox-txl'), { name: 'batch', replicas: 2, size: { cpu: 2, memoryMiB: 4096 } }]));
    expect(poolOf(plan, 'test', 'workers').pinned).toBe('pmox-txl');
    expect(Object.fromEntries(perInstance(poolOf(plan, 'test', 'workers')))).toEqual({ 'pmox-txl': 4 });
    expect(Object.fromEntries(perInstance(poolOf(plan, 'test', 'batch')))).toEqual({ 'pmox-fra': 1, 'pmox-txl': 1 });
    expect(tenantOf(plan, 'test').reason).toContain('Pool workers is pinned to pmox-txl.');
  });

  it('capacity is the node minus the reserve: 30 cpu / 120 GiB on pmox-txl, 46 cpu / 184 GiB on pmox-fra', () => {
    const plan = planPlacement(lab('Default', [workers(1)]));
    expect(plan.nodes.map((n) => [n.node, n.cpu.capacity, n.memoryMiB.capacity])).toEqual([
      ['pmox-txl-1', 30, 122880],
      ['pmox-txl-2', 30, 122880],
      ['pmox-fra-1', 46, 188416],
      ['pmox-fra-2', 46, 188416],
      ['pmox-fra-3', 46, 188416],
    ]);
  });

  it('autoscaled workers 1..6 over both instances: max split 3 + 3, min 1 on the best-ranked instance', () => {
    const plan = planPlacement(lab('MultiInstance', [{ name: 'workers', autoscaling: { min: 1, max: 6 }, size: { cpu: 4, memoryMiB: 16384 } }]));
    const pool = poolOf(plan, 'test', 'workers');
    expect(pool.scale).toEqual({ kind: 'autoscaled', min: 1, max: 6 });
    expect(Object.fromEntries(perInstance(pool, 'max'))).toEqual({ 'pmox-fra': 3, 'pmox-txl': 3 });
    expect(Object.fromEntries(perInstance(pool, 'replicas'))).toEqual({ 'pmox-fra': 1, 'pmox-txl': 0 });
    // Capacity is reserved for max: 3 machines of 4 cpu on pmox-fra's nodes, 1 each.
    expect(plan.nodes.filter((n) => n.instance === 'pmox-fra').map((n) => n.cpu.planned)).toEqual([4, 4, 4]);
    // One machine (the min) cannot survive losing its node or instance.
    expect(tenantOf(plan, 'test').ha).toEqual({ survivesNodeLoss: false, survivesInstanceLoss: false });
  });
});

describe('the example lab (examples/lab.yaml)', () => {
  const plan = planPlacement(loadLabFile(join(__dirname, '../../examples/lab.yaml')));

  it('tenant-a (Default) has its 3 workers on pmox-txl as 2 + 1', () => {
    const pool = poolOf(plan, 'tenant-a', 'workers');
    expect([...perInstance(pool).keys()]).toEqual(['pmox-txl']);
    expect(sorted(perNode(pool, 'pmox-txl'))).toEqual([2, 1]);
  });

  it('tenant-b (SingleInstance) is entirely on one instance, its best-ranked pmox-txl, with capacity for the autoscaling max', () => {
    const tenant = tenantOf(plan, 'tenant-b');
    expect(tenant.ranking).toEqual(['pmox-txl', 'pmox-fra']);
    expect(tenant.instances).toEqual(['pmox-txl']);
    const workersPool = poolOf(plan, 'tenant-b', 'workers');
    expect(workersPool.scale).toEqual({ kind: 'autoscaled', min: 1, max: 6 });
    expect(workersPool.placements.reduce((n, p) => n + machinesAtMost(p.scale), 0)).toBe(6);
    expect(workersPool.placements.reduce((n, p) => n + machinesAtLeast(p.scale), 0)).toBe(1);
    expect(tenant.ha.survivesNodeLoss).toBe(false); // the single gpu machine
  });

  it('tenant-c (MultiInstance) gets 3 on pmox-fra (ranked first) and 2 on pmox-txl, where only pmox-txl-2 has room left', () => {
    const pool = poolOf(plan, 'tenant-c', 'workers');
    expect(Object.fromEntries(perInstance(pool))).toEqual({ 'pmox-fra': 3, 'pmox-txl': 2 });
    // pmox-txl-1 keeps 30 cpu: tenant-a's 2 workers (8), tenant-b's gpu (8) and 3 of its workers (12) leave 2, less than 4.
    const txl1 = plan.nodes.find((n) => n.node === 'pmox-txl-1')!;
    expect(txl1.cpu).toEqual({ capacity: 30, planned: 28 });
    expect(Object.fromEntries(perNode(pool, 'pmox-txl'))).toEqual({ 'pmox-txl-2': 2 });
    expect(plan.warnings).toEqual([
      'tenant tenant-c, pool workers: spread unevenly over the nodes of pmox-txl (pmox-txl-1: 0, pmox-txl-2: 2) because pmox-txl-1 has no room for more',
    ]);
  });

  it('accounts every node: the machines planned add up to the sizes', () => {
    // pmox-txl-2: tenant-a 1 × 4 cpu, tenant-b 3 × 4 cpu, tenant-c 2 × 4 cpu = 24 cpu.
    const txl2 = plan.nodes.find((n) => n.node === 'pmox-txl-2')!;
    expect(txl2.cpu.planned).toBe(24);
    expect(txl2.tenants.map((t) => [t.name, t.cpu, t.memoryMiB])).toEqual([
      ['tenant-a', 4, 8192],
      ['tenant-b', 12, 3 * 16384],
      ['tenant-c', 8, 2 * 8192],
    ]);
  });
});
