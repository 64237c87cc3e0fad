/**
 * The management releases whose real upstream chart ships inside a served Go module (metallb,
 * cert-manager, cluster-api-operator, local-path-provisioner: `charts` in
 * modules/versions/toolchain.json, laid out by `scripts/toolchain install charts` as each release
 * publishes them) rendered with exactly the values pvekaas synthesized for the example lab with
 * `datastore.csi: local-path` (so the local-path-provisioner release is there; the other releases'
 * values do not depend on the CSI): `helm template` enforces each chart's values.schema.json (and
 * its subcharts'), at the management cluster's Kubernetes version (the test server's); then every
 * rendered object goes to a real API server by server-side apply — the CRDs for real, everything
 * else as a dry run (no controller runs here, and nothing may be left behind). A value the chart's
 * schema refuses fails helm, and so this suite; local-path-provisioner's chart has no schema, so a
 * wrong value of it is refused by the API server instead (the last cases show both).
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load, loadAll } from 'js-yaml';
import { imageRef, managementImages, pinnedVersions } from '../../modules/versions';
import { LOCAL_PATH_NODE_PATH, LOCAL_PATH_STORAGE_CLASS } from '../../modules/management/datastore';
import toolchain from '../../modules/versions/toolchain.json';
import { requireKubeBinaries, startKubeServer, type KubeObject, type KubeServer } from '../support/kube-apiserver';
import { compileProject, projectRoot } from '../support/toolchain';
import { started, tearDown } from '../support/lifecycle';
import { readStackNamespaces } from '../kube/stack-manifests';
import { HelmCli, readStackReleases, requireHelm, synthWithChartMirror, type StackRelease } from './chart-mirror';

/** The management charts among them (entries of a component; a tenant's CNI chart is the twin's). */
const charts = (Object.entries(toolchain.charts) as [string, unknown][]).filter(
  (e): e is [string, { component: string }] => e[0] !== '//' && typeof e[1] === 'object' && e[1] !== null && 'component' in e[1],
);
/** Charts that ship no values.schema.json at the pinned release, and what catches a wrong value of theirs instead. */
const WITHOUT_SCHEMA: Record<string, string> = { 'local-path-provisioner': "the API server's validation of the objects it renders (last case)" };
const chartDir = (release: StackRelease) => join(projectRoot, '.toolchain/charts', release.chart, release.version);
/** The management cluster the charts are rendered for: the test server's Kubernetes version. */
const kubeVersion = toolchain.kubernetes.version;

let work: string;
let server: KubeServer | undefined;
let helm: HelmCli;
let releases: StackRelease[] = [];

beforeAll(async () => {
  requireHelm();
  requireKubeBinaries();
  compileProject();
  work = mkdtempSync(join(tmpdir(), 'pvekaas-real-charts-'));
  // The chart repository address only decides where helm would fetch from; here the charts come
  // from the toolchain's layout, so any mirror address will do.
  const stacks = synthWithChartMirror(work, 'http://127.0.0.1:9/charts/', [[['management', 'datastore', 'csi'], 'local-path']]);
  releases = readStackReleases(stacks, 'management');
  server = await startKubeServer({ crds: false, controllerManager: false });
  helm = new HelmCli(join(work, 'helm'), started(server).kubeconfig);
  // The management stack's namespaces come first, as in the stack (the providers' among them).
  for (const namespace of readStackNamespaces(stacks, 'management')) await started(server).client.applyOrThrow(namespace);
}, 240000);

afterAll(() => tearDown(work, server), 60000);

function valuesFiles(release: StackRelease, values = release.values): string[] {
  return values.flatMap((doc, i) => {
    const file = join(work, `${release.name}-values-${i}.yaml`);
    writeFileSync(file, doc);
    return ['--values', file];
  });
}

async function template(release: StackRelease, values = release.values): Promise<{ status: number; stdout: string; stderr: string }> {
  return helm.run([
    'template',
    release.name,
    chartDir(release),
    '--namespace',
    release.namespace,
    '--kube-version',
    kubeVersion,
    '--include-crds',
    ...valuesFiles(release, values),
  ]);
}

const objectsOf = (manifest: string): KubeObject[] =>
  (loadAll(manifest) as (KubeObject | null)[]).filter((o): o is KubeObject => o !== null && typeof o === 'object' && 'kind' in o);

/** Every release `release` depends on, transitively, dependencies first (from the stack's `depends_on`). */
function dependenciesOf(release: StackRelease, seen = new Set<string>()): StackRelease[] {
  return release.dependsOn.flatMap((address) => {
    const dependency = releases.find((r) => r.address === address);
    if (!dependency || seen.has(address)) return [];
    seen.add(address);
    return [...dependenciesOf(dependency, seen), dependency];
  });
}

const crdsInstalled = new Set<string>();

/** Applies the CRDs a release's chart renders (server-side, for real) and waits until each version is served. */
async function installCrds(release: StackRelease, rendered?: KubeObject[]): Promise<void> {
  if (crdsInstalled.has(release.address)) return;
  let objects = rendered;
  if (!objects) {
    const r = await template(release);
    if (r.status !== 0) throw new Error(`helm template ${release.name}: ${r.stderr}`);
    objects = objectsOf(r.stdout);
  }
  const client = started(server).client;
  const crds = objects.filter((o) => o.kind === 'CustomResourceDefinition');
  for (const crd of crds) await client.applyOrThrow(crd, { fieldManager: 'helm' });
  // Wait until the CRDs are served, so the custom resources of the chart can be dry-run.
  for (const crd of crds) {
    const group = (crd as any).spec.group as string;
    for (const version of ((crd as any).spec.versions as { name: string; served: boolean }[]).filter((v) => v.served)) {
      const deadline = Date.now() + 30000;
      while ((await client.get(`/apis/${group}/${version.name}`)).status !== 200) {
        if (Date.now() > deadline) throw new Error(`CRD ${crd.metadata.name}: ${group}/${version.name} not served within 30 s`);
        await new Promise((res) => setTimeout(res, 250));
      }
    }
  }
  crdsInstalled.add(release.address);
}

describe('the real upstream charts with the values pvekaas renders', () => {
  it('lays out every chart the toolchain lists, at the pinned version of a management release', () => {
    for (const [name] of charts) {
      const release = releases.find((r) => r.chart === name);
      expect(release).toBeDefined();
      expect(existsSync(join(chartDir(release!), 'Chart.yaml'))).toBe(true);
      expect({ name, schema: existsSync(join(chartDir(release!), 'values.schema.json')) }).toEqual({ name, schema: !(name in WITHOUT_SCHEMA) });
    }
  });

  it.each(charts.map(([name]) => name))(
    '%s: renders with exactly the synthesized values, schema enforced, and the server admits every object',
    async (name) => {
      const release = releases.find((r) => r.chart === name)!;
      const r = await template(release);
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      const objects = objectsOf(r.stdout);
      expect(objects.length).toBeGreaterThan(0);
      const client = started(server).client;
      // The releases it depends on install their CRDs first, as Terraform's order does (the operator's
      // Certificates need cert-manager's), so a case run alone (`-t`) sees what the stack's apply sees.
      // (Only the charts this tier lays out: a dependency outside them, Kamaji's release, has no chart here.)
      for (const dependency of dependenciesOf(release).filter((d) => charts.some(([name]) => name === d.chart))) await installCrds(dependency);
      await installCrds(release, objects);
      const refused: string[] = [];
      for (const object of objects.filter((o) => o.kind !== 'CustomResourceDefinition')) {
        const namespaced = (await client.resourceFor(object.apiVersion, object.kind)).namespaced;
        const placed = namespaced && !object.metadata.namespace ? { ...object, metadata: { ...object.metadata, namespace: release.namespace } } : object;
        const res = await client.apply(placed, { fieldManager: 'helm', dryRun: true });
        if (res.status !== 200 && res.status !== 201)
          refused.push(`${object.kind} ${object.metadata.name}: HTTP ${res.status}: ${res.body?.message ?? res.text}`);
      }
      expect(refused).toEqual([]);
    },
    120000,
  );

  it('fails when a value breaks the chart schema (metallb: a log level the schema does not list)', async () => {
    const release = releases.find((r) => r.chart === 'metallb')!;
    const bad = [...release.values, 'controller:\n  logLevel: loud\n'];
    const r = await template(release, bad);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/values don't meet the specifications of the schema|logLevel/);
  });

  it('local-path-provisioner: the datastore class is made as pvekaas asks (Retain, WaitForFirstConsumer, the node path, the pinned images)', async () => {
    const release = releases.find((r) => r.chart === 'local-path-provisioner')!;
    const objects = objectsOf((await template(release)).stdout);
    const classes = objects.filter((o) => o.kind === 'StorageClass') as any[];
    expect(
      classes.map((c) => [c.metadata.name, c.reclaimPolicy, c.volumeBindingMode, c.metadata.annotations['storageclass.kubernetes.io/is-default-class']]),
    ).toEqual([[LOCAL_PATH_STORAGE_CLASS, 'Retain', 'WaitForFirstConsumer', 'false']]);
    const etcd = releases.find((r) => r.name === 'kamaji-etcd')!;
    expect((load(etcd.values[0]) as any).persistentVolumeClaim.storageClassName).toBe(LOCAL_PATH_STORAGE_CLASS);
    const config = objects.find((o) => o.kind === 'ConfigMap') as any;
    expect(JSON.parse(config.data['config.json'])).toEqual({ nodePathMap: [{ node: 'DEFAULT_PATH_FOR_NON_LISTED_NODES', paths: [LOCAL_PATH_NODE_PATH] }] });
    const deployment = objects.find((o) => o.kind === 'Deployment') as any;
    const container = deployment.spec.template.spec.containers[0];
    const pinned = managementImages(pinnedVersions).localPathProvisioner;
    expect(container.image).toBe(imageRef(pinned.provisioner));
    expect(pinned.provisioner.tag).toBe(`v${toolchain.components.localPathProvisioner.version}`);
    // The helper image the provisioner starts its helper pods with (--helper-image) is the pinned one, not the chart's busybox:latest.
    expect(container.command[container.command.indexOf('--helper-image') + 1]).toBe(imageRef(pinned.helper));
    expect(pinned.helper.tag).not.toBe('latest');
    expect(config.data['helperPod.yaml']).toContain(`image: ${imageRef(pinned.helper)}`);
  });

  it('local-path-provisioner has no schema: a wrong value renders, and the API server refuses the object it lands in', async () => {
    const release = releases.find((r) => r.chart === 'local-path-provisioner')!;
    const r = await template(release, [...release.values, 'storageClass:\n  reclaimPolicy: Keep\n']);
    expect(r.status).toBe(0);
    const storageClass = objectsOf(r.stdout).find((o) => o.kind === 'StorageClass')!;
    const res = await started(server).client.apply(storageClass, { fieldManager: 'helm', dryRun: true });
    expect(res.status).toBe(422);
    expect(res.body?.message ?? res.text).toMatch(/reclaimPolicy: Unsupported value: "Keep"/);
  });
});
