/**
 * SIMULATED in the lab twin: the kubelets. No VM boots here, so for every running VM of the
 * Proxmox simulator that carries a bootstrap ISO (what CAPMOX uploaded and attached), this player
 * does what `kubeadm join` would decide, and only then what a kubelet does:
 *
 * - reads the cloud-init user-data CABPK rendered and CAPMOX delivered, and the kubeadm
 *   JoinConfiguration in it (`/run/kubeadm/kubeadm-join-config.yaml`);
 * - finds the tenant control plane by the join's `apiServerEndpoint` (the VIP) and runs kubeadm's
 *   token discovery on it (k8s.io/kubernetes cmd/kubeadm/app/discovery/token/token.go
 *   retrieveValidatedConfigInfo, v1.36.3): the `cluster-info` ConfigMap of kube-public must carry a
 *   `jws-kubeconfig-<token id>` signature (getClusterInfo: waited for, the tenant's real
 *   kube-controller-manager's bootstrapsigner writes it), the signature must be the token's HS256
 *   detached JWS over the ConfigMap's kubeconfig (validateClusterInfoToken with
 *   k8s.io/cluster-bootstrap/token/jws DetachedTokenIsValid), one of `caCertHashes` must pin the CA
 *   in that kubeconfig (validateClusterCA), and that CA must be the one the server serves with (the
 *   second, TLS-validated read); then that the bootstrap token authenticates (Secret
 *   `kube-system/bootstrap-token-<id>`, same secret, usable for authentication, not expired: the
 *   API server's bootstrap token authenticator at the TLS bootstrap);
 * - the kubelet's version, which is the Kubernetes version of the template the VM was cloned from
 *   (its `vX.Y.Z` tag, or the version in its name), must equal the Machine's `spec.version` (the
 *   contract CAPI's version field states: the machine runs that kubelet) and must not be newer than
 *   the control plane's (the version-skew policy: "kubelet must not be newer than
 *   kube-apiserver"). Stricter than kubeadm join here: its preflight KubeletVersionCheck compares
 *   with the control plane only on init (cmd/kubeadm/app/preflight/checks.go JoinNodeChecks passes
 *   no Kubernetes version to addCommonChecks); the message is that check's;
 * - registers the Node with the VM's `proxmox://<smbios uuid>` providerID and the IP of its
 *   network-config; Ready only once its cluster's CNI is installed (a HelmChartProxy in the
 *   Cluster's namespace selects the Cluster and the release deployed: caaph.ts), else NotReady with
 *   the kubelet's own "cni plugin not initialized" condition; Unknown while the VM is stopped, as the
 *   node lifecycle controller would after the kubelet stops posting.
 *
 * Wrong bootstrap data never becomes a Node: each refusal is kept with its reason.
 */
import { createHash, createHmac, timingSafeEqual, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join as joinPath } from 'node:path';
import { parse } from 'yaml';
import type { SimVmView } from '../sim/simulator';
import type { KubeClient } from '../scripts/lib/kube-apiserver';
import type { KamajiPlayer, TenantControlPlaneView } from './kamaji';

export interface JoinAttempt {
  instance: string;
  vmid: number;
  node?: string;
  /** Why the VM did not join, if it did not. */
  refused?: string;
}

interface JoinConfig {
  discovery?: { bootstrapToken?: { apiServerEndpoint?: string; token?: string; caCertHashes?: string[] } };
  nodeRegistration?: { name?: string; kubeletExtraArgs?: unknown };
}

/** The kubeadm JoinConfiguration in a cloud-config user-data, and the node name. */
export function joinConfigOf(userData: string): { join: JoinConfig; hostname?: string } {
  const cloudConfig = parse(userData) as { write_files?: { path: string; content: string }[]; hostname?: string } | null;
  const file = cloudConfig?.write_files?.find((f) => f.path === '/run/kubeadm/kubeadm-join-config.yaml');
  if (!file) throw new Error('the user-data holds no /run/kubeadm/kubeadm-join-config.yaml (not a kubeadm join)');
  return { join: parse(file.content) as JoinConfig, hostname: cloudConfig?.hostname };
}

/** `sha256:<hex>` of a certificate's SubjectPublicKeyInfo, as kubeadm's caCertHashes. */
export function caCertHash(pem: string): string {
  const spki = new X509Certificate(pem).publicKey.export({ type: 'spki', format: 'der' });
  return `sha256:${createHash('sha256').update(spki).digest('hex')}`;
}

/** The Node's state as its kubelet would post it. */
type NodeState = 'ready' | 'network-not-ready' | 'stopped';

/** Whether a Cluster's CNI is installed (the add-on player), and why not. */
export interface CniStatus {
  ready(namespace: string, cluster: string): boolean;
  waiting(namespace: string, cluster: string): string;
}

export class KubeletPlayer {
  /** Registered Nodes by `instance/vmid`. */
  readonly nodes = new Map<string, { name: string; cluster: string; namespace: string; uuid: string; state?: NodeState; ready: boolean }>();
  /** VMs that did not join, by `instance/vmid`, with the reason. */
  readonly refused = new Map<string, string>();
  /** The bootstrap data each joined VM had (CAPMOX removes the bootstrap ISO once the machine is up). */
  readonly joinedWith = new Map<string, NonNullable<SimVmView['bootstrap']>>();

  constructor(
    private readonly vms: () => SimVmView[],
    private readonly kamaji: KamajiPlayer,
    private readonly cni: CniStatus,
    private readonly log: (line: string) => void = () => {},
    /** Why nothing answers at a control plane's address yet (MetalLB has not assigned or announced it), or undefined. */
    private readonly unreachable: (plane: TenantControlPlaneView) => Promise<string | undefined> = async () => undefined,
    /** The `spec.version` of the Machine a VM stands for (its ProxmoxMachine is named like the VM), or undefined when there is none (yet). */
    private readonly machineVersion: (namespace: string, vm: SimVmView) => Promise<string | undefined> = async () => undefined,
  ) {}

  /** VMs whose join waits for the cluster-info signature of its token, by `instance/vmid` (kubeadm's discovery retries). */
  readonly discovering = new Map<string, string>();

  /** VMs whose kubelet cannot reach the control plane's address yet, by `instance/vmid`, with the reason (they retry). */
  readonly unreachableFrom = new Map<string, string>();

  private stateOf(vm: SimVmView, namespace: string, cluster: string): NodeState {
    if (vm.status !== 'running') return 'stopped';
    return this.cni.ready(namespace, cluster) ? 'ready' : 'network-not-ready';
  }

  /** The SMBIOS uuid of the VM each `instance/vmid` stood for when last seen. */
  private readonly seen = new Map<string, string | undefined>();

  async tick(): Promise<void> {
    const live = new Set<string>();
    for (const vm of this.vms()) {
      if (vm.template) continue;
      const key = `${vm.instance}/${vm.vmid}`;
      live.add(key);
      // Proxmox reuses a VM id once it is free: when the old VM was deleted and a new one created
      // with its id between two ticks (a remediation: CAPMOX deletes, then clones the replacement),
      // the id now stands for another machine. What the old VM's kubelet did is forgotten (its Node
      // is CAPI's to delete) and the new VM joins on its own: keeping the old entry would leave the
      // replacement without a Node for good (multi-instance remediation on pve-b, seen 2026-12-03).
      if (this.seen.has(key) && this.seen.get(key) !== vm.uuid) this.forget(key);
      this.seen.set(key, vm.uuid);
      const known = this.nodes.get(key);
      if (known) {
        const state = this.stateOf(vm, known.namespace, known.cluster);
        if (state !== known.state) await this.setReady(known, state);
        else if (state === 'ready' && !this.untainted.has(known.name)) {
          const plane = [...this.kamaji.planes.values()].find((p) => p.cluster === known.cluster && p.namespace === known.namespace);
          if (plane) await this.untaintNotReady(plane.server.client, known.name);
        }
        continue;
      }
      if (vm.status !== 'running' || !vm.bootstrap?.userData || this.refused.has(key)) continue;
      try {
        await this.join(key, vm);
      } catch (e) {
        const reason = (e as Error).message;
        // A control plane that is down for a moment (restarted, its datastore restored) refuses the
        // connection: kubeadm join retries until its timeout, so does the player.
        if (/not yet|retry|ECONNREFUSED|ECONNRESET|socket hang up/.test(reason)) continue;
        this.refused.set(key, reason);
        this.log(`kubelet ${key}: NOT joined: ${reason}`);
      }
    }
    // A VM deleted in Proxmox: its kubelet is gone; the Node stays until CAPI deletes it (it drains and deletes Nodes of deleted Machines).
    for (const key of [...this.nodes.keys()]) if (!live.has(key)) this.nodes.delete(key);
    for (const key of [...this.joinedWith.keys()]) if (!live.has(key)) this.joinedWith.delete(key);
    for (const key of [...this.refused.keys()]) if (!live.has(key)) this.refused.delete(key);
    for (const key of [...this.unreachableFrom.keys()]) if (!live.has(key)) this.unreachableFrom.delete(key);
    for (const key of [...this.discovering.keys()]) if (!live.has(key)) this.discovering.delete(key);
    for (const key of [...this.seen.keys()]) if (!live.has(key)) this.seen.delete(key);
  }

  private forget(key: string): void {
    this.nodes.delete(key);
    this.joinedWith.delete(key);
    this.refused.delete(key);
    this.unreachableFrom.delete(key);
    this.discovering.delete(key);
  }

  private async join(key: string, vm: SimVmView): Promise<void> {
    const { join, hostname } = joinConfigOf(vm.bootstrap!.userData!);
    const token = join.discovery?.bootstrapToken;
    if (!token?.token || !token.apiServerEndpoint) throw new Error('the JoinConfiguration has no bootstrap token discovery');
    const plane = [...this.kamaji.planes.values()].find((p) => p.endpoint === token.apiServerEndpoint);
    if (!plane) throw new Error(`no tenant control plane answers at ${token.apiServerEndpoint}`);
    // kubeadm join dials the endpoint: only an address a load balancer assigned and announces answers.
    const why = await this.unreachable(plane);
    if (why) {
      if (this.unreachableFrom.get(key) !== why) this.log(`kubelet ${key}: cannot reach ${token.apiServerEndpoint}: ${why}`);
      this.unreachableFrom.set(key, why);
      throw new Error(`${why} (retry)`);
    }
    this.unreachableFrom.delete(key);
    const tenant = plane.server.client;
    const [id, secret] = token.token.split('.');
    // kubeadm's token discovery (token.go retrieveValidatedConfigInfo).
    const info = await tenant.get('/api/v1/namespaces/kube-public/configmaps/cluster-info');
    const signature = info.status === 200 ? (info.body.data?.[`jws-kubeconfig-${id}`] as string | undefined) : undefined;
    if (!signature) {
      // getClusterInfo: "Even if the ConfigMap is available the JWS signature is patched-in a bit later": retried.
      const why =
        info.status === 200
          ? `could not find a JWS signature in the cluster-info ConfigMap for token ID "${id}"`
          : `failed to request the cluster-info ConfigMap: HTTP ${info.status}`;
      if (this.discovering.get(key) !== why) this.log(`kubelet ${key}: [discovery] ${why} (retrying)`);
      this.discovering.set(key, why);
      throw new Error(`${why} (retry)`);
    }
    this.discovering.delete(key);
    const insecureKubeconfig = String(info.body.data?.kubeconfig ?? '');
    if (!insecureKubeconfig)
      throw new Error("there is no kubeconfig key in the cluster-info ConfigMap. This API Server isn't set up for token bootstrapping, can't connect");
    if (!detachedTokenIsValid(signature, insecureKubeconfig, id, secret ?? ''))
      throw new Error("failed to verify JWS signature of received cluster info object, can't trust this API Server");
    const discoveredCa = clusterCaOf(insecureKubeconfig);
    const pinned = discoveredCa ? caCertHash(discoveredCa) : undefined;
    if (!pinned || !(token.caCertHashes ?? []).includes(pinned))
      throw new Error(
        `cluster CA found in cluster-info ConfigMap is invalid: none of the public keys "${pinned ?? '(no CA)'}" are pinned (caCertHashes: ${(token.caCertHashes ?? []).join(', ') || 'none'})`,
      );
    const found = await tenant.get(`/api/v1/namespaces/kube-system/secrets/bootstrap-token-${id}`);
    if (found.status === 404) throw new Error(`bootstrap token ${id} does not exist in the tenant API server of ${plane.cluster}`);
    if (found.status !== 200) throw new Error(`reading bootstrap token ${id}: HTTP ${found.status} (retry)`);
    const data = Object.fromEntries(
      Object.entries((found.body.data ?? {}) as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]),
    );
    if (data['token-secret'] !== secret) throw new Error(`bootstrap token ${id}: the secret does not match`);
    if (data['usage-bootstrap-authentication'] !== 'true') throw new Error(`bootstrap token ${id} is not usable for authentication`);
    if (data.expiration && Date.parse(data.expiration) < Date.now()) throw new Error(`bootstrap token ${id} expired at ${data.expiration}`);
    // The second read, TLS validated with the discovered CA: the server must serve with that CA.
    const expected = caCertHash(readFileSync(joinPath(plane.server.dir, 'ca.crt'), 'utf8'));
    if (pinned !== expected)
      throw new Error(`the cluster-info CA (${pinned}) is not the CA the API server at ${token.apiServerEndpoint} serves with (${expected})`);
    // The kubelet's version: the template's, equal to the Machine's spec.version, not newer than the control plane.
    const kubelet = this.kubeletVersion(vm);
    if (!kubelet)
      throw new Error(`the kubelet's version is unknown: the template the VM was cloned from (${vm.cloneOf ?? 'none'}) names no Kubernetes version`);
    const machine = await this.machineVersion(plane.namespace, vm);
    if (machine === undefined) throw new Error(`no Machine stands for VM ${vm.name ?? vm.vmid} yet (retry)`);
    if (machine !== kubelet)
      throw new Error(
        `the kubelet is ${kubelet} (the template the VM was cloned from) but its Machine's spec.version is ${machine}: the machine would run another Kubernetes than CAPI records`,
      );
    const controlPlane = plane.version;
    if (newerMinor(kubelet, controlPlane))
      throw new Error(
        `the kubelet version is higher than the control plane version. This is not a supported version skew and may lead to a malfunctional cluster. Kubelet version: "${kubelet}" Control plane version: "${controlPlane}"`,
      );
    if (!vm.uuid) throw new Error('the VM has no SMBIOS uuid, so no providerID');
    // cloud-init renders the jinja placeholders CABPK and the class leave in the join (## template: jinja).
    const meta = (parse(vm.bootstrap?.metaData ?? '') ?? {}) as Record<string, string>;
    const render = (text: string) =>
      text.replace(/\{\{\s*(?:ds\.meta_data\.|v1\.)?([a-z_-]+)\s*\}\}/g, (whole, key: string) => {
        const value = meta[key] ?? meta[key.replace(/_/g, '-')];
        if (value === undefined) throw new Error(`the join names ${whole}, which the VM's meta-data does not provide`);
        return String(value);
      });
    const name = render(String(join.nodeRegistration?.name ?? hostname ?? meta['local-hostname'] ?? vm.name ?? ''));
    if (!name) throw new Error('no node name (nodeRegistration.name, hostname, local-hostname or VM name)');
    const args = join.nodeRegistration?.kubeletExtraArgs;
    const providerArg = Array.isArray(args)
      ? (args as { name: string; value: string }[]).find((a) => a.name === 'provider-id')?.value
      : (args as Record<string, string> | undefined)?.['provider-id'];
    // CAPMOX's own class writes `proxmox://'{{ ds.meta_data.instance_id }}'`: the quotes are shell
    // quoting of kubeadm's flags file, gone by the time the kubelet reads its flag.
    const providerID = providerArg ? render(providerArg).replace(/'/g, '') : `proxmox://${vm.uuid}`;
    if (providerID !== `proxmox://${vm.uuid}`)
      throw new Error(
        `the kubelet would register providerID ${providerID}, but the VM is proxmox://${vm.uuid}: CAPI would never match the Node to its Machine`,
      );
    const address = addressOf(vm.bootstrap?.networkConfig);
    const node = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name, labels: { 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux' } },
      spec: { providerID },
    };
    const created = await tenant.post('/api/v1/nodes', node);
    if (created.status !== 201 && created.status !== 409)
      throw new Error(`registering Node ${name}: HTTP ${created.status}: ${created.body?.message ?? created.text} (retry)`);
    const entry = { name, cluster: plane.cluster, namespace: plane.namespace, uuid: vm.uuid, ready: false };
    this.nodes.set(key, entry);
    this.joinedWith.set(key, vm.bootstrap!);
    await this.setReady(entry, this.stateOf(vm, plane.namespace, plane.cluster), address, vm);
    this.log(`kubelet ${key}: Node ${name} joined ${plane.namespace}/${plane.cluster} (proxmox://${vm.uuid}${address ? `, ${address}` : ''})`);
  }

  /** The Kubernetes version of the template a VM was cloned from: its `vX.Y.Z` tag, or the `-vX-Y-Z` of its name. */
  private kubeletVersion(vm: SimVmView): string | undefined {
    const template = this.vms().find((t) => t.instance === vm.instance && t.vmid === vm.cloneOf && t.template);
    return template ? templateKubernetesVersion(template) : undefined;
  }

  private readonly untainted = new Set<string>();

  private async untaintNotReady(client: KubeClient, name: string): Promise<void> {
    if (await untaintNotReadyOn(client, name)) this.untainted.add(name);
  }

  private async setReady(
    entry: { name: string; namespace: string; cluster: string; state?: NodeState; ready: boolean },
    state: NodeState,
    address?: string,
    vm?: SimVmView,
  ): Promise<void> {
    const plane = [...this.kamaji.planes.values()].find((p) => p.cluster === entry.cluster && p.namespace === entry.namespace);
    if (!plane) return;
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const running = state !== 'stopped';
    // The four conditions a kubelet posts (and CAPI's NodeHealthy summarizes: a missing one is
    // "not yet reported", so the Machine never becomes Ready nor Available and a rolling update
    // never scales its old MachineSet down). A stopped VM: the node lifecycle controller marks all
    // four Unknown.
    const pressure = (type: string, reason: string) =>
      running
        ? {
            type,
            status: 'False',
            reason,
            message: `kubelet has no ${type.replace('Pressure', '').toLowerCase()} pressure (simulated by the lab twin)`,
            lastHeartbeatTime: now,
            lastTransitionTime: now,
          }
        : {
            type,
            status: 'Unknown',
            reason: 'NodeStatusUnknown',
            message: 'Kubelet stopped posting node status (the VM is stopped)',
            lastHeartbeatTime: now,
            lastTransitionTime: now,
          };
    // pkg/kubelet/nodestatus/setters.go ReadyCondition with the runtime's network error (k8s.io/kubernetes v1.34).
    const ready = {
      ready: { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status (simulated by the lab twin)' },
      'network-not-ready': {
        type: 'Ready',
        status: 'False',
        reason: 'KubeletNotReady',
        message: `container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized (lab twin: ${this.cni.waiting(entry.namespace, entry.cluster)})`,
      },
      stopped: { type: 'Ready', status: 'Unknown', reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status (the VM is stopped)' },
    }[state];
    const status: Record<string, unknown> = {
      conditions: [
        pressure('MemoryPressure', 'KubeletHasSufficientMemory'),
        pressure('DiskPressure', 'KubeletHasNoDiskPressure'),
        pressure('PIDPressure', 'KubeletHasSufficientPID'),
        { ...ready, lastHeartbeatTime: now, lastTransitionTime: now },
      ],
    };
    if (address)
      status.addresses = [
        { type: 'InternalIP', address },
        { type: 'Hostname', address: entry.name },
      ];
    // The machine's capacity as the kubelet reads it at registration (cAdvisor: cores × sockets,
    // memory; `--max-pods` default 110), allocatable the same (no reservations in the rendered
    // kubelet args). The kube-scheduler fits Pods against it.
    if (vm?.cores) {
      const capacity = { cpu: String(vm.cores * (vm.sockets ?? 1)), memory: `${vm.memoryMiB ?? 512}Mi`, pods: '110' };
      status.capacity = capacity;
      status.allocatable = capacity;
    }
    const r = await plane.server.client.request(
      'PATCH',
      `/api/v1/nodes/${encodeURIComponent(entry.name)}/status`,
      { status },
      'application/strategic-merge-patch+json',
    );
    if (r.status !== 200) throw new Error(`Node ${entry.name} status: HTTP ${r.status}: ${r.body?.message ?? r.text}`);
    if (state === 'ready') await this.untaintNotReady(plane.server.client, entry.name);
    if (entry.state !== state && state === 'network-not-ready')
      this.log(`kubelet: Node ${entry.name} NotReady: ${this.cni.waiting(entry.namespace, entry.cluster)}`);
    entry.state = state;
    entry.ready = state === 'ready';
  }
}

/**
 * The node lifecycle controller's NoSchedule pass for a Ready Node (k8s.io/kubernetes v1.34
 * `pkg/controller/nodelifecycle/node_lifecycle_controller.go` doNoScheduleTaintingPass): the API
 * server's TaintNodesByCondition admission put `node.kubernetes.io/not-ready:NoSchedule` on the
 * Node at registration, and that controller (in Kamaji's control plane pod) takes it away once the
 * kubelet reports Ready — else the kube-scheduler never places a Pod on it. Played here, since a
 * real kube-controller-manager would mark the played kubelets' Nodes Unknown (no heartbeats).
 */
async function untaintNotReadyOn(client: KubeClient, name: string): Promise<boolean> {
  const r = await client.get(`/api/v1/nodes/${encodeURIComponent(name)}`);
  if (r.status !== 200) return false;
  const taints = (r.body.spec?.taints ?? []) as { key: string; effect: string }[];
  const kept = taints.filter((t) => !(t.key === 'node.kubernetes.io/not-ready' && t.effect === 'NoSchedule'));
  if (kept.length === taints.length) return true;
  // A PUT with the read resourceVersion: a conflict (CAPI changed the Node) is retried next tick.
  return (await client.request('PUT', `/api/v1/nodes/${encodeURIComponent(name)}`, { ...r.body, spec: { ...r.body.spec, taints: kept } })).status === 200;
}

/** The Kubernetes version a template VM carries: a `vX.Y.Z` tag (the instance stack's templates) or a name ending `-vX-Y-Z` (a lab's existing templates). */
export function templateKubernetesVersion(template: Pick<SimVmView, 'tags' | 'name'>): string | undefined {
  const tag = template.tags.find((t) => /^v\d+\.\d+\.\d+$/.test(t));
  if (tag) return tag;
  const named = /-v(\d+)-(\d+)-(\d+)$/.exec(template.name ?? '');
  return named ? `v${named[1]}.${named[2]}.${named[3]}` : undefined;
}

/** Whether `a`'s major.minor is above `b`'s (checks.go KubeletVersionCheck: `Major() >` or `Minor() >`). */
export function newerMinor(a: string, b: string): boolean {
  const [am, an] = a.replace(/^v/, '').split('.').map(Number);
  const [bm, bn] = b.replace(/^v/, '').split('.').map(Number);
  return am > bm || an > bn;
}

const b64url = (data: Buffer | string) => Buffer.from(data).toString('base64url');

/**
 * k8s.io/cluster-bootstrap token/jws (v0.36.3) DetachedTokenIsValid: `detached` is the HS256 JWS of
 * `content` with the token secret as key and the token id as `kid` (ComputeDetachedSignature,
 * go-jose), its payload left out (`header..signature`, RFC 7515 appendix F). Verified here as a
 * JWS is: the protected header must say HS256 and the token id, and the signature must be the
 * HMAC-SHA256 of `header.payload`.
 */
export function detachedTokenIsValid(detached: string, content: string, tokenId: string, tokenSecret: string): boolean {
  const parts = detached.split('.');
  if (parts.length !== 3 || parts[1] !== '') return false;
  let header: { alg?: string; kid?: string };
  try {
    header = JSON.parse(Buffer.from(parts[0], 'base64url').toString('utf8')) as { alg?: string; kid?: string };
  } catch {
    return false;
  }
  if (header.alg !== 'HS256' || header.kid !== tokenId) return false;
  const expected = createHmac('sha256', tokenSecret)
    .update(`${parts[0]}.${b64url(content)}`)
    .digest();
  const given = Buffer.from(parts[2], 'base64url');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The JWS a bootstrapsigner writes for `content` (go-jose's compact form, payload left out): what DetachedTokenIsValid recomputes. */
export function computeDetachedSignature(content: string, tokenId: string, tokenSecret: string): string {
  const header = b64url(JSON.stringify({ alg: 'HS256', kid: tokenId }));
  return `${header}..${b64url(
    createHmac('sha256', tokenSecret)
      .update(`${header}.${b64url(content)}`)
      .digest(),
  )}`;
}

/** The CA certificate (PEM) of the one cluster of a cluster-info kubeconfig (clientcmd.Write's YAML), if any. */
function clusterCaOf(kubeconfig: string): string | undefined {
  const doc = parse(kubeconfig) as { clusters?: { cluster?: { 'certificate-authority-data'?: string } }[] } | null;
  const data = doc?.clusters?.[0]?.cluster?.['certificate-authority-data'];
  return data ? Buffer.from(data, 'base64').toString('utf8') : undefined;
}

/** The first static IPv4 address of a cloud-init network-config (v2), without its prefix. */
function addressOf(networkConfig?: string): string | undefined {
  if (!networkConfig) return undefined;
  const doc = parse(networkConfig) as {
    network?: { ethernets?: Record<string, { addresses?: string[] }> };
    ethernets?: Record<string, { addresses?: string[] }>;
  } | null;
  const ethernets = doc?.network?.ethernets ?? doc?.ethernets ?? {};
  for (const eth of Object.values(ethernets)) for (const a of eth.addresses ?? []) if (!a.includes(':')) return a.split('/')[0];
  return undefined;
}
