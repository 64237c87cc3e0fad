/**
 * A staged surge in the lab twin (docs/tenants.md, "Staged surge"), with the real controllers:
 * examples/lab-staged-before.yaml → examples/lab-staged.yaml (tenant-a v1.35.4 → v1.36.3, whose
 * one-step surge does not fit pmox-txl-1), taken through every step as `upgrade-plan` prints them
 * (stagedSurges: surge 1, retire 1, surge 2, retire 2), each deployed as deploy would, each surge
 * waiting for deploy's retire guard on the live MachineDeployments. The Ready Nodes of every pool are
 * watched in each step (test/twin/ready-sampler.cjs). Mid-step, two VMs are stopped:
 * - a new VM of a surging group in surge 1: the MachineHealthCheck and its MachineSet replace it;
 * - a VM of the held group once the control plane is at v1.36.3: its MachineSet (deferred at
 *   v1.35.4) refuses the remediation in its preflight checks (sigs.k8s.io/cluster-api@v1.13.6
 *   internal/controllers/machineset/machineset_preflight.go, kubeadmVersionPreflightCheck: kubeadm
 *   joins only at the control plane's minor; machineset_controller.go reconcileUnhealthyMachines
 *   writes it on the Machine's OwnerRemediated condition, reason RemediationDeferred), so the pool
 *   is one Node short until surge 2 makes the group's new machines and retire 2 deletes the old.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseDocument } from 'yaml';
import { parseLab } from '../../modules/config/load';
import { runStatus } from '../../scripts/lib/status-run';
import { planPlacement, planPlacementPartial } from '../../modules/placement';
import { previousLab, stagedSurges } from '../../modules/placement/surge';
import { renderTenants } from '../../modules/tenants';
import { topologyMachineDeployments } from '../../modules/tenants/replaced';
import { retireSteps } from '../../scripts/lib/retire-guard';
import type { LabTwin } from '../../twin/index';
import type { TwinMachine } from '../../twin/harness/types';
import {
  actualCounts,
  convergedOrThrow,
  plannedCounts,
  printTimes,
  projectRoot,
  readyReport,
  sampleReadyNodes,
  startTwin,
  waitForRetireGuard,
  whatFailed,
  workerVmUuids,
} from './support';

jest.setTimeout(40 * 60 * 1000);

const FROM = 'v1.35.4';
const TO = 'v1.36.3';
const names = ['tenant-a', 'tenant-c'];
/** The steps tenant-a/workers is one Ready Node short in: the held VM stopped, its remediation refused, until its own step's new machines. */
const SHORT_STEPS = ['retire 1', 'surge 2'];

/** An example lab without tenant-b (not on pmox-txl's staged nodes), short health-check timeouts; `previous` of tenant-a as given. */
function stagedLab(file: string, previous?: Record<string, unknown>): string {
  const doc = parseDocument(readFileSync(join(projectRoot, 'examples', file), 'utf8'));
  const tenants = doc.get('tenants') as { items: { get(k: string): unknown }[] };
  tenants.items = tenants.items.filter((t) => t.get('name') !== 'tenant-b');
  doc.setIn(['management', 'healthCheck'], doc.createNode({ unhealthySeconds: 15, nodeStartupSeconds: 600 }));
  if (previous) doc.setIn(['tenants', 0, 'previous'], doc.createNode(previous));
  return doc.toString();
}
const mdsOf = (text: string) => {
  const l = parseLab(text, 'staged.yaml');
  return [...renderTenants(l, planPlacement(l)).values()].flatMap((t) => topologyMachineDeployments(t.cluster));
};
const group = (m: TwinMachine) => `${m.pool}/${m.instance}/${m.node}`;

let twin: LabTwin;
beforeAll(
  async () => {
    twin = await startTwin(stagedLab('lab-staged-before.yaml'), 'staged-surge');
    await twin.applyKubernetes();
    await convergedOrThrow(twin, names, 10 * 60 * 1000);
  },
  25 * 60 * 1000,
);
afterAll(async () => {
  printTimes(twin);
  await twin?.stop();
  twin?.cleanup();
});
const mgmt = () => twin.management.client;

/** What each pool asks for, from the plan. */
function requiredReady(): Map<string, Map<string, number>> {
  return new Map(
    names.map((t) => {
      const pools = new Map<string, number>();
      for (const [key, n] of plannedCounts(twin.plan, t)) pools.set(key.split(' ')[0], (pools.get(key.split(' ')[0]) ?? 0) + n);
      return [t, pools];
    }),
  );
}

describe('a staged surge in the twin', () => {
  it(`tenant-a ${FROM} → ${TO} in the steps upgrade-plan prints, a surging VM and a held VM stopped mid-step`, async () => {
    // The steps, as upgrade-plan computes them (scripts/upgrade-plan.ts stagedSurgesOf) for the surge lab.
    const surgeLab = parseLab(stagedLab('lab-staged.yaml', { kubernetesVersion: FROM }), 'staged.yaml');
    const staged = stagedSurges(surgeLab, planPlacementPartial(surgeLab).plan, planPlacementPartial(previousLab(surgeLab)).plan);
    expect(staged.map((s) => ({ tenant: s.tenant, fits: s.fits, stages: s.stages.map((x) => x.groups) }))).toEqual([
      {
        tenant: 'tenant-a',
        fits: false,
        stages: [['batch/pmox-txl/pmox-txl-1', 'batch/pmox-txl/pmox-txl-2', 'workers/pmox-txl/pmox-txl-2'], ['workers/pmox-txl/pmox-txl-1']],
      },
    ]);
    const held = 'workers/pmox-txl/pmox-txl-1';
    const texts = staged[0].steps.flatMap((s) => [stagedLab('lab-staged.yaml', s.surge), stagedLab('lab-staged.yaml', s.retire)]);
    const stepNames = ['surge 1', 'retire 1', 'surge 2', 'retire 2'];
    const required = requiredReady();
    const reports: string[] = [];
    const perStep: { step: string; pools: Map<string, { min: number; replicas: number }> }[] = [];
    let last = '';
    const tenantA = () => twin.tenant('tenant-a');
    const run = async (k: number, body: () => Promise<void>) => {
      const sampler = await sampleReadyNodes(twin, required);
      sampler.phase(stepNames[k]);
      const t0 = Date.now();
      try {
        await twin.update(texts[k]);
        await body();
      } catch (e) {
        const s = await sampler.stop();
        process.stdout.write(`${readyReport(`staged surge, ${stepNames[k]} (failed)`, s, [{ step: stepNames[k], seconds: (Date.now() - t0) / 1000 }])}\n`);
        throw new Error(`${stepNames[k]}: ${whatFailed(e)}\nlast seen: ${last}\n${twin.diagnostics()}`);
      }
      const s = await sampler.stop();
      reports.push(readyReport(`staged surge, ${stepNames[k]}`, s, [{ step: stepNames[k], seconds: (Date.now() - t0) / 1000 }]));
      // The one note allowed: the held pool one Node short (the stopped held VM) from retire 1 until surge 2's new
      // machines ('start': the sampler's first list, before its phase is set).
      const notes = s.notes.filter(
        (n) => !(SHORT_STEPS.includes(stepNames[k]) && [stepNames[k], 'start'].some((ph) => n === `${ph}: tenant-a/workers has 2 Ready Nodes`)),
      );
      expect({ step: stepNames[k], lost: s.lost, notes, skew: s.skew }).toEqual({ step: stepNames[k], lost: [], notes: [], skew: [] });
      perStep.push({ step: stepNames[k], pools: s.pools });
    };
    const describeMachines = (ms: TwinMachine[]) => ms.map((m) => `${m.name} ${group(m)} ${m.version} ${m.phase}${m.ready ? ' ready' : ''}`).join(', ');

    const oldA = new Set((await tenantA()).machines.map((m) => m.providerID!));
    let heldVictim: TwinMachine | undefined;
    // 1. Surge 1: the control plane moves, the surging groups' new machines come up beside the old.
    await run(0, async () => {
      const surging = 'workers/pmox-txl/pmox-txl-2';
      let victim: TwinMachine | undefined;
      await twin.waitFor(`a new machine of ${surging} Ready`, 10 * 60 * 1000, async () => {
        const t = await tenantA();
        last = describeMachines(t.machines);
        victim = t.machines.find((m) => group(m) === surging && m.version === TO && m.ready && m.nodeName);
        return victim !== undefined;
      });
      twin.sim.setVmStatus(victim!.instance!, victim!.vmid!, 'stopped');
      await twin.waitFor(`${victim!.name} (stopped, of surging ${surging}) replaced and Ready`, 8 * 60 * 1000, async () => {
        const t = await tenantA();
        last = describeMachines(t.machines);
        const mine = t.machines.filter((m) => m.machineDeployment === victim!.machineDeployment);
        return !mine.some((m) => m.name === victim!.name) && mine.length > 0 && mine.every((m) => m.ready && m.nodeName);
      });
      expect((await tenantA()).controlPlaneVersion).toBe(TO);
      // The control plane is at TO: a VM of the held group (its MachineSet at FROM) stopped.
      heldVictim = (await tenantA()).machines.find((m) => group(m) === held && m.version === FROM && m.ready);
      twin.sim.setVmStatus(heldVictim!.instance!, heldVictim!.vmid!, 'stopped');
      let condition: any;
      await twin.waitFor(`${heldVictim!.name} (held, stopped): its remediation deferred by the MachineSet`, 6 * 60 * 1000, async () => {
        const m = (await mgmt().get(`/apis/cluster.x-k8s.io/v1beta2/namespaces/tenant-a/machines/${heldVictim!.name}`)).body;
        condition = (m?.status?.conditions ?? []).find((c: any) => c.type === 'OwnerRemediated');
        last = JSON.stringify(condition);
        return condition?.reason === 'RemediationDeferred';
      });
      process.stdout.write(`held machine ${heldVictim!.name}: OwnerRemediated ${condition.status} ${condition.reason}:\n${condition.message}\n`);
      expect(condition.message).toContain(
        `MachineSet version (${FROM.slice(1)}) and ControlPlane version (${TO.slice(1)}) do not conform to kubeadm version skew policy as kubeadm only supports joining with the same major+minor version as the control plane ("KubeadmVersionSkew" preflight check failed)`,
      );
      // `status` says so, with CAPI's reason: the group a machine short until a step surges it.
      const config = join(dirname(twin.out), 'status-lab.yaml');
      writeFileSync(config, texts[0]);
      const status = await runStatus({ config, kubeconfig: twin.management.kubeconfig, json: true, env: {}, tenants: ['tenant-a'] });
      const differences = (JSON.parse(status.output) as { tenants: { differences: string[] }[] }).tenants[0].differences;
      expect(status.code).toBe(2);
      const deferred = differences.find((d) => d.startsWith(`machine ${heldVictim!.name} `));
      expect(deferred).toContain('is unhealthy and CAPI defers its replacement: ');
      // Every preflight check CAPI lists ("* ..." a line each), in the one line.
      for (const line of (condition.message as string).split('\n')) expect(deferred).toContain(line.replace(/^\s*\* /, '').trim());
      await waitForRetireGuard(
        twin,
        'surge 1: the new machine deployments Ready beside the old',
        10 * 60 * 1000,
        retireSteps(mdsOf(texts[0]), mdsOf(texts[1])),
        new Set(),
        (m) => (last = m),
      );
      // The held group is untouched: its old machines, the stopped one included, are still there.
      const t = await tenantA();
      expect(t.machines.filter((m) => group(m) === held).map((m) => m.version)).toEqual([FROM, FROM]);
      expect(t.machines.some((m) => m.name === heldVictim!.name)).toBe(true);
    });
    // 2. Retire 1: the surged groups' old machines drained and deleted; the held group as it was.
    await run(1, async () => {
      await twin.waitFor('retire 1: only the held group at the old version', 10 * 60 * 1000, async () => {
        const t = await tenantA();
        last = describeMachines(t.machines);
        return t.machines.filter((m) => m.version === FROM).every((m) => group(m) === held) && t.machines.some((m) => m.name === heldVictim!.name);
      });
    });
    // 3. Surge 2: the held group's new machines, beside its old ones (the stopped one still deferred).
    await run(2, async () => {
      const oldVms = new Set(
        (await tenantA()).machines
          .filter((m) => group(m) === held)
          .map((m) => twin.sim.listVms().find((v) => v.instance === m.instance && v.vmid === m.vmid)?.uuid),
      );
      await waitForRetireGuard(
        twin,
        `surge 2: the new machine deployment of ${held} Ready`,
        10 * 60 * 1000,
        retireSteps(mdsOf(texts[2]), mdsOf(texts[3])),
        oldVms,
        (m) => (last = m),
      );
    });
    // 4. Retire 2: previous removed; the held group's old machines, the stopped one with them, deleted.
    await run(3, async () => {
      await twin.waitFor(`tenant-a on ${TO} only`, 10 * 60 * 1000, async () => {
        const t = await tenantA();
        last = `${t.waiting.join('; ')}; ${describeMachines(t.machines)}`;
        return t.converged && t.machines.length > 0 && t.machines.every((m) => m.version === TO);
      });
    });
    process.stdout.write(`${reports.join('\n')}\n`);

    // Every pool keeps its Ready Nodes in every step, but tenant-a/workers from retire 1 until its
    // own step's new machines: one short, the held Node whose remediation the MachineSet refused.
    const mins = perStep.map((s) => ({ step: s.step, pools: Object.fromEntries([...s.pools].map(([p, x]) => [p, x.min - x.replicas])) }));
    const expected = perStep.map((s) => ({
      step: s.step,
      pools: Object.fromEntries([...s.pools].map(([p]) => [p, p === 'tenant-a/workers' && SHORT_STEPS.includes(s.step) ? -1 : expect.any(Number)])),
    }));
    expect(mins).toEqual(expected);
    for (const s of perStep)
      for (const [p, x] of s.pools)
        if (!(p === 'tenant-a/workers' && SHORT_STEPS.includes(s.step)))
          expect({ step: s.step, p, atLeast: x.min >= x.replicas }).toEqual({ step: s.step, p, atLeast: true });
    const after = await tenantA();
    expect(after.controlPlaneVersion).toBe(TO);
    expect(actualCounts(after.machines)).toEqual(plannedCounts(twin.plan, 'tenant-a'));
    expect(after.machines.filter((m) => oldA.has(m.providerID!))).toEqual([]);
    expect(twin.sim.listVms().some((v) => `proxmox://${v.uuid}` === heldVictim!.providerID)).toBe(false);
    expect(workerVmUuids(twin, 'pmox-txl').size).toBeGreaterThan(0);
  });
});
