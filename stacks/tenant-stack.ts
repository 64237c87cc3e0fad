// STUB: replaced by the tenant stack of issue 6.
import { TerraformStack } from 'cdktf';
import type { Construct } from 'constructs';
import type { Tenant } from '../modules/config/schema';
import type { LabStackProps } from './props';

export interface TenantStackProps extends LabStackProps {
  readonly tenant: Tenant;
}

export class TenantStack extends TerraformStack {
  constructor(scope: Construct, id: string, _props: TenantStackProps) {
    super(scope, id);
  }
}
