/**
 * The topology labels of a tenant's Nodes (issue 38): every machine deployment, in the ClusterClass
 * topology and in a secondary Cluster, labels its Machines `topology.kubernetes.io/region` = its
 * Proxmox instance and `topology.kubernetes.io/zone` = its Proxmox node, the ones the Proxmox CSI
 * node plugin reads and a volume's topology names (region = the instance's cluster in the plugin's
 * config, `csiConfig`). Autoscaled ones carry them in the scale-from-zero labels too. That CAPI's
 * real core manager copies them to the Nodes is the lab twin's (test/twin/example-lab.test.ts).
 */
import { renderTenants } from '../../modules/tenants';
import { LABEL_INSTANCE, LABEL_PROXMOX_NODE } from '../../modules/tenants/names';
import { csiConfig } from '../../modules/tenants/storage';
import { SYNCED_MACHINE_LABELS } from '../../modules/versions/layout';
import { labWith, planOf } from './fixtures';

const REGION = 'topology.kubernetes.io/region';
const ZONE = 'topology.kubernetes.io/zone';
const CAPACITY_LABELS = 'capacity.cluster-autoscaler.kubernetes.io/labels';

/** Every machine deployment's Machine labels, autoscaler annotations and planned place, across tenants and Clusters. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- rendered Kubernetes objects read by path
function machineDeployments(lab: ReturnType<typeof labWith>): { where: string; labels: Record<string, string>; annotations: Record<string, string> }[] {
  const out: { where: string; labels: Record<string, string>; annotations: Record<string, string> }[] = [];
  for (const [tenant, r] of renderTenants(lab, planOf(lab))) {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    for (const md of (r.cluster as any).spec.topology.workers.machineDeployments as any[])
      out.push({ where: `${tenant} topology ${md.name}`, labels: md.metadata.labels, annotations: md.metadata.annotations ?? {} });
    for (const sc of r.secondaries?.clusters ?? [])
      for (const m of sc.machineDeployments) {
        // eslint-disable-next-line @typescript-eslint/no-explicit-any
        const spec = m.machineDeployment.spec as any;
        out.push({
          where: `${tenant} ${sc.name} ${m.machineDeployment.metadata.name}`,
          labels: spec.template.metadata.labels,
          annotations: m.machineDeployment.metadata.annotations ?? {},
        });
      }
  }
  return out;
}

describe('topology labels on the tenants’ Machines', () => {
  it.each(['as the example lab', 'secondary-clusters'])('labels every machine deployment with its instance as region and its node as zone (%s)', (mode) => {
    const lab = labWith((doc) => {
      if (mode === 'secondary-clusters') {
        doc.capmox.multiInstance = 'secondary-clusters';
        doc.tenants[2].networks = { 'pmox-fra': { addresses: ['10.20.3.10-10.20.3.60'], prefix: 24, gateway: '10.20.3.1', dnsServers: ['10.20.3.1'] } };
      }
    });
    const mds = machineDeployments(lab);
    expect(mds.length).toBeGreaterThan(3);
    for (const md of mds) {
      expect({ where: md.where, region: md.labels[REGION], zone: md.labels[ZONE] }).toEqual({
        where: md.where,
        region: md.labels[LABEL_INSTANCE],
        zone: md.labels[LABEL_PROXMOX_NODE],
      });
      expect(md.labels[REGION]).toMatch(/^pmox-/);
      // The core manager's sync expression selects both.
      expect([REGION, ZONE].map((k) => new RegExp(SYNCED_MACHINE_LABELS).test(k))).toEqual([true, true]);
    }
    // The instances the labels name are the regions of the plugin's config.
    const regions = new Set((csiConfig(lab.proxmox.instances) as { clusters: { region: string }[] }).clusters.map((c) => c.region));
    for (const md of mds) expect({ where: md.where, known: regions.has(md.labels[REGION]) }).toEqual({ where: md.where, known: true });
  });

  it('gives the autoscaler the same labels for a node group scaled from zero', () => {
    const mds = machineDeployments(labWith(() => undefined)).filter((m) => m.annotations[CAPACITY_LABELS]);
    expect(mds.length).toBeGreaterThan(0);
    for (const md of mds) {
      const labels = Object.fromEntries(md.annotations[CAPACITY_LABELS].split(',').map((kv) => kv.split('=')));
      expect({ where: md.where, region: labels[REGION], zone: labels[ZONE] }).toEqual({ where: md.where, region: md.labels[REGION], zone: md.labels[ZONE] });
    }
  });
});
