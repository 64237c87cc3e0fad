/**
 * Each version pinned once. The table (modules/versions/toolchain.json, and modules/versions/cni.ts
 * for the tenant charts) is the one place a pinned version is written; everything else derives it
 * (modules/versions resolveToolchain, scripts/toolchain's resolver, the generated schema and
 * reference) or is a listed exception below, with the reason. The list is exact both ways: a pinned
 * version written anywhere else fails, and so does an exception whose file no longer states that
 * pin — after a bump, the files stating the old version are named here, to be re-read.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { autoscalerChart, cniCharts } from '../../modules/versions/cni';
import { capiPreviousLane, controllerModules, crdDirOf, pinnedCrdDirs, pinnedVersions, resolveToolchain, type ToolchainTable } from '../../modules/versions';
import toolchain from '../../modules/versions/toolchain.json';

const root = resolve(__dirname, '../..');
const table = toolchain as unknown as ToolchainTable & {
  go: string;
  tofu: { version: string };
  kubernetes: { version: string; tenantMinors?: { version: string }[]; etcd: { version: string } };
  helmCli: { helm: { version: string } };
};

/** Every pinned version, by a name: the table's rows and the tenant charts. */
const pins: Record<string, string> = {
  ...Object.fromEntries(Object.entries(table.components).flatMap(([k, r]) => (typeof r === 'string' ? [] : [[k, r.version]]))),
  go: table.go,
  tofu: table.tofu.version,
  ...Object.fromEntries(Object.entries(table.providers).map(([k, p]) => [`provider.${k}`, p.version])),
  kubernetes: table.kubernetes.version,
  ...Object.fromEntries((table.kubernetes.tenantMinors ?? []).map((m) => [`kubernetes.tenantMinors.${m.version.split('.').slice(0, 2).join('.')}`, m.version])),
  'kubernetes.etcd': table.kubernetes.etcd.version,
  helmCli: table.helmCli.helm.version,
  'cni.cilium': cniCharts.cilium.version,
  'cni.calico': cniCharts.calico.version,
  autoscalerChart: autoscalerChart.version,
  capiPrevious: (table as unknown as { capiPrevious: { version: string } }).capiPrevious.version,
};

/**
 * Kubernetes releases are also what labs declare: the pins of the twin's Kubernetes builds (the
 * management minor and the tenant minors) are the very versions examples, tests and docs give a
 * tenant (`kubernetesVersion: v1.35.4`), which is the tenant's choice, not the pin written again.
 * For these the stray scan reads only the files that speak of the toolchain's builds.
 */
const KUBERNETES_BUILDS = Object.keys(pins).filter((k) => k === 'kubernetes' || k.startsWith('kubernetes.tenantMinors.'));
const toolchainFile = (file: string) => /^(scripts\/toolchain$|scripts\/lib\/|docs\/kube-tier\.md$|docs\/development\.md$)/.test(file);

/** The files that hold the pins themselves. */
const TABLES = ['modules/versions/toolchain.json', 'modules/versions/cni.ts'];

/** Derived from the table, or fetched for a pin: not scanned. */
const DERIVED = [
  { path: /^package-lock\.json$/, why: 'npm lock file' },
  { path: /^\.gen\//, why: 'bindings generated for the pinned bpg/proxmox (npm run gen:bindings)' },
  { path: /^crds\//, why: 'CRDs fetched for a pinned release (crds/README.md)' },
  {
    path: /^schema\/lab\.schema\.json$|^docs\/lab-reference\.md$/,
    why: 'generated from the schema, whose examples are pinnedVersions (npm run json-schema; test/config checks they are current)',
  },
];

const everyManagementPin = Object.keys(pinnedVersions).filter((k) => k !== 'kamajiImageDigest');

/** Files that state a pinned version on purpose, and why. Exact: every pin listed must still be there. */
const EXCEPTIONS: { file: string; pins: string[]; why: string }[] = [
  { file: '.github/workflows/review.yml', pins: ['go'], why: 'setup-go cannot read toolchain.json; checked equal below' },
  { file: 'modules/versions/pins.ts', pins: ['kamajiChart'], why: 'KAMAJI_CHART_LATEST: the only version Kamaji publishes, the one allowed to say latest' },
  {
    file: 'modules/versions/providers.ts',
    pins: ['kamajiProvider', 'proxmoxProvider', 'inClusterIpam', 'helmAddon', 'kamajiEtcd'],
    why: 'facts keyed by release (which CAPI each release is built on, known skews); kamajiEtcd only by coincidence (Kamaji provider v0.17.0)',
  },
  // Prose about the behaviour of one release, read from its source: re-read on a bump.
  {
    file: 'modules/config/held-version.ts',
    pins: ['clusterApi'],
    why: "the preflight checks of that CAPI release's MachineSet controller, read from its source",
  },
  { file: 'modules/tenants/floor.ts', pins: ['clusterApi'], why: "what that CAPI release's MachineDeployment webhook does with the min-size annotation" },
  { file: 'scripts/lib/retire-guard.ts', pins: ['clusterApi'], why: "what that CAPI release's MachineDeployment webhook does with the min-size annotation" },
  { file: 'test/config/held-version.test.ts', pins: ['clusterApi'], why: 'the preflight checks of that CAPI release, cited' },
  { file: 'test/twin/staged-surge.test.ts', pins: ['clusterApi'], why: 'the preflight checks of that CAPI release, whose controllers the twin runs, cited' },
  {
    file: 'modules/versions/tenant-range.ts',
    pins: ['kamajiImage', 'clusterApi', 'capiPrevious'],
    why: "facts keyed by release: that Kamaji release's KubeadmVersion; the CAPI release whose own support table stops at 1.35; the CAPI release whose table is cited",
  },
  {
    file: 'modules/management/capmox-global-credentials.ts',
    pins: ['proxmoxProvider'],
    why: 'what CAPMOX does with global credentials, read from that release',
  },
  { file: 'modules/tenants/cluster-class-templates.ts', pins: ['proxmoxProvider', 'kamajiImage'], why: 'webhook and kube-proxy behaviour of those releases' },
  { file: 'modules/tenants/cluster.ts', pins: ['proxmoxProvider'], why: 'CAPMOX webhook behaviour of that release' },
  { file: 'modules/tenants/index.ts', pins: ['proxmoxProvider'], why: 'the TLS keys that CAPMOX release reads' },
  {
    file: 'modules/tenants/secondary.ts',
    pins: ['proxmoxProvider', 'clusterApi', 'capiPrevious'],
    why: "CAPMOX binds a Cluster to one API in that release; what those CAPI releases' MachineDeployment webhook defaults",
  },
  { file: 'modules/placement/failover.ts', pins: ['proxmoxProvider'], why: 'how that CAPMOX release clones from the template node (failover)' },
  { file: 'test/tenants/failover.test.ts', pins: ['proxmoxProvider'], why: "that CAPMOX release's scheduler, read from its source" },
  {
    file: 'docs/placement.md',
    pins: ['proxmoxProvider', 'inClusterIpam', 'helmAddon', 'clusterApi'],
    why: "CAPMOX's scheduler in that release; a real validate run's warnings, as printed; the Cluster controller's endpoint copy and the IPAM webhook read at those releases (Control-plane VIPs, Address edits)",
  },
  {
    file: 'modules/foresight/address-edits.ts',
    pins: ['clusterApi', 'proxmoxProvider', 'inClusterIpam'],
    why: "what the topology controller, CAPMOX's bootstrap and the IPAM webhook do with an address edit, read from those releases' source",
  },
  { file: 'modules/tenants/vip.ts', pins: ['clusterApi'], why: "the Cluster controller's copy of controlPlaneEndpoint only while unset, read at that release" },
  { file: 'twin/index.ts', pins: ['proxmoxProvider'], why: 'which controllers the twin runs, in its header' },
  { file: 'twin/harness/stacks.ts', pins: ['provider.kubernetes'], why: 'the provider release whose kubernetes_manifest rules the applier follows' },
  {
    file: 'twin/harness/helm-release.ts',
    pins: ['provider.helm'],
    why: 'the helm provider release whose helm_release defaults and timeout error the stand-in follows',
  },
  {
    file: 'twin/harness/upgrades.ts',
    pins: ['capiPrevious', 'clusterApiOperator'],
    why: "the operator release whose provider upgrade it plays, and the clusterctl of the operator's go.mod (the previous lane's version by coincidence)",
  },
  // The twin's kubernetes_manifest applier: the provider's and OpenTofu's rules, read from those releases' source.
  {
    file: 'constructs/lean-kubernetes-resource.ts',
    pins: ['provider.kubernetes'],
    why: "the binding's own generator metadata (@cdktf/provider-kubernetes was generated from this provider release), written as the binding writes it",
  },
  {
    file: 'twin/manifest-applier.ts',
    pins: ['provider.kubernetes', 'tofu'],
    why: 'the provider release and OpenTofu release whose apply/wait/delete and consistency check it follows',
  },
  {
    file: 'twin/manifest-types.ts',
    pins: ['provider.kubernetes', 'tofu'],
    why: 'the provider release and OpenTofu release whose plan and type rules it follows',
  },
  { file: 'scripts/twin.ts', pins: ['provider.kubernetes'], why: 'the banner names the provider release the applier follows' },
  { file: 'constructs/tenant-secondaries.ts', pins: ['provider.kubernetes'], why: "computed_fields replaces that release's default" },
  {
    file: 'test/applier/manifest-applier.test.ts',
    pins: ['provider.kubernetes', 'clusterApi', 'capiPrevious'],
    why: 'the provider rules and the CAPI CRD/webhook the fake server transcribes (the same in both CAPI releases)',
  },
  { file: 'test/applier/helm-stand-in.test.ts', pins: ['provider.helm'], why: "that helm provider release's defaults" },
  { file: 'test/twin/multi-instance.test.ts', pins: ['provider.kubernetes'], why: 'the provider rules the second plan follows' },
  { file: 'twin/kamaji/index.ts', pins: ['kamajiProvider', 'kamajiImage', 'kamajiEtcd'], why: 'what the twin plays for Kamaji, release by release' },
  { file: 'twin/kamaji/datastore-rules.ts', pins: ['kamajiEtcd'], why: 'the kamaji-etcd chart release its DataStore rule is read from' },
  {
    file: 'twin/tenant-controller-manager.ts',
    pins: ['kamajiImage'],
    why: "the controller-manager arguments of that Kamaji release's control-plane pod, read from its source",
  },
  {
    file: 'twin/kamaji-rules.ts',
    pins: ['kamajiProvider', 'kamajiImage', 'kamajiEtcd'],
    why: 'the Kamaji, provider and kamaji-etcd sources each rule is read from',
  },
  { file: 'twin/caaph.ts', pins: ['helmAddon'], why: 'the CAAPH source the twin plays, read from that release' },
  {
    file: 'twin/caaph-webhook.ts',
    pins: ['helmAddon'],
    why: 'the CAAPH webhooks the twin plays, read from that release, and its committed webhook manifests',
  },
  { file: 'test/sim/capmox.test.ts', pins: ['proxmoxProvider'], why: 'the calls that CAPMOX release makes' },
  { file: 'test/sim/fixtures/make-iso/main.go', pins: ['proxmoxProvider'], why: 'the ISO that CAPMOX release builds' },
  { file: 'test/sim/iso9660.test.ts', pins: ['proxmoxProvider'], why: 'the ISO that CAPMOX release builds' },
  { file: 'test/tenants/proposal-crds.ts', pins: ['proxmoxProvider'], why: 'the CRDs the proposal extends' },
  { file: 'test/tenants/upstream-fidelity.test.ts', pins: ['proxmoxProvider'], why: 'webhook code of that release, transcribed' },
  {
    file: 'test/crds/crds.test.ts',
    pins: ['clusterApi', 'kamajiProvider'],
    why: 'compares the v0.19.0 and v0.20.0 Kamaji provider CRDs; an operator resource as data',
  },
  // Test data that happens to be a pinned version.
  { file: 'test/delivery/changed.test.ts', pins: ['tofu'], why: 'a plan file fixture (terraform_version)' },
  { file: 'test/kube/twin-kamaji.test.ts', pins: ['kubectl'], why: "v1.36.2 is the patch upgrade case's tenant version, equal to the kubectl pin by chance" },
  { file: 'test/management/management.test.ts', pins: ['kamajiImage'], why: 'the rendered image tag, spelled out' },
  { file: 'test/synth/helm-v3.test.ts', pins: ['certManager'], why: 'a release config for the HCL binding test' },
  { file: 'test/tenants/tenant-stack.test.ts', pins: ['proxmoxProvider', 'autoscalerChart'], why: 'the rendered chart version, spelled out; a CAPMOX fact' },
  { file: 'test/toolchain/export-hcl.test.ts', pins: ['provider.proxmox'], why: 'the required_providers version, spelled out' },
  // Docs that state the pinned versions (tables, commands to mirror, what the twin runs): kept true by this list.
  { file: 'docs/delivery.md', pins: ['proxmoxProvider'], why: 'what the simulator answers' },
  {
    file: 'docs/deploying.md',
    pins: ['tofu', 'provider.proxmox', 'provider.kubernetes', 'provider.helm'],
    why: 'what a user installs to deploy for real: the versions the stacks pin, stated (re-read on a bump)',
  },
  { file: 'modules/foresight/recover.ts', pins: ['provider.proxmox'], why: 'which resources that bpg/proxmox release can import, read from its source' },
  {
    file: 'modules/tenants/cluster-class-patches.ts',
    pins: ['kamajiProvider'],
    why: 'the KamajiControlPlane fields of that provider release (apiServer.extraArgs, extraVolumeMounts)',
  },
  {
    file: 'modules/tenants/identity.ts',
    pins: ['kamajiProvider', 'kamajiImage'],
    why: 'how that provider release and that Kamaji release pass extra args and volumes to the API server, read from their source',
  },
  { file: 'test/delivery/deploy-plan.test.ts', pins: ['tofu'], why: 'a plan JSON as that OpenTofu release writes it (terraform_version)' },
  {
    file: 'test/foresight/status-fixtures.ts',
    pins: ['capiPrevious'],
    why: 'objects shaped as that CAPI release writes them (read before the default moved to 1.13, not re-read at it)',
  },
  {
    file: 'docs/design.md',
    pins: ['provider.kubernetes', 'provider.helm', 'helmCli'],
    why: 'which provider releases cannot be built here; the substituted Helm CLI',
  },
  {
    file: 'README.md',
    pins: ['clusterApi', 'proxmoxProvider', 'inClusterIpam', 'helmAddon', 'helmCli', 'capiPrevious', 'kamajiImage'],
    why: 'the substituted versions, each named; the default CAPI and the previous minor; the validate warnings of the tour, as printed; the Kamaji release that bounds the tenant minors',
  },
  {
    file: 'docs/development.md',
    pins: [
      'tofu',
      'provider.proxmox',
      'provider.kubernetes',
      'provider.helm',
      'kubernetes',
      'kubernetes.tenantMinors.v1.35',
      'kubernetes.etcd',
      'helmCli',
      'cni.cilium',
      'clusterApi',
      'capiPrevious',
      'proxmoxProvider',
      'inClusterIpam',
      'metallb',
    ],
    why: "the toolchain table and its cold build times (the default CAPI core among them; the demo's cold parts, the controllers' lane and MetalLB included)",
  },
  {
    file: 'docs/kube-tier.md',
    pins: [
      'clusterApi',
      'kamajiProvider',
      'proxmoxProvider',
      'inClusterIpam',
      'helmAddon',
      'clusterApiOperator',
      'certManager',
      'kamajiChart',
      'kamajiImage',
      'metallb',
      'localPathProvisioner',
      'provider.kubernetes',
      'provider.helm',
      'kubernetes',
      'kubernetes.tenantMinors.v1.35',
      'kubernetes.etcd',
      'helmCli',
    ],
    why: 'what the Kubernetes tier installs and builds (the real charts table), with measured timings',
  },
  {
    file: 'docs/management.md',
    pins: [...everyManagementPin, 'capiPrevious'],
    why: 'the release and provider tables, the mirror commands, the guard example, the move from the previous CAPI minor',
  },
  { file: 'docs/proxmox.md', pins: ['proxmoxProvider', 'provider.proxmox'], why: 'the provider documentation link and the CAPMOX calls' },
  {
    file: 'docs/tenants.md',
    pins: ['clusterApi', 'kamajiProvider', 'proxmoxProvider', 'kamajiImage', 'cni.cilium', 'cni.calico', 'capiPrevious'],
    why: 'the CNI charts and the secondary-clusters route, read from those releases; the CAPI release whose support table bounds the tenant minors',
  },
  {
    file: 'docs/twin.md',
    pins: [
      'clusterApi',
      'kamajiProvider',
      'proxmoxProvider',
      'inClusterIpam',
      'helmAddon',
      'kamajiImage',
      'kamajiEtcd',
      'cni.cilium',
      'cni.calico',
      'tofu',
      'provider.proxmox',
      'provider.kubernetes',
      'capiPrevious',
      'clusterApiOperator',
      'kubectl',
    ],
    why: 'what the twin runs and plays, and the chart it cannot render; v1.36.2 there is a tenant version (the patch upgrade case), equal to the kubectl pin by chance',
  },
  { file: 'docs/usage.md', pins: ['proxmoxProvider'], why: 'why secondary clusters exist' },
];

/** Where a version occurs as itself: `v` optional, not inside a longer version or word. */
function occurrences(text: string, version: string): number {
  const bare = version.replace(/^v/, '').replace(/[.+]/g, (c) => `\\${c}`);
  return (text.match(new RegExp(`(?<![\\w.+-])v?${bare}(?![\\w+]|\\.\\d)`, 'g')) ?? []).length;
}

function repositoryFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return [...new Set(out.split('\0').filter(Boolean))];
}

describe('each version pinned once', () => {
  it('writes every pin exactly once in its table', () => {
    const text = Object.fromEntries(TABLES.map((f) => [f, readFileSync(join(root, f), 'utf8')]));
    const counts = Object.entries(pins).map(([name, version]) => ({ name, version, count: TABLES.reduce((n, f) => n + occurrences(text[f], version), 0) }));
    expect(counts.filter((c) => c.count !== 1)).toEqual([]);
  });

  it('writes no pinned version anywhere else, unless it derives or is a listed exception (and every exception still holds)', () => {
    const stray: string[] = [];
    const found = new Map<string, Set<string>>();
    for (const file of repositoryFiles()) {
      if (TABLES.includes(file) || DERIVED.some((d) => d.path.test(file)) || file === 'test/versions/pinned-once.test.ts') continue;
      let text: string;
      try {
        text = readFileSync(join(root, file), 'utf8');
      } catch {
        continue; // deleted in the worktree, or a directory (submodule)
      }
      const allowed = new Set(EXCEPTIONS.filter((e) => e.file === file).flatMap((e) => e.pins));
      for (const [name, version] of Object.entries(pins)) {
        if (KUBERNETES_BUILDS.includes(name) && !toolchainFile(file)) continue;
        if (occurrences(text, version) === 0) continue;
        if (!found.has(file)) found.set(file, new Set());
        found.get(file)!.add(name);
        if (!allowed.has(name)) stray.push(`${file}: ${name} ${version} (derive it from modules/versions, or list it in EXCEPTIONS with the reason)`);
      }
    }
    const stale = EXCEPTIONS.flatMap((e) =>
      e.pins
        .filter((p) => !found.get(e.file)?.has(p))
        .map((p) => `${e.file}: ${p} ${pins[p]} is listed but not there (a bump? re-read the file and update it, or drop the exception)`),
    );
    expect({ stray, stale }).toEqual({ stray: [], stale: [] });
  });

  it('lists only known pins as exceptions', () => {
    for (const e of EXCEPTIONS) for (const p of e.pins) expect(Object.keys(pins)).toContain(p);
  });

  it('runs CI on the pinned Go', () => {
    expect(readFileSync(join(root, '.github/workflows/review.yml'), 'utf8')).toContain(`go-version: '${table.go}'`);
  });
});

describe('what derives from the table', () => {
  it('scripts/toolchain resolves the table exactly as modules/versions does', () => {
    const resolved = JSON.parse(execFileSync(join(root, 'scripts/toolchain'), ['pins'], { cwd: root, encoding: 'utf8' }));
    expect(resolved).toEqual(JSON.parse(JSON.stringify(resolveToolchain())));
  });

  it('a patch bump of one row moves everything derived from it', () => {
    const bumped = JSON.parse(JSON.stringify(table)) as typeof table;
    (bumped.components as Record<string, { version: string }>).clusterApi.version = 'v1.13.99';
    (bumped.components as Record<string, { version: string }>).metallb.version = '0.15.99';
    const before = resolveToolchain(table);
    const after = resolveToolchain(bumped);
    expect(Object.keys(after.crds)).toContain('cluster-api/v1.13.99');
    expect(Object.keys(after.crds)).toContain('metallb/v0.15.99');
    expect(Object.keys(after.crds)).not.toContain(crdDirOf('clusterApi'));
    expect(after.capiCore).toMatchObject({
      version: 'v1.13.99',
      cache: 'capi-core-cluster-api-v1.13.99',
      webhooks: { 'kubeadm-bootstrap-manager': 'sigs.k8s.io/cluster-api@v1.13.99/bootstrap/kubeadm/config/webhook/manifests.yaml' },
    });
    // The previous minor's row moves the providers' graph (its CAPI) and its CRD directory.
    (bumped.capiPrevious as { version: string }).version = 'v1.12.99';
    const previous = resolveToolchain(bumped);
    expect(previous.controllers.modules['sigs.k8s.io/cluster-api']).toBe('v1.12.99');
    expect(previous.controllers.webhooks['kubeadm-bootstrap-manager']).toBe('sigs.k8s.io/cluster-api@v1.12.99/bootstrap/kubeadm/config/webhook/manifests.yaml');
    expect(Object.keys(previous.crds)).toContain('cluster-api/v1.12.99');
    // Nothing else moves.
    const others = (r: typeof before) => Object.keys(r.crds).filter((k) => !/^(cluster-api|metallb)\//.test(k));
    expect(others(after)).toEqual(others(before));
    expect(after.controllers).toEqual(before.controllers);
    expect(previous.controllers.modules['github.com/ionos-cloud/cluster-api-provider-proxmox']).toBe(
      before.controllers.modules['github.com/ionos-cloud/cluster-api-provider-proxmox'],
    );
  });

  it('derives the CRD directories, the controllers and the staging version from the rows', () => {
    // Every directory of the tree is a pinned one, or the previous CAPI minor's (installed only for a lab on it).
    expect([...pinnedCrdDirs(), capiPreviousLane()!.crdDir].sort()).toEqual(Object.keys(resolveToolchain().crds).sort());
    expect(resolveToolchain().capiCore).toMatchObject({
      version: pinnedVersions.clusterApi,
      binaries: { 'capi-manager': 'sigs.k8s.io/cluster-api', 'kubeadm-bootstrap-manager': 'sigs.k8s.io/cluster-api/bootstrap/kubeadm' },
      webhooks: { 'capi-manager': `sigs.k8s.io/cluster-api@${pinnedVersions.clusterApi}/config/webhook/manifests.yaml` },
    });
    // The providers' graph: CAPMOX and IPAM with the previous CAPI minor they compile against.
    expect(controllerModules()).toEqual({
      'sigs.k8s.io/cluster-api': capiPreviousLane()!.version,
      'github.com/ionos-cloud/cluster-api-provider-proxmox': pinnedVersions.proxmoxProvider,
      'sigs.k8s.io/cluster-api-ipam-provider-in-cluster': pinnedVersions.inClusterIpam,
    });
    const [, minor, patch] = table.kubernetes.version.split('.');
    expect(resolveToolchain().kubernetes.stagingVersion).toBe(`v0.${minor}.${patch}`);
    expect(resolveToolchain().providers.proxmox.moduleVersion).toBe(`v${table.providers.proxmox.version}`);
  });

  it('refuses a default core build whose controllers are not of its module, and a previous minor whose CRDs are not, naming what', () => {
    const broken = JSON.parse(JSON.stringify(table)) as typeof table & { capiCore: { controllers: string[] } };
    broken.capiCore.controllers = ['capi-manager', 'capmox-manager'];
    expect(() => resolveToolchain(broken)).toThrow(/capiCore: proxmoxProvider:config\/webhook\/manifests\.yaml is not a file of sigs\.k8s\.io\/cluster-api/);
    const wrongCrds = JSON.parse(JSON.stringify(table)) as typeof table & { capiPrevious: { crds: string } };
    wrongCrds.capiPrevious.crds = 'metallb';
    expect(() => resolveToolchain(wrongCrds)).toThrow(/capiPrevious: crds\.metallb is not the CRDs of sigs\.k8s\.io\/cluster-api/);
  });

  it('refuses a table that refers to a component it does not list, naming it', () => {
    const broken = JSON.parse(JSON.stringify(table)) as typeof table;
    (broken.controllers as unknown as { modules: string[] }).modules = ['clusterApi', 'capmox'];
    expect(() => resolveToolchain(broken)).toThrow(/toolchain\.json: no component capmox/);
  });
});
