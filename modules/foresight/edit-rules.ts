/**
 * The edit rules: what is refused in a change between the deployed description (or the last synth
 * into the output) and the new one, beside the rule table's checks of one description
 * (modules/config/rule-table.ts). docs/rules.md lists them (scripts/rules-doc.ts);
 * test/foresight/address-edits.test.ts fires each with its own fixture. They run in `synth` and
 * `deploy` (against the output's memory), `validate --against`/`--out` and `review`.
 */
export interface EditRule {
  id: string;
  refuses: string;
  fix: string;
}

export const EDIT_HOMES: readonly { home: string; rules: readonly EditRule[] }[] = [
  {
    home: 'modules/tenants/vip.ts',
    rules: [
      {
        id: 'vip.memory-moved',
        refuses:
          "a tenant's vip set to another address than the VIP the last synth gave it (Cluster API never changes a Cluster's controlPlaneEndpoint once set)",
        fix: 'keep the VIP it has (or leave vip out: the tenant keeps it); to give it another endpoint, remove the tenant and add it back',
      },
      {
        id: 'vip.memory-left-pool',
        refuses: 'a load-balancer pool that no longer holds the VIP the last synth gave a tenant (it would have to move)',
        fix: 'keep the address in management.loadBalancer.addresses',
      },
      {
        id: 'vip.memory-taken',
        refuses: 'a described vip that is the VIP the last synth gave another tenant (both control planes would answer on it)',
        fix: 'give the tenant another VIP, or leave its vip out to allocate one',
      },
    ],
  },
  {
    home: 'modules/management/datastore.ts',
    rules: [
      {
        id: 'datastore.memory-changed',
        refuses:
          "management.datastore's csi or storageClass changed from what the last synth into the output deployed (kamaji-etcd's volumeClaimTemplates cannot change)",
        fix: 'keep the csi and storageClass it has; to move the datastore, back it up, deploy a new one and restore it',
      },
    ],
  },
  {
    home: 'modules/tenants/replaced.ts',
    rules: [
      {
        id: 'replace.no-surge',
        refuses:
          'a change that replaces node groups of a tenant (a new template, network or instance field) with no surge: CAPI deletes the old machine deployments at once and the pool has fewer Ready Nodes',
        fix: "surge, then retire (docs/tenants.md): set the tenant's previous as the problem gives it, deploy, and remove previous once the new Nodes are Ready",
      },
    ],
  },
  {
    home: 'modules/foresight/upgrade.ts',
    rules: [
      {
        id: 'upgrade.minor-jump',
        refuses: "a tenant's kubernetesVersion more than one minor away from the version it runs (the control plane moves one minor at a time)",
        fix: 'deploy the steps one at a time (npm run upgrade-plan shows each)',
      },
      {
        id: 'upgrade.cannot-roll',
        refuses: 'an upgrade whose rollout cannot run: a missing template of the new version, or no room for the surge machines',
        fix: 'add the missing templates, make room on the nodes named (or make those pools smaller), or surge with previous',
      },
    ],
  },
  {
    home: 'modules/foresight/address-edits.ts',
    rules: [
      {
        id: 'edit.node-range-in-use',
        refuses:
          "a tenant's node ranges edited so that they leave out addresses its running machines may hold (the lowest of the old pool: IPAM hands those out first, and its webhook refuses dropping an address in use)",
        fix: 'keep those addresses in the node ranges (add new ranges beside the old ones); shrink only once the tenant has fewer machines there',
      },
    ],
  },
  {
    home: 'scripts/lib/output-dir.ts',
    rules: [
      {
        id: 'output.state-inside',
        refuses: 'a delivery.local.stateDir inside the output directory a command replaces (synth --out, review, deploy): the state would go with it',
        fix: 'keep state outside every generated directory (e.g. stateDir: state), or choose another output directory',
      },
      {
        id: 'output.kubeconfig-inside',
        refuses: 'a management.kubernetes.configPath inside the output directory a command replaces: the kubeconfig would be copied or deleted with it',
        fix: 'keep the kubeconfig outside every generated directory (e.g. ~/.kube/lab-mgmt.yaml), or choose another output directory',
      },
    ],
  },
];
