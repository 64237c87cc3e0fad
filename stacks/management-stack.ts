/**
 * The `management` stack: everything the management cluster runs, as pinned Helm releases, plus
 * the plain Kubernetes objects around them. Install order (each arrow a `dependsOn`):
 *
 *   namespaces ─┬─> cert-manager ─┬─> kamaji ─┬─> kamaji-etcd ──> etcd backup CronJob
 *               ├─> localpv (CSI) ─┼───────────┘
 *               ├─> metallb        └─> capi-operator (+ providers) ──> providers-ready Job
 *               └─> CAPMOX credentials Secrets (one per Proxmox instance)
 *
 * Versions come from modules/versions with the lab's overrides; the version guard runs first and
 * refuses the stack on an error (warnings become synth annotations). Custom resources that need
 * these CRDs live in the management-config stack (kubernetes_manifest needs CRDs at plan time).
 * See docs/management.md.
 */
import { Annotations, TerraformStack, type ITerraformDependable } from 'cdktf';
import type { Construct } from 'constructs';
import { NamespaceV1 } from '@cdktf/provider-kubernetes/lib/namespace-v1';
import { CapiProvidersReadyJob } from '../constructs/capi-providers-ready-job';
import { CapmoxCredentialsSecret } from '../constructs/capmox-credentials-secret';
import { StaticControlPlane } from '../constructs/static-control-plane';
import { capmoxGlobalCredentials, secondaryClustersFindings } from '../modules/management/capmox-global-credentials';
import { EtcdBackupCronJob } from '../constructs/etcd-backup-cron-job';
import { HelmChartRelease } from '../constructs/helm-chart-release';
import { ManagementKubernetesAccess } from '../constructs/management-kubernetes-access';
import {
  capiOperatorValues,
  capiProviderResources,
  certManagerValues,
  kamajiEtcdValues,
  kamajiValues,
  localpvValues,
  metallbValues,
  type ManagementSettings,
} from '../modules/management/chart-values';
import { checkVersions, imageRef, managementImages, resolveVersions, type ManagementVersions, type VersionKey } from '../modules/versions';
import { KAMAJI_ETCD_FULLNAME, managementNamespaces, providerNamespaces, releaseNames } from '../modules/versions/layout';
import { mirroredImage } from '../modules/versions/mirror';
import type { InstanceCredentials, LabStackProps } from './props';

export interface ManagementStackProps extends LabStackProps {
  /** CAPMOX credentials per instance name, from the instance stacks' outputs. */
  readonly credentials: Record<string, InstanceCredentials>;
}

/** Pod Security admission labels for namespaces whose pods need host access (MetalLB speaker, LocalPV helper). */
const PRIVILEGED = {
  'pod-security.kubernetes.io/enforce': 'privileged',
  'pod-security.kubernetes.io/audit': 'privileged',
  'pod-security.kubernetes.io/warn': 'privileged',
};

export class ManagementStack extends TerraformStack {
  /** The effective versions (pins + the lab's overrides). */
  readonly versions: ManagementVersions;
  /** The version guard's warnings (also synth annotations, shown by `cdktf synth`). */
  readonly warnings: string[];

  constructor(scope: Construct, id: string, props: ManagementStackProps) {
    super(scope, id);
    // Warnings land in manifest.json; without this they carry stack traces with this machine's paths.
    this.node.setContext('@cdktf/disable_stack_trace_in_metadata', true);
    const management = props.lab.management;
    this.versions = resolveVersions(management.versions as Partial<Record<VersionKey, string>>);
    const findings = checkVersions(this.versions);
    const errors = findings.filter((f) => f.severity === 'error');
    if (errors.length > 0) {
      throw new Error(
        `management: the version guard refuses this combination:\n${errors
          .map((f) => `  management.versions.${f.key}: ${f.message}${f.fix ? `\n      fix: ${f.fix}` : ''}`)
          .join('\n')}`,
      );
    }
    this.warnings = [...findings, ...secondaryClustersFindings(props.lab.capmox.multiInstance, this.versions)]
      .filter((f) => f.severity === 'warning')
      .map((f) => `management.versions.${f.key}: ${f.message}`);
    for (const warning of this.warnings) Annotations.of(this).addWarning(warning);

    const settings: ManagementSettings = { management, versions: this.versions };
    const mirror = management.mirror;
    const access = new ManagementKubernetesAccess(this, 'access', { access: management.kubernetes, helm: true });
    const kubernetes = access.kubernetes;
    const helm = access.helm!;

    const namespace = (name: string, labels: Record<string, string> = {}) =>
      new NamespaceV1(this, `namespace-${name}`, {
        provider: kubernetes,
        metadata: { name, labels: { 'app.kubernetes.io/managed-by': 'pvekaas', ...labels } },
      });
    const ns = {
      certManager: namespace(managementNamespaces.certManager),
      capiOperator: namespace(managementNamespaces.capiOperator),
      kamaji: namespace(managementNamespaces.kamaji),
      metallb: namespace(managementNamespaces.metallb, PRIVILEGED),
      storage: management.datastore.csi === 'openebs-localpv' ? namespace(managementNamespaces.storage, PRIVILEGED) : undefined,
    };
    const providerNs = Object.fromEntries(Object.entries(providerNamespaces).map(([kind, name]) => [kind, namespace(name)])) as Record<
      keyof typeof providerNamespaces,
      NamespaceV1
    >;

    const release = (id: string, props: Omit<ConstructorParameters<typeof HelmChartRelease>[2], 'provider' | 'versions' | 'mirror'>) =>
      new HelmChartRelease(this, `release-${id}`, { provider: helm, versions: this.versions, mirror, ...props }).release;

    const certManager = release(releaseNames.certManager, {
      chart: 'certManager',
      releaseName: releaseNames.certManager,
      namespace: managementNamespaces.certManager,
      values: certManagerValues(settings),
      timeoutSeconds: 600,
      dependsOn: [ns.certManager],
    });
    const storage = ns.storage
      ? release(releaseNames.localpvProvisioner, {
          chart: 'localpvProvisioner',
          releaseName: releaseNames.localpvProvisioner,
          namespace: managementNamespaces.storage,
          values: localpvValues(settings),
          timeoutSeconds: 300,
          dependsOn: [ns.storage],
        })
      : undefined;
    release(releaseNames.metallb, {
      chart: 'metallb',
      releaseName: releaseNames.metallb,
      namespace: managementNamespaces.metallb,
      values: metallbValues(settings),
      timeoutSeconds: 600,
      dependsOn: [ns.metallb],
    });
    // Kamaji's chart creates a cert-manager Issuer and Certificate, so cert-manager comes first.
    const kamaji = release(releaseNames.kamaji, {
      chart: 'kamaji',
      releaseName: releaseNames.kamaji,
      namespace: managementNamespaces.kamaji,
      values: kamajiValues(settings),
      timeoutSeconds: 600,
      dependsOn: [ns.kamaji, certManager],
    });
    // kamaji-etcd uses Kamaji's Issuer and DataStore CRD, and the CSI's StorageClass.
    const kamajiEtcd = release(releaseNames.kamajiEtcd, {
      chart: 'kamajiEtcd',
      releaseName: releaseNames.kamajiEtcd,
      namespace: managementNamespaces.kamaji,
      values: kamajiEtcdValues(settings),
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
      values: capiOperatorValues(settings),
      timeoutSeconds: 900,
      dependsOn: [ns.capiOperator, ...Object.values(providerNs), certManager, kamaji],
    });

    // Every tenant's ProxmoxCluster (and secondary Cluster) uses its instance's credentialsRef, which
    // CAPMOX ignores once it has global credentials: never install it with any.
    const globalCredentials = capmoxGlobalCredentials(capiProviderResources(settings));
    if (globalCredentials.length > 0) throw new Error(`management: CAPMOX must run without global credentials:\n${globalCredentials.map((p) => `  ${p}`).join('\n')}`);
    if (props.lab.capmox.multiInstance === 'secondary-clusters') {
      new StaticControlPlane(this, 'static-control-plane', { provider: kubernetes, dependsOn: [operator] });
    }

    const images = managementImages(this.versions);
    new CapiProvidersReadyJob(this, 'capi-providers-ready', {
      provider: kubernetes,
      namespace: managementNamespaces.capiOperator,
      kubectlImage: imageRef(mirroredImage(images.tools.kubectl, mirror)),
      providers: capiProviderResources(settings).map((r) => ({
        resource: `${r.kind.toLowerCase()}s`,
        name: r.metadata.name,
        namespace: r.metadata.namespace!,
        version: String(r.spec?.version),
      })),
      dependsOn: [operator],
    });

    for (const instance of Object.keys(props.credentials).sort()) {
      const credentials = props.credentials[instance];
      new CapmoxCredentialsSecret(this, `capmox-credentials-${instance}`, {
        provider: kubernetes,
        instance,
        url: credentials.url,
        tenants: credentials.tenants,
        dependsOn: [providerNs.infrastructure],
      });
    }

    const backup = management.datastore.backup;
    if (backup) {
      new EtcdBackupCronJob(this, 'datastore-backup', {
        provider: kubernetes,
        namespace: managementNamespaces.kamaji,
        etcdName: KAMAJI_ETCD_FULLNAME,
        clusterDomain: management.clusterDomain,
        target: backup,
        etcdImage: imageRef(mirroredImage(images.kamajiEtcd.etcd, mirror)),
        rcloneImage: imageRef(mirroredImage(images.tools.rclone, mirror)),
        dependsOn: [kamajiEtcd] as ITerraformDependable[],
      });
    }
  }
}
