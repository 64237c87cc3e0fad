/**
 * The machine deployments of each tenant as the tenant rendering names them (with the template
 * hash it appends, when it does), falling back to placement's groups when the description cannot
 * be rendered (a random lab without networks, say): same pools, instances and nodes, base names.
 */
import type { Lab } from '../config/schema';
import type { PlacementPlan } from '../placement/types';
import { renderTenants } from '../tenants';
import { machineDeployments, type MachineDeploymentPlan } from '../tenants/machine-deployments';

export function tenantMachineDeployments(lab: Lab, plan: PlacementPlan): Map<string, MachineDeploymentPlan[]> {
  const result = new Map(plan.tenants.map((t) => [t.name, machineDeployments(t)]));
  try {
    for (const [tenant, rendering] of renderTenants(lab, plan)) result.set(tenant, rendering.machineDeployments);
  } catch {
    // Not renderable: placement's groups say the same about where machines are.
  }
  return result;
}
