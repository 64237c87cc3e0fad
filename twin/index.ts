/**
 * The lab twin: a lab description brought up where the real things act on what pvekaas renders.
 *
 * Real: OpenTofu + bpg/proxmox (the `proxmox-*` stacks), kube-apiserver + etcd +
 * kube-controller-manager (the management cluster and each tenant's API server), and the Cluster
 * API controllers — CAPI core (topology on), kubeadm bootstrap, CAPMOX v0.9.0, in-cluster IPAM —
 * with their webhooks. Simulated, and only that: Proxmox VE (sim/, strict), Kamaji and its CAPI
 * provider (kamaji.ts), kubelets (kubelets.ts).
 *
 * What is applied is exactly what the synthesized stacks hold (stack-objects.ts): the proxmox
 * stacks with tofu, then the Namespaces/Secrets of `management`, then every manifest of
 * `management-config` and of each tenant stack, server-side applied in `depends_on` order, with
 * cross-stack values resolved from the same sources the stacks read.
 */
import type { ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { parseLab } from '../modules/config/load';
import type { Lab } from '../modules/config/schema';
import { tenantCredentialsSecretName, tenantNamespace } from '../modules/tenants/names';
import { releaseTenantVolumes, type VolumeRelease } from '../scripts/lib/tenant-volumes';
import { tenantClientFromSecret } from '../scripts/lib/release-volumes-run';
import { asPlannedProblems } from './as-planned';
import { planFromJson } from '../modules/placement/render-json';
import type { PlacementPlan } from '../modules/placement/types';
import { capiCoreBuild, capiPreviousLane, controllerModules, crdDirOf, crdDirsFor, resolveToolchain, type VersionKey } from '../modules/versions/pins';
import { resolveVersions } from '../modules/versions/guard';
import { pointLabAt, startSimulatedLab, type SimulatedLab } from '../scripts/lib/lab-run';
import type { SimVmView } from '../sim/simulator';
import { crdRoot, loadPinnedCrds, startKubeServer, type KubeObject, type KubeServer } from '../scripts/lib/kube-apiserver';
import { synthesizeLab } from '../scripts/lib/synthesize';
import {
  CONTROLLERS,
  controllerBuilds,
  startControllers,
  deployedProviders,
  webhookCertificates,
  operatorChanges,
  type ControllerName,
  type RunningControllers,
} from './controllers';
import { withReleaseLabels } from './crd-labels';
import { AddonPlayer } from './caaph';
import { startCaaphWebhook, type CaaphWebhook } from './caaph-webhook';
import { KamajiPlayer } from './kamaji';
import { kamajiReleases } from './releases';
import { KubeletPlayer } from './kubelets';
import { CsiPlayer } from './csi-sidecars';
import { metallbReleaseOf, notAnnounced, startMetallb, type MetallbRelease, type RunningMetallb } from './metallb';
import { MirrorPlayer } from './mirror';
import { AutoscalerPlayer, readCa, tenantAutoscalerReleases } from './autoscaler';
import { ApplyError, ManifestApplier, manifestResource, type AppliedState, type ManifestResource, type PlanAction } from './manifest-applier';
import { renderedOperatorValues } from './operator-chart';
import { playOperatorProviders, runProvidersReady, twinProviders } from './providers-ready';
import {
  readStack,
  resolveExpressions,
  resourceDependencies,
  type ExpressionSources,
  type KubeObjectJson,
  type StackContents,
  type StackObject,
} from './stack-objects';
import { Timeline } from './timeline';

export interface TwinOptions {
  root: string;
  labText: string;
  labFile: string;
  /** Scratch directory (removed by stop unless keep). */
  work: string;
  log?: (line: string) => void;
  /**
   * Play each tenant's cluster-autoscaler release (twin/autoscaler.ts). Off by default:
   * the other suites scale autoscaled pools by hand, which a running autoscaler would undo.
   */
  autoscaler?: boolean;
  /**
   * Run each tenant control plane's kube-controller-manager, as Kamaji's pod does
   * (twin/tenant-controller-manager.ts): the aggregated ClusterRoles filled, ServiceAccounts,
   * Deployments' ReplicaSets and Pods... Off by default: the other suites' played kubelets and
   * autoscaler were written against tenants without it (docs/twin.md).
   */
  tenantControllerManager?: boolean;
  /** Play the Proxmox CSI plugin's controller and sidecars and the kubelets' volume part (csi-sidecars.ts; test/twin/storage.test.ts). */
  csi?: boolean;
  /** Extra environment per controller: negative controls only. */
  controllerEnv?: Partial<Record<ControllerName, Record<string, string>>>;
  /** Values of the stacks' input variables (`-var`/TF_VAR_ of `tofu apply`), e.g. the backup S3 keys. */
  variables?: Record<string, string>;
}

export interface TwinMachine {
  name: string;
  pool: string;
  cluster: string;
  machineDeployment: string;
  phase?: string;
  instance?: string;
  node?: string;
  vmid?: number;
  cpu?: number;
  memoryMiB?: number;
  diskGiB?: number;
  tags: string[];
  proxmoxPool?: string;
  ipAddresses: string[];
  createdBy?: string;
  nodeName?: string;
  providerID?: string;
  /** The Machine's Kubernetes version (`spec.version`). */
  version?: string;
  /** The Machine's `Ready` condition is True (CAPI's summary: bootstrap, infrastructure, NodeHealthy, health check). */
  ready: boolean;
  /** The template VM the VM was cloned from. */
  template?: { vmid: number; node: string; tags: string[] };
}

export interface TwinTenant {
  name: string;
  converged: boolean;
  controlPlaneInitialized: boolean;
  /** The version the tenant API server answers on `/version` (its gitVersion), when it answers. */
  controlPlaneVersion?: string;
  /** Its CNI release as the played CAAPH has it; `notRendered` says why a chart was not rendered (Calico). */
  cni?: { chart: string; status: string; notRendered?: string };
  /**
   * Why it is not converged: what it waits for (control plane, machines not Running/Ready) and every
   * difference from the placement plan (notAsPlanned).
   */
  waiting: string[];
  /** Differences from the plan: machines per pool and node, IP ranges, templates, creating token. */
  notAsPlanned: string[];
  machines: TwinMachine[];
}

const TICK_MS = 1000;

export class LabTwin {
  lab!: Lab;
  plan!: PlacementPlan;
  private run!: SimulatedLab;
  private mgmt!: KubeServer;
  private controllers?: RunningControllers;
  private metallb?: RunningMetallb;
  kamaji!: KamajiPlayer;
  kubelets!: KubeletPlayer;
  csi?: CsiPlayer;
  addons!: AddonPlayer;
  /** CAAPH's admission webhooks, played (caaph-webhook.ts), registered on the management API server. */
  caaphWebhook?: CaaphWebhook;
  mirror!: MirrorPlayer;
  /** The tenants' cluster-autoscalers, when `autoscaler` is on. */
  autoscaler?: AutoscalerPlayer;
  private timer?: NodeJS.Timeout;
  private ticking = false;
  private readonly children = new Set<ChildProcess>();
  /** The twin's Terraform state: per stack, each applied resource by address, in apply order. */
  private readonly state = new Map<string, Map<string, ResourceState>>();
  /** kubernetes_manifest as hashicorp/kubernetes 2.38.0 applies it (manifest-applier.ts). */
  private applier!: ManifestApplier;
  readonly tickErrors: string[] = [];
  /** Where the time went: bring-up parts, then whatever the caller marks (test/twin/support.ts prints it). */
  readonly timeline = new Timeline();

  private constructor(private readonly options: TwinOptions) {}

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

  /** Runs tofu in `proxmox-<instance>` with that instance's administrator token. */
  tofu(instance: string, args: string[]) {
    // Anything but a read may change what the stack holds: its next applyProxmox applies it again.
    if (!['plan', 'output', 'show', 'validate'].includes(args[0])) this.proxmoxApplied.delete(instance);
    return this.run.tofu(instance, args);
  }

  get management(): KubeServer {
    return this.mgmt;
  }

  private log(line: string): void {
    this.options.log?.(line);
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

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- Helm chart values: free-form YAML read by path, as the chart reads it
  private renderedOperator?: { key: string; values: Record<string, any> };

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- Helm chart values: free-form YAML read by path, as the chart reads it
  private operatorValues(): Record<string, any> {
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

  /** Each proxmox stack's synthesized bytes when it was last applied. */
  private readonly proxmoxApplied = new Map<string, string>();

  /**
   * `tofu apply` of every proxmox stack against the simulator whose synthesized configuration
   * changed since it was last applied, as `npm run deploy -- --against <old lab>` deploys only the
   * stacks that changed (same input, same bytes: an unchanged stack plans nothing).
   */
  async applyProxmox(): Promise<void> {
    const configOf = (n: string) => readFileSync(join(this.run.out, 'stacks', `proxmox-${n}`, 'cdk.tf.json'), 'utf8');
    const all = this.run.lab.proxmox.instances.map((i) => i.name);
    const names = all.filter((n) => this.proxmoxApplied.get(n) !== configOf(n));
    if (names.length === 0) {
      this.log(`proxmox stacks unchanged (${all.map((n) => `proxmox-${n}`).join(', ')}): nothing to apply`);
      return;
    }
    this.log(`applying ${names.map((n) => `proxmox-${n}`).join(', ')} with OpenTofu and bpg/proxmox`);
    const configs = new Map(names.map((n) => [n, configOf(n)]));
    const results = await Promise.all(names.map((n) => this.run.tofu(n, ['apply', '-auto-approve', '-input=false', '-parallelism=6', '-no-color'])));
    const failed = results.map((r, i) => [names[i], r] as const).filter(([, r]) => r.code !== 0);
    for (const [i, r] of results.entries()) {
      if (r.code === 0) this.proxmoxApplied.set(names[i], configs.get(names[i])!);
      else this.proxmoxApplied.delete(names[i]);
    }
    if (failed.length > 0) throw new Error(failed.map(([n, r]) => `tofu apply of proxmox-${n} failed:\n${r.stderr || r.stdout}`).join('\n'));
  }

  private sources(stack: StackContents): ExpressionSources {
    const stackDir = join(this.run.out, 'stacks', stack.stack);
    return {
      variable: (name) => {
        const declared = stack.config.variable?.[name];
        if (!declared) throw new Error(`${stack.stack}: no variable ${name}`);
        const value = this.options.variables?.[name] ?? declared.default;
        if (value === undefined)
          throw new Error(`${stack.stack}: no value for the required variable ${name} (tofu apply would ask for it): pass it in the twin's variables`);
        return value as string;
      },
      remoteStateOutputs: (dataName) => {
        const data = stack.config.data?.terraform_remote_state?.[dataName];
        if (!data) throw new Error(`${stack.stack}: no data source terraform_remote_state.${dataName}`);
        if (data.backend !== 'local') throw new Error(`${stack.stack}: the twin reads local state only (backend ${data.backend})`);
        const file = resolve(stackDir, data.config.path);
        if (!existsSync(file)) throw new Error(`${stack.stack}: the state ${file} does not exist (apply the stack it reads first)`);
        const state = JSON.parse(readFileSync(file, 'utf8')) as { outputs?: Record<string, { value: unknown }> };
        return Object.fromEntries(Object.entries(state.outputs ?? {}).map(([k, v]) => [k, v.value]));
      },
      secretData: async (namespace, name) => {
        const r = await this.mgmt.client.get(`/api/v1/namespaces/${namespace}/secrets/${name}`);
        if (r.status !== 200) throw new Error(`${stack.stack}: data source Secret ${namespace}/${name}: HTTP ${r.status}`);
        return Object.fromEntries(
          Object.entries((r.body.data ?? {}) as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]),
        );
      },
    };
  }

  /**
   * Applies one stack as `tofu apply` would: a resource starts once everything it depends on is
   * applied, up to 10 at a time (tofu's default parallelism); each `kubernetes_manifest` planned and
   * applied with the provider's semantics (manifest-applier.ts: field manager, consistency check,
   * `wait` within `timeouts`), an unchanged one left alone; a replaced one (another name or kind)
   * destroyed first unless `create_before_destroy`. Then what the stack held last time and no
   * longer holds is destroyed in reverse order, each gone before the next. Every failure is
   * reported, with what it kept from applying. `only` applies a subset (no destroys).
   */
  async applyStack(stack: string, only?: (o: StackObject) => boolean): Promise<StackContents> {
    const contents = readStack(this.run.out, stack);
    const sources = this.sources(contents);
    const previous = this.state.get(stack) ?? new Map<string, ResourceState>();
    const next = new Map<string, ResourceState>();
    const objects = only ? contents.objects.filter(only) : contents.objects;
    const byAddress = new Map(objects.map((o) => [o.address, o]));
    const done = new Map<string, Promise<boolean>>();
    const errors: string[] = [];
    const slots = new Semaphore(10);
    const run = (o: StackObject): Promise<boolean> => {
      let p = done.get(o.address);
      if (p) return p;
      p = (async () => {
        const deps = await Promise.all(o.dependsOn.filter((d) => byAddress.has(d)).map((d) => run(byAddress.get(d)!)));
        if (!deps.every(Boolean)) return false;
        await slots.take();
        try {
          const result = await this.applyResource(stack, contents, sources, o, previous.get(o.address));
          next.set(o.address, { ...result, dependsOn: resourceDependencies(contents, o.address) });
          return true;
        } catch (e) {
          const kept = (e as { state?: AppliedState }).state;
          if (kept) next.set(o.address, { kind: 'manifest', applied: kept, dependsOn: resourceDependencies(contents, o.address) });
          errors.push(`${stack}: ${(e as Error).message}`);
          return false;
        } finally {
          slots.give();
        }
      })();
      done.set(o.address, p);
      return p;
    };
    await Promise.all(objects.map(run));
    // State keeps what was not touched (a subset applied, or a failure before it) and what was applied.
    const state = new Map<string, ResourceState>();
    for (const o of contents.objects) {
      const s = next.get(o.address) ?? previous.get(o.address);
      if (s) state.set(o.address, s);
    }
    const stale = only ? [] : [...previous].filter(([address]) => !contents.objects.some((o) => o.address === address));
    if (errors.length === 0) {
      const failed = await this.destroyAll(stack, stale, ' (no longer in the stack)');
      for (const [address, s] of stale) if (failed.has(address)) state.set(address, s);
      errors.push(...failed.values());
    } else for (const [address, s] of stale) state.set(address, s);
    this.state.set(stack, state);
    if (errors.length > 0) throw new Error(`tofu apply of ${stack} failed:\n${errors.join('\n\n')}`);
    return contents;
  }

  /** One resource: plan against its state, then apply (create, update, replace) or leave it. */
  private async applyResource(
    stack: string,
    contents: StackContents,
    sources: ExpressionSources,
    o: StackObject,
    prior: ResourceState | undefined,
  ): Promise<ResourceState> {
    const object = (await resolveExpressions(o.object, contents, sources)) as KubeObjectJson;
    const [type, name] = o.address.split('.');
    const config = contents.config.resource?.[type]?.[name] ?? {};
    if (type !== 'kubernetes_manifest') {
      // kubernetes_namespace_v1, kubernetes_secret_v1, kubernetes_config_map_v1: the object the
      // provider writes, applied server-side; a changed name replaces it (destroyed after).
      const r = await this.mgmt.client.apply(object as never, { fieldManager: 'Terraform' });
      if (r.status !== 200 && r.status !== 201)
        throw new Error(
          `${o.address} (${object.kind} ${object.metadata.namespace ? `${object.metadata.namespace}/` : ''}${object.metadata.name}) refused: HTTP ${r.status}: ${r.body?.message ?? r.text}`,
        );
      const path = await this.mgmt.client.objectPath(object as never);
      if (prior && pathOf(prior) !== path) await this.destroyResource(prior);
      return { kind: 'plain', path, timeoutMs: 600000 };
    }
    const resource = manifestResource(o.address, config, object as ManifestResource['manifest']);
    const state = prior?.kind === 'manifest' ? prior.applied : undefined;
    const plan = await this.applier.plan(resource, state);
    if (plan.action === 'replace' && state) {
      if (!resource.createBeforeDestroy) {
        this.log(`${stack}: ${o.address} must be replaced: destroying the old object first`);
        await this.applier.destroy(state);
        return this.manifestApplied(await this.applier.apply(resource, undefined), stack);
      }
      const created = await this.applier.apply(resource, undefined);
      await this.applier.destroy(state);
      return this.manifestApplied(created, stack);
    }
    return this.manifestApplied(await this.applier.apply(resource, plan.action === 'create' ? undefined : state), stack);
  }

  private manifestApplied(result: { state: AppliedState; action: PlanAction; warnings: string[] }, stack: string): ResourceState {
    if (result.warnings.length > 0) {
      // OpenTofu only warns, but the field never reaches the server: the rendering is not what runs.
      throw Object.assign(new ApplyError(result.state.resource.address, 'Attribute not found in schema', result.warnings.join('\n')), { state: result.state });
    }
    if (result.action !== 'no-op') this.log(`${stack}: ${result.state.resource.address}: ${result.action}d`);
    return { kind: 'manifest', applied: result.state };
  }

  /**
   * Destroys `resources` (in the order they were applied) as OpenTofu's destroy walks its graph: a
   * resource once every resource that depends on it is gone, up to 10 at a time (`-parallelism`'s
   * default). One that fails stays in state, and so does everything it depends on (never destroyed).
   * A resource without recorded dependencies waits for every one applied after it (the reverse order).
   * Returns the failures by address.
   */
  private async destroyAll(stack: string, resources: [string, ResourceState][], note = ''): Promise<Map<string, string>> {
    const failed = new Map<string, string>();
    const addresses = resources.map(([a]) => a);
    const dependents = new Map<string, string[]>(addresses.map((a) => [a, []]));
    resources.forEach(([address, s], i) => {
      const on = s.dependsOn ?? addresses.slice(0, i);
      for (const d of on) dependents.get(d)?.push(address);
    });
    const slots = new Semaphore(10);
    const done = new Map<string, Promise<boolean>>();
    const byAddress = new Map(resources);
    const destroy = (address: string): Promise<boolean> => {
      let p = done.get(address);
      if (p) return p;
      p = (async () => {
        const gone = await Promise.all(dependents.get(address)!.map(destroy));
        if (!gone.every(Boolean)) return false;
        await slots.take();
        try {
          this.log(`${stack}: destroying ${address}${note}`);
          await this.destroyResource(byAddress.get(address)!);
          return true;
        } catch (e) {
          failed.set(address, `${stack}: ${(e as Error).message}`);
          return false;
        } finally {
          slots.give();
        }
      })();
      done.set(address, p);
      return p;
    };
    await Promise.all(addresses.map(destroy));
    // What was not destroyed because something depending on it failed stays in state too.
    for (const address of addresses)
      if (!failed.has(address) && !(await done.get(address))) failed.set(address, `${stack}: ${address} not destroyed (a resource depending on it failed)`);
    return failed;
  }

  private async destroyResource(s: ResourceState): Promise<void> {
    if (s.kind === 'manifest') {
      await this.applier.destroy(s.applied);
      return;
    }
    await this.deleteAndWait(s.path, s.path, s.timeoutMs);
  }

  /**
   * The second plan: what `tofu plan` of each Kubernetes stack would change now, after the
   * controllers reconciled — per `kubernetes_manifest`, the provider's plan of the refreshed object
   * (manifest-applier.ts `plan`). Empty when what runs is what the stacks say. Reads only.
   */
  async secondPlan(stacks?: string[]): Promise<{ stack: string; address: string; action: PlanAction; changes: string[] }[]> {
    const out: { stack: string; address: string; action: PlanAction; changes: string[] }[] = [];
    for (const stack of stacks ?? [...this.state.keys()]) {
      const contents = readStack(this.run.out, stack);
      const sources = this.sources(contents);
      const state = this.state.get(stack) ?? new Map<string, ResourceState>();
      for (const o of contents.objects) {
        const [type, name] = o.address.split('.');
        if (type !== 'kubernetes_manifest') continue;
        const object = (await resolveExpressions(o.object, contents, sources)) as KubeObjectJson;
        const resource = manifestResource(o.address, contents.config.resource[type][name], object as ManifestResource['manifest']);
        const s = state.get(o.address);
        const plan = await this.applier.plan(resource, s?.kind === 'manifest' ? s.applied : undefined);
        if (plan.action !== 'no-op') out.push({ stack, address: o.address, action: plan.action, changes: plan.changes });
      }
    }
    return out;
  }

  private async deleteAndWait(what: string, path: string, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const r = await this.mgmt.client.delete(path);
    if (r.status !== 200 && r.status !== 202 && r.status !== 404) throw new Error(`deleting ${what}: HTTP ${r.status}: ${r.body?.message ?? r.text}`);
    while ((await this.mgmt.client.get(path)).status !== 404) {
      if (Date.now() > deadline) throw new Error(`${what} still exists after ${timeoutMs / 1000} s:\n${this.controllers?.logs(undefined, 10)}`);
      await sleep(500);
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
  private providerCrds(name: ControllerName, version: string): KubeObject[] {
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

  private pinnedCapi(): string {
    return resolveVersions({}).clusterApi;
  }

  /** Replaces a CRD with a release's (clusterctl's create-or-update): refused as the API server refuses it. */
  private async replaceCrd(crd: KubeObject): Promise<void> {
    const path = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`;
    const current = await this.mgmt.client.get(path);
    const r =
      current.status === 404
        ? await this.mgmt.client.post('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)
        : await this.mgmt.client.request('PUT', path, { ...crd, metadata: { ...crd.metadata, resourceVersion: current.body.metadata.resourceVersion } });
    if (r.status !== 200 && r.status !== 201)
      throw new Error(`the operator's upgrade: CRD ${crd.metadata.name} refused: HTTP ${r.status}: ${r.body?.message ?? r.text}`);
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

  /** The `spec.version` of the Machine a VM stands for: its ProxmoxMachine (providerID, or named like the VM), then the owning Machine. */
  private async machineVersionOf(vm: SimVmView): Promise<string | undefined> {
    const r = await this.mgmt.client.get('/apis/infrastructure.cluster.x-k8s.io/v1alpha2/proxmoxmachines');
    if (r.status !== 200) return undefined;
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the API server's JSON, read by path
    const items = r.body.items as any[];
    const pm = items.find((p) => (vm.uuid && p.spec?.providerID === `proxmox://${vm.uuid}`) || (vm.name && p.metadata.name === vm.name));
    const owner = ((pm?.metadata?.ownerReferences ?? []) as { kind: string; name: string }[]).find((o) => o.kind === 'Machine');
    if (!pm || !owner) return undefined;
    const m = await this.mgmt.client.get(`/apis/cluster.x-k8s.io/v1beta2/namespaces/${pm.metadata.namespace}/machines/${owner.name}`);
    return m.status === 200 ? (m.body.spec?.version as string | undefined) : undefined;
  }

  /** The tenant as the controllers see it: control plane, machines, and each machine's VM. */
  async tenant(name: string): Promise<TwinTenant> {
    const ns = this.run.lab.tenants.find((t) => t.name === name) ? name : name;
    const client = this.mgmt.client;
    const list = async (path: string) => {
      const r = await client.get(path);
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the API server's JSON for the path asked; the caller reads the kind it asked for
      return r.status === 200 ? (r.body.items as any[]) : [];
    };
    const waiting: string[] = [];
    const clusters = await list(`/apis/cluster.x-k8s.io/v1beta2/namespaces/${ns}/clusters`);
    const primary = clusters.find((c) => c.metadata.name === name);
    const controlPlaneInitialized = primary?.status?.initialization?.controlPlaneInitialized === true;
    if (!primary) waiting.push('no Cluster');
    else if (!controlPlaneInitialized) waiting.push(`control plane not initialized${this.planeWaiting(ns) ? ` (${this.planeWaiting(ns)})` : ''}`);
    const plane = [...this.kamaji.planes.values()].find((p) => p.namespace === ns && p.cluster === name);
    // A rolling update of the control plane (kamaji.ts rollOut) is not converged until it is done; a stuck one says why.
    if (plane?.rollout) waiting.push(`control plane ${plane.version} → ${plane.rollout.to}: ${this.planeWaiting(ns) ?? 'rolling'}`);
    const version = plane ? await plane.server.client.get('/version').catch(() => undefined) : undefined;
    const controlPlaneVersion = version?.status === 200 ? (version.body.gitVersion as string) : undefined;
    const machines = await list(`/apis/cluster.x-k8s.io/v1beta2/namespaces/${ns}/machines`);
    const pmachines = new Map((await list(`/apis/infrastructure.cluster.x-k8s.io/v1alpha2/namespaces/${ns}/proxmoxmachines`)).map((m) => [m.metadata.name, m]));
    const mds = await list(`/apis/cluster.x-k8s.io/v1beta2/namespaces/${ns}/machinedeployments`);
    const allVms = this.run.sim.listVms();
    const vms = new Map<string, SimVmView>(allVms.filter((v) => v.uuid).map((v) => [`proxmox://${v.uuid}`, v]));
    const out: TwinMachine[] = [];
    for (const m of machines) {
      const labels = (m.metadata.labels ?? {}) as Record<string, string>;
      const pm = pmachines.get(m.spec?.infrastructureRef?.name);
      const providerID: string | undefined = m.spec?.providerID ?? pm?.spec?.providerID;
      const vm = providerID ? vms.get(providerID) : undefined;
      const source = vm?.cloneOf !== undefined ? allVms.find((v) => v.instance === vm.instance && v.vmid === vm.cloneOf) : undefined;
      const addresses = ((pm?.status?.addresses ?? []) as { type: string; address: string }[]).filter((a) => a.type === 'InternalIP').map((a) => a.address);
      out.push({
        name: m.metadata.name,
        pool: labels['node.cluster.x-k8s.io/pool'] ?? '',
        cluster: m.spec?.clusterName,
        machineDeployment: labels['cluster.x-k8s.io/deployment-name'] ?? '',
        phase: m.status?.phase,
        instance: vm?.instance,
        node: vm?.node,
        vmid: vm?.vmid,
        cpu: vm ? (vm.cores ?? 1) * (vm.sockets ?? 1) : undefined,
        memoryMiB: vm?.memoryMiB,
        diskGiB: vm?.disks.find((d) => d.key === 'scsi0')?.sizeGiB ?? vm?.disks[0]?.sizeGiB,
        tags: vm?.tags ?? [],
        proxmoxPool: vm?.pool,
        ipAddresses: addresses,
        createdBy: vm?.createdBy,
        nodeName: m.status?.nodeRef?.name,
        providerID,
        version: m.spec?.version,
        ready: ((m.status?.conditions ?? []) as { type: string; status: string }[]).some((c) => c.type === 'Ready' && c.status === 'True'),
        ...(source ? { template: { vmid: source.vmid, node: source.node, tags: source.template ? source.tags : [] } } : {}),
      });
    }
    out.sort((a, b) => a.name.localeCompare(b.name));
    let desired = 0;
    for (const md of mds) {
      const replicas = md.spec?.replicas ?? 0;
      desired += replicas;
      const mine = out.filter((m) => m.machineDeployment === md.metadata.name);
      const running = mine.filter((m) => m.phase === 'Running' && m.nodeName && m.ready);
      if (running.length !== replicas || mine.length !== replicas)
        waiting.push(
          `MachineDeployment ${md.metadata.name}: ${running.length}/${replicas} running${mine.length !== replicas ? `, ${mine.length} machines` : ''}`,
        );
    }
    if (mds.length === 0) waiting.push('no MachineDeployment yet');
    // kubeadm join dials the VIP: only an address MetalLB assigned and announces answers (metallb.ts).
    const cannotReach = [...new Set(out.map((m) => this.kubelets.unreachableFrom.get(`${m.instance}/${m.vmid}`)).filter((w): w is string => !!w))];
    if (cannotReach.length > 0) waiting.push(`kubelets cannot reach the control plane: ${cannotReach.join('; ')}`);
    // The played CAAPH and Jobs: why Nodes stay NotReady, why a secondary has no join data.
    if (controlPlaneInitialized && !this.addons.cniReady(ns, name)) waiting.push(`CNI not installed: ${this.addons.cniWaiting(ns, name)}`);
    const mirrorFailure = this.mirror.failures().get(ns);
    if (mirrorFailure && clusters.some((c) => c.spec?.controlPlaneRef?.kind === 'StaticControlPlane'))
      waiting.push(`the secondary-clusters mirror fails: ${mirrorFailure}`);
    const notAsPlanned = waiting.length === 0 ? await this.notAsPlanned(name, out) : [];
    waiting.push(...notAsPlanned);
    const converged = controlPlaneInitialized && waiting.length === 0 && out.length === desired;
    const cni = this.addons.cniRelease(ns, name);
    return {
      name,
      converged,
      controlPlaneInitialized,
      ...(controlPlaneVersion ? { controlPlaneVersion } : {}),
      ...(cni ? { cni } : {}),
      waiting,
      notAsPlanned,
      machines: out,
    };
  }

  /** Every difference between the tenant's machines and its placement plan (as-planned.ts). */
  private async notAsPlanned(name: string, machines: TwinMachine[]): Promise<string[]> {
    const plan = this.plan.tenants.find((t) => t.name === name);
    const tenant = this.lab.tenants.find((t) => t.name === name);
    if (!plan || !tenant) return [`tenant ${name} is not in the plan`];
    const tokens = new Map<string, string | undefined>();
    for (const instance of new Set(machines.map((m) => m.instance).filter((i): i is string => i !== undefined))) {
      const r = await this.mgmt.client.get(`/api/v1/namespaces/${tenantNamespace(tenant)}/secrets/${tenantCredentialsSecretName(instance)}`);
      tokens.set(instance, r.status === 200 && r.body.data?.token ? Buffer.from(r.body.data.token, 'base64').toString('utf8') : undefined);
    }
    return asPlannedProblems({ plan, tenant, instances: this.lab.proxmox.instances, machines, tokenOn: (i) => tokens.get(i) });
  }

  private planeWaiting(namespace: string): string | undefined {
    return this.kamaji.waitingIn(namespace);
  }

  /** Waits until every named tenant converged (or the timeout), calling progress now and then. */
  async waitConverged(names: string[], timeoutMs: number, progress?: (tenants: TwinTenant[]) => void): Promise<TwinTenant[]> {
    const deadline = Date.now() + timeoutMs;
    let last: TwinTenant[] = [];
    for (;;) {
      last = await Promise.all(names.map((n) => this.tenant(n)));
      progress?.(last);
      if (last.every((t) => t.converged) || Date.now() > deadline) return last;
      await sleep(1000);
    }
  }

  /** Waits for a condition on the twin, with the controllers' logs in the error. */
  async waitFor(what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs / 1000} s\n${this.diagnostics()}`);
      await sleep(500);
    }
  }

  /** The last lines of every controller's log, the players' refusals and the last tick errors. */
  diagnostics(): string {
    const refused = [...(this.kubelets?.refused ?? new Map()).entries()].map(([k, v]) => `  ${k}: ${v}`).join('\n');
    const notReady = [...(this.kubelets?.nodes.values() ?? [])]
      .filter((n) => n.state === 'network-not-ready')
      .map((n) => `  ${n.namespace}/${n.name}: ${this.addons.cniWaiting(n.namespace, n.cluster)}`)
      .join('\n');
    const jobs = [...(this.mirror?.failures() ?? new Map()).entries()].map(([ns, why]) => `  mirror ${ns}: ${why}`).join('\n');
    const unreachable = [...(this.kubelets?.unreachableFrom ?? new Map()).entries()].map(([k, v]) => `  ${k}: ${v}`).join('\n');
    const autoscalers = [...(this.autoscaler?.failures() ?? new Map()).entries()].map(([ns, why]) => `  ${ns}: ${why}`).join('\n');
    return [
      unreachable ? `--- VMs that cannot reach their control plane's address ---\n${unreachable}` : '',
      this.metallb ? `--- metallb-controller ---\n${this.metallb.log(10)}` : '',
      autoscalers ? `--- cluster-autoscalers not working ---\n${autoscalers}` : '',
      notReady ? `--- Nodes NotReady (no CNI) ---\n${notReady}` : '',
      jobs ? `--- failed Job runs ---\n${jobs}` : '',
      this.controllers?.logs(undefined, 15) ?? '',
      refused ? `--- VMs that did not join ---\n${refused}` : '',
      this.tickErrors.length ? `--- twin errors ---\n${this.tickErrors.slice(-5).join('\n')}` : '',
    ]
      .filter(Boolean)
      .join('\n');
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

/** A `helm_release` of a stack as hashicorp/helm 3.1.1 reads it (helm/resource_helm_release.go: `wait` default true, `timeout` default 300 s). */
export interface HelmReleaseView {
  address: string;
  name: string;
  chart: string;
  wait: boolean;
  timeoutSeconds: number;
}

export function helmRelease(stack: StackContents, chart: string): HelmReleaseView {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a synthesized cdk.tf.json block: untyped JSON read by path, as tofu reads it
  const found = Object.entries((stack.config.resource?.helm_release ?? {}) as Record<string, any>).find(([, r]) => r.chart === chart);
  if (!found) throw new Error(`${stack.stack} has no ${chart} release`);
  const [name, r] = found;
  return { address: `helm_release.${name}`, name: r.name ?? name, chart, wait: r.wait ?? true, timeoutSeconds: r.timeout ?? 300 };
}

/**
 * What hashicorp/helm 3.1.1 reports when the release's resources are not ready within `timeout`
 * (helm/resource_helm_release.go: the warning "Helm release created with warnings" and the error
 * "Helm release error" with helm's own message).
 */
export function helmTimeout(release: HelmReleaseView, tookSeconds: number): Error {
  return new Error(
    `${release.address}: Warning: Helm release created with warnings: Helm release "${release.name}" was created but has a failed status. Use the \`helm\` command to investigate the error, correct it, then run Terraform again.\n` +
      `${release.address}: Error: Helm release error: context deadline exceeded (the twin's stand-in, the controllers, took ${Math.round(tookSeconds)} s; the release waits ${release.timeoutSeconds} s)`,
  );
}

/** What the twin's state holds for one resource. */
/**
 * A resource as the twin's state holds it; `dependsOn`: what it depends on in its stack (explicit and
 * through references), as OpenTofu records `dependencies` in state for its destroy walk.
 */
type ResourceState = ({ kind: 'manifest'; applied: AppliedState } | { kind: 'plain'; path: string; timeoutMs: number }) & { dependsOn?: string[] };

function pathOf(s: ResourceState): string {
  return s.kind === 'manifest' ? s.applied.path : s.path;
}

/** The management stack's ClusterRoles aggregated to CAPI core's manager role. */
function isAggregatedToCapi(o: KubeObjectJson): boolean {
  return o.kind === 'ClusterRole' && (o.metadata as { labels?: Record<string, string> }).labels?.['cluster.x-k8s.io/aggregate-to-manager'] === 'true';
}

/** At most n at a time. */
class Semaphore {
  private waiting: (() => void)[] = [];
  constructor(private free: number) {}
  async take(): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return;
    }
    await new Promise<void>((r) => this.waiting.push(r));
  }
  give(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free++;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Convenience for scripts and tests: a lab file's text and a parsed copy. */
export function readLab(file: string): { text: string; lab: Lab } {
  const text = readFileSync(file, 'utf8');
  return { text, lab: parseLab(text, file) };
}
