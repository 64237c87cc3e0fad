/**
 * The management stack's Helm releases against a real API server, installed by the real Helm CLI
 * (the hashicorp/helm provider is not buildable here: docs/kube-tier.md). The example lab is
 * synthesized with `management.mirror.charts` pointed at a chart repository this suite serves on
 * loopback; its charts have the names and versions the releases pin and record in a ConfigMap
 * what Helm gave them. The suite installs every release in the order its depends_on implies,
 * checks that each got the values pvekaas rendered, then uninstalls everything.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { load } from 'js-yaml';
import { loadLabFile } from '../../modules/config/load';
import { helmCharts, resolveVersions } from '../../modules/versions';
import { requireKubeBinaries, type KubeObject, type KubeServer } from '../support/kube-apiserver';
import { compileProject, projectRoot } from '../support/toolchain';
import { started, tearDown } from '../support/lifecycle';
import { readStackNamespaces } from '../kube/stack-manifests';
import {
  HelmCli,
  installOrder,
  parseRecord,
  readStackReleases,
  RECORD_SUFFIX,
  requireHelm,
  serveDirectory,
  synthWithChartMirror,
  startHelmTier,
  type StackRelease,
} from './chart-mirror';

const exampleLab = join(projectRoot, 'examples/lab.yaml');
/** A path under the mirror's host, with a trailing slash pvekaas must trim. */
const MIRROR_PATH = '/mirror/charts';

let work: string;
let server: KubeServer | undefined;
let repository: Awaited<ReturnType<typeof serveDirectory>> | undefined;
let helm: HelmCli;
let mirrorUrl: string;
let releases: StackRelease[] = [];
let namespaces: KubeObject[] = [];
/** Release address → the order helm installed it in, and whether its dependencies were all there first. */
const installed: { release: StackRelease; missingBefore: string[] }[] = [];

/** Helm merges values documents in order, maps deeply, everything else replaced. */
function mergeValues(documents: readonly unknown[]): Record<string, unknown> {
  const merge = (base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> => {
    const out = { ...base };
    for (const [k, v] of Object.entries(over)) {
      const b = out[k];
      const isMap = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
      out[k] = isMap(b) && isMap(v) ? merge(b, v) : v;
    }
    return out;
  };
  return documents.reduce<Record<string, unknown>>((acc, d) => merge(acc, (d ?? {}) as Record<string, unknown>), {});
}

const requireServer = (): KubeServer => started(server);

beforeAll(async () => {
  requireHelm();
  requireKubeBinaries();
  compileProject();
  work = mkdtempSync(join(tmpdir(), 'pvekaas-helm-'));
  const repoDir = join(work, 'repository');
  repository = await serveDirectory(repoDir, MIRROR_PATH);
  mirrorUrl = repository.url;

  // The example lab as a user would write it for an air-gapped site: only the chart mirror added.
  const stacks = synthWithChartMirror(work, `${mirrorUrl}/`);
  releases = readStackReleases(stacks, 'management');
  namespaces = readStackNamespaces(stacks, 'management');

  ({ server, helm } = await startHelmTier(work, repoDir, mirrorUrl, releases));
}, 180000);

afterAll(() => tearDown(work, server, repository), 60000);

describe('the management stack Helm releases, installed by helm from a local chart mirror', () => {
  it("renders one release per pinned chart (of the CSIs, the lab's only), each at its pinned version, all from the mirror", () => {
    const management = loadLabFile(exampleLab).management;
    const versions = resolveVersions(management.versions ?? {});
    const csiCharts: Record<string, keyof typeof helmCharts> = { 'openebs-localpv': 'localpvProvisioner', 'local-path': 'localPathProvisioner' };
    const otherCsis = new Set(
      Object.entries(csiCharts)
        .filter(([csi]) => csi !== management.datastore.csi)
        .map(([, chart]) => chart),
    );
    expect(otherCsis.size).toBe(1);
    const expected = (Object.entries(helmCharts) as [keyof typeof helmCharts, (typeof helmCharts)[keyof typeof helmCharts]][])
      .filter(([id]) => !otherCsis.has(id))
      .map(([, pin]) => pin)
      .map((pin) => ({ chart: pin.chart, version: versions[pin.versionKey] as string, repository: mirrorUrl }))
      .sort((a, b) => a.chart.localeCompare(b.chart));
    const rendered = releases.map((r) => ({ chart: r.chart, version: r.version, repository: r.repository })).sort((a, b) => a.chart.localeCompare(b.chart));
    expect(rendered).toEqual(expected);
  });

  it('comes only from the HTTP mirror: no public repository and no oci:// chart is left', () => {
    const elsewhere = releases.filter((r) => r.repository !== mirrorUrl || r.chart.startsWith('oci://')).map((r) => `${r.address}: ${r.repository} ${r.chart}`);
    expect(elsewhere).toEqual([]);
  });

  it('orders every release after its namespace and after the releases whose CRDs or webhooks it needs', () => {
    const byName = new Map(releases.map((r) => [r.name, r]));
    const namespaceAddress = new Map(
      Object.entries(
        JSON.parse(readFileSync(join(work, 'out/stacks/management/cdk.tf.json'), 'utf8')).resource.kubernetes_namespace_v1 as Record<
          string,
          { metadata: { name: string } }
        >,
      ).map(([id, ns]) => [ns.metadata.name, `kubernetes_namespace_v1.${id}`]),
    );
    const byAddress = new Map(releases.map((r) => [r.address, r]));
    const dependsOn = (r: StackRelease, target: string, seen = new Set<string>()): boolean =>
      r.dependsOn.some((d) => d === target || (!seen.has(d) && seen.add(d) && byAddress.has(d) && dependsOn(byAddress.get(d) as StackRelease, target, seen)));
    const problems: string[] = [];
    for (const r of releases) {
      // create_namespace is off, so a release applied before its namespace fails.
      if (r.createNamespace) problems.push(`${r.address} asks helm to create its namespace; the stack creates namespaces`);
      const ns = namespaceAddress.get(r.namespace);
      if (!ns) problems.push(`${r.address}: namespace ${r.namespace} is not created by the stack`);
      else if (!dependsOn(r, ns)) problems.push(`${r.address} does not depend on ${ns}`);
      for (const d of r.dependsOn) if (!byAddress.has(d) && ![...namespaceAddress.values()].includes(d)) problems.push(`${r.address} depends on unknown ${d}`);
    }
    // Domain order: Kamaji and the CAPI operator issue their webhook certificates through cert-manager;
    // kamaji-etcd's volumes need OpenEBS LocalPV's storage class.
    const needs: [string, string][] = [
      ['kamaji', 'cert-manager'],
      ['capi-operator', 'cert-manager'],
      ['kamaji-etcd', 'localpv-provisioner'],
    ];
    for (const [release, first] of needs) {
      const r = byName.get(release);
      const f = byName.get(first);
      if (!r || !f) problems.push(`release ${!r ? release : first} is missing`);
      else if (!dependsOn(r, f.address)) problems.push(`${release} is not ordered after ${first}`);
    }
    expect(problems).toEqual([]);
    expect(() => installOrder(releases)).not.toThrow();
  });

  it('installs every release with helm upgrade --install, dependencies first', async () => {
    const { client } = requireServer();
    for (const namespace of namespaces) await client.applyOrThrow(namespace, { fieldManager: 'Terraform' });
    const namespaceAddresses = new Set(
      Object.keys(JSON.parse(readFileSync(join(work, 'out/stacks/management/cdk.tf.json'), 'utf8')).resource.kubernetes_namespace_v1).map(
        (id) => `kubernetes_namespace_v1.${id}`,
      ),
    );
    const deployed = new Set<string>();
    for (const release of installOrder(releases)) {
      const missingBefore = release.dependsOn.filter((d) => !deployed.has(d) && !namespaceAddresses.has(d));
      const args = [
        'upgrade',
        '--install',
        release.name,
        release.chart,
        '--repo',
        release.repository,
        '--version',
        release.version,
        '--namespace',
        release.namespace,
      ];
      if (release.createNamespace) args.push('--create-namespace');
      release.values.forEach((values, i) => {
        const file = join(work, `${release.name}-values-${i}.yaml`);
        writeFileSync(file, values);
        args.push('--values', file);
      });
      await helm.runOrThrow(args);
      const status = JSON.parse(await helm.runOrThrow(['status', release.name, '--namespace', release.namespace, '--output', 'json']));
      expect({ release: release.name, status: status.info?.status }).toEqual({ release: release.name, status: 'deployed' });
      deployed.add(release.address);
      installed.push({ release, missingBefore });
    }
    expect(installed.map((i) => i.release.address).sort()).toEqual(releases.map((r) => r.address).sort());
    expect(installed.filter((i) => i.missingBefore.length > 0).map((i) => `${i.release.address} before ${i.missingBefore.join(', ')}`)).toEqual([]);
    // Helm fetched every chart from the mirror.
    for (const r of releases) expect(repository?.requests).toContain(`${MIRROR_PATH}/${r.chart}-${r.version}.tgz`);
  }, 120000);

  it('helm records every release at its pinned chart version, in its namespace, deployed after its dependencies', async () => {
    const listed = JSON.parse(await helm.runOrThrow(['list', '--all-namespaces', '--output', 'json'])) as {
      name: string;
      namespace: string;
      chart: string;
      status: string;
      updated: string;
    }[];
    const byName = new Map(listed.map((l) => [l.name, l]));
    expect(
      listed.map((l) => ({ name: l.name, namespace: l.namespace, chart: l.chart, status: l.status })).sort((a, b) => a.name.localeCompare(b.name)),
    ).toEqual(
      releases
        .map((r) => ({ name: r.name, namespace: r.namespace, chart: `${r.chart}-${r.version}`, status: 'deployed' }))
        .sort((a, b) => a.name.localeCompare(b.name)),
    );
    const byAddress = new Map(releases.map((r) => [r.address, r]));
    const early: string[] = [];
    for (const r of releases) {
      for (const dep of r.dependsOn.map((d) => byAddress.get(d)).filter((d): d is StackRelease => d !== undefined)) {
        const [mine, theirs] = [byName.get(r.name), byName.get(dep.name)];
        if (!mine || !theirs || !(Date.parse(theirs.updated) <= Date.parse(mine.updated)))
          early.push(`${r.name} (${mine?.updated}) before ${dep.name} (${theirs?.updated})`);
      }
    }
    expect(early).toEqual([]);
  });

  it('each chart received exactly the values pvekaas rendered, under the synthesized release name and namespace', async () => {
    const { client } = requireServer();
    const problems: string[] = [];
    for (const r of releases) {
      const got = await client.get(`/api/v1/namespaces/${encodeURIComponent(r.namespace)}/configmaps/${encodeURIComponent(r.name + RECORD_SUFFIX)}`);
      if (got.status !== 200) {
        problems.push(`${r.address}: no ConfigMap ${r.namespace}/${r.name}${RECORD_SUFFIX} (HTTP ${got.status})`);
        continue;
      }
      const record = parseRecord(got.body.data);
      const expected = { release: r.name, namespace: r.namespace, chart: r.chart, chartVersion: r.version, values: mergeValues(r.values.map((v) => load(v))) };
      if (!isDeepStrictEqual(record, expected)) problems.push(`${r.address}: received ${JSON.stringify(record)}\n  expected ${JSON.stringify(expected)}`);
      if (Object.keys(expected.values).length === 0) problems.push(`${r.address}: renders no values, so this check proves nothing for it`);
    }
    expect(problems).toEqual([]);
  });

  it('uninstalls every release in reverse order and leaves no recorded ConfigMap and no release behind', async () => {
    const { client } = requireServer();
    for (const { release } of [...installed].reverse()) await helm.runOrThrow(['uninstall', release.name, '--namespace', release.namespace]);
    const left: string[] = [];
    for (const r of releases) {
      const got = await client.get(`/api/v1/namespaces/${encodeURIComponent(r.namespace)}/configmaps/${encodeURIComponent(r.name + RECORD_SUFFIX)}`);
      if (got.status !== 404) left.push(`${r.namespace}/${r.name}${RECORD_SUFFIX}: HTTP ${got.status}`);
    }
    const secrets = await client.get('/api/v1/secrets?labelSelector=owner%3Dhelm');
    for (const s of secrets.body.items as KubeObject[]) left.push(`helm release secret ${s.metadata.namespace}/${s.metadata.name}`);
    expect(installed.length).toBe(releases.length);
    expect(left).toEqual([]);
    expect(JSON.parse(await helm.runOrThrow(['list', '--all-namespaces', '--output', 'json']))).toEqual([]);
  }, 60000);
});
