/**
 * MultiInstance tenants on released CAPMOX (`capmox.multiInstance: secondary-clusters`): the
 * secondary Clusters, checked offline — against the pinned CRDs plus pvekaas's static control
 * plane, against what the class makes for a primary on the same instance (one source), and as a
 * property over many labs (every planned machine in exactly one Cluster, on its instance).
 */
import { join } from 'node:path';
import { loadCrds, validateManifest, type CrdSet } from '../support/crds';
import type { Lab } from '../../modules/config/schema';
import { fixedReplicas } from '../../modules/placement/scale';
import { ProblemError } from '../../modules/config/problems';
import { clusterClass, clusterClassTemplates } from '../../modules/tenants/cluster-class';
import { renderTenant, renderTenants } from '../../modules/tenants';
import { LABEL_CNI } from '../../modules/tenants/names';
import { secondaryClusterName } from '../../modules/tenants/secondary';
import { mirrorScript } from '../../modules/tenants/secondary-mirror';
import { STATIC_CONTROL_PLANE_KIND } from '../../modules/tenants/static-control-plane';
import { generate } from './topology';
import { labWith, pinnedCrds, planOf, projectRoot } from './fixtures';

const FRA_NETWORK = { addresses: ['10.20.3.10-10.20.3.60'], prefix: 24, gateway: '10.20.3.1', dnsServers: ['10.20.3.1'] };

/** The example lab in secondary-clusters mode: tenant-c on pmox-txl (primary) and pmox-fra (secondary). */
function secondaryLab(change: (doc: any) => void = () => undefined): Lab {
  return labWith((doc) => {
    doc.capmox.multiInstance = 'secondary-clusters';
    doc.tenants[2].networks = { 'pmox-fra': FRA_NETWORK };
    change(doc);
  });
}

let crdSet: CrdSet | undefined;
/** The pinned upstream CRDs plus pvekaas's static control plane. */
function crds(): CrdSet {
  if (!crdSet) {
    const pinned = pinnedCrds();
    const own = loadCrds(join(projectRoot, 'crds/pvekaas'));
    crdSet = { crds: new Map([...pinned.crds, ...own.crds]), validators: new Map(), ajv: pinned.ajv };
  }
  return crdSet;
}

describe('secondary Clusters (capmox.multiInstance: secondary-clusters)', () => {
  it('keeps the primary on the first instance and puts each other instance of the plan in a secondary Cluster', () => {
    const lab = secondaryLab();
    const plan = planOf(lab);
    const r = renderTenant(lab, plan, 'tenant-c');
    const planned = plan.tenants.find((t) => t.name === 'tenant-c')!;
    const topology = (r.cluster as any).spec.topology.workers.machineDeployments;
    expect(topology.length).toBeGreaterThan(0);
    for (const md of topology) expect(md.metadata.labels['node.cluster.x-k8s.io/proxmox-instance']).toBe('pmox-txl');

    expect(r.clusters).toEqual([
      { cluster: 'tenant-c', instance: 'pmox-txl', role: 'primary' },
      { cluster: 'tenant-c-pmox-fra', instance: 'pmox-fra', role: 'secondary' },
    ]);
    const [sc] = r.secondaries!.clusters;
    const onFra = planned.pools.flatMap((p) => p.placements.filter((x) => x.instance === 'pmox-fra').map((x) => ({ pool: p.name, ...x })));
    expect(
      sc.machineDeployments
        .map((m) => ({ node: m.plan.nodes[0], replicas: (m.machineDeployment.spec as any).replicas }))
        .sort((a, b) => a.node.localeCompare(b.node)),
    ).toEqual(onFra.map((x) => ({ node: x.node, replicas: fixedReplicas(x.scale) })).sort((a, b) => a.node.localeCompare(b.node)));

    const spec = sc.proxmoxCluster.spec as any;
    expect(spec.credentialsRef).toEqual({ name: 'capmox-pmox-fra-credentials' });
    expect(spec.allowedNodes).toEqual([...new Set(onFra.map((x) => x.node))].sort());
    expect(spec.ipv4Config).toEqual({ addresses: FRA_NETWORK.addresses, prefix: 24, gateway: FRA_NETWORK.gateway });
    expect(spec.dnsServers).toEqual(FRA_NETWORK.dnsServers);
    expect(spec.externalManagedControlPlane).toBe(true);
    expect(spec.controlPlaneEndpoint).toEqual({ host: r.vip.vip, port: 6443 });

    const cluster = sc.cluster as any;
    expect(cluster.spec.controlPlaneRef).toEqual({ apiGroup: 'controlplane.pvekaas.lab', kind: STATIC_CONTROL_PLANE_KIND, name: 'tenant-c-pmox-fra' });
    expect(cluster.spec.infrastructureRef).toEqual({ apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'ProxmoxCluster', name: 'tenant-c-pmox-fra' });
    expect(cluster.spec.clusterNetwork).toEqual((r.cluster as any).spec.clusterNetwork);
    expect(cluster.spec.topology).toBeUndefined();
    // The CNI HelmChartProxy selects the primary only: the CNI goes into the tenant cluster once.
    expect(cluster.metadata.labels[LABEL_CNI]).toBeUndefined();
    expect((r.cluster as any).metadata.labels[LABEL_CNI]).toBe('cilium');
    // The tenant's version: CAPI's MachineSet preflight checks hold the secondary's workers to it.
    expect((sc.controlPlane.spec as any).version).toBe('v1.35.4');

    for (const m of sc.machineDeployments) {
      const md = m.machineDeployment as any;
      expect(md.spec.clusterName).toBe('tenant-c-pmox-fra');
      expect(md.spec.template.spec.version).toBe('v1.35.4');
      expect(md.spec.template.spec.infrastructureRef.name).toBe(m.machineTemplate.metadata.name);
      expect(md.spec.template.spec.bootstrap.configRef.name).toBe(m.bootstrapTemplate.metadata.name);
      // What CAPI's MachineDeployment webhook would add (cluster-name) is rendered in both maps.
      expect(md.spec.selector.matchLabels).toEqual({
        'cluster.x-k8s.io/deployment-name': md.metadata.name,
        'cluster.x-k8s.io/cluster-name': 'tenant-c-pmox-fra',
      });
      expect(md.spec.template.metadata.labels).toMatchObject(md.spec.selector.matchLabels);
    }
    // One MachineHealthCheck per machine deployment, selecting that machine deployment's machines only.
    expect([...sc.healthChecks.keys()]).toEqual(sc.machineDeployments.map((m) => m.name));
    for (const m of sc.machineDeployments) {
      const mhc = sc.healthChecks.get(m.name)!.spec as any;
      expect(mhc.clusterName).toBe('tenant-c-pmox-fra');
      expect(mhc.selector).toEqual({ matchLabels: { 'cluster.x-k8s.io/deployment-name': m.machineDeployment.metadata.name } });
      expect((m.machineDeployment.spec as any).template.metadata.labels['cluster.x-k8s.io/deployment-name']).toBe(m.machineDeployment.metadata.name);
    }
  });

  it('renders every secondary object valid against the pinned CRDs and the static control plane CRD', () => {
    const lab = secondaryLab((doc) => {
      doc.tenants[2].pools.push({ name: 'burst', autoscaling: { min: 0, max: 3 }, size: { cpu: 2, memoryMiB: 4096, diskGiB: 30 } });
    });
    const r = renderTenant(lab, planOf(lab), 'tenant-c');
    const objects = r.secondaries!.clusters.flatMap((sc) => [
      sc.cluster,
      sc.controlPlane,
      sc.proxmoxCluster,
      ...sc.healthChecks.values(),
      ...sc.machineDeployments.flatMap((m) => [m.machineDeployment, m.bootstrapTemplate, m.machineTemplate]),
    ]);
    expect(objects.length).toBeGreaterThan(6);
    for (const o of objects) expect(validateManifest(o, crds())).toEqual([]);
    const autoscaled = r.secondaries!.clusters.flatMap((sc) => sc.machineDeployments).filter((m) => m.plan.scale.kind === 'autoscaled');
    expect(autoscaled.length).toBeGreaterThan(0);
    for (const m of autoscaled) {
      expect((m.machineDeployment.spec as any).replicas).toBeUndefined();
      expect(m.machineDeployment.metadata.annotations?.['cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size']).toBe(
        String(m.plan.scale.kind === 'autoscaled' ? m.plan.scale.max : undefined),
      );
    }
    // One autoscaler scales the primary's and the secondaries' machine deployments: discovery by namespace.
    expect(r.autoscaler!.values.autoDiscovery).toEqual({ namespace: 'tenant-c' });
  });

  it('renders what the class makes for a primary on the same instance: one source for both', () => {
    const lab = secondaryLab();
    const r = renderTenant(lab, planOf(lab), 'tenant-c');
    const [sc] = r.secondaries!.clusters;
    // The same tenant with a primary on pmox-fra (released class, fra's network), through a model of the topology controller.
    const single = labWith((doc) => {
      doc.capmox.multiInstance = 'refuse';
      doc.tenants[2].placement = { mode: 'SingleInstance', instances: ['pmox-fra'] };
      doc.tenants[2].network = FRA_NETWORK;
    });
    const primary = renderTenant(single, planOf(single), 'tenant-c');
    const options = { dataStoreName: 'default', multiInstance: 'refuse' as const };
    const generated = generate(clusterClass(options), clusterClassTemplates(options), primary.cluster);
    let compared = 0;
    for (const m of sc.machineDeployments) {
      const twin = primary.machineDeployments.find((md) => md.nodes[0] === m.plan.nodes[0] && md.pool === m.plan.pool);
      if (!twin) continue;
      compared++;
      expect((m.machineTemplate.spec as any).template.spec).toEqual((generated.machineTemplates.get(twin.name)!.spec as any).template.spec);
      expect((m.bootstrapTemplate.spec as any).template.spec).toEqual((generated.bootstrapTemplates.get(twin.name)!.spec as any).template.spec);
    }
    expect(compared).toBe(sc.machineDeployments.length);
    const { allowedNodes: _a, controlPlaneEndpoint: _e, ...secondaryInfra } = sc.proxmoxCluster.spec as any;
    const { allowedNodes: _b, ...primaryInfra } = generated.infrastructureCluster.spec as any;
    expect(secondaryInfra).toEqual(primaryInfra);
  });

  it('names templates by their content: a size change renames them, an unrelated change does not', () => {
    const names = (lab: Lab) =>
      renderTenant(lab, planOf(lab), 'tenant-c').secondaries!.clusters[0].machineDeployments.map((m) => [
        m.machineTemplate.metadata.name,
        m.bootstrapTemplate.metadata.name,
      ]);
    const base = names(secondaryLab());
    expect(names(secondaryLab((doc) => (doc.tenants[2].groups = ['team-c'])))).toEqual(base);
    const bigger = names(secondaryLab((doc) => (doc.tenants[2].pools[0].size.memoryMiB = 16384)));
    // The machine deployments keep their names: CAPI rolls them to the new templates (surge, drain).
    const mdNames = (lab: Lab) =>
      renderTenant(lab, planOf(lab), 'tenant-c').secondaries!.clusters[0].machineDeployments.map((m) => m.machineDeployment.metadata.name);
    expect(mdNames(secondaryLab((doc) => (doc.tenants[2].pools[0].size.memoryMiB = 16384)))).toEqual(mdNames(secondaryLab()));
    for (const [i, [machine, bootstrap]] of bigger.entries()) {
      expect(base.map(([m]) => m)).not.toContain(machine);
      // The bootstrap content did not change: same content hash (the machine deployment's name may carry the size).
      expect(bootstrap.slice(-10)).toBe(base[i][1].slice(-10));
    }
  });

  it('mirrors the CA certificate and the kubeconfig without any secret value in the rendering', () => {
    const lab = secondaryLab();
    const r = renderTenant(lab, planOf(lab), 'tenant-c');
    const mirror = r.secondaries!.mirror;
    const script = (mirror.cronJob.spec as any).jobTemplate.spec.template.spec.containers[0].command[2];
    expect(script).toBe(mirrorScript(lab.tenants[2], ['tenant-c-pmox-fra']));
    expect(script).toContain("get secret tenant-c-ca -o 'jsonpath={.data.tls\\.crt}'");
    // The CA copy carries the key: CABPK refuses a worker join without it (util/secret EnsureAllExist).
    expect(script).toContain("get secret tenant-c-ca -o 'jsonpath={.data.tls\\.key}'");
    expect(script).toContain('copykc tenant-c-pmox-fra');
    expect(script).toContain('copyca tenant-c-pmox-fra');
    expect(script).toContain('"cluster.x-k8s.io/cluster-name":"%s"');
    const rules = (mirror.role as any).rules;
    expect(rules).toContainEqual({ apiGroups: [''], resources: ['secrets'], verbs: ['get'], resourceNames: ['tenant-c-ca', 'tenant-c-kubeconfig'] });
    for (const rule of rules) expect(rule.verbs).not.toEqual(expect.arrayContaining(['delete', 'list', 'watch', '*']));
    expect(JSON.stringify(r.secondaries)).not.toMatch(/BEGIN CERTIFICATE|client-key-data|PVEAPIToken/);
  });

  it('is the default: a lab without capmox renders a spanning tenant as secondary Clusters; refuse must be written out', () => {
    const implicit = labWith((doc) => {
      delete doc.capmox;
      doc.tenants[2].networks = { 'pmox-fra': FRA_NETWORK };
    });
    expect(implicit.capmox.multiInstance).toBe('secondary-clusters');
    expect(renderTenant(implicit, planOf(implicit), 'tenant-c').clusters).toEqual([
      { cluster: 'tenant-c', instance: 'pmox-txl', role: 'primary' },
      { cluster: 'tenant-c-pmox-fra', instance: 'pmox-fra', role: 'secondary' },
    ]);
    const refuse = labWith((doc) => (doc.capmox.multiInstance = 'refuse'));
    expect(() => renderTenants(refuse, planOf(refuse))).toThrow(/binds a Cluster to one Proxmox API/);
  });

  it('leaves the other modes as they were: no secondaries with refuse or proposal', () => {
    const proposal = labWith(() => undefined);
    const r = renderTenant(proposal, planOf(proposal), 'tenant-c');
    expect(r.secondaries).toBeUndefined();
    expect(r.clusters).toEqual([{ cluster: 'tenant-c', instance: 'pmox-txl', role: 'primary' }]);
    expect(new Set(r.placement.map((p) => p.cluster))).toEqual(new Set(['tenant-c']));
    expect(r.autoscaler).toBeUndefined();
  });

  it('checks each instance network like the tenant network, naming the networks entry', () => {
    const lab = secondaryLab((doc) => {
      doc.tenants[2].networks['pmox-fra'] = { addresses: ['10.20.3.10-10.20.3.11'], prefix: 24, gateway: '10.20.4.1', dnsServers: ['10.20.3.1'] };
    });
    let error: unknown;
    try {
      renderTenant(lab, planOf(lab), 'tenant-c');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ProblemError);
    const problems = (error as ProblemError).problems.map((p) => `${p.path.join('.')}: ${p.message}`);
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^tenants\.2\.networks\.pmox-fra\.addresses\.0: node range 10\.20\.3\.10-10\.20\.3\.11 is not inside the subnet 10\.20\.4\.0\/24/,
        ),
        expect.stringMatching(/^tenants\.2\.networks\.pmox-fra\.addresses: the node ranges hold 2 addresses/),
      ]),
    );
  });
});

describe('the per-instance networks in the lab description', () => {
  const problemsOf = (change: (doc: any) => void): string[] => {
    try {
      labWith(change);
      return [];
    } catch (e) {
      if (!(e instanceof ProblemError)) throw e;
      return e.problems.map((p) => `${p.path.join('.')}: ${p.message} | ${p.fix ?? ''}`);
    }
  };

  it('refuses networks outside secondary-clusters mode, unknown and unused instances, and missing or shared ranges, all at once', () => {
    expect(problemsOf((doc) => (doc.tenants[2].networks = { 'pmox-fra': FRA_NETWORK }))).toEqual([
      expect.stringMatching(
        /^tenants\.2\.networks: tenant tenant-c has per-instance networks, but they are only used with capmox\.multiInstance: secondary-clusters/,
      ),
    ]);
    const problems = problemsOf((doc) => {
      doc.capmox.multiInstance = 'secondary-clusters';
      doc.tenants[2].networks = { 'pmox-fr': FRA_NETWORK };
      doc.tenants[0].networks = { 'pmox-fra': { ...FRA_NETWORK, addresses: ['10.30.0.10-10.30.0.20'] } };
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^tenants\.2\.networks\.pmox-fr: unknown instance "pmox-fr" \| did you mean "pmox-fra"\?/),
        expect.stringMatching(
          /^tenants\.2\.networks: instances pmox-txl and pmox-fra of tenant tenant-c can hold its machines at the same time and would both take their node addresses from network/,
        ),
        expect.stringMatching(/^tenants\.0\.networks\.pmox-fra: tenant tenant-a never puts machines on pmox-fra/),
      ]),
    );
    expect(problems).toHaveLength(3);
  });

  it('refuses a per-instance range that overlaps another tenant', () => {
    const problems = problemsOf((doc) => {
      doc.capmox.multiInstance = 'secondary-clusters';
      doc.tenants[2].networks = { 'pmox-fra': { ...FRA_NETWORK, addresses: ['10.10.1.50-10.10.1.70'] } };
    });
    expect(problems).toEqual([
      expect.stringMatching(
        /^tenants\.2\.networks\.pmox-fra\.addresses\.0: the node range of tenant tenant-c on pmox-fra overlaps the node range of tenant tenant-a/,
      ),
    ]);
  });

  it('lets a SingleInstance tenant share one network over its eligible instances (it is on one at a time)', () => {
    expect(problemsOf((doc) => (doc.capmox.multiInstance = 'secondary-clusters')).filter((p) => p.startsWith('tenants.1'))).toEqual([]);
  });
});

/** A small deterministic generator, so the property test is the same on every run. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('property: every planned machine sits in exactly one Cluster, on its instance', () => {
  it('holds for 40 generated labs, and each rendering is the same bytes twice', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const rnd = random(seed);
      const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
      const lab = labWith((doc) => {
        doc.capmox.multiInstance = 'secondary-clusters';
        doc.tenants[2].networks = { 'pmox-fra': FRA_NETWORK };
        doc.tenants[2].pools = [
          // At least the 20 GiB of the templates pvekaas builds on pmox-fra: a smaller pool never boots (pool.disk-below-template).
          { name: 'workers', replicas: int(1, 7), size: { cpu: int(1, 4), memoryMiB: 8 * int(256, 1024), diskGiB: int(20, 40) } },
          ...(rnd() < 0.5 ? [{ name: 'burst', autoscaling: { min: int(0, 1), max: int(2, 4) }, size: { cpu: 2, memoryMiB: 4096, diskGiB: 20 } }] : []),
          ...(rnd() < 0.3 ? [{ name: 'pinned', replicas: int(1, 2), instance: 'pmox-fra', size: { cpu: 2, memoryMiB: 4096, diskGiB: 20 } }] : []),
        ];
      });
      const plan = planOf(lab);
      const a = renderTenants(lab, plan);
      const b = renderTenants(lab, plan);
      expect(JSON.stringify([...b])).toBe(JSON.stringify([...a]));
      const r = a.get('tenant-c')!;
      const primaryInstance = r.clusters[0].instance;
      const inCluster = new Map<string, { cluster: string; instance: string; count: number }>();
      for (const md of (r.cluster as any).spec.topology.workers.machineDeployments) {
        const labels = md.metadata.labels;
        expect(labels['node.cluster.x-k8s.io/proxmox-instance']).toBe(primaryInstance);
        inCluster.set(`${labels['node.cluster.x-k8s.io/pool']}/${labels['node.cluster.x-k8s.io/proxmox-node']}`, {
          cluster: 'tenant-c',
          instance: primaryInstance,
          count: md.replicas ?? -1,
        });
      }
      for (const sc of r.secondaries?.clusters ?? []) {
        expect(sc.instance).not.toBe(primaryInstance);
        expect(sc.name).toBe(secondaryClusterName({ name: 'tenant-c' }, sc.instance));
        for (const m of sc.machineDeployments) {
          expect(m.plan.instance).toBe(sc.instance);
          expect((m.machineTemplate.spec as any).template.spec.allowedNodes).toEqual(m.plan.nodes);
          expect(m.machineDeployment.metadata.name.length).toBeLessThanOrEqual(63);
          const key = `${m.plan.pool}/${m.plan.nodes[0]}`;
          expect(inCluster.has(key)).toBe(false);
          inCluster.set(key, { cluster: sc.name, instance: sc.instance, count: (m.machineDeployment.spec as any).replicas ?? -1 });
        }
        expect((sc.proxmoxCluster.spec as any).credentialsRef.name).toBe(`capmox-${sc.instance}-credentials`);
      }
      const planned = plan.tenants.find((t) => t.name === 'tenant-c')!;
      const expected = new Map<string, { instance: string; count: number }>();
      for (const pool of planned.pools)
        for (const p of pool.placements) expected.set(`${pool.name}/${p.node}`, { instance: p.instance, count: fixedReplicas(p.scale) ?? -1 });
      expect(new Map([...inCluster].map(([k, v]) => [k, { instance: v.instance, count: v.count }]))).toEqual(expected);
      expect(r.placement.map((p) => p.cluster).sort()).toEqual(
        r.machineDeployments.map((md) => (md.instance === primaryInstance ? 'tenant-c' : secondaryClusterName({ name: 'tenant-c' }, md.instance))).sort(),
      );
    }
  });
});
