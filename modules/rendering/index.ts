/**
 * The whole lab, rendered before any stack exists: the one road into the stacks.
 *
 *   lab.yaml ──validate──> Lab ──planPlacement──> PlacementPlan ──renderLab──> LabRendering ──> stacks ──> Terraform JSON
 *
 * `renderLab` is pure (no cdktf, no I/O) and returns, as plain data, everything every stack writes:
 * each `proxmox-<instance>` stack's pools, storages, user, roles, tokens, ACLs and node templates
 * (./instance.ts); the management plane (modules/management, plus the static control plane CRD);
 * `management-config`'s ClusterClass and templates and the MetalLB pool of tenant VIPs; every
 * tenant (modules/tenants). Stacks and constructs only translate it into Terraform resources and
 * wire references and dependencies between them; they never see the placement plan. Every problem
 * of every tenant, of the management plane and of the datastore memory is thrown at once, before
 * anything is synthesized.
 *
 * One road: `validate` and `synth` both take `planAndRenderLab` (placement, then this rendering),
 * so they refuse the same labs with the same problems (test/synth/one-road.test.ts); every problem
 * on it carries the id of a rule of docs/rules.md (modules/config/plan-rule-table.ts).
 */
import { ProblemError, type Problem } from '../config/problems';
import type { Lab } from '../config/schema';
import { renderManagement, type ManagementRendering } from '../management';
import { datastoreMemoryProblems, type DatastoreMemory } from '../management/datastore';
import { planPlacement } from '../placement';
import { renderTitle } from '../tenants/problems';
import { tenantVipPoolManifests } from '../management/chart-values';
import type { PlacementPlan } from '../placement/types';
import { renderTenants, type RenderOptions, type TenantRendering } from '../tenants';
import { clusterClass, clusterClassTemplates } from '../tenants/cluster-class';
import type { KubernetesObject } from '../tenants/manifest';
import { CLUSTER_CLASS_NAMESPACE } from '../tenants/names';
import { staticControlPlaneClusterRole, staticControlPlaneCrd } from '../tenants/static-control-plane';
import { KAMAJI_DATASTORE_NAME } from '../versions/layout';
import { renderInstances, type InstanceRendering } from './instance';

export { renderInstance, renderInstances, tenantsOnInstance, type InstanceRendering } from './instance';

/** The `management` stack: the management plane, and the static control plane's CRD and ClusterRole when the lab uses it. */
export interface ManagementPlaneRendering extends Omit<ManagementRendering, 'staticControlPlane'> {
  /** capmox.multiInstance secondary-clusters: pvekaas's static control plane CRD and the ClusterRole CAPI's manager aggregates. */
  readonly staticControlPlane?: { readonly crd: KubernetesObject; readonly clusterRole: KubernetesObject };
}

/** The `management-config` stack: custom resources whose CRDs the management stack installs. */
export interface ManagementConfigRendering {
  /** The MetalLB IPAddressPool of tenant VIPs and its L2Advertisement. */
  readonly vipPool: readonly KubernetesObject[];
  /** The `lab-tenant` ClusterClass, its templates and their namespace. */
  readonly clusterClass: { readonly namespace: KubernetesObject; readonly templates: readonly KubernetesObject[]; readonly clusterClass: KubernetesObject };
}

/** Everything a lab's stacks hold, as data. */
export interface LabRendering {
  /** Every Proxmox instance, by name, in description order. */
  readonly instances: Map<string, InstanceRendering>;
  readonly management: ManagementPlaneRendering;
  readonly managementConfig: ManagementConfigRendering;
  /** Every tenant, by name. */
  readonly tenants: Map<string, TenantRendering>;
}

/** The management stack's rendering (`renderManagement`, past the version guard, and the static control plane's objects). */
export function renderManagementPlane(lab: Pick<Lab, 'management' | 'capmox'>): ManagementPlaneRendering {
  const { staticControlPlane, ...management } = renderManagement(lab);
  return {
    ...management,
    ...(staticControlPlane ? { staticControlPlane: { crd: staticControlPlaneCrd(), clusterRole: staticControlPlaneClusterRole() } } : {}),
  };
}

/** The management-config stack's rendering: the tenant VIP pool, and the `lab-tenant` class for the lab's MultiInstance mode and health check. */
export function renderManagementConfig(lab: Pick<Lab, 'management' | 'capmox'> & Partial<Pick<Lab, 'identity'>>): ManagementConfigRendering {
  const options = {
    dataStoreName: KAMAJI_DATASTORE_NAME,
    multiInstance: lab.capmox.multiInstance,
    namespace: CLUSTER_CLASS_NAMESPACE,
    healthCheck: lab.management.healthCheck,
    ...(lab.identity ? { identity: true } : {}),
  };
  return {
    vipPool: tenantVipPoolManifests(lab.management).map((o) => o as unknown as KubernetesObject),
    clusterClass: {
      // A label, like every namespace pvekaas makes: an apply that sets no field leaves the object
      // without managed fields, and the next apply would then bump it once for nothing.
      namespace: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: CLUSTER_CLASS_NAMESPACE, labels: { 'app.kubernetes.io/managed-by': 'pvekaas' } } },
      templates: clusterClassTemplates(options),
      clusterClass: clusterClass(options),
    },
  };
}

export interface LabRenderOptions extends RenderOptions {
  /** What the last synth into the output deployed the datastore with (modules/management/datastore.ts): refused if it changed. */
  datastoreMemory?: DatastoreMemory;
}

/** The datastore memory's problems, when they are the only ones: the first line they had when synth threw them alone. */
const DATASTORE_TITLE = "management: the datastore's storage cannot change under a deployed datastore";

/**
 * The lab rendered: every instance, the management plane (past the version guard), management-config
 * and every tenant. Throws one `ProblemError` with every problem found: the datastore memory's, every
 * tenant's and the management plane's together (a part's own first line when only it has problems).
 */
export function renderLab(lab: Lab, plan: PlacementPlan, options: LabRenderOptions = {}): LabRendering {
  const problems: Problem[] = [];
  const titles: string[] = [];
  const part = <T>(render: () => T): T | undefined => {
    try {
      return render();
    } catch (e) {
      if (!(e instanceof ProblemError) || e.file !== undefined) throw e;
      problems.push(...e.problems);
      titles.push(e.message.split('\n')[0]);
      return undefined;
    }
  };
  const datastore = datastoreMemoryProblems(lab.management, options.datastoreMemory);
  if (datastore.length > 0) {
    problems.push(...datastore);
    titles.push(DATASTORE_TITLE);
  }
  const tenants = part(() => renderTenants(lab, plan, options.vipMemory !== undefined ? { vipMemory: options.vipMemory } : {}));
  const management = part(() => renderManagementPlane(lab));
  if (problems.length > 0 || !tenants || !management)
    throw new ProblemError(problems, { title: titles.length === 1 ? titles[0] : renderTitle(problems.length) });
  return { instances: renderInstances(lab, plan), management, managementConfig: renderManagementConfig(lab), tenants };
}

/**
 * The one road of `validate` and `synth`: the placement plan (its problems thrown first, as one
 * `ProblemError`: nothing renders without it), then `renderLab` with every other problem at once.
 */
export function planAndRenderLab(lab: Lab, options: LabRenderOptions = {}): { plan: PlacementPlan; rendering: LabRendering } {
  const plan = planPlacement(lab);
  return { plan, rendering: renderLab(lab, plan, options) };
}
