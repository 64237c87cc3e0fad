/**
 * What released upstream components do with what pvekaas renders, restated from their source at
 * the pinned versions (the lab twin runs the real controllers; these tests pin the rules here):
 *
 * - CAPMOX v0.9.0 `internal/webhook/proxmoxclustertemplate_webhook.go`: a ProxmoxClusterTemplate
 *   without `ipv4Config` and `ipv6Config` is refused (issue 11 B1).
 * - CAPMOX v0.9.0 `internal/webhook/proxmoxmachinetemplate_webhook.go`: an update whose spec is not
 *   DeepEqual to the old one is refused, whatever the request (no check for CAPI's
 *   `topology.cluster.x-k8s.io/dry-run` annotation). CAPI v1.12 `internal/controllers/topology/
 *   cluster/reconcile_state.go` (reconcileReferencedTemplate) dry-run applies the desired worker
 *   template onto the Cluster's current copy before rotating it (`structuredmerge/dryrun.go`), so a
 *   changed spec under the same machine deployment wedges the topology (issue 11 B3).
 * - CABPK joins with the kubeadm of the image: each Kubernetes version needs its own template (B4).
 */
import { isDeepStrictEqual } from 'node:util';
import { ProblemError } from '../../modules/config/problems';
import type { Lab } from '../../modules/config/schema';
import {
  CONTROL_PLANE_SPREAD,
  MHC_UNHEALTHY_LIMIT,
  PLACEHOLDER_IPV4_CONFIG,
  classTemplates,
  clusterClass,
  clusterClassTemplates,
  contentHash,
  workerMachineVariables,
} from '../../modules/tenants/cluster-class';
import { parseLab } from '../../modules/config/load';
import { renderTenant } from '../../modules/tenants';
import type { KubernetesObject } from '../../modules/tenants/manifest';
import { exampleLab, exampleText, labWith, planOf } from './fixtures';
import { generate } from './topology';

const released = { dataStoreName: 'default', multiInstance: 'refuse' as const };

/** CAPMOX v0.9.0's ProxmoxClusterTemplate ValidateCreate: at least one IP pool config. */
const clusterTemplateAdmitted = (t: KubernetesObject) => {
  const spec = (t as any).spec.template.spec;
  return spec.ipv4Config !== undefined || spec.ipv6Config !== undefined;
};

/** CAPMOX v0.9.0's ProxmoxMachineTemplate ValidateUpdate: reflect.DeepEqual(new.Spec, old.Spec). */
const machineTemplateUpdateAdmitted = (before: KubernetesObject, after: KubernetesObject) => isDeepStrictEqual((before as any).spec, (after as any).spec);

/** The worker ProxmoxMachineTemplates CAPI would make for a tenant, by machine deployment name. */
function workerTemplates(lab: Lab, tenant: string): Map<string, KubernetesObject> {
  const r = renderTenant(lab, planOf(lab), tenant);
  const options = { ...released, multiInstance: lab.capmox.multiInstance };
  return generate(clusterClass(options), clusterClassTemplates(options), r.cluster).machineTemplates;
}

/** Machine deployments present before and after whose worker template CAPMOX would refuse to update. */
function refusedUpdates(before: Map<string, KubernetesObject>, after: Map<string, KubernetesObject>): string[] {
  return [...after.keys()].filter((name) => before.has(name) && !machineTemplateUpdateAdmitted(before.get(name)!, after.get(name)!));
}

const tenantA = (doc: any) => doc.tenants.find((t: any) => t.name === 'tenant-a');
const txl = (doc: any) => doc.proxmox.instances.find((i: any) => i.name === 'pmox-txl');

describe('B1: the ProxmoxClusterTemplate passes CAPMOX v0.9.0 webhook', () => {
  it('carries a placeholder IP pool, as CAPMOX rejects a template without one', () => {
    const template = classTemplates(released).infrastructureCluster;
    expect(clusterTemplateAdmitted(template)).toBe(true);
    // The rule can fail: the template as it was before the fix.
    const without = structuredClone(template) as any;
    delete without.spec.template.spec.ipv4Config;
    expect(clusterTemplateAdmitted(without)).toBe(false);
  });

  it.each(['tenant-a', 'tenant-b', 'tenant-c'])('%s: the per-Cluster patch replaces the placeholder with the tenant network', (name) => {
    const lab = exampleLab();
    const r = renderTenant(lab, planOf(lab), name);
    const generated = generate(
      clusterClass({ ...released, multiInstance: lab.capmox.multiInstance }),
      clusterClassTemplates({ ...released, multiInstance: lab.capmox.multiInstance }),
      r.cluster,
    );
    const ipv4 = (generated.infrastructureCluster as any).spec.ipv4Config;
    expect(ipv4).not.toEqual(PLACEHOLDER_IPV4_CONFIG);
    expect(ipv4.addresses).toEqual(r.tenant.network!.addresses);
  });
});

describe('B3: no template is ever changed in place', () => {
  it('names every class template by a hash of its kind and spec, so different content is a different object', () => {
    const a = classTemplates(released);
    for (const t of Object.values(a)) {
      const prefix = t.metadata.name.replace(/-[0-9a-f]{10}$/, '');
      expect(t.metadata.name).toBe(`${prefix}-${contentHash({ kind: t.kind, spec: (t as any).spec.template.spec })}`);
    }
    const b = classTemplates({ ...released, dataStoreName: 'other' });
    expect(b.controlPlane.metadata.name).not.toBe(a.controlPlane.metadata.name);
    expect(b.workerMachine.metadata.name).toBe(a.workerMachine.metadata.name);
    const cc = clusterClass({ ...released, dataStoreName: 'other' }) as any;
    expect(cc.spec.controlPlane.templateRef.name).toBe(b.controlPlane.metadata.name);
    expect(cc.spec.workers.machineDeployments[0].infrastructure.templateRef.name).toBe(b.workerMachine.metadata.name);
  });

  it('reads from the class patches every variable a worker template is made of', () => {
    expect(workerMachineVariables('refuse')).toEqual([
      'allowedNodes',
      'bridge',
      'builtin',
      'proxmoxPool',
      'proxmoxStorage',
      'proxmoxTemplate',
      'vlan',
      'workerSize',
    ]);
    // The proposal's zones are on the ProxmoxCluster; a worker template is made of the same variables.
    expect(workerMachineVariables('proposal')).toEqual(workerMachineVariables('refuse'));
  });

  const templateChanges: [string, (doc: any) => void][] = [
    ['a resize', (doc) => (tenantA(doc).pools[0].size.cpu += 2)],
    ['a disk size', (doc) => (tenantA(doc).pools[0].size.diskGiB += 10)],
    ['another disk storage', (doc) => (txl(doc).storage = { ...txl(doc).storage, disks: 'ceph-vm-2', disksShared: true })],
    ['another bridge', (doc) => (txl(doc).bridge = 'vmbr1')],
    ['another Proxmox pool', (doc) => (txl(doc).pools = { vms: 'capi-2' })],
    ['a VLAN', (doc) => (tenantA(doc).network.vlan = 30)],
    [
      'a Kubernetes upgrade with its template',
      (doc) => {
        txl(doc).template.versions = [{ kubernetesVersion: 'v1.36.3', templateID: 1001 }];
        tenantA(doc).kubernetesVersion = 'v1.36.3';
      },
    ],
  ];

  it.each(templateChanges)('%s renames the machine deployments whose worker template changes, and no kept one changes', (_, change) => {
    const before = workerTemplates(exampleLab(), 'tenant-a');
    const after = workerTemplates(labWith(change), 'tenant-a');
    expect(refusedUpdates(before, after)).toEqual([]);
    // The change is real: the new machine deployments are new names with other templates.
    expect([...after.keys()].filter((n) => before.has(n))).toEqual([]);
  });

  it.each(templateChanges)('%s: without the hash in the name CAPMOX would refuse the update (the check can fail)', (_, change) => {
    const unhashed = (m: Map<string, KubernetesObject>) => new Map([...m].map(([name, t]) => [name.replace(/-[0-9a-f]{6}$/, ''), t]));
    const before = unhashed(workerTemplates(exampleLab(), 'tenant-a'));
    const after = unhashed(workerTemplates(labWith(change), 'tenant-a'));
    expect(refusedUpdates(before, after).length).toBeGreaterThan(0);
  });

  it.each<[string, (doc: any) => void]>([
    ['more replicas', (doc) => (tenantA(doc).pools[0].replicas = 4)],
    ['other autoscaling bounds', (doc) => (doc.tenants.find((t: any) => t.name === 'tenant-b').pools[0].autoscaling = { min: 2, max: 5 })],
    [
      'another VIP and DNS server',
      (doc) => Object.assign(tenantA(doc), { vip: '10.4.0.140', network: { ...tenantA(doc).network, dnsServers: ['10.10.1.2'] } }),
    ],
  ])('%s keeps every machine deployment name whose node group stays', (_, change) => {
    for (const tenant of ['tenant-a', 'tenant-b']) {
      const before = workerTemplates(exampleLab(), tenant);
      const after = workerTemplates(labWith(change), tenant);
      expect(refusedUpdates(before, after)).toEqual([]);
      const kept = [...after.keys()].filter((n) => before.has(n));
      expect(kept.length).toBeGreaterThan(0);
    }
  });
});

describe('B4: a template per Kubernetes version in both forms', () => {
  it('clones the fixed template of the tenant version', () => {
    const lab = labWith((doc) => {
      txl(doc).template.versions = [{ kubernetesVersion: 'v1.36.3', templateID: 1001, sourceNode: 'pmox-txl-2' }];
      tenantA(doc).kubernetesVersion = 'v1.36.3';
    });
    for (const t of workerTemplates(lab, 'tenant-a').values()) {
      expect((t as any).spec.template.spec).toMatchObject({ sourceNode: 'pmox-txl-2', templateID: 1001 });
    }
    for (const t of workerTemplates(exampleLab(), 'tenant-a').values()) {
      expect((t as any).spec.template.spec).toMatchObject({ sourceNode: 'pmox-txl-1', templateID: 1000 });
    }
  });

  it("selects templates by tags plus the machines' version", () => {
    const lab = exampleLab();
    for (const t of workerTemplates(lab, 'tenant-c').values()) {
      const spec = (t as any).spec.template.spec;
      if (spec.templateSelector) expect(spec.templateSelector).toEqual({ matchTags: ['capi', 'v1.35.4'], matchPolicy: 'uniqueSubset' });
    }
  });

  function problemsOf(change: (doc: any) => void): { path: string; message: string; fix?: string }[] {
    try {
      labWith(change);
    } catch (e) {
      if (!(e instanceof ProblemError)) throw e;
      return e.problems.map((p) => ({ path: p.path.join('.'), message: p.message, fix: p.fix }));
    }
    return [];
  }

  it('refuses a fixed template that does not say its version, a second template for one version, and an unknown node', () => {
    expect(problemsOf((doc) => delete txl(doc).template.kubernetesVersion).map((p) => p.path)).toEqual([
      'tenants.0.kubernetesVersion',
      'tenants.1.kubernetesVersion',
      'tenants.2.kubernetesVersion',
    ]);
    const twice = problemsOf((doc) => (txl(doc).template.versions = [{ kubernetesVersion: 'v1.35.4', templateID: 1001 }]));
    expect(twice).toEqual([
      expect.objectContaining({ path: 'proxmox.instances.0.template.versions.0.kubernetesVersion', fix: 'keep one template per Kubernetes version' }),
    ]);
    const node = problemsOf((doc) => (txl(doc).template.versions = [{ kubernetesVersion: 'v1.36.3', templateID: 1001, sourceNode: 'pmox-txl-9' }]));
    expect(node).toEqual([expect.objectContaining({ path: 'proxmox.instances.0.template.versions.0.sourceNode' })]);
  });
});

describe('what CAPMOX and Kamaji do on day two', () => {
  it('remediates one unhealthy machine of any machine deployment, never all machines of a dead node at once', () => {
    const md = (clusterClass(released) as any).spec.workers.machineDeployments[0];
    const limit = md.healthCheck.remediation.triggerIf.unhealthyLessThanOrEqualTo;
    expect(limit).toBe(MHC_UNHEALTHY_LIMIT);
    // CAPI v1.12 isAllowedRemediation: unhealthy <= GetScaledValueFromIntOrPercent(limit, expected, roundUp=false).
    const allowed = (unhealthy: number, expected: number) =>
      unhealthy <= (typeof limit === 'number' ? limit : Math.floor((parseInt(String(limit), 10) * expected) / 100));
    // A per-node machine deployment holds 1–3 machines: one stopped VM must be replaced (33% of 3 is 0).
    for (const expected of [1, 2, 3, 5]) expect({ expected, one: allowed(1, expected) }).toEqual({ expected, one: true });
    // A dead Proxmox node makes every machine of its deployments unhealthy: left alone (recreating clones onto the dead node).
    for (const expected of [2, 3, 5]) expect({ expected, all: allowed(expected, expected) }).toEqual({ expected, all: false });
  });

  it("takes the health check's timeouts from management.healthCheck, for the class and each secondary Cluster", () => {
    const md = (clusterClass({ ...released, healthCheck: { nodeStartupSeconds: 900, unhealthySeconds: 60 } }) as any).spec.workers.machineDeployments[0];
    expect(md.healthCheck.checks).toEqual({
      nodeStartupTimeoutSeconds: 900,
      unhealthyNodeConditions: [
        { type: 'Ready', status: 'False', timeoutSeconds: 60 },
        { type: 'Ready', status: 'Unknown', timeoutSeconds: 60 },
      ],
    });
    const defaults = (clusterClass(released) as any).spec.workers.machineDeployments[0].healthCheck.checks;
    expect(defaults.nodeStartupTimeoutSeconds).toBe(exampleLab().management.healthCheck.nodeStartupSeconds);
    const lab = parseLab(
      exampleText.replace('datastore: { size: 10Gi }', 'datastore: { size: 10Gi }\n  healthCheck: { nodeStartupSeconds: 900, unhealthySeconds: 60 }'),
      'examples/lab.yaml',
    );
    expect(lab.capmox.multiInstance).toBe('secondary-clusters');
    const secondaries = renderTenant(lab, planOf(lab), 'tenant-c').secondaries?.clusters ?? [];
    expect(secondaries.length).toBeGreaterThan(0);
    for (const s of secondaries) {
      expect(s.healthChecks.size).toBe(s.machineDeployments.length);
      for (const mhc of s.healthChecks.values())
        expect({ checks: (mhc as any).spec.checks, remediation: (mhc as any).spec.remediation }).toEqual({
          checks: md.healthCheck.checks,
          remediation: md.healthCheck.remediation,
        });
    }
  });

  it("spreads each tenant's control-plane pods over the management nodes, and runs Konnectivity off the host network", () => {
    const lab = exampleLab();
    const r = renderTenant(lab, planOf(lab), 'tenant-b');
    const options = { ...released, multiInstance: lab.capmox.multiInstance };
    const cp = generate(clusterClass(options), clusterClassTemplates(options), r.cluster).controlPlane as any;
    const [spread] = cp.spec.deployment.topologySpreadConstraints;
    expect(spread).toMatchObject({ maxSkew: 1, topologyKey: 'kubernetes.io/hostname', nodeTaintsPolicy: 'Honor' });
    expect(spread.labelSelector.matchLabels).toEqual({ 'kamaji.clastix.io/name': 'tenant-b' });
    expect(CONTROL_PLANE_SPREAD).toContain('{{ .builtin.cluster.name }}');
    expect(cp.spec.addons.konnectivity.agent.hostNetwork).toBeUndefined();
  });
});

describe('CAAPH installs the CNI before any worker exists', () => {
  it.each(['cilium', 'calico'] as const)('%s: does not wait for readiness that needs a node', (flavour) => {
    const { cniHelmChartProxy } = require('../../modules/tenants/cni');
    const proxy = cniHelmChartProxy(flavour, 'tenant-x') as any;
    expect(proxy.spec.options.wait).toBe(false);
  });
});

describe('CAPMOX may clone every per-version template', () => {
  it('grants clone rights on each fixed template, one ACL per template VM', () => {
    const { capmoxGrants } = require('../../modules/rendering/instance');
    const grants = capmoxGrants({ templates: { vmIds: [1000, 1001, 1000] }, diskStorage: 'local-lvm' });
    expect(grants.filter((g: any) => g.path.startsWith('/vms/')).map((g: any) => [g.path, g.roleId])).toEqual([
      ['/vms/1000', 'PVETemplateUser'],
      ['/vms/1001', 'PVETemplateUser'],
    ]);
  });
});
