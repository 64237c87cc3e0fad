/**
 * Builds every stack of a lab into a cdktf App, in deploy order:
 * proxmox-<instance> → management → management-config → tenant-<name>.
 * Stack ids are derived from names in the description, never from list positions.
 */
import type { App, TerraformStack } from 'cdktf';
import { addStateBackend } from '../constructs/state-backend';
import type { Lab } from '../modules/config/schema';
import type { PlacementPlan } from '../modules/placement/types';
import { ManagementConfigStack } from './management-config-stack';
import { ManagementStack } from './management-stack';
import type { InstanceCredentials } from './props';
import { ProxmoxInstanceStack } from './proxmox-instance-stack';
import { renderTenants, type TenantRendering } from '../modules/tenants';
import { TenantStack } from './tenant-stack';

export interface LabStacks {
  instances: Map<string, ProxmoxInstanceStack>;
  management: ManagementStack;
  managementConfig: ManagementConfigStack;
  tenants: Map<string, TenantStack>;
}

export interface BuildOptions {
  /**
   * The local state directory as seen from a synthesized stack's directory.
   * @default `../../../<delivery.local.stateDir>` — right when the output directory sits in the project root (cdktf.out)
   */
  readonly stateDirFromStack?: string;
  /** Every tenant already rendered (`renderTenants` of this lab and plan), so a caller that rendered them does not pay twice. */
  readonly renderings?: Map<string, TenantRendering>;
  /**
   * Which tenant stacks to construct, by stack name (`tenant-<name>`): the synth cache builds only
   * the tenants whose inputs changed. @default every tenant
   */
  readonly tenantStacks?: (stackName: string) => boolean;
}

export function buildLab(app: App, lab: Lab, plan: PlacementPlan, options: BuildOptions = {}): LabStacks {
  // Before any stack exists: every tenant problem of the lab at once, or none.
  const renderings = options.renderings ?? renderTenants(lab, plan);
  const stateDirFromStack = options.stateDirFromStack ?? `../../../${lab.delivery.local.stateDir}`;
  const withBackend = <T extends TerraformStack>(stack: T, stackName: string): T => {
    addStateBackend(stack, { stackName, delivery: lab.delivery, stateDirFromStack });
    return stack;
  };
  const instances = new Map<string, ProxmoxInstanceStack>();
  const credentials: Record<string, InstanceCredentials> = {};
  for (const instance of lab.proxmox.instances) {
    const name = `proxmox-${instance.name}`;
    const stack = withBackend(new ProxmoxInstanceStack(app, name, { lab, plan, instance }), name);
    instances.set(instance.name, stack);
    credentials[instance.name] = stack.credentials;
  }
  const management = withBackend(new ManagementStack(app, 'management', { lab, plan, credentials }), 'management');
  const managementConfig = withBackend(new ManagementConfigStack(app, 'management-config', { lab, plan }), 'management-config');
  managementConfig.addDependency(management);
  const tenants = new Map<string, TenantStack>();
  for (const tenant of [...lab.tenants].sort((a, b) => a.name.localeCompare(b.name))) {
    const name = `tenant-${tenant.name}`;
    if (options.tenantStacks && !options.tenantStacks(name)) continue;
    const stack = withBackend(new TenantStack(app, name, { lab, plan, tenant, rendering: renderings.get(tenant.name) }), name);
    stack.addDependency(managementConfig);
    tenants.set(tenant.name, stack);
  }
  return { instances, management, managementConfig, tenants };
}
