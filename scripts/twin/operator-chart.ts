/**
 * What the cluster-api-operator release really gives the operator: its provider resources as the
 * REAL chart (laid out by scripts/toolchain at the release's version) renders them from the
 * release's values with `helm template`. The chart passes only some of a provider's values through
 * (its templates/core.yaml, bootstrap.yaml, …: `version`, `deployment`, `manager.featureGates`,
 * `manager.metrics`, `fetchConfig`, `manifestPatches`, `configSecret`, `additionalManifests`), so
 * a value it drops — `manager.additionalArgs`, say — never reaches the operator, and the twin's
 * controllers, which take their flags and environment from these resources, do not get it either.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAll } from 'js-yaml';
import { capiProviders } from '../../modules/versions/providers';

const OPERATOR_API = 'operator.cluster.x-k8s.io/v1alpha2';

export interface OperatorRelease {
  name: string;
  namespace: string;
  version: string;
  /** The release's values documents (YAML), as the stack sets them. */
  values: string[];
}

/** The provider resources the chart renders, keyed back as its values are (`<section>.<provider>`: namespace and spec). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Helm chart values: free-form YAML read by path, as the chart reads it
export function renderedOperatorValues(root: string, release: OperatorRelease, kubeVersion: string): Record<string, any> {
  const chart = join(root, '.toolchain/charts/cluster-api-operator', release.version);
  if (!existsSync(join(chart, 'Chart.yaml')))
    throw new Error(`the cluster-api-operator chart ${release.version} is not laid out in ${chart}: run scripts/toolchain install`);
  const dir = mkdtempSync(join(tmpdir(), 'pvekaas-operator-chart-'));
  let out: string;
  try {
    const files = release.values.flatMap((doc, i) => {
      const file = join(dir, `values-${i}.yaml`);
      writeFileSync(file, doc);
      return ['--values', file];
    });
    out = execFileSync(
      join(root, '.toolchain/bin/helm'),
      ['template', release.name, chart, '--namespace', release.namespace, '--kube-version', kubeVersion, ...files],
      {
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { PATH: process.env.PATH, HOME: dir, HELM_CACHE_HOME: dir, HELM_CONFIG_HOME: dir, HELM_DATA_HOME: dir },
      },
    );
  } catch (e) {
    const stderr = (e as { stderr?: string }).stderr;
    throw new Error(`helm template of the cluster-api-operator release: ${stderr || (e as Error).message}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const sections = new Map<string, string>(capiProviders.map((p) => [p.operatorKind, p.kind]));
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- rendered Kubernetes objects, read by path
  const values: Record<string, any> = {};
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- rendered Kubernetes objects, read by path
  for (const doc of loadAll(out) as any[]) {
    if (!doc || doc.apiVersion !== OPERATOR_API || !sections.has(doc.kind)) continue;
    const section = sections.get(doc.kind)!;
    values[section] ??= {};
    values[section][doc.metadata.name] = { namespace: doc.metadata.namespace, ...(doc.spec ?? {}) };
  }
  return values;
}
