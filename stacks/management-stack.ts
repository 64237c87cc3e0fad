// STUB: replaced by the management stack of issue 5.
import { TerraformStack } from 'cdktf';
import type { Construct } from 'constructs';
import type { InstanceCredentials, LabStackProps } from './props';

export interface ManagementStackProps extends LabStackProps {
  /** CAPMOX credentials per instance name, from the instance stacks' outputs. */
  readonly credentials: Record<string, InstanceCredentials>;
}

export class ManagementStack extends TerraformStack {
  constructor(scope: Construct, id: string, _props: ManagementStackProps) {
    super(scope, id);
  }
}
