/**
 * How Terraform reaches the management cluster: the kubernetes provider (and, for Helm releases,
 * the helm provider) configured from `management.kubernetes` of the lab description — a kubeconfig
 * path and context, or an API server URL whose CA certificate and token come from sensitive
 * Terraform variables, so no credential is ever written into the synthesized files.
 *
 * The one provider setup of every stack that talks to the management cluster: `management` and
 * every `tenant-<name>` (with helm), `management-config` (without). The variables keep the same
 * names everywhere, so one workspace variable set serves every stack.
 */
import { TerraformVariable } from 'cdktf';
import { Construct } from 'constructs';
import { KubernetesProvider } from '@cdktf/provider-kubernetes/lib/provider';
import { HelmV3Provider } from './providers/helm-v3';
import type { Management } from '../modules/config/schema';
import { MANAGEMENT_CA_VARIABLE, MANAGEMENT_TOKEN_VARIABLE } from '../modules/config/terraform-literal';

/** The Terraform variable names a host-based connection asks for. */
export { MANAGEMENT_CA_VARIABLE, MANAGEMENT_TOKEN_VARIABLE };

export interface ManagementClusterProvidersProps {
  /** `management.kubernetes` of the lab description. */
  readonly access: Management['kubernetes'];
  /**
   * Also configure the helm provider (hashicorp/helm 3.x: `kubernetes` is an attribute).
   * @default false
   */
  readonly helm?: boolean;
  /**
   * Description of the token variable. Tenant stacks keep the text their workspaces were first
   * published with, so their synthesized files do not change.
   * @default 'bearer token Terraform uses on the management cluster'
   */
  readonly tokenDescription?: string;
}

type Connection = { configPath?: string; configContext?: string; host?: string; clusterCaCertificate?: string; token?: string };

export class ManagementClusterProviders extends Construct {
  readonly kubernetes: KubernetesProvider;
  readonly helm?: HelmV3Provider;

  constructor(scope: Construct, id: string, props: ManagementClusterProvidersProps) {
    super(scope, id);
    const { access } = props;
    let connection: Connection;
    if ('host' in access) {
      const ca = new TerraformVariable(this, 'ca', {
        type: 'string',
        sensitive: true,
        description: 'PEM CA certificate of the management cluster API server',
      });
      ca.overrideLogicalId(MANAGEMENT_CA_VARIABLE);
      const token = new TerraformVariable(this, 'token', {
        type: 'string',
        sensitive: true,
        description: props.tokenDescription ?? 'bearer token Terraform uses on the management cluster',
      });
      token.overrideLogicalId(MANAGEMENT_TOKEN_VARIABLE);
      connection = { host: access.host, clusterCaCertificate: ca.stringValue, token: token.stringValue };
    } else {
      connection = { configPath: access.configPath, ...(access.context ? { configContext: access.context } : {}) };
    }
    this.kubernetes = new KubernetesProvider(this, 'kubernetes', connection);
    if (props.helm) this.helm = new HelmV3Provider(this, 'helm', { kubernetes: connection });
  }
}
