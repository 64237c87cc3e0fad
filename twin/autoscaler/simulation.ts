/**
 * The cluster-autoscaler's simulation, played (pure functions): quantities and pod requests, the
 * fit predicates, the binpacking estimator, node utilization and the scale-down timing rules
 * (unneeded since, cooldown). Each rule cites its file.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an unstructured Kubernetes object read by path, as the controller reads it
export type Obj = Record<string, any>;
export type Resources = { cpu: number; memory: number; pods: number };

/** A Kubernetes quantity as a number (cpu in cores, memory in bytes). */
export function quantity(q: unknown): number {
  if (q === undefined || q === null || q === '') return 0;
  const s = String(q);
  const m = /^(\d+(?:\.\d+)?)(m|k|Ki|M|Mi|G|Gi|T|Ti)?$/.exec(s);
  if (!m) throw new Error(`quantities must match the regular expression: ${s}`);
  const mult: Record<string, number> = { '': 1, m: 0.001, k: 1e3, Ki: 1024, M: 1e6, Mi: 1024 ** 2, G: 1e9, Gi: 1024 ** 3, T: 1e12, Ti: 1024 ** 4 };
  return Number(m[1]) * mult[m[2] ?? ''];
}

export function podRequests(pod: Obj): Resources {
  const sum = { cpu: 0, memory: 0, pods: 1 };
  for (const c of pod.spec?.containers ?? []) {
    sum.cpu += quantity(c.resources?.requests?.cpu);
    sum.memory += quantity(c.resources?.requests?.memory);
  }
  return sum;
}

export interface SimNode {
  name: string;
  labels: Record<string, string>;
  taints: { key: string; value?: string; effect: string }[];
  allocatable: Resources;
  used: Resources;
}

/** The predicates the simulation checks (resources, nodeSelector, taints). */
export function fits(pod: Obj, node: SimNode): boolean {
  const r = podRequests(pod);
  if (
    node.used.cpu + r.cpu > node.allocatable.cpu + 1e-9 ||
    node.used.memory + r.memory > node.allocatable.memory ||
    node.used.pods + 1 > node.allocatable.pods
  )
    return false;
  for (const [k, v] of Object.entries((pod.spec?.nodeSelector ?? {}) as Record<string, string>)) if (node.labels[k] !== v) return false;
  const tolerations = (pod.spec?.tolerations ?? []) as { key?: string; operator?: string; value?: string; effect?: string }[];
  for (const t of node.taints) {
    if (t.effect !== 'NoSchedule' && t.effect !== 'NoExecute') continue;
    const tolerated = tolerations.some(
      (x) =>
        (x.effect === undefined || x.effect === '' || x.effect === t.effect) &&
        (x.operator === 'Exists' ? x.key === undefined || x.key === t.key : x.key === t.key && (x.value ?? '') === (t.value ?? '')),
    );
    if (!tolerated) return false;
  }
  return true;
}

export function place(pod: Obj, node: SimNode): void {
  const r = podRequests(pod);
  node.used = { cpu: node.used.cpu + r.cpu, memory: node.used.memory + r.memory, pods: node.used.pods + 1 };
}

/** estimator/binpacking_estimator.go Estimate: new template nodes holding pods, at most `limit`. */
export function estimate(pods: Obj[], template: () => SimNode, limit: number): { count: number; pods: string[] } {
  const added: SimNode[] = [];
  const withPods = new Set<SimNode>();
  const placed: string[] = [];
  let last: SimNode | undefined;
  for (const pod of pods) {
    // tryToScheduleOnExistingNodes: the new nodes added so far.
    const existing = added.find((n) => fits(pod, n));
    if (existing) {
      place(pod, existing);
      withPods.add(existing);
      placed.push(pod.metadata.name);
      continue;
    }
    // tryToScheduleOnNewNodes.
    if (last && !withPods.has(last)) break;
    if (added.length >= limit) break;
    last = { ...template(), name: `template-${added.length}` };
    added.push(last);
    if (!fits(pod, last)) break;
    place(pod, last);
    withPods.add(last);
    placed.push(pod.metadata.name);
  }
  return { count: withPods.size, pods: placed };
}

/** decreasing_pod_orderer.go calculatePodScore: cpu share plus memory share of the template (here of the requests alone: one template per group). */
export function score(pod: Obj): number {
  const r = podRequests(pod);
  return r.cpu + r.memory / 1024 ** 3;
}

export function isDaemonSetPod(p: Obj): boolean {
  return (p.metadata.ownerReferences ?? []).some((o: Obj) => o.kind === 'DaemonSet');
}

export function isMirrorPod(p: Obj): boolean {
  return Boolean(p.metadata.annotations?.['kubernetes.io/config.mirror']);
}

/**
 * `simulator/utilization/info.go` Calculate (1.34.5, 1.35.2 and 1.36.1: unchanged): the larger of the cpu and memory
 * requests of the Node's pods in the snapshot over its allocatable. DaemonSet and mirror pods count
 * unless `--ignore-daemonsets-utilization` / `--ignore-mirror-pods-utilization` (both false by
 * default, `config/flags/flags.go`); a skipped pod's requests leave allocatable too
 * (CalculateUtilizationOfResource).
 */
export function nodeUtilization(pods: Obj[], allocatable: { cpu: number; memory: number }, skip: { daemonSets: boolean; mirror: boolean }): number {
  const skipped = (p: Obj) => (skip.daemonSets && isDaemonSetPod(p)) || (skip.mirror && isMirrorPod(p));
  const sum = (ps: Obj[]) => ps.reduce((s, p) => ({ cpu: s.cpu + podRequests(p).cpu, memory: s.memory + podRequests(p).memory }), { cpu: 0, memory: 0 });
  const used = sum(pods.filter((p) => !skipped(p)));
  const off = sum(pods.filter(skipped));
  return Math.max(allocatable.cpu ? used.cpu / (allocatable.cpu - off.cpu) : 0, allocatable.memory ? used.memory / (allocatable.memory - off.memory) : 0);
}

/**
 * `core/scaledown/unneeded/nodes.go` updateInternalState: the unneeded nodes of this loop; one that
 * was unneeded in the loop before keeps its `since`, a new one starts at the loop's currentTime, and
 * one no longer unneeded is forgotten (its time starts over when it is unneeded again).
 */
export function updateUnneeded(since: ReadonlyMap<string, number>, unneeded: readonly string[], now: number): Map<string, number> {
  return new Map(unneeded.map((name) => [name, since.get(name) ?? now]));
}

/**
 * `core/static_autoscaler.go` isScaleDownInCooldown (the global delays, `--scale-down-delay-type-local`
 * unset): no deletion within `--scale-down-delay-after-add` of a scale-up nor within
 * `--scale-down-delay-after-delete` of a deletion (`--scale-down-delay-after-failure` not modelled:
 * the played deletions do not fail).
 */
export function scaleDownInCooldown(
  now: number,
  last: { lastScaleUp: number; lastScaleDown: number },
  delay: { afterAdd: number; afterDelete: number },
): boolean {
  return last.lastScaleUp + delay.afterAdd > now || last.lastScaleDown + delay.afterDelete > now;
}
