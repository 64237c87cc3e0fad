/**
 * The floor of an autoscaled pool through surge, then retire (docs/tenants.md, "Surge, then retire",
 * its autoscaled pools): `pools[].autoscaling.floor`, by `<instance>/<node>`, the least the new machine
 * deployments of that node group may have until the retire step is done — the pool's size there
 * now, which the retire step takes from the old ones. It is rendered as their min-size annotation
 * (the retiring ones keep their bounds), so:
 *
 * - CAPI makes a new autoscaled MachineDeployment with replicas = its min-size annotation
 *   (sigs.k8s.io/cluster-api v1.13.6 internal/webhooks/machinedeployment.go,
 *   `calculateMachineDeploymentReplicas`: `oldMD == nil` → min size), when the surge step makes it;
 * - the cluster-autoscaler never takes a node group below it (cluster-autoscaler 1.34.5, 1.35.2,
 *   1.36.1: `core/scaledown/unneeded/nodes.go` verifyMinSize, `size - deletionsInProgress <=
 *   MinSize()` → NodeGroupMinSizeReached, no scale-down candidate; `cloudprovider/clusterapi/
 *   clusterapi_nodegroup.go` DeleteNodes refuses below MinSize, which is the annotation,
 *   `clusterapi_utils.go` minSize) — unlike a `kubectl scale`, which its scale-down of unneeded
 *   Nodes undoes;
 * - the topology controller owns the annotation (the Cluster's `workers.machineDeployments[].metadata`,
 *   exp/topology/desiredstate/desired_state.go computeMachineDeployment), so it comes from the
 *   description: a `kubectl annotate` would be reverted.
 *
 * After the retire step the operator removes the floor; the next deploy restores the declared min.
 * Synth reads nothing live: the operator states the number (the retire guard names it).
 */
import type { Problem } from '../config/problems';
import type { Tenant } from '../config/schema';
import type { MachineDeploymentPlan } from './machine-deployments';

/** The floor key of a machine deployment's node group: `<instance>/<node>`. */
export const floorKey = (md: Pick<MachineDeploymentPlan, 'instance' | 'nodes'>) => `${md.instance}/${md.nodes[0]}`;

/** The floor the description gives a machine deployment's node group, if any. */
export function floorOf(tenant: Tenant, md: MachineDeploymentPlan): number | undefined {
  const floor = tenant.pools.find((p) => p.name === md.pool)?.autoscaling?.floor;
  return floor && Object.hasOwn(floor, floorKey(md)) ? floor[floorKey(md)] : undefined;
}

/**
 * Floors that name no node group of the pool in the tenant's topology Cluster (`topology`: every
 * one the plan makes there, held groups of a staged surge too), or one above that node group's max
 * in the plan (placement splits the pool's max over its nodes).
 */
export function floorProblems(tenant: Tenant, base: (string | number)[], topology: readonly MachineDeploymentPlan[]): Problem[] {
  const problems: Problem[] = [];
  tenant.pools.forEach((pool, pi) => {
    for (const [key, n] of Object.entries(pool.autoscaling?.floor ?? {})) {
      const path = [...base, 'pools', pi, 'autoscaling', 'floor', key];
      const groups = topology.filter((md) => md.pool === pool.name && floorKey(md) === key);
      const known = [...new Set(topology.filter((md) => md.pool === pool.name).map(floorKey))].sort();
      if (groups.length === 0) {
        problems.push({
          path,
          message: `tenant ${tenant.name}, pool ${pool.name}: autoscaling.floor names ${key}, where the plan puts no machine deployment of the pool in its topology Cluster`,
          value: n,
          fix: `name a node group of the pool (${known.join(', ') || 'none'}; npm run placement shows them), or remove the entry`,
          rule: 'pool.floor-unknown-node-group',
        });
        continue;
      }
      const max = groups.reduce((m, md) => m + (md.scale.kind === 'autoscaled' ? md.scale.max : 0), 0);
      if (n > max) {
        problems.push({
          path,
          message: `tenant ${tenant.name}, pool ${pool.name}: autoscaling.floor ${key} (${n}) is above the node group's max there (${max} in the plan)`,
          value: n,
          fix: `make it at most ${max}, or raise autoscaling.max so that the plan gives ${key} room for ${n}`,
          rule: 'pool.floor-above-node-max',
        });
      }
    }
  });
  return problems;
}
