/**
 * PLAYED in the lab twin (option `csi`, test/twin/storage.test.ts): what runs of the Proxmox CSI
 * plugin (v0.19.1, chart 0.5.9) for a tenant with `storage`, on both sides of it.
 *
 * - In the management cluster, the tenant's `proxmox-csi-controller` Deployment as rendered
 *   (modules/tenants/storage.ts): no pod runs here, so this reads what its pod would mount — the
 *   plugin's `--cloud-config` ConfigMap, the token Secrets its `token-<instance>` volumes name (the
 *   config's `token_id_file`/`token_secret_file`, pkg/proxmoxpool/pool.go readValueFromFile), the
 *   tenant kubeconfig Secret its sidecars' `--kubeconfig` reads — and acts with exactly those. A
 *   Deployment given another tenant's Secret acts with that Secret's token (and the simulator
 *   refuses it).
 * - csi-provisioner v5.3.0 (sig-storage-lib-external-provisioner v11, vendored there): a PVC whose
 *   `volume.kubernetes.io/storage-provisioner` names the driver (controller.go shouldProvision), not
 *   bound, with `volume.kubernetes.io/selected-node` (WaitForFirstConsumer); the request name
 *   `pvc-<uid>` (makeVolumeName); the accessibility requirement from the selected Node's labels for
 *   the topology keys of its CSINode (topology.go GenerateAccessibilityRequirements,
 *   getTopologyKeys, getTopologyFromNode: preferred = the selected node's segment); the plugin's
 *   CreateVolume (proxmox-csi.ts); the PV as csiProvisioner.Provision writes it (capacity, access
 *   modes, `csi` source with the volume handle, fsType and `storage.kubernetes.io/csiProvisionerIdentity`,
 *   the class's reclaim policy, `GenerateVolumeNodeAffinity` of the returned AccessibleTopology —
 *   one term, region and zone `In`), with the library's claimRef, class name, `pv.kubernetes.io/provisioned-by`
 *   and finalizer `external-provisioner.volume.kubernetes.io/finalizer` (provisionClaimOperation).
 *   A Released PV of the driver with reclaim policy Delete: the plugin's DeleteVolume, then the
 *   finalizer removed and the PV deleted (csiProvisioner.Delete, the library's deleteVolumeOperation).
 * - csi-attacher v4.10.0: a VolumeAttachment of the driver (csi_handler.go syncAttach): finalizer
 *   `external-attacher/<sanitized driver>` on it and on the PV (prepareVAFinalizer, addPVFinalizer,
 *   util.go GetFinalizerName), the node id from the CSINode (getNodeID), the plugin's
 *   ControllerPublishVolume, `status.attached` with the publish context (csiAttach). Deleted
 *   (syncDetach): ControllerUnpublishVolume, `status.attached=false`, the finalizer removed.
 *   The plugin's ControllerPublishVolume finds the VM of a node id without a VM id by the Node's
 *   `status.nodeInfo.systemUUID` with provider capmox (controller.go getVMIDbyNode →
 *   pkg/proxmoxpool/pool.go FindVMByUUID: every qemu resource's config, `smbios1` uuid).
 * - In the tenant cluster, once the node plugin DaemonSet is there (the ClusterResourceSet applied
 *   it): each Node's kubelet registers the driver in its CSINode with the node id and topology keys
 *   NodeGetInfo returns (pkg/csi/node.go NodeGetInfo: node id `<nodeName>` when the SMBIOS gives no
 *   VM id, topology region and zone from the Node's labels; k8s pkg/volume/csi/nodeinfomanager
 *   InstallCSIDriver), carries `volumes.kubernetes.io/controller-managed-attach-detach: "true"`
 *   (kubelet_node_status.go initialNode) and its machine's SystemUUID (nodestatus MachineInfo). A
 *   Pod on it with CSI volumes: the kubelet's volume manager reports them in `volumesInUse`
 *   (GetVolumesInUse), waits until the attach-detach controller lists them in `volumesAttached`
 *   (WaitForAttachAndMount; NodeStage/NodePublish are the node plugin's and change nothing in
 *   Proxmox: not played), then the Pod is Running and Ready. A Pod gone from the Node: its volumes
 *   leave `volumesInUse`.
 */
import type { PveClient as PveClientT } from '../sim/client';
import { PveClient } from '../sim/client';
import type { SimVmView } from '../sim/simulator';
import type { KubeClient } from '../scripts/lib/kube-apiserver';
import { clientFromKubeconfig } from './autoscaler';
import { createVolume, deleteVolume, publishVolume, unpublishVolume } from './proxmox-csi';
import { parse } from 'yaml';

export const DRIVER = 'csi.proxmox.sinextra.dev';
const CONTROLLER = 'proxmox-csi-controller';
const PV_FINALIZER = 'external-provisioner.volume.kubernetes.io/finalizer';
/** util.go GetFinalizerName(SanitizeDriverName): every character outside [a-zA-Z0-9-] becomes '-'. */
export const ATTACHER_FINALIZER = `external-attacher/${DRIVER.replace(/[^a-zA-Z0-9-]/g, '-')}`;
const REGION = 'topology.kubernetes.io/region';
const ZONE = 'topology.kubernetes.io/zone';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kubernetes objects read by path, as the sidecars read them
type Obj = any;

interface TenantCsi {
  namespace: string;
  tenant: KubeClient;
  /** Proxmox clients by region (instance), with the token the Deployment mounts. */
  proxmox: Map<string, PveClientT>;
  controllerVmId: number;
  /** The token id each region's client uses (for the tests: whose token acted). */
  tokenIds: Map<string, string>;
}

export class CsiPlayer {
  /** What each tenant's played controller did, in order (for the tests and the log). */
  readonly events: { namespace: string; what: string; detail: string }[] = [];
  /** The last error per tenant namespace (refusals are kept, retried next tick). */
  readonly errors = new Map<string, string>();

  constructor(
    private readonly mgmt: KubeClient,
    private readonly vms: () => SimVmView[],
    private readonly log: (line: string) => void = () => {},
  ) {}

  async tick(): Promise<void> {
    const deployments = await this.mgmt.get(`/apis/apps/v1/deployments?labelSelector=${encodeURIComponent('app.kubernetes.io/name=proxmox-csi-plugin')}`);
    if (deployments.status !== 200) return;
    for (const d of deployments.body.items as Obj[]) {
      if (d.metadata.name !== CONTROLLER) continue;
      const ns = d.metadata.namespace as string;
      let csi: TenantCsi | undefined;
      try {
        csi = await this.controllerPod(d);
        await this.kubelets(csi);
        await this.provision(csi);
        await this.attach(csi);
        await this.reclaim(csi);
        this.errors.delete(ns);
      } catch (e) {
        const m = (e as Error).message;
        if (this.errors.get(ns) !== m) this.log(`proxmox-csi ${ns}: ${m}`);
        this.errors.set(ns, m);
      } finally {
        csi?.tenant.close();
      }
    }
  }

  private note(ns: string, what: string, detail: string): void {
    this.events.push({ namespace: ns, what, detail });
    this.log(`proxmox-csi ${ns}: ${what} ${detail}`);
  }

  /** What the controller pod would mount: its cloud config, token files and the tenant kubeconfig. */
  private async controllerPod(d: Obj): Promise<TenantCsi> {
    const ns = d.metadata.namespace as string;
    const spec = d.spec.template.spec;
    const volumes = new Map<string, Obj>((spec.volumes ?? []).map((v: Obj) => [v.name, v]));
    const plugin = spec.containers.find((c: Obj) => c.name === CONTROLLER);
    if (!plugin) throw new Error(`Deployment ${ns}/${CONTROLLER} has no container ${CONTROLLER}`);
    const mounts = (plugin.volumeMounts ?? []) as { name: string; mountPath: string }[];
    const flag = (c: Obj, name: string) => ((c.args ?? []) as string[]).find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
    /** The content of a file the container reads, from the volume mounted over it. */
    const readFile = async (path: string): Promise<string> => {
      const m = mounts.filter((x) => path.startsWith(`${x.mountPath}/`)).sort((a, b) => b.mountPath.length - a.mountPath.length)[0];
      if (!m) throw new Error(`${path}: no volume mounted there`);
      const v = volumes.get(m.name);
      const key = path.slice(m.mountPath.length + 1);
      if (v?.configMap) {
        const cm = await this.mgmt.get(`/api/v1/namespaces/${ns}/configmaps/${v.configMap.name}`);
        if (cm.status !== 200) throw new Error(`the pod cannot start: configmap "${v.configMap.name}" not found`);
        return cm.body.data?.[key] ?? '';
      }
      if (v?.secret) {
        const item = ((v.secret.items ?? []) as { key: string; path: string }[]).find((i) => i.path === key);
        const s = await this.mgmt.get(`/api/v1/namespaces/${ns}/secrets/${v.secret.secretName}`);
        if (s.status !== 200) throw new Error(`the pod cannot start: secret "${v.secret.secretName}" not found`);
        return Buffer.from(s.body.data?.[item?.key ?? key] ?? '', 'base64').toString('utf8');
      }
      throw new Error(`${path}: volume ${m.name} is neither a ConfigMap nor a Secret`);
    };
    const config = parse(await readFile(flag(plugin, 'cloud-config') ?? '')) as Obj;
    const proxmox = new Map<string, PveClientT>();
    const tokenIds = new Map<string, string>();
    for (const c of config.clusters ?? []) {
      const id = (await readFile(c.token_id_file)).trim();
      const secret = (await readFile(c.token_secret_file)).trim();
      proxmox.set(c.region, new PveClient(String(c.url).replace(/api2\/json\/?$/, ''), `${id}=${secret}`));
      tokenIds.set(c.region, id);
    }
    const tenant = clientFromKubeconfig(await readFile(flag(plugin, 'kubeconfig') ?? ''));
    return { namespace: ns, tenant, proxmox, tokenIds, controllerVmId: Number(config.features?.controllerVmID ?? 0) };
  }

  /** The kubelets' part (top of file): CSINode, the attach-detach annotation, SystemUUID, Pods and volumesInUse. */
  private async kubelets(csi: TenantCsi): Promise<void> {
    const t = csi.tenant;
    const ds = await t.get('/apis/apps/v1/namespaces/csi-proxmox/daemonsets/proxmox-csi-plugin-node');
    if (ds.status !== 200) return; // the node plugin is not in the tenant cluster (yet): no driver registers
    const nodes = (await t.get('/api/v1/nodes')).body.items as Obj[];
    const pods = ((await t.get('/api/v1/pods')).body.items as Obj[]).filter((p) => p.spec.nodeName);
    const pvs = new Map<string, Obj>(((await t.get('/api/v1/persistentvolumes')).body.items as Obj[]).map((p) => [p.metadata.name, p]));
    const pvcs = new Map<string, Obj>(
      ((await t.get('/api/v1/persistentvolumeclaims')).body.items as Obj[]).map((p) => [`${p.metadata.namespace}/${p.metadata.name}`, p]),
    );
    const uuidOf = new Map(this.vms().map((v) => [`proxmox://${v.uuid}`, v.uuid]));
    for (const node of nodes) {
      const name = node.metadata.name as string;
      const region = node.metadata.labels?.[REGION];
      const zone = node.metadata.labels?.[ZONE];
      // NodeGetInfo fails without region and zone (node.go): the registrar does not register the driver.
      if (!region || !zone) continue;
      const csiNode = await t.get(`/apis/storage.k8s.io/v1/csinodes/${name}`);
      const driver = { name: DRIVER, nodeID: name, topologyKeys: [REGION, ZONE] };
      if (csiNode.status === 404) {
        await t.post('/apis/storage.k8s.io/v1/csinodes', {
          apiVersion: 'storage.k8s.io/v1',
          kind: 'CSINode',
          metadata: { name, ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name, uid: node.metadata.uid }] },
          spec: { drivers: [driver] },
        });
      } else if (csiNode.status === 200 && !(csiNode.body.spec.drivers ?? []).some((x: Obj) => x.name === DRIVER)) {
        await t.request('PUT', `/apis/storage.k8s.io/v1/csinodes/${name}`, {
          ...csiNode.body,
          spec: { drivers: [...(csiNode.body.spec.drivers ?? []), driver] },
        });
      }
      const uuid = uuidOf.get(node.spec.providerID);
      if (node.metadata.annotations?.['volumes.kubernetes.io/controller-managed-attach-detach'] !== 'true')
        await t.request(
          'PATCH',
          `/api/v1/nodes/${name}`,
          { metadata: { annotations: { 'volumes.kubernetes.io/controller-managed-attach-detach': 'true' } } },
          'application/merge-patch+json',
        );
      // GetVolumesInUse: the CSI volumes of the Pods on this Node (unique name `kubernetes.io/csi/<driver>^<handle>`).
      const inUse = new Set<string>();
      const mine = pods.filter((p) => p.spec.nodeName === name && !['Succeeded', 'Failed'].includes(p.status?.phase));
      const podVolumes = new Map<Obj, string[]>();
      for (const p of mine) {
        const names: string[] = [];
        for (const v of p.spec.volumes ?? []) {
          if (!v.persistentVolumeClaim) continue;
          const pv = pvs.get(pvcs.get(`${p.metadata.namespace}/${v.persistentVolumeClaim.claimName}`)?.spec.volumeName ?? '');
          if (pv?.spec.csi?.driver !== DRIVER) {
            names.push('unbound');
            continue;
          }
          const unique = `kubernetes.io/csi/${DRIVER}^${pv.spec.csi.volumeHandle}`;
          names.push(unique);
          inUse.add(unique);
        }
        podVolumes.set(p, names);
      }
      const status = node.status ?? {};
      const have = [...(status.volumesInUse ?? [])].sort();
      const want = [...inUse].sort();
      if (JSON.stringify(have) !== JSON.stringify(want) || (uuid && status.nodeInfo?.systemUUID !== uuid))
        await t.request(
          'PATCH',
          `/api/v1/nodes/${name}/status`,
          { status: { volumesInUse: want, ...(uuid ? { nodeInfo: { ...(status.nodeInfo ?? {}), systemUUID: uuid } } : {}) } },
          'application/merge-patch+json',
        );
      const attached = new Set(((status.volumesAttached ?? []) as { name: string }[]).map((a) => a.name));
      for (const [p, names] of podVolumes) {
        if (p.status?.phase === 'Running' || p.metadata.deletionTimestamp) continue;
        if (names.length === 0 || names.some((n) => !attached.has(n))) continue; // WaitForAttachAndMount
        const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
        const r = await t.request(
          'PATCH',
          `/api/v1/namespaces/${p.metadata.namespace}/pods/${p.metadata.name}/status`,
          {
            status: {
              phase: 'Running',
              startTime: now,
              conditions: ['PodScheduled', 'Initialized', 'ContainersReady', 'Ready'].map((type) => ({ type, status: 'True', lastTransitionTime: now })),
              containerStatuses: p.spec.containers.map((c: Obj) => ({
                name: c.name,
                image: c.image,
                imageID: '',
                ready: true,
                restartCount: 0,
                started: true,
                state: { running: { startedAt: now } },
              })),
            },
          },
          'application/strategic-merge-patch+json',
        );
        if (r.status === 200) this.note(csi.namespace, 'pod running', `${p.metadata.namespace}/${p.metadata.name} on ${name} with ${names.join(', ')}`);
      }
    }
  }

  private client(csi: TenantCsi, region: string): PveClientT {
    const c = csi.proxmox.get(region);
    if (!c) throw new Error(`failed to get proxmox cluster ${region}`);
    return c;
  }

  /** csi-provisioner (top of file). */
  private async provision(csi: TenantCsi): Promise<void> {
    const t = csi.tenant;
    const classes = new Map<string, Obj>(((await t.get('/apis/storage.k8s.io/v1/storageclasses')).body.items as Obj[]).map((c) => [c.metadata.name, c]));
    for (const pvc of (await t.get('/api/v1/persistentvolumeclaims')).body.items as Obj[]) {
      const a = pvc.metadata.annotations ?? {};
      if (a['volume.kubernetes.io/storage-provisioner'] !== DRIVER || pvc.spec.volumeName || pvc.metadata.deletionTimestamp) continue;
      const cls = classes.get(pvc.spec.storageClassName);
      if (!cls) continue;
      const selected = a['volume.kubernetes.io/selected-node'];
      if (cls.volumeBindingMode === 'WaitForFirstConsumer' && !selected) continue;
      const pvName = `pvc-${pvc.metadata.uid}`;
      if ((await t.get(`/api/v1/persistentvolumes/${pvName}`)).status === 200) continue;
      const csiNode = await t.get(`/apis/storage.k8s.io/v1/csinodes/${selected}`);
      const keys = ((csiNode.body?.spec?.drivers ?? []) as Obj[]).find((d) => d.name === DRIVER)?.topologyKeys as string[] | undefined;
      if (csiNode.status !== 200 || !keys) throw new Error(`error generating accessibility requirements: no CSINode driver ${DRIVER} on ${selected}`);
      const node = (await t.get(`/api/v1/nodes/${selected}`)).body;
      const segment = Object.fromEntries(keys.map((k) => [k, node.metadata.labels?.[k]]));
      const request = String(pvc.spec.resources?.requests?.storage ?? '');
      const bytes = quantityBytes(request);
      const made = await createVolume(this.client(csi, segment[REGION]), {
        name: pvName,
        storage: cls.parameters?.storage,
        requiredBytes: bytes,
        region: segment[REGION],
        zone: segment[ZONE],
        controllerVmId: csi.controllerVmId,
      });
      // controller.go CreateVolume: AccessibleTopology = region and zone of the volume.
      const [region, zone] = [made.volumeId.split('/')[0], made.volumeId.split('/')[1]];
      const pv = {
        apiVersion: 'v1',
        kind: 'PersistentVolume',
        metadata: {
          name: pvName,
          annotations: {
            'pv.kubernetes.io/provisioned-by': DRIVER,
            'volume.kubernetes.io/provisioner-deletion-secret-name': '',
            'volume.kubernetes.io/provisioner-deletion-secret-namespace': '',
          },
          finalizers: [PV_FINALIZER],
        },
        spec: {
          accessModes: pvc.spec.accessModes,
          capacity: { storage: String(made.capacityBytes) },
          csi: {
            driver: DRIVER,
            volumeHandle: made.volumeId,
            fsType: cls.parameters?.['csi.storage.k8s.io/fstype'] ?? 'ext4',
            volumeAttributes: { ...cls.parameters, 'storage.kubernetes.io/csiProvisionerIdentity': `twin-${csi.namespace}` },
          },
          persistentVolumeReclaimPolicy: cls.reclaimPolicy ?? 'Delete',
          storageClassName: cls.metadata.name,
          volumeMode: pvc.spec.volumeMode ?? 'Filesystem',
          claimRef: {
            apiVersion: 'v1',
            kind: 'PersistentVolumeClaim',
            namespace: pvc.metadata.namespace,
            name: pvc.metadata.name,
            uid: pvc.metadata.uid,
            resourceVersion: pvc.metadata.resourceVersion,
          },
          nodeAffinity: {
            required: {
              nodeSelectorTerms: [{ matchExpressions: [REGION, ZONE].map((key) => ({ key, operator: 'In', values: [key === REGION ? region : zone] })) }],
            },
          },
        },
      };
      const r = await t.post('/api/v1/persistentvolumes', pv);
      if (r.status !== 201 && r.status !== 409) throw new Error(`creating PV ${pvName}: HTTP ${r.status}: ${r.body?.message ?? r.text}`);
      this.note(
        csi.namespace,
        'provisioned',
        `${pvc.metadata.namespace}/${pvc.metadata.name} → ${made.volumeId} (selected node ${selected}, token ${csi.tokenIds.get(region)})`,
      );
    }
  }

  /** csi-attacher (top of file). */
  private async attach(csi: TenantCsi): Promise<void> {
    const t = csi.tenant;
    for (const va of (await t.get('/apis/storage.k8s.io/v1/volumeattachments')).body.items as Obj[]) {
      if (va.spec.attacher !== DRIVER) continue;
      const name = va.metadata.name as string;
      const pvName = va.spec.source?.persistentVolumeName as string;
      const pv = (await t.get(`/api/v1/persistentvolumes/${pvName}`)).body;
      const handle = pv?.spec?.csi?.volumeHandle as string | undefined;
      const csiNode = (await t.get(`/apis/storage.k8s.io/v1/csinodes/${va.spec.nodeName}`)).body;
      const nodeId =
        ((csiNode?.spec?.drivers ?? []) as Obj[]).find((d) => d.name === DRIVER)?.nodeID ?? va.metadata.annotations?.['csi.alpha.kubernetes.io/node-id'];
      const vmidOf = async (region: string) => {
        const node = (await t.get(`/api/v1/nodes/${nodeId}`)).body;
        return findVmByUuid(this.client(csi, region), node?.status?.nodeInfo?.systemUUID);
      };
      if (va.metadata.deletionTimestamp) {
        if (!(va.metadata.finalizers ?? []).includes(ATTACHER_FINALIZER)) continue;
        if (handle) {
          const region = handle.split('/')[0];
          await unpublishVolume(this.client(csi, region), handle, await vmidOf(region));
          this.note(csi.namespace, 'detached', `${handle} from ${va.spec.nodeName}`);
        }
        await t.request('PATCH', `/apis/storage.k8s.io/v1/volumeattachments/${name}/status`, { status: { attached: false } }, 'application/merge-patch+json');
        await t.request(
          'PATCH',
          `/apis/storage.k8s.io/v1/volumeattachments/${name}`,
          { metadata: { finalizers: (va.metadata.finalizers as string[]).filter((f) => f !== ATTACHER_FINALIZER) } },
          'application/merge-patch+json',
        );
        continue;
      }
      if (va.status?.attached || !handle || !nodeId) continue;
      if (!(pv.metadata.finalizers ?? []).includes(ATTACHER_FINALIZER))
        await t.request(
          'PATCH',
          `/api/v1/persistentvolumes/${pvName}`,
          { metadata: { finalizers: [...(pv.metadata.finalizers ?? []), ATTACHER_FINALIZER] } },
          'application/merge-patch+json',
        );
      if (!(va.metadata.finalizers ?? []).includes(ATTACHER_FINALIZER))
        await t.request(
          'PATCH',
          `/apis/storage.k8s.io/v1/volumeattachments/${name}`,
          { metadata: { finalizers: [...(va.metadata.finalizers ?? []), ATTACHER_FINALIZER] } },
          'application/merge-patch+json',
        );
      const region = handle.split('/')[0];
      const vmid = await vmidOf(region);
      const published = await publishVolume(this.client(csi, region), handle, vmid);
      const r = await t.request(
        'PATCH',
        `/apis/storage.k8s.io/v1/volumeattachments/${name}/status`,
        { status: { attached: true, attachmentMetadata: { DevicePath: published.devicePath, lun: String(published.lun) } } },
        'application/merge-patch+json',
      );
      if (r.status !== 200) throw new Error(`VolumeAttachment ${name} status: HTTP ${r.status}: ${r.body?.message ?? r.text}`);
      this.note(csi.namespace, 'attached', `${handle} to ${va.spec.nodeName} (VM ${vmid}, scsi${published.lun})`);
    }
  }

  /** csi-provisioner's delete of a Released PV with reclaim policy Delete (top of file). */
  private async reclaim(csi: TenantCsi): Promise<void> {
    const t = csi.tenant;
    const vas = (await t.get('/apis/storage.k8s.io/v1/volumeattachments')).body.items as Obj[];
    for (const pv of (await t.get('/api/v1/persistentvolumes')).body.items as Obj[]) {
      if (pv.metadata.annotations?.['pv.kubernetes.io/provisioned-by'] !== DRIVER) continue;
      if (pv.metadata.deletionTimestamp) {
        // csi-attacher csi_handler.go SyncNewOrUpdatedPersistentVolume: a deleted PV no
        // VolumeAttachment names loses the attacher's finalizer.
        const named = vas.some((va) => va.spec.source?.persistentVolumeName === pv.metadata.name);
        if (!named && (pv.metadata.finalizers ?? []).includes(ATTACHER_FINALIZER))
          await t.request(
            'PATCH',
            `/api/v1/persistentvolumes/${pv.metadata.name}`,
            { metadata: { finalizers: (pv.metadata.finalizers as string[]).filter((f) => f !== ATTACHER_FINALIZER) } },
            'application/merge-patch+json',
          );
        continue;
      }
      if (pv.status?.phase !== 'Released' || pv.spec.persistentVolumeReclaimPolicy !== 'Delete') continue;
      const handle = pv.spec.csi.volumeHandle as string;
      await deleteVolume(this.client(csi, handle.split('/')[0]), handle);
      await t.request(
        'PATCH',
        `/api/v1/persistentvolumes/${pv.metadata.name}`,
        { metadata: { finalizers: (pv.metadata.finalizers ?? []).filter((f: string) => f !== PV_FINALIZER) } },
        'application/merge-patch+json',
      );
      await t.delete(`/api/v1/persistentvolumes/${pv.metadata.name}`);
      this.note(csi.namespace, 'deleted', handle);
    }
  }
}

/** pool.go FindVMByUUID: the qemu resource whose config's `smbios1` uuid is the Node's SystemUUID. */
export async function findVmByUuid(client: PveClientT, uuid: string | undefined): Promise<number> {
  if (!uuid) throw new Error('the Node has no status.nodeInfo.systemUUID');
  const res = await client.call<{ vmid?: number; node: string; type: string }[]>('GET', '/cluster/resources', { type: 'vm' });
  if (res.status !== 200) throw new Error(`failed to list VMs: ${res.status} ${res.reason}`);
  for (const r of res.data) {
    if (r.type !== 'qemu' || r.vmid === undefined) continue;
    const cfg = await client.call<Record<string, string>>('GET', `/nodes/${r.node}/qemu/${r.vmid}/config`);
    if (cfg.status !== 200) continue;
    if (/(?:^|,)uuid=([^,]+)/.exec(cfg.data.smbios1 ?? '')?.[1] === uuid) return r.vmid;
  }
  throw new Error(`instance not found: no VM has SMBIOS uuid ${uuid}`);
}

/** A resource quantity (Gi, Mi, Ki, G, M or plain bytes) in bytes. */
export function quantityBytes(q: string): number {
  const m = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|K|M|G|T)?$/.exec(q);
  if (!m) throw new Error(`unsupported quantity ${q}`);
  const mult: Record<string, number> = { Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, Ti: 1024 ** 4, K: 1e3, M: 1e6, G: 1e9, T: 1e12 };
  return Math.round(Number(m[1]) * (m[2] ? mult[m[2]] : 1));
}
