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
import { ProxmoxNodeTemplate, templateVmIds } from '../constructs/proxmox-node-template';
import { StorageDirectory } from '../.gen/providers/proxmox/storage-directory';
import { tenantCloudInitPath, tenantCloudInitStorage, tenantProxmoxPool } from '../modules/config/proxmox-access';
import { imageNodes, type Instance } from '../modules/config/schema';
import type { InstanceCredentials } from './props';

export interface ProxmoxInstanceStackProps {
  readonly instance: Instance;
  /** The tenants with machines on the instance (`tenantsOnInstance` of the placement plan), by name. */
  readonly tenants: readonly string[];
  /**
   * The VLAN tag of each tenant's machines on the instance (`tenantVlanOn`), by tenant; a tenant
   * without one is untagged. Its token may use that VLAN of the bridge and nothing else.
   * @default {} (every tenant untagged)
   */
  readonly vlans?: Readonly<Record<string, number | undefined>>;
}

/** Name of the Terraform variable that carries the administrator API token (`user@realm!id=secret`). */
export const API_TOKEN_VARIABLE = 'proxmox_api_token';

export class ProxmoxInstanceStack extends TerraformStack {
  readonly credentials: InstanceCredentials;
  readonly serviceAccount: CapmoxServiceAccount;
  /** Template VM id per Kubernetes version and node (empty when the instance uses `templateID`). */
  readonly templateIds: Record<string, Record<string, number>>;

  constructor(scope: Construct, id: string, props: ProxmoxInstanceStackProps) {
    super(scope, id);
    const { instance } = props;

    const apiToken = new TerraformVariable(this, API_TOKEN_VARIABLE, {
      type: 'string',
      sensitive: true,
      nullable: false,
      description: `API token of an administrator of ${instance.name}, as user@realm!tokenid=secret (set TF_VAR_${API_TOKEN_VARIABLE})`,
    });
    new ProxmoxProvider(this, 'proxmox', {
      endpoint: instance.endpoint,
      insecure: instance.insecure,
      apiToken: apiToken.stringValue,
    });

    // One pool per tenant with machines here: its token's VM privileges stop at its pool.
    const tenants = props.tenants.map((name) => ({
      name,
      pool: tenantProxmoxPool(instance, name),
      cloudInitStorage: tenantCloudInitStorage(instance, name),
      vlan: props.vlans && Object.hasOwn(props.vlans, name) ? props.vlans[name] : undefined,
    }));
    const tenantPools = tenants.map(
      (t) =>
        new VirtualEnvironmentPool(this, `tenant-pool-${t.name}`, {
          poolId: t.pool,
          comment: `Cluster API machines (CAPMOX) of tenant ${t.name}; managed by pvekaas`,
        }),
    );
    const templatesPool = new VirtualEnvironmentPool(this, `pool-${instance.pools.templates}`, {
      poolId: instance.pools.templates,
      comment: 'Node templates CAPMOX clones; managed by pvekaas',
    });
    const pools = { templates: templatesPool };
    // One cloud-init storage per tenant: Proxmox VE grants ISOs per storage only, so a shared one
    // would let every tenant's token list, attach, replace and delete every tenant's bootstrap ISO.
    const cloudInitStorages = tenants.map(
      (t) =>
        new StorageDirectory(this, `cloudinit-storage-${t.name}`, {
          id: t.cloudInitStorage,
          path: tenantCloudInitPath(instance, t.name),
          content: ['iso'],
          shared: false,
        }),
    );

    const existingTemplate = 'templateID' in instance.template ? instance.template : undefined;
    this.serviceAccount = new CapmoxServiceAccount(this, 'capmox', {
      tenants,
      templates: existingTemplate
        ? { vmIds: [existingTemplate.templateID, ...(existingTemplate.versions ?? []).map((v) => v.templateID)] }
        : { pool: instance.pools.templates },
      diskStorage: instance.storage.disks,
      bridge: instance.bridge,
      aclPathDependsOn: Object.fromEntries([
        ...tenants.map((t, i) => [`/pool/${t.pool}`, tenantPools[i]] as const),
        ...tenants.map((t, i) => [`/storage/${t.cloudInitStorage}`, cloudInitStorages[i]] as const),
        [`/pool/${instance.pools.templates}`, templatesPool] as const,
      ]),
    });

    this.templateIds = {};
    if (!existingTemplate) {
      const nodeNames = instance.nodes.map((n) => n.name);
      const ids = templateVmIds(instance.name, instance.vmIdRange, nodeNames, instance.images.map((i) => i.kubernetesVersion));
      for (const image of [...instance.images].sort((a, b) => a.kubernetesVersion.localeCompare(b.kubernetesVersion))) {
        const perNode: Record<string, number> = {};
        for (const node of imageNodes(instance, image)) {
          const vmId = ids.get(image.kubernetesVersion)!.get(node)!;
          new ProxmoxNodeTemplate(this, `template-${image.kubernetesVersion}-${node}`, {
            node,
            image,
            vmId,
            imageStorage: instance.storage.images,
            diskStorage: instance.storage.disks,
            pool: pools.templates.poolId,
          });
          perNode[node] = vmId;
        }
        this.templateIds[image.kubernetesVersion] = perNode;
      }
    }

    const url = instance.endpoint.replace(/\/+$/, '');
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
