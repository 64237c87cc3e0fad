/**
 * Render everything first: every object a stack writes is the rendering it was given, and every
 * rendered object is written. The lab is rendered once (`renderLab`, modules/rendering); the stacks
 * are built from that rendering (`buildLab`) and synthesized; then, stack by stack, what the
 * synthesized JSON holds is read back and compared with the rendering — Kubernetes objects
 * (`kubernetes_manifest`), Helm values, Secrets, Proxmox pools, storages, roles, the user, tokens,
 * ACLs, node templates and the outputs. A construct that writes anything else (the CNI proxy in
 * `default` instead of the tenant's namespace, which CAAPH would never match to the tenant's
 * Cluster) fails here. Run for the example lab and for its secondary-clusters variant.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'cdktf';
import { parse } from 'yaml';
import type { Lab } from '../../modules/config/schema';
import { planPlacement } from '../../modules/placement';
import { renderLab, type LabRendering } from '../../modules/rendering';
import type { KubernetesObject } from '../../modules/tenants/manifest';
import type { TenantRendering } from '../../modules/tenants';
import { buildLab } from '../../stacks/app';
import { parseLab } from '../../modules/config/load';
import { exampleLab } from '../management/synth';

const FRA_NETWORK = { addresses: ['10.20.3.10-10.20.3.60'], prefix: 24, gateway: '10.20.3.1', dnsServers: ['10.20.3.1'] };

function synthAll(lab: Lab, rendering: LabRendering): Record<string, any> {
  const dir = mkdtempSync(join(tmpdir(), 'pvekaas-render-'));
  const previous = process.env.SYNTH_HCL_OUTPUT;
  process.env.SYNTH_HCL_OUTPUT = 'false';
  try {
    const app = new App({ outdir: dir, hclOutput: false });
    buildLab(app, lab, rendering);
    app.synth();
    return Object.fromEntries(readdirSync(join(dir, 'stacks')).map((s) => [s, JSON.parse(readFileSync(join(dir, 'stacks', s, 'cdk.tf.json'), 'utf8'))]));
  } finally {
    if (previous === undefined) delete process.env.SYNTH_HCL_OUTPUT;
    else process.env.SYNTH_HCL_OUTPUT = previous;
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What tofu hands the provider: Terraform's template escapes (`$${`, `%%{`) undone, in keys and values. */
function unescape(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(/\$\$\{/g, '${').replace(/%%\{/g, '%{');
  if (Array.isArray(value)) return value.map(unescape);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [unescape(k) as string, unescape(v)]));
}

const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value));
/** JSON with object keys sorted (cdktf writes them sorted); array order kept, as it means something. */
function canonical(value: unknown): string {
  const sortKeys = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sortKeys)
      : v !== null && typeof v === 'object'
        ? Object.fromEntries(
            Object.entries(v as Record<string, unknown>)
              .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
              .map(([k, x]) => [k, sortKeys(x)]),
          )
        : v;
  return JSON.stringify(sortKeys(plain(value)));
}
const sortedBy = <T>(list: T[]): T[] => [...list].sort((a, b) => canonical(a).localeCompare(canonical(b)));
const objectKey = (o: KubernetesObject) => `${o.apiVersion} ${o.kind} ${o.metadata.namespace ?? '-'}/${o.metadata.name}`;
const resources = (json: any, type: string): any[] =>
  Object.values(json.resource?.[type] ?? {}).map((r: any) => {
    const { '//': _meta, ...rest } = r;
    return rest;
  });

/** Every Kubernetes object the stack writes, by apiVersion, kind, namespace and name. */
function writtenObjects(json: any): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const r of resources(json, 'kubernetes_manifest')) {
    const o = unescape(r.manifest) as KubernetesObject;
    expect(out.has(objectKey(o))).toBe(false);
    out.set(objectKey(o), o);
  }
  return out;
}

const byKey = (objects: readonly KubernetesObject[]) => new Map(objects.map((o) => [objectKey(o), plain(o)]));

/** Every Kubernetes object of a tenant's rendering. */
function tenantObjects(r: TenantRendering): KubernetesObject[] {
  const s = r.secondaries;
  return [
    r.namespace,
    r.role,
    ...(r.roleBinding ? [r.roleBinding] : []),
    r.cniProxy,
    r.cluster,
    ...(r.identity ? [r.identity.authentication, r.identity.access, r.identity.resourceSet] : []),
    ...(s
      ? [
          s.mirror.serviceAccount,
          s.mirror.role,
          s.mirror.roleBinding,
          s.mirror.cronJob,
          ...s.clusters.flatMap((sc) => [
            sc.controlPlane,
            sc.proxmoxCluster,
            sc.cluster,
            ...sc.machineDeployments.flatMap((md) => [md.bootstrapTemplate, md.machineTemplate, md.machineDeployment, sc.healthChecks.get(md.name)!]),
          ]),
        ]
      : []),
  ];
}

/** Every way the synthesized stacks depart from the rendering; empty when each stack writes exactly its part. */
function departures(rendering: LabRendering, stacks: Record<string, any>): string[] {
  const out: string[] = [];
  const same = (what: string, written: unknown, expected: unknown) => {
    const a = canonical(written);
    const b = canonical(expected);
    if (a !== b) out.push(`${what}: writes ${a.slice(0, 400)}, the rendering says ${b.slice(0, 400)}`);
  };
  const sameObjects = (stack: string, written: Map<string, unknown>, expected: Map<string, unknown>) => {
    for (const [k, o] of written) {
      if (!expected.has(k)) out.push(`${stack}: writes ${k}, which the rendering does not hold`);
      else same(`${stack}: ${k}`, o, expected.get(k));
    }
    for (const k of expected.keys()) if (!written.has(k)) out.push(`${stack}: does not write ${k} of the rendering`);
  };

  for (const [name, r] of rendering.tenants) {
    const stack = `tenant-${name}`;
    const json = stacks[stack];
    sameObjects(stack, writtenObjects(json), byKey(tenantObjects(r)));
    const secrets = resources(json, 'kubernetes_secret_v1');
    same(
      `${stack}: credentials copies`,
      sortedBy(
        secrets.map((s) => ({
          ...(s.metadata[0] ?? s.metadata),
          tls: Object.fromEntries(Object.entries(s.data).filter(([k]) => !['url', 'token', 'secret'].includes(k))),
        })),
      ),
      sortedBy(r.credentials.map((c) => ({ labels: c.labels, name: c.target.name, namespace: c.target.namespace, tls: c.tlsData }))),
    );
    same(
      `${stack}: credentials sources`,
      sortedBy(Object.values(json.data?.kubernetes_secret_v1 ?? {}).map((d: any) => d.metadata[0] ?? d.metadata)),
      sortedBy(r.credentials.map((c) => c.source)),
    );
    const releases = resources(json, 'helm_release');
    same(
      `${stack}: autoscaler`,
      releases.map((h) => ({
        name: h.name,
        namespace: h.namespace,
        repository: h.repository,
        chart: h.chart,
        version: h.version,
        values: h.values.map((v: string) => parse(v)),
      })),
      r.autoscaler
        ? [
            {
              name: r.autoscaler.name,
              namespace: r.autoscaler.namespace,
              repository: r.autoscaler.repository,
              chart: r.autoscaler.chart.chart,
              version: r.autoscaler.chart.version,
              values: [r.autoscaler.values],
            },
          ]
        : [],
    );
    same(`${stack}: outputs`, Object.fromEntries(Object.entries(json.output).map(([k, v]: [string, any]) => [k, v.value])), {
      clusters: r.clusters,
      kubeconfig_command: r.kubeconfigCommand,
      placement: r.placement,
      vip: r.vip.vip,
      ...(r.identity
        ? { oidc_kubeconfig: JSON.stringify(r.identity.kubeconfig, null, 2), oidc_ca_command: r.caFileCommand, oidc_access: r.identity.groups }
        : {}),
    });
  }

  const mc = rendering.managementConfig;
  sameObjects(
    'management-config',
    writtenObjects(stacks['management-config']),
    byKey([...mc.vipPool, mc.clusterClass.namespace, ...mc.clusterClass.templates, mc.clusterClass.clusterClass]),
  );

  const m = rendering.management;
  const management = stacks.management;
  sameObjects('management', writtenObjects(management), byKey(m.staticControlPlane ? [m.staticControlPlane.crd, m.staticControlPlane.clusterRole] : []));
  const namespaces = [
    m.namespaces.certManager,
    m.namespaces.capiOperator,
    m.namespaces.kamaji,
    m.namespaces.metallb,
    ...(m.namespaces.storage ? [m.namespaces.storage] : []),
    ...Object.values(m.providerNamespaces),
  ];
  same(
    'management: namespaces',
    resources(management, 'kubernetes_namespace_v1')
      .map((n) => n.metadata[0] ?? n.metadata)
      .sort((a, b) => a.name.localeCompare(b.name)),
    [...namespaces].sort((a, b) => a.name.localeCompare(b.name)),
  );
  const values = Object.fromEntries(resources(management, 'helm_release').map((h) => [h.name, h.values.map((v: string) => parse(v))[0]]));
  same('management: release values', sortedBy(Object.values(values)), sortedBy(Object.values(m.values)));

  for (const [name, r] of rendering.instances) {
    const stack = `proxmox-${name}`;
    const json = stacks[stack];
    const sa = r.serviceAccount;
    same(
      `${stack}: pools`,
      resources(json, 'proxmox_virtual_environment_pool')
        .map((p) => [p.pool_id, p.comment])
        .sort(),
      [...r.tenantPools, r.templatesPool].map((p) => [p.poolId, p.comment]).sort(),
    );
    same(
      `${stack}: cloud-init storages`,
      resources(json, 'proxmox_storage_directory')
        .map((s) => [s.id, s.path, s.content, s.shared])
        .sort(),
      r.cloudInitStorages.map((c) => [c.storageId, c.path, c.content, c.shared]).sort(),
    );
    same(
      `${stack}: roles`,
      resources(json, 'proxmox_virtual_environment_role')
        .map((x) => [x.role_id, x.privileges])
        .sort(),
      sa.roles.map((x) => [x.roleId, x.privileges]).sort(),
    );
    same(
      `${stack}: user`,
      resources(json, 'proxmox_virtual_environment_user').map((u) => [u.user_id, u.comment]),
      [[sa.userId, sa.comment]],
    );
    same(
      `${stack}: tokens`,
      resources(json, 'proxmox_user_token')
        .map((t) => [t.token_name, t.comment, t.privileges_separation])
        .sort(),
      sa.tokens.map((t) => [t.tokenName, t.comment, t.privilegesSeparation]).sort(),
    );
    // ACLs: path, propagation and role (a custom role by reference to its resource), for the user and per token.
    const roleOf = (x: string) => /role-([A-Za-z]+)_/.exec(x)?.[1] ?? x;
    const ownerOf = (a: any) => (a.user_id ? 'user' : /token-(.+)_[0-9A-F]{8}\.id/.exec(a.token_id)?.[1]);
    same(
      `${stack}: ACLs`,
      resources(json, 'proxmox_acl')
        .map((a) => [ownerOf(a), a.path, roleOf(a.role_id), a.propagate])
        .sort(),
      [
        ...sa.grants.map((g) => ['user', g.path, g.roleId, g.propagate]),
        ...sa.tokens.flatMap((t) => t.grants.map((g) => [t.tenant, g.path, g.roleId, g.propagate])),
      ].sort(),
    );
    same(
      `${stack}: images`,
      resources(json, 'proxmox_download_file')
        .map((d) => [d.node_name, d.datastore_id, d.url, d.file_name, d.checksum, d.checksum_algorithm])
        .sort(),
      r.templates.map((t) => [t.node, t.download.datastoreId, t.download.url, t.download.fileName, t.download.checksum, t.download.checksumAlgorithm]).sort(),
    );
    same(
      `${stack}: template VMs`,
      resources(json, 'proxmox_virtual_environment_vm')
        .map((v) => [v.node_name, v.vm_id, v.name, v.description, v.tags, v.disk[0].datastore_id, v.disk[0].size])
        .sort(),
      r.templates.map((t) => [t.node, t.vmId, t.vm.name, t.vm.description, t.vm.tags, t.vm.diskStorage, t.vm.diskSizeGiB]).sort(),
    );
    same(`${stack}: templates output`, json.output.templates.value, r.templateIds);
    same(
      `${stack}: provider`,
      json.provider.proxmox.map((p: any) => [p.endpoint, p.insecure]),
      [[r.provider.endpoint, r.provider.insecure]],
    );
  }
  return out;
}

const labs: [string, () => Lab][] = [
  ['the example lab', () => exampleLab()],
  [
    'the example lab, capmox.multiInstance: secondary-clusters',
    () =>
      exampleLab((doc) => {
        doc.capmox.multiInstance = 'secondary-clusters';
        doc.tenants[2].networks = { 'pmox-fra': FRA_NETWORK };
      }),
  ],
  // examples/lab-identity.yaml: the example with an identity provider and each tenant's access (issue 39).
  ['the example lab with identity', () => parseLab(readFileSync(join(__dirname, '../../examples/lab-identity.yaml'), 'utf8'), 'examples/lab-identity.yaml')],
];

describe('every stack writes exactly the rendering it was given', () => {
  const cases = labs.map(([what, make]) => {
    const lab = make();
    const rendering = renderLab(lab, planPlacement(lab));
    return { what, lab, rendering, stacks: synthAll(lab, rendering) };
  });

  it.each(labs.map(([what], i) => [what, i]))('%s', (_what, i) => {
    const { rendering, stacks } = cases[i as number];
    expect(departures(rendering, stacks)).toEqual([]);
    // The comparison covered something on every side.
    expect(Object.keys(stacks).sort()).toEqual(
      [
        ...[...rendering.instances.keys()].map((n) => `proxmox-${n}`),
        'management',
        'management-config',
        ...[...rendering.tenants.keys()].map((n) => `tenant-${n}`),
      ].sort(),
    );
  });

  it('covers the secondary Clusters and the static control plane (secondary-clusters)', () => {
    const { rendering } = cases[1];
    expect(rendering.management.staticControlPlane).toBeDefined();
    expect([...rendering.tenants.values()].some((t) => t.secondaries && t.secondaries.clusters.length > 0)).toBe(true);
  });

  it('finds a stack that writes something else (the check can fail)', () => {
    const { rendering, stacks } = cases[1];
    const mutations: [string, (s: Record<string, any>) => void, RegExp][] = [
      [
        'the CNI proxy in namespace default',
        (s) => {
          const proxy: any = Object.values(s['tenant-tenant-a'].resource.kubernetes_manifest).find((r: any) => r.manifest.kind === 'HelmChartProxy');
          proxy.manifest.metadata.namespace = 'default';
        },
        /tenant-tenant-a: writes .*HelmChartProxy default\/.*which the rendering does not hold/,
      ],
      [
        'a template field changed',
        (s) => {
          const t: any = Object.values(s['management-config'].resource.kubernetes_manifest).find((r: any) => r.manifest.kind === 'ProxmoxMachineTemplate');
          t.manifest.spec.template.spec.numCores = 99;
        },
        /management-config: .*ProxmoxMachineTemplate/,
      ],
      [
        'an object dropped',
        (s) => {
          const r = s['management-config'].resource.kubernetes_manifest;
          delete r[Object.keys(r).find((k) => r[k].manifest.kind === 'L2Advertisement')!];
        },
        /does not write .*L2Advertisement/,
      ],
      [
        'a secondary MachineDeployment scaled',
        (s) => {
          const t = Object.values(s).find((j: any) =>
            Object.values(j.resource?.kubernetes_manifest ?? {}).some((r: any) => r.manifest.kind === 'MachineDeployment'),
          ) as any;
          const md: any = Object.values(t.resource.kubernetes_manifest).find(
            (r: any) => r.manifest.kind === 'MachineDeployment' && r.manifest.spec.replicas !== undefined,
          );
          md.manifest.spec.replicas += 1;
        },
        /MachineDeployment/,
      ],
      [
        'an ACL on another path',
        (s) => {
          const a: any = Object.values(s['proxmox-pmox-fra'].resource.proxmox_acl)[0];
          a.path = '/vms';
        },
        /proxmox-pmox-fra: ACLs/,
      ],
      [
        'a template VM id',
        (s) => {
          const v: any = Object.values(s['proxmox-pmox-fra'].resource.proxmox_virtual_environment_vm)[0];
          v.vm_id += 1;
        },
        /proxmox-pmox-fra: template VMs/,
      ],
      [
        'a static control plane CRD field',
        (s) => {
          const c: any = Object.values(s.management.resource.kubernetes_manifest).find((r: any) => r.manifest.kind === 'CustomResourceDefinition');
          c.manifest.spec.scope = 'Cluster';
        },
        /management: .*CustomResourceDefinition/,
      ],
      [
        'the VIP output',
        (s) => {
          s['tenant-tenant-b'].output.vip.value = '10.0.0.1';
        },
        /tenant-tenant-b: outputs/,
      ],
    ];
    for (const [what, mutate, expected] of mutations) {
      const copy = JSON.parse(JSON.stringify(stacks));
      mutate(copy);
      const found = departures(rendering, copy).join('\n');
      expect({ what, found: expected.test(found) }).toEqual({ what, found: true });
    }
  });
});
