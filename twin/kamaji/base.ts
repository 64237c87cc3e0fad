/**
 * The ground floor of the played Kamaji (twin/kamaji/index.ts KamajiPlayer): what the player keeps
 * per control plane, how a control-plane pod is started (Kamaji's Deployment), and the writes every
 * part shares — Kamaji's admission webhook, the provider's deferred conditions, the controllers'
 * applies and status updates. Layers above: control-plane.ts (Kamaji's TenantControlPlane
 * controller), provider.ts (the CAPI provider), index.ts (the player's pass).
 */
import type { KubeClient, KubeObject, KubeServer, KubeServerOptions } from '../../scripts/lib/kube-apiserver';
import { TenantService } from '../tenant-service';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { controlPlaneDeployment } from './api-server-rules';
import { KCP_API, TCP_API, validateTenantControlPlane } from '../kamaji-rules';
import { TwinDatastore } from '../datastore';
import { applyUnchanged, jsonEqual, mergePatchUnchanged, ReadMemo } from '../read-memo';
import type { TenantControllerManager } from '../tenant-controller-manager';

export const MANAGER = 'pvekaas-twin-kamaji';

export interface TenantControlPlaneView {
  namespace: string;
  kcp: string;
  cluster: string;
  /**
   * The tenant API server standing in for the control-plane pods, behind the Service's stable
   * address (tenant-service.ts): during an upgrade the new version's server becomes its endpoint
   * once Ready.
   */
  server: TenantService;
  /** The Kubernetes version (the TenantControlPlane's spec.kubernetes.version) the serving pods were started for. */
  version: string;
  /** A rolling update of the control-plane Deployment in progress: the version its new pods run, and why they are not Ready yet. */
  rollout?: { to: string; since: number; attempts: number; failed?: string };
  /** `host:port` the control plane announces (the VIP). */
  endpoint?: string;
  initialized: boolean;
  /** The Konnectivity addon's objects are in the tenant cluster. */
  konnectivity?: boolean;
  /** Why it is not initialized yet, if it is not. */
  waiting?: string;
  /** Its schema in the shared datastore (keys under `/<schema>/`), when it uses it. */
  schema?: string;
  /** The user's kube-apiserver arguments it was started with (Kamaji's extraArgs, before the twin's path rewrite). */
  apiServerArgs: string[];
  /** Where the twin wrote the files of the user's volumes of its kube-apiserver container (the kubelet's part). */
  volumesDir?: string;
  /** Its REAL kube-controller-manager, when the player runs one (option `controllerManager`, tenant-controller-manager.ts). */
  controllerManager?: TenantControllerManager;
  /** The endpoint the cluster-info ConfigMap was written for. */
  clusterInfo?: string;
}

/** The Kamaji and kamaji-etcd releases of the management stack, as rendered. */
export interface KamajiReleases {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- Helm chart values: free-form YAML read by path, as the chart reads it
  kamaji: { namespace: string; values: Record<string, any> };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- Helm chart values: free-form YAML read by path, as the chart reads it
  kamajiEtcd: { name: string; namespace: string; values: Record<string, any> };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an unstructured Kubernetes object read by path, as the controller reads it
export type Obj = KubeObject & { spec?: any; status?: any };

export const now = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');

export abstract class KamajiBase {
  readonly planes = new Map<string, TenantControlPlaneView>();
  /** Why each KamajiControlPlane (namespace/name) is not initialized, when it is not. */
  readonly waiting = new Map<string, string>();
  protected readonly starting = new Map<string, Promise<KubeServer | TenantService>>();
  protected etcdInstalled = false;
  /** The kamaji-etcd release's etcd, once installed: every tenant's objects. */
  datastore?: TwinDatastore;
  protected datastoreName?: string;
  /** One pass's reads (twin/read-memo.ts): each object read once, a Secret or Service namespace listed once. */
  readonly memo: ReadMemo;

  constructor(
    protected readonly mgmt: KubeClient,
    protected readonly releases: () => KamajiReleases,
    protected readonly log: (line: string) => void = () => {},
    /**
     * `controllerManager`: run each control plane's full kube-controller-manager, as Kamaji's pod
     * does (tenant-controller-manager.ts), instead of the pod's bootstrap controllers alone. @default false
     * `startServer`: starts one control-plane pod's servers (the kubelet's part): startKubeServer. A
     * test may start them otherwise (a new version's pod that never becomes Ready).
     */
    protected readonly options: { controllerManager?: boolean; startServer?: (options: KubeServerOptions) => Promise<KubeServer> } = {},
  ) {
    this.memo = new ReadMemo(mgmt, ['secrets', 'services']);
  }

  /** How each control plane's pod is started at a version (its user args, volumes and datastore fixed at its first start), by KamajiControlPlane key. */
  protected readonly pods = new Map<string, (version: string) => KubeServerOptions>();

  /** The new pods of each rolling update being started, by KamajiControlPlane key. */
  protected readonly rolling = new Map<string, { to: string; started: Promise<KubeServer>; result?: KubeServer | Error; next: number }>();

  /** The options of the control-plane pod of `tcp` at `version` (Kamaji's Deployment, deployment.go), less the certificates. */
  protected podOptions(tcp: Obj, version: string, extra: string[], shared?: TwinDatastore): KubeServerOptions {
    // Kamaji's kube-apiserver defaults (internal/builders/controlplane/deployment.go safeDefaults):
    // privileged pods allowed (the CNI's agent needs them), bootstrap tokens on. Its pod runs
    // kube-scheduler and kube-controller-manager beside the API server (deployment.go
    // buildScheduler, buildControllerManager), each the image of spec.kubernetes.version: the REAL
    // ones here, of that version's minor (scripts/lib/kube-apiserver.ts tenantBinary). The
    // controller manager runs Kamaji's bootstrapsigner and tokencleaner (its `--controllers` is
    // `*,bootstrapsigner,tokencleaner`): the cluster-info JWS signatures a join checks are its. The
    // others are off: the played kubelets post no leases, so the node lifecycle controller would
    // mark every Node Unknown, and the tenants' workloads are played (caaph.ts).
    // Kamaji's --etcd-prefix (deployment.go: "/" + status.storage.setup.schema; the schema is
    // spec.dataStoreSchema, defaulted to the UID by the webhook, tcp_defaults.go).
    const schema = shared ? String(tcp.spec?.dataStoreSchema ?? tcp.metadata.uid) : undefined;
    return {
      crds: false,
      // With the full controller manager asked for (option controllerManager, tenant-controller-manager.ts,
      // which runs Kamaji's own `--controllers`), that one replaces the pod's bootstrap controllers: two
      // managers would contend for one leader lease.
      controllerManager: !this.options.controllerManager,
      controllers: ['bootstrapsigner', 'tokencleaner'],
      scheduler: true,
      kubernetesVersion: version,
      apiServerArgs: ['--allow-privileged=true', '--enable-bootstrap-token-auth=true', ...extra],
      ...(shared ? { etcd: { url: shared.url, prefix: `/${schema}`, caFile: shared.files.ca, certFile: shared.files.cert, keyFile: shared.files.key } } : {}),
    };
  }

  /** A rolling update's new pod that is no longer wanted: stopped once it has started. */
  protected discard(r: { started: Promise<KubeServer> }): void {
    r.started.then(
      (s) => s.stop(),
      () => undefined,
    );
  }

  /** The kubelet's atomic writer: each volume's files, replaced when they change (kube-apiserver reloads its AuthenticationConfiguration). */
  protected writeVolumes(dir: string, volumes: { name: string; files: Map<string, Buffer> }[]): void {
    for (const v of volumes) {
      for (const [path, content] of v.files) {
        const file = join(dir, v.name, path);
        let current: Buffer | undefined;
        try {
          current = readFileSync(file);
        } catch {
          current = undefined;
        }
        if (current?.equals(content)) continue;
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(`${file}.tmp`, content);
        renameSync(`${file}.tmp`, file);
      }
    }
  }

  /** Kamaji's validating webhook, with the DataStores read as the webhook's client reads them. */
  protected async admit(tcp: Obj, old: Obj | undefined): Promise<string | undefined> {
    const names = new Set<string>();
    const wanted = [tcp.spec?.dataStore, ...((tcp.spec?.dataStoreOverrides ?? []) as { dataStore: string }[]).map((o) => o.dataStore)].filter(
      Boolean,
    ) as string[];
    for (const n of wanted) if (await this.getObject(`/apis/${TCP_API}/datastores/${n}`)) names.add(n);
    const refused = validateTenantControlPlane(tcp, old, { dataStoreExists: (n) => names.has(n) });
    if (refused || !old || !deploymentCheckTriggered(tcp, old)) return refused;
    // tcp_deployment.go OnUpdate (OnCreate admits): the Deployment with the user's additions, dry-run.
    const r = await this.mgmt.request('POST', `/apis/apps/v1/namespaces/${tcp.metadata.namespace}/deployments?dryRun=All`, controlPlaneDeployment(tcp));
    if (r.status === 200 || r.status === 201) return undefined;
    return `the resulting Deployment will generate a configuration error, cannot proceed: ${r.body?.message ?? r.text}`;
  }

  /** The provider's deferred status update: its conditions, with the ones tracked in this pass set (meta.SetStatusCondition). */
  protected async kcpConditions(kcp: Obj, tracked: Record<string, { status: 'True' | 'False'; reason: string; message: string }>): Promise<void> {
    type Condition = { type: string; status: string; reason: string; message: string; observedGeneration: number; lastTransitionTime: string };
    const previous = (kcp.status?.conditions ?? []) as Condition[];
    if (tracked.KamajiControlPlaneIsReady) {
      const available = tracked.KamajiControlPlaneIsReady.status === 'True';
      tracked.Available = { status: available ? 'True' : 'False', reason: available ? 'Available' : 'NotAvailable', message: '' };
    }
    if (Object.keys(tracked).length === 0) return;
    const byType = new Map(previous.map((c) => [c.type, c]));
    let changed = false;
    for (const [type, c] of Object.entries(tracked)) {
      const p = byType.get(type);
      if (p && p.status === c.status && p.message === c.message && p.reason === c.reason) continue;
      changed = true;
      byType.set(type, {
        type,
        ...c,
        observedGeneration: kcp.metadata.generation as number,
        lastTransitionTime: p?.status === c.status ? p.lastTransitionTime : now(),
      });
    }
    if (!changed) return;
    await this.status(`/apis/${KCP_API}/namespaces/${kcp.metadata.namespace}/kamajicontrolplanes/${kcp.metadata.name}`, {
      status: { conditions: [...byType.values()] },
    });
  }

  protected getObject(path: string): Promise<Obj | undefined> {
    return this.memo.get(path);
  }

  /** A forced server-side apply, sent only when it would change a value (controllerutil.CreateOrUpdate's check). */
  protected async applyIfChanged(object: Obj, path: string, manager: string): Promise<void> {
    if (applyUnchanged(object, await this.memo.get(path))) return;
    this.memo.wrote(path, await this.mgmt.applyOrThrow(object, { fieldManager: manager, force: true }));
  }

  protected async secret(
    metadata: Record<string, unknown> & { name: string; namespace: string },
    data: Record<string, Buffer>,
    type = 'Opaque',
    manager = MANAGER,
  ): Promise<void> {
    const encoded = Object.fromEntries(Object.entries(data).map(([k, v]) => [k, v.toString('base64')]));
    const object = { apiVersion: 'v1', kind: 'Secret', metadata, type, data: encoded } as Obj;
    await this.applyIfChanged(object, `/api/v1/namespaces/${metadata.namespace}/secrets/${metadata.name}`, manager);
  }

  /** A status update (merge patch of the status subresource), as the controllers' status writers do. */
  protected async status(path: string, object: { status: Record<string, unknown> } & Record<string, unknown>): Promise<void> {
    let status = object.status;
    const read = await this.getObject(path);
    const current = read?.status ?? {};
    if (path.includes('/kamajicontrolplanes/')) {
      // The provider's KamajiControlPlaneStatus serializes `ready` and `version` always (no omitempty;
      // the CRD requires both): an update of the status carries them as they are.
      status = { ready: current.ready ?? false, version: current.version ?? '', ...status };
    }
    // A patch that would store nothing is not sent (controller-runtime's patch helper sends none).
    if (read && mergePatchUnchanged(current, status)) return;
    const r = await this.mgmt.request('PATCH', `${path}/status`, { status }, 'application/merge-patch+json');
    if (r.status !== 200) throw new Error(`status of ${path}: HTTP ${r.status}: ${r.body?.message ?? r.text}`);
    this.memo.wrote(path, r.body);
  }
}

/** tcp_deployment.go shouldTriggerCheck: the user's volumes, mounts or containers are set and changed. */
export function deploymentCheckTriggered(tcp: Obj, old: Obj): boolean {
  const d = tcp.spec?.controlPlane?.deployment ?? {};
  const o = old.spec?.controlPlane?.deployment ?? {};
  if (!d.additionalVolumeMounts && !d.additionalInitContainers?.length && !d.additionalContainers?.length && !d.additionalVolumes?.length) return false;
  if (d.additionalVolumeMounts && !o.additionalVolumeMounts) return true;
  return ['additionalContainers', 'additionalInitContainers', 'additionalVolumes', 'additionalVolumeMounts'].some((k) => !jsonEqual(d[k], o[k]));
}

/** kamaji.clastix.io/checksum: a digest of the Secret's data (utilities.CalculateMapChecksum in spirit; the value is opaque). */
export function checksum(data: Record<string, Buffer>): string {
  const h = createHash('md5');
  for (const k of Object.keys(data).sort()) h.update(k).update(data[k]);
  return h.digest('hex');
}

/** What an update of a TenantControlPlane sends that the player decides: spec, labels and annotations. */
export function updateKey(desired: Obj): string {
  return JSON.stringify([desired.spec, desired.metadata.labels ?? {}, desired.metadata.annotations ?? {}]);
}

export function clusterName(kcp: Obj): string {
  return ((kcp.metadata.ownerReferences as { name: string }[] | undefined) ?? [])[0]?.name ?? '';
}
