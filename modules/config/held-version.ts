/**
 * A held-back node group of a staged surge of an upgrade cannot replace a lost machine until its
 * own step. The control plane moves in step 1's surge; a held group keeps its old machine
 * deployment at the old version (defer-upgrade). Should one of its machines die (a MachineHealthCheck
 * remediates it), its MachineSet must create a machine at the old version, and CAPI's MachineSet
 * preflight refuses (sigs.k8s.io/cluster-api@v1.13.6 internal/controllers/machineset/machineset_preflight.go,
 * runPreflightChecks, called for "Scale up" and "Machine remediation" in machineset_controller.go):
 *   - ControlPlaneVersionSkew (controlPlaneVersionPreflightCheck): a topology (ClusterClass) cluster's
 *     MachineSet version must equal the control plane's, so any upgrade, patch or minor;
 *   - KubeadmVersionSkew (kubeadmVersionPreflightCheck): with a KubeadmConfigTemplate, the minor must
 *     equal the control plane's, so a minor upgrade.
 * Skipping them (annotation machineset.cluster.x-k8s.io/skip-preflight-checks) is no fix offered: the
 * old kubeadm would join a newer-minor control plane outside kubeadm's skew policy (same minor, the
 * policy kubeadmVersionPreflightCheck cites). So the group
 * stays below its replicas until it surges: said before the step, with what to do.
 */
import { flowYaml } from './flow-yaml';
import type { Problem } from './problems';
import type { Lab, Tenant } from './schema';

const minorOf = (v: string) => v.replace(/^v/, '').split('.').slice(0, 2).join('.');

/** The preflight checks of CAPI v1.13.6 that refuse a machine at `from` beside a control plane at `to`. */
export function refusingChecks(from: string, to: string): string[] {
  if (from === to) return [];
  return minorOf(from) === minorOf(to) ? ['ControlPlaneVersionSkew'] : ['ControlPlaneVersionSkew', 'KubeadmVersionSkew'];
}

/** The `previous` that surges `group` next, the other held groups still held (the form upgrade-plan prints). */
export function surgeNextPrevious(tenant: Tenant, group: string): Record<string, unknown> {
  const rest = (tenant.previous?.stage?.hold ?? []).filter((g) => g !== group);
  const { stage: _stage, ...was } = tenant.previous ?? {};
  return { ...was, stage: { surge: [group], ...(rest.length > 0 ? { hold: rest } : {}) } };
}

/** One warning per held group (`tenants[i].previous.stage.hold[j]`) of a staged surge of an upgrade. */
export function heldVersionWarnings(lab: Lab): Problem[] {
  return lab.tenants.flatMap((tenant, i): Problem[] => {
    const from = tenant.previous?.kubernetesVersion;
    const hold = tenant.previous?.stage?.hold ?? [];
    if (from === undefined || hold.length === 0) return [];
    const checks = refusingChecks(from, tenant.kubernetesVersion);
    if (checks.length === 0) return [];
    return hold.map((group, j): Problem => {
      const [pool] = group.split('/');
      return {
        path: ['tenants', i, 'previous', 'stage', 'hold', j],
        message:
          `tenant ${tenant.name}: held-back node group ${group} stays at ${from} while the control plane runs ${tenant.kubernetesVersion}: ` +
          `if it loses a machine, CAPI's MachineSet preflight refuses the ${from} replacement (${checks.join(', ')}), so pool ${pool} stays below its replicas there until the group surges`,
        value: group,
        fix:
          `surge it next if it does: once this step's new Nodes are Ready, set tenants[${i}].previous: ${flowYaml(surgeNextPrevious(tenant, group))} ` +
          `and deploy (npm run --silent upgrade-plan says it fits); or, before step 1, make room so the groups surge together`,
        severity: 'warning',
      };
    });
  });
}
