/**
 * The Helm side of the Helm releases tier (docs/kube-tier.md): the toolchain's helm CLI with its
 * state in a temp directory, the management stack's helm_release resources as cdk.tf.json gives
 * them, and a local HTTP chart repository of minimal charts that record what they receive.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createReadStream, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join, normalize, sep } from 'node:path';
import { load } from 'js-yaml';
import { parseDocument } from 'yaml';
import { startKubeServer, type KubeServer } from '../support/kube-apiserver';
import { projectRoot } from '../support/toolchain';

export const helmBinary = join(projectRoot, '.toolchain/bin/helm');

/** Throws with the fix when helm is not in the toolchain, as the kube tier does for its server. */
export function requireHelm(): void {
  if (!existsSync(helmBinary)) {
    throw new Error(
      'helm is not built (missing .toolchain/bin/helm): run `scripts/toolchain install` (the README test command does this; see docs/kube-tier.md)',
    );
  }
}

/** One `helm_release` of a synthesized stack. */
export interface StackRelease {
  /** Terraform address, `helm_release.<id>`. */
  readonly address: string;
  readonly name: string;
  readonly namespace: string;
  readonly chart: string;
  readonly repository: string;
  readonly version: string;
  /** The values documents as rendered (YAML strings). */
  readonly values: readonly string[];
  readonly createNamespace: boolean;
  /** Terraform addresses this release depends on. */
  readonly dependsOn: readonly string[];
}

const EXPRESSION = /\$\{/;

export function readStackReleases(stacksDir: string, stack: string): StackRelease[] {
  const json = JSON.parse(readFileSync(join(stacksDir, stack, 'cdk.tf.json'), 'utf8'));
  const releases = (json.resource?.helm_release ?? {}) as Record<string, Record<string, unknown>>;
  return Object.entries(releases)
    .map(([id, r]) => {
      const address = `helm_release.${id}`;
      const { '//': _meta, ...settings } = r;
      if (EXPRESSION.test(JSON.stringify(settings))) {
        throw new Error(`${stack}: ${address} has settings only Terraform can compute, which helm cannot be given here: ${JSON.stringify(settings)}`);
      }
      for (const key of ['set', 'set_list', 'set_sensitive', 'set_wo', 'postrender']) {
        if (key in settings) throw new Error(`${stack}: ${address} uses \`${key}\`, which this tier does not pass to helm yet`);
      }
      return {
        address,
        name: settings.name as string,
        namespace: settings.namespace as string,
        chart: settings.chart as string,
        repository: settings.repository as string,
        version: settings.version as string,
        values: (settings.values as string[] | undefined) ?? [],
        createNamespace: settings.create_namespace === true,
        dependsOn: (settings.depends_on as string[] | undefined) ?? [],
      };
    })
    .sort((a, b) => a.address.localeCompare(b.address));
}

/**
 * The releases in an order that installs every dependency first (Terraform's order for a serial
 * apply); throws on a cycle. Ties keep address order, so the order is the same on every run.
 */
export function installOrder(releases: readonly StackRelease[]): StackRelease[] {
  const byAddress = new Map(releases.map((r) => [r.address, r]));
  const done = new Set<string>();
  const visiting = new Set<string>();
  const order: StackRelease[] = [];
  const visit = (r: StackRelease, path: string[]) => {
    if (done.has(r.address)) return;
    if (visiting.has(r.address)) throw new Error(`depends_on cycle: ${[...path, r.address].join(' -> ')}`);
    visiting.add(r.address);
    for (const dep of r.dependsOn) {
      const other = byAddress.get(dep);
      if (other) visit(other, [...path, r.address]);
    }
    visiting.delete(r.address);
    done.add(r.address);
    order.push(r);
  };
  for (const r of releases) visit(r, []);
  return order;
}

/** The ConfigMap each test chart writes: the release's name plus this suffix, in the release's namespace. */
export const RECORD_SUFFIX = '-received';

/**
 * A chart that installs nothing but a ConfigMap recording what Helm gave it. No values.yaml, so
 * `.Values` is exactly what the release passed.
 */
function writeRecordingChart(dir: string, chart: string, version: string): void {
  mkdirSync(join(dir, 'templates'), { recursive: true });
  writeFileSync(
    join(dir, 'Chart.yaml'),
    `apiVersion: v2\nname: ${chart}\nversion: ${JSON.stringify(version)}\ndescription: pvekaas test chart recording the values it receives\ntype: application\n`,
  );
  writeFileSync(
    join(dir, 'templates/received.yaml'),
    [
      'apiVersion: v1',
      'kind: ConfigMap',
      'metadata:',
      `  name: {{ printf "%s${RECORD_SUFFIX}" .Release.Name }}`,
      '  namespace: {{ .Release.Namespace }}',
      'data:',
      '  release: {{ .Release.Name | quote }}',
      '  namespace: {{ .Release.Namespace | quote }}',
      '  chart: {{ .Chart.Name | quote }}',
      '  chartVersion: {{ .Chart.Version | quote }}',
      '  values: {{ toYaml .Values | quote }}',
      '',
    ].join('\n'),
  );
}

export interface HelmResult {
  status: number;
  stdout: string;
  stderr: string;
}

/** helm with its cache, config and data in `home`, and the test server's kubeconfig. */
export class HelmCli {
  constructor(
    private readonly home: string,
    private readonly kubeconfig?: string,
  ) {
    mkdirSync(home, { recursive: true });
  }

  /**
   * Asynchronous on purpose: helm fetches charts from the repository this same process serves,
   * which a blocking spawnSync would starve.
   */
  run(args: string[], cwd = this.home): Promise<HelmResult> {
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: this.home,
      HELM_CACHE_HOME: join(this.home, 'cache'),
      HELM_CONFIG_HOME: join(this.home, 'config'),
      HELM_DATA_HOME: join(this.home, 'data'),
      ...(this.kubeconfig ? { KUBECONFIG: this.kubeconfig } : {}),
    };
    return new Promise((resolvePromise) => {
      const child = spawn(helmBinary, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('error', (e) => resolvePromise({ status: -1, stdout, stderr: `${stderr}${e.message}` }));
      child.on('close', (code) => resolvePromise({ status: code ?? -1, stdout, stderr }));
    });
  }

  async runOrThrow(args: string[], cwd?: string): Promise<string> {
    const r = await this.run(args, cwd);
    if (r.status !== 0) throw new Error(`helm ${args.join(' ')} failed (${r.status}):\n${r.stderr}${r.stdout}`);
    return r.stdout;
  }
}

/**
 * Packages one recording chart per (chart, version) into `repoDir` and indexes it for `url`, the
 * address the repository is served at.
 */
export async function buildChartRepository(
  helm: HelmCli,
  workDir: string,
  repoDir: string,
  url: string,
  charts: readonly { chart: string; version: string }[],
): Promise<void> {
  mkdirSync(repoDir, { recursive: true });
  const unique = [...new Map(charts.map((c) => [`${c.chart}@${c.version}`, c])).values()];
  for (const { chart, version } of unique) {
    const source = join(workDir, 'chart-sources', `${chart}-${version}`, chart);
    writeRecordingChart(source, chart, version);
    await helm.runOrThrow(['package', source, '--destination', repoDir]);
  }
  await helm.runOrThrow(['repo', 'index', repoDir, '--url', url]);
}

/** Serves `dir` read-only over HTTP on 127.0.0.1 at a random free port, under `prefix`. */
export async function serveDirectory(dir: string, prefix: string): Promise<{ url: string; requests: string[]; close: () => Promise<void> }> {
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    requests.push(path);
    const relative = path.startsWith(`${prefix}/`) ? normalize(path.slice(prefix.length + 1)) : undefined;
    const file = relative && !relative.startsWith('..') ? join(dir, relative) : undefined;
    if (req.method !== 'GET' || !file || !file.startsWith(dir + sep) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': file.endsWith('.yaml') ? 'application/x-yaml' : 'application/gzip' });
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolvePromise());
  });
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('chart repository server has no port');
  return {
    url: `http://127.0.0.1:${address.port}${prefix}`,
    requests,
    close: () => new Promise<void>((resolvePromise) => server.close(() => resolvePromise())),
  };
}

/** What a recording chart's ConfigMap says it received. */
export interface ReceivedRecord {
  release: string;
  namespace: string;
  chart: string;
  chartVersion: string;
  values: unknown;
}

export function parseRecord(data: Record<string, string>): ReceivedRecord {
  return { release: data.release, namespace: data.namespace, chart: data.chart, chartVersion: data.chartVersion, values: load(data.values) };
}

/** Synthesizes the example lab with `management.mirror.charts` set to `mirrorUrl` (and `edits`, each a path and its value); returns the stacks directory. */
export function synthWithChartMirror(work: string, mirrorUrl: string, edits: readonly [path: string[], value: unknown][] = []): string {
  const document = parseDocument(readFileSync(join(projectRoot, 'examples/lab.yaml'), 'utf8'));
  document.setIn(['management', 'mirror', 'charts'], mirrorUrl);
  for (const [path, value] of edits) document.setIn(path, value);
  const labFile = join(work, 'lab.yaml');
  writeFileSync(labFile, String(document));
  const out = join(work, 'out');
  const r = spawnSync(process.execPath, [join(projectRoot, 'dist/scripts/synth.js'), '--config', labFile, '--out', out], {
    cwd: projectRoot,
    encoding: 'utf8',
  });
  if (r.status !== 0)
    throw new Error(
      `synth of the example lab with a chart mirror${edits.length > 0 ? ` and ${edits.map(([p]) => p.join('.')).join(', ')}` : ''} failed (${r.status}):\n${r.stderr}`,
    );
  return join(out, 'stacks');
}

/**
 * The Helm tier's servers: the chart repository built from `charts` and served at `url`, and an
 * API server without CRDs or controllers (releases only create plain objects); returns helm
 * pointed at that server.
 */
export async function startHelmTier(
  work: string,
  repoDir: string,
  url: string,
  charts: readonly { chart: string; version: string }[],
): Promise<{ server: KubeServer; helm: HelmCli }> {
  await buildChartRepository(new HelmCli(join(work, 'helm')), work, repoDir, url, charts);
  const server = await startKubeServer({ crds: false, controllerManager: false });
  return { server, helm: new HelmCli(join(work, 'helm'), server.kubeconfig) };
}
