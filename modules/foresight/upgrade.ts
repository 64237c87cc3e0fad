/**
 * Upgrade planner: what it takes to move a tenant from the Kubernetes version it runs to the one
 * the description asks for, and whether it can roll. Pure: the new lab and plan, and the old
 * versions, in; the steps, their templates, the surge check and the refusals out.
 *
 * The rules it applies (sources in docs/placement.md, "Upgrade planner"):
 * - Kubernetes: kube-apiserver instances must be within one minor of each other, so the control
 *   plane moves one minor at a time; a kubelet must not be newer than the API server and may be
 *   up to three minors older (1.28 and later; all of 1.30–1.35).
 * - CAPI (core v1.12): a managed topology moves by more than one minor only when its ClusterClass
 *   lists the versions in between (`spec.kubernetesVersions`) or an upgrade-plan extension gives
 *   them; `lab-tenant` does neither, so every change of the description moves one minor (or only
 *   the patch). Each step upgrades the control plane, then every machine deployment: workers are
 *   one minor behind at most, well within the skew.
 * - Each step's workers are new VMs cloned from that version's template: every instance the tenant
 *   may use needs a template for every step (an image, a version tag, or a fixed template id).
 * - The surge has to fit, in one of two ways. When a step keeps the machine deployments' names, CAPI
 *   rolls each one (its default strategy maxSurge 1, maxUnavailable 0; the class sets no other), one
 *   machine deployment at a time (default upgrade concurrency 1): each one's node needs room for one
 *   more machine of its pool beyond what the plan reserves there (autoscaled pools at their max).
 *   When the tenant rendering renames them (it appends a hash of the worker template, which holds
 *   the version, because CAPMOX's ProxmoxMachineTemplate is immutable; docs/tenants.md), the upgrade
 *   is two deploys — surge, then retire (`tenants[].previous`): the first upgrades the control plane
 *   and adds the new machine deployments beside the old ones, which keep their version
 *   (defer-upgrade); the second, once the new Nodes are Ready, removes the old ones. Each node needs
 *   room for the old and the new machines at once (placement's `surge`, checked at synth). Without
 *   `previous` CAPI would delete the old machine deployments at once and create the new ones only
 *   once the control plane runs the new version — minutes with no workers — so the planner refuses
 *   that change and names the surge step to deploy instead.
 */
import type { Instance, Lab, Tenant } from '../config/schema';
import type { Problem } from '../config/problems';
import { hasTemplateFor } from '../config/rules';
import type { PlacementPlan, TenantPlan } from '../placement/types';
import { machineDeployments } from '../tenants/machine-deployments';
import { tenantMachineDeployments } from './machine-deployments';

export interface KubeVersion {
  major: number;
  minor: number;
  patch: number;
  text: string;
}

/** The most minor versions one upgrade plan walks (one step each); a lab's versions are bounded by its schema. */
export const MAX_UPGRADE_MINORS = 50;

export function parseVersion(text: string): KubeVersion | undefined {
  // Bounded components (as the lab schema's): a version read from an older placement.json is no exception.
  const m = /^v?(\d{1,6})\.(\d{1,6})\.(\d{1,6})$/.exec(text.trim());
  return m ? { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3]), text: text.trim() } : undefined;
}

function compareVersions(a: KubeVersion, b: KubeVersion): number {
  return a.major - b.major || a.minor - b.minor || a.patch - b.patch;
}

export interface TemplateCheck {
  instance: string;
  version: string;
  /** How the instance provides the template: an image it builds, a tag CAPMOX selects, a fixed template id; or `missing`. */
  how: 'image' | 'tags' | 'templateID' | 'missing';
}

export interface SurgeCheck {
  /** Rolling: the machine deployment. Replace: every new machine deployment of the tenant on the node, comma-separated. */
  machineDeployment: string;
  pool: string;
  instance: string;
  node: string;
  need: { cpu: number; memoryMiB: number };
  free: { cpu: number; memoryMiB: number };
  fits: boolean;
}

export interface UpgradeStep {
  /** The version the Cluster's topology is set to in this step. */
  version: string;
  controlPlane: { from: string; to: string };
  /** Workers roll to `to` right after the control plane; during the step they are `skew` minors behind. */
  workers: { from: string; to: string; skew: number };
  templates: TemplateCheck[];
  /** Empty when the step can roll. */
  refusals: string[];
}

export interface TenantUpgrade {
  tenant: string;
  from: string;
  to: string;
  /** Instances the tenant may use: each needs a template for every step. */
  instances: string[];
  steps: UpgradeStep[];
  /**
   * `rolling`: each machine deployment rolls with one surge machine; `replace`: the rendering renames
   * the machine deployments, so CAPI creates new ones beside the old (see the module comment).
   */
  surgeMode: 'rolling' | 'replace';
  /** `replace` with `previous.kubernetesVersion` = `from`: the surge step (old machine deployments kept until the retire step). */
  surging: boolean;
  /** Checked once: every step rolls (or replaces) every machine deployment of the same plan. */
  surge: SurgeCheck[];
  /** Why it cannot roll, every reason at once; empty when every step can. */
  refusals: string[];
  accepted: boolean;
}

/** Instances a tenant may use: the default one (Default mode) or its eligible ones, and those its pools are pinned to. */
export function instancesOf(lab: Lab, tenant: Tenant): Instance[] {
  const all = lab.proxmox.instances;
  const eligible = tenant.placement.mode === 'Default' ? [all[0]] : all.filter((i) => (tenant.placement.instances ?? all.map((x) => x.name)).includes(i.name));
  const pinned = new Set(tenant.pools.map((p) => p.instance).filter((n): n is string => n !== undefined));
  return all.filter((i) => eligible.includes(i) || pinned.has(i.name));
}

/** The template form fields, read defensively (fixed templates may carry their versions). */
function fixedVersions(instance: Instance): string[] {
  const t = instance.template as { templateID?: number; kubernetesVersion?: string; versions?: { kubernetesVersion: string }[] };
  if (t.templateID === undefined) return [];
  return [...(t.kubernetesVersion ? [t.kubernetesVersion] : []), ...(t.versions ?? []).map((v) => v.kubernetesVersion)];
}

function templateHow(instance: Instance, version: string): TemplateCheck['how'] {
  if (!hasTemplateFor(instance, version)) return 'missing';
  if ('templateID' in instance.template) return 'templateID';
  if (instance.images.some((img) => img.kubernetesVersion === version)) return 'image';
  return 'tags';
}

/** Every Kubernetes version an instance has a template for, as far as the description says. */
export function templateVersions(instance: Instance): string[] {
  const tags = 'templateSelector' in instance.template ? instance.template.templateSelector.matchTags.filter((t) => parseVersion(t) !== undefined) : [];
  return [...new Set([...instance.images.map((i) => i.kubernetesVersion), ...tags, ...fixedVersions(instance)])];
}

/** The version for an intermediate minor: the newest patch every instance has a template for, else the newest any has. */
function intermediate(major: number, minor: number, instances: Instance[]): string | undefined {
  const candidates = [...new Set(instances.flatMap(templateVersions))]
    .map(parseVersion)
    .filter((v): v is KubeVersion => v !== undefined && v.major === major && v.minor === minor)
    .sort((a, b) => compareVersions(b, a));
  const everywhere = candidates.find((v) => instances.every((i) => hasTemplateFor(i, v.text)));
  return (everywhere ?? candidates[0])?.text;
}

/** Whether the rendering renames the tenant's machine deployments on a version change (names differ from placement's groups). */
function renamesOnUpgrade(lab: Lab, plan: PlacementPlan, tenant: TenantPlan): boolean {
  const base = new Set(machineDeployments(tenant).map((md) => md.name));
  const rendered = tenantMachineDeployments(lab, plan).get(tenant.name) ?? [];
  return rendered.some((md) => !base.has(md.name));
}

function surgeChecks(lab: Lab, plan: PlacementPlan, tenant: TenantPlan, mode: TenantUpgrade['surgeMode']): SurgeCheck[] {
  const free = new Map(
    plan.nodes.map((n) => [`${n.instance}\u0000${n.node}`, { cpu: n.cpu.capacity - n.cpu.planned, memoryMiB: n.memoryMiB.capacity - n.memoryMiB.planned }]),
  );
  const room = (instance: string, node: string) => free.get(`${instance}\u0000${node}`) ?? { cpu: 0, memoryMiB: 0 };
  const mds = tenantMachineDeployments(lab, plan).get(tenant.name) ?? [];
  if (mode === 'replace') {
    const byNode = new Map<string, { instance: string; node: string; names: string[]; pools: Set<string>; cpu: number; memoryMiB: number }>();
    for (const md of mds) {
      const node = md.nodes[0];
      const key = `${md.instance}\u0000${node}`;
      const entry = byNode.get(key) ?? { instance: md.instance, node, names: [], pools: new Set<string>(), cpu: 0, memoryMiB: 0 };
      const machines = md.scale.kind === 'fixed' ? md.scale.replicas : md.scale.min;
      entry.names.push(md.name);
      entry.pools.add(md.pool);
      entry.cpu += machines * md.size.cpu;
      entry.memoryMiB += machines * md.size.memoryMiB;
      byNode.set(key, entry);
    }
    return [...byNode.values()].map((e) => {
      const f = room(e.instance, e.node);
      return {
        machineDeployment: e.names.join(', '),
        pool: [...e.pools].join(', '),
        instance: e.instance,
        node: e.node,
        need: { cpu: e.cpu, memoryMiB: e.memoryMiB },
        free: { ...f },
        fits: f.cpu >= e.cpu && f.memoryMiB >= e.memoryMiB,
      };
    });
  }
  return mds.map((md) => {
    const options = md.nodes.map((node) => ({ node, free: room(md.instance, node) }));
    const fitting = options.find((r) => r.free.cpu >= md.size.cpu && r.free.memoryMiB >= md.size.memoryMiB);
    const shown = fitting ?? options[0];
    return {
      machineDeployment: md.name,
      pool: md.pool,
      instance: md.instance,
      node: shown.node,
      need: { cpu: md.size.cpu, memoryMiB: md.size.memoryMiB },
      free: { ...shown.free },
      fits: fitting !== undefined,
    };
  });
}

/** Plans one tenant's upgrade from `from` to its version in `lab`. */
export function planTenantUpgrade(lab: Lab, plan: PlacementPlan, tenant: Tenant, from: string): TenantUpgrade {
  const to = tenant.kubernetesVersion;
  const instances = instancesOf(lab, tenant);
  const tenantPlan = plan.tenants.find((t) => t.name === tenant.name);
  const refusals: string[] = [];
  const steps: UpgradeStep[] = [];
  const a = parseVersion(from);
  const b = parseVersion(to);
  if (!a || !b) {
    refusals.push(`cannot read the versions ${from} → ${to} (expected vMAJOR.MINOR.PATCH)`);
  } else if (a.major !== b.major) {
    refusals.push(`${from} → ${to} changes the major version, which no Kubernetes upgrade path supports`);
  } else if (compareVersions(b, a) < 0) {
    refusals.push(`${from} → ${to} is a downgrade: Kubernetes and CAPI only upgrade (restore the old version, or rebuild the tenant)`);
  } else if (b.minor - a.minor > MAX_UPGRADE_MINORS) {
    refusals.push(`${from} → ${to} spans ${b.minor - a.minor} minor versions, more than the ${MAX_UPGRADE_MINORS} an upgrade plan walks: check the version`);
  } else if (compareVersions(b, a) > 0) {
    let current = a.text;
    const last = b.minor === a.minor ? a.minor : b.minor;
    for (let minor = b.minor === a.minor ? a.minor : a.minor + 1; minor <= last; minor++) {
      const version = minor === b.minor ? b.text : intermediate(a.major, minor, instances);
      const stepRefusals: string[] = [];
      const templates: TemplateCheck[] = [];
      if (version === undefined) {
        stepRefusals.push(
          `no instance the tenant may use has a template for any v${a.major}.${minor} patch: add an image for one (e.g. v${a.major}.${minor}.<patch>) to ${instances.map((i) => i.name).join(', ')}`,
        );
      } else {
        for (const instance of instances) {
          const how = templateHow(instance, version);
          templates.push({ instance: instance.name, version, how });
          if (how === 'missing') stepRefusals.push(`instance ${instance.name} has no template for ${version}: its new workers could not be cloned`);
        }
      }
      const stepVersion = version ?? `v${a.major}.${minor}.x`;
      const fromMinor = parseVersion(current)?.minor ?? minor;
      steps.push({
        version: stepVersion,
        controlPlane: { from: current, to: stepVersion },
        workers: { from: current, to: stepVersion, skew: minor - fromMinor },
        templates,
        refusals: stepRefusals,
      });
      refusals.push(...stepRefusals.map((r) => `step ${steps.length} (${stepVersion}): ${r}`));
      current = stepVersion;
    }
  }
  const surgeMode: TenantUpgrade['surgeMode'] = tenantPlan && renamesOnUpgrade(lab, plan, tenantPlan) ? 'replace' : 'rolling';
  const surging = surgeMode === 'replace' && tenant.previous?.kubernetesVersion === from;
  const surge = tenantPlan && steps.length > 0 ? (surging ? surgeReservationChecks(plan, tenant.name) : surgeChecks(lab, plan, tenantPlan, surgeMode)) : [];
  if (surgeMode === 'replace' && steps.length === 1 && !surging) {
    refusals.push(
      `every machine deployment of the tenant is replaced (its worker template holds the version), and without previous CAPI deletes the old ones before the new ones exist: ` +
        `deploy the surge step first — kubernetesVersion ${to} with previous: { kubernetesVersion: ${from} } — then remove previous once the new Nodes are Ready (the retire step)`,
    );
  }
  for (const s of surge.filter((x) => !x.fits)) {
    refusals.push(
      surgeMode === 'rolling'
        ? `machine deployment ${s.machineDeployment} (pool ${s.pool}) cannot surge: a rolling update needs one more machine of ${s.need.cpu} cpu and ${s.need.memoryMiB} MiB on ${s.node} (${s.instance}), which has ${s.free.cpu} cpu and ${s.free.memoryMiB} MiB free after the plan`
        : surging
          ? `${s.node} (${s.instance}) has no room for ${s.machineDeployment} beside the new machine deployments: the surge needs ${s.need.cpu} cpu and ${s.need.memoryMiB} MiB more, and the node has ${s.free.cpu} cpu and ${s.free.memoryMiB} MiB free after the plan`
          : `${s.node} (${s.instance}) has no room for the new machine deployments ${s.machineDeployment}: CAPI creates them beside the old ones, which needs ${s.need.cpu} cpu and ${s.need.memoryMiB} MiB, and the node has ${s.free.cpu} cpu and ${s.free.memoryMiB} MiB free after the plan`,
    );
  }
  return {
    tenant: tenant.name,
    from,
    to,
    instances: instances.map((i) => i.name),
    steps,
    surgeMode,
    surging,
    surge,
    refusals,
    accepted: refusals.length === 0,
  };
}

/** The surge step's node checks, from placement's retiring machines (surge.ts): the old ones beside the new plan, per node. */
function surgeReservationChecks(plan: PlacementPlan, tenant: string): SurgeCheck[] {
  const mine = (plan.surge ?? []).filter((r) => r.tenant === tenant);
  const nodes = [...new Set(mine.map((r) => `${r.instance}\u0000${r.node}`))];
  return nodes.map((key) => {
    const [instance, node] = key.split('\u0000');
    const here = mine.filter((r) => r.instance === instance && r.node === node);
    const all = (plan.surge ?? []).filter((r) => r.instance === instance && r.node === node);
    const n = plan.nodes.find((x) => x.instance === instance && x.node === node);
    const free = { cpu: n ? n.cpu.capacity - n.cpu.planned : 0, memoryMiB: n ? n.memoryMiB.capacity - n.memoryMiB.planned : 0 };
    const need = { cpu: all.reduce((x, r) => x + r.cpu, 0), memoryMiB: all.reduce((x, r) => x + r.memoryMiB, 0) };
    return {
      machineDeployment: `${here.reduce((x, r) => x + r.machines, 0)} retiring machine${here.length === 1 && here[0].machines === 1 ? '' : 's'} (${[...new Set(here.map((r) => r.pool))].join(', ')}, ${here[0].version})`,
      pool: [...new Set(here.map((r) => r.pool))].join(', '),
      instance,
      node,
      need,
      free,
      fits: need.cpu <= free.cpu && need.memoryMiB <= free.memoryMiB,
    };
  });
}

/** Plans every tenant whose version differs from `previous` (tenant name → version it runs); new tenants are not upgrades. */
export function planUpgrades(lab: Lab, plan: PlacementPlan, previous: ReadonlyMap<string, string>): TenantUpgrade[] {
  return lab.tenants
    .filter((t) => previous.has(t.name) && previous.get(t.name) !== t.kubernetesVersion)
    .sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0))
    .map((t) => planTenantUpgrade(lab, plan, t, previous.get(t.name)!));
}

/**
 * What validate and synth refuse, as problems at `tenants[i].kubernetesVersion`: an upgrade with a
 * step that cannot roll, and a change that needs more than one step (CAPI moves one minor per
 * change here), with the step to deploy first.
 */
export function upgradeProblems(lab: Lab, plan: PlacementPlan, previous: ReadonlyMap<string, string>): Problem[] {
  const problems: Problem[] = [];
  for (const upgrade of planUpgrades(lab, plan, previous)) {
    const index = lab.tenants.findIndex((t) => t.name === upgrade.tenant);
    const path = ['tenants', index, 'kubernetesVersion'];
    if (upgrade.steps.length > 1) {
      problems.push({
        path,
        message: `tenant ${upgrade.tenant} runs ${upgrade.from}; ${upgrade.to} is ${upgrade.steps.length} minor versions away, and the control plane moves one minor at a time (CAPI refuses the jump: lab-tenant lists no intermediate versions)`,
        value: upgrade.to,
        fix: `deploy the steps one at a time: ${upgrade.steps.map((s) => s.version).join(', then ')} (npm run upgrade-plan shows each)`,
        rule: 'upgrade.minor-jump',
      });
    }
    if (!upgrade.accepted) {
      problems.push({
        path,
        message: `tenant ${upgrade.tenant} cannot roll from ${upgrade.from} to ${upgrade.to}: ${upgrade.refusals.join('; ')}`,
        value: upgrade.to,
        fix:
          upgrade.surgeMode === 'replace' && !upgrade.surging && upgrade.steps.length === 1
            ? `add previous: { kubernetesVersion: ${upgrade.from} } to tenants[${index}] (the surge step; remove it once the new Nodes are Ready: docs/tenants.md, "Surge, then retire")${upgrade.refusals.length > 1 ? ', and make room on the nodes named (or make those pools smaller)' : ''}`
            : 'add the missing templates (proxmox.instances[].images, or version tags), make room on the nodes named (or make those pools smaller), then upgrade',
        rule: 'upgrade.cannot-roll',
      });
    }
  }
  return problems;
}

/**
 * For the lab twin: the description of every step, in order (the new lab with the tenant at each
 * step's version). Applying them one after another performs the upgrade the planner accepted.
 */
export function upgradeStepLabs(lab: Lab, upgrade: TenantUpgrade): Lab[] {
  return upgrade.steps.map((step) => ({
    ...lab,
    tenants: lab.tenants.map((t) => (t.name === upgrade.tenant ? { ...t, kubernetesVersion: step.version } : t)),
  }));
}

/** The versions a plan records (placement.json's `tenants[].kubernetesVersion`), for synth to compare with. */
export function versionsOfPlanJson(json: unknown): Map<string, string> {
  const versions = new Map<string, string>();
  const tenants = (json as { tenants?: { name?: unknown; kubernetesVersion?: unknown }[] } | null)?.tenants;
  if (!Array.isArray(tenants)) return versions;
  for (const t of tenants) if (typeof t?.name === 'string' && typeof t.kubernetesVersion === 'string') versions.set(t.name, t.kubernetesVersion);
  return versions;
}

/** The versions of an older description. */
export function versionsOfLab(lab: Lab): Map<string, string> {
  return new Map(lab.tenants.map((t) => [t.name, t.kubernetesVersion]));
}
