/**
 * A tenant's bring-up split by who waits (issue 41 item 2), from what the real controllers wrote on
 * their objects: the seconds from its stack's apply starting to its first Ready Node, in the order
 * the parts hand over —
 *
 * 1. **OpenTofu**: the apply started → the Cluster exists (the stack's resources before it);
 * 2. **Kamaji**: the Cluster exists → its control plane is initialized (the Cluster's
 *    `ControlPlaneInitialized` condition, CAPI core mirrors the KamajiControlPlane's);
 * 3. **CAPI**: → the first worker Machine exists (topology controller, MachineDeployment, MachineSet);
 * 4. **bootstrap and CAPMOX**: → the Machine's first IPAddressClaim exists (the kubeadm bootstrap
 *    provider writes the Machine's join data, which an infrastructure provider waits for by the
 *    Cluster API contract; then CAPMOX reconciles the ProxmoxMachine, made with the Machine, and
 *    claims its addresses);
 * 5. **IPAM**: → the last IPAddress of the Machine's claims exists (in-cluster IPAM allocates);
 * 6. **CAPMOX clone and start**: → the Machine's `InfrastructureReady` is True (the VM cloned,
 *    configured and started, its ProxmoxMachine ready);
 * 7. **kubelet join**: → the Machine's `NodeReady` is True (the VM boots, kubeadm joins, the Node
 *    is Ready; in the twin the played kubelet).
 *
 * The first Ready Node is the worker Machine whose `NodeReady` turned True first. Object times are
 * the API server's (creationTimestamp, lastTransitionTime: whole seconds), so each phase is good to
 * about a second; a phase that the times put below 0 (two events in one second) is 0.
 */

/** The fields read of the objects (v1beta2 CAPI, ipam.cluster.x-k8s.io v1beta2). */
interface Meta {
  name: string;
  creationTimestamp?: string;
  labels?: Record<string, string>;
  ownerReferences?: { kind: string; name: string }[];
}
interface Condition {
  type: string;
  status: string;
  lastTransitionTime?: string;
}
export interface BringUpObjects {
  cluster?: { metadata: Meta; status?: { conditions?: Condition[] } };
  machines: { metadata: Meta; spec?: { infrastructureRef?: { name?: string } }; status?: { conditions?: Condition[] } }[];
  ipAddressClaims: { metadata: Meta; status?: { addressRef?: { name?: string } } }[];
  ipAddresses: { metadata: Meta }[];
}

export const BRING_UP_PHASES = ['OpenTofu', 'Kamaji', 'CAPI', 'bootstrap and CAPMOX', 'IPAM', 'CAPMOX clone and start', 'kubelet join'] as const;
export type BringUpPhase = (typeof BRING_UP_PHASES)[number];

export interface BringUpSplit {
  /** The worker Machine whose Node was Ready first. */
  machine: string;
  seconds: Record<BringUpPhase, number>;
  total: number;
}

const at = (t: string | undefined) => (t ? Date.parse(t) : NaN);
const since = (list: Condition[] | undefined, type: string) => at(list?.find((c) => c.type === type && c.status === 'True')?.lastTransitionTime);

/**
 * The split for one tenant, or why there is none (no Cluster, no Machine with a Ready Node, a time
 * missing). `applyStartMs`: when its stack's apply started (the caller's clock, milliseconds).
 */
export function bringUpSplit(applyStartMs: number, o: BringUpObjects): BringUpSplit | string {
  if (!o.cluster) return 'no Cluster';
  const workers = o.machines
    .filter((m) => !('cluster.x-k8s.io/control-plane' in (m.metadata.labels ?? {})))
    .map((m) => ({ m, ready: since(m.status?.conditions, 'NodeReady') }))
    .filter((x) => Number.isFinite(x.ready))
    .sort((a, b) => a.ready - b.ready || a.m.metadata.name.localeCompare(b.m.metadata.name));
  if (workers.length === 0) return 'no worker Machine with a Ready Node';
  const { m, ready } = workers[0];
  const infra = m.spec?.infrastructureRef?.name;
  const claims = o.ipAddressClaims.filter((c) => (c.metadata.ownerReferences ?? []).some((r) => r.kind === 'ProxmoxMachine' && r.name === infra));
  const addresses = claims.map((c) => o.ipAddresses.find((a) => a.metadata.name === c.status?.addressRef?.name));
  const marks = [
    applyStartMs,
    at(o.cluster.metadata.creationTimestamp),
    since(o.cluster.status?.conditions, 'ControlPlaneInitialized'),
    at(m.metadata.creationTimestamp),
    Math.min(...claims.map((c) => at(c.metadata.creationTimestamp))),
    addresses.every(Boolean) ? Math.max(...addresses.map((a) => at(a!.metadata.creationTimestamp))) : NaN,
    since(m.status?.conditions, 'InfrastructureReady'),
    ready,
  ];
  const missing = marks.findIndex((t) => !Number.isFinite(t));
  if (missing >= 0) return `${m.metadata.name}: no time for the end of ${BRING_UP_PHASES[missing - 1] ?? 'the apply start'}`;
  const seconds = Object.fromEntries(
    BRING_UP_PHASES.map((p, i) => [p, Math.max(0, Math.round((marks[i + 1] - Math.max(...marks.slice(0, i + 1))) / 100) / 10)]),
  ) as Record<BringUpPhase, number>;
  return { machine: m.metadata.name, seconds, total: Math.round((ready - applyStartMs) / 100) / 10 };
}
