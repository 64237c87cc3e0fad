/**
 * The lab twin: a lab description brought up where the real things act on what pvekaas renders.
 *
 * Real: OpenTofu + bpg/proxmox (the `proxmox-*` stacks), kube-apiserver + etcd +
 * kube-controller-manager (the management cluster and each tenant's API server), and the Cluster
 * API controllers — CAPI core (topology on), kubeadm bootstrap, CAPMOX v0.9.0, in-cluster IPAM —
 * with their webhooks. Simulated, and only that: Proxmox VE (sim/, strict), Kamaji and its CAPI
 * provider (kamaji/), kubelets (kubelets.ts).
 *
 * What is applied is exactly what the synthesized stacks hold (stack-objects.ts): the proxmox
 * stacks with tofu, then the Namespaces/Secrets of `management`, then every manifest of
 * `management-config` and of each tenant stack, server-side applied in `depends_on` order, with
 * cross-stack values resolved from the same sources the stacks read.
 *
 * LabTwin is built in layers, one job a file: harness/stacks.ts (the stacks applied and destroyed as
 * OpenTofu would, the twin's state), harness/upgrades.ts (the cluster-api-operator's part),
 * harness/tenants.ts (the players, each tenant beside its plan), then here: start, update, stop.
 */
import type { ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { parseLab } from '../modules/config/load';
import type { Lab } from '../modules/config/schema';
import { releaseTenantVolumes, type VolumeRelease } from '../scripts/lib/tenant-volumes';
import { tenantClientFromSecret } from '../scripts/lib/release-volumes-run';
import { planFromJson } from '../modules/placement/render-json';
import type { PlacementPlan } from '../modules/placement/types';
import { capiCoreBuild, controllerModules, crdDirsFor, resolveToolchain, type VersionKey } from '../modules/versions/pins';
import { resolveVersions } from '../modules/versions/guard';
import { pointLabAt, startSimulatedLab } from '../scripts/lib/lab-run';
import { startKubeServer, type KubeServer } from '../scripts/lib/kube-apiserver';
import { synthesizeLab } from '../scripts/lib/synthesize';
import { CONTROLLERS, controllerBuilds, startControllers, deployedProviders, webhookCertificates, type ControllerName } from './controllers';
import { withReleaseLabels } from './crd-labels';
import { AddonPlayer } from './caaph';
import { startCaaphWebhook } from './caaph-webhook';
import { KamajiPlayer } from './kamaji';
import { kamajiReleases } from './releases';
import { KubeletPlayer } from './kubelets';
import { CsiPlayer } from './csi-sidecars';
import { metallbReleaseOf, notAnnounced, startMetallb, type MetallbRelease } from './metallb';
import { MirrorPlayer } from './mirror';
import { AutoscalerPlayer, readCa, tenantAutoscalerReleases } from './autoscaler';
import { ManifestApplier, manifestResource, type ManifestResource } from './manifest-applier';
import { runProvidersReady, twinProviders } from './providers-ready';
import { readStack, resolveExpressions, resourceDependencies, type KubeObjectJson } from './stack-objects';
import { Timeline } from './timeline';
import { TwinTenants } from './harness/tenants';
import { sleep } from './harness/stacks';
import type { TwinOptions } from './harness/types';
import { helmRelease, helmTimeout } from './harness/helm-release';

export type { TwinOptions, TwinMachine, TwinTenant } from './harness/types';
export { helmRelease, helmTimeout, type HelmReleaseView } from './harness/helm-release';

const TICK_MS = 1000;

export class LabTwin extends TwinTenants {
  private timer?: NodeJS.Timeout;
  private ticking = false;
  private readonly children = new Set<ChildProcess>();
  /** Where the time went: bring-up parts, then whatever the caller marks (test/twin/support.ts prints it). */
  readonly timeline = new Timeline();

  private constructor(options: TwinOptions) {
    super(options);
  }

  get sim() {
    return this.run.sim;
  }

  /** The lab description the twin runs now: the one it started on, or the last one `update` applied (or tried to). */
  get labText(): string {
    return this.currentLabText ?? this.options.labText;
  }
  private currentLabText?: string;

  get out(): string {
    return this.run.out;
  }

  get management(): KubeServer {
    return this.mgmt;
  }

  /** Starts everything and applies the proxmox stacks; `applyKubernetes` applies the rest. */
  static async start(options: TwinOptions): Promise<LabTwin> {
    const twin = new LabTwin(options);
    try {
      await twin.startAll();
    } catch (e) {
      await twin.stop();
      throw e;
    }
    return twin;
  }

  private async startAll(): Promise<void> {
    const { root, labText, labFile, work } = this.options;
    mkdirSync(work, { recursive: true });
    this.log('starting the Proxmox VE simulator and synthesizing the lab against it');
    this.run = await startSimulatedLab({ labText, labFile, work, root });
    this.timeline.mark('bring-up: simulator + synth');
    this.lab = this.run.lab;
    this.plan = planFromJson(readFileSync(join(this.run.out, 'placement.json'), 'utf8'));
    // Two independent halves side by side: the proxmox stacks (tofu init and apply against the
    // simulator) and the management cluster (API server, the CAPI core role aggregation, the
    // controllers). Neither reads the other (the management stack's aggregated ClusterRole reads
    // no remote state; were it to, its apply would fail here as the state is not there yet), and
    // the Kubernetes stacks that read the proxmox stacks' state are applied only after both
    // (applyKubernetes). Both are awaited before a failure is reported, so stop() never races a
    // half that is still starting.
    const proxmox = (async () => {
      let t0 = Date.now();
      await this.run.init();
      this.timeline.note('tofu init (proxmox stacks)', t0);
      t0 = Date.now();
      await this.applyProxmox();
      this.timeline.note('tofu apply (proxmox stacks)', t0);
    })();
    const management = this.startManagement();
    const failed = (await Promise.allSettled([proxmox, management])).filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed.length > 0) throw failed.length === 1 ? failed[0].reason : new Error(failed.map((f) => (f.reason as Error).message).join('\n'));
    this.timeline.mark('bring-up: proxmox stacks ∥ management cluster + controllers');
    this.kamaji = new KamajiPlayer(
      this.mgmt.client,
      () => kamajiReleases(this.run.out),
      (l) => this.log(l),
      { controllerManager: this.options.tenantControllerManager },
    );
    this.addons = new AddonPlayer(this.mgmt.client, this.kamaji, root, (l) => this.log(l), this.kamaji.memo);
    this.kubelets = new KubeletPlayer(
      () => this.run.sim.listVms(),
      this.kamaji,
      { ready: (ns, c) => this.addons.cniReady(ns, c), waiting: (ns, c) => this.addons.cniWaiting(ns, c) },
      (l) => this.log(l),
      async (plane) => {
        if (!plane.endpoint) return 'the control plane has no address yet';
        if (!this.metallb) return 'the MetalLB controller is not running (the management stack is not applied) yet';
        const host = plane.endpoint.slice(0, plane.endpoint.lastIndexOf(':'));
        return notAnnounced(this.mgmt.client, { namespace: plane.namespace, name: plane.kcp }, host, this.metallbRelease().namespace);
      },
      (_namespace, vm) => this.machineVersionOf(vm),
    );
    this.mirror = new MirrorPlayer(this.mgmt.client, this.mgmt.kubeconfig, root, (l) => this.log(l), this.kamaji.memo);
    if (this.options.autoscaler)
      this.autoscaler = new AutoscalerPlayer(
        this.mgmt.client,
        this.mgmt.url,
        readCa(this.mgmt.dir),
        () => tenantAutoscalerReleases(this.run.out),
        (l) => this.log(l),
      );
    if (this.options.csi)
      this.csi = new CsiPlayer(
        this.mgmt.client,
        () => this.run.sim.listVms(),
        (l) => this.log(l),
      );
    this.timer = setInterval(() => void this.tick(), TICK_MS);
  }

  /** The management API server, CAPI core's aggregated role from the management stack, then the controllers. */
  private async startManagement(): Promise<void> {
    const { root } = this.options;
    this.log('starting the management API server (etcd, kube-apiserver, kube-controller-manager)');
    // The CRDs of the lab's versions: the pinned ones, or the previous CAPI minor's for a lab on it.
    const crdSets = crdDirsFor(resolveVersions(this.lab.management.versions as Partial<Record<VersionKey, string>>));
    let t0 = Date.now();
    // GOGC 400 with a 3 GiB soft limit: a quarter of the management API server's CPU was Go's
    // garbage collector at the default GOGC 100 (docs/development.md, "Where the time goes"); the limit
    // keeps its memory where it was when the heap grows (the GC runs earlier near it).
    this.mgmt = await startKubeServer({ crdSets, transformCrd: withReleaseLabels(root, crdSets), goRuntime: { gogc: 400, memoryLimitMiB: 3072 } });
    this.timeline.note('management API server', t0);
    t0 = Date.now();
    const operator = this.operatorValues();
    this.applier = new ManifestApplier(this.mgmt.client);
    // What the management stack grants the CAPI core manager by aggregation (the static control
    // plane's ClusterRole), applied from the stack as tofu would, before the controllers start:
    // the controllers run with their RBAC, not as admin.
    await this.applyStack('management', (o) => isAggregatedToCapi(o.object));
    this.log('starting CAPI core, kubeadm bootstrap, CAPMOX and in-cluster IPAM with their webhooks');
    const operatorRelease = helmRelease(readStack(this.run.out, 'management'), 'cluster-api-operator');
    const standInStarted = Date.now();
    this.controllers = await startControllers({
      root,
      dir: this.mgmt.dir,
      kubeconfig: this.mgmt.kubeconfig,
      client: this.mgmt.client,
      deployed: deployedProviders(operator),
      builds: controllerBuilds(root, controllerModules(), capiCoreBuild()),
      extraEnv: this.options.controllerEnv,
      track: (c) => this.children.add(c),
    });
    // The controllers stand in for the cluster-api-operator release and the providers it installs:
    // with `wait`, helm gives them the release's `timeout` to become ready, or the apply fails.
    const took = (Date.now() - standInStarted) / 1000;
    if (operatorRelease.wait && took > operatorRelease.timeoutSeconds) throw helmTimeout(operatorRelease, took);
    // CAAPH's webhooks before any stack creates a HelmChartProxy (upstream registers them with its
    // deployment, failurePolicy Fail): their own CA and certificate beside the controllers'.
    const certs = webhookCertificates(join(this.mgmt.dir, 'caaph'));
    this.caaphWebhook = await startCaaphWebhook({ root, client: this.mgmt.client, ...certs });
    this.timeline.note('controllers (RBAC, processes, webhooks)', t0);
  }

  private async tick(): Promise<void> {
    if (this.ticking) return;
    this.ticking = true;
    try {
      await this.kamaji.tick();
      await this.addons.tick();
      await this.mirror.tick();
      await this.kubelets.tick();
      await this.autoscaler?.tick();
      await this.csi?.tick();
    } catch (e) {
      const message = (e as Error).message;
      if (this.tickErrors[this.tickErrors.length - 1] !== message) this.tickErrors.push(message);
      if (this.tickErrors.length > 50) this.tickErrors.shift();
    } finally {
      this.ticking = false;
    }
  }

  /**
   * management (namespaces, credentials), management-config, then the tenant stacks — each its own
   * `tofu apply`, the tenant stacks side by side (none reads another).
   */
  async applyKubernetes(applied?: (tenant: string, at: number, phase: 'started' | 'applied') => void): Promise<void> {
    this.log('applying management, management-config and the tenant stacks');
    await this.applyStack('management');
    this.timeline.mark('bring-up: apply management');
    await this.ensureMetallb();
    this.timeline.mark('bring-up: MetalLB controller');
    await this.runProvidersReady();
    this.timeline.mark('bring-up: providers-ready Job');
    await this.applyStack('management-config');
    this.timeline.mark('bring-up: apply management-config');
    await this.applyTenantStacks(
      this.run.lab.tenants.map((t) => t.name),
      applied,
    );
    this.timeline.mark('bring-up: apply tenant stacks (to initialized)');
  }

  /**
   * The tenant stacks side by side; `applied` hears of each as its apply starts and once it is done
   * (tofu apply returns: its `wait` on the Cluster's ControlPlaneInitialized held) — the bench's marks.
   */
  private async applyTenantStacks(names: string[], applied?: (tenant: string, at: number, phase: 'started' | 'applied') => void): Promise<void> {
    const results = await Promise.allSettled(
      names.map(async (n) => {
        applied?.(n, Date.now(), 'started');
        await this.applyStack(`tenant-${n}`);
        applied?.(n, Date.now(), 'applied');
      }),
    );
    const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => (r.reason as Error).message);
    if (failed.length > 0) throw new Error(failed.join('\n'));
  }

  /** The management stack's MetalLB release as synthesized. */
  private metallbRelease(): MetallbRelease {
    return metallbReleaseOf(readStack(this.run.out, 'management').config);
  }

  /**
   * MetalLB's real controller, started once the management stack (its namespace and release) is
   * applied, with the release's rendered chart and values (metallb.ts).
   */
  private async ensureMetallb(): Promise<void> {
    if (this.metallb) return;
    this.log('starting the MetalLB controller (real, from the rendered metallb release)');
    this.metallb = await startMetallb({
      root: this.options.root,
      dir: this.mgmt.dir,
      client: this.mgmt.client,
      adminKubeconfig: this.mgmt.kubeconfig,
      release: this.metallbRelease(),
      kubeVersion: resolveToolchain().kubernetes.version,
      track: (c) => this.children.add(c),
    });
  }

  /** The management stack's providers-ready Job, run as rendered with its ServiceAccount (providers-ready.ts); it fails the apply as the Job would. */
  private async runProvidersReady(): Promise<void> {
    const values = this.operatorValues();
    const run = await runProvidersReady(
      this.mgmt.client,
      this.mgmt.kubeconfig,
      this.options.root,
      readStack(this.run.out, 'management'),
      values,
      twinProviders(deployedProviders(values)),
    );
    if (run && !run.ok) throw new Error(`management: the providers-ready Job failed: ${run.reason}`);
    if (run) this.log('management: the providers-ready Job completed (as its ServiceAccount)');
  }

  /**
   * A changed description: re-synthesize it against the same simulator, apply the proxmox stacks,
   * re-apply the Kubernetes stacks of tenants still in it, and destroy the stacks of tenants no
   * longer in it (their stacks as last applied, in reverse order).
   */
  async update(labText: string): Promise<void> {
    this.currentLabText = labText;
    const endpoints = Object.fromEntries(this.run.sim.names.map((n) => [n, this.run.sim.endpoint(n)]));
    writeFileSync(this.run.labFile, pointLabAt(labText, endpoints));
    // The same state directory as the first synth (scripts/lib/lab-run.ts): the run's own, seen from each stack.
    const stateDirFromStack = relative(join(this.run.out, 'stacks', 'any-stack'), join(this.options.work, 'state'))
      .split('\\')
      .join('/');
    const { lab } = synthesizeLab({ config: this.run.labFile, out: this.run.out, stateDirFromStack });
    const gone = this.run.lab.tenants.filter((t) => !lab.tenants.some((n) => n.name === t.name)).map((t) => t.name);
    for (const name of gone) await this.deleteTenant(name);
    const previous = this.plan;
    this.run.lab = lab;
    this.lab = lab;
    this.plan = planFromJson(readFileSync(join(this.run.out, 'placement.json'), 'utf8'));
    const leaving = instancesLeft(
      previous,
      this.plan,
      lab.tenants.map((t) => t.name),
    );
    if (leaving.length > 0) {
      // A tenant leaves an instance: its machines there go first (the tenant stack drains and
      // deletes them), then its Proxmox pool and token there (the proxmox stack), never the reverse.
      this.log(`tenants leave instances (${leaving.join(', ')}): applying the tenant stacks before the proxmox stacks`);
      await this.applyTenantStacks(lab.tenants.map((t) => t.name));
      await this.applyStack('management');
      await this.playOperatorUpgrades();
      await this.applyStack('management-config');
      await this.applyProxmox();
      return;
    }
    await this.applyProxmox();
    await this.applyStack('management');
    await this.playOperatorUpgrades();
    await this.applyStack('management-config');
    await this.applyTenantStacks(lab.tenants.map((t) => t.name));
  }

  /**
   * Restarts the management kube-apiserver (etcd keeps its data): what was stored is read back from
   * etcd. Stopped as the kubelet stops it (SIGTERM, SIGKILL after 30 s), or crashed with
   * `gracePeriodMs: 0`.
   */
  async restartManagementApiServer(options: { gracePeriodMs?: number } = {}): Promise<void> {
    this.log(`restarting the management kube-apiserver${options.gracePeriodMs === 0 ? ' (killed: a crash)' : ''}`);
    await this.mgmt.restartApiServer(options);
    // /readyz answers before the custom resources are served again ("storage is (re)initializing").
    const crds = (await this.mgmt.client.get('/apis/apiextensions.k8s.io/v1/customresourcedefinitions')).body.items as {
      spec: { group: string; names: { plural: string }; versions: { name: string; storage: boolean }[] };
    }[];
    await this.waitFor('every custom resource served after the API server restart', 120000, async () => {
      for (const crd of crds) {
        const version = crd.spec.versions.find((v) => v.storage) ?? crd.spec.versions[0];
        if ((await this.mgmt.client.get(`/apis/${crd.spec.group}/${version.name}/${crd.spec.names.plural}?limit=1`)).status !== 200) return false;
      }
      return true;
    });
  }

  /** Restarts one controller, with extra environment for a negative control (none: as deployed). */
  async restartController(name: ControllerName, extraEnv?: Record<string, string>): Promise<void> {
    if (!this.controllers) throw new Error('the controllers are not running');
    this.log(`restarting ${name}${extraEnv ? ` with ${Object.keys(extraEnv).join(', ')}` : ''}`);
    await this.controllers.restart(name, extraEnv);
  }

  /**
   * `tofu destroy` of a tenant stack: its resources in reverse dependency order, each gone before the
   * next (a kubernetes_manifest within its `timeouts.delete`, as the provider waits).
   */
  async deleteTenant(name: string): Promise<VolumeRelease | undefined> {
    const stack = `tenant-${name}`;
    const release = await this.releaseVolumes(name);
    let state = this.state.get(stack);
    if (!state) {
      // Never applied by this twin: what the stack holds, as created objects.
      const contents = readStack(this.run.out, stack);
      const sources = this.sources(contents);
      state = new Map();
      for (const o of contents.objects) {
        const object = (await resolveExpressions(o.object, contents, sources)) as KubeObjectJson;
        const [type, rname] = o.address.split('.');
        const path = await this.mgmt.client.objectPath(object as never);
        if (type === 'kubernetes_manifest') {
          const resource = manifestResource(o.address, contents.config.resource[type][rname], object as ManifestResource['manifest']);
          state.set(o.address, {
            kind: 'manifest',
            applied: { manifest: resource.manifest, object, path, resource },
            dependsOn: resourceDependencies(contents, o.address),
          });
        } else state.set(o.address, { kind: 'plain', path, timeoutMs: 600000, dependsOn: resourceDependencies(contents, o.address) });
      }
    }
    const failed = await this.destroyAll(stack, [...state]);
    for (const address of state.keys()) if (!failed.has(address)) state.delete(address);
    if (failed.size > 0) throw new Error(`tofu destroy of ${stack} failed:\n${[...failed.values()].join('\n\n')}`);
    this.state.delete(stack);
    return release;
  }

  /**
   * The step before a tenant's destroy when its lab has storage classes (scripts/lib/tenant-volumes.ts):
   * its `Delete` volumes deleted with their claims while the CSI controller still runs, `Retain`
   * ones listed. The tenant API server is reached with the tenant's kubeconfig Secret in its
   * management namespace, as the CSI sidecars and the autoscaler reach it.
   */
  private async releaseVolumes(name: string): Promise<VolumeRelease | undefined> {
    const tenant = this.run.lab.tenants.find((t) => t.name === name);
    if (!tenant?.storage?.classes?.length) return undefined;
    // The road of `pvekaas release-volumes` (scripts/lib/release-volumes-run.ts): the tenant's kubeconfig Secret, then the step.
    const { client } = await tenantClientFromSecret(this.mgmt.client, this.run.lab, name);
    try {
      return await releaseTenantVolumes(client, name, { log: (l) => this.log(l) });
    } finally {
      client.close();
    }
  }

  /** The version each real controller runs (its build: the providers' graph or the default core's). */
  controllerVersions(): Record<ControllerName, string> {
    if (!this.controllers) throw new Error('the controllers are not running');
    return this.controllers.versions();
  }

  logFile(name: ControllerName): string | undefined {
    return this.controllers?.logFile(name);
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    while (this.ticking) await sleep(50);
    await this.controllers?.stop();
    if (process.env.PVEKAAS_TWIN_KEEP === '1' && this.controllers) {
      // The controllers' logs live beside the management API server's files, removed with it.
      mkdirSync(join(this.options.work, 'controllers'), { recursive: true });
      for (const name of CONTROLLERS) {
        const file = this.controllers.logFile(name);
        if (existsSync(file)) copyFileSync(file, join(this.options.work, 'controllers', `${name}.log`));
      }
    }
    await this.metallb?.stop();
    await this.caaphWebhook?.stop();
    for (const c of this.children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await this.kamaji?.stop();
    await this.mgmt?.stop();
    await this.run?.sim.stop();
  }

  /**
   * Removes the scratch directory (after stop), unless `PVEKAAS_TWIN_KEEP=1`: then it is left, with
   * each controller's log (`controllers/<name>.log`), for a look after the run.
   */
  cleanup(): void {
    if (process.env.PVEKAAS_TWIN_KEEP === '1') {
      process.stderr.write(`[twin] kept ${this.options.work} (PVEKAAS_TWIN_KEEP=1)\n`);
      return;
    }
    if (existsSync(this.options.work)) rmSync(this.options.work, { recursive: true, force: true });
    void dirname;
  }
}

/** `tenant → instance` pairs of tenants still in the lab whose plan used an instance it no longer uses. */
function instancesLeft(before: PlacementPlan, after: PlacementPlan, tenants: string[]): string[] {
  const used = (plan: PlacementPlan, tenant: string) =>
    new Set(plan.tenants.find((t) => t.name === tenant)?.pools.flatMap((p) => p.placements.map((x) => x.instance)) ?? []);
  return tenants.flatMap((t) => {
    const now = used(after, t);
    return [...used(before, t)].filter((i) => !now.has(i)).map((i) => `${t} → ${i}`);
  });
}

/** The management stack's ClusterRoles aggregated to CAPI core's manager role. */
function isAggregatedToCapi(o: KubeObjectJson): boolean {
  return o.kind === 'ClusterRole' && (o.metadata as { labels?: Record<string, string> }).labels?.['cluster.x-k8s.io/aggregate-to-manager'] === 'true';
}

/** Convenience for scripts and tests: a lab file's text and a parsed copy. */
export function readLab(file: string): { text: string; lab: Lab } {
  const text = readFileSync(file, 'utf8');
  return { text, lab: parseLab(text, file) };
}
