import Ajv from 'ajv';
import { validateManifest } from '../support/crds';
import { classVariables, clusterClass, clusterClassTemplates, PROVIDER_ID_ARG, type ClassVariable } from '../../modules/tenants/cluster-class';
import { renderTenant } from '../../modules/tenants';
import { exampleLab, labWith, pinnedCrds, planOf } from './fixtures';
import { withProposal } from './proposal-crds';
import { enabled, knownValueTemplates } from '../../modules/tenants/class-patches';
import { generate, templatesOf } from './topology';

const released = { dataStoreName: 'default', multiInstance: 'refuse' as const };
const proposal = { dataStoreName: 'default', multiInstance: 'proposal' as const };

function variableAjv(): Ajv {
  const ajv = new Ajv({ strict: false, allErrors: true });
  ajv.addFormat('ipv4', /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/);
  return ajv;
}

describe('the lab-tenant ClusterClass', () => {
  it.each([
    ['released CAPMOX', released],
    ['the multi-instance proposal', proposal],
  ])('and its templates validate against the pinned CRDs (%s)', (_, options) => {
    for (const object of [...clusterClassTemplates(options), clusterClass(options)]) {
      expect(validateManifest(object, pinnedCrds())).toEqual([]);
    }
  });

  it('serves the API versions of the pinned CRDs, with v1beta2 templateRefs', () => {
    const cc = clusterClass(released) as any;
    expect(cc.apiVersion).toBe('cluster.x-k8s.io/v1beta2');
    expect(cc.spec.controlPlane.templateRef).toEqual({
      apiVersion: 'controlplane.cluster.x-k8s.io/v1alpha2',
      kind: 'KamajiControlPlaneTemplate',
      name: expect.stringMatching(/^lab-tenant-control-plane-[0-9a-f]{10}$/),
    });
    expect(cc.spec.infrastructure.templateRef.apiVersion).toBe('infrastructure.cluster.x-k8s.io/v1alpha2');
    expect(cc.spec.workers.machineDeployments[0].bootstrap.templateRef.apiVersion).toBe('bootstrap.cluster.x-k8s.io/v1beta2');
  });

  it('declares the variables the issue asks for, and only proposal mode adds the proposal ones', () => {
    const names = classVariables('refuse').map((v) => v.name);
    for (const name of [
      'controlPlaneVIP',
      'workerSize',
      'vlan',
      'bridge',
      'nodeIPv4Config',
      'dnsServers',
      'proxmoxCredentials',
      'proxmoxTemplate',
      'allowedNodes',
    ]) {
      expect(names).toContain(name);
    }
    expect(names).not.toContain('proxmoxAvailabilityZones');
    expect(classVariables('proposal').map((v) => v.name)).toEqual(expect.arrayContaining(['proxmoxAvailabilityZones']));
  });

  it('has a patch for every variable, so no variable is declared without effect', () => {
    const cc = clusterClass(proposal) as any;
    const text = JSON.stringify(cc.spec.patches);
    for (const v of classVariables('proposal')) expect(text).toMatch(new RegExp(`[".]${v.name}[".\\s}]`));
  });

  it('puts the CAPMOX provider-id on every worker kubelet', () => {
    const bootstrap = clusterClassTemplates(released).find((t) => t.kind === 'KubeadmConfigTemplate') as any;
    expect(bootstrap.spec.template.spec.joinConfiguration.nodeRegistration.kubeletExtraArgs).toContainEqual({
      name: 'provider-id',
      value: "proxmox://'{{ ds.meta_data.instance_id }}'",
    });
    expect(PROVIDER_ID_ARG.value).toBe("proxmox://'{{ ds.meta_data.instance_id }}'");
  });

  it('uses only Go templates whose meaning the class-patch interpreter knows', () => {
    const { conditions, values } = templatesOf(clusterClass(proposal));
    for (const t of values) expect(knownValueTemplates()).toContain(t);
    for (const t of conditions) expect(() => enabled(t, {})).not.toThrow();
  });
});

describe('tenant Clusters on the class', () => {
  const refuseLab = labWith((doc) => {
    doc.capmox.multiInstance = 'refuse';
    doc.tenants = doc.tenants.filter((t: any) => t.name !== 'tenant-c');
  });
  const proposalLab = exampleLab();

  const cases = [
    ...['tenant-a', 'tenant-b'].map((name) => ({ name, lab: refuseLab, options: released, crds: () => pinnedCrds() })),
    ...['tenant-a', 'tenant-b', 'tenant-c'].map((name) => ({
      name: `${name} (proposal)`,
      tenant: name,
      lab: proposalLab,
      options: proposal,
      crds: () => withProposal(pinnedCrds()),
    })),
  ].map((c) => ({ ...c, tenant: c.name, tenantName: 'tenant' in c ? (c as any).tenant : c.name }));

  it.each(cases)('$tenant: the Cluster validates, and its variables are declared by the class with matching schemas', ({ lab, options, tenantName }) => {
    const r = renderTenant(lab, planOf(lab), tenantName);
    expect(validateManifest(r.cluster, pinnedCrds())).toEqual([]);
    const declared = new Map<string, ClassVariable>(classVariables(options.multiInstance).map((v) => [v.name, v]));
    const ajv = variableAjv();
    const topology = (r.cluster as any).spec.topology;
    const check = (variable: { name: string; value: unknown }) => {
      const declaration = declared.get(variable.name);
      expect(declaration).toBeDefined();
      const ok = ajv.validate(declaration!.schema, variable.value);
      expect(ajv.errors ?? []).toEqual([]);
      expect(ok).toBe(true);
    };
    for (const v of topology.variables) {
      check(v);
      expect(declared.get(v.name)!.perMachineDeployment).toBeFalsy();
    }
    for (const d of declared.values()) if (d.required) expect(topology.variables.map((v: any) => v.name)).toContain(d.name);
    for (const md of topology.workers.machineDeployments) {
      for (const v of md.variables.overrides) check(v);
      expect(md.variables.overrides.map((v: any) => v.name)).toEqual(expect.arrayContaining(['workerSize', 'allowedNodes']));
    }
  });

  it.each(cases)('$tenant: what CAPI generates from the class validates against the pinned CRDs', ({ lab, options, crds, tenantName }) => {
    const r = renderTenant(lab, planOf(lab), tenantName);
    const generated = generate(clusterClass(options), clusterClassTemplates(options), r.cluster);
    const objects = [generated.controlPlane, generated.infrastructureCluster, ...generated.machineTemplates.values(), ...generated.bootstrapTemplates.values()];
    for (const object of objects) expect(validateManifest(object, crds())).toEqual([]);
    const pc = generated.infrastructureCluster as any;
    expect(pc.spec.externalManagedControlPlane).toBe(true);
    expect(pc.spec.credentialsRef).toEqual({ name: `capmox-${r.instances[0].name}-credentials` });
    expect(pc.spec.ipv4Config).toEqual({
      addresses: r.tenant.network!.addresses,
      prefix: r.tenant.network!.prefix,
      gateway: r.tenant.network!.gateway,
    });
    const cp = generated.controlPlane as any;
    expect(cp.spec.network).toMatchObject({
      serviceType: 'LoadBalancer',
      serviceAddress: r.vip.vip,
      serviceAnnotations: { 'metallb.io/loadBalancerIPs': r.vip.vip },
    });
    expect(Object.keys(cp.spec.addons).sort()).toEqual(['coreDNS', 'konnectivity', 'kubeProxy']);
    expect(cp.spec.replicas).toBe(r.tenant.controlPlane.replicas);
    for (const md of r.machineDeployments) {
      const machine = generated.machineTemplates.get(md.name) as any;
      const spec = machine.spec.template.spec;
      // CAPMOX's CEL rule: exactly one template source.
      expect('templateSelector' in spec).toBe(!('templateID' in spec));
      expect('sourceNode' in spec).toBe('templateID' in spec);
      expect(spec.allowedNodes).toEqual(md.nodes);
      expect(spec).toMatchObject({ numCores: md.size.cpu, memoryMiB: md.size.memoryMiB, disks: { bootVolume: { sizeGb: md.size.diskGiB } } });
      const instance = lab.proxmox.instances.find((i) => i.name === md.instance)!;
      expect(spec.network.networkDevices[0].bridge).toBe(instance.bridge);
      if ('templateID' in instance.template) expect(spec.templateID).toBe(instance.template.templateID);
      // On local disks each machine clones the copy on its own node (issue 11 B2), by node and id.
      else if ('templateID' in spec) expect(spec.sourceNode).toBe(md.nodes[0]);
      else expect(spec.templateSelector.matchTags).toEqual(['capi', r.tenant.kubernetesVersion]);
      expect(spec.instance).toBeUndefined();
    }
    const topologyMds = (r.cluster as any).spec.topology.workers?.machineDeployments ?? [];
    if (options.multiInstance === 'proposal') {
      // One zone per instance with the nodes the plan uses there and that instance's credentials;
      // each machine deployment in its instance's zone through CAPI's failureDomain.
      expect(pc.spec.availabilityZones).toEqual(
        r.instances.map((i) => ({
          name: i.name,
          nodes: [...new Set(r.machineDeployments.filter((md) => md.instance === i.name).flatMap((md) => md.nodes))].sort(),
          credentialsRef: { name: expect.stringContaining(i.name) },
        })),
      );
      for (const t of topologyMds) expect(t.failureDomain).toBe(r.machineDeployments.find((md) => md.name === t.name)!.instance);
    } else {
      expect(pc.spec.availabilityZones).toBeUndefined();
      for (const t of topologyMds) expect(t.failureDomain).toBeUndefined();
    }
  });

  it('a proposal-mode ProxmoxCluster does not validate against the released CRD (the extension is what admits it)', () => {
    const r = renderTenant(proposalLab, planOf(proposalLab), 'tenant-c');
    const generated = generate(clusterClass(proposal), clusterClassTemplates(proposal), r.cluster);
    expect(validateManifest(generated.infrastructureCluster, pinnedCrds()).join('\n')).toMatch(/availabilityZones/);
  });
});

describe('the LabTenantClusterClass construct', () => {
  // Imported here so the pure tests above do not load cdktf.
  const { Testing, TerraformStack } = require('cdktf');
  const { LabTenantClusterClass } = require('../../constructs/lab-tenant-cluster-class');
  const { renderManagementConfig } = require('../../modules/rendering');

  it('renders the namespace, the four templates and the class, the class after its templates', () => {
    const app = Testing.app();
    const stack = new TerraformStack(app, 'management-config');
    const lab = exampleLab();
    new LabTenantClusterClass(stack, 'lab-tenant', {
      rendering: renderManagementConfig({ ...lab, capmox: { ...lab.capmox, multiInstance: 'refuse' } }).clusterClass,
    });
    const json = JSON.parse(Testing.synth(stack));
    const manifests = Object.entries(json.resource.kubernetes_manifest) as [string, any][];
    expect(manifests.map(([, r]) => r.manifest.kind).sort()).toEqual([
      'ClusterClass',
      'KamajiControlPlaneTemplate',
      'KubeadmConfigTemplate',
      'Namespace',
      'ProxmoxClusterTemplate',
      'ProxmoxMachineTemplate',
    ]);
    for (const [, r] of manifests) if (r.manifest.kind !== 'Namespace') expect(validateManifest(r.manifest, pinnedCrds())).toEqual([]);
    const [classId, cc] = manifests.find(([, r]) => r.manifest.kind === 'ClusterClass')!;
    expect(classId).toBeDefined();
    expect(cc.depends_on).toHaveLength(5);
  });
});
