/**
 * Builds every stack of a lab into a cdktf App, in deploy order:
 * proxmox-<instance> → management → management-config → tenant-<name>.
 * Stack ids are derived from names in the description, never from list positions.
 *
 * The one road into the stacks: the lab is rendered first (`renderLab`, pure: every tenant and the
 * management plane, every problem at once), and each stack receives only the part it renders.
 */
import { TerraformStack, type App } from 'cdktf';
import { addStateBackend } from '../constructs/state-backend';
import { tenantVlanOn, tenantsOnInstance } from '../modules/config/proxmox-access';
import type { Lab } from '../modules/config/schema';
import { renderManagement, type ManagementRendering } from '../modules/management';
import type { PlacementPlan } from '../modules/placement/types';
import { renderTenants, type TenantRendering } from '../modules/tenants';
import { ManagementConfigStack } from './management-config-stack';
import { ManagementStack } from './management-stack';
import type { InstanceCredentials } from './props';
import { ProxmoxInstanceStack } from './proxmox-instance-stack';
import { TenantStack } from './tenant-stack';

/** Everything a lab's stacks hold, as data. */
export interface LabRendering {
  readonly management: ManagementRendering;
  /** Every tenant, by name. */
  readonly tenants: Map<string, TenantRendering>;
}

/**
 * The lab rendered: every tenant and the management plane (past the version guard). Throws one
 * `ProblemError` with every problem of every tenant, or one for the management plane.
 */
export function renderLab(lab: Lab, plan: PlacementPlan): LabRendering {
  const tenants = renderTenants(lab, plan);
  return { management: renderManagement(lab), tenants };
}

export interface LabStacks {
  instances: Map<string, ProxmoxInstanceStack>;
  /** Undefined when the shared stacks are not built (`sharedStacks: false`). */
  management?: ManagementStack;
  managementConfig: TerraformStack;
  tenants: Map<string, TenantStack>;
}

export interface BuildOptions {
  /**
   * The local state directory as seen from a synthesized stack's directory.
   * @default `../../../<delivery.local.stateDir>` — right when the output directory sits in the project root (cdktf.out)
   */
  readonly stateDirFromStack?: string;
  /** The lab, already rendered (`renderLab` of this lab and plan), so a caller that rendered it does not pay twice. @default rendered here */
  readonly rendering?: LabRendering;
  /**
   * Which tenant stacks to construct, by stack name (`tenant-<name>`): the synth cache builds only
   * the tenants whose inputs changed. @default every tenant
   */
  readonly tenantStacks?: (stackName: string) => boolean;
  /**
   * Whether to build the instance and management stacks. Without them (the synth cache reuses
   * them), an empty `management-config` stack stands in for the tenants' dependency. @default true
   */
  readonly sharedStacks?: boolean;
}

export function buildLab(app: App, lab: Lab, plan: PlacementPlan, options: BuildOptions = {}): LabStacks {
  // Before any stack exists: every problem of the lab at once, or none.
  const rendering = options.rendering ?? renderLab(lab, plan);
  const stateDirFromStack = options.stateDirFromStack ?? `../../../${lab.delivery.local.stateDir}`;
  const withBackend = <T extends TerraformStack>(stack: T, stackName: string): T => {
    addStateBackend(stack, { stackName, delivery: lab.delivery, stateDirFromStack });
    return stack;
  };
  const instances = new Map<string, ProxmoxInstanceStack>();
  let management: ManagementStack | undefined;
  let managementConfig: TerraformStack;
  if (options.sharedStacks ?? true) {
    const credentials: Record<string, InstanceCredentials> = {};
    for (const instance of lab.proxmox.instances) {
      const name = `proxmox-${instance.name}`;
      const stack = withBackend(new ProxmoxInstanceStack(app, name, { instance, tenants: tenantsOnInstance(plan, instance.name), vlans: Object.fromEntries(lab.tenants.map((t) => [t.name, tenantVlanOn(t, instance.name)])) }), name);
      instances.set(instance.name, stack);
      credentials[instance.name] = stack.credentials;
    }
    management = withBackend(new ManagementStack(app, 'management', { rendering: rendering.management, credentials }), 'management');
    managementConfig = withBackend(
      new ManagementConfigStack(app, 'management-config', { management: lab.management, multiInstance: lab.capmox.multiInstance }),
      'management-config',
    );
    managementConfig.addDependency(management);
  } else {
    managementConfig = new TerraformStack(app, 'management-config');
  }
  const tenants = new Map<string, TenantStack>();
  for (const tenant of [...lab.tenants].sort((a, b) => a.name.localeCompare(b.name))) {
    const name = `tenant-${tenant.name}`;
    if (options.tenantStacks && !options.tenantStacks(name)) continue;
    const tenantRendering = rendering.tenants.get(tenant.name);
    if (!tenantRendering) throw new Error(`buildLab: no rendering of tenant ${tenant.name} (render the lab with renderLab)`);
    const stack = withBackend(
      new TenantStack(app, name, { rendering: tenantRendering, access: lab.management.kubernetes, mirror: lab.management.mirror }),
      name,
    );
    stack.addDependency(managementConfig);
    tenants.set(tenant.name, stack);
  }
  return { instances, management, managementConfig, tenants };
}
