/** TenantSecondaries writes every object of the rendered secondaries, after the primary, autoscaled replicas left to the autoscaler. */
import { TerraformOutput } from 'cdktf';
import { KubernetesManifest } from '../../constructs/providers/kubernetes-manifest';
import { TenantSecondaries, SECONDARY_AUTOSCALED_COMPUTED_FIELDS } from '../../constructs/tenant-secondaries';
import { planPlacement } from '../../modules/placement';
import { renderTenant } from '../../modules/tenants';
import { exampleLab } from '../management/synth';
import { resourcesOf, synthJson } from './support';

describe('TenantSecondaries', () => {
  it('writes exactly the rendered objects, each after the primary Cluster', () => {
    const lab = exampleLab((doc) => {
      doc.capmox.multiInstance = 'secondary-clusters';
      doc.tenants[2].networks = { 'pmox-fra': { addresses: ['10.20.3.10-10.20.3.60'], prefix: 24, gateway: '10.20.3.1', dnsServers: ['10.20.3.1'] } };
    });
    const secondaries = renderTenant(lab, planPlacement(lab), 'tenant-c').secondaries!;
    expect(secondaries.clusters.length).toBeGreaterThan(0);
    const json = synthJson((stack) => {
      const namespace = new KubernetesManifest(stack, 'namespace', { manifest: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'tenant-c' } } });
      const primary = new KubernetesManifest(stack, 'primary', {
        manifest: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'p', namespace: 'tenant-c' } },
      });
      const s = new TenantSecondaries(stack, 'secondaries', { secondaries, namespace, primary, credentials: {} });
      new TerraformOutput(stack, 'mds', { value: s.machineDeployments.length });
    });
    const written = Object.entries(resourcesOf(json, 'kubernetes_manifest')).filter(([k]) => k.startsWith('secondaries_'));
    const expected = [
      secondaries.mirror.serviceAccount,
      secondaries.mirror.role,
      secondaries.mirror.roleBinding,
      secondaries.mirror.cronJob,
      ...secondaries.clusters.flatMap((sc) => [
        sc.controlPlane,
        sc.proxmoxCluster,
        sc.cluster,
        ...sc.machineDeployments.flatMap((md) => [md.bootstrapTemplate, md.machineTemplate, md.machineDeployment, sc.healthChecks.get(md.name)!]),
      ]),
    ];
    const key = (o: any) => `${o.kind} ${o.metadata.name}`;
    const sortKeys = (v: any): any =>
      Array.isArray(v)
        ? v.map(sortKeys)
        : v && typeof v === 'object'
          ? Object.fromEntries(
              Object.keys(v)
                .sort()
                .map((k) => [k, sortKeys(v[k])]),
            )
          : v;
    const canon = (list: any[]) => list.map((o) => JSON.stringify(sortKeys(JSON.parse(JSON.stringify(o))))).sort();
    expect(
      canon(
        written.map(([, r]) =>
          JSON.parse(
            JSON.stringify(r.manifest)
              .replace(/\$\$\{/g, '${')
              .replace(/%%\{/g, '%{'),
          ),
        ),
      ),
    ).toEqual(canon(expected));
    expect(written).toHaveLength(expected.length);
    // Ids from names: `<instance>-<machine deployment>-…`, never list positions.
    for (const sc of secondaries.clusters)
      for (const md of sc.machineDeployments)
        expect(written.some(([k]) => k.startsWith(`secondaries_${sc.instance}-${md.name}-machine-deployment_`))).toBe(true);
    for (const sc of secondaries.clusters) {
      const [, cluster] = written.find(([, r]) => key(r.manifest) === key(sc.cluster))!;
      expect(cluster.wait).toEqual({ condition: [{ type: 'ControlPlaneInitialized', status: 'True' }] });
      for (const md of sc.machineDeployments) {
        const [, r] = written.find(([, x]) => key(x.manifest) === key(md.machineDeployment))!;
        expect(r.computed_fields).toEqual(md.plan.scale.kind === 'autoscaled' ? [...SECONDARY_AUTOSCALED_COMPUTED_FIELDS] : undefined);
      }
    }
    const [, cron] = written.find(([, r]) => r.manifest.kind === 'CronJob')!;
    expect(cron.depends_on).toEqual(expect.arrayContaining([expect.stringMatching(/^kubernetes_manifest\.primary(_|$)/)]));
  });
});
