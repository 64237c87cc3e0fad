import { App, Testing } from 'cdktf';
import { parse } from 'yaml';
import { validateManifest } from '../support/crds';
import type { Lab } from '../../modules/config/schema';
import { renderTenant } from '../../modules/tenants';
import { TenantStack } from '../../stacks/tenant-stack';
import { exampleLab, labWith, pinnedCrds, planOf, smallTenant } from './fixtures';

interface Synthesized {
  resource: Record<string, Record<string, any>>;
  data?: Record<string, Record<string, any>>;
  output: Record<string, { value: unknown }>;
  variable?: Record<string, any>;
  provider: Record<string, any[]>;
}

function synth(lab: Lab, tenant: string): { json: Synthesized; text: string } {
  const app = new App({ outdir: Testing.app().outdir, skipValidation: true });
  const rendering = renderTenant(lab, planOf(lab), tenant);
  const stack = new TenantStack(app, `tenant-${tenant}`, { rendering, access: lab.management.kubernetes });
  const text = Testing.synth(stack);
  return { json: JSON.parse(text), text };
}

/** `<type>.<name>` of every resource, with its depends_on. */
function graph(json: Synthesized): Map<string, string[]> {
  const g = new Map<string, string[]>();
  for (const [type, resources] of Object.entries(json.resource)) {
    for (const [name, r] of Object.entries(resources)) g.set(`${type}.${name}`, r.depends_on ?? []);
  }
  return g;
}

function find(json: Synthesized, type: string, predicate: (r: any) => boolean): string {
  const entry = Object.entries(json.resource[type] ?? {}).find(([, r]) => predicate(r));
  if (!entry) throw new Error(`no ${type} matches`);
  return `${type}.${entry[0]}`;
}

/** Whether `from` (transitively) depends on `to`. */
function dependsOn(g: Map<string, string[]>, from: string, to: string): boolean {
  const seen = new Set<string>();
  const stack = [...(g.get(from) ?? [])];
  while (stack.length > 0) {
    const next = stack.pop() as string;
    if (next === to) return true;
    if (seen.has(next)) continue;
    seen.add(next);
    stack.push(...(g.get(next) ?? []));
  }
  return false;
}

const kindOf = (kind: string) => (r: any) => r.manifest?.kind === kind;

describe('tenant stack', () => {
  const lab = exampleLab();
  const b = synth(lab, 'tenant-b');

  it('renders every custom resource valid against the pinned CRDs', () => {
    const manifests = Object.values(b.json.resource.kubernetes_manifest).map((r) => r.manifest);
    const custom = manifests.filter((m) => !['v1', 'rbac.authorization.k8s.io/v1'].includes(m.apiVersion));
    expect(custom.map((m) => m.kind).sort()).toEqual(['Cluster', 'HelmChartProxy']);
    for (const m of custom) expect(validateManifest(m, pinnedCrds())).toEqual([]);
  });

  it('deletes in an order that strands nothing: autoscaler, then Cluster, then its prerequisites, namespace last', () => {
    const g = graph(b.json);
    const namespace = find(b.json, 'kubernetes_manifest', kindOf('Namespace'));
    const cluster = find(b.json, 'kubernetes_manifest', kindOf('Cluster'));
    const cni = find(b.json, 'kubernetes_manifest', kindOf('HelmChartProxy'));
    const credentials = find(b.json, 'kubernetes_secret_v1', () => true);
    const autoscaler = find(b.json, 'helm_release', () => true);
    // Terraform destroys dependents before what they depend on.
    expect(dependsOn(g, autoscaler, cluster)).toBe(true);
    expect(dependsOn(g, cluster, credentials)).toBe(true);
    expect(dependsOn(g, cluster, cni)).toBe(true);
    for (const resource of g.keys()) if (resource !== namespace) expect([resource, dependsOn(g, resource, namespace)]).toEqual([resource, true]);
    expect(g.get(namespace)).toEqual([]);
  });

  it('waits for the control plane before the autoscaler mounts its kubeconfig, and allows CAPI time to delete', () => {
    const cluster = Object.values(b.json.resource.kubernetes_manifest).find(kindOf('Cluster'));
    expect(cluster.wait).toEqual({ condition: [{ status: 'True', type: 'ControlPlaneInitialized' }] });
    expect(cluster.timeouts.delete).toBe('60m');
  });

  it('runs the autoscaler in the tenant namespace, for this cluster only, with namespaced RBAC', () => {
    const release = Object.values(b.json.resource.helm_release)[0];
    expect(release).toMatchObject({ name: 'cluster-autoscaler', namespace: 'tenant-b', chart: 'cluster-autoscaler', version: '9.59.0' });
    const values = parse(release.values[0]);
    expect(values).toMatchObject({
      cloudProvider: 'clusterapi',
      clusterAPIMode: 'kubeconfig-incluster',
      clusterAPIKubeconfigSecret: 'tenant-b-kubeconfig',
      autoDiscovery: { clusterName: 'tenant-b', namespace: 'tenant-b' },
      rbac: { clusterScoped: false },
      image: { repository: 'registry.k8s.io/autoscaling/cluster-autoscaler', tag: 'v1.35.2' },
    });
    // The chart's namespaced Role lacks the infrastructure templates the clusterapi provider reads
    // for every node group (scale from zero): pvekaas adds them (the lab twin found it).
    expect(values.rbac.additionalRules).toEqual([
      { apiGroups: ['infrastructure.cluster.x-k8s.io'], resources: ['proxmoxmachinetemplates'], verbs: ['get', 'list', 'watch'] },
    ]);
    // management.autoscaler unset: the autoscaler's own scale-down defaults, no extraArgs.
    expect(values.extraArgs).toBeUndefined();
    // The misspellings in the Kamaji and CLASTIX docs would be ignored by Helm and scale everything.
    expect(Object.keys(values)).not.toEqual(expect.arrayContaining(['autodiscovery']));
    expect(release.values[0]).not.toMatch(/autodisc?v?overy\b/);
  });

  it('has no autoscaler for a tenant without autoscaled pools', () => {
    expect(synth(lab, 'tenant-a').json.resource.helm_release).toBeUndefined();
  });

  it('gives the tenant groups read rights on their own objects and their kubeconfig only (no scale: topology and autoscaler own replicas)', () => {
    const role = Object.values(b.json.resource.kubernetes_manifest).find(kindOf('Role')).manifest;
    const binding = Object.values(b.json.resource.kubernetes_manifest).find(kindOf('RoleBinding')).manifest;
    expect(role.metadata.namespace).toBe('tenant-b');
    expect(binding.subjects).toEqual([{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'team-b' }]);
    expect(binding.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: role.metadata.name });
    for (const rule of role.rules) {
      expect(rule.verbs).not.toEqual(expect.arrayContaining(['create', 'delete', 'deletecollection', 'escalate', 'bind', 'impersonate', '*']));
      expect(rule.resources).not.toContain('*');
      expect(rule.apiGroups).not.toContain('*');
      if (rule.resources.includes('secrets'))
        expect(rule).toEqual({ apiGroups: [''], resources: ['secrets'], verbs: ['get'], resourceNames: ['tenant-b-kubeconfig'] });
      expect(rule.verbs).not.toEqual(expect.arrayContaining(['update']));
      expect(rule.verbs).not.toEqual(expect.arrayContaining(['patch']));
    }
    expect(role.rules.flatMap((r: any) => r.resources).sort()).toEqual(['clusters', 'machinedeployments', 'machines', 'machinesets', 'secrets']);
  });

  it('copies the instance credentials into the tenant namespace without any secret in the synthesized stack', () => {
    const copy = Object.values(b.json.resource.kubernetes_secret_v1)[0];
    const instance = (Object.values(b.json.resource.kubernetes_manifest).find(kindOf('Cluster')).manifest.spec.topology.variables as any[]).find(
      (v) => v.name === 'proxmoxCredentials',
    ).value.name;
    expect(copy.metadata).toMatchObject({ name: instance, namespace: 'tenant-b', labels: { 'platform.ionos.com/secret-type': 'proxmox-credentials' } });
    // url and token from the tenant's own Secret of the instance; CAPMOX's TLS keys from the lab
    // (CAPMOX v0.9.0 pkg/scope/cluster.go skips verification when `insecure` is missing).
    expect(Object.keys(copy.data).sort()).toEqual(['insecure', 'secret', 'token', 'url']);
    for (const key of ['url', 'token', 'secret']) expect(copy.data[key]).toMatch(new RegExp(`^\\$\\{data\\.kubernetes_secret_v1\\.[^.]+\\.data\\.${key}\\}$`));
    expect(copy.data.insecure).toBe('false');
    // The source is tenant-b's own Secret of the instance (one per tenant: the data source's whole data lands in this stack's state).
    const source = Object.values(b.json.data!.kubernetes_secret_v1)[0];
    expect(source.metadata).toEqual({ name: `${instance}.tenant-b`, namespace: 'capmox-system' });
    expect(b.text).not.toMatch(/PVEAPIToken|"secret":\s*"[0-9a-f-]{36}"/);
  });

  it('outputs the placement per machine deployment, the VIP and how to fetch the kubeconfig', () => {
    const { output } = b.json;
    expect(output.vip.value).toMatch(/^10\.4\.0\.\d+$/);
    const placement = output.placement.value as any[];
    expect(placement.length).toBeGreaterThan(0);
    for (const p of placement) {
      expect(p.nodes).toHaveLength(1);
      expect(['pmox-txl', 'pmox-fra']).toContain(p.instance);
    }
    expect(output.kubeconfig_command.value).toBe(
      "kubectl --kubeconfig ~/.kube/lab-mgmt.yaml --context lab-mgmt --namespace tenant-b get secret tenant-b-kubeconfig --output jsonpath='{.data.value}' | base64 --decode > tenant-b.kubeconfig",
    );
  });

  it('reaches the management cluster as the description says, with host credentials from sensitive variables', () => {
    expect(b.json.provider.kubernetes[0]).toMatchObject({ config_path: '~/.kube/lab-mgmt.yaml', config_context: 'lab-mgmt' });
    const hosted = labWith((doc) => {
      doc.management.kubernetes = { host: 'https://mgmt.lab.example:6443' };
    });
    const { json } = synth(hosted, 'tenant-a');
    expect(json.variable?.management_cluster_token).toMatchObject({ sensitive: true });
    expect(json.provider.kubernetes[0]).toMatchObject({ host: 'https://mgmt.lab.example:6443', token: '${var.management_cluster_token}' });
    expect(json.provider.helm[0].kubernetes).toMatchObject({ token: '${var.management_cluster_token}' });
  });

  it('synthesizes a tenant described in a dozen lines, the same bytes every time', () => {
    const withD = labWith((doc) => doc.tenants.push(smallTenant));
    const first = synth(withD, 'tenant-d');
    expect(first.text).toBe(synth(withD, 'tenant-d').text);
    const cluster = Object.values(first.json.resource.kubernetes_manifest).find(kindOf('Cluster')).manifest;
    expect(validateManifest(cluster, pinnedCrds())).toEqual([]);
    for (const md of cluster.spec.topology.workers.machineDeployments) {
      expect(md.replicas).toBeUndefined();
      expect(md.metadata.annotations).toMatchObject({
        'cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size': '0',
        'capacity.cluster-autoscaler.kubernetes.io/cpu': '2',
        'capacity.cluster-autoscaler.kubernetes.io/memory': '4096Mi',
      });
    }
  });

  it('refuses a MultiInstance tenant on released CAPMOX, naming the tenant, its instances and why', () => {
    const refuse = labWith((doc) => {
      doc.capmox.multiInstance = 'refuse';
    });
    expect(() => synth(refuse, 'tenant-c')).toThrow(
      /tenants\[2\]\.placement: tenant tenant-c puts machines on 2 Proxmox instances \(pmox-txl: .*; pmox-fra: .*\) because its placement mode is MultiInstance, but released CAPMOX \(v0\.9\) binds a Cluster to one Proxmox API through its ProxmoxCluster's credentialsRef/,
    );
    expect(() => synth(refuse, 'tenant-c')).toThrow(/fix: .*capmox\.multiInstance: proposal/);
    // The other tenants still render.
    expect(() => synth(refuse, 'tenant-a')).not.toThrow();
  });

  it('refuses a tenant whose pool is pinned to another instance, pointing at the pin', () => {
    const pinned = labWith((doc) => {
      doc.capmox.multiInstance = 'refuse';
      doc.tenants[0].pools.push({ name: 'edge', replicas: 1, instance: 'pmox-fra', size: { cpu: 2, memoryMiB: 4096, diskGiB: 20 } });
    });
    expect(() => synth(pinned, 'tenant-a')).toThrow(
      /tenants\[0\]\.pools\[1\]\.instance: tenant tenant-a puts machines on 2 Proxmox instances .* because pool edge \(instance: pmox-fra\) is pinned/,
    );
  });

  it('renders a MultiInstance tenant for the proposal with the credentials of both instances', () => {
    const c = synth(lab, 'tenant-c');
    const copies = Object.values(c.json.resource.kubernetes_secret_v1)
      .map((s: any) => s.metadata.name)
      .sort();
    expect(copies).toEqual(['capmox-pmox-fra-credentials', 'capmox-pmox-txl-credentials']);
    const cluster = Object.values(c.json.resource.kubernetes_manifest).find(kindOf('Cluster')).manifest;
    const zones = cluster.spec.topology.variables.find((v: any) => v.name === 'proxmoxAvailabilityZones').value;
    expect(zones.map((z: any) => [z.name, z.credentialsRef.name])).toEqual([
      ['pmox-txl', 'capmox-pmox-txl-credentials'],
      ['pmox-fra', 'capmox-pmox-fra-credentials'],
    ]);
    const domains = cluster.spec.topology.workers.machineDeployments.map((md: any) => md.failureDomain);
    expect(new Set(domains)).toEqual(new Set(['pmox-txl', 'pmox-fra']));
  });
});

describe('CAPMOX TLS settings in the tenant credentials', () => {
  const pem = '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUX1\n-----END CERTIFICATE-----\n';
  it('writes insecure from the lab and the instance CA as root_ca', () => {
    const lab = labWith((doc) => {
      const txl = doc.proxmox.instances.find((i: any) => i.name === 'pmox-txl');
      txl.insecure = true;
      txl.rootCAData = Buffer.from(pem).toString('base64');
    });
    const copy = Object.values(synth(lab, 'tenant-a').json.resource.kubernetes_secret_v1)[0];
    expect(copy.data.insecure).toBe('true');
    expect(copy.data.root_ca).toBe(pem);
  });

  it('refuses a rootCAData that is not a base64 PEM certificate', () => {
    expect(() => labWith((doc) => (doc.proxmox.instances[0].rootCAData = Buffer.from('not a certificate').toString('base64')))).toThrow(
      /rootCAData does not decode to a PEM certificate/,
    );
  });
});
