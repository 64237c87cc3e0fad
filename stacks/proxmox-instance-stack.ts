// STUB: replaced by the instance stack of issue 4.
import { TerraformStack, TerraformVariable } from 'cdktf';
import type { Construct } from 'constructs';
import type { Instance } from '../modules/config/schema';
import type { InstanceCredentials, LabStackProps } from './props';

export interface ProxmoxInstanceStackProps extends LabStackProps {
  readonly instance: Instance;
}

export class ProxmoxInstanceStack extends TerraformStack {
  readonly credentials: InstanceCredentials;
  constructor(scope: Construct, id: string, props: ProxmoxInstanceStackProps) {
    super(scope, id);
    const token = new TerraformVariable(this, 'api_token', { type: 'string', sensitive: true });
    this.credentials = { url: props.instance.endpoint, token: 'capmox@pve!capi', secret: token.stringValue };
  }
}
