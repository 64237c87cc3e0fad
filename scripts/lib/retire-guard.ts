/**
 * Deploy's retire guard (surge, then retire; docs/tenants.md): the retire step — the description
 * without `previous`, or in a staged surge the step's node groups out of `previous.stage` — drops
 * a node group's old machine deployments while its new ones carry the pool on (held-back groups are
 * unchanged, so each staged retire is checked for its own groups). Deploy applies it only when every carried machine deployment is Ready in the management
 * cluster, read live through the management kubeconfig (`management.kubernetes.configPath`,
 * `context`), or when the operator says so explicitly with `--phase retire`.
 *
 * What is compared: the topology machine deployments of the tenant stacks in the output directory
 * before this deploy synthesizes (what was deployed last) and after (modules/tenants/replaced.ts,
 * `retiredGroups`). What "Ready" is, read from the pinned CAPI v1.12 (kubernetes-sigs/cluster-api,
 * api/core/v1beta2/machinedeployment_types.go): the MachineDeployment the topology controller made
 * for the name (label `topology.cluster.x-k8s.io/deployment-name`, api/core/v1beta2/common_types.go
 * `ClusterTopologyMachineDeploymentNameLabel`, with `cluster.x-k8s.io/cluster-name`) exists, its
 * controller has seen its latest spec (`status.observedGeneration` ≥ `metadata.generation`), and
 * `status.readyReplicas` — Machines whose Ready condition is true, which needs their Node healthy —
 * is at least `spec.replicas` and at least 1. For an autoscaled pool also the pool's current size:
 * the new machine deployments of a node group must hold as many Ready machines as the old ones run
 * (their live `spec.replicas`, the autoscaler's), since CAPI starts a new autoscaled
 * MachineDeployment at its min-size annotation (CAPI v1.13.6 internal/webhooks/machinedeployment.go,
 * `calculateMachineDeploymentReplicas`), not at the old one's size; and their live min-size
 * annotation must be at least that too, or the autoscaler may scale them down (their Nodes carry no
 * Pods yet) before or during the retire. That min comes from the description's
 * `autoscaling.floor` (modules/tenants/floor.ts, with the upstream code it rests on); the refusal
 * names the entry to add, never a `kubectl scale` (which the autoscaler's scale-down undoes).
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import type { Lab } from '../../modules/config/schema';
import { retiredGroups, type RenderedMachineDeployment } from '../../modules/tenants/replaced';
import { AUTOSCALER_MIN } from '../../modules/tenants/machine-deployments';
import { KubeClient } from './kube-apiserver';
import { kubeconfigEntries } from './kubeconfig';
import { UserError } from './cli';

export interface RetireStep {
  tenant: string;
  namespace: string;
  cluster: string;
  /** The old machine deployments the deploy drops. */
  retired: string[];
  /** The new ones that carry their pools on (each must be Ready). */
  carried: string[];
  /** Per node group of an autoscaled pool: the new ones must hold as many Ready machines as the old ones have now, and have a min size of that. */
  autoscaled: { pool: string; instance: string; node: string; retired: string[]; carried: string[] }[];
}

/** The retire steps in a change: per tenant, the machine deployments dropped and those that must be Ready first. */
export function retireSteps(before: readonly RenderedMachineDeployment[], after: readonly RenderedMachineDeployment[]): RetireStep[] {
  const steps = new Map<string, RetireStep>();
  for (const g of retiredGroups(before, after)) {
    const carried = g.after.filter((a) => g.before.some((b) => b.name === a.name));
    const first = carried[0] ?? g.after[0];
    const step = steps.get(g.tenant) ?? { tenant: g.tenant, namespace: first.namespace, cluster: first.cluster, retired: [], carried: [], autoscaled: [] };
    step.retired.push(...g.retired);
    step.carried.push(...carried.map((m) => m.name));
    // A topology machine deployment without replicas is the autoscaler's (modules/tenants/cluster.ts).
    if (carried.some((m) => m.replicas === undefined))
      step.autoscaled.push({ pool: g.pool, instance: g.instance, node: g.node, retired: [...g.retired].sort(), carried: carried.map((m) => m.name).sort() });
    steps.set(g.tenant, step);
  }
  return [...steps.values()].map((s) => ({ ...s, retired: [...new Set(s.retired)].sort(), carried: [...new Set(s.carried)].sort() }));
}

/** Where the pool's floor goes in the description: `tenants[i].pools[j].autoscaling.floor` (by name when the lab is not known). */
function floorPath(lab: Lab | undefined, step: RetireStep, pool: string): string {
  const ti = lab?.tenants.findIndex((t) => t.name === step.tenant) ?? -1;
  const pi = ti < 0 ? -1 : lab!.tenants[ti].pools.findIndex((p) => p.name === pool);
  return ti < 0 || pi < 0 ? `autoscaling.floor of tenant ${step.tenant}'s pool ${pool}` : `tenants[${ti}].pools[${pi}].autoscaling.floor`;
}

type LiveMachineDeployment = {
  metadata?: { name?: string; generation?: number; annotations?: Record<string, string> };
  spec?: { replicas?: number };
  status?: { observedGeneration?: number; readyReplicas?: number };
};

/** The live MachineDeployments CAPI made for one topology name of a Cluster, or the server's answer when it is not 200. */
async function live(client: KubeClient, step: RetireStep, name: string): Promise<LiveMachineDeployment[] | string> {
  const selector = encodeURIComponent(`cluster.x-k8s.io/cluster-name=${step.cluster},topology.cluster.x-k8s.io/deployment-name=${name}`);
  const r = await client.get(`/apis/cluster.x-k8s.io/v1beta2/namespaces/${encodeURIComponent(step.namespace)}/machinedeployments?labelSelector=${selector}`);
  if (r.status !== 200) return `the management cluster answered HTTP ${r.status} (${r.body?.message ?? r.text})`;
  return (r.body?.items ?? []) as LiveMachineDeployment[];
}

/** Why each carried machine deployment is not Ready yet (empty when the retire step may go). */
export async function notReady(client: KubeClient, step: RetireStep, lab?: Lab): Promise<string[]> {
  const out: string[] = [];
  for (const name of step.carried) {
    const items = await live(client, step, name);
    if (typeof items === 'string') {
      out.push(`${name}: ${items}`);
      continue;
    }
    if (items.length === 0) {
      out.push(`${name}: no MachineDeployment in namespace ${step.namespace} yet (the surge step is not deployed, or CAPI has not made it)`);
      continue;
    }
    for (const md of items) {
      const want = md.spec?.replicas ?? 0;
      const ready = md.status?.readyReplicas ?? 0;
      if ((md.status?.observedGeneration ?? 0) < (md.metadata?.generation ?? 0)) out.push(`${name}: its controller has not observed its latest spec yet`);
      else if (ready < Math.max(want, 1)) out.push(`${name}: ${ready} of ${want} machines Ready`);
    }
  }
  // An autoscaled pool keeps its current size: the old machine deployments' live replicas (the
  // autoscaler's). The new ones must hold that many Ready machines and have a min-size annotation of
  // at least that (the description's autoscaling.floor, modules/tenants/floor.ts), or the
  // autoscaler may take them below it once they look unneeded, before or during the retire.
  for (const g of step.autoscaled) {
    const sum = async (names: string[], field: (m: LiveMachineDeployment) => number) => {
      let n = 0;
      for (const name of names) {
        const items = await live(client, step, name);
        if (typeof items !== 'string') n += items.reduce((x, m) => x + field(m), 0);
      }
      return n;
    };
    const size = await sum(g.retired, (m) => m.spec?.replicas ?? 0);
    const min = await sum(g.carried, (m) => Number.parseInt(m.metadata?.annotations?.[AUTOSCALER_MIN] ?? '0', 10) || 0);
    const ready = await sum(g.carried, (m) => m.status?.readyReplicas ?? 0);
    const replicas = await sum(g.carried, (m) => m.spec?.replicas ?? 0);
    const pool = `autoscaled pool ${g.pool} on ${g.instance}/${g.node}: the old machine deployments run ${size} machines`;
    if (min < size) {
      out.push(
        `${pool}, the new ones' min size is ${min} (so the autoscaler may take them below ${size}) — ` +
          `set ${floorPath(lab, step, g.pool)}: { ${g.instance}/${g.node}: ${size} } in the description, keep it in this retire step, ` +
          `deploy the surge step (with previous) with it, then this one once the new ones hold ${size} Ready; remove the floor after the retire`,
      );
    } else if (ready < size) {
      out.push(
        `${pool}, the new ones (min size ${min}) have ${ready} Ready` +
          (replicas < size
            ? ` of ${replicas}: CAPI sets a MachineDeployment's replicas from its min size only when it makes it (the floor came later); ` +
              `the autoscaler grows it when Pods need the room and no longer takes it below ${min}`
            : ` — wait for them`),
      );
    }
  }
  return out;
}

/** A client for the management cluster from the lab's kubeconfig (client certificate or bearer token). */
export function managementClient(lab: Lab): KubeClient {
  const access = lab.management.kubernetes;
  if (!('configPath' in access)) {
    throw new UserError(
      `the retire step needs the management cluster's MachineDeployments, and management.kubernetes gives a host (its token is Terraform's)\n  fix: pass --phase retire once kubectl get machinedeployments shows every new one Ready (docs/tenants.md, "Surge, then retire")`,
    );
  }
  const path = resolve(access.configPath.replace(/^~(?=$|\/)/, homedir()));
  const fail = (why: string) =>
    new UserError(
      `the retire step needs the management cluster's MachineDeployments, and the kubeconfig ${access.configPath} ${why}\n  fix: make it readable, or pass --phase retire once every new machine deployment is Ready (docs/tenants.md, "Surge, then retire")`,
    );
  const { contextName, context, cluster, user } = kubeconfigEntries(() => readFileSync(path, 'utf8'), access.context, fail);
  if (!context || !cluster?.server) throw fail(`has no context ${contextName ?? '(none current)'} with a cluster server`);
  const data = (inline: unknown, file: unknown) =>
    typeof inline === 'string'
      ? Buffer.from(inline, 'base64').toString('utf8')
      : typeof file === 'string'
        ? readFileSync(resolve(file.replace(/^~(?=$|\/)/, homedir())), 'utf8')
        : undefined;
  if (user.exec || user['auth-provider']) throw fail('authenticates through a plugin, which deploy does not run');
  return new KubeClient(
    cluster.server,
    {
      ca: data(cluster['certificate-authority-data'], cluster['certificate-authority']),
      cert: data(user['client-certificate-data'], user['client-certificate']),
      key: data(user['client-key-data'], user['client-key']),
    },
    typeof user.token === 'string' ? user.token : undefined,
  );
}

/**
 * Refuses the retire steps whose new machine deployments are not all Ready (live), with what to
 * wait for; returns the lines to print for those that may go. `phase` 'retire': the operator
 * checked, nothing is read.
 */
export async function guardRetire(lab: Lab, steps: RetireStep[], phase: string | undefined, client?: KubeClient): Promise<string[]> {
  if (steps.length === 0) return [];
  const what = (s: RetireStep) => `tenant ${s.tenant}: retires ${s.retired.join(', ')} (the new ${s.carried.join(', ')} carry the pools on)`;
  if (phase === 'retire') return steps.map((s) => `${what(s)} — --phase retire: not checked live`);
  const kube = client ?? managementClient(lab);
  const lines: string[] = [];
  const refused: string[] = [];
  try {
    for (const s of steps) {
      let why: string[];
      try {
        why = await notReady(kube, s, lab);
      } catch (e) {
        why = [`the management cluster cannot be read: ${(e as Error).message}`];
      }
      if (why.length > 0) refused.push(`${what(s)}, but not every new machine deployment is Ready: ${why.join('; ')}`);
      else lines.push(`${what(s)} — every new machine deployment Ready`);
    }
  } finally {
    if (!client) kube.close();
  }
  if (refused.length > 0) {
    throw new UserError(
      `the retire step would drop old machine deployments before the new ones are Ready:\n  ${refused.join('\n  ')}\n  fix: wait until kubectl -n <tenant namespace> get machinedeployments shows READY = REPLICAS for the new ones and deploy again (an autoscaled pool: with the floor named above; or keep previous); --phase retire skips this check`,
    );
  }
  return lines;
}
