/**
 * The Helm releases of the management stack that the lab twin plays instead of installing (no
 * container runtime): their name, namespace and values exactly as the stack renders them.
 */
import { load as loadYaml } from 'js-yaml';
import { readStack } from './stack-objects';
import type { KamajiReleases } from './kamaji';

interface RenderedRelease {
  name: string;
  namespace: string;
  chart: string;
  values?: string[];
}

export function managementReleases(out: string): RenderedRelease[] {
  const management = readStack(out, 'management');
  return Object.values((management.config.resource?.helm_release ?? {}) as Record<string, RenderedRelease>);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Helm chart values: free-form YAML read by path, as the chart reads it
function values(release: RenderedRelease): Record<string, any> {
  // Later values documents override earlier ones, key by key at the top level (as helm merges -f files, shallowly here).
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- Helm chart values: free-form YAML read by path, as the chart reads it
  return Object.assign({}, ...(release.values ?? []).map((v) => (loadYaml(v) ?? {}) as Record<string, any>));
}

/** The kamaji and kamaji-etcd releases (by chart name), or an error naming what is missing. */
export function kamajiReleases(out: string): KamajiReleases {
  const releases = managementReleases(out);
  const kamaji = releases.find((r) => r.chart === 'kamaji');
  const etcd = releases.find((r) => r.chart === 'kamaji-etcd');
  if (!kamaji || !etcd) throw new Error('the management stack has no kamaji or no kamaji-etcd helm_release: the lab twin plays both');
  return { kamaji: { namespace: kamaji.namespace, values: values(kamaji) }, kamajiEtcd: { name: etcd.name, namespace: etcd.namespace, values: values(etcd) } };
}
