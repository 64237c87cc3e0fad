/**
 * One machine deployment per placement group of the plan: a pool's machines on one node of one
 * instance. CAPMOX schedules a machine deployment's VMs over its allowed nodes by free memory, so
 * only one node per machine deployment keeps the VMs where placement planned them (and the
 * capacity it reserved for an autoscaled pool's maximum on that node really is there).
 */
import type { PoolPlan, TenantPlan } from '../placement/types';
import { machinesAtMost } from '../placement/scale';
import { nodeGroups, type NodeGroupScale } from './node-groups';
import { ProblemError } from '../config/problems';
import { renderTitle } from './problems';
import { LABEL_INSTANCE, LABEL_POOL, LABEL_PROXMOX_NODE, LABEL_REGION, LABEL_ZONE, machineDeploymentNames } from './names';

export interface MachineDeploymentPlan {
  /** Topology name, unique in the tenant. */
  name: string;
  pool: string;
  instance: string;
  /** The allowed nodes of its VMs. */
  nodes: string[];
  size: PoolPlan['size'];
  /** Its node group's scale: fixed replicas or autoscaler bounds (the typed contract, node-groups.ts). */
  scale: NodeGroupScale;
}

export const AUTOSCALER_MIN = 'cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size';
export const AUTOSCALER_MAX = 'cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size';
const CAPACITY = 'capacity.cluster-autoscaler.kubernetes.io';

export function machineDeployments(plan: TenantPlan): MachineDeploymentPlan[] {
  const groups = nodeGroups(plan).map((g) => ({ ...g, node: g.nodes[0] }));
  const names = machineDeploymentNames(groups);
  const result = groups.map((g): MachineDeploymentPlan => {
    return { name: names.get(g) as string, pool: g.pool, instance: g.instance, nodes: [...g.nodes], size: g.size, scale: g.scale };
  });
  const seen = new Map<string, MachineDeploymentPlan>();
  for (const md of result) {
    const other = seen.get(md.name);
    if (other) {
      throw new ProblemError(
        [
          {
            path: ['proxmox', 'instances'],
            message: `tenant ${plan.name}: the machine deployments of pool ${other.pool} on ${other.instance}/${other.nodes[0]} and of pool ${md.pool} on ${md.instance}/${md.nodes[0]} would both be named ${md.name}`,
            fix: 'Proxmox node names that differ only in case or punctuation cannot be told apart in Kubernetes names; rename one node in the description',
            rule: 'node.names-collide',
          },
        ],
        { title: renderTitle(1) },
      );
    }
    seen.set(md.name, md);
  }
  return result.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * Labels CAPI copies from the machines onto the tenant's Nodes: pvekaas's own (`node.cluster.x-k8s.io/`,
 * synced by default) and the topology ones the Proxmox CSI node plugin reads (synced by the core
 * manager's `--additional-sync-machine-labels`). A change of these is propagated to running
 * Machines in place, without a rollout (CAPI's in-place propagation of template metadata).
 */
export function nodeLabels(md: MachineDeploymentPlan): Record<string, string> {
  return {
    [LABEL_POOL]: md.pool,
    [LABEL_INSTANCE]: md.instance,
    [LABEL_PROXMOX_NODE]: md.nodes[0],
    [LABEL_REGION]: md.instance,
    [LABEL_ZONE]: md.nodes[0],
  };
}

/**
 * Autoscaler annotations of an autoscaled machine deployment: its bounds, and the capacity of one
 * machine, which the autoscaler needs to scale a node group up from zero (CAPMOX does not report
 * capacity for its templates). `floor`: the node group's `autoscaling.floor` (./floor.ts), the min while above it.
 */
export function autoscalerAnnotations(md: MachineDeploymentPlan, floor?: number): Record<string, string> {
  if (md.scale.kind !== 'autoscaled') return {};
  const labels = Object.entries(nodeLabels(md))
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
  return {
    // A floor (surge, then retire: ./floor.ts) raises the min until the retire step is done.
    [AUTOSCALER_MIN]: String(Math.max(md.scale.min, floor ?? 0)),
    [AUTOSCALER_MAX]: String(md.scale.max),
    [`${CAPACITY}/cpu`]: String(md.size.cpu),
    [`${CAPACITY}/memory`]: `${md.size.memoryMiB}Mi`,
    [`${CAPACITY}/ephemeral-disk`]: `${md.size.diskGiB}Gi`,
    [`${CAPACITY}/labels`]: labels,
  };
}

/** The most machines the tenant can have at once: every pool at its maximum. */
export function maxMachines(mds: readonly MachineDeploymentPlan[]): number {
  return mds.reduce((n, md) => n + machinesAtMost(md.scale), 0);
}
