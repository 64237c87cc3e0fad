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
import type { ManagementStack } from './management-stack';
import type { InstanceCredentials } from './props';
import type { ProxmoxInstanceStack } from './proxmox-instance-stack';
import type { TenantStack } from './tenant-stack';

/*
 * The stack classes are loaded when first built, not with this module: a synth that reuses the
 * shared stacks (the synth cache, one tenant changed) then never loads the instance and management
 * stacks' constructs and provider bindings (the Kubernetes provider's Job types alone are 4.6 MB of
 * JavaScript), nor a tenant stack's when no tenant is built.
 */
/* eslint-disable @typescript-eslint/no-require-imports */
const stackClasses = {
  management: () => (require('./management-stack') as typeof import('./management-stack')).ManagementStack,
  managementConfig: () => (require('./management-config-stack') as typeof import('./management-config-stack')).ManagementConfigStack,
  proxmoxInstance: () => (require('./proxmox-instance-stack') as typeof import('./proxmox-instance-stack')).ProxmoxInstanceStack,
  tenant: () => (require('./tenant-stack') as typeof import('./tenant-stack')).TenantStack,
};
/* eslint-enable @typescript-eslint/no-require-imports */

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
    const ProxmoxInstanceStack = stackClasses.proxmoxInstance();
    const ManagementStack = stackClasses.management();
    const ManagementConfigStack = stackClasses.managementConfig();
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
  let TenantStackClass: typeof TenantStack | undefined;
  for (const tenant of [...lab.tenants].sort((a, b) => a.name.localeCompare(b.name))) {
    const name = `tenant-${tenant.name}`;
    if (options.tenantStacks && !options.tenantStacks(name)) continue;
    const tenantRendering = rendering.tenants.get(tenant.name);
    if (!tenantRendering) throw new Error(`buildLab: no rendering of tenant ${tenant.name} (render the lab with renderLab)`);
    TenantStackClass ??= stackClasses.tenant();
    const stack = withBackend(new TenantStackClass(app, name, { rendering: tenantRendering, access: lab.management.kubernetes }), name);
    stack.addDependency(managementConfig);
    tenants.set(tenant.name, stack);
  }
  return { instances, management, managementConfig, tenants };
}
