/**
 * The stacks of `capmox.multiInstance: secondary-clusters`: the tenant stack applies the secondary
 * Clusters after the primary's control plane and destroys each machine deployment before its
 * Cluster (so CAPI drains); the management stack installs the static control plane CRD and never
 * gives CAPMOX global credentials.
 */
import { App, Testing } from 'cdktf';
import type { Lab } from '../../modules/config/schema';
import { capiProviderResources } from '../../modules/management/chart-values';
import { capmoxGlobalCredentials } from '../../modules/management/capmox-global-credentials';
import { resolveVersions } from '../../modules/versions';
import { secondaryClustersFindings } from '../../modules/versions/lab-guard';
import { ManagementStack } from '../../stacks/management-stack';
import { renderManagementPlane as renderManagement } from '../../modules/rendering';
import { renderTenant } from '../../modules/tenants';
import { TenantStack } from '../../stacks/tenant-stack';
import { labWith, planOf } from './fixtures';

const FRA_NETWORK = { addresses: ['10.20.3.10-10.20.3.60'], prefix: 24, gateway: '10.20.3.1', dnsServers: ['10.20.3.1'] };

function secondaryLab(change: (doc: any) => void = () => undefined): Lab {
  return labWith((doc) => {
    doc.capmox.multiInstance = 'secondary-clusters';
    doc.tenants[2].networks = { 'pmox-fra': FRA_NETWORK };
    change(doc);
  });
}

function synthTenant(lab: Lab, tenant: string): any {
  const app = new App({ outdir: Testing.app().outdir, skipValidation: true });
  const rendering = renderTenant(lab, planOf(lab), tenant);
  return JSON.parse(Testing.synth(new TenantStack(app, `tenant-${tenant}`, { rendering, access: lab.management.kubernetes })));
}

/** `<type>.<name>` → its depends_on, and whether one (transitively) depends on another. */
function dependency(json: any): (from: string, to: string) => boolean {
  const g = new Map<string, string[]>();
  for (const [type, resources] of Object.entries(json.resource as Record<string, Record<string, any>>)) {
    for (const [name, r] of Object.entries(resources))
      g.set(
        `${type}.${name}`,
        (r.depends_on ?? []).map((d: string) => d.replace(/^\$\{|\}$/g, '')),
      );
  }
  return (from, to) => {
    const seen = new Set<string>();
    const todo = [...(g.get(from) ?? [])];
    while (todo.length > 0) {
      const next = todo.pop() as string;
      if (next === to) return true;
      if (!seen.has(next)) {
        seen.add(next);
        todo.push(...(g.get(next) ?? []));
      }
    }
    return false;
  };
}

function manifests(json: any, kind: string, name?: string): string[] {
  return Object.entries((json.resource.kubernetes_manifest ?? {}) as Record<string, any>)
    .filter(([, r]) => r.manifest.kind === kind && (name === undefined || r.manifest.metadata.name === name))
    .map(([id]) => `kubernetes_manifest.${id}`);
}

describe('tenant stack with secondary Clusters', () => {
  const json = synthTenant(
    secondaryLab((doc) => doc.tenants[2].pools.push({ name: 'burst', autoscaling: { min: 0, max: 2 }, size: { cpu: 2, memoryMiB: 4096, diskGiB: 20 } })),
    'tenant-c',
  );
  const dependsOn = dependency(json);
  const [primary] = manifests(json, 'Cluster', 'tenant-c');
  const [secondary] = manifests(json, 'Cluster', 'tenant-c-pmox-fra');

  it('applies the secondary after the primary control plane and the fra credentials, and waits for its static control plane', () => {
    expect(primary).toBeDefined();
    expect(secondary).toBeDefined();
    expect(dependsOn(secondary, primary)).toBe(true);
    const fraCredentials = Object.keys(json.resource.kubernetes_secret_v1).find((k) => k.includes('pmox-fra'))!;
    expect(dependsOn(secondary, `kubernetes_secret_v1.${fraCredentials}`)).toBe(true);
    const resource = json.resource.kubernetes_manifest[secondary.split('.')[1]];
    expect(resource.wait).toEqual({ condition: [{ status: 'True', type: 'ControlPlaneInitialized' }] });
    expect(dependsOn(secondary, manifests(json, 'StaticControlPlane')[0])).toBe(true);
    expect(dependsOn(secondary, manifests(json, 'ProxmoxCluster')[0])).toBe(true);
  });

  it('destroys every secondary machine deployment before its Cluster and the autoscaler before them', () => {
    const mds = manifests(json, 'MachineDeployment');
    expect(mds.length).toBeGreaterThan(1);
    for (const md of mds) expect(dependsOn(md, secondary)).toBe(true);
    const autoscaler = `helm_release.${Object.keys(json.resource.helm_release)[0]}`;
    for (const md of mds) expect(dependsOn(autoscaler, md)).toBe(true);
    expect(dependsOn(manifests(json, 'MachineHealthCheck')[0], secondary)).toBe(true);
  });

  it('replaces templates before destroying the old ones, and leaves autoscaled replicas to the autoscaler', () => {
    for (const kind of ['ProxmoxMachineTemplate', 'KubeadmConfigTemplate']) {
      for (const id of manifests(json, kind)) expect(json.resource.kubernetes_manifest[id.split('.')[1]].lifecycle).toEqual({ create_before_destroy: true });
    }
    const autoscaled = Object.values(json.resource.kubernetes_manifest as Record<string, any>).filter(
      (r) => r.manifest.kind === 'MachineDeployment' && r.manifest.metadata.annotations?.['cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size'],
    );
    expect(autoscaled.length).toBeGreaterThan(0);
    // A given computed_fields replaces the provider's default (labels, annotations): both listed again.
    for (const r of autoscaled) expect(r.computed_fields).toEqual(['spec.replicas', 'metadata.labels', 'metadata.annotations']);
  });

  it('outputs the clusters per instance and the cluster of each machine deployment', () => {
    expect(json.output.clusters.value).toEqual([
      { cluster: 'tenant-c', instance: 'pmox-txl', role: 'primary' },
      { cluster: 'tenant-c-pmox-fra', instance: 'pmox-fra', role: 'secondary' },
    ]);
    for (const p of json.output.placement.value as any[]) expect(p.cluster).toBe(p.instance === 'pmox-txl' ? 'tenant-c' : 'tenant-c-pmox-fra');
  });

  it('carries no secret value: the mirror reads and writes the Secrets at run time', () => {
    const text = JSON.stringify(json);
    expect(text).not.toMatch(/BEGIN CERTIFICATE|client-key-data/);
    expect(manifests(json, 'CronJob')).toHaveLength(1);
  });
});

describe('management stack and CAPMOX credentials', () => {
  const synthManagement = (lab: Lab): any => {
    const app = new App({ outdir: Testing.app().outdir, skipValidation: true });
    return JSON.parse(Testing.synth(new ManagementStack(app, 'management', { rendering: renderManagement(lab), credentials: {} })));
  };

  it('installs the static control plane CRD and its aggregated ClusterRole in secondary-clusters mode only', () => {
    const kinds = (json: any) =>
      Object.values((json.resource.kubernetes_manifest ?? {}) as Record<string, any>).map((r) => `${r.manifest.kind}/${r.manifest.metadata.name}`);
    expect(kinds(synthManagement(secondaryLab()))).toEqual(
      expect.arrayContaining(['CustomResourceDefinition/staticcontrolplanes.controlplane.pvekaas.lab', 'ClusterRole/pvekaas-capi-static-control-plane']),
    );
    expect(kinds(synthManagement(labWith(() => undefined)))).not.toContain('CustomResourceDefinition/staticcontrolplanes.controlplane.pvekaas.lab');
  });

  it('renders the CAPMOX provider without global credentials, and would name each way to give it some', () => {
    const lab = secondaryLab();
    const resources = capiProviderResources({ management: lab.management, versions: resolveVersions({}) } as any);
    expect(resources.some((r) => r.kind === 'InfrastructureProvider')).toBe(true);
    expect(capmoxGlobalCredentials(resources)).toEqual([]);
    const withGlobal = resources.map((r) =>
      r.kind === 'InfrastructureProvider'
        ? {
            ...r,
            spec: {
              ...r.spec,
              configSecret: { name: 'capmox-manager-credentials' },
              deployment: { containers: [{ name: 'manager', env: [{ name: 'PROXMOX_URL', value: 'https://x' }] }] },
            },
          }
        : r,
    );
    expect(capmoxGlobalCredentials(withGlobal)).toEqual([
      expect.stringMatching(/sets spec\.configSecret: .*override every ProxmoxCluster's credentialsRef/),
      expect.stringMatching(/sets PROXMOX_URL on a manager container/),
    ]);
  });

  it('has the version guard warn when secondary-clusters runs on other CAPI or CAPMOX releases than it was checked against', () => {
    expect(secondaryClustersFindings('secondary-clusters', resolveVersions({}))).toEqual([]);
    expect(secondaryClustersFindings('refuse', resolveVersions({ proxmoxProvider: 'v0.10.0' }))).toEqual([]);
    const [finding] = secondaryClustersFindings('secondary-clusters', resolveVersions({ proxmoxProvider: 'v0.10.0' }));
    expect(finding).toMatchObject({ severity: 'warning', key: 'proxmoxProvider' });
    expect(finding.message).toMatch(/without global credentials.*proxmoxProvider is v0\.10\.0: re-check the route in the lab twin/);
    const lab = secondaryLab((doc) => (doc.management.versions = { proxmoxProvider: 'v0.9.1' }));
    const app = new App({ outdir: Testing.app().outdir, skipValidation: true });
    const stack = new ManagementStack(app, 'management', { rendering: renderManagement(lab), credentials: {} });
    expect(stack.warnings).toContainEqual(
      expect.stringMatching(/^management\.versions\.proxmoxProvider: capmox\.multiInstance secondary-clusters was checked against/),
    );
  });
});
