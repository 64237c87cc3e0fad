/**
 * Failover pools in the tenant rendering. Placement checks that a node's loss leaves room on the
 * survivors (test/placement/failover.test.ts); the rendering keeps one Proxmox node per machine
 * deployment — CAPMOX v0.9.0 `internal/service/scheduler/vmscheduler.go` asks every allowed node for
 * its status before it schedules (`GetReservableMemoryBytes`, an error for a node that is down) and
 * spreads by the Cluster's worker count per node, not by the plan — and refuses, at the pool's
 * `failover`, failover targets where a clone would fail: on local disks (issue 11 B2) a node without
 * a template of the tenant's version.
 */
import { validateManifest } from '../support/crds';
import { ProblemError } from '../../modules/config/problems';
import { planPlacement } from '../../modules/placement';
import { renderTenant } from '../../modules/tenants';
import { clusterClass, clusterClassTemplates } from '../../modules/tenants/cluster-class';
import { labWith, pinnedCrds, smallTenant } from './fixtures';
import { generate } from './topology';

/** tenant-e: two machines pinned to pmox-fra (local disks, templates built per node), with failover. */
const withTenantE = (imageNodes: string[], failover = true) =>
  labWith((doc) => {
    // Released CAPMOX, as the example lab runs it.
    doc.capmox.multiInstance = 'secondary-clusters';
    doc.tenants[2].networks = { 'pmox-fra': { addresses: ['10.20.3.10-10.20.3.60'], prefix: 24, gateway: '10.20.3.1', dnsServers: ['10.20.3.1'] } };
    doc.proxmox.instances[1].images[0].nodes = imageNodes;
    doc.tenants.push({
      ...smallTenant,
      name: 'tenant-e',
      pools: [{ name: 'workers', replicas: 2, instance: 'pmox-fra', size: { cpu: 2, memoryMiB: 4096, diskGiB: 30 }, ...(failover ? { failover: true } : {}) }],
      network: { addresses: ['10.10.5.10-10.10.5.40'], prefix: 24, gateway: '10.10.5.1', dnsServers: ['10.10.5.1'] },
      vip: '10.4.0.128',
      groups: ['team-e'],
    });
  });

const fraNodes = ['pmox-fra-1', 'pmox-fra-2', 'pmox-fra-3'];

describe('failover pools in the tenant rendering', () => {
  it("refuses a failover target without a template of the tenant version on local disks, at the pool's failover", () => {
    const all = withTenantE(fraNodes);
    const used = planPlacement(all)
      .tenants.find((t) => t.name === 'tenant-e')!
      .pools[0].placements.map((p) => p.node);
    expect(used).toHaveLength(2);
    const spare = fraNodes.find((n) => !used.includes(n))!;
    // Templates only where tenant-e's machines are today (tenant-c is not rendered here): fine without failover, refused with it.
    expect(() => renderTenant(withTenantE(used, false), planPlacement(withTenantE(used, false)), 'tenant-e')).not.toThrow();
    const lab = withTenantE(used);
    let error: unknown;
    try {
      renderTenant(lab, planPlacement(lab), 'tenant-e');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ProblemError);
    const problems = (error as ProblemError).problems;
    expect(problems).toHaveLength(1);
    expect(problems[0].path).toEqual(['tenants', 3, 'pools', 0, 'failover']);
    expect(problems[0].message).toContain(
      `tenant tenant-e, pool workers (failover): after the loss of a node, re-synth puts machines on ${spare} of pmox-fra, which has no v1.35.4 template`,
    );
    expect(problems[0].fix).toMatch(new RegExp(`list ${spare} in the nodes of proxmox.instances\\[1\\].images .*, or remove failover$`));
  });

  it('renders each machine deployment on its one node, and the objects validate against the pinned CRDs', () => {
    const lab = withTenantE(fraNodes);
    const plan = planPlacement(lab);
    const r = renderTenant(lab, plan, 'tenant-e');
    expect(validateManifest(r.cluster, pinnedCrds())).toEqual([]);
    const options = { dataStoreName: 'default', multiInstance: lab.capmox.multiInstance };
    const machineTemplates = [...generate(clusterClass(options), clusterClassTemplates(options), r.cluster).machineTemplates.values()];
    expect(machineTemplates).toHaveLength(2);
    const allowed = machineTemplates.map((t: any) => t.spec.template.spec.allowedNodes);
    expect(allowed.every((nodes) => nodes.length === 1)).toBe(true);
    expect(allowed.flat().sort()).toEqual(
      plan.tenants
        .find((t) => t.name === 'tenant-e')!
        .pools[0].placements.map((p) => p.node)
        .sort(),
    );
    for (const t of machineTemplates) expect(validateManifest(t, pinnedCrds())).toEqual([]);
  });

  it('refuses a down node that holds the only template of a tenant on shared disks, at its down', () => {
    // pmox-txl: Ceph RBD, one fixed template on pmox-txl-1.
    const downNode = (node: string) =>
      labWith((doc) => {
        doc.capmox.multiInstance = 'secondary-clusters';
        doc.tenants[2].networks = { 'pmox-fra': { addresses: ['10.20.3.10-10.20.3.60'], prefix: 24, gateway: '10.20.3.1', dnsServers: ['10.20.3.1'] } };
        doc.proxmox.instances[0].nodes.find((n: any) => n.name === node).down = true;
      });
    const refused = downNode('pmox-txl-1');
    let error: unknown;
    try {
      renderTenant(refused, planPlacement(refused), 'tenant-a');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ProblemError);
    expect((error as ProblemError).problems).toEqual([
      expect.objectContaining({
        path: ['proxmox', 'instances', 0, 'nodes', 0, 'down'],
        message:
          "tenant tenant-a: the v1.35.4 template of pmox-txl is on pmox-txl-1, which is down, and CAPMOX clones through the template's node: no machine of the tenant could be created on pmox-txl",
        fix: 'copy the template to a node that is up and point proxmox.instances[0].template (or its versions entry) at it, or remove down once pmox-txl-1 is back',
      }),
    ]);
    // Another node down: tenant-a is planned on pmox-txl-1 only, and renders.
    const other = downNode('pmox-txl-2');
    const plan = planPlacement(other);
    expect(plan.tenants.find((t) => t.name === 'tenant-a')!.pools[0].placements.map((p) => p.node)).toEqual(['pmox-txl-1']);
    expect(() => renderTenant(other, plan, 'tenant-a')).not.toThrow();
  });

  it('re-synth with a node down grows the surviving machine deployments under the same names, and drops the lost one', () => {
    const lab = (down: boolean) =>
      labWith((doc) => {
        doc.capmox.multiInstance = 'secondary-clusters';
        doc.tenants[2].networks = { 'pmox-fra': { addresses: ['10.20.3.10-10.20.3.60'], prefix: 24, gateway: '10.20.3.1', dnsServers: ['10.20.3.1'] } };
        doc.tenants[0].pools[0].failover = true;
        if (down) doc.proxmox.instances[0].nodes[1].down = true;
      });
    const before = renderTenant(lab(false), planPlacement(lab(false)), 'tenant-a').machineDeployments;
    const after = renderTenant(lab(true), planPlacement(lab(true)), 'tenant-a').machineDeployments;
    expect(before.map((md) => [md.nodes, md.scale.kind === 'fixed' ? md.scale.replicas : undefined])).toEqual([
      [['pmox-txl-1'], 2],
      [['pmox-txl-2'], 1],
    ]);
    expect(after.map((md) => [md.name, md.nodes, md.scale.kind === 'fixed' ? md.scale.replicas : undefined])).toEqual([[before[0].name, ['pmox-txl-1'], 3]]);
  });
});
