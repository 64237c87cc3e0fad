/**
 * `pvekaas release-volumes`: the step before a tenant's `tofu destroy` when it has volumes
 * (docs/storage.md, "Deleting a tenant"; the step itself: tenant-volumes.ts). The tenant API server
 * is reached with the tenant's admin kubeconfig — the `<tenant>-kubeconfig` Secret Kamaji's
 * provider writes in the tenant's management namespace (as the CSI sidecars and the autoscaler
 * reach it), or `--tenant-kubeconfig`. Without `yes`, it shows what it would delete and keep, and
 * deletes nothing. The lab twin's tenant delete runs `tenantClientFromSecret` and the same step.
 */
import { loadLabFile } from '../../modules/config/load';
import type { Lab } from '../../modules/config/schema';
import { kubeconfigSecretName, tenantNamespace } from '../../modules/tenants/names';
import { UserError } from './cli';
import type { KubeClient } from './kube-apiserver';
import { kubeconfigSource, managementAccess } from './kubeconfig';
import { planVolumeRelease, releaseTenantVolumes, retainedLines, type VolumeRelease } from './tenant-volumes';

export interface ReleaseVolumesOptions {
  config: string;
  tenant: string;
  kubeconfig?: string;
  context?: string;
  tenantKubeconfig?: string;
  yes: boolean;
  timeoutMs?: number;
  env?: Readonly<Record<string, string | undefined>>;
  log?: (line: string) => void;
}

/** The tenant API server through its kubeconfig Secret in the management cluster. */
export async function tenantClientFromSecret(management: KubeClient, lab: Lab, tenant: string): Promise<{ client: KubeClient; server: string }> {
  const t = lab.tenants.find((x) => x.name === tenant)!;
  const ns = tenantNamespace(t);
  const name = kubeconfigSecretName(t);
  const r = await management.get(`/api/v1/namespaces/${encodeURIComponent(ns)}/secrets/${encodeURIComponent(name)}`);
  if (r.status !== 200 || typeof r.body?.data?.value !== 'string')
    throw new UserError(
      `tenant ${tenant}: its kubeconfig Secret ${ns}/${name} cannot be read from the management cluster (HTTP ${r.status})\n` +
        '  fix: use a management kubeconfig that may get Secrets in the tenant namespace, or pass --tenant-kubeconfig <file>',
    );
  const text = Buffer.from(r.body.data.value, 'base64').toString('utf8');
  const access = managementAccess({ file: `Secret ${ns}/${name}`, from: 'the management cluster', text });
  return { client: access.client, server: access.server };
}

/** What the step would do, as lines: claims, Pods and StatefulSets to delete, volumes that stay. */
export function releaseLines(tenant: string, plan: VolumeRelease): string[] {
  const lines = [
    plan.claims.length === 0
      ? `tenant ${tenant}: no claim bound to a Delete volume of the Proxmox CSI driver`
      : `tenant ${tenant}: ${plan.claims.length} claim(s) of Delete volumes to delete (the CSI controller deletes their disks):`,
    ...plan.claims.map((c) => `  claim ${c.namespace}/${c.name} (PV ${c.pv})`),
    ...plan.statefulSets.map((s) => `  statefulset ${s.namespace}/${s.name} first (orphaning its Pods: it would recreate them and their claims)`),
    ...plan.pods.map((p) => `  pod ${p.namespace}/${p.name} (it uses one of those claims)`),
    ...retainedLines(tenant, plan.retained),
  ];
  return lines;
}

export async function runReleaseVolumes(options: ReleaseVolumesOptions): Promise<{ output: string; plan: VolumeRelease }> {
  const lab = loadLabFile(options.config);
  const tenant = lab.tenants.find((t) => t.name === options.tenant);
  if (!tenant)
    throw new UserError(`${options.config}: no tenant ${options.tenant} in the lab\n  fix: --tenant one of ${lab.tenants.map((t) => t.name).join(', ')}`);
  if (!tenant.storage?.classes?.length)
    throw new UserError(
      `${options.config}: tenant ${options.tenant} has no storage classes: it has no volumes to release\n  fix: destroy its stack directly (docs/usage.md, "Tenants")`,
    );
  let client: KubeClient;
  let server: string;
  if (options.tenantKubeconfig) {
    const access = managementAccess({ file: options.tenantKubeconfig, context: options.context, from: '--tenant-kubeconfig' });
    ({ client, server } = access);
  } else {
    const management = managementAccess(kubeconfigSource(lab, { kubeconfig: options.kubeconfig, context: options.context }, options.env ?? process.env));
    try {
      ({ client, server } = await tenantClientFromSecret(management.client, lab, options.tenant));
    } finally {
      management.client.close();
    }
  }
  const log = options.log ?? (() => {});
  try {
    const list = async (path: string) => {
      const r = await client.get(path);
      if (r.status !== 200) throw new UserError(`the tenant API server ${server}: GET ${path}: HTTP ${r.status} (${r.body?.message ?? r.text})`);
      return r.body.items;
    };
    const plan = planVolumeRelease(await list('/api/v1/persistentvolumes'), await list('/api/v1/persistentvolumeclaims'), await list('/api/v1/pods'));
    const lines = releaseLines(options.tenant, plan);
    if (!options.yes) {
      lines.push(
        plan.claims.length === 0
          ? `nothing to delete: tenant ${options.tenant}'s stack can be destroyed`
          : `nothing deleted: run again with --yes to delete these, then destroy tenant ${options.tenant}'s stack once this command has finished`,
      );
      return { output: `${lines.join('\n')}\n`, plan };
    }
    const done = await releaseTenantVolumes(client, options.tenant, { timeoutMs: options.timeoutMs, log });
    return { output: `${[...releaseLines(options.tenant, done), `tenant ${options.tenant}'s stack can now be destroyed`].join('\n')}\n`, plan: done };
  } finally {
    client.close();
  }
}
