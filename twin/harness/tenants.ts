/**
 * The players the twin runs, and each tenant as the controllers see it beside its placement plan
 * (`tenant`, `waitConverged`), with the diagnostics of a wait that timed out. The third layer of
 * LabTwin (twin/index.ts).
 */
import type { Lab } from '../../modules/config/schema';
import { tenantCredentialsSecretName, tenantNamespace } from '../../modules/tenants/names';
import { asPlannedProblems } from '../as-planned';
import type { PlacementPlan } from '../../modules/placement/types';
import type { SimVmView } from '../../sim/simulator';
import { AddonPlayer } from '../caaph';
import type { CaaphWebhook } from '../caaph-webhook';
import { KamajiPlayer } from '../kamaji';
import { KubeletPlayer } from '../kubelets';
import { CsiPlayer } from '../csi-sidecars';
import type { RunningMetallb } from '../metallb';
import { MirrorPlayer } from '../mirror';
import { AutoscalerPlayer } from '../autoscaler';
import type { TwinMachine, TwinTenant } from './types';
import { TwinUpgrades } from './upgrades';
import { sleep } from './stacks';

export abstract class TwinTenants extends TwinUpgrades {
  lab!: Lab;
  plan!: PlacementPlan;
  protected metallb?: RunningMetallb;
  kamaji!: KamajiPlayer;
  kubelets!: KubeletPlayer;
  csi?: CsiPlayer;
  addons!: AddonPlayer;
  /** CAAPH's admission webhooks, played (caaph-webhook.ts), registered on the management API server. */
  caaphWebhook?: CaaphWebhook;
  mirror!: MirrorPlayer;
  /** The tenants' cluster-autoscalers, when `autoscaler` is on. */
  autoscaler?: AutoscalerPlayer;
  readonly tickErrors: string[] = [];

  /** The `spec.version` of the Machine a VM stands for: its ProxmoxMachine (providerID, or named like the VM), then the owning Machine. */
  protected async machineVersionOf(vm: SimVmView): Promise<string | undefined> {
    const r = await this.mgmt.client.get('/apis/infrastructure.cluster.x-k8s.io/v1alpha2/proxmoxmachines');
    if (r.status !== 200) return undefined;
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the API server's JSON, read by path
    const items = r.body.items as any[];
    const pm = items.find((p) => (vm.uuid && p.spec?.providerID === `proxmox://${vm.uuid}`) || (vm.name && p.metadata.name === vm.name));
    const owner = ((pm?.metadata?.ownerReferences ?? []) as { kind: string; name: string }[]).find((o) => o.kind === 'Machine');
    if (!pm || !owner) return undefined;
    const m = await this.mgmt.client.get(`/apis/cluster.x-k8s.io/v1beta2/namespaces/${pm.metadata.namespace}/machines/${owner.name}`);
    return m.status === 200 ? (m.body.spec?.version as string | undefined) : undefined;
  }

  /** The tenant as the controllers see it: control plane, machines, and each machine's VM. */
  async tenant(name: string): Promise<TwinTenant> {
    const ns = this.run.lab.tenants.find((t) => t.name === name) ? name : name;
    const client = this.mgmt.client;
    const list = async (path: string) => {
      const r = await client.get(path);
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the API server's JSON for the path asked; the caller reads the kind it asked for
      return r.status === 200 ? (r.body.items as any[]) : [];
    };
    const waiting: string[] = [];
    const clusters = await list(`/apis/cluster.x-k8s.io/v1beta2/namespaces/${ns}/clusters`);
    const primary = clusters.find((c) => c.metadata.name === name);
    const controlPlaneInitialized = primary?.status?.initialization?.controlPlaneInitialized === true;
    if (!primary) waiting.push('no Cluster');
    else if (!controlPlaneInitialized) waiting.push(`control plane not initialized${this.planeWaiting(ns) ? ` (${this.planeWaiting(ns)})` : ''}`);
    const plane = [...this.kamaji.planes.values()].find((p) => p.namespace === ns && p.cluster === name);
    // A rolling update of the control plane (kamaji/control-plane.ts rollOut) is not converged until it is done; a stuck one says why.
    if (plane?.rollout) waiting.push(`control plane ${plane.version} → ${plane.rollout.to}: ${this.planeWaiting(ns) ?? 'rolling'}`);
    const version = plane ? await plane.server.client.get('/version').catch(() => undefined) : undefined;
    const controlPlaneVersion = version?.status === 200 ? (version.body.gitVersion as string) : undefined;
    const machines = await list(`/apis/cluster.x-k8s.io/v1beta2/namespaces/${ns}/machines`);
    const pmachines = new Map((await list(`/apis/infrastructure.cluster.x-k8s.io/v1alpha2/namespaces/${ns}/proxmoxmachines`)).map((m) => [m.metadata.name, m]));
    const mds = await list(`/apis/cluster.x-k8s.io/v1beta2/namespaces/${ns}/machinedeployments`);
    const allVms = this.run.sim.listVms();
    const vms = new Map<string, SimVmView>(allVms.filter((v) => v.uuid).map((v) => [`proxmox://${v.uuid}`, v]));
    const out: TwinMachine[] = [];
    for (const m of machines) {
      const labels = (m.metadata.labels ?? {}) as Record<string, string>;
      const pm = pmachines.get(m.spec?.infrastructureRef?.name);
      const providerID: string | undefined = m.spec?.providerID ?? pm?.spec?.providerID;
      const vm = providerID ? vms.get(providerID) : undefined;
      const source = vm?.cloneOf !== undefined ? allVms.find((v) => v.instance === vm.instance && v.vmid === vm.cloneOf) : undefined;
      const addresses = ((pm?.status?.addresses ?? []) as { type: string; address: string }[]).filter((a) => a.type === 'InternalIP').map((a) => a.address);
      out.push({
        name: m.metadata.name,
        pool: labels['node.cluster.x-k8s.io/pool'] ?? '',
        cluster: m.spec?.clusterName,
        machineDeployment: labels['cluster.x-k8s.io/deployment-name'] ?? '',
        phase: m.status?.phase,
        instance: vm?.instance,
        node: vm?.node,
        vmid: vm?.vmid,
        cpu: vm ? (vm.cores ?? 1) * (vm.sockets ?? 1) : undefined,
        memoryMiB: vm?.memoryMiB,
        diskGiB: vm?.disks.find((d) => d.key === 'scsi0')?.sizeGiB ?? vm?.disks[0]?.sizeGiB,
        tags: vm?.tags ?? [],
        proxmoxPool: vm?.pool,
        ipAddresses: addresses,
        createdBy: vm?.createdBy,
        nodeName: m.status?.nodeRef?.name,
        providerID,
        version: m.spec?.version,
        ready: ((m.status?.conditions ?? []) as { type: string; status: string }[]).some((c) => c.type === 'Ready' && c.status === 'True'),
        ...(source ? { template: { vmid: source.vmid, node: source.node, tags: source.template ? source.tags : [] } } : {}),
      });
    }
    out.sort((a, b) => a.name.localeCompare(b.name));
    let desired = 0;
    for (const md of mds) {
      const replicas = md.spec?.replicas ?? 0;
      desired += replicas;
      const mine = out.filter((m) => m.machineDeployment === md.metadata.name);
      const running = mine.filter((m) => m.phase === 'Running' && m.nodeName && m.ready);
      if (running.length !== replicas || mine.length !== replicas)
        waiting.push(
          `MachineDeployment ${md.metadata.name}: ${running.length}/${replicas} running${mine.length !== replicas ? `, ${mine.length} machines` : ''}`,
        );
    }
    if (mds.length === 0) waiting.push('no MachineDeployment yet');
    // kubeadm join dials the VIP: only an address MetalLB assigned and announces answers (metallb.ts).
    const cannotReach = [...new Set(out.map((m) => this.kubelets.unreachableFrom.get(`${m.instance}/${m.vmid}`)).filter((w): w is string => !!w))];
    if (cannotReach.length > 0) waiting.push(`kubelets cannot reach the control plane: ${cannotReach.join('; ')}`);
    // The played CAAPH and Jobs: why Nodes stay NotReady, why a secondary has no join data.
    if (controlPlaneInitialized && !this.addons.cniReady(ns, name)) waiting.push(`CNI not installed: ${this.addons.cniWaiting(ns, name)}`);
    const mirrorFailure = this.mirror.failures().get(ns);
    if (mirrorFailure && clusters.some((c) => c.spec?.controlPlaneRef?.kind === 'StaticControlPlane'))
      waiting.push(`the secondary-clusters mirror fails: ${mirrorFailure}`);
    const notAsPlanned = waiting.length === 0 ? await this.notAsPlanned(name, out) : [];
    waiting.push(...notAsPlanned);
    const converged = controlPlaneInitialized && waiting.length === 0 && out.length === desired;
    const cni = this.addons.cniRelease(ns, name);
    return {
      name,
      converged,
      controlPlaneInitialized,
      ...(controlPlaneVersion ? { controlPlaneVersion } : {}),
      ...(cni ? { cni } : {}),
      waiting,
      notAsPlanned,
      machines: out,
    };
  }

  /** Every difference between the tenant's machines and its placement plan (as-planned.ts). */
  protected async notAsPlanned(name: string, machines: TwinMachine[]): Promise<string[]> {
    const plan = this.plan.tenants.find((t) => t.name === name);
    const tenant = this.lab.tenants.find((t) => t.name === name);
    if (!plan || !tenant) return [`tenant ${name} is not in the plan`];
    const tokens = new Map<string, string | undefined>();
    for (const instance of new Set(machines.map((m) => m.instance).filter((i): i is string => i !== undefined))) {
      const r = await this.mgmt.client.get(`/api/v1/namespaces/${tenantNamespace(tenant)}/secrets/${tenantCredentialsSecretName(instance)}`);
      tokens.set(instance, r.status === 200 && r.body.data?.token ? Buffer.from(r.body.data.token, 'base64').toString('utf8') : undefined);
    }
    return asPlannedProblems({ plan, tenant, instances: this.lab.proxmox.instances, machines, tokenOn: (i) => tokens.get(i) });
  }

  protected planeWaiting(namespace: string): string | undefined {
    return this.kamaji.waitingIn(namespace);
  }

  /** Waits until every named tenant converged (or the timeout), calling progress now and then. */
  async waitConverged(names: string[], timeoutMs: number, progress?: (tenants: TwinTenant[]) => void): Promise<TwinTenant[]> {
    const deadline = Date.now() + timeoutMs;
    let last: TwinTenant[] = [];
    for (;;) {
      last = await Promise.all(names.map((n) => this.tenant(n)));
      progress?.(last);
      if (last.every((t) => t.converged) || Date.now() > deadline) return last;
      await sleep(1000);
    }
  }

  /** Waits for a condition on the twin, with the controllers' logs in the error. */
  async waitFor(what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs / 1000} s\n${this.diagnostics()}`);
      await sleep(500);
    }
  }

  /** The last lines of every controller's log, the players' refusals and the last tick errors. */
  diagnostics(): string {
    const refused = [...(this.kubelets?.refused ?? new Map()).entries()].map(([k, v]) => `  ${k}: ${v}`).join('\n');
    const notReady = [...(this.kubelets?.nodes.values() ?? [])]
      .filter((n) => n.state === 'network-not-ready')
      .map((n) => `  ${n.namespace}/${n.name}: ${this.addons.cniWaiting(n.namespace, n.cluster)}`)
      .join('\n');
    const jobs = [...(this.mirror?.failures() ?? new Map()).entries()].map(([ns, why]) => `  mirror ${ns}: ${why}`).join('\n');
    const unreachable = [...(this.kubelets?.unreachableFrom ?? new Map()).entries()].map(([k, v]) => `  ${k}: ${v}`).join('\n');
    const autoscalers = [...(this.autoscaler?.failures() ?? new Map()).entries()].map(([ns, why]) => `  ${ns}: ${why}`).join('\n');
    return [
      unreachable ? `--- VMs that cannot reach their control plane's address ---\n${unreachable}` : '',
      this.metallb ? `--- metallb-controller ---\n${this.metallb.log(10)}` : '',
      autoscalers ? `--- cluster-autoscalers not working ---\n${autoscalers}` : '',
      notReady ? `--- Nodes NotReady (no CNI) ---\n${notReady}` : '',
      jobs ? `--- failed Job runs ---\n${jobs}` : '',
      this.controllers?.logs(undefined, 15) ?? '',
      refused ? `--- VMs that did not join ---\n${refused}` : '',
      this.tickErrors.length ? `--- twin errors ---\n${this.tickErrors.slice(-5).join('\n')}` : '',
    ]
      .filter(Boolean)
      .join('\n');
  }
}
