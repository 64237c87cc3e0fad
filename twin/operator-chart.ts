/**
 * What the cluster-api-operator release really gives the operator: its provider resources as the
 * REAL chart (laid out by scripts/toolchain at the release's version) renders them from the
 * release's values with `helm template`. The chart passes only some of a provider's values through
 * (its templates/core.yaml, bootstrap.yaml, …: `version`, `deployment`, `manager.featureGates`,
 * `manager.metrics`, `fetchConfig`, `manifestPatches`, `configSecret`, `additionalManifests`), so
 * a value it drops — `manager.additionalArgs`, say — never reaches the operator, and the twin's
 * controllers, which take their flags and environment from these resources, do not get it either.
 */
import { loadAll } from 'js-yaml';
import { helmTemplate, type ChartRelease } from './helm-template';
import { capiProviders } from '../modules/versions/providers';

const OPERATOR_API = 'operator.cluster.x-k8s.io/v1alpha2';

/** The provider resources the chart renders, keyed back as its values are (`<section>.<provider>`: namespace and spec). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Helm chart values: free-form YAML read by path, as the chart reads it
export function renderedOperatorValues(root: string, release: ChartRelease, kubeVersion: string): Record<string, any> {
  const out = helmTemplate(root, 'cluster-api-operator', release, kubeVersion);
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
