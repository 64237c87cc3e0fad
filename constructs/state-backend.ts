/**
 * Where a stack keeps its state: a local file under the project's state directory (default), or
 * one Terraform Cloud/Enterprise workspace per stack named `<prefix>-<stack>`.
 */
import { CloudBackend, LocalBackend, NamedCloudWorkspace, type TerraformStack } from 'cdktf';
import type { Delivery } from '../modules/config/schema';

export interface StateBackendProps {
  /** The stack's name, e.g. `proxmox-pmox-txl`. */
  readonly stackName: string;
  readonly delivery: Delivery;
  /**
   * The state directory as seen from a synthesized stack's directory (`<out>/stacks/<stack>/`),
   * e.g. `../../../state`. Relative, so the synthesized files carry no path of the machine that
   * made them, and the same from every stack (they are siblings), so cross-stack remote state
   * resolves too.
   */
  readonly stateDirFromStack: string;
}

/** Workspace names of a lab's stacks under Terraform Cloud. */
export function workspaceName(prefix: string, stackName: string): string {
  return `${prefix}-${stackName}`;
}

/**
 * cdktf 0.21 renders a named workspace's `project` in JSON but drops it in HCL; this keeps it in
 * both, so an exported HCL workspace lands in the right Terraform Cloud project.
 */
class ProjectWorkspace extends NamedCloudWorkspace {
  toHclTerraform(): Record<string, unknown> {
    const hcl = super.toHclTerraform();
    if (this.project === undefined) return hcl;
    return { ...hcl, project: { value: this.project, type: 'simple', storageClassType: 'string' } };
  }
}

export function addStateBackend(stack: TerraformStack, props: StateBackendProps): void {
  const { delivery } = props;
  if (delivery.backend === 'cloud' && delivery.cloud) {
    const cloud = delivery.cloud;
    new CloudBackend(stack, {
      organization: cloud.organization,
      hostname: cloud.hostname,
      workspaces: new ProjectWorkspace(workspaceName(cloud.workspacePrefix, props.stackName), cloud.project),
    });
    return;
  }
  new LocalBackend(stack, { path: `${props.stateDirFromStack}/${props.stackName}.tfstate` });
}
