/**
 * Tenant persistent volumes (issue 38, modules/tenants/storage.ts), as rendered for
 * examples/lab-storage.yaml: the Proxmox CSI controller in the tenant's namespace of the management
 * cluster holding that tenant's token (its own credentials copy, as files), the tenant cluster's
 * objects holding none, the StorageClasses as the lab names them, and the tenant stack that writes
 * them. A lab without `storage` renders exactly as before (no storage objects, no volumes role).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { App, Testing } from 'cdktf';
import { parseLab } from '../../modules/config/load';
import { planPlacement } from '../../modules/placement';
import { VOLUMES_ROLE, renderInstances } from '../../modules/rendering/instance';
import { renderTenants } from '../../modules/tenants';
import type { KubernetesObject } from '../../modules/tenants/manifest';
import { CSI_CONFIG, CSI_CONTROLLER_VMID, CSI_TENANT_RESOURCES, tenantSideCredentialProblems } from '../../modules/tenants/storage';
import { PROXMOX_CSI } from '../../modules/versions/csi';
import { TenantStack } from '../../stacks/tenant-stack';
import { validateManifest } from '../support/crds';
import { pinnedCrds, projectRoot } from './fixtures';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- rendered objects are plain JSON read by path
type Any = any;

const text = readFileSync(resolve(projectRoot, 'examples/lab-storage.yaml'), 'utf8');
const lab = parseLab(text, 'examples/lab-storage.yaml');
const plan = planPlacement(lab);
const renderings = renderTenants(lab, plan);
const plainLab = parseLab(readFileSync(resolve(projectRoot, 'examples/lab.yaml'), 'utf8'), 'examples/lab.yaml');
const plain = renderTenants(plainLab, planPlacement(plainLab));
const storageOf = (t: string) => renderings.get(t)!.storage!;

const containers = (o: KubernetesObject): Any[] => (o as Any).spec.template.spec.containers;
const secretVolumes = (o: KubernetesObject): string[] =>
  ((o as Any).spec.template.spec.volumes as Any[]).filter((v) => v.secret).map((v) => v.secret.secretName as string);

describe('the CSI controller in the management cluster', () => {
  it("runs in the tenant's namespace and mounts only that tenant's own credentials copy and kubeconfig", () => {
    const { controller } = storageOf('tenant-a').management;
    expect(controller.metadata.namespace).toBe('tenant-a');
    // tenant-a runs on pmox-txl only: one credentials copy, the CAPMOX one already in its namespace.
    const credentials = renderings.get('tenant-a')!.credentials.map((c) => c.target.name);
    expect(secretVolumes(controller).sort()).toEqual([...credentials, 'tenant-a-kubeconfig'].sort());
    expect((controller as Any).spec.template.spec.automountServiceAccountToken).toBe(false);
  });

  it('gives the token to the plugin container only; the sidecars get the socket and the kubeconfig', () => {
    const { controller } = storageOf('tenant-a').management;
    const spec = (controller as Any).spec.template.spec;
    const tokenVolumes = (spec.volumes as Any[]).filter((v) => v.secret && v.name.startsWith('token-')).map((v) => v.name);
    expect(tokenVolumes.length).toBeGreaterThan(0);
    const mounting = containers(controller)
      .filter((c) => (c.volumeMounts as Any[]).some((m) => tokenVolumes.includes(m.name)))
      .map((c) => c.name);
    expect(mounting).toEqual(['proxmox-csi-controller']);
    expect(containers(controller).map((c) => c.name)).toEqual(['proxmox-csi-controller', 'csi-attacher', 'csi-provisioner', 'csi-resizer']);
    for (const c of containers(controller)) expect(c.args).toContain('--kubeconfig=/etc/kubernetes/tenant/value');
  });

  it('configures one Proxmox cluster per instance of the tenant, its token read from files, no secret in the config', () => {
    const config = JSON.parse((storageOf('tenant-a').management.config as Any).data['config.yaml']);
    expect(config).toEqual({
      features: { provider: 'capmox', controllerVmID: CSI_CONTROLLER_VMID },
      clusters: [
        {
          url: 'https://pmox-txl.lab.example:8006/api2/json',
          insecure: false,
          token_id_file: '/etc/proxmox-csi/token/pmox-txl/token',
          token_secret_file: '/etc/proxmox-csi/token/pmox-txl/secret',
          region: 'pmox-txl',
        },
      ],
    });
    expect(storageOf('tenant-a').management.config.metadata.name).toBe(CSI_CONFIG);
    expect(JSON.stringify(storageOf('tenant-a').management)).not.toMatch(/token_secret"|token_id"|PVEAPIToken|@pve!/);
  });

  it("names exactly the instances the tenant's machines run on, each with that instance's credentials copy", () => {
    for (const t of ['tenant-a', 'tenant-b']) {
      const r = renderings.get(t)!;
      const config = JSON.parse((r.storage!.management.config as Any).data['config.yaml']);
      expect(config.clusters.map((c: Any) => c.region)).toEqual(r.instances.map((i) => i.name));
      const tokens = ((r.storage!.management.controller as Any).spec.template.spec.volumes as Any[]).filter((v) => v.name.startsWith('token-'));
      expect(tokens.map((v) => v.secret.secretName)).toEqual(r.credentials.map((c) => c.target.name));
    }
  });
});

describe('the tenant cluster objects', () => {
  it('are the CSIDriver, the node plugin and the StorageClasses, holding no Proxmox credential', () => {
    const objects = storageOf('tenant-a').tenantObjects;
    expect(objects.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([
      'Namespace/csi-proxmox',
      `CSIDriver/${PROXMOX_CSI.driverName}`,
      'ServiceAccount/proxmox-csi-plugin-node',
      'ClusterRole/proxmox-csi-plugin-node',
      'ClusterRoleBinding/proxmox-csi-plugin-node',
      'DaemonSet/proxmox-csi-plugin-node',
      'StorageClass/fast',
      'StorageClass/keep',
    ]);
    for (const t of ['tenant-a', 'tenant-b']) expect(tenantSideCredentialProblems(storageOf(t).tenantObjects)).toEqual([]);
  });

  it('catches a node plugin given the token (env from the Secret, a secret volume, the token inline, a Secret object)', () => {
    const copy = () => structuredClone(storageOf('tenant-a').tenantObjects);
    const daemonSet = (objects: KubernetesObject[]) => objects.find((o) => o.kind === 'DaemonSet') as Any;
    const env = copy();
    daemonSet(env).spec.template.spec.containers[0].env.push({ name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'capmox-pmox-txl', key: 'secret' } } });
    const volume = copy();
    daemonSet(volume).spec.template.spec.volumes.push({ name: 'token', secret: { secretName: 'capmox-pmox-txl' } });
    const inline = copy();
    daemonSet(inline).spec.template.spec.containers[0].args.push('--token=capmox@pve!tenant-tenant-a');
    const secret = [...copy(), { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'proxmox-csi-plugin', namespace: 'csi-proxmox' } }];
    expect(tenantSideCredentialProblems(env)).toEqual([
      'DaemonSet/proxmox-csi-plugin-node: .spec.template.spec.containers[0].env[1].valueFrom.secretKeyRef reads a Secret',
    ]);
    expect(tenantSideCredentialProblems(volume)).toEqual(['DaemonSet/proxmox-csi-plugin-node: .spec.template.spec.volumes[5].secret reads a Secret']);
    expect(tenantSideCredentialProblems(inline)).toEqual([
      'DaemonSet/proxmox-csi-plugin-node: .spec.template.spec.containers[0].args[3] looks like a Proxmox API token',
    ]);
    expect(tenantSideCredentialProblems(secret)).toEqual(['Secret/proxmox-csi-plugin: a Secret']);
  });

  it('render the classes as the lab names them: storage, reclaim policy, one default, waiting for the first consumer', () => {
    const classes = storageOf('tenant-a').tenantObjects.filter((o) => o.kind === 'StorageClass') as Any[];
    expect(
      classes.map((c) => ({
        name: c.metadata.name,
        storage: c.parameters.storage,
        reclaimPolicy: c.reclaimPolicy,
        default: c.metadata.annotations?.['storageclass.kubernetes.io/is-default-class'],
        provisioner: c.provisioner,
        binding: c.volumeBindingMode,
      })),
    ).toEqual([
      { name: 'fast', storage: 'tenant-a-lvm', reclaimPolicy: 'Delete', default: 'true', provisioner: PROXMOX_CSI.driverName, binding: 'WaitForFirstConsumer' },
      {
        name: 'keep',
        storage: 'tenant-a-lvm',
        reclaimPolicy: 'Retain',
        default: undefined,
        provisioner: PROXMOX_CSI.driverName,
        binding: 'WaitForFirstConsumer',
      },
    ]);
  });

  it("are applied by a ClusterResourceSet of the tenant's primary Cluster, from a ConfigMap of exactly those objects", () => {
    const s = storageOf('tenant-a');
    expect((s.resourceSet as Any).spec).toEqual({
      strategy: 'Reconcile',
      clusterSelector: {
        matchLabels: { 'pvekaas.lab/tenant': 'tenant-a' },
        matchExpressions: [{ key: 'pvekaas.lab/primary-cluster', operator: 'DoesNotExist' }],
      },
      resources: [{ kind: 'ConfigMap', name: CSI_TENANT_RESOURCES }],
    });
    const applied = Object.values((s.resources as Any).data as Record<string, string>).map((v) => JSON.parse(v));
    expect(applied).toEqual(s.tenantObjects);
    // Against the pinned CAPI core's ClusterResourceSet CRD.
    expect(validateManifest(s.resourceSet, pinnedCrds())).toEqual([]);
  });
});

describe('a lab without storage, and the same bytes', () => {
  it('renders no storage and no volumes role', () => {
    for (const r of plain.values()) expect(r.storage).toBeUndefined();
    for (const r of renderings.values()) if (r.tenant.name === 'tenant-c') expect(r.storage).toBeUndefined();
    for (const i of renderInstances(plainLab, planPlacement(plainLab)).values())
      expect(i.serviceAccount.roles.map((r) => r.roleId)).not.toContain(VOLUMES_ROLE.id);
  });

  it('renders the same objects from the same description', () => {
    const again = renderTenants(parseLab(text, 'examples/lab-storage.yaml'), planPlacement(lab));
    expect(JSON.stringify(again.get('tenant-a')!.storage)).toBe(JSON.stringify(storageOf('tenant-a')));
  });
});

describe('the tenant stack', () => {
  it('writes the controller, its config and the ClusterResourceSet, and no secret value', () => {
    const app = new App({ outdir: Testing.app().outdir, skipValidation: true });
    const stack = new TenantStack(app, 'tenant-tenant-a', { rendering: renderings.get('tenant-a')!, access: lab.management.kubernetes });
    const out = Testing.synth(stack);
    const manifests = Object.entries(JSON.parse(out).resource.kubernetes_manifest as Record<string, Any>)
      .filter(([id]) => id.startsWith('storage_'))
      .map(([, r]) => `${r.manifest.kind}/${r.manifest.metadata.name}`)
      .sort();
    expect(manifests).toEqual([
      'ClusterResourceSet/pvekaas-tenant-storage',
      'ConfigMap/proxmox-csi-config',
      'ConfigMap/pvekaas-tenant-storage',
      'Deployment/proxmox-csi-controller',
      'ServiceAccount/proxmox-csi-controller',
    ]);
    expect(out).not.toMatch(/PVEAPIToken|token_secret"\s*:/);
  });
});
