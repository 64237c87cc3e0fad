/**
 * SIMULATED in the lab twin: Kamaji and its Cluster API control-plane provider. There is no
 * container runtime here for Kamaji's control-plane pods, and the provider v0.20.0 cannot be built
 * from the Go module proxy (it needs a Kamaji pseudo-version the proxy refuses). So for every
 * KamajiControlPlane that CAPI's topology controller makes from the class, this player:
 *
 * - starts a REAL tenant kube-apiserver (etcd + kube-apiserver from the toolchain) standing in for
 *   the control-plane pods, and
 * - writes what the two write, with the names and fields of their source at the pinned versions:
 *   Kamaji (26.8.2-edge): the TenantControlPlane's status (endpoint `<address>:<port>`, version
 *   Ready, deployment, kubeconfig and CA Secret names) and the Secrets `<tcp>-admin-kubeconfig`
 *   (`admin.conf`) and its CA (`ca.crt`, `ca.key`; named `<tcp>-kamaji-ca`, not Kamaji's `<tcp>-ca`,
 *   which is CAPI's `<cluster>-ca` when the control plane is named like its Cluster); the provider
 *   (controllers/kamajicontrolplane_controller*.go): the TenantControlPlane from the
 *   KamajiControlPlane and its Cluster, `spec.controlPlaneEndpoint` of the KamajiControlPlane, the
 *   infrastructure cluster's endpoint (checkOrPatchGenericCluster for ProxmoxCluster: a different
 *   host or port already set is an error, as upstream), the `<cluster>-kubeconfig` and
 *   `<cluster>-ca` Secrets of the CAPI contract, and the status fields of the CAPI control-plane
 *   contract (initialization.controlPlaneInitialized, ready, replicas, version, conditions).
 *
 * Nothing else: CAPI, CABPK, CAPMOX and IPAM objects are only ever written by those controllers.
 * One deviation, stated: the admin kubeconfig points at the tenant server on loopback, since the
 * VIP the endpoint names does not exist here.
 */
import type { KubeClient, KubeObject, KubeServer } from '../lib/kube-apiserver';
import { startKubeServer } from '../lib/kube-apiserver';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const KCP_API = 'controlplane.cluster.x-k8s.io/v1alpha2';
const TCP_API = 'kamaji.clastix.io/v1alpha1';
const MANAGER = 'pvekaas-twin-kamaji';

export interface TenantControlPlaneView {
  namespace: string;
  kcp: string;
  cluster: string;
  /** The tenant API server standing in for the control-plane pods. */
  server: KubeServer;
  /** `host:port` the control plane announces (the VIP). */
  endpoint?: string;
  initialized: boolean;
  /** Why it is not initialized yet, if it is not. */
  waiting?: string;
}

type Obj = KubeObject & { spec?: any; status?: any };

function pick(from: Record<string, unknown> | undefined, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((k) => from?.[k] !== undefined).map((k) => [k, from![k]]));
}

/** KamajiControlPlane addons → TenantControlPlane addons: CoreDNS's `dnsServiceIPs` is not a TCP addon field. */
function tcpAddons(addons: Record<string, any>): Record<string, unknown> {
  const { coreDNS, ...rest } = addons;
  if (!coreDNS) return rest;
  const { dnsServiceIPs: _ips, ...coreDNSSpec } = coreDNS as Record<string, unknown>;
  return { ...rest, coreDNS: coreDNSSpec };
}

export class KamajiPlayer {
  readonly planes = new Map<string, TenantControlPlaneView>();
  private readonly starting = new Map<string, Promise<KubeServer>>();

  constructor(private readonly mgmt: KubeClient, private readonly log: (line: string) => void = () => {}) {}

  /** One reconcile pass over every KamajiControlPlane. */
  async tick(): Promise<void> {
    const list = await this.mgmt.get(`/apis/${KCP_API}/kamajicontrolplanes`);
    if (list.status !== 200) throw new Error(`listing KamajiControlPlanes: HTTP ${list.status}: ${list.text}`);
    const seen = new Set<string>();
    for (const kcp of list.body.items as Obj[]) {
      const key = `${kcp.metadata.namespace}/${kcp.metadata.name}`;
      seen.add(key);
      try {
        await this.reconcile(key, kcp);
      } catch (e) {
        const view = this.planes.get(key);
        if (view) view.waiting = (e as Error).message;
        this.log(`kamaji ${key}: ${(e as Error).message}`);
      }
    }
    for (const [key, view] of this.planes) {
      if (seen.has(key)) continue;
      // The KamajiControlPlane is gone: its control plane goes with it (Kamaji deletes the TCP's pods).
      await view.server.stop();
      this.planes.delete(key);
      this.log(`kamaji ${key}: control plane stopped`);
    }
  }

  private async reconcile(key: string, kcp: Obj): Promise<void> {
    const namespace = kcp.metadata.namespace!;
    const owner = ((kcp.metadata.ownerReferences as { kind: string; name: string }[] | undefined) ?? []).find((o) => o.kind === 'Cluster');
    // "missing OwnerReference from the Cluster controller, waiting for it"
    if (!owner) return;
    if (kcp.metadata.deletionTimestamp) return;
    const cluster = await this.getObject(`/apis/cluster.x-k8s.io/v1beta2/namespaces/${namespace}/clusters/${owner.name}`);
    if (!cluster) return;
    if (cluster.metadata.annotations && (cluster.metadata.annotations as Record<string, string>)['cluster.x-k8s.io/paused'] !== undefined) return;
    if (cluster.spec?.paused) return;

    let view = this.planes.get(key);
    if (!view) {
      let starting = this.starting.get(key);
      if (!starting) {
        starting = startKubeServer({ crds: false, controllerManager: false });
        this.starting.set(key, starting);
      }
      const server = await starting;
      this.starting.delete(key);
      view = { namespace, kcp: kcp.metadata.name, cluster: owner.name, server, initialized: false };
      this.planes.set(key, view);
      this.log(`kamaji ${key}: tenant API server for cluster ${owner.name} at ${server.url}`);
    }

    // The provider: the TenantControlPlane, named like the KamajiControlPlane (kamajicontrolplane_controller_tcp.go).
    const network = kcp.spec?.network ?? {};
    const port = cluster.spec?.clusterNetwork?.apiServerPort || 6443;
    const tcp: Obj = {
      apiVersion: TCP_API,
      kind: 'TenantControlPlane',
      metadata: {
        name: kcp.metadata.name,
        namespace,
        labels: (kcp.metadata.labels as Record<string, string>) ?? {},
        ownerReferences: [{ apiVersion: KCP_API, kind: 'KamajiControlPlane', name: kcp.metadata.name, uid: kcp.metadata.uid as string, controller: true, blockOwnerDeletion: true }],
      },
      spec: {
        ...(kcp.spec?.dataStoreName ? { dataStore: kcp.spec.dataStoreName } : {}),
        controlPlane: {
          // Deployment fields as createOrUpdateTenantControlPlane copies them.
          deployment: {
            replicas: kcp.spec?.replicas ?? 2,
            ...pick(kcp.spec?.deployment, ['nodeSelector', 'runtimeClassName', 'serviceAccountName', 'additionalMetadata', 'podAdditionalMetadata', 'strategy', 'affinity', 'tolerations', 'topologySpreadConstraints']),
          },
          service: { serviceType: network.serviceType ?? 'LoadBalancer' },
        },
        networkProfile: {
          // CoreDNS's service IPs move from the addon to the network profile (the provider's override).
          ...((kcp.spec?.addons?.coreDNS?.dnsServiceIPs ?? network.dnsServiceIPs) ? { dnsServiceIPs: kcp.spec?.addons?.coreDNS?.dnsServiceIPs ?? network.dnsServiceIPs } : {}),
          ...(network.serviceAddress ? { address: network.serviceAddress } : {}),
          port,
          ...(cluster.spec?.clusterNetwork?.services?.cidrBlocks?.[0] ? { serviceCidr: cluster.spec.clusterNetwork.services.cidrBlocks[0] } : {}),
          ...(cluster.spec?.clusterNetwork?.pods?.cidrBlocks?.[0] ? { podCidr: cluster.spec.clusterNetwork.pods.cidrBlocks[0] } : {}),
          ...(cluster.spec?.clusterNetwork?.serviceDomain ? { clusterDomain: cluster.spec.clusterNetwork.serviceDomain } : {}),
        },
        kubernetes: { version: kcp.spec?.version, kubelet: kcp.spec?.kubelet ?? {} },
        ...(kcp.spec?.addons ? { addons: tcpAddons(kcp.spec.addons) } : {}),
      },
    };
    await this.mgmt.applyOrThrow(tcp, { fieldManager: MANAGER, force: true });

    // Kamaji: the control plane's Secrets and status. The endpoint is the Service's address: the
    // pre-allocated VIP (networkProfile.address) on the port; without an address MetalLB would pick
    // one, which the twin does not play, so the control plane waits (as it would for a pool without room).
    if (!network.serviceAddress) {
      view.waiting = 'no control-plane address (spec.network.serviceAddress): a LoadBalancer Service would wait for MetalLB';
      return;
    }
    const endpoint = `${network.serviceAddress}:${port}`;
    view.endpoint = endpoint;
    const dir = view.server.dir;
    const caCrt = readFileSync(join(dir, 'ca.crt'));
    const caKey = readFileSync(join(dir, 'ca.key'));
    const tcpOwner = [{ apiVersion: TCP_API, kind: 'TenantControlPlane', name: tcp.metadata.name, uid: await this.uidOf(`/apis/${TCP_API}/namespaces/${namespace}/tenantcontrolplanes/${tcp.metadata.name}`), controller: true, blockOwnerDeletion: true }];
    // Named apart from CAPI's `<cluster>-ca` (the topology names the control plane like its Cluster,
    // and that Secret's type is immutable): a stated deviation from Kamaji's own `<tcp>-ca`.
    await this.secret({ name: `${tcp.metadata.name}-kamaji-ca`, namespace, ownerReferences: tcpOwner, labels: { 'kamaji.clastix.io/name': tcp.metadata.name } }, { 'ca.crt': caCrt, 'ca.key': caKey });
    await this.secret({ name: `${tcp.metadata.name}-admin-kubeconfig`, namespace, ownerReferences: tcpOwner, labels: { 'kamaji.clastix.io/name': tcp.metadata.name } }, { 'admin.conf': readFileSync(view.server.kubeconfig) });
    await this.status(`/apis/${TCP_API}/namespaces/${namespace}/tenantcontrolplanes/${tcp.metadata.name}`, {
      apiVersion: TCP_API,
      kind: 'TenantControlPlane',
      metadata: { name: tcp.metadata.name, namespace },
      status: {
        controlPlaneEndpoint: endpoint,
        certificates: { ca: { secretName: `${tcp.metadata.name}-kamaji-ca` } },
        kubeconfig: { admin: { secretName: `${tcp.metadata.name}-admin-kubeconfig` } },
        kubernetesResources: {
          version: { version: kcp.spec?.version, status: 'Ready' },
          deployment: {
            name: tcp.metadata.name,
            namespace,
            selector: `kamaji.clastix.io/name=${tcp.metadata.name}`,
            replicas: kcp.spec?.replicas ?? 2,
            readyReplicas: kcp.spec?.replicas ?? 2,
            availableReplicas: kcp.spec?.replicas ?? 2,
            updatedReplicas: kcp.spec?.replicas ?? 2,
          },
        },
      },
    });

    // The provider again: endpoint on the KamajiControlPlane and on the infrastructure cluster.
    const [host, portText] = [network.serviceAddress as string, String(port)];
    if (kcp.spec?.controlPlaneEndpoint?.host !== host || kcp.spec?.controlPlaneEndpoint?.port !== port) {
      await this.mgmt.applyOrThrow({ apiVersion: KCP_API, kind: 'KamajiControlPlane', metadata: { name: kcp.metadata.name, namespace }, spec: { controlPlaneEndpoint: { host, port } } } as Obj, { fieldManager: MANAGER, force: true });
    }
    const infraRef = cluster.spec?.infrastructureRef as { apiGroup: string; kind: string; name: string } | undefined;
    if (!infraRef?.name) throw new Error('the Cluster has no infrastructureRef');
    if (infraRef.kind !== 'ProxmoxCluster') throw new Error(`unsupported infrastructure provider ${infraRef.kind}`);
    const infraPath = `/apis/${infraRef.apiGroup}/v1alpha2/namespaces/${namespace}/proxmoxclusters/${infraRef.name}`;
    const infra = await this.getObject(infraPath);
    if (!infra) throw new Error(`cannot retrieve infrastructure cluster ProxmoxCluster ${infraRef.name}`);
    const current = infra.spec?.controlPlaneEndpoint as { host?: string; port?: number } | undefined;
    if (!current?.host) {
      const r = await this.mgmt.request('PATCH', infraPath, { spec: { controlPlaneEndpoint: { host, port: Number(portText) } } }, 'application/merge-patch+json');
      if (r.status !== 200) throw new Error(`cannot perform PATCH update for the ProxmoxCluster resource: HTTP ${r.status}: ${r.body?.message ?? r.text}`);
    } else if (current.host !== host) {
      throw new Error('the ProxmoxCluster cluster has been provisioned with a mismatching host');
    } else if (current.port !== port) {
      throw new Error('the ProxmoxCluster cluster has been provisioned with a mismatching port');
    }

    const fresh = await this.getObject(`/apis/cluster.x-k8s.io/v1beta2/namespaces/${namespace}/clusters/${owner.name}`);
    if (!fresh?.spec?.controlPlaneEndpoint?.host) {
      view.waiting = 'Cluster control plane endpoint still unprocessed';
      return;
    }
    if (fresh.status?.initialization?.infrastructureProvisioned !== true) {
      view.waiting = 'Cluster infrastructure is not yet provisioned';
      return;
    }
    const replicas = kcp.spec?.replicas ?? 2;
    const kcpUid = kcp.metadata.uid as string;
    const kcpOwner = [{ apiVersion: KCP_API, kind: 'KamajiControlPlane', name: kcp.metadata.name, uid: kcpUid, controller: true, blockOwnerDeletion: true }];
    const clusterLabels = { 'cluster.x-k8s.io/cluster-name': owner.name, 'kamaji.clastix.io/component': 'capi', 'kamaji.clastix.io/cluster': owner.name, 'kamaji.clastix.io/tcp': tcp.metadata.name };
    await this.secret(
      { name: `${owner.name}-kubeconfig`, namespace, ownerReferences: kcpOwner, labels: { ...clusterLabels, 'kamaji.clastix.io/secret': 'kubeconfig' } },
      { value: readFileSync(view.server.kubeconfig) },
      'cluster.x-k8s.io/secret',
    );
    await this.secret(
      { name: `${owner.name}-ca`, namespace, ownerReferences: kcpOwner, labels: { ...clusterLabels, 'kamaji.clastix.io/secret': 'ca' } },
      { 'tls.crt': caCrt, 'tls.key': caKey },
      'cluster.x-k8s.io/secret',
    );
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const condition = (type: string, reason: string) => ({ type, status: 'True', reason, message: '', lastTransitionTime: now, observedGeneration: kcp.metadata.generation as number });
    await this.status(`/apis/${KCP_API}/namespaces/${namespace}/kamajicontrolplanes/${kcp.metadata.name}`, {
      apiVersion: KCP_API,
      kind: 'KamajiControlPlane',
      metadata: { name: kcp.metadata.name, namespace },
      status: {
        initialization: { controlPlaneInitialized: true },
        ready: true,
        externalManagedControlPlane: true,
        replicas,
        readyReplicas: replicas,
        availableReplicas: replicas,
        upToDateReplicas: replicas,
        selector: `kamaji.clastix.io/name=${tcp.metadata.name}`,
        version: kcp.spec?.version,
        conditions: [condition('Available', 'Available'), condition('KamajiControlPlaneIsReady', 'Ready'), condition('KamajiControlPlaneIsInitialized', 'Initialized')],
      },
    });
    if (!view.initialized) this.log(`kamaji ${key}: control plane initialized, endpoint ${endpoint}`);
    view.initialized = true;
    view.waiting = undefined;
  }

  private async getObject(path: string): Promise<Obj | undefined> {
    const r = await this.mgmt.get(path);
    if (r.status === 404) return undefined;
    if (r.status !== 200) throw new Error(`GET ${path}: HTTP ${r.status}: ${r.body?.message ?? r.text}`);
    return r.body as Obj;
  }

  private async uidOf(path: string): Promise<string> {
    const o = await this.getObject(path);
    if (!o) throw new Error(`${path} is gone`);
    return o.metadata.uid as string;
  }

  private async secret(metadata: Record<string, unknown> & { name: string; namespace: string }, data: Record<string, Buffer>, type = 'Opaque'): Promise<void> {
    const encoded = Object.fromEntries(Object.entries(data).map(([k, v]) => [k, v.toString('base64')]));
    await this.mgmt.applyOrThrow({ apiVersion: 'v1', kind: 'Secret', metadata, type, data: encoded } as KubeObject, { fieldManager: MANAGER, force: true });
  }

  private async status(path: string, object: Obj): Promise<void> {
    const query = new URLSearchParams({ fieldManager: MANAGER, force: 'true' });
    const r = await this.mgmt.request('PATCH', `${path}/status?${query}`, object, 'application/apply-patch+yaml');
    if (r.status !== 200 && r.status !== 201) throw new Error(`status of ${path}: HTTP ${r.status}: ${r.body?.message ?? r.text}`);
  }

  async stop(): Promise<void> {
    const pending = [...this.starting.values()];
    this.starting.clear();
    for (const p of pending) await p.then((s) => s.stop(), () => undefined);
    for (const view of this.planes.values()) await view.server.stop();
    this.planes.clear();
  }
}
