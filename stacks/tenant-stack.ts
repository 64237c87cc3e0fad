/**
 * `tenant-<name>`: one tenant cluster in the management cluster — its namespace, the credentials
 * of its Proxmox instance, its groups' access, its CNI proxy, its CAPI Cluster on the `lab-tenant`
 * class, and its cluster-autoscaler when a pool is autoscaled.
 *
 * Dependencies make destroy safe: the autoscaler goes first (it would otherwise scale a cluster
 * that is being deleted), then the Cluster (Terraform waits while CAPI deletes the VMs and Kamaji
 * the control plane and its VIP), then the CNI proxy, credentials and access, and the namespace last.
 */
import { KubernetesManifest } from '../constructs/providers/kubernetes-manifest';
import { TerraformOutput, TerraformStack } from 'cdktf';
import type { Construct } from 'constructs';
import { CniHelmChartProxy } from '../constructs/cni-helm-chart-proxy';
import { TenantAccess } from '../constructs/tenant-access';
import { TenantAutoscaler } from '../constructs/tenant-autoscaler';
import { TenantCluster } from '../constructs/tenant-cluster';
import { TenantCredentials } from '../constructs/tenant-credentials';
import { TenantIdentity } from '../constructs/tenant-identity';
import { ManagementClusterProviders } from '../constructs/management-cluster-providers';
import { TenantSecondaries } from '../constructs/tenant-secondaries';
import { TenantStorage } from '../constructs/tenant-storage';
import type { Management } from '../modules/config/schema';
import type { TenantRendering } from '../modules/tenants';

export interface TenantStackProps {
  /** The tenant, rendered (`renderTenants`: every tenant at once, so all problems are reported together). */
  readonly rendering: TenantRendering;
  /** How Terraform reaches the management cluster (`management.kubernetes`). */
  readonly access: Management['kubernetes'];
}

export class TenantStack extends TerraformStack {
  /** What the stack renders, for reports and tests. */
  readonly rendering: TenantRendering;

  constructor(scope: Construct, id: string, props: TenantStackProps) {
    super(scope, id);
    const { rendering } = props;
    const { tenant } = rendering;
    this.rendering = rendering;
    new ManagementClusterProviders(this, 'providers', { access: props.access, helm: true, tokenDescription: 'bearer token for the management cluster' });

    const namespace = new KubernetesManifest(this, 'namespace', { manifest: rendering.namespace });
    const credentials = rendering.credentials.map(
      (copy) =>
        new TenantCredentials(this, `credentials-${copy.instance}`, {
          tenant: tenant.name,
          source: copy.source,
          target: copy.target,
          labels: copy.labels,
          tlsData: copy.tlsData,
          dependsOn: [namespace],
        }),
    );
    new TenantAccess(this, 'access', { role: rendering.role, roleBinding: rendering.roleBinding, dependsOn: [namespace] });
    const cni = new CniHelmChartProxy(this, `cni-${tenant.cni}`, { proxy: rendering.cniProxy, dependsOn: [namespace] });
    // Login through the lab's identity provider: the control plane mounts its AuthenticationConfiguration, so it comes first.
    const identity = rendering.identity ? new TenantIdentity(this, 'identity', { identity: rendering.identity, dependsOn: [namespace] }) : undefined;
    const cluster = new TenantCluster(this, 'cluster', {
      cluster: rendering.cluster,
      dependsOn: [namespace, ...credentials.map((c) => c.secret), cni.manifest, ...(identity ? [identity.authentication] : [])],
    });
    const secondaries = rendering.secondaries
      ? new TenantSecondaries(this, 'secondaries', {
          secondaries: rendering.secondaries,
          namespace,
          primary: cluster.manifest,
          credentials: Object.fromEntries(rendering.credentials.map((copy, i) => [copy.instance, credentials[i].secret])),
        })
      : undefined;
    // Persistent volumes (docs/storage.md): the CSI controller mounts the credentials copies, so it follows them.
    if (rendering.storage) new TenantStorage(this, 'storage', { storage: rendering.storage, dependsOn: [namespace, ...credentials.map((c) => c.secret)] });
    if (rendering.autoscaler) {
      new TenantAutoscaler(this, 'autoscaler', { autoscaler: rendering.autoscaler, dependsOn: [cluster.manifest, ...(secondaries?.machineDeployments ?? [])] });
    }

    new TerraformOutput(this, 'vip', {
      value: rendering.vip.vip,
      description: `control-plane VIP of tenant ${tenant.name} (${rendering.vip.source === 'allocated' ? 'allocated from the load-balancer pool' : 'from the description'})`,
    });
    new TerraformOutput(this, 'placement', {
      value: rendering.placement,
      description: 'instance and nodes of each machine deployment',
    });
    new TerraformOutput(this, 'clusters', {
      value: rendering.clusters,
      description: 'the CAPI Clusters of the tenant per instance: the primary (control plane and its workers) and a secondary per other instance',
    });
    new TerraformOutput(this, 'kubeconfig_command', {
      value: rendering.kubeconfigCommand,
      description: "writes the tenant's admin kubeconfig to a file (needs read access to the kubeconfig Secret)",
    });
    if (rendering.identity) {
      // No secret in either: the issuer, the client id, the CA certificates and the VIP (docs/identity.md).
      new TerraformOutput(this, 'oidc_kubeconfig', {
        value: JSON.stringify(rendering.identity.kubeconfig, null, 2),
        description: `the kubeconfig people log in with through the lab's identity provider (kubelogin); it names the CA file ${rendering.identity.caFile} beside it and holds no secret`,
      });
      new TerraformOutput(this, 'oidc_ca_command', {
        value: rendering.caFileCommand,
        description: `writes ${rendering.identity.caFile}, the public certificate of the tenant API server's CA, beside the people's kubeconfig (needs read access to the <cluster>-ca Secret)`,
      });
      new TerraformOutput(this, 'oidc_access', {
        value: rendering.identity.groups,
        description: "the identity provider's groups bound in the tenant cluster: admins to cluster-admin, editors to edit, viewers to view",
      });
    }
  }
}
