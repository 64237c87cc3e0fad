/**
 * The tenants' cluster-autoscaler releases against a real API server, installed by the real Helm
 * CLI from a local chart mirror (as the management releases in releases.test.ts): every tenant with
 * an autoscaled pool gets one release in its own namespace, at the pinned chart version, from the
 * mirror, with exactly the values pvekaas rendered — clusterapi mode against the tenant's
 * kubeconfig Secret, auto-discovery of this cluster only.
 */
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { autoscalerChart } from '../../modules/versions/cni';
import { requireKubeBinaries, type KubeObject, type KubeServer } from '../support/kube-apiserver';
import { compileProject } from '../support/toolchain';
import { started, tearDown } from '../support/lifecycle';
import {
  HelmCli,
  parseRecord,
  readStackReleases,
  RECORD_SUFFIX,
  requireHelm,
  serveDirectory,
  startHelmTier,
  synthWithChartMirror,
  type StackRelease,
} from './chart-mirror';

const MIRROR_PATH = '/charts';
let work: string;
let server: KubeServer | undefined;
let repository: Awaited<ReturnType<typeof serveDirectory>> | undefined;
let helm: HelmCli;
/** Tenant stack → its autoscaler release. */
const releases = new Map<string, StackRelease>();
/** Tenant stack → its Namespace manifest. */
const namespaces = new Map<string, KubeObject>();

beforeAll(async () => {
  requireHelm();
  requireKubeBinaries();
  compileProject();
  work = mkdtempSync(join(tmpdir(), 'pvekaas-helm-tenants-'));
  const repoDir = join(work, 'repository');
  repository = await serveDirectory(repoDir, MIRROR_PATH);
  const stacks = synthWithChartMirror(work, repository.url);
  for (const stack of readdirSync(stacks)
    .filter((s) => s.startsWith('tenant-'))
    .sort()) {
    const stackReleases = readStackReleases(stacks, stack);
    if (stackReleases.length === 0) continue;
    releases.set(stack, stackReleases[0]);
    const json = JSON.parse(readFileSync(join(stacks, stack, 'cdk.tf.json'), 'utf8'));
    const manifests = Object.values(json.resource.kubernetes_manifest as Record<string, { manifest: KubeObject }>).map((m) => m.manifest);
    namespaces.set(
      stack,
      manifests.find((m) => m.kind === 'Namespace')!,
    );
  }
  ({ server, helm } = await startHelmTier(work, repoDir, repository.url, [...releases.values()]));
}, 180000);

afterAll(() => tearDown(work, server, repository), 60000);

describe('the tenants cluster-autoscaler releases, installed by helm from a local chart mirror', () => {
  it('exist exactly for the tenants with autoscaled pools, one each, pinned, from the mirror', () => {
    // In the example lab only tenant-b has an autoscaled pool.
    expect([...releases.keys()]).toEqual(['tenant-tenant-b']);
    for (const release of releases.values()) {
      expect({ chart: release.chart, version: release.version, repository: release.repository }).toEqual({
        chart: autoscalerChart.chart,
        version: autoscalerChart.version,
        repository: repository!.url,
      });
    }
  });

  it('install into the tenant namespace and get exactly the values pvekaas rendered', async () => {
    const { client } = started(server);
    for (const [stack, release] of releases) {
      const namespace = namespaces.get(stack)!;
      expect(release.namespace).toBe(namespace.metadata.name);
      await client.applyOrThrow(namespace, { fieldManager: 'Terraform' });
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
      release.values.forEach((values, i) => {
        const file = join(work, `${stack}-values-${i}.yaml`);
        writeFileSync(file, values);
        args.push('--values', file);
      });
      await helm.runOrThrow(args);
      const got = await client.get(
        `/api/v1/namespaces/${encodeURIComponent(release.namespace)}/configmaps/${encodeURIComponent(release.name + RECORD_SUFFIX)}`,
      );
      expect(got.status).toBe(200);
      const record = parseRecord(got.body.data);
      expect(record).toEqual({
        release: release.name,
        namespace: release.namespace,
        chart: release.chart,
        chartVersion: release.version,
        values: load(release.values[0]),
      });
      const values = record.values as Record<string, any>;
      // What makes it this tenant's autoscaler, running in the management cluster.
      expect(values.cloudProvider).toBe('clusterapi');
      expect(values.clusterAPIMode).toBe('kubeconfig-incluster');
      expect(values.clusterAPIKubeconfigSecret).toBe(`${stack.replace(/^tenant-/, '')}-kubeconfig`);
      // secondary-clusters mode (the example lab): one autoscaler per tenant discovers every Cluster of its namespace.
      expect(values.autoDiscovery).toEqual(expect.objectContaining({ namespace: stack.replace(/^tenant-/, '') }));
    }
    expect(repository!.requests).toContain(`${MIRROR_PATH}/${autoscalerChart.chart}-${autoscalerChart.version}.tgz`);
  }, 120000);

  it('uninstall without leaving the release behind', async () => {
    for (const release of releases.values()) await helm.runOrThrow(['uninstall', release.name, '--namespace', release.namespace]);
    expect(JSON.parse(await helm.runOrThrow(['list', '--all-namespaces', '--output', 'json']))).toEqual([]);
  }, 60000);
});
