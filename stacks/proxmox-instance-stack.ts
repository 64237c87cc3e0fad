/**
 * `proxmox-<instance>`: prepares one Proxmox VE instance (cluster) for Cluster API with the
 * bpg/proxmox provider, through the API only (no SSH to the nodes):
 *   - the CAPMOX service account: user, custom roles, and one privilege-separated API token per
 *     tenant with machines on the instance, whose VM privileges cover that tenant's pool only;
 *   - one resource pool per such tenant (`<pools.vms>-<tenant>`) and one for templates;
 *   - one directory storage per such tenant for its cloud-init ISOs (`<storage.cloudInit>-<tenant>`);
 *   - one node template per `images` entry and target node (none when the instance names an
 *     existing template by `templateID`).
 * Outputs: the CAPMOX credentials per tenant (sensitive), the template VM ids per version and node, the nodes.
 * Everything it holds is rendered first (modules/rendering/instance.ts `renderInstance`); the stack
 * writes it and wires the references (an ACL after its pool, the credentials from the tokens).
 *
 * The administrator API token the provider uses comes from the sensitive variable
 * `proxmox_api_token` (TF_VAR_proxmox_api_token), never from the description.
 */
import { TerraformOutput, TerraformStack, TerraformVariable } from 'cdktf';
import type { Construct } from 'constructs';
import { DataProxmoxVirtualEnvironmentNodes } from '../.gen/providers/proxmox/data-proxmox-virtual-environment-nodes';
import { ProxmoxProvider } from '../.gen/providers/proxmox/provider';
import { VirtualEnvironmentPool } from '../.gen/providers/proxmox/virtual-environment-pool';
import { CapmoxServiceAccount } from '../constructs/proxmox-capmox-service-account';
import { ProxmoxNodeTemplate } from '../constructs/proxmox-node-template';
import { StorageDirectory } from '../.gen/providers/proxmox/storage-directory';
import type { InstanceRendering, PoolRendering } from '../modules/rendering/instance';
import type { InstanceCredentials } from './props';

export { API_TOKEN_VARIABLE } from '../modules/rendering/instance';

export interface ProxmoxInstanceStackProps {
  /** The instance, rendered (`renderInstance`, or `LabRendering.instances`). */
  readonly rendering: InstanceRendering;
}

export class ProxmoxInstanceStack extends TerraformStack {
  readonly credentials: InstanceCredentials;
  readonly serviceAccount: CapmoxServiceAccount;
  /** Template VM id per Kubernetes version and node (empty when the instance uses `templateID`). */
  readonly templateIds: Readonly<Record<string, Readonly<Record<string, number>>>>;

  constructor(scope: Construct, id: string, props: ProxmoxInstanceStackProps) {
    super(scope, id);
    const r = props.rendering;

    const apiToken = new TerraformVariable(this, r.apiToken.variable, {
      type: 'string',
      sensitive: true,
      nullable: false,
      description: r.apiToken.description,
    });
    new ProxmoxProvider(this, 'proxmox', {
      endpoint: r.provider.endpoint,
      insecure: r.provider.insecure,
      apiToken: apiToken.stringValue,
    });

    // One pool per tenant with machines here: its token's VM privileges stop at its pool.
    const pool = (p: PoolRendering) => new VirtualEnvironmentPool(this, p.id, { poolId: p.poolId, comment: p.comment });
    const tenantPools = r.tenantPools.map(pool);
    const templatesPool = pool(r.templatesPool);
    // One cloud-init storage per tenant (Proxmox VE grants ISOs per storage only).
    const cloudInitStorages = r.cloudInitStorages.map(
      (c) => new StorageDirectory(this, c.id, { id: c.storageId, path: c.path, content: [...c.content], shared: c.shared }),
    );

    this.serviceAccount = new CapmoxServiceAccount(this, 'capmox', {
      account: r.serviceAccount,
      aclPathDependsOn: Object.fromEntries([
        ...r.tenantPools.map((p, i) => [p.aclPath, tenantPools[i]] as const),
        ...r.cloudInitStorages.map((c, i) => [c.aclPath, cloudInitStorages[i]] as const),
        [r.templatesPool.aclPath, templatesPool] as const,
      ]),
    });

    for (const template of r.templates) new ProxmoxNodeTemplate(this, template.id, { template, poolReference: templatesPool.poolId });
    this.templateIds = r.templateIds;

    const url = r.url;
    const perTenant: Record<string, { token: string; secret: string }> = {};
    for (const [tenant, token] of this.serviceAccount.tokens) perTenant[tenant] = { token: token.tokenId, secret: token.tokenSecret };
    this.credentials = { url, tenants: perTenant };
    new TerraformOutput(this, 'credentials', {
      description: 'What the CAPMOX credentials Secrets need: the url, and per tenant its own token and secret',
      sensitive: true,
      value: { url, tenants: perTenant },
    });
    new TerraformOutput(this, 'templates', {
      description: 'Template VM id per Kubernetes version and node',
      value: this.templateIds,
    });
    const nodes = new DataProxmoxVirtualEnvironmentNodes(this, 'cluster-nodes', {});
    new TerraformOutput(this, 'nodes', {
      description: 'Nodes of the instance, as Proxmox reports them',
      value: nodes.names,
    });
  }
}
