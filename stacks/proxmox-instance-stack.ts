/**
 * `proxmox-<instance>`: prepares one Proxmox VE instance (cluster) for Cluster API with the
 * bpg/proxmox provider, through the API only (no SSH to the nodes):
 *   - the CAPMOX service account: user, custom roles, privilege-separated API token, ACLs;
 *   - resource pools for CAPMOX's machines and for templates;
 *   - one node template per `images` entry and target node (none when the instance names an
 *     existing template by `templateID`).
 * Outputs: the CAPMOX credentials (sensitive), the template VM ids per version and node, the nodes.
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
import { imageNodes, type Instance } from '../modules/config/schema';
import type { InstanceCredentials, LabStackProps } from './props';

export interface ProxmoxInstanceStackProps extends LabStackProps {
  readonly instance: Instance;
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

    const pools = {
      vms: new VirtualEnvironmentPool(this, `pool-${instance.pools.vms}`, {
        poolId: instance.pools.vms,
        comment: 'Cluster API machines (CAPMOX); managed by pvekaas',
      }),
      templates: new VirtualEnvironmentPool(this, `pool-${instance.pools.templates}`, {
        poolId: instance.pools.templates,
        comment: 'Node templates CAPMOX clones; managed by pvekaas',
      }),
    };

    const existingTemplate = 'templateID' in instance.template ? instance.template : undefined;
    this.serviceAccount = new CapmoxServiceAccount(this, 'capmox', {
      vmPool: instance.pools.vms,
      templates: existingTemplate ? { vmId: existingTemplate.templateID } : { pool: instance.pools.templates },
      diskStorage: instance.storage.disks,
      cloudInitStorage: instance.storage.cloudInit,
      bridge: instance.bridge,
      aclDependsOn: [pools.vms, pools.templates],
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
            bridge: instance.bridge,
          });
          perNode[node] = vmId;
        }
        this.templateIds[image.kubernetesVersion] = perNode;
      }
    }

    const url = instance.endpoint.replace(/\/+$/, '');
    this.credentials = { url, token: this.serviceAccount.tokenId, secret: this.serviceAccount.tokenSecret };
    new TerraformOutput(this, 'credentials', {
      description: 'What the CAPMOX credentials Secret needs: url, token, secret',
      sensitive: true,
      value: { url, token: this.serviceAccount.tokenId, secret: this.serviceAccount.tokenSecret },
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
