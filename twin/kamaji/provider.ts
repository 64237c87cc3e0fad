/**
 * Kamaji's Cluster API control-plane provider, played (controllers/kamajicontrolplane_controller.go
 * at the pinned release): each KamajiControlPlane's TenantControlPlane (written only when Kamaji's
 * webhooks admit it), its endpoints, `initialized`, the CAPI contract's Secrets and status fields.
 * The third layer of KamajiPlayer.
 */
import { defaultTenantControlPlane, KCP_API, TCP_API, tenantControlPlaneFor } from '../kamaji-rules';
import { jsonEqual } from '../read-memo';
import { MANAGER, clusterName, updateKey, type Obj, type KamajiReleases } from './base';
import { KamajiControlPlanes } from './control-plane';

export abstract class KamajiProvider extends KamajiControlPlanes {
  /** One KamajiControlPlane; returns what it waits for, or undefined once initialized and ready. */
  protected async reconcile(key: string, kcp: Obj, releases: KamajiReleases): Promise<string | undefined> {
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

  protected async reconcileWith(
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
  protected readonly updates = new Map<string, { resourceVersion: string; sent: string }>();

  /**
   * Whether `existing` is what the last update of `path` left and `desired` is what it sent: the
   * API server would store the same again (its defaulting is deterministic), so nothing is sent.
   */
  protected sameUpdate(path: string, existing: Obj, desired: Obj): boolean {
    const last = this.updates.get(path);
    return last !== undefined && last.resourceVersion === String(existing.metadata.resourceVersion) && last.sent === updateKey(desired);
  }
}
