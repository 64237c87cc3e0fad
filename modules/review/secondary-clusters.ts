/**
 * The review's section on secondary Clusters (capmox.multiInstance: secondary-clusters), from the
 * tenants' Clusters per instance (modules/tenants/secondary-report.ts).
 */
import { tenantClusters, type TenantClusterRow } from '../tenants/secondary-report';
import type { ReviewInput, ReviewSection } from './index';

/**
 * Review section: secondary Clusters that appear or go, with the order that keeps workers safe,
 * and what an upgrade of a tenant with secondaries does.
 */
export const secondaryClustersSection: ReviewSection = (input: ReviewInput) => {
  const before = tenantClusters(input.before.lab, input.before.plan).filter((r) => r.role === 'secondary');
  const after = tenantClusters(input.after.lab, input.after.plan).filter((r) => r.role === 'secondary');
  const key = (r: TenantClusterRow) => r.cluster;
  const was = new Set(before.map(key));
  const is = new Set(after.map(key));
  const added = after.filter((r) => !was.has(key(r)));
  const removed = before.filter((r) => !is.has(key(r)));
  const afterTenants = new Map(input.after.lab.tenants.map((t) => [t.name, t]));
  const upgraded = input.before.lab.tenants.filter((t) => {
    const now = afterTenants.get(t.name);
    return now && now.kubernetesVersion !== t.kubernetesVersion && after.some((r) => r.tenant === t.name);
  });
  if (added.length === 0 && removed.length === 0 && upgraded.length === 0) return undefined;
  const lines: string[] = [];
  const warnings: string[] = [];
  for (const r of added) {
    lines.push(
      `- tenant ${r.tenant} gains instance ${r.instance}: secondary Cluster ${r.cluster} is created after the tenant's control plane is initialized; its workers join once the secret mirror has copied the CA and kubeconfig (it runs every 5 minutes).`,
    );
  }
  for (const r of removed) {
    const tenantGone = !afterTenants.has(r.tenant);
    const line = tenantGone
      ? `tenant ${r.tenant} is deleted with its secondary Cluster ${r.cluster} on ${r.instance}`
      : `tenant ${r.tenant} leaves instance ${r.instance}: secondary Cluster ${r.cluster} is deleted. Apply tenant-${r.tenant} first, alone (\`npm run --silent deploy -- --config <lab.yaml> --stacks tenant-${r.tenant}\`): it destroys the machine deployments before the Cluster, so CAPI drains and deletes each Node and CAPMOX each VM; only then apply proxmox-${r.instance} and management, which delete the tenant's Proxmox pool and token on ${r.instance} — applied first (the deploy order), they would take the token CAPMOX needs to delete the VMs, and Proxmox refuses to delete a pool that still holds VMs. Never delete the Cluster by hand — deleting a Cluster skips drain`;
    lines.push(`- ${line}.`);
    if (!tenantGone) warnings.push(line);
  }
  for (const t of upgraded) {
    const now = afterTenants.get(t.name)!;
    const line = `tenant ${t.name} is upgraded ${t.kubernetesVersion} → ${now.kubernetesVersion} and has secondary Clusters: CAPI's preflight checks hold only the primary's workers until the control plane is upgraded; the secondaries' machine deployments roll in the same apply. Check the control plane reports ${now.kubernetesVersion} before their new machines join (or apply with the secondary pools scaled down)`;
    lines.push(`- ${line}.`);
    warnings.push(line);
  }
  return { title: 'Secondary Clusters (MultiInstance on released CAPMOX)', lines, warnings };
};
