/**
 * Builds every stack of a lab into a cdktf App, in deploy order:
 * proxmox-<instance> → management → management-config → tenant-<name>.
 * Stack ids are derived from names in the description, never from list positions.
 *
 * The one road into the stacks: the lab is rendered first (`renderLab` in modules/rendering, pure:
 * every instance, the management plane, management-config and every tenant, every problem at
 * once), and each stack receives only its part of that rendering. Stacks never see the placement plan.
 */
import { TerraformStack, type App } from 'cdktf';
import { addStateBackend } from '../constructs/state-backend';
import type { Lab } from '../modules/config/schema';
import type { LabRendering } from '../modules/rendering';
import { ManagementConfigStack } from './management-config-stack';
import { ManagementStack } from './management-stack';
import type { InstanceCredentials } from './props';
import { ProxmoxInstanceStack } from './proxmox-instance-stack';
import { TenantStack } from './tenant-stack';

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

/**
 * Every stack of `lab`, from its rendering (`renderLab(lab, planPlacement(lab))`, done before any
 * stack exists: every problem of the lab at once, or none). Of the lab itself only the state
 * backend (`delivery`) and how Terraform reaches the management cluster are read here.
 */
export function buildLab(app: App, lab: Pick<Lab, 'delivery' | 'management' | 'tenants'>, rendering: LabRendering, options: BuildOptions = {}): LabStacks {
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
    for (const [instance, instanceRendering] of rendering.instances) {
      const name = `proxmox-${instance}`;
      const stack = withBackend(new ProxmoxInstanceStack(app, name, { rendering: instanceRendering }), name);
      instances.set(instance, stack);
      credentials[instance] = stack.credentials;
    }
    management = withBackend(new ManagementStack(app, 'management', { rendering: rendering.management, credentials }), 'management');
    managementConfig = withBackend(
      new ManagementConfigStack(app, 'management-config', { rendering: rendering.managementConfig, access: lab.management.kubernetes }),
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
    const stack = withBackend(new TenantStack(app, name, { rendering: tenantRendering, access: lab.management.kubernetes }), name);
    stack.addDependency(managementConfig);
    tenants.set(tenant.name, stack);
  }
  return { instances, management, managementConfig, tenants };
}
