/**
 * The mutation corpus of the lab twin (issue 20 item 6): realistic mistakes in what pvekaas
 * renders, each applied to a copy of the rendered object and caught — by the twin itself, or by a
 * cheaper tier that runs the same real or played part (a real kube-apiserver with the played
 * Kamaji, CAAPH or Job; the kubernetes_manifest applier with the provider's semantics; the strict
 * Proxmox simulator; synth). Each entry names the test that applies the mistake and must fail the
 * way the real part would; `npm run test:mutations` runs those tests and reports, per mistake,
 * whether it was caught (twin/mutations.ts). A mistake whose test passes without catching
 * it would be a hole in the twin.
 */

export type MutationTier = 'twin' | 'kube' | 'applier' | 'players' | 'sim' | 'synth';

export interface Mutation {
  id: string;
  /** The rendering mistake, as a reviewer would name it. */
  mistake: string;
  /** Where pvekaas renders what is mutated. */
  rendered: string;
  /** How it is caught: what fails, in the words of the part that refuses it. */
  caughtAs: string;
  tier: MutationTier;
  /** The test that applies the mistake to a copy and asserts it is caught. */
  file: string;
  /** The test's title (jest `it` title, as printed; `%s` of it.each filled in). */
  test: string;
}

const CAAPH = 'test/kube/twin-caaph.test.ts';
const MIRROR = 'test/kube/twin-mirror.test.ts';
const KAMAJI = 'test/kube/twin-kamaji.test.ts';
const READY = 'test/kube/twin-providers-ready.test.ts';
const APPLIER = 'test/applier/manifest-applier.test.ts';
const PLANNED = 'test/applier/as-planned.test.ts';
const RULES = 'test/players/kamaji-rules.test.ts';
const EXAMPLE = 'test/twin/example-lab.test.ts';
const MULTI = 'test/twin/multi-instance.test.ts';
const DAY2 = 'test/twin/day-two.test.ts';
const IDENTITY = 'test/kube/tenant-identity.test.ts';
const IDENTITY_TWIN = 'test/twin/identity.test.ts';
const VOLUMES = 'test/sim/tenant-volumes.test.ts';

export const MUTATIONS: Mutation[] = [
  // The CNI HelmChartProxy (management-config, constructs/management-config): CAAPH's selection, the real Cilium chart.
  {
    id: 'cni-namespace',
    mistake: 'CNI HelmChartProxy in the wrong namespace (default)',
    rendered: 'management-config HelmChartProxy',
    caughtAs: "no HelmChartProxy in the Cluster's namespace selects it: Nodes NotReady, not converged",
    tier: 'kube',
    file: CAAPH,
    test: 'leaves the Cluster without its CNI with a HelmChartProxy in namespace default',
  },
  {
    id: 'cni-selector-label',
    mistake: 'CNI selector on a wrong label value (matches no Cluster)',
    rendered: 'management-config HelmChartProxy',
    caughtAs: 'no HelmChartProxy selects the Cluster',
    tier: 'kube',
    file: CAAPH,
    test: 'leaves the Cluster without its CNI with a selector matching no Cluster',
  },
  {
    id: 'cni-selector-expression',
    mistake: 'CNI selector expression that excludes the Cluster',
    rendered: 'management-config HelmChartProxy',
    caughtAs: 'no HelmChartProxy selects the Cluster',
    tier: 'kube',
    file: CAAPH,
    test: 'leaves the Cluster without its CNI with a matchExpression excluding the Cluster',
  },
  {
    id: 'cni-values',
    mistake: "CNI values the Cilium chart's schema refuses",
    rendered: 'management-config HelmChartProxy valuesTemplate',
    caughtAs: 'helm template of the real chart fails',
    tier: 'kube',
    file: CAAPH,
    test: 'leaves the Cluster without its CNI with values the chart schema refuses',
  },
  {
    id: 'cni-values-template',
    mistake: 'CNI values template that does not parse',
    rendered: 'management-config HelmChartProxy valuesTemplate',
    caughtAs: 'CAAPH fails to parse the values',
    tier: 'kube',
    file: CAAPH,
    test: 'leaves the Cluster without its CNI with a values template that does not parse',
  },
  {
    id: 'cni-chart-version',
    mistake: 'CNI chart version other than the pinned one',
    rendered: 'management-config HelmChartProxy version',
    caughtAs: 'the chart version is not the pinned one (not in the module)',
    tier: 'kube',
    file: CAAPH,
    test: 'leaves the Cluster without its CNI with a chart version not pinned',
  },
  // The secondary-clusters mirror CronJob (tenant stack, modules/tenants/secondary-mirror): run with its ServiceAccount's token.
  {
    id: 'mirror-rbac-verb',
    mistake: 'mirror Role without the create verb on Secrets',
    rendered: 'tenant stack mirror Role',
    caughtAs: 'Forbidden: cannot create resource "secrets"; nothing written',
    tier: 'kube',
    file: MIRROR,
    test: 'fails the run and writes nothing with a Role without `create` on secrets',
  },
  {
    id: 'mirror-rbac-resource-name',
    mistake: 'mirror Role whose Secret resourceNames miss the primary CA',
    rendered: 'tenant stack mirror Role',
    caughtAs: 'Forbidden: cannot get resource "secrets"',
    tier: 'kube',
    file: MIRROR,
    test: 'fails the run and writes nothing with a Role whose readable Secrets miss the primary CA',
  },
  {
    id: 'mirror-rbac-cluster',
    mistake: 'mirror Role naming another Cluster',
    rendered: 'tenant stack mirror Role',
    caughtAs: 'Forbidden: cannot get resource "clusters"',
    tier: 'kube',
    file: MIRROR,
    test: 'fails the run and writes nothing with a Role that cannot read the secondary Cluster',
  },
  {
    id: 'mirror-binding',
    mistake: 'mirror RoleBinding to another ServiceAccount',
    rendered: 'tenant stack mirror RoleBinding',
    caughtAs: 'Forbidden',
    tier: 'kube',
    file: MIRROR,
    test: 'fails the run and writes nothing with a RoleBinding to another ServiceAccount',
  },
  {
    id: 'mirror-service-account',
    mistake: 'mirror CronJob naming a ServiceAccount that does not exist',
    rendered: 'tenant stack mirror CronJob',
    caughtAs: 'serviceaccount "mirror" not found',
    tier: 'kube',
    file: MIRROR,
    test: 'fails the run and writes nothing with a CronJob running as a ServiceAccount that does not exist',
  },
  {
    id: 'mirror-rbac-status',
    mistake: 'mirror Role without patch on staticcontrolplanes',
    rendered: 'tenant stack mirror Role',
    caughtAs: 'Forbidden on staticcontrolplanes; the version never copied',
    tier: 'kube',
    file: MIRROR,
    test: 'fails the run with a Role that cannot patch the StaticControlPlane',
  },
  // Kamaji (the KamajiControlPlaneTemplate of management-config, the kamaji and kamaji-etcd releases of management).
  {
    id: 'kamaji-datastore',
    mistake: 'KamajiControlPlaneTemplate dataStoreName that does not exist',
    rendered: 'management-config KamajiControlPlaneTemplate',
    caughtAs: "Kamaji's webhook: the DataStore does not exist; no control plane",
    tier: 'kube',
    file: KAMAJI,
    test: 'never creates a control plane for a DataStore that does not exist',
  },
  {
    id: 'kamaji-version',
    mistake: 'tenant version above what the pinned Kamaji supports',
    rendered: 'tenant Cluster topology version',
    caughtAs: "Kamaji's webhook: greater than the supported one",
    tier: 'kube',
    file: KAMAJI,
    test: 'refuses a Kubernetes version above what this Kamaji supports',
  },
  {
    id: 'kamaji-datastore-tls',
    mistake: 'kamaji-etcd DataStore without its client TLS Secret',
    rendered: 'management kamaji-etcd release',
    caughtAs: 'DataStore not ready (TLSConfigurationValidationFailed); the control plane never starts',
    tier: 'kube',
    file: KAMAJI,
    test: 'admits but never starts a control plane while its DataStore is not ready',
  },
  {
    id: 'kamaji-dns',
    mistake: 'DNS service IP outside the service CIDR',
    rendered: 'management-config KamajiControlPlaneTemplate',
    caughtAs: "Kamaji's webhook (tcp_dns.go)",
    tier: 'players',
    file: RULES,
    test: 'refuses DNS service IPs outside the service CIDRs',
  },
  {
    id: 'kamaji-skip-minor',
    mistake: 'an upgrade that skips a minor or downgrades',
    rendered: 'tenant Cluster topology version',
    caughtAs: "Kamaji's webhook (tcp_version.go)",
    tier: 'players',
    file: RULES,
    test: "refuses a version above Kamaji's KubeadmVersion minor, a downgrade and a skipped minor",
  },
  {
    id: 'kamaji-no-address',
    mistake: 'a control plane without an address (no VIP)',
    rendered: 'tenant Cluster controlPlaneEndpoint',
    caughtAs: 'Kamaji refuses a control plane without an address',
    tier: 'players',
    file: RULES,
    test: 'writes nothing without the addon, and refuses a control plane without an address',
  },
  // The providers-ready Job (management stack).
  {
    id: 'providers-ready-rbac',
    mistake: 'providers-ready ClusterRole that cannot read the core provider',
    rendered: 'management providers-ready ClusterRole',
    caughtAs: 'the Job fails: Forbidden',
    tier: 'kube',
    file: READY,
    test: 'fails with a ClusterRole that cannot read the core provider',
  },
  {
    id: 'providers-ready-version',
    mistake: 'providers-ready Job waiting for another provider version',
    rendered: 'management providers-ready Job',
    caughtAs: 'the Job fails: the provider is not at that version',
    tier: 'kube',
    file: READY,
    test: 'fails when a provider is not at the version the Job waits for',
  },
  // kubernetes_manifest as the pinned hashicorp/kubernetes applies it.
  {
    id: 'md-selector',
    mistake: 'secondary MachineDeployment selector and template labels without cluster-name',
    rendered: 'tenant stack secondary MachineDeployment',
    caughtAs: 'Provider produced inconsistent result after apply',
    tier: 'applier',
    file: APPLIER,
    test: "fails a MachineDeployment whose selector and template labels lack what CAPI's webhook adds",
  },
  {
    id: 'computed-fields',
    mistake: 'computed_fields [spec.replicas] alone on an autoscaled secondary',
    rendered: 'tenant stack secondary MachineDeployment',
    caughtAs: "CAPI's revision annotation breaks the next apply",
    tier: 'applier',
    file: APPLIER,
    test: 'a given list replaces the default: [spec.replicas] alone leaves annotations known',
  },
  {
    id: 'wait-condition',
    mistake: 'a wait condition of the wrong status',
    rendered: 'tenant stack Cluster wait',
    caughtAs: 'the apply hangs for its whole timeout and fails as the provider fails',
    tier: 'applier',
    file: APPLIER,
    test: 'a condition of the wrong status hangs for the whole timeout',
  },
  {
    id: 'wait-rollout',
    mistake: 'wait rollout on a kind without a status viewer',
    rendered: 'any kubernetes_manifest wait',
    caughtAs: 'the provider refuses rollout there',
    tier: 'applier',
    file: APPLIER,
    test: 'refuses rollout on a kind without a status viewer',
  },
  // Converged as planned (what twin --json and the suites check on the machines the controllers made).
  {
    id: 'ip-pool',
    mistake: "a tenant IP pool with another range (VMs get addresses outside the tenant's range)",
    rendered: 'tenant stack InClusterIPPool / ProxmoxCluster ipv4Config',
    caughtAs: "IP outside the tenant's range; not converged as planned",
    tier: 'applier',
    file: PLANNED,
    test: 'names each deviation from the plan',
  },
  {
    id: 'wrong-template',
    mistake: "a machine template naming another VM template (another version's)",
    rendered: 'management-config ProxmoxMachineTemplate templateSelector / templateID',
    caughtAs: 'cloned from another template; not converged as planned',
    tier: 'applier',
    file: PLANNED,
    test: 'names each deviation from the plan',
  },
  {
    id: 'wrong-credentials',
    mistake: "a ProxmoxCluster credentialsRef naming another tenant's Secret",
    rendered: 'tenant stack ProxmoxCluster credentialsRef',
    caughtAs: 'VM created by another token; not converged as planned',
    tier: 'applier',
    file: PLANNED,
    test: 'names each deviation from the plan',
  },
  {
    id: 'secondary-network',
    mistake: "a secondary instance's machines on the primary's network",
    rendered: 'tenant stack secondary ProxmoxCluster',
    caughtAs: "IP not in that instance's network; not converged as planned",
    tier: 'applier',
    file: PLANNED,
    test: "a secondary instance's machine must hold an IP of that instance's own network",
  },
  // The strict Proxmox simulator (the proxmox stacks' ACLs and tokens).
  {
    id: 'vlan-acl',
    mistake: 'a tenant token allowed on another VLAN of the bridge',
    rendered: 'proxmox stack ACL on the SDN zone/VNet',
    caughtAs: 'the simulator refuses the VLAN as Proxmox does',
    tier: 'sim',
    file: 'test/sim/tenant-isolation.test.ts',
    test: 'lets tenant-a (VLAN 10) use VLAN 10 only',
  },
  {
    id: 'cloud-init-storage',
    mistake: "a tenant token seeing another tenant's cloud-init storage",
    rendered: 'proxmox stack storage ACL',
    caughtAs: 'CAPMOX would upload the join data where another tenant reads it',
    tier: 'sim',
    file: 'test/sim/tenant-isolation.test.ts',
    test: 'finds only its own cloud-init storage',
  },
  // The twin itself (real CAPI, CABPK, CAPMOX, IPAM).
  {
    id: 'capmox-ip-pool',
    mistake: 'ProxmoxClusterTemplate without an IP pool',
    rendered: 'management-config ProxmoxClusterTemplate',
    caughtAs: "CAPMOX's own webhook: at least one IP pool config",
    tier: 'twin',
    file: EXAMPLE,
    test: "refuses, through CAPMOX's own webhook, a ProxmoxClusterTemplate without an IP pool",
  },
  {
    id: 'join-token',
    mistake: 'bootstrap data with a wrong join token',
    rendered: 'KubeadmConfigTemplate / CABPK output',
    caughtAs: 'the VM never becomes a Node',
    tier: 'twin',
    file: EXAMPLE,
    test: 'never turns wrong bootstrap data into a Node',
  },
  {
    id: 'secondary-no-ref',
    mistake: 'a secondary Cluster without controlPlaneRef',
    rendered: 'tenant stack secondary Cluster',
    caughtAs: 'CABPK never writes join data; no Node',
    tier: 'twin',
    file: MULTI,
    test: 'negative control: a secondary Cluster without controlPlaneRef',
  },
  {
    id: 'capmox-global-credentials',
    mistake: 'CAPMOX deployed with global credentials of one instance',
    rendered: 'management cluster-api-operator values',
    caughtAs: "secondaries' machines sent to pve-a; none on pve-b or pve-c",
    tier: 'twin',
    file: MULTI,
    test: 'negative control: CAPMOX started with global credentials',
  },
  {
    id: 'old-secondary-rendering',
    mistake: "the old secondary MachineDeployment (selector, computed_fields) against CAPI's real webhook",
    rendered: 'tenant stack secondary MachineDeployment',
    caughtAs: 'Provider produced inconsistent result after apply; an update planned after CAPI writes its revision',
    tier: 'twin',
    file: MULTI,
    test: 'would have failed with the old secondary rendering',
  },
  {
    id: 'two-minors',
    mistake: 'a tenant version two minors ahead',
    rendered: 'tenant Cluster topology version',
    caughtAs: "the planner at synth, and CAPI's own Cluster webhook (422)",
    tier: 'twin',
    file: DAY2,
    test: 'two minors at once',
  },
  // Synth (fail at synth, not at apply).
  {
    id: 'vip-in-range',
    mistake: 'a VIP inside a tenant node range',
    rendered: 'lab description → tenant VIP',
    caughtAs: 'refused at synth with the path and the fix',
    tier: 'synth',
    file: 'test/config/load.test.ts',
    test: 'reports overlapping node ranges and a VIP inside a node range',
  },
  // The management stack's cluster-api-operator values, through the real chart.
  {
    id: 'operator-manager-args',
    mistake: "controller flags in the operator's manager.additionalArgs (the chart drops them)",
    rendered: 'management cluster-api-operator values',
    caughtAs: 'the real chart renders no flag (and `manager: null`, which the BootstrapProvider CRD refuses): the controllers run without them',
    tier: 'kube',
    file: 'test/kube/controller-tuning.test.ts',
    test: 'a flag put in manager.additionalArgs never reaches the manager: the chart drops it',
  },
  // Tenant login through the lab's identity provider (issue 39, modules/tenants/identity.ts): real tenant kube-apiservers started by the played Kamaji.
  {
    id: 'identity-group-wrong-tenant',
    mistake: "a tenant's admin group bound in another tenant's cluster",
    rendered: 'tenant stack ClusterRoleBindings (ClusterResourceSet ConfigMap)',
    caughtAs: 'the real tenant API server lets a tenant-a admin create a Deployment in tenant-b: the allow/deny check fails',
    tier: 'kube',
    file: IDENTITY,
    test: 'lets a tenant-a admin write in tenant-b with a group bound in the wrong tenant',
  },
  {
    id: 'identity-ca-dropped',
    mistake: "the issuer's CA left out of the AuthenticationConfiguration",
    rendered: 'tenant stack AuthenticationConfiguration ConfigMap',
    caughtAs: 'kube-apiserver cannot verify the issuer (x509: certificate signed by unknown authority): every token 401',
    tier: 'kube',
    file: IDENTITY,
    test: 'refuses every login with an AuthenticationConfiguration without the issuer CA',
  },
  {
    id: 'identity-wrong-audience',
    mistake: 'a wrong audience (not the client id) in the AuthenticationConfiguration',
    rendered: 'tenant stack AuthenticationConfiguration ConfigMap',
    caughtAs: 'kube-apiserver refuses the ID tokens: their aud is not an accepted audience (401)',
    tier: 'kube',
    file: IDENTITY,
    test: 'refuses every login with an AuthenticationConfiguration with a wrong audience',
  },
  // The same three in the lab twin: made to the rendered ConfigMaps in the management cluster of a
  // running lab, caught by CAPI's real ClusterResourceSet controller and the real tenant API servers.
  {
    id: 'identity-group-wrong-tenant-twin',
    mistake: "a tenant's admin group bound in another tenant's cluster (the ClusterResourceSet's ConfigMap)",
    rendered: 'tenant stack ClusterRoleBindings (ClusterResourceSet ConfigMap)',
    caughtAs:
      "CAPI's ClusterResourceSet controller applies it and the tenant-b API server lets a tenant-a admin create Deployments: the allow/deny check fails",
    tier: 'twin',
    file: IDENTITY_TWIN,
    test: 'lets a tenant-a admin write in tenant-b when the ClusterResourceSet applies a group bound in the wrong tenant',
  },
  {
    id: 'identity-wrong-audience-twin',
    mistake: 'a wrong audience in the AuthenticationConfiguration of a running tenant',
    rendered: 'tenant stack AuthenticationConfiguration ConfigMap',
    caughtAs: 'kube-apiserver reloads the file and refuses the ID tokens (401, its reason: the audience)',
    tier: 'twin',
    file: IDENTITY_TWIN,
    test: 'refuses every login when the AuthenticationConfiguration gets a wrong audience (kube-apiserver reloads it)',
  },
  {
    id: 'identity-ca-dropped-twin',
    mistake: "the issuer's CA dropped from the AuthenticationConfiguration of a running tenant",
    rendered: 'tenant stack AuthenticationConfiguration ConfigMap',
    caughtAs: 'kube-apiserver refuses the reload (x509: certificate signed by unknown authority); after a restart every token 401',
    tier: 'twin',
    file: IDENTITY_TWIN,
    test: 'refuses every login after a restart when the issuer CA is dropped from the AuthenticationConfiguration',
  },
  // Tenant persistent volumes (issue 38, modules/tenants/storage.ts, modules/rendering/instance.ts volumeGrants): the
  // played Proxmox CSI controller's calls against the strict simulator with the rendered grants, and the tenant-side scan.
  {
    id: 'storage-other-tenant-token',
    mistake: "a tenant's CSI controller given another tenant's Proxmox token",
    rendered: 'tenant stack CSI controller Deployment (credentials volume)',
    caughtAs: "the simulator refuses the other tenant's token on the tenant's volume storage (403, Datastore.AllocateSpace)",
    tier: 'sim',
    file: VOLUMES,
    test: "catches tenant-a's controller given tenant-b's token: tenant-a's volumes are refused",
  },
  {
    id: 'storage-class-ungranted-storage',
    mistake: 'a StorageClass naming a storage the tenant was not granted',
    rendered: 'tenant cluster StorageClass (ClusterResourceSet ConfigMap)',
    caughtAs: 'the simulator refuses the volume on that storage (403), as pve-storage Content create does',
    tier: 'sim',
    file: VOLUMES,
    test: "is refused creating a volume on tenant-b's storage (a StorageClass naming a storage the tenant was not granted), which tenant-b's token may",
  },
  {
    id: 'storage-node-plugin-token',
    mistake: 'the CSI node plugin in the tenant cluster given the Proxmox token',
    rendered: 'tenant cluster node plugin DaemonSet (ClusterResourceSet ConfigMap)',
    caughtAs: 'the tenant-side credential scan names the Secret reference or the token',
    tier: 'synth',
    file: 'test/tenants/storage.test.ts',
    test: 'catches a node plugin given the token (env from the Secret, a secret volume, the token inline, a Secret object)',
  },
  {
    id: 'storage-acl-datacenter-propagate',
    mistake: "the volumes ACL on the whole datacenter ('/') with propagate",
    rendered: 'proxmox stack token ACL (volumes role)',
    caughtAs: "another tenant's token then deletes the tenant's volume: the refusal the test asserts with the rendered grants is gone",
    tier: 'sim',
    file: VOLUMES,
    test: 'catches the volumes ACL put on the whole datacenter with propagate: tenant-b then deletes tenant-a volumes',
  },
  // Address edits against what runs (issue 42): refused at synth, before anything is written.
  {
    id: 'node-range-shrunk-in-use',
    mistake: "a tenant's node range shrunk below the addresses its running machines hold",
    rendered: 'tenant ProxmoxCluster ipv4Config → InClusterIPPool',
    caughtAs: 'refused at synth (validate --against): the IPAM webhook would refuse the update at apply',
    tier: 'synth',
    file: 'test/foresight/address-edits.test.ts',
    test: "refuses a shrunk node range with the file, the line of the tenant's addresses and the fix",
  },
  {
    id: 'vip-moved-under-running-tenant',
    mistake: "a running tenant's allocated VIP moved by a pool edit",
    rendered: 'tenant Cluster controlPlaneVIP',
    caughtAs: "refused at synth against the output's memory: CAPI never changes a Cluster's endpoint once set",
    tier: 'synth',
    file: 'test/synth/vip-memory.test.ts',
    test: 'refuses a shrunk pool that would move a remembered VIP, naming the tenant, before writing anything',
  },
  // The move from the previous CAPI minor to the default, as the operator's played upgrade does it.
  {
    id: 'capi-move-stored-version',
    mistake: 'the move to CAPI 1.13 deployed while a CRD still stores a version it drops (v1alpha4)',
    rendered: 'management cluster-api-operator values (core and bootstrap version)',
    caughtAs: 'the real API server refuses the 1.13 CRD (HTTP 422); core and bootstrap stay scaled down',
    tier: 'twin',
    file: 'test/twin/capi-upgrade.test.ts',
    test: 'refuses the move while a CRD still records a version',
  },
  // Day two as Kamaji and kubeadm do it (issue 36): the played rollout and the kubelets' join checks, on real tenant control planes.
  {
    id: 'upgrade-never-ready',
    mistake: "a Kamaji upgrade whose new version's API server never becomes Ready",
    rendered: 'TenantControlPlane spec.kubernetes.version (from the Cluster topology version)',
    caughtAs: 'the TenantControlPlane stays Upgrading at the old version, the old server serving; the upgrade reported stuck',
    tier: 'kube',
    file: KAMAJI,
    test: 'leaves the old server serving and the upgrade visibly stuck when the new server never becomes Ready',
  },
  {
    id: 'kubelet-newer-than-control-plane',
    mistake: 'a kubelet template newer than the control plane (workers upgraded first)',
    rendered: 'ProxmoxMachineTemplate template / Machine spec.version',
    caughtAs: 'the version-skew refusal: the VM never becomes a Node',
    tier: 'kube',
    file: KAMAJI,
    test: "registers a Node only when its template is the Machine's version and not newer than the control plane",
  },
  // The tenant's cluster-autoscaler image (modules/versions/cni.ts autoscalerImageTags), played per release.
  {
    id: 'autoscaler-image-minor-behind',
    mistake: "a 1.36 tenant's cluster-autoscaler rendered with the 1.35 image (v1.35.2)",
    rendered: 'tenant cluster-autoscaler helm_release values (image.tag)',
    caughtAs: 'the played 1.35.2 provider takes a paused MachineDeployment as a node group (1.36.1 isScalableResourceAndPaused leaves it out)',
    tier: 'players',
    file: 'test/players/autoscaler.test.ts',
    test: 'catches a 1.36 tenant rendered with the 1.35 autoscaler image: its paused MachineDeployment would be scaled',
  },
  // The CNI HelmChartProxy against CAAPH's admission webhooks (twin/caaph-webhook.ts, from its pinned release).
  {
    id: 'caaph-repo-url-no-scheme',
    mistake: "the CNI HelmChartProxy's repoURL rendered without its scheme (helm.cilium.io)",
    rendered: 'management-config HelmChartProxy spec.repoURL',
    caughtAs: 'CAAPH\'s validating webhook denies it: parse "helm.cilium.io": invalid URI for request (url.ParseRequestURI)',
    tier: 'kube',
    file: 'test/kube/caaph-webhook.test.ts',
    test: 'refuses the rendered CNI HelmChartProxy whose repoURL lost its scheme',
  },
];
