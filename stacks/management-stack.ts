/**
 * The `management` stack: everything the management cluster runs, as pinned Helm releases, plus
 * the plain Kubernetes objects around them. Install order (each arrow a `dependsOn`):
 *
 *   namespaces ─┬─> cert-manager ─┬─> kamaji ─┬─> kamaji-etcd ──> etcd backup CronJob
 *               ├─> CSI release  ─┼───────────┘   (local-path or localpv; none with csi: existing)
 *               ├─> metallb        └─> capi-operator (+ providers) ──> providers-ready Job
 *               └─> CAPMOX credentials Secrets (one per Proxmox instance)
 *
 * What it holds comes from `renderManagementPlane` (modules/rendering, over modules/management): versions with the lab's
 * overrides, past the version guard (its warnings become synth annotations), every release's
 * values and namespace; this stack only wires them into resources and dependencies. Custom resources that need
 * these CRDs live in the management-config stack (kubernetes_manifest needs CRDs at plan time).
 * See docs/management.md.
 */
import { Annotations, TerraformStack, type ITerraformDependable } from 'cdktf';
import { Construct } from 'constructs';
import { NamespaceV1 } from '@cdktf/provider-kubernetes/lib/namespace-v1';
import { CapiProvidersReadyJob } from '../constructs/capi-providers-ready-job';
import { CapmoxCredentialsSecret } from '../constructs/capmox-credentials-secret';
import { StaticControlPlane } from '../constructs/static-control-plane';
import { EtcdBackupCronJob } from '../constructs/etcd-backup-cron-job';
import { HelmChartRelease } from '../constructs/helm-chart-release';
import { ManagementClusterProviders } from '../constructs/management-cluster-providers';
import { formatWarning } from '../modules/config/problems';
import type { ManagementRendering, NamespaceRendering } from '../modules/management';
import type { ManagementPlaneRendering } from '../modules/rendering';
import type { ManagementVersions } from '../modules/versions';
import { managementNamespaces, releaseNames } from '../modules/versions/layout';
import type { InstanceCredentials } from './props';

export interface ManagementStackProps {
  /** The management plane, rendered (`renderManagementPlane`, or `LabRendering.management`). */
  readonly rendering: ManagementPlaneRendering;
  /** CAPMOX credentials per instance name, from the instance stacks' outputs. */
  readonly credentials: Record<string, InstanceCredentials>;
}

export class ManagementStack extends TerraformStack {
  /** The effective versions (pins + the lab's overrides). */
  readonly versions: ManagementVersions;
  /** The version guard's warnings (also synth annotations, shown by `cdktf synth`). */
  readonly warnings: string[];

  constructor(scope: Construct, id: string, props: ManagementStackProps) {
    super(scope, id);
    // Warnings land in manifest.json; without this they carry stack traces with this machine's paths.
    this.node.setContext('@cdktf/disable_stack_trace_in_metadata', true);
    const { rendering } = props;
    this.versions = rendering.versions;
    this.warnings = rendering.warnings.map((w) => formatWarning(w));
    for (const warning of this.warnings) Annotations.of(this).addWarning(warning);

    const mirror = rendering.mirror;
    const access = new ManagementClusterProviders(this, 'access', { access: rendering.access, helm: true });
    const kubernetes = access.kubernetes;
    const helm = access.helm!;

    const namespace = (ns: NamespaceRendering) =>
      new NamespaceV1(this, `namespace-${ns.name}`, { provider: kubernetes, metadata: { name: ns.name, labels: ns.labels } });
    const ns = {
      certManager: namespace(rendering.namespaces.certManager),
      capiOperator: namespace(rendering.namespaces.capiOperator),
      kamaji: namespace(rendering.namespaces.kamaji),
      metallb: namespace(rendering.namespaces.metallb),
      storage: rendering.namespaces.storage ? namespace(rendering.namespaces.storage) : undefined,
      localPath: rendering.namespaces.localPath ? namespace(rendering.namespaces.localPath) : undefined,
    };
    const providerNs = Object.fromEntries(Object.entries(rendering.providerNamespaces).map(([kind, n]) => [kind, namespace(n)])) as Record<
      keyof ManagementRendering['providerNamespaces'],
      NamespaceV1
    >;

    const release = (id: string, props: Omit<ConstructorParameters<typeof HelmChartRelease>[2], 'provider' | 'versions' | 'mirror'>) =>
      new HelmChartRelease(this, `release-${id}`, { provider: helm, versions: this.versions, mirror, ...props }).release;
    const { values } = rendering;

    const certManager = release(releaseNames.certManager, {
      chart: 'certManager',
      releaseName: releaseNames.certManager,
      namespace: managementNamespaces.certManager,
      values: values.certManager,
      timeoutSeconds: 600,
      dependsOn: [ns.certManager],
    });
    const storage =
      ns.storage && values.localpvProvisioner
        ? release(releaseNames.localpvProvisioner, {
            chart: 'localpvProvisioner',
            releaseName: releaseNames.localpvProvisioner,
            namespace: managementNamespaces.storage,
            values: values.localpvProvisioner,
            timeoutSeconds: 300,
            dependsOn: [ns.storage],
          })
        : ns.localPath && values.localPathProvisioner
          ? release(releaseNames.localPathProvisioner, {
              chart: 'localPathProvisioner',
              releaseName: releaseNames.localPathProvisioner,
              namespace: managementNamespaces.localPath,
              values: values.localPathProvisioner,
              timeoutSeconds: 300,
              dependsOn: [ns.localPath],
            })
          : undefined;
    release(releaseNames.metallb, {
      chart: 'metallb',
      releaseName: releaseNames.metallb,
      namespace: managementNamespaces.metallb,
      values: values.metallb,
      timeoutSeconds: 600,
      dependsOn: [ns.metallb],
    });
    // Kamaji's chart creates a cert-manager Issuer and Certificate, so cert-manager comes first.
    const kamaji = release(releaseNames.kamaji, {
      chart: 'kamaji',
      releaseName: releaseNames.kamaji,
      namespace: managementNamespaces.kamaji,
      values: values.kamaji,
      timeoutSeconds: 600,
      dependsOn: [ns.kamaji, certManager],
    });
    // kamaji-etcd uses Kamaji's Issuer and DataStore CRD, and the CSI's StorageClass.
    const kamajiEtcd = release(releaseNames.kamajiEtcd, {
      chart: 'kamajiEtcd',
      releaseName: releaseNames.kamajiEtcd,
      namespace: managementNamespaces.kamaji,
      values: values.kamajiEtcd,
      timeoutSeconds: 900,
      waitForJobs: true,
      // A failed datastore upgrade is left for inspection, not rolled back under the tenants' feet.
      atomic: false,
      dependsOn: [kamaji, ...(storage ? [storage] : [])],
    });
    // The operator needs cert-manager for its webhook; the Kamaji provider it installs watches Kamaji's CRDs.
    // `wait` is required: the provider resources are post-install hooks that need the operator's webhook up.
    const operator = release(releaseNames.clusterApiOperator, {
      chart: 'clusterApiOperator',
      releaseName: releaseNames.clusterApiOperator,
      namespace: managementNamespaces.capiOperator,
      values: values.clusterApiOperator,
      timeoutSeconds: 900,
      dependsOn: [ns.capiOperator, ...Object.values(providerNs), certManager, kamaji],
    });

    if (rendering.staticControlPlane) {
      new StaticControlPlane(this, 'static-control-plane', { provider: kubernetes, ...rendering.staticControlPlane, dependsOn: [operator] });
    }

    new CapiProvidersReadyJob(this, 'capi-providers-ready', {
      provider: kubernetes,
      namespace: rendering.providersReady.namespace,
      kubectlImage: rendering.providersReady.kubectlImage,
      providers: rendering.providersReady.providers,
      dependsOn: [operator],
    });

    // One Secret per instance and tenant (its own token only): a tenant stack reads its own.
    for (const instance of Object.keys(props.credentials).sort()) {
      const credentials = props.credentials[instance];
      const perInstance = new Construct(this, `capmox-credentials-${instance}`);
      for (const tenant of Object.keys(credentials.tenants).sort()) {
        new CapmoxCredentialsSecret(perInstance, tenant, {
          provider: kubernetes,
          instance,
          tenant,
          url: credentials.url,
          token: credentials.tenants[tenant].token,
          secret: credentials.tenants[tenant].secret,
          dependsOn: [providerNs.infrastructure],
        });
      }
    }

    if (rendering.backup) {
      new EtcdBackupCronJob(this, 'datastore-backup', { provider: kubernetes, ...rendering.backup, dependsOn: [kamajiEtcd] as ITerraformDependable[] });
    }
  }
}
