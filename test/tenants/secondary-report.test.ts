/**
 * Each tenant's Clusters per instance, as the placement report and the review show them
 * (modules/tenants/secondary-report.ts): the same as the tenant stacks' `clusters` output, and the
 * review names the order a secondary Cluster needs when it appears, goes, or is upgraded.
 */
import type { Lab } from '../../modules/config/schema';
import { renderTenants } from '../../modules/tenants';
import { review } from '../../modules/review';
import { renderClustersMarkdown, tenantClusters } from '../../modules/tenants/secondary-report';
import { secondaryClustersSection } from '../../modules/review/secondary-clusters';
import { labWith, planOf } from './fixtures';

const FRA_NETWORK = { addresses: ['10.20.3.10-10.20.3.60'], prefix: 24, gateway: '10.20.3.1', dnsServers: ['10.20.3.1'] };

function secondaryLab(change: (doc: any) => void = () => undefined): Lab {
  return labWith((doc) => {
    doc.capmox.multiInstance = 'secondary-clusters';
    doc.tenants[2].networks = { 'pmox-fra': FRA_NETWORK };
    change(doc);
  });
}

const side = (lab: Lab, label: string) => ({ lab, plan: planOf(lab), label });

describe('clusters per instance', () => {
  it('are what the tenant stacks output, for every tenant', () => {
    const lab = secondaryLab();
    const plan = planOf(lab);
    const fromStacks = [...renderTenants(lab, plan)].flatMap(([tenant, r]) => r.clusters.map((c) => ({ tenant, ...c })));
    expect(tenantClusters(lab, plan)).toEqual(fromStacks);
    expect(tenantClusters(lab, plan).filter((r) => r.role === 'secondary')).toEqual([
      { tenant: 'tenant-c', cluster: 'tenant-c-pmox-fra', instance: 'pmox-fra', role: 'secondary' },
    ]);
    expect(renderClustersMarkdown(lab, plan)).toContain('| tenant-c | tenant-c-pmox-fra | pmox-fra | secondary (workers join the primary) |');
  });

  it('show a proposal tenant as one Cluster over its instances', () => {
    const lab = labWith(() => undefined);
    expect(tenantClusters(lab, planOf(lab)).find((r) => r.tenant === 'tenant-c')).toEqual({
      tenant: 'tenant-c',
      cluster: 'tenant-c',
      instance: 'pmox-txl, pmox-fra',
      role: 'primary',
    });
  });
});

describe('the review of secondary Clusters', () => {
  // Three workers: they fit on pmox-txl alone.
  const both = secondaryLab((doc) => (doc.tenants[2].pools[0].replicas = 3));
  const txlOnly = secondaryLab((doc) => {
    doc.tenants[2].pools[0].replicas = 3;
    doc.tenants[2].placement.instances = ['pmox-txl'];
    delete doc.tenants[2].networks;
  });

  it('says how a secondary Cluster comes up when a tenant gains an instance', () => {
    const section = secondaryClustersSection({ before: side(txlOnly, 'base'), after: side(both, 'change') })!;
    expect(section.lines).toEqual([
      expect.stringMatching(
        /^- tenant tenant-c gains instance pmox-fra: secondary Cluster tenant-c-pmox-fra is created after the tenant's control plane is initialized/,
      ),
    ]);
    expect(section.warnings).toEqual([]);
  });

  it('warns that an instance leaving a plan goes through the stack (drain first), never by deleting the Cluster', () => {
    const r = review({ before: side(both, 'base'), after: side(txlOnly, 'change') });
    expect(r.warnings).toContainEqual(
      expect.stringMatching(
        /^tenant tenant-c leaves instance pmox-fra: secondary Cluster tenant-c-pmox-fra is deleted\. Apply tenant-tenant-c first, alone .* deleting a Cluster skips drain$/,
      ),
    );
    // The order the lab twin needed (test/twin/multi-instance.test.ts): the tenant stack before the instance stack that holds its token.
    const warning = r.warnings.find((w) => w.startsWith('tenant tenant-c leaves instance pmox-fra'))!;
    expect(warning).toContain('npm run --silent deploy -- --config <lab.yaml> --stacks tenant-tenant-c');
    expect(warning.indexOf('tenant-tenant-c')).toBeLessThan(warning.indexOf('proxmox-pmox-fra'));
    expect(r.markdown).toContain('Secondary Clusters (MultiInstance on released CAPMOX)');
  });

  it('warns that an upgrade rolls the secondaries in the same apply as the control plane', () => {
    // Only the tenant's version matters to this section; the rest of the lab stays as it is.
    const upgraded: Lab = { ...both, tenants: both.tenants.map((t) => (t.name === 'tenant-c' ? { ...t, kubernetesVersion: 'v1.36.1' } : t)) };
    const section = secondaryClustersSection({ before: side(both, 'base'), after: side(upgraded, 'change') });
    expect(section?.warnings).toEqual([expect.stringMatching(/^tenant tenant-c is upgraded v1\.35\.4 → v1\.36\.1 and has secondary Clusters/)]);
  });

  it('stays out of reviews without secondary Clusters', () => {
    const lab = labWith(() => undefined);
    expect(secondaryClustersSection({ before: side(lab, 'a'), after: side(lab, 'b') })).toBeUndefined();
  });
});
