// STUB: replaced by the management-config stack of issue 5 (ClusterClass added by issue 6).
import { TerraformStack } from 'cdktf';
import type { Construct } from 'constructs';
import type { LabStackProps } from './props';

export type ManagementConfigStackProps = LabStackProps;

export class ManagementConfigStack extends TerraformStack {
  constructor(scope: Construct, id: string, _props: ManagementConfigStackProps) {
    super(scope, id);
  }
}
