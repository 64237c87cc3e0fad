import { HelmV3Provider as HelmProvider } from './helm-v3';
import { KubernetesProvider } from '@cdktf/provider-kubernetes/lib/provider';
import { TerraformVariable } from 'cdktf';
import { Construct } from 'constructs';
import type { Management } from '../modules/config/schema';

export interface TenantProvidersProps {
  /** How Terraform reaches the management cluster (`management.kubernetes` of the lab). */
  readonly access: Management['kubernetes'];
}

/**
 * The kubernetes and helm providers of a tenant stack, both pointed at the management cluster.
 * With `host` access the CA certificate and token come from sensitive Terraform variables
 * (`management_cluster_ca_certificate`, `management_cluster_token`, the names the management stacks use), never from the synthesized files.
 */
export class TenantProviders extends Construct {
  readonly kubernetes: KubernetesProvider;
  readonly helm: HelmProvider;

  constructor(scope: Construct, id: string, props: TenantProvidersProps) {
    super(scope, id);
    const access = props.access;
    if ('configPath' in access) {
      const kubeconfig = { configPath: access.configPath, ...(access.context ? { configContext: access.context } : {}) };
      this.kubernetes = new KubernetesProvider(this, 'kubernetes', kubeconfig);
      this.helm = new HelmProvider(this, 'helm', { kubernetes: kubeconfig });
      return;
    }
    const ca = new TerraformVariable(this, 'ca', {
      type: 'string',
      sensitive: true,
      description: 'PEM CA certificate of the management cluster API server',
    });
    ca.overrideLogicalId('management_cluster_ca_certificate');
    const token = new TerraformVariable(this, 'token', {
      type: 'string',
      sensitive: true,
      description: 'bearer token for the management cluster',
    });
    token.overrideLogicalId('management_cluster_token');
    const credentials = { host: access.host, clusterCaCertificate: ca.stringValue, token: token.stringValue };
    this.kubernetes = new KubernetesProvider(this, 'kubernetes', credentials);
    this.helm = new HelmProvider(this, 'helm', { kubernetes: credentials });
  }
}
