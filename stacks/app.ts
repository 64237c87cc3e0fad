/**
 * Builds every stack of a lab into a cdktf App, in deploy order:
 * proxmox-<instance> → management → management-config → tenant-<name>.
 * Stack ids are derived from names in the description, never from list positions.
 */
import type { App } from 'cdktf';
import type { Lab } from '../modules/config/schema';
import type { PlacementPlan } from '../modules/placement/types';
import { ManagementConfigStack } from './management-config-stack';
import { ManagementStack } from './management-stack';
import type { InstanceCredentials } from './props';
import { ProxmoxInstanceStack } from './proxmox-instance-stack';
import { TenantStack } from './tenant-stack';

export interface LabStacks {
  instances: Map<string, ProxmoxInstanceStack>;
  management: ManagementStack;
  managementConfig: ManagementConfigStack;
  tenants: Map<string, TenantStack>;
}

export function buildLab(app: App, lab: Lab, plan: PlacementPlan): LabStacks {
  const instances = new Map<string, ProxmoxInstanceStack>();
  const credentials: Record<string, InstanceCredentials> = {};
  for (const instance of lab.proxmox.instances) {
    const stack = new ProxmoxInstanceStack(app, `proxmox-${instance.name}`, { lab, plan, instance });
    instances.set(instance.name, stack);
    credentials[instance.name] = stack.credentials;
  }
  const management = new ManagementStack(app, 'management', { lab, plan, credentials });
  const managementConfig = new ManagementConfigStack(app, 'management-config', { lab, plan });
  managementConfig.addDependency(management);
  const tenants = new Map<string, TenantStack>();
  for (const tenant of [...lab.tenants].sort((a, b) => a.name.localeCompare(b.name))) {
    const stack = new TenantStack(app, `tenant-${tenant.name}`, { lab, plan, tenant });
    stack.addDependency(managementConfig);
    tenants.set(tenant.name, stack);
  }
  return { instances, management, managementConfig, tenants };
}
