/**
 * CAPMOX v0.9.0 builds one *global* Proxmox client when its manager has `PROXMOX_URL`,
 * `PROXMOX_TOKEN` and `PROXMOX_SECRET`, and then uses it for every ProxmoxCluster, ignoring each
 * one's `credentialsRef` (`pkg/scope/cluster.go`: credentialsRef is read only when the global
 * client is nil). pvekaas gives every tenant (and every secondary Cluster of a MultiInstance
 * tenant) the credentials of its own instance through `credentialsRef`, so the management stack
 * installs CAPMOX without global credentials and refuses to render a provider resource that would
 * give it some: the operator's `configSecret` (which becomes the manager's environment) or a
 * `PROXMOX_*` variable on a manager container.
 */
import type { KubernetesObject } from './chart-values';

/** A manager container of an InfrastructureProvider (cluster-api-operator's ContainerSpec), as far as read here. */
interface ManagerContainer {
  env?: ({ name?: unknown } | null | undefined)[];
}

export const CAPMOX_GLOBAL_VARIABLES = ['PROXMOX_URL', 'PROXMOX_TOKEN', 'PROXMOX_SECRET'] as const;

/** Why a CAPMOX provider resource would give the manager global credentials; empty when it does not. */
export function capmoxGlobalCredentials(resources: readonly KubernetesObject[]): string[] {
  const problems: string[] = [];
  for (const r of resources.filter((x) => x.kind === 'InfrastructureProvider')) {
    const spec = (r.spec ?? {}) as { configSecret?: unknown; deployment?: { containers?: ManagerContainer[] }; manager?: ManagerContainer };
    const where = `${r.kind} ${r.metadata.namespace}/${r.metadata.name}`;
    if (spec.configSecret !== undefined) {
      problems.push(
        `${where} sets spec.configSecret: the operator would hand its keys to CAPMOX as environment, and PROXMOX_URL/TOKEN/SECRET there override every ProxmoxCluster's credentialsRef`,
      );
    }
    const containers: ManagerContainer[] = [...(spec.deployment?.containers ?? []), ...(spec.manager ? [spec.manager] : [])];
    for (const c of containers) {
      for (const e of c.env ?? []) {
        if (typeof e?.name === 'string' && e.name.startsWith('PROXMOX_'))
          problems.push(`${where} sets ${e.name} on a manager container: CAPMOX would use it for every ProxmoxCluster instead of its credentialsRef`);
      }
    }
  }
  return problems;
}
