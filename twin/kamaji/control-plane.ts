/**
 * Kamaji's TenantControlPlane controller, played (controllers/tenantcontrolplane_controller.go at
 * the pinned Kamaji): the DataStore preflight, the control plane's REAL tenant kube-apiserver and
 * Kamaji's Secrets and status, its rolling update to a new version (`rollOut`), the cluster-info
 * ConfigMap, and the kubelet's part of the pod's volumes. The second layer of KamajiPlayer.
 */
import type { KubeObject, KubeServer } from '../../scripts/lib/kube-apiserver';
import { startKubeServer } from '../../scripts/lib/kube-apiserver';
import { TenantService } from '../tenant-service';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiServerMounts, apiServerUserArgs, controlPlaneDeployment, hostArgs, volumeFiles } from './api-server-rules';
import { konnectivityAgentObjects } from './konnectivity-rules';
import { TCP_API } from '../kamaji-rules';
import { startTenantControllerManager } from '../tenant-controller-manager';
import { KamajiBase, MANAGER, checksum, type Obj, type TenantControlPlaneView } from './base';

export abstract class KamajiControlPlanes extends KamajiBase {
  /** Why Kamaji's TenantControlPlane controller did not get further, per KamajiControlPlane key. */
  protected readonly kamajiWaiting = new Map<string, string>();

  /**
   * Kamaji's TenantControlPlane controller (controllers/tenantcontrolplane_controller.go): the
   * DataStore preflight ("DataStore must exist", "it must be ready"), then the control plane.
   */
  protected async kamajiReconcile(key: string, tcp: Obj, cluster: string): Promise<void> {
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
  protected async rollOut(key: string, view: TenantControlPlaneView, tcp: Obj): Promise<string | undefined> {
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

  /**
   * internal/kubeadm/bootstraptoken.go BootstrapToken: the `cluster-info` ConfigMap in kube-public
   * with a kubeconfig of the control plane's endpoint and CA (clientcmd.Write of a Config with one
   * unnamed cluster), and clusterinfo.CreateClusterInfoRBACRules (k8s.io/kubernetes
   * cmd/kubeadm/app/phases/bootstraptoken/clusterinfo): anonymous may read it. The tenant's
   * kube-controller-manager (bootstrapsigner) adds a `jws-kubeconfig-<token id>` signature per
   * bootstrap token; kubelets.ts checks it as kubeadm's discovery does.
   */
  protected async clusterInfo(view: TenantControlPlaneView, endpoint: string): Promise<string | undefined> {
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
  protected readonly startingVolumes = new Map<string, string>();
  /** The last Deployment dry-run per KamajiControlPlane key: what was sent and the refusal, if any. */
  protected readonly dryRuns = new Map<string, { sent: string; refused?: string }>();

  /**
   * The Deployment's dry-run (what Kamaji's controller would create), then the kubelet's mount of
   * each ConfigMap or Secret volume of the kube-apiserver container: the files of each, or why the
   * pod cannot start.
   */
  protected async podVolumes(key: string, tcp: Obj): Promise<{ name: string; mountPath: string; files: Map<string, Buffer> }[] | string> {
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
}
