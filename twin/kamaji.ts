/**
 * SIMULATED in the lab twin: Kamaji 26.8.2-edge and its Cluster API control-plane provider v0.20.0
 * (no container runtime for Kamaji's control-plane pods; the provider's module needs a Kamaji
 * pseudo-version the Go module proxy refuses). Their rules are played from their source
 * (kamaji-rules.ts names each file), in the order the two reconcile:
 *
 * - the kamaji-etcd release (chart 0.17.0, the management stack's values): its DataStore and the
 *   CA and client certificate Secrets cert-manager would issue for it (played: no cert-manager);
 * - Kamaji's DataStore controller: `kamaji.clastix.io/DataStoreValidation` and `status.ready` from
 *   the referenced Secrets (driver, TLS, basic auth);
 * - the provider: the TenantControlPlane from each KamajiControlPlane and its Cluster, written only
 *   when Kamaji's admission webhooks admit it (defaulting on create, then validation: DataStore
 *   exists, Kubernetes version within KubeadmVersion, no downgrade or skipped minor, DNS service IPs,
 *   cert SANs, name); a refusal is the provider's `TenantControlPlaneCreated` condition, False, with
 *   the webhook's message, and nothing else happens;
 * - Kamaji's TenantControlPlane controller: nothing until the DataStore exists and is ready; then a
 *   REAL tenant kube-apiserver (kube-apiserver from the toolchain) stands in for the
 *   control-plane pods, its objects in the REAL shared datastore (datastore.ts: one etcd for every
 *   tenant, each under Kamaji's prefix `/<schema>`, the schema defaulting to the TCP's UID) when the
 *   TCP uses the kamaji-etcd release's DataStore (else an etcd of its own), and Kamaji's Secrets with Kamaji's layout (`<tcp>-ca`: `ca.crt`, `ca.key`,
 *   `tls.crt`, `tls.key`; `<tcp>-admin-kubeconfig`: `admin.conf`, `admin.svc`, `super-admin.conf`,
 *   `super-admin.svc`; labels kamaji.clastix.io/{project,name,component}, owned by the
 *   TenantControlPlane) and its status (storage, certificates, kubeconfig, endpoint once the
 *   LoadBalancer Service has its address, version Ready);
 * - the provider again: the endpoints (KamajiControlPlane, ProxmoxCluster), `initialized` once the
 *   Cluster's infrastructure is provisioned and the TenantControlPlane's version is Ready, the
 *   `<cluster>-kubeconfig` and `<cluster>-ca` Secrets of the CAPI contract (the CA copy is skipped
 *   when `<cluster>-ca` is Kamaji's own, as upstream), and the contract's status fields.
 *
 * CAPI, CABPK, CAPMOX and IPAM objects are only ever written by those controllers. Deviations,
 * stated: the admin kubeconfigs point at the tenant server on loopback (the VIP does not exist
 * here; MetalLB's real controller gives the LoadBalancer Service its address, metallb.ts); the
 * DataStore's finalizer is not added; the tenant's kube-apiserver, kube-scheduler and
 * kube-controller-manager are k8s.io/kubernetes at the pinned patch of the tenant version's minor
 * (toolchain.json `kubernetes`), so a tenant declaring another patch of that minor runs the pinned
 * one (twin --json's `controlPlaneVersion` is what its /version answers). The user's additions to the kube-apiserver container (issue 39): its
 * extra args after Kamaji's (less the flags Kamaji manages), its ConfigMap and Secret volumes as
 * files in a directory of the twin's (the kubelet's part; paths in the args pointed there), the
 * Deployment with them dry-run on the management API server; other volume sources, subPath and
 * additional containers are refused, and changed args after start are reported, not rolled.
 */
import type { KubeClient, KubeObject, KubeServer, KubeServerOptions } from '../scripts/lib/kube-apiserver';
import { startKubeServer } from '../scripts/lib/kube-apiserver';
import { TenantService } from './tenant-service';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  apiServerMounts,
  apiServerUserArgs,
  controlPlaneDeployment,
  defaultTenantControlPlane,
  hostArgs,
  kamajiEtcdDataStore,
  volumeFiles,
  konnectivityAgentObjects,
  KCP_API,
  TCP_API,
  tenantControlPlaneFor,
  validateDataStore,
  validateTenantControlPlane,
} from './kamaji-rules';
import { selfSignedPair } from './pki';
import { TwinDatastore } from './datastore';
import { etcdRequest, prefixEnd } from '../scripts/lib/etcd';
import { applyUnchanged, jsonEqual, mergePatchUnchanged, ReadMemo } from './read-memo';
import { startTenantControllerManager, type TenantControllerManager } from './tenant-controller-manager';

const MANAGER = 'pvekaas-twin-kamaji';

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
type Obj = KubeObject & { spec?: any; status?: any };

const now = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');

export class KamajiPlayer {
  readonly planes = new Map<string, TenantControlPlaneView>();
  /** Why each KamajiControlPlane (namespace/name) is not initialized, when it is not. */
  readonly waiting = new Map<string, string>();
  private readonly starting = new Map<string, Promise<KubeServer | TenantService>>();
  private etcdInstalled = false;
  /** The kamaji-etcd release's etcd, once installed: every tenant's objects. */
  datastore?: TwinDatastore;
  private datastoreName?: string;
  /** One pass's reads (twin/read-memo.ts): each object read once, a Secret or Service namespace listed once. */
  readonly memo: ReadMemo;

  constructor(
    private readonly mgmt: KubeClient,
    private readonly releases: () => KamajiReleases,
    private readonly log: (line: string) => void = () => {},
    /**
     * `controllerManager`: run each control plane's full kube-controller-manager, as Kamaji's pod
     * does (tenant-controller-manager.ts), instead of the pod's bootstrap controllers alone. @default false
     * `startServer`: starts one control-plane pod's servers (the kubelet's part): startKubeServer. A
     * test may start them otherwise (a new version's pod that never becomes Ready).
     */
    private readonly options: { controllerManager?: boolean; startServer?: (options: KubeServerOptions) => Promise<KubeServer> } = {},
  ) {
    this.memo = new ReadMemo(mgmt, ['secrets', 'services']);
  }

  /** How each control plane's pod is started at a version (its user args, volumes and datastore fixed at its first start), by KamajiControlPlane key. */
  private readonly pods = new Map<string, (version: string) => KubeServerOptions>();

  /** The new pods of each rolling update being started, by KamajiControlPlane key. */
  private readonly rolling = new Map<string, { to: string; started: Promise<KubeServer>; result?: KubeServer | Error; next: number }>();

  /** The options of the control-plane pod of `tcp` at `version` (Kamaji's Deployment, deployment.go), less the certificates. */
  private podOptions(tcp: Obj, version: string, extra: string[], shared?: TwinDatastore): KubeServerOptions {
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

  /** What the control plane of a tenant namespace waits for, if anything. */
  waitingIn(namespace: string): string | undefined {
    return [...this.waiting].find(([key]) => key.startsWith(`${namespace}/`))?.[1];
  }

  /** One reconcile pass: the played kamaji-etcd release, the DataStores, every KamajiControlPlane. */
  async tick(): Promise<void> {
    const releases = this.releases();
    this.memo.clear();
    await this.installKamajiEtcd(releases);
    await this.reconcileDataStores();
    const kcps = await this.memo.list(`/apis/${KCP_API}/kamajicontrolplanes`);
    const seen = new Set<string>();
    for (const kcp of kcps) {
      const key = `${kcp.metadata.namespace}/${kcp.metadata.name}`;
      seen.add(key);
      try {
        const reason = await this.reconcile(key, kcp, releases);
        if (reason) this.waiting.set(key, reason);
        else this.waiting.delete(key);
      } catch (e) {
        this.waiting.set(key, (e as Error).message);
        this.log(`kamaji ${key}: ${(e as Error).message}`);
      }
      const view = this.planes.get(key);
      if (view) view.waiting = this.waiting.get(key);
    }
    for (const key of [...this.waiting.keys()]) if (!seen.has(key)) this.waiting.delete(key);
    for (const [key, view] of this.planes) {
      if (seen.has(key)) continue;
      // The KamajiControlPlane is gone: its control plane goes with it (Kamaji deletes the TCP's pods).
      await view.controllerManager?.stop();
      const rolling = this.rolling.get(key);
      if (rolling) this.discard(rolling);
      this.rolling.delete(key);
      this.pods.delete(key);
      await view.server.stop();
      if (view.volumesDir) rmSync(view.volumesDir, { recursive: true, force: true });
      // Kamaji's DataStore cleanup (internal/datastore/etcd.go DeleteDB): the tenant's keys go.
      if (view.schema && this.datastore) {
        const prefix = `/${view.schema}/`;
        const b64 = (t: string) => Buffer.from(t, 'latin1').toString('base64');
        await etcdRequest(this.datastore.url, this.datastore.tlsMaterial(), '/v3/kv/deleterange', { key: b64(prefix), range_end: b64(prefixEnd(prefix)) });
      }
      this.planes.delete(key);
      this.log(`kamaji ${key}: control plane stopped`);
    }
  }

  /**
   * The kamaji-etcd release as helm would install it, once: its DataStore (the chart's template)
   * and the two Secrets the DataStore names, as cert-manager would issue them from the chart's
   * Certificates (an ECDSA P-256 CA `<etcd>-ca`; a client certificate `<etcd>-client-certs`, CN
   * root, O system:masters, signed by it).
   */
  private async installKamajiEtcd(releases: KamajiReleases): Promise<void> {
    if (this.etcdInstalled) return;
    const { name, namespace, values } = releases.kamajiEtcd;
    const ds = kamajiEtcdDataStore(values, name, namespace);
    if (ds) {
      const tls = ds.spec.tlsConfig;
      const ca = selfSignedPair(tls.certificateAuthority.certificate.secretReference.name, true);
      const client = selfSignedPair('root', false, ca);
      for (const [secretName, pair] of [
        [tls.certificateAuthority.certificate.secretReference.name, ca],
        [tls.clientCertificate.certificate.secretReference.name, client],
      ] as const) {
        const data: Record<string, Buffer> = { 'tls.crt': Buffer.from(pair.cert), 'tls.key': Buffer.from(pair.key), 'ca.crt': Buffer.from(ca.cert) };
        await this.secret(
          { name: secretName, namespace, labels: { 'kamaji-etcd.clastix.io/etcd': values.fullnameOverride ?? name } },
          data,
          'kubernetes.io/tls',
          'cert-manager',
        );
      }
      // The release's StatefulSet: one real etcd serving the DataStore's endpoints.
      const fullname = (values.fullnameOverride as string | undefined) ?? name;
      const hosts = [...(ds.spec.endpoints as string[]).map((e) => e.replace(/:\d+$/, '')), `${fullname}-client.${namespace}.svc`];
      this.datastore = await TwinDatastore.start(ca, client, hosts);
      this.datastoreName = ds.metadata.name;
      this.log(`kamaji-etcd: datastore etcd at ${this.datastore.url}`);
      await this.mgmt.applyOrThrow(
        {
          ...ds,
          metadata: { ...ds.metadata, labels: { 'app.kubernetes.io/instance': name, 'app.kubernetes.io/managed-by': 'Helm' } },
        } as unknown as KubeObject,
        { fieldManager: 'helm', force: true },
      );
      this.log(`kamaji-etcd: DataStore ${ds.metadata.name} (${ds.spec.endpoints.length} endpoints)`);
    }
    this.etcdInstalled = true;
  }

  /** Kamaji's DataStore controller: validation condition, ready, usedBy. */
  private async reconcileDataStores(): Promise<void> {
    const dataStores = await this.memo.list(`/apis/${TCP_API}/datastores`);
    const tcps = await this.memo.list(`/apis/${TCP_API}/tenantcontrolplanes`);
    const secrets = new Map<string, Record<string, string> | undefined>();
    for (const ds of dataStores) {
      const refs = JSON.stringify(ds.spec ?? {}).match(/"name":"[^"]+","namespace":"[^"]+"/g) ?? [];
      for (const ref of refs) {
        const { name, namespace } = JSON.parse(`{${ref}}`) as { name: string; namespace: string };
        if (secrets.has(`${namespace}/${name}`)) continue;
        const s = await this.memo.get(`/api/v1/namespaces/${namespace}/secrets/${name}`);
        secrets.set(`${namespace}/${name}`, s ? ((s.data ?? {}) as Record<string, string>) : undefined);
      }
      const invalid = validateDataStore(ds, (namespace, name) => secrets.get(`${namespace}/${name}`));
      const usedBy = tcps
        .filter((t) => t.status?.storage?.dataStoreName === ds.metadata.name)
        .map((t) => `${t.metadata.namespace}/${t.metadata.name}`)
        .sort();
      const previous = ((ds.status?.conditions ?? []) as { type: string; status: string; lastTransitionTime: string }[]).find(
        (c) => c.type === 'kamaji.clastix.io/DataStoreValidation',
      );
      const status = invalid ? 'False' : 'True';
      const condition = {
        type: 'kamaji.clastix.io/DataStoreValidation',
        status,
        observedGeneration: ds.metadata.generation as number,
        reason: invalid ? invalid.reason : 'DataStoreIsValid',
        message: invalid ? invalid.message : '',
        lastTransitionTime: previous?.status === status ? previous.lastTransitionTime : now(),
      };
      const ready = !invalid;
      if (ds.status?.ready === ready && previous?.status === status && JSON.stringify(ds.status?.usedBy ?? []) === JSON.stringify(usedBy)) continue;
      await this.status(`/apis/${TCP_API}/datastores/${ds.metadata.name}`, {
        apiVersion: TCP_API,
        kind: 'DataStore',
        metadata: { name: ds.metadata.name },
        status: { observedGeneration: ds.metadata.generation, ...(usedBy.length ? { usedBy } : {}), conditions: [condition], ready },
      });
      if (invalid) this.log(`kamaji: DataStore ${ds.metadata.name} not valid: ${invalid.message}`);
    }
  }

  /** One KamajiControlPlane; returns what it waits for, or undefined once initialized and ready. */
  private async reconcile(key: string, kcp: Obj, releases: KamajiReleases): Promise<string | undefined> {
    const namespace = kcp.metadata.namespace!;
    const owners = (kcp.metadata.ownerReferences as { kind: string; name: string }[] | undefined) ?? [];
    // kamajicontrolplane_controller.go: "missing OwnerReference from the Cluster controller, waiting for it" (the first owner is the Cluster).
    if (owners.length === 0) return 'missing OwnerReference from the Cluster controller';
    const clusterName = owners[0].name;
    const clusterPath = `/apis/cluster.x-k8s.io/v1beta2/namespaces/${namespace}/clusters/${clusterName}`;
    const cluster = await this.getObject(clusterPath);
    if (!cluster) return 'the Cluster may have been deleted';
    const paused = (o: Obj) => (o.metadata.annotations as Record<string, string> | undefined)?.['cluster.x-k8s.io/paused'] !== undefined;
    if (cluster.spec?.paused || paused(cluster) || paused(kcp)) return 'reconciliation is paused';
    if (kcp.metadata.deletionTimestamp) return 'being deleted';
    const conditions: Record<string, { status: 'True' | 'False'; reason: string; message: string }> = {};
    const track = (type: string, error?: string, enqueueBack = false) => {
      // controllers/conditions.go TrackConditionType: True "Succeeded"; False with the error's message,
      // reason "Failed" for ErrEnqueueBack, "Pending" for any other error.
      conditions[type] = error
        ? { status: 'False', reason: enqueueBack ? 'Failed' : 'Pending', message: error }
        : { status: 'True', reason: 'Succeeded', message: '' };
    };
    try {
      return await this.reconcileWith(key, kcp, cluster, clusterPath, releases, track);
    } finally {
      await this.kcpConditions(kcp, conditions);
    }
  }

  private async reconcileWith(
    key: string,
    kcp: Obj,
    cluster: Obj,
    clusterPath: string,
    releases: KamajiReleases,
    track: (type: string, error?: string, enqueueBack?: boolean) => void,
  ): Promise<string | undefined> {
    const namespace = kcp.metadata.namespace!;
    const tcpPath = `/apis/${TCP_API}/namespaces/${namespace}/tenantcontrolplanes/${kcp.metadata.name}`;
    // The provider: createOrUpdateTenantControlPlane, through Kamaji's admission webhooks.
    const existing = await this.getObject(tcpPath);
    let desired: Obj;
    try {
      desired = tenantControlPlaneFor(kcp, cluster, existing) as Obj;
    } catch (e) {
      track('TenantControlPlaneCreated', (e as Error).message);
      return (e as Error).message;
    }
    const refused = await this.admit(
      existing ? desired : (defaultTenantControlPlane(desired, String(releases.kamaji.values.defaultDatastoreName ?? '')) as Obj),
      existing,
    );
    if (refused) {
      const message = `cannot create or update TenantControlPlane: admission webhook "vtenantcontrolplane.kb.io" denied the request: ${refused}`;
      track('TenantControlPlaneCreated', message);
      if (this.waiting.get(key) !== message) this.log(`kamaji ${key}: ${message}`);
      return message;
    }
    if (!existing) {
      const created = await this.mgmt.post(
        `/apis/${TCP_API}/namespaces/${namespace}/tenantcontrolplanes`,
        defaultTenantControlPlane(desired, String(releases.kamaji.values.defaultDatastoreName ?? '')),
      );
      if (created.status !== 201) {
        const message = `cannot create or update TenantControlPlane: ${created.body?.message ?? created.text}`;
        track('TenantControlPlaneCreated', message);
        return message;
      }
      this.memo.wrote(tcpPath, created.body);
    } else if (
      (!jsonEqual(existing.spec, desired.spec) || !jsonEqual(existing.metadata.labels ?? {}, desired.metadata.labels ?? {})) &&
      !this.sameUpdate(tcpPath, existing, desired)
    ) {
      // controllerutil.CreateOrUpdate: an update only when the mutated object differs from the one read.
      // The mutated spec leaves out what the CRD defaults (the registry, the admission controllers...),
      // so it differs from the stored one on every pass; the API server stores nothing new for it.
      // An update already sent from this very object and spec is not sent again (sameUpdate).
      const updated = await this.mgmt.request('PUT', tcpPath, {
        ...existing,
        metadata: { ...existing.metadata, labels: desired.metadata.labels, annotations: desired.metadata.annotations },
        spec: desired.spec,
      });
      if (updated.status !== 200) {
        const message = `cannot create or update TenantControlPlane: ${updated.body?.message ?? updated.text}`;
        track('TenantControlPlaneCreated', message);
        return message;
      }
      this.memo.wrote(tcpPath, updated.body);
      this.updates.set(tcpPath, { resourceVersion: String(updated.body.metadata?.resourceVersion), sent: updateKey(desired) });
    }
    track('TenantControlPlaneCreated');
    const tcp = (await this.getObject(tcpPath))!;

    // Kamaji's TenantControlPlane controller.
    await this.kamajiReconcile(key, tcp, clusterName(kcp));
    const fresh = (await this.getObject(tcpPath))!;

    // The provider again: "Waiting for the TenantControlPlane address".
    const endpoint = fresh.status?.controlPlaneEndpoint as string | undefined;
    if (!endpoint) {
      track('TenantControlPlaneAddressReady', 'Control Plane Endpoint is not yet available since unprocessed by Kamaji');
      return this.kamajiWaiting.get(key) ?? 'the TenantControlPlane has no control plane endpoint yet';
    }
    track('TenantControlPlaneAddressReady');
    const [host, portText] = [endpoint.slice(0, endpoint.lastIndexOf(':')), endpoint.slice(endpoint.lastIndexOf(':') + 1)];
    const port = Number(portText);
    if (kcp.spec?.controlPlaneEndpoint?.host !== host || kcp.spec?.controlPlaneEndpoint?.port !== port) {
      this.memo.forget(`/apis/${KCP_API}/namespaces/${namespace}/kamajicontrolplanes/${kcp.metadata.name}`);
      await this.mgmt.applyOrThrow(
        {
          apiVersion: KCP_API,
          kind: 'KamajiControlPlane',
          metadata: { name: kcp.metadata.name, namespace },
          spec: { controlPlaneEndpoint: { host, port } },
        } as Obj,
        { fieldManager: MANAGER, force: true },
      );
    }
    track('ControlPlaneEndpointPatched');
    // patchCluster (kamajicontrolplane_controller_cluster_patch.go, checkOrPatchGenericCluster for ProxmoxCluster).
    const infraRef = cluster.spec?.infrastructureRef as { apiGroup: string; kind: string; name: string } | undefined;
    if (!infraRef?.name) throw new Error('the Cluster has no infrastructureRef');
    if (infraRef.kind !== 'ProxmoxCluster') throw new Error(`unsupported infrastructure provider ${infraRef.kind}`);
    const infraPath = `/apis/${infraRef.apiGroup}/v1alpha2/namespaces/${namespace}/proxmoxclusters/${infraRef.name}`;
    const infra = await this.getObject(infraPath);
    if (!infra) throw new Error(`cannot retrieve infrastructure cluster ProxmoxCluster ${infraRef.name}`);
    const current = infra.spec?.controlPlaneEndpoint as { host?: string; port?: number } | undefined;
    if (!current?.host) {
      const r = await this.mgmt.request('PATCH', infraPath, { spec: { controlPlaneEndpoint: { host, port } } }, 'application/merge-patch+json');
      if (r.status !== 200) throw new Error(`cannot perform PATCH update for the ProxmoxCluster resource: HTTP ${r.status}: ${r.body?.message ?? r.text}`);
      this.memo.wrote(infraPath, r.body);
    } else if (current.host !== host) {
      track('InfrastructureClusterPatched', 'the ProxmoxCluster cluster has been provisioned with a mismatching host');
      throw new Error('the ProxmoxCluster cluster has been provisioned with a mismatching host');
    } else if (current.port !== port) {
      track('InfrastructureClusterPatched', 'the ProxmoxCluster cluster has been provisioned with a mismatching port');
      throw new Error('the ProxmoxCluster cluster has been provisioned with a mismatching port');
    }
    track('InfrastructureClusterPatched');

    const c = await this.getObject(clusterPath);
    if (!c?.spec?.controlPlaneEndpoint?.host) return 'Cluster control plane endpoint still unprocessed';
    if (c.status?.initialization?.infrastructureProvisioned !== true) return 'Cluster infrastructure is not yet provisioned';
    const versionStatus = fresh.status?.kubernetesResources?.version?.status as string | undefined;
    if (!versionStatus) return 'the TenantControlPlane is not yet initialized';
    const initialized = kcp.status?.initialization?.controlPlaneInitialized === true || versionStatus === 'Ready';
    if (!initialized) return `the TenantControlPlane is ${versionStatus}`;
    const dep = fresh.status?.kubernetesResources?.deployment ?? {};
    await this.status(`/apis/${KCP_API}/namespaces/${namespace}/kamajicontrolplanes/${kcp.metadata.name}`, {
      apiVersion: KCP_API,
      kind: 'KamajiControlPlane',
      metadata: { name: kcp.metadata.name, namespace },
      status: {
        initialization: { controlPlaneInitialized: true },
        externalManagedControlPlane: true,
        readyReplicas: dep.readyReplicas ?? 0,
        replicas: dep.replicas ?? 0,
        selector: dep.selector ?? '',
        availableReplicas: dep.availableReplicas ?? 0,
        upToDateReplicas: dep.updatedReplicas ?? 0,
        version: fresh.status?.kubernetesResources?.version?.version,
      },
    });
    track('KamajiControlPlaneIsInitialized');

    // createRequiredResources (kamajicontrolplane_controller_resources.go).
    const adminName = fresh.status?.kubeconfig?.admin?.secretName as string | undefined;
    if (!adminName) {
      track('KubeadmResourcesCreated', 'admin kubeconfig still unprocessed by Kamaji, enqueue back', true);
      return 'admin kubeconfig still unprocessed by Kamaji';
    }
    const clusterLabels = (tcpName: string) => ({
      'cluster.x-k8s.io/cluster-name': c.metadata.name,
      'kamaji.clastix.io/component': 'capi',
      'kamaji.clastix.io/cluster': c.metadata.name,
      'kamaji.clastix.io/tcp': tcpName,
    });
    const kcpOwner = [
      { apiVersion: KCP_API, kind: 'KamajiControlPlane', name: kcp.metadata.name, uid: kcp.metadata.uid as string, controller: true, blockOwnerDeletion: true },
    ];
    const admin = await this.getObject(`/api/v1/namespaces/${namespace}/secrets/${adminName}`);
    if (!admin) throw new Error('cannot retrieve source-of-truth for admin kubeconfig');
    const keyName =
      (kcp.metadata.annotations as Record<string, string> | undefined)?.['kamaji.clastix.io/kubeconfig-secret-key'] ||
      (kcp.spec?.network?.advertiseAddress ? 'admin.svc' : 'admin.conf');
    const value = (admin.data as Record<string, string> | undefined)?.[keyName];
    if (!value) throw new Error('missing key from *kamajiv1alpha1.TenantControlPlane admin kubeconfig secret');
    const existingKc = await this.getObject(`/api/v1/namespaces/${namespace}/secrets/${c.metadata.name}-kubeconfig`);
    await this.secret(
      {
        name: `${c.metadata.name}-kubeconfig`,
        namespace,
        ownerReferences: kcpOwner,
        labels: { ...((existingKc?.metadata.labels as Record<string, string>) ?? {}), ...clusterLabels(fresh.metadata.name) },
      },
      { value: Buffer.from(value, 'base64') },
      'cluster.x-k8s.io/secret',
    );
    const caName = fresh.status?.certificates?.ca?.secretName as string | undefined;
    if (!caName) {
      track('KubeadmResourcesCreated', 'CA still unprocessed by Kamaji, enqueue back', true);
      return 'CA still unprocessed by Kamaji';
    }
    const kamajiCA = await this.getObject(`/api/v1/namespaces/${namespace}/secrets/${caName}`);
    if (!kamajiCA) throw new Error('cannot retrieve source-of-truth as Certificate Authority');
    const capiCA = await this.getObject(`/api/v1/namespaces/${namespace}/secrets/${c.metadata.name}-ca`);
    // "Skipping the replication of the Certificate Authority if the Secret is managed by the Kamaji operator".
    const kamajiOwned = ((capiCA?.metadata.ownerReferences as { kind: string }[] | undefined) ?? [])[0]?.kind === 'TenantControlPlane';
    if (!kamajiOwned) {
      const data = kamajiCA.data as Record<string, string>;
      if (!data?.['ca.crt']) throw new Error('missing Certificate value from *kamajiv1alpha1.TenantControlPlane CA');
      if (!data?.['ca.key']) throw new Error('missing Private Key value from *kamajiv1alpha1.TenantControlPlane CA');
      await this.secret(
        {
          name: `${c.metadata.name}-ca`,
          namespace,
          ownerReferences: kcpOwner,
          labels: { ...((kamajiCA.metadata.labels as Record<string, string>) ?? {}), ...clusterLabels(fresh.metadata.name), 'kamaji.clastix.io/secret': 'ca' },
        },
        { 'tls.crt': Buffer.from(data['ca.crt'], 'base64'), 'tls.key': Buffer.from(data['ca.key'], 'base64') },
        'cluster.x-k8s.io/secret',
      );
    }
    track('KubeadmResourcesCreated');
    const ready = versionStatus === 'Ready' || versionStatus === 'Upgrading';
    await this.status(`/apis/${KCP_API}/namespaces/${namespace}/kamajicontrolplanes/${kcp.metadata.name}`, {
      apiVersion: KCP_API,
      kind: 'KamajiControlPlane',
      metadata: { name: kcp.metadata.name, namespace },
      status: { ready },
    });
    track('KamajiControlPlaneIsReady', ready ? undefined : `TenantControlPlane in ${versionStatus} status, enqueue back`, true);
    const view = this.planes.get(key);
    if (view && !view.initialized) {
      this.log(`kamaji ${key}: control plane initialized, endpoint ${endpoint}`);
      view.initialized = true;
    }
    if (!ready) return `TenantControlPlane in ${versionStatus} status`;
    // An addon Kamaji could not write into the tenant cluster (e.g. Konnectivity's agent) is kept as the reason.
    return this.kamajiWaiting.get(key);
  }

  /** The last update of each TenantControlPlane: the resourceVersion it left and what it sent. */
  private readonly updates = new Map<string, { resourceVersion: string; sent: string }>();

  /**
   * Whether `existing` is what the last update of `path` left and `desired` is what it sent: the
   * API server would store the same again (its defaulting is deterministic), so nothing is sent.
   */
  private sameUpdate(path: string, existing: Obj, desired: Obj): boolean {
    const last = this.updates.get(path);
    return last !== undefined && last.resourceVersion === String(existing.metadata.resourceVersion) && last.sent === updateKey(desired);
  }

  /** Why Kamaji's TenantControlPlane controller did not get further, per KamajiControlPlane key. */
  private readonly kamajiWaiting = new Map<string, string>();

  /**
   * Kamaji's TenantControlPlane controller (controllers/tenantcontrolplane_controller.go): the
   * DataStore preflight ("DataStore must exist", "it must be ready"), then the control plane.
   */
  private async kamajiReconcile(key: string, tcp: Obj, cluster: string): Promise<void> {
    const namespace = tcp.metadata.namespace!;
    const name = tcp.metadata.name;
    const dsName = tcp.spec?.dataStore as string | undefined;
    const ds = dsName ? await this.getObject(`/apis/${TCP_API}/datastores/${dsName}`) : undefined;
    if (!ds) {
      // ErrMissingDataStore: requeue after a second, nothing written.
      this.kamajiWaiting.set(key, `the DataStore ${dsName ?? '(none)'} of TenantControlPlane ${name} is missing`);
      return;
    }
    if (ds.status?.ready !== true) {
      const cond = ((ds.status?.conditions ?? []) as { type: string; message?: string }[]).find((x) => x.type === 'kamaji.clastix.io/DataStoreValidation');
      this.kamajiWaiting.set(key, `cannot reconcile since DataStore ${dsName} is not ready${cond?.message ? `: ${cond.message}` : ''}`);
      return;
    }
    // The control-plane pod as far as the user's additions go (issue 39: the AuthenticationConfiguration
    // volume): Kamaji's controller creates its Deployment, which the API server validates (a dry-run
    // here, on the real management API server); then the kubelet mounts each ConfigMap or Secret
    // volume, and the pod does not start while one is missing.
    const userArgs = apiServerUserArgs(tcp);
    const pod = await this.podVolumes(key, tcp);
    if (typeof pod === 'string') {
      this.kamajiWaiting.set(key, pod);
      return;
    }
    let view = this.planes.get(key);
    if (view && JSON.stringify(view.apiServerArgs) !== JSON.stringify(userArgs)) {
      // Kamaji would roll the Deployment; the twin does not restart a tenant API server with other arguments.
      this.kamajiWaiting.set(key, `the kube-apiserver arguments changed (${JSON.stringify(userArgs)}): the lab twin does not roll Kamaji's Deployment`);
      return;
    }
    if (view?.volumesDir) this.writeVolumes(view.volumesDir, pod);
    if (!view) {
      let starting = this.starting.get(key);
      let volumesDir: string | undefined;
      if (!starting) {
        let extra: string[];
        try {
          volumesDir = pod.length ? mkdtempSync(join(tmpdir(), 'pvekaas-kamaji-volumes-')) : undefined;
          if (volumesDir) this.writeVolumes(volumesDir, pod);
          extra = hostArgs(
            userArgs,
            pod.map((m) => ({ mountPath: m.mountPath, hostDir: join(volumesDir!, m.name) })),
          );
        } catch (e) {
          if (volumesDir) rmSync(volumesDir, { recursive: true, force: true });
          this.kamajiWaiting.set(key, (e as Error).message);
          return;
        }
        const shared = this.datastore && dsName === this.datastoreName ? this.datastore : undefined;
        const options = this.podOptions(tcp, String(tcp.spec?.kubernetes?.version), extra, shared);
        const pinnedExtra = extra;
        this.pods.set(key, (version) => this.podOptions(tcp, version, pinnedExtra, shared));
        starting = (this.options.startServer ?? startKubeServer)(options).then(async (backend) => {
          try {
            return await TenantService.start(backend);
          } catch (e) {
            await backend.stop();
            throw e;
          }
        });
        this.starting.set(key, starting);
        if (volumesDir) this.startingVolumes.set(key, volumesDir);
      }
      let server: TenantService;
      try {
        server = (await starting) as TenantService;
      } catch (e) {
        // The pod's kube-apiserver exits (e.g. on an AuthenticationConfiguration it refuses): CrashLoopBackOff.
        this.starting.delete(key);
        const dir = this.startingVolumes.get(key);
        if (dir) rmSync(dir, { recursive: true, force: true });
        this.startingVolumes.delete(key);
        this.kamajiWaiting.set(key, `the kube-apiserver container of ${name} does not start: ${(e as Error).message.slice(0, 2000)}`);
        return;
      }
      this.starting.delete(key);
      volumesDir = this.startingVolumes.get(key);
      this.startingVolumes.delete(key);
      const schema = this.datastore && dsName === this.datastoreName ? String(tcp.spec?.dataStoreSchema ?? tcp.metadata.uid) : undefined;
      view = {
        namespace,
        kcp: name,
        cluster,
        server,
        version: String(tcp.spec?.kubernetes?.version),
        initialized: false,
        apiServerArgs: userArgs,
        ...(schema ? { schema } : {}),
        ...(volumesDir ? { volumesDir } : {}),
      };
      this.planes.set(key, view);
      this.log(`kamaji ${key}: tenant API server for cluster ${cluster} at ${server.url}`);
      // The pod's kube-controller-manager container (deployment.go buildControllerManager), when asked.
      if (this.options.controllerManager) view.controllerManager = startTenantControllerManager(tcp, server);
    }
    const rolling = await this.rollOut(key, view, tcp);
    const tcpOwner = [{ apiVersion: TCP_API, kind: 'TenantControlPlane', name, uid: tcp.metadata.uid as string, controller: true, blockOwnerDeletion: true }];
    const labels = (component: string) => ({ 'kamaji.clastix.io/project': 'kamaji', 'kamaji.clastix.io/name': name, 'kamaji.clastix.io/component': component });
    const caCrt = readFileSync(join(view.server.dir, 'ca.crt'));
    const caKey = readFileSync(join(view.server.dir, 'ca.key'));
    // internal/resources/ca_certificate.go: `<tcp>-ca`, kubeadm's names and the TLS names for Cluster API.
    const caData = { 'ca.crt': caCrt, 'ca.key': caKey, 'tls.crt': caCrt, 'tls.key': caKey };
    await this.secret(
      { name: `${name}-ca`, namespace, ownerReferences: tcpOwner, labels: labels('ca'), annotations: { 'kamaji.clastix.io/checksum': checksum(caData) } },
      caData,
    );
    // internal/resources/kubeconfig.go: `<tcp>-admin-kubeconfig` with admin.conf and super-admin.conf, and their `.svc` variants.
    const kubeconfig = readFileSync(view.server.kubeconfig);
    const kcData = { 'admin.conf': kubeconfig, 'admin.svc': kubeconfig, 'super-admin.conf': kubeconfig, 'super-admin.svc': kubeconfig };
    await this.secret(
      {
        name: `${name}-admin-kubeconfig`,
        namespace,
        ownerReferences: tcpOwner,
        labels: labels('admin-kubeconfig'),
        annotations: { 'kamaji.clastix.io/checksum': checksum(kcData) },
      },
      kcData,
    );
    const address = tcp.spec?.networkProfile?.address as string | undefined;
    const port = (tcp.spec?.networkProfile?.port as number | undefined) ?? 6443;
    // The control plane's Service, as internal/resources/k8s_service_resource.go (mutate) writes it:
    // named after the TenantControlPlane, Kamaji's labels and the additional metadata of
    // spec.controlPlane.service, the kube-apiserver port, and for LoadBalancer the type, node ports
    // allocated unless told otherwise, the class and source ranges. Kamaji does not set an address
    // on it: a LoadBalancer controller (MetalLB, real in the twin: metallb.ts) gives it one, here
    // the VIP the metallb.io/loadBalancerIPs annotation asks for. Nodes reach the control plane only
    // through that address (kubelets.ts).
    const service = tcp.spec?.controlPlane?.service ?? {};
    const type = service.serviceType === 'LoadBalancer' ? 'LoadBalancer' : service.serviceType === 'NodePort' ? 'NodePort' : 'ClusterIP';
    const network = tcp.spec?.networkProfile ?? {};
    await this.applyIfChanged(
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: {
          name,
          namespace,
          labels: { ...labels('service'), ...(service.additionalMetadata?.labels ?? {}) },
          annotations: { ...(service.additionalMetadata?.annotations ?? {}) },
          ownerReferences: tcpOwner,
        },
        spec: {
          type,
          selector: { 'kamaji.clastix.io/name': name },
          ports: [
            { name: 'kube-apiserver', protocol: 'TCP', port, targetPort: port, ...(type === 'NodePort' ? { nodePort: port } : {}) },
            ...((service.additionalPorts ?? []) as Obj[]).map((p) => ({
              name: p.name,
              protocol: p.protocol,
              appProtocol: p.appProtocol,
              port: p.port,
              targetPort: p.targetPort,
            })),
          ],
          ...(type === 'LoadBalancer'
            ? {
                allocateLoadBalancerNodePorts: service.allocateLoadBalancerNodePorts ?? true,
                ...(network.loadBalancerClass ? { loadBalancerClass: network.loadBalancerClass } : {}),
                ...(network.loadBalancerSourceRanges?.length ? { loadBalancerSourceRanges: network.loadBalancerSourceRanges } : {}),
              }
            : network.allowAddressAsExternalIP && address
              ? { externalIPs: [address] }
              : {}),
        },
      } as Obj,
      `/api/v1/namespaces/${namespace}/services/${name}`,
      MANAGER,
    );
    const replicas = (tcp.spec?.controlPlane?.deployment?.replicas as number | undefined) ?? 2;
    const endpoint = address ? `${address}:${port}` : undefined;
    view.endpoint = endpoint;
    // k8s_deployment_resource.go: during the rollout (maxSurge 100%, maxUnavailable 0, the CRD's
    // default strategy) the new ReplicaSet's pods exist but are not Ready, so the Deployment counts
    // twice the replicas, the old ones Ready and the new ones unavailable; isProgressingUpgrade holds,
    // isUpgrading (status version set, spec version other) makes the status Upgrading, and
    // UpdateTenantControlPlaneStatus writes status.kubernetesResources.version.version = spec's only
    // once the status is Ready again — when the rollout is done.
    const previousVersion = tcp.status?.kubernetesResources?.version?.version as string | undefined;
    const deploymentStatus = rolling
      ? { replicas: 2 * replicas, readyReplicas: replicas, availableReplicas: replicas, updatedReplicas: replicas, unavailableReplicas: replicas }
      : { replicas, readyReplicas: replicas, availableReplicas: replicas, updatedReplicas: replicas };
    const versionStatus = rolling
      ? { version: previousVersion, status: 'Upgrading' }
      : { version: tcp.spec?.kubernetes?.version, status: endpoint ? 'Ready' : 'Provisioning' };
    await this.status(`/apis/${TCP_API}/namespaces/${namespace}/tenantcontrolplanes/${name}`, {
      apiVersion: TCP_API,
      kind: 'TenantControlPlane',
      metadata: { name, namespace },
      status: {
        storage: { driver: ds.spec?.driver, dataStoreName: dsName, ...(view.schema ? { setup: { schema: view.schema, user: view.schema } } : {}) },
        certificates: { ca: { secretName: `${name}-ca` } },
        kubeconfig: { admin: { secretName: `${name}-admin-kubeconfig` } },
        ...(endpoint ? { controlPlaneEndpoint: endpoint } : {}),
        kubernetesResources: {
          version: versionStatus,
          deployment: { name, namespace, selector: `kamaji.clastix.io/name=${name}`, ...deploymentStatus },
        },
      },
    });
    if (!endpoint) {
      this.kamajiWaiting.set(key, 'no control-plane address (networkProfile.address): the LoadBalancer Service would wait for MetalLB');
      return;
    }
    // The kubeadm phase BootstrapToken (internal/kubeadm/bootstraptoken.go BootstrapToken): the
    // cluster-info ConfigMap a join discovers the control plane by, and its RBAC.
    if (view.clusterInfo !== endpoint) {
      const refused = await this.clusterInfo(view, endpoint);
      if (refused) {
        this.kamajiWaiting.set(key, refused);
        return;
      }
      view.clusterInfo = endpoint;
    }
    if (rolling) {
      this.kamajiWaiting.set(key, rolling);
      return;
    }
    // The Konnectivity addon's objects in the tenant cluster (the tenant API server admits them for real).
    if (!view.konnectivity) {
      for (const object of konnectivityAgentObjects(tcp)) {
        const r = await view.server.client.apply(object as KubeObject, { fieldManager: MANAGER, force: true });
        if (r.status !== 200 && r.status !== 201) {
          this.kamajiWaiting.set(key, `konnectivity addon: ${object.kind} ${object.metadata.name}: HTTP ${r.status}: ${r.body?.message ?? r.text}`);
          return;
        }
      }
      view.konnectivity = true;
    }
    this.kamajiWaiting.delete(key);
  }

  /**
   * The rolling update of the control-plane Deployment when the TenantControlPlane's version is not
   * the one its pods run (k8s_deployment_resource.go: the Deployment's images follow
   * spec.kubernetes.version; kubeadm_upgrade.go marks the TCP Upgrading meanwhile): a pod of the new
   * version — its kube-apiserver, kube-scheduler and kube-controller-manager the new binaries, on the
   * same datastore prefix and the same certificates — is started beside the serving one; once its
   * API server answers /readyz it becomes the Service's endpoint and the old pod stops (maxSurge
   * 100%, maxUnavailable 0: the old pods go only when the new ones are Ready). A new pod that exits
   * or never becomes Ready is started again with the kubelet's crash-loop back-off (10 s doubling to
   * 5 min, pkg/kubelet/kubelet.go backOffPeriod and MaxContainerBackOff), the old pod serving
   * throughout: the rollout is stuck, and says so. Returns why it is not done, or undefined.
   */
  private async rollOut(key: string, view: TenantControlPlaneView, tcp: Obj): Promise<string | undefined> {
    const wanted = String(tcp.spec?.kubernetes?.version);
    let r = this.rolling.get(key);
    if (view.version === wanted && !r) {
      view.rollout = undefined;
      return undefined;
    }
    if (r && r.to !== wanted) {
      this.discard(r);
      this.rolling.delete(key);
      r = undefined;
    }
    if (view.version === wanted) {
      view.rollout = undefined;
      return undefined;
    }
    const pod = this.pods.get(key);
    if (!pod) return `the control plane of ${tcp.metadata.name} cannot be rolled: its pod's options are unknown`;
    const start = () => {
      const entry = { to: wanted, started: (this.options.startServer ?? startKubeServer)({ ...pod(wanted), certificatesFrom: view.server.dir }), next: 0 } as {
        to: string;
        started: Promise<KubeServer>;
        result?: KubeServer | Error;
        next: number;
      };
      entry.started.then(
        (server) => (entry.result = server),
        (e: Error) => (entry.result = e),
      );
      return entry;
    };
    if (!r) {
      r = start();
      this.rolling.set(key, r);
      view.rollout = { to: wanted, since: Date.now(), attempts: 1 };
      this.log(`kamaji ${key}: rolling the control plane ${view.version} → ${wanted}: a ${wanted} pod starts beside the serving one`);
    }
    const rollout = view.rollout!;
    if (r.result === undefined) return `upgrading ${view.version} → ${wanted}: the new control-plane pod is not Ready yet (attempt ${rollout.attempts})`;
    if (r.result instanceof Error) {
      if (!rollout.failed) {
        const backoff = Math.min(10000 * 2 ** (rollout.attempts - 1), 300000);
        r.next = Date.now() + backoff;
        rollout.failed = r.result.message.split('\n')[0];
        this.log(
          `kamaji ${key}: the ${wanted} control-plane pod did not become Ready (attempt ${rollout.attempts}), the ${view.version} one keeps serving: ${rollout.failed}`,
        );
      }
      if (Date.now() >= r.next) {
        const again = start();
        this.rolling.set(key, again);
        rollout.attempts++;
        rollout.failed = undefined;
        return `upgrading ${view.version} → ${wanted}: the new control-plane pod is not Ready yet (attempt ${rollout.attempts})`;
      }
      return `the upgrade ${view.version} → ${wanted} is stuck: the new control-plane pod does not become Ready (CrashLoopBackOff, ${rollout.attempts} attempt(s)): ${rollout.failed}; the ${view.version} pod keeps serving`;
    }
    // The new pod is Ready: it becomes the endpoint, the old pod stops.
    const old = view.server.switchTo(r.result);
    this.rolling.delete(key);
    const from = view.version;
    view.version = wanted;
    view.rollout = undefined;
    await old.stop();
    this.log(`kamaji ${key}: control plane rolled ${from} → ${wanted} in ${Math.round((Date.now() - rollout.since) / 1000)} s`);
    return undefined;
  }

  /** A rolling update's new pod that is no longer wanted: stopped once it has started. */
  private discard(r: { started: Promise<KubeServer> }): void {
    r.started.then(
      (s) => s.stop(),
      () => undefined,
    );
  }

  /**
   * internal/kubeadm/bootstraptoken.go BootstrapToken: the `cluster-info` ConfigMap in kube-public
   * with a kubeconfig of the control plane's endpoint and CA (clientcmd.Write of a Config with one
   * unnamed cluster), and clusterinfo.CreateClusterInfoRBACRules (k8s.io/kubernetes
   * cmd/kubeadm/app/phases/bootstraptoken/clusterinfo): anonymous may read it. The tenant's
   * kube-controller-manager (bootstrapsigner) adds a `jws-kubeconfig-<token id>` signature per
   * bootstrap token; kubelets.ts checks it as kubeadm's discovery does.
   */
  private async clusterInfo(view: TenantControlPlaneView, endpoint: string): Promise<string | undefined> {
    const ca = readFileSync(join(view.server.dir, 'ca.crt')).toString('base64');
    const kubeconfig = [
      'apiVersion: v1',
      'clusters:',
      '- cluster:',
      `    certificate-authority-data: ${ca}`,
      `    server: https://${endpoint}`,
      '  name: ""',
      'contexts: null',
      'current-context: ""',
      'kind: Config',
      'preferences: {}',
      'users: null',
      '',
    ].join('\n');
    const objects = [
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cluster-info', namespace: 'kube-public' }, data: { kubeconfig } },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name: 'kubeadm:bootstrap-signer-clusterinfo', namespace: 'kube-public' },
        rules: [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['cluster-info'] }],
      },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: 'kubeadm:bootstrap-signer-clusterinfo', namespace: 'kube-public' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'kubeadm:bootstrap-signer-clusterinfo' },
        subjects: [{ kind: 'User', name: 'system:anonymous' }],
      },
    ];
    for (const object of objects) {
      const r = await view.server.client.apply(object as KubeObject, { fieldManager: MANAGER, force: true });
      if (r.status !== 200 && r.status !== 201)
        return `kubeadm phase BootstrapToken: ${object.kind} ${object.metadata.name}: HTTP ${r.status}: ${r.body?.message ?? r.text}`;
    }
    return undefined;
  }

  /** The volumes directory of a tenant API server being started, by KamajiControlPlane key. */
  private readonly startingVolumes = new Map<string, string>();
  /** The last Deployment dry-run per KamajiControlPlane key: what was sent and the refusal, if any. */
  private readonly dryRuns = new Map<string, { sent: string; refused?: string }>();

  /**
   * The Deployment's dry-run (what Kamaji's controller would create), then the kubelet's mount of
   * each ConfigMap or Secret volume of the kube-apiserver container: the files of each, or why the
   * pod cannot start.
   */
  private async podVolumes(key: string, tcp: Obj): Promise<{ name: string; mountPath: string; files: Map<string, Buffer> }[] | string> {
    const namespace = tcp.metadata.namespace!;
    const dep = tcp.spec?.controlPlane?.deployment ?? {};
    if (dep.additionalVolumes?.length || (dep.additionalVolumeMounts && Object.values(dep.additionalVolumeMounts).some((v) => (v as unknown[])?.length))) {
      const deployment = controlPlaneDeployment(tcp);
      const sent = JSON.stringify(deployment);
      let last = this.dryRuns.get(key);
      if (last?.sent !== sent) {
        const r = await this.mgmt.request('POST', `/apis/apps/v1/namespaces/${namespace}/deployments?dryRun=All`, deployment);
        last = { sent, ...(r.status === 201 || r.status === 200 ? {} : { refused: String(r.body?.message ?? r.text) }) };
        this.dryRuns.set(key, last);
      }
      if (last.refused) return `cannot create the Deployment of TenantControlPlane ${tcp.metadata.name}: ${last.refused}`;
    }
    let mounts;
    try {
      mounts = apiServerMounts(tcp);
    } catch (e) {
      return (e as Error).message;
    }
    const out: { name: string; mountPath: string; files: Map<string, Buffer> }[] = [];
    for (const m of mounts) {
      const kind = m.source.kind === 'ConfigMap' ? 'configmaps' : 'secrets';
      const r = await this.mgmt.get(`/api/v1/namespaces/${namespace}/${kind}/${m.source.name}`);
      if (r.status === 404) {
        if (m.source.optional) {
          out.push({ name: m.name, mountPath: m.mountPath, files: new Map() });
          continue;
        }
        return `the control-plane pods of ${tcp.metadata.name} cannot start: MountVolume.SetUp failed for volume "${m.name}" : ${m.source.kind.toLowerCase()} "${m.source.name}" not found`;
      }
      if (r.status !== 200) return `reading ${m.source.kind} ${m.source.name}: HTTP ${r.status}`;
      try {
        const data = { ...((r.body.data ?? {}) as Record<string, string>) };
        if (m.source.kind === 'ConfigMap')
          for (const [k, v] of Object.entries((r.body.binaryData ?? {}) as Record<string, string>)) data[k] = Buffer.from(v, 'base64').toString('utf8');
        out.push({ name: m.name, mountPath: m.mountPath, files: volumeFiles(m, data, m.source.kind === 'Secret') });
      } catch (e) {
        return `the control-plane pods of ${tcp.metadata.name} cannot start: ${(e as Error).message}`;
      }
    }
    return out;
  }

  /** The kubelet's atomic writer: each volume's files, replaced when they change (kube-apiserver reloads its AuthenticationConfiguration). */
  private writeVolumes(dir: string, volumes: { name: string; files: Map<string, Buffer> }[]): void {
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
  private async admit(tcp: Obj, old: Obj | undefined): Promise<string | undefined> {
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
  private async kcpConditions(kcp: Obj, tracked: Record<string, { status: 'True' | 'False'; reason: string; message: string }>): Promise<void> {
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

  private getObject(path: string): Promise<Obj | undefined> {
    return this.memo.get(path);
  }

  /** A forced server-side apply, sent only when it would change a value (controllerutil.CreateOrUpdate's check). */
  private async applyIfChanged(object: Obj, path: string, manager: string): Promise<void> {
    if (applyUnchanged(object, await this.memo.get(path))) return;
    this.memo.wrote(path, await this.mgmt.applyOrThrow(object, { fieldManager: manager, force: true }));
  }

  private async secret(
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
  private async status(path: string, object: { status: Record<string, unknown> } & Record<string, unknown>): Promise<void> {
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

  async stop(): Promise<void> {
    const pending = [...this.starting.values()];
    this.starting.clear();
    for (const p of pending)
      await p.then(
        (s) => s.stop(),
        () => undefined,
      );
    await Promise.all(
      [...this.rolling.values()].map((r) =>
        r.started.then(
          (s) => s.stop(),
          () => undefined,
        ),
      ),
    );
    this.rolling.clear();
    for (const view of this.planes.values()) {
      await view.controllerManager?.stop();
      await view.server.stop();
      if (view.volumesDir) rmSync(view.volumesDir, { recursive: true, force: true });
    }
    this.planes.clear();
    for (const dir of this.startingVolumes.values()) rmSync(dir, { recursive: true, force: true });
    await this.datastore?.destroy();
  }
}

/** tcp_deployment.go shouldTriggerCheck: the user's volumes, mounts or containers are set and changed. */
function deploymentCheckTriggered(tcp: Obj, old: Obj): boolean {
  const d = tcp.spec?.controlPlane?.deployment ?? {};
  const o = old.spec?.controlPlane?.deployment ?? {};
  if (!d.additionalVolumeMounts && !d.additionalInitContainers?.length && !d.additionalContainers?.length && !d.additionalVolumes?.length) return false;
  if (d.additionalVolumeMounts && !o.additionalVolumeMounts) return true;
  return ['additionalContainers', 'additionalInitContainers', 'additionalVolumes', 'additionalVolumeMounts'].some((k) => !jsonEqual(d[k], o[k]));
}

/** kamaji.clastix.io/checksum: a digest of the Secret's data (utilities.CalculateMapChecksum in spirit; the value is opaque). */
function checksum(data: Record<string, Buffer>): string {
  const h = createHash('md5');
  for (const k of Object.keys(data).sort()) h.update(k).update(data[k]);
  return h.digest('hex');
}

/** What an update of a TenantControlPlane sends that the player decides: spec, labels and annotations. */
function updateKey(desired: Obj): string {
  return JSON.stringify([desired.spec, desired.metadata.labels ?? {}, desired.metadata.annotations ?? {}]);
}

function clusterName(kcp: Obj): string {
  return ((kcp.metadata.ownerReferences as { name: string }[] | undefined) ?? [])[0]?.name ?? '';
}
