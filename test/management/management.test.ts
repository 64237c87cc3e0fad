/**
 * The management and management-config stacks of the example lab (and variants): pinned releases,
 * install order, custom resources valid against the pinned CRDs, the mirror rewriting every chart
 * and image source, CAPMOX credentials without secrets in the output, the datastore backup.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { App, Testing } from 'cdktf';
import { renderManagement } from '../../modules/management';
import { renderManagementPlane } from '../../modules/rendering';
import { versionGuard } from '../../modules/versions/lab-guard';
import { ManagementStack } from '../../stacks/management-stack';
import { loadPinnedCrds, validateManifest } from '../support/crds';
import { checkManagement } from '../../modules/config/management-rules';
import { CAPI_1_12_TUNING, CORE_SYNC_ARGS, capiProviderResources, kamajiValues, tenantVipPoolManifests } from '../../modules/management/chart-values';
import {
  capiPreviousLane,
  capiProviders,
  imageInventory,
  imageRef,
  KAMAJI_CHART_LATEST,
  managementImages,
  pinnedVersions,
  resolveVersions,
} from '../../modules/versions';
import { LOCAL_PATH_NODE_PATH, LOCAL_PATH_STORAGE_CLASS, OPENEBS_STORAGE_CLASS, datastoreMemoryOfStack } from '../../modules/management/datastore';
import { CAPMOX_CREDENTIALS_NAMESPACE, capmoxTenantCredentialsSecretName } from '../../modules/versions/layout';
import { exampleLab, exampleLabSchemaOnly, projectRoot, synthesize, type Synthesized } from './synth';

const crds = loadPinnedCrds(projectRoot, process.env);
const MIRROR = { charts: 'oci://registry.lab.example/charts', images: 'registry.lab.example/mirror' };
const PUBLIC_REGISTRIES = ['docker.io', 'quay.io', 'registry.k8s.io', 'ghcr.io', 'gcr.io'];

const releasesOf = (s: Synthesized) => Object.values(s.stack('management').resource.helm_release) as any[];
const releaseNamed = (s: Synthesized, name: string) => releasesOf(s).find((r) => r.name === name);
const valuesOf = (release: any) => parse(release.values[0]);

function strings(value: unknown, path = ''): { path: string; value: string }[] {
  if (typeof value === 'string') return [{ path, value }];
  if (Array.isArray(value)) return value.flatMap((v, i) => strings(v, `${path}[${i}]`));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => strings(v, path ? `${path}.${k}` : k));
  return [];
}

/** Terraform address → the addresses it depends on, for the whole stack. */
function dependencyGraph(stack: any): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const [type, resources] of Object.entries(stack.resource as Record<string, Record<string, any>>)) {
    for (const [name, resource] of Object.entries(resources)) graph.set(`${type}.${name}`, resource.depends_on ?? []);
  }
  return graph;
}

function dependsTransitively(graph: Map<string, string[]>, from: string, to: string): boolean {
  const seen = new Set<string>();
  const stack = [from];
  while (stack.length > 0) {
    const next = stack.pop()!;
    for (const dep of graph.get(next) ?? []) {
      if (dep === to) return true;
      if (!seen.has(dep)) {
        seen.add(dep);
        stack.push(dep);
      }
    }
  }
  return false;
}

let example: Synthesized;
beforeAll(() => {
  example = synthesize(exampleLab());
});
afterAll(() => example.cleanup());

describe('the example lab', () => {
  let synth: Synthesized;
  beforeAll(() => {
    synth = example;
  });

  it('synthesizes both management stacks', () => {
    expect(synth.stacks).toEqual(expect.arrayContaining(['management', 'management-config']));
  });

  it('installs every component as a pinned Helm release, none at "latest" but the Kamaji chart\'s only version', () => {
    const releases = releasesOf(synth);
    expect(releases.map((r) => `${r.namespace}/${r.name}@${r.version}`).sort()).toEqual([
      `capi-operator-system/capi-operator@${pinnedVersions.clusterApiOperator}`,
      `cert-manager/cert-manager@${pinnedVersions.certManager}`,
      `kamaji-system/kamaji-etcd@${pinnedVersions.kamajiEtcd}`,
      `kamaji-system/kamaji@${KAMAJI_CHART_LATEST}`,
      `metallb-system/metallb@${pinnedVersions.metallb}`,
      `openebs/localpv-provisioner@${pinnedVersions.localpvProvisioner}`,
    ]);
    for (const r of releases) {
      if (r.name !== 'kamaji') expect(r.version).not.toMatch(/latest/);
      expect(r.wait).toBe(true);
      expect(r.timeout).toBeGreaterThanOrEqual(300);
      expect(r.create_namespace).toBe(false);
      for (const s of strings(valuesOf(r))) expect(`${s.path}=${s.value}`).not.toMatch(/(^|[:=@])latest$/);
    }
  });

  it('pins Kamaji by its edge image tag, releases it as "kamaji" in kamaji-system, and keeps its bundled etcd off', () => {
    const kamaji = releaseNamed(synth, 'kamaji');
    expect(kamaji.namespace).toBe('kamaji-system');
    const values = valuesOf(kamaji);
    expect(values.image).toEqual({ repository: 'docker.io/clastix/kamaji', tag: '26.8.2-edge', pullPolicy: 'IfNotPresent' });
    expect(values['kamaji-etcd']).toEqual({ deploy: false });
  });

  it('turns on cert-manager CRDs, the topology feature gate and MetalLB L2 without FRR', () => {
    expect(valuesOf(releaseNamed(synth, 'cert-manager')).crds.enabled).toBe(true);
    expect(valuesOf(releaseNamed(synth, 'capi-operator')).core['cluster-api'].manager.featureGates.ClusterTopology).toBe(true);
    const metallb = valuesOf(releaseNamed(synth, 'metallb'));
    expect(metallb.speaker.frr.enabled).toBe(false);
    expect(metallb.frrk8s.enabled).toBe(false);
  });

  it('sizes the datastore from the description', () => {
    const etcd = valuesOf(releaseNamed(synth, 'kamaji-etcd'));
    expect(etcd.persistentVolumeClaim).toEqual({ size: '10Gi', storageClassName: 'openebs-hostpath', accessModes: ['ReadWriteOnce'] });
    expect(etcd.replicas).toBe(3);
    expect(Number(etcd.quotaBackendBytes)).toBe(7.5 * 2 ** 30);
    expect(etcd.datastore.name).toBe('default');
    expect(valuesOf(releaseNamed(synth, 'localpv-provisioner')).hostpathClass.name).toBe('openebs-hostpath');
  });

  it('orders the installs with dependsOn', () => {
    const stack = synth.stack('management');
    const graph = dependencyGraph(stack);
    const address = (name: string) => {
      const [key] = Object.entries(stack.resource.helm_release).find(([, r]: [string, any]) => r.name === name)!;
      return `helm_release.${key}`;
    };
    const job = `kubernetes_job_v1.${Object.keys(stack.resource.kubernetes_job_v1)[0]}`;
    const before: [string, string][] = [
      ['kamaji', 'cert-manager'],
      ['kamaji-etcd', 'kamaji'],
      ['kamaji-etcd', 'localpv-provisioner'],
      ['capi-operator', 'cert-manager'],
      ['capi-operator', 'kamaji'],
    ];
    for (const [later, earlier] of before)
      expect({ later, earlier, ok: dependsTransitively(graph, address(later), address(earlier)) }).toEqual({ later, earlier, ok: true });
    expect(dependsTransitively(graph, job, address('capi-operator'))).toBe(true);
    for (const r of releasesOf(synth)) {
      const ns = `kubernetes_namespace_v1.namespace-${r.namespace}`;
      expect({ release: r.name, ns, ok: dependsTransitively(graph, address(r.name), ns) }).toEqual({ release: r.name, ns, ok: true });
    }
    expect(dependsTransitively(graph, address('cert-manager'), address('kamaji'))).toBe(false);
  });

  it('waits in the cluster until the operator has installed each provider at its pinned version', () => {
    const job: any = Object.values(synth.stack('management').resource.kubernetes_job_v1)[0];
    expect(synth.stack('management').resource.kubernetes_job_v1).toBeDefined();
    expect(job.wait_for_completion).toBe(true);
    const waits = job.spec.template.spec.container.map((c: any) => c.args.slice(-3).concat(c.args[1]).join(' ')).sort();
    expect(waits).toEqual(
      capiProviders
        .map(
          (p) =>
            `--namespace ${capiProviderResources({ management: exampleLab().management, versions: pinnedVersions }).find((r) => r.metadata.name === p.name)!.metadata.namespace} ${p.operatorKind.toLowerCase()}s/${p.name} --for=jsonpath={.status.installedVersion}=${pinnedVersions[p.versionKey]}`,
        )
        .sort(),
    );
  });

  it('renders the operator values from provider resources that validate against the operator CRDs', () => {
    const settings = { management: exampleLab().management, versions: pinnedVersions };
    const resources = capiProviderResources(settings);
    for (const resource of resources) expect(validateManifest(resource, crds)).toEqual([]);
    const values = valuesOf(releaseNamed(synth, 'capi-operator'));
    for (const [i, provider] of capiProviders.entries()) {
      const { namespace, createNamespace, ...spec } = values[provider.kind][provider.name];
      expect({ namespace, createNamespace, spec }).toEqual({ namespace: resources[i].metadata.namespace, createNamespace: false, spec: resources[i].spec });
    }
  });

  it('renders a MetalLB pool and L2 advertisement in management-config that validate against the MetalLB CRDs', () => {
    const manifests = Object.values(synth.stack('management-config').resource.kubernetes_manifest)
      .map((m: any) => m.manifest)
      .filter((m) => m.apiVersion.startsWith('metallb.io/'));
    expect(manifests.map((m) => m.kind).sort()).toEqual(['IPAddressPool', 'L2Advertisement']);
    for (const m of manifests) expect(validateManifest(m, crds)).toEqual([]);
    const pool = manifests.find((m) => m.kind === 'IPAddressPool');
    expect(pool.spec.addresses).toEqual(['10.4.0.100-10.4.0.149']);
    // MetalLB's autoAssign defaults to true: any LoadBalancer Service could take a tenant's VIP.
    expect(pool.spec.autoAssign).toBe(false);
    // The VLAN is real: the VIPs are announced on the lab's VLAN 4 interface only.
    const l2 = manifests.find((m) => m.kind === 'L2Advertisement');
    expect(l2.spec).toEqual({ ipAddressPools: ['tenant-vips'], interfaces: ['eth0.4'] });
    expect(pool.metadata.annotations).toBeUndefined();
  });

  it('refuses a load-balancer VLAN without the interfaces to announce it on', () => {
    const edit = (raw: any) => (raw.management.loadBalancer.interfaces = []);
    expect(() => exampleLab(edit)).toThrow(/management\.loadBalancer\.interfaces: loadBalancer\.vlan is 4 but no interfaces are listed/);
    expect(checkManagement(exampleLabSchemaOnly(edit))[0].fix).toContain('interfaces: [eth0.4]');
  });

  it('creates one CAPMOX credentials Secret per instance and tenant, filled by cross-stack references only', () => {
    const secrets = Object.values(synth.stack('management').resource.kubernetes_secret_v1) as any[];
    // The example's placement: tenant-a and tenant-b on pmox-txl, tenant-c on both.
    const pairs: [string, string][] = [
      ['pmox-fra', 'tenant-c'],
      ['pmox-txl', 'tenant-a'],
      ['pmox-txl', 'tenant-b'],
      ['pmox-txl', 'tenant-c'],
    ];
    expect(secrets.map((s) => s.metadata.name).sort()).toEqual(pairs.map(([i, t]) => capmoxTenantCredentialsSecretName(i, t)).sort());
    for (const secret of secrets) {
      expect(secret.metadata.namespace).toBe(CAPMOX_CREDENTIALS_NAMESPACE);
      expect(secret.metadata.labels['platform.ionos.com/secret-type']).toBe('proxmox-credentials');
      // url, and that one tenant's own token on the instance (modules/config/proxmox-access.ts).
      expect(Object.keys(secret.data).sort()).toEqual(['secret', 'token', 'url']);
      for (const key of ['token', 'secret']) expect(secret.data[key]).toMatch(/^\$\{.*data\.terraform_remote_state\.[^}]*\}$/);
    }
  });

  it('leaves no secret in any synthesized file: secret values are references, secret outputs are sensitive', () => {
    const all = synth.allText();
    expect(all).not.toMatch(/-----BEGIN [A-Z ]*PRIVATE KEY-----/);
    for (const name of synth.stacks) {
      const stack = synth.stack(name);
      for (const [id, output] of Object.entries(stack.output ?? {}) as [string, any][]) {
        if (/token|secret|credential/i.test(id)) expect({ id, sensitive: output.sensitive }).toEqual({ id, sensitive: true });
      }
      for (const [id, variable] of Object.entries(stack.variable ?? {}) as [string, any][]) {
        if (/token|secret|password|certificate|access_key/i.test(id)) expect({ id, sensitive: variable.sensitive }).toEqual({ id, sensitive: true });
      }
    }
    for (const secret of Object.values(synth.stack('management').resource.kubernetes_secret_v1) as any[]) {
      for (const [key, value] of Object.entries(secret.data)) if (key !== 'url') expect(value).toMatch(/^\$\{[^]*\}$/);
    }
  });

  it('reaches the cluster with the kubeconfig and context from the description', () => {
    const stack = synth.stack('management');
    expect(stack.provider.kubernetes).toEqual([{ config_path: '~/.kube/lab-mgmt.yaml', config_context: 'lab-mgmt' }]);
    expect(stack.provider.helm).toEqual([{ kubernetes: { config_path: '~/.kube/lab-mgmt.yaml', config_context: 'lab-mgmt' } }]);
    expect(synth.stack('management-config').provider.kubernetes).toEqual(stack.provider.kubernetes);
  });

  it('reports the known build skews as synth warnings, without machine paths', () => {
    const manifest = JSON.parse(readFileSync(join(synth.dir, 'manifest.json'), 'utf8'));
    const messages = manifest.stacks.management.annotations.map((a: any) => a.message);
    expect(messages.some((m: string) => /^pvekaas: known and contract-compatible: CAPMOX v0\.9\.0 is built on CAPI 1\.12/.test(m))).toBe(true);
    expect(JSON.stringify(manifest.stacks.management.annotations)).not.toContain(projectRoot);
  });

  it('synthesizes the same bytes twice', () => {
    const again = synthesize(exampleLab());
    try {
      expect(again.text('management')).toBe(synth.text('management'));
      expect(again.text('management-config')).toBe(synth.text('management-config'));
    } finally {
      again.cleanup();
    }
  });
});

describe('an air-gapped lab (management.mirror)', () => {
  let synth: Synthesized;
  beforeAll(() => {
    synth = synthesize(
      exampleLab((raw) => {
        raw.management.mirror = MIRROR;
        raw.management.datastore.backup = { s3: { endpoint: 'https://s3.lab.example', bucket: 'lab-backups' } };
      }),
    );
  });
  afterAll(() => synth.cleanup());

  it('installs every chart from the mirror', () => {
    for (const r of releasesOf(synth)) expect({ name: r.name, repository: r.repository }).toEqual({ name: r.name, repository: MIRROR.charts });
  });

  it('leaves no image or registry pointing at a public registry, in values or in Jobs', () => {
    const management = synth.stack('management');
    const found: string[] = [];
    const check = (where: string, s: { path: string; value: string }) => {
      for (const registry of PUBLIC_REGISTRIES) {
        const at = s.value.indexOf(registry);
        if (at >= 0 && !s.value.startsWith(`${MIRROR.images}/`)) found.push(`${where}: ${s.path}=${s.value}`);
        if (at > 0 && s.value.slice(0, at) !== `${MIRROR.images}/`) found.push(`${where}: ${s.path}=${s.value}`);
      }
    };
    for (const r of releasesOf(synth)) for (const s of strings(valuesOf(r))) check(`release ${r.name}`, s);
    for (const type of ['kubernetes_job_v1', 'kubernetes_cron_job_v1']) {
      for (const [id, resource] of Object.entries(management.resource[type] ?? {})) for (const s of strings(resource)) check(`${type}.${id}`, s);
    }
    expect(found).toEqual([]);
  });

  it("sets every image the pinned inventory lists to its mirrored copy (but the other CSI's: this lab runs OpenEBS LocalPV)", () => {
    const text =
      releasesOf(synth)
        .map((r) => r.values[0])
        .join('\n') + JSON.stringify(synth.stack('management').resource);
    const otherCsi = new Set(Object.values(managementImages(pinnedVersions).localPathProvisioner).map(imageRef));
    for (const image of imageInventory(pinnedVersions).filter((i) => !otherCsi.has(imageRef(i)))) {
      const [host, ...rest] = image.repository.split('/');
      const whole = text.includes(`${MIRROR.images}/${image.repository}`);
      // OpenEBS LocalPV takes registry and repository separately.
      const split = text.includes(`registry: ${MIRROR.images}/${host}/`) && text.includes(`repository: ${rest.join('/')}`);
      expect({ image: imageRef(image), mirrored: whole || split, tagged: text.includes(image.tag) }).toEqual({
        image: imageRef(image),
        mirrored: true,
        tagged: true,
      });
    }
  });

  it('fetches provider components from OCI artifacts in the mirror and runs mirrored provider images, valid against the operator CRDs', () => {
    const lab = exampleLab((raw) => {
      raw.management.mirror = MIRROR;
    });
    const resources = capiProviderResources({ management: lab.management, versions: pinnedVersions });
    // On the default CAPI 1.13 the mirrored image alone; on the previous minor (1.12) beside the
    // controller flags core and kubeadm bootstrap get there.
    const previous = capiProviderResources({ management: lab.management, versions: { ...pinnedVersions, clusterApi: capiPreviousLane()!.version } });
    for (const [set, tuned] of [
      [resources, false],
      [previous, true],
    ] as const)
      for (const r of set) {
        expect(validateManifest(r, crds)).toEqual([]);
        const spec = r.spec as any;
        expect(spec.fetchConfig.oci).toMatch(new RegExp(`^${MIRROR.images}/capi-providers/[a-z-]+$`));
        const args = tuned
          ? { 'cluster-api': { ...CAPI_1_12_TUNING.core, ...CORE_SYNC_ARGS }, kubeadm: CAPI_1_12_TUNING.bootstrap }[r.metadata.name]
          : { 'cluster-api': CORE_SYNC_ARGS }[r.metadata.name];
        expect(spec.deployment.containers).toEqual([
          {
            name: 'manager',
            imageUrl: expect.stringMatching(new RegExp(`^${MIRROR.images}/(registry\\.k8s\\.io|ghcr\\.io|docker\\.io)/.+:v\\d`)),
            ...(args ? { args } : {}),
          },
        ]);
      }
    expect(resources.map((r) => (r.spec as any).fetchConfig.oci.split('/').pop()).sort()).toEqual([
      'addon-helm',
      'bootstrap-kubeadm',
      'control-plane-kamaji',
      'core-cluster-api',
      'infrastructure-proxmox',
      'ipam-in-cluster',
    ]);
  });
});

describe('datastore backups', () => {
  let synth: Synthesized;
  beforeAll(() => {
    synth = synthesize(
      exampleLab((raw) => {
        raw.management.datastore.backup = {
          schedule: '15 */4 * * *',
          retention: 30,
          s3: { endpoint: 'https://s3.lab.example', bucket: 'lab-backups', prefix: 'etcd/' },
        };
      }),
    );
  });
  afterAll(() => synth.cleanup());

  it('snapshots kamaji-etcd on the schedule, verifies, uploads, and keeps the newest N', () => {
    const stack = synth.stack('management');
    const [cron] = Object.values(stack.resource.kubernetes_cron_job_v1) as any[];
    expect(cron.spec.schedule).toBe('15 */4 * * *');
    expect(cron.spec.concurrency_policy).toBe('Forbid');
    const pod = cron.spec.job_template.spec.template.spec;
    expect(pod.init_container.map((c: any) => c.command.slice(0, 3).join(' '))).toEqual(['etcdctl snapshot save', 'etcdutl snapshot status']);
    expect(pod.init_container[0].image).toBe(`quay.io/coreos/etcd:${pinnedVersions.etcd}`);
    const upload = pod.container[0];
    expect(upload.image).toBe(`docker.io/rclone/rclone:${pinnedVersions.rclone}`);
    const env = Object.fromEntries(upload.env.map((e: any) => [e.name, e.value ?? e.value_from]));
    expect(env).toMatchObject({ RETENTION: '30', S3_BUCKET: 'lab-backups', S3_PREFIX: 'etcd/', RCLONE_CONFIG_TARGET_ENDPOINT: 'https://s3.lab.example' });
    expect(upload.command[2]).not.toContain('${');
    const graph = dependencyGraph(stack);
    const etcd = Object.entries(stack.resource.helm_release).find(([, r]: [string, any]) => r.name === 'kamaji-etcd')![0];
    expect(dependsTransitively(graph, `kubernetes_cron_job_v1.${Object.keys(stack.resource.kubernetes_cron_job_v1)[0]}`, `helm_release.${etcd}`)).toBe(true);
  });

  it('takes the S3 keys from sensitive variables', () => {
    const stack = synth.stack('management');
    expect(stack.variable.datastore_backup_s3_access_key_id.sensitive).toBe(true);
    expect(stack.variable.datastore_backup_s3_secret_access_key.sensitive).toBe(true);
    const s3 = (Object.values(stack.resource.kubernetes_secret_v1) as any[]).find((s) => s.metadata.name === 'kamaji-etcd-backup-s3');
    expect(s3.data).toEqual({
      'access-key-id': '${var.datastore_backup_s3_access_key_id}',
      'secret-access-key': '${var.datastore_backup_s3_secret_access_key}',
    });
  });

  it('renders no backup when the description asks for none', () => {
    expect(exampleLab().management.datastore.backup).toBeUndefined();
    expect(example.stack('management').resource.kubernetes_cron_job_v1).toBeUndefined();
  });
});

describe('other descriptions', () => {
  it('reaches the cluster by host with CA and token from sensitive variables', () => {
    const synth = synthesize(exampleLab((raw) => (raw.management.kubernetes = { host: 'https://mgmt.lab.example:6443' })));
    try {
      const stack = synth.stack('management');
      expect(stack.provider.kubernetes).toEqual([
        { host: 'https://mgmt.lab.example:6443', cluster_ca_certificate: '${var.management_cluster_ca_certificate}', token: '${var.management_cluster_token}' },
      ]);
      expect(stack.variable.management_cluster_ca_certificate.sensitive).toBe(true);
      expect(stack.variable.management_cluster_token.sensitive).toBe(true);
    } finally {
      synth.cleanup();
    }
  });

  it('installs Rancher local-path-provisioner from the chart mirror with csi: local-path, its class Retain, kamaji-etcd after it', () => {
    const synth = synthesize(
      exampleLab((raw) => {
        raw.management.datastore = { size: '10Gi', csi: 'local-path' };
        raw.management.mirror = MIRROR;
      }),
    );
    try {
      const releases = releasesOf(synth);
      expect(releases.map((r) => r.name)).not.toContain('localpv-provisioner');
      const lp = releaseNamed(synth, 'local-path-provisioner');
      expect([lp.namespace, lp.chart, lp.version, lp.repository]).toEqual([
        'local-path-storage',
        'local-path-provisioner',
        pinnedVersions.localPathProvisioner,
        MIRROR.charts,
      ]);
      const images = managementImages(pinnedVersions).localPathProvisioner;
      expect(valuesOf(lp)).toEqual({
        image: { repository: `${MIRROR.images}/${images.provisioner.repository}`, tag: images.provisioner.tag, pullPolicy: 'IfNotPresent' },
        helperImage: { repository: `${MIRROR.images}/${images.helper.repository}`, tag: images.helper.tag },
        storageClass: { create: true, name: LOCAL_PATH_STORAGE_CLASS, defaultClass: false, reclaimPolicy: 'Retain', volumeBindingMode: 'WaitForFirstConsumer' },
        nodePathMap: [{ node: 'DEFAULT_PATH_FOR_NON_LISTED_NODES', paths: [LOCAL_PATH_NODE_PATH] }],
      });
      const etcd = releaseNamed(synth, 'kamaji-etcd');
      expect(valuesOf(etcd).persistentVolumeClaim.storageClassName).toBe(LOCAL_PATH_STORAGE_CLASS);
      const stack = synth.stack('management');
      const [lpKey] = Object.entries(stack.resource.helm_release).find(([, r]: [string, any]) => r.name === 'local-path-provisioner')!;
      expect(etcd.depends_on).toContain(`helm_release.${lpKey}`);
      // Its helper pods mount the node path (hostPath): the namespace admits privileged pods.
      const ns = Object.values(stack.resource.kubernetes_namespace_v1 as Record<string, any>).find((n) => n.metadata.name === 'local-path-storage');
      expect(ns.metadata.labels['pod-security.kubernetes.io/enforce']).toBe('privileged');
      expect(Object.values(stack.resource.kubernetes_namespace_v1 as Record<string, any>).map((n) => n.metadata.name)).not.toContain('openebs');
      // What the next synth remembers of it (modules/management/datastore.ts, "Memory").
      expect(datastoreMemoryOfStack(stack)).toEqual({ csi: 'local-path', storageClass: LOCAL_PATH_STORAGE_CLASS });
    } finally {
      synth.cleanup();
    }
  });

  it('remembers the datastore of the example lab from its management stack, and of a stack with no CSI release as existing', () => {
    const stack = example.stack('management');
    expect(datastoreMemoryOfStack(stack)).toEqual({ csi: 'openebs-localpv', storageClass: OPENEBS_STORAGE_CLASS });
    const releases = Object.fromEntries(Object.entries(stack.resource.helm_release as Record<string, any>).filter(([, r]) => r.name !== 'localpv-provisioner'));
    expect(datastoreMemoryOfStack({ resource: { helm_release: releases } })).toEqual({ csi: 'existing', storageClass: OPENEBS_STORAGE_CLASS });
    expect(datastoreMemoryOfStack({ resource: {} })).toBeUndefined();
  });

  it('installs no CSI when the cluster already has the StorageClass', () => {
    const synth = synthesize(exampleLab((raw) => (raw.management.datastore = { storageClass: 'local-path', csi: 'existing', replicas: 1 })));
    try {
      expect(releasesOf(synth).map((r) => r.name)).not.toContain('localpv-provisioner');
      expect(releasesOf(synth).map((r) => r.name)).not.toContain('local-path-provisioner');
      const etcd = releaseNamed(synth, 'kamaji-etcd');
      expect(etcd.depends_on.some((d: string) => d.includes('localpv') || d.includes('local-path'))).toBe(false);
      expect(valuesOf(etcd).replicas).toBe(1);
    } finally {
      synth.cleanup();
    }
  });

  it('refuses at synth a Kamaji provider whose contract differs from the core, naming both', () => {
    const edit = (raw: any) => (raw.management.versions = { kamajiProvider: 'v0.19.0' });
    expect(() => exampleLab(edit)).toThrow(/management\.versions\.kamajiProvider: Kamaji control plane kamaji v0\.19\.0 implements CAPI contract v1beta1/);
    const lab = exampleLabSchemaOnly(edit);
    expect(() => renderManagement(lab)).toThrow(
      new RegExp(
        `management\\.versions\\.kamajiProvider: Kamaji control plane kamaji v0\\.19\\.0 implements CAPI contract v1beta1, but core cluster-api ${pinnedVersions.clusterApi.replace(/\./g, '\\.')} implements v1beta2`,
      ),
    );
    expect(checkManagement(lab)).toEqual([expect.objectContaining({ path: ['management', 'versions', 'kamajiProvider'], value: 'v0.19.0' })]);
  });

  it('refuses provider components from a mirror while their images come from public registries', () => {
    const edit = (raw: any) => (raw.management.mirror = { providers: 'registry.lab.example/capi' });
    expect(() => exampleLab(edit)).toThrow(/management\.mirror\.providers: provider components come from the mirror/);
    const lab = exampleLabSchemaOnly(edit);
    expect(checkManagement(lab).map((p) => p.path.join('.'))).toEqual(['management.mirror.providers']);
  });

  it('validates the tenant VIP pool with interfaces', () => {
    const lab = exampleLab((raw) => (raw.management.loadBalancer.interfaces = ['vlan4']));
    const [, l2] = tenantVipPoolManifests(lab.management);
    expect(l2.spec).toEqual({ ipAddressPools: ['tenant-vips'], interfaces: ['vlan4'] });
    expect(validateManifest(l2, crds)).toEqual([]);
  });

  it('uses the Kamaji digest when one is given', () => {
    const digest = `sha256:${'0123456789abcdef'.repeat(4)}`;
    const lab = exampleLab((raw) => (raw.management.versions = { kamajiImageDigest: digest }));
    const versions = resolveVersions(lab.management.versions);
    expect((kamajiValues({ management: lab.management, versions }).image as any).tag).toBe(`26.8.2-edge@${digest}`);
  });
});

describe('the management rendering and its stack', () => {
  it('runs the version guard in one place: validation and the rendering report the same findings', () => {
    const lab = exampleLabSchemaOnly((raw: any) => (raw.management.versions = { kamajiProvider: 'v0.19.0', proxmoxProvider: 'v0.9.1' }));
    const guard = versionGuard(lab);
    expect(guard.problems.map((p) => p.path.join('.'))).toEqual(['management.versions.kamajiProvider']);
    expect(checkManagement(lab)).toEqual(guard.problems.map((p) => ({ ...p, rule: 'versions.guard' })));
    expect(guard.warnings).toContainEqual(
      expect.objectContaining({
        path: ['management', 'versions', 'proxmoxProvider'],
        severity: 'warning',
        message: expect.stringMatching(/^capmox\.multiInstance secondary-clusters was checked against/),
      }),
    );
    expect(guard.warnings.every((w) => w.severity === 'warning')).toBe(true);
    expect(() => renderManagement(lab)).toThrow(/^management: the version guard refuses this combination\n {2}management\.versions\.kamajiProvider: /);
  });

  it('builds the stack from its rendering alone: what the rendering says is what the stack holds', () => {
    const lab = exampleLab();
    const rendering = renderManagementPlane(lab);
    const changed = {
      ...rendering,
      warnings: [{ path: ['management', 'versions', 'etcd'], message: 'a warning from the rendering', severity: 'warning' as const }],
      values: { ...rendering.values, metallb: { marker: 'from-the-rendering' } },
      providersReady: { ...rendering.providersReady, kubectlImage: 'registry.example/kubectl:v0' },
    };
    const app = new App({ outdir: '/nonexistent', skipValidation: true });
    const stack = new ManagementStack(app, 'management', { rendering: changed, credentials: {} });
    expect(stack.warnings).toEqual(['management.versions.etcd: a warning from the rendering']);
    const json = JSON.parse(Testing.synth(stack));
    const metallb = Object.values(json.resource.helm_release as Record<string, any>).find((r) => r.name === 'metallb');
    expect(metallb.values.map((v: string) => parse(v))).toEqual([{ marker: 'from-the-rendering' }]);
    expect(JSON.stringify(json)).toContain('registry.example/kubectl:v0');
  });
});
