/**
 * How Terraform reaches the management cluster: the kubernetes provider (and, for Helm releases,
 * the helm provider) configured from `management.kubernetes` of the lab description — a kubeconfig
 * path and context, or an API server URL whose CA certificate and token come from sensitive
 * Terraform variables, so no credential is ever written into the synthesized files.
 */
import { TerraformVariable } from 'cdktf';
import { Construct } from 'constructs';
import { HelmV3Provider as HelmProvider } from './helm-v3';
import { KubernetesProvider } from '@cdktf/provider-kubernetes/lib/provider';
import type { Management } from '../modules/config/schema';

export interface ManagementKubernetesAccessProps {
  /** `management.kubernetes` of the lab description. */
  readonly access: Management['kubernetes'];
  /**
   * Also configure the helm provider (hashicorp/helm 3.x: `kubernetes` is an attribute).
   * @default false
   */
  readonly helm?: boolean;
}

/** The Terraform variable names a host-based connection asks for. */
export const MANAGEMENT_CA_VARIABLE = 'management_cluster_ca_certificate';
export const MANAGEMENT_TOKEN_VARIABLE = 'management_cluster_token';

export class ManagementKubernetesAccess extends Construct {
  readonly kubernetes: KubernetesProvider;
  readonly helm?: HelmProvider;

  constructor(scope: Construct, id: string, props: ManagementKubernetesAccessProps) {
    super(scope, id);
    let connection: { configPath?: string; configContext?: string; host?: string; clusterCaCertificate?: string; token?: string };
    if ('host' in props.access) {
      const ca = new TerraformVariable(scope, MANAGEMENT_CA_VARIABLE, {
        type: 'string',
        sensitive: true,
        description: 'PEM CA certificate of the management cluster API server',
      });
      const token = new TerraformVariable(scope, MANAGEMENT_TOKEN_VARIABLE, {
        type: 'string',
        sensitive: true,
        description: 'bearer token Terraform uses on the management cluster',
      });
      connection = { host: props.access.host, clusterCaCertificate: ca.stringValue, token: token.stringValue };
    } else {
      connection = { configPath: props.access.configPath, ...(props.access.context ? { configContext: props.access.context } : {}) };
    }
    this.kubernetes = new KubernetesProvider(scope, 'kubernetes', connection);
    if (props.helm) this.helm = new HelmProvider(scope, 'helm', { kubernetes: connection });
  }
}
