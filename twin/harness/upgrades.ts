/**
 * The cluster-api-operator's part in the twin: the providers its rendered chart asks for
 * (`operatorValues`), and its upgrade of the providers whose version the management stack changed
 * (`playOperatorUpgrades`). The second layer of LabTwin (twin/index.ts).
 */
import { capiPreviousLane, crdDirOf, resolveToolchain } from '../../modules/versions/pins';
import { resolveVersions } from '../../modules/versions/guard';
import { crdRoot, loadPinnedCrds, type KubeObject } from '../../scripts/lib/kube-apiserver';
import { deployedProviders, operatorChanges, type ControllerName } from '../controllers';
import { withReleaseLabels } from '../crd-labels';
import { renderedOperatorValues } from '../operator-chart';
import { playOperatorProviders, twinProviders } from '../providers-ready';
import { readStack } from '../stack-objects';
import { TwinStacks } from './stacks';

export abstract class TwinUpgrades extends TwinStacks {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- Helm chart values: free-form YAML read by path, as the chart reads it
  protected renderedOperator?: { key: string; values: Record<string, any> };

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- Helm chart values: free-form YAML read by path, as the chart reads it
  protected operatorValues(): Record<string, any> {
    const management = readStack(this.run.out, 'management');
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a synthesized cdk.tf.json block: untyped JSON read by path, as tofu reads it
    const releases = Object.values((management.config.resource?.helm_release ?? {}) as Record<string, any>);
    const operator = releases.find((r) => r.chart === 'cluster-api-operator');
    if (!operator) throw new Error('the management stack has no cluster-api-operator release');
    // The providers as the real chart renders them from these values, not the values themselves: a
    // value the chart drops never reaches the operator (operator-chart.ts).
    const release = { name: operator.name, namespace: operator.namespace, version: operator.version, values: operator.values ?? [] };
    const key = JSON.stringify(release);
    if (this.renderedOperator?.key !== key)
      this.renderedOperator = { key, values: renderedOperatorValues(this.options.root, release, resolveToolchain().kubernetes.version) };
    return this.renderedOperator.values;
  }

  /** What the last provider upgrade the operator played did, step by step (`playOperatorUpgrades`). */
  readonly upgrades: { from: Record<string, string>; to: Record<string, string>; crds: string[]; steps: { step: string; seconds: number }[] }[] = [];

  /**
   * SIMULATED: the cluster-api-operator's upgrade of the providers whose version the applied
   * management stack changed (its release values), as the operator v0.28.0 does it
   * (internal/controller/phase_lifecycle.go: a provider whose status.installedVersion differs from
   * spec.version goes through clusterctl's `ProviderUpgrader().ApplyCustomPlan` with
   * `UpgradeOptions{}`, so no CRD storage version migration) and clusterctl v1.12.10 (the operator's go.mod) carries it out
   * (cmd/clusterctl/client/cluster/upgrader.go `doUpgrade`), one provider object at a time (each
   * reconcile passes one UpgradeItem), core first here: the provider scaled down; its old components
   * deleted except CRDs and namespace, and the new version's installed — its CRDs updated (replaced by the
   * release's, storage versions as upstream; the API server refuses a CRD that drops a version
   * still in status.storedVersions), its role, its webhook configurations and its manager. Played
   * here on the controllers the twin runs (`RunningControllers.install`: the build of the new
   * version, the providers' graph or the default core's own build). A failure leaves the upgraded
   * providers scaled down, as clusterctl does. Providers the twin plays (Kamaji's, CAAPH) are not
   * moved: they run at their pins.
   */
  async playOperatorUpgrades(): Promise<void> {
    if (!this.controllers) throw new Error('the controllers are not running');
    const deployed = deployedProviders(this.operatorValues());
    const before = this.controllers.versions();
    // clusterctl's order: core, bootstrap, control plane, infrastructure (ProviderType.Order); CONTROLLERS is core, bootstrap, infrastructure, IPAM.
    const { moving, rolled } = operatorChanges(deployed, before, this.controllers.args());
    for (const name of rolled) {
      this.log(`the operator rolls ${name} with flags ${deployed[name].args.join(' ') || '(none)'}`);
      await this.controllers.install(name, deployed[name]);
    }
    if (moving.length === 0) return;
    const record = {
      from: {} as Record<string, string>,
      to: {} as Record<string, string>,
      crds: [] as string[],
      steps: [] as { step: string; seconds: number }[],
    };
    for (const n of moving) {
      record.from[n] = before[n];
      record.to[n] = deployed[n].version;
    }
    this.upgrades.push(record);
    let t0 = Date.now();
    const step = (name: string) => {
      record.steps.push({ step: name, seconds: (Date.now() - t0) / 1000 });
      t0 = Date.now();
    };
    this.log(`the operator upgrades ${moving.map((n) => `${n} ${before[n]} → ${deployed[n].version}`).join(', ')}`);
    for (const name of moving) {
      // One provider object at a time (the operator reconciles each on its own: one UpgradeItem per plan).
      await this.controllers.scaleDown([name]);
      step(`${name}: scale down`);
      const crds = this.providerCrds(name, deployed[name].version);
      for (const crd of crds) await this.replaceCrd(crd);
      record.crds.push(...crds.map((c) => c.metadata.name));
      step(`${name}: ${crds.length} CRDs`);
      await this.controllers.install(name, deployed[name]);
      step(`${name}: role, webhooks, manager`);
    }
    // The operator reports each upgraded provider installed at its new version.
    await playOperatorProviders(this.mgmt.client, this.operatorValues(), twinProviders(deployed));
    this.log(`the operator upgraded ${moving.join(', ')} (${record.steps.map((s) => `${s.step} ${s.seconds.toFixed(1)} s`).join(', ')})`);
  }

  /**
   * The CRDs a provider release installs, from the CRD tree (the directory of that CAPI version:
   * the pinned one or the previous minor's), as the twin installs them (release labels, no conversion
   * webhook): CAPI core's groups for core, bootstrap.cluster.x-k8s.io for kubeadm bootstrap. The
   * kubeadm control plane's CRDs are in the tree but no provider of pvekaas installs them: not moved.
   */
  protected providerCrds(name: ControllerName, version: string): KubeObject[] {
    if (name !== 'capi-manager' && name !== 'kubeadm-bootstrap-manager') return [];
    const lane = capiPreviousLane();
    const dir = lane && version === lane.version ? lane.crdDir : version === this.pinnedCapi() ? crdDirOf('clusterApi')! : undefined;
    if (!dir) throw new Error(`the twin has no CRDs of cluster-api ${version} (${crdRoot}): only the pinned release and the previous CAPI minor`);
    const label = withReleaseLabels(this.options.root, [dir]);
    return loadPinnedCrds([dir])
      .filter((c) => {
        const group = (c.spec as { group: string }).group;
        if (group === 'controlplane.cluster.x-k8s.io') return false;
        return name === 'kubeadm-bootstrap-manager' ? group === 'bootstrap.cluster.x-k8s.io' : group !== 'bootstrap.cluster.x-k8s.io';
      })
      .map(label);
  }

  protected pinnedCapi(): string {
    return resolveVersions({}).clusterApi;
  }

  /** Replaces a CRD with a release's (clusterctl's create-or-update): refused as the API server refuses it. */
  protected async replaceCrd(crd: KubeObject): Promise<void> {
    const path = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`;
    const current = await this.mgmt.client.get(path);
    const r =
      current.status === 404
        ? await this.mgmt.client.post('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)
        : await this.mgmt.client.request('PUT', path, { ...crd, metadata: { ...crd.metadata, resourceVersion: current.body.metadata.resourceVersion } });
    if (r.status !== 200 && r.status !== 201)
      throw new Error(`the operator's upgrade: CRD ${crd.metadata.name} refused: HTTP ${r.status}: ${r.body?.message ?? r.text}`);
  }
}
