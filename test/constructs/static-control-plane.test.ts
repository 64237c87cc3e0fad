/** StaticControlPlane writes the rendered CRD and ClusterRole, after what it is told to wait for. */
import { TerraformOutput } from 'cdktf';
import { StaticControlPlane } from '../../constructs/static-control-plane';
import { staticControlPlaneClusterRole, staticControlPlaneCrd } from '../../modules/tenants/static-control-plane';
import { kubernetes, resourcesOf, synthJson } from './support';

describe('StaticControlPlane', () => {
  it('writes exactly the CRD and ClusterRole it is given, each after its dependencies', () => {
    const crd = staticControlPlaneCrd();
    const clusterRole = staticControlPlaneClusterRole();
    const json = synthJson((stack) => {
      const provider = kubernetes(stack);
      const before = new StaticControlPlane(stack, 'first', { provider, crd: { ...crd, metadata: { ...crd.metadata, name: 'x.example' } }, clusterRole });
      new StaticControlPlane(stack, 'static-control-plane', { provider, crd, clusterRole, dependsOn: [before.crd] });
      new TerraformOutput(stack, 'o', { value: 1 });
    });
    const written = resourcesOf(json, 'kubernetes_manifest');
    const ours = Object.entries(written).filter(([k]) => k.startsWith('static-control-plane_'));
    expect(ours.map(([k]) => k.replace(/_[0-9A-F]{8}$/, '')).sort()).toEqual(['static-control-plane_cluster-role', 'static-control-plane_crd']);
    expect(ours.find(([k]) => k.includes('_crd_'))![1].manifest).toEqual(JSON.parse(JSON.stringify(crd)));
    expect(ours.find(([k]) => k.includes('_cluster-role_'))![1].manifest).toEqual(JSON.parse(JSON.stringify(clusterRole)));
    for (const [, r] of ours) expect(r.depends_on).toEqual([expect.stringMatching(/^kubernetes_manifest\.first_crd_[0-9A-F]{8}$/)]);
  });
});
