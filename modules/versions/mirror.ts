/**
 * Air-gapped labs: `management.mirror` replaces every chart repository and prefixes every image.
 *
 * Images keep their source registry in the mirrored path, so images of the same name on different
 * registries never collide: with `images: registry.lab.example/mirror`,
 * `quay.io/metallb/speaker` becomes `registry.lab.example/mirror/quay.io/metallb/speaker` and
 * `clastix/kamaji` (Docker Hub) becomes `registry.lab.example/mirror/docker.io/clastix/kamaji`.
 * Provider components come from OCI artifacts `<providers>/<type>-<name>:<version>` (default
 * `<images>/capi-providers`), each holding `metadata.yaml` and `components.yaml`.
 */
import type { CapiProvider, HelmChartPin, ImagePin } from './index';

/** `management.mirror` of the lab description. */
export interface Mirror {
  /** OCI (`oci://host/path`) or HTTP(S) chart repository replacing every chart repository. */
  readonly charts?: string;
  /** Registry prefix for every image, e.g. `registry.lab.example/mirror`. */
  readonly images?: string;
  /** OCI repository prefix for provider components; default `<images>/capi-providers`. */
  readonly providers?: string;
}

/** Adds the implicit `docker.io/` (and `library/`) of Docker Hub references. */
export function normalizeRepository(repository: string): string {
  const [first, ...rest] = repository.split('/');
  const hasRegistry = rest.length > 0 && (first.includes('.') || first.includes(':') || first === 'localhost');
  if (hasRegistry) return repository;
  return rest.length === 0 ? `docker.io/library/${first}` : `docker.io/${repository}`;
}

/** The repository an image is pulled from: its mirror copy when the lab has an image mirror. */
export function mirroredRepository(repository: string, mirror?: Mirror): string {
  const normalized = normalizeRepository(repository);
  return mirror?.images ? `${trimSlash(mirror.images)}/${normalized}` : normalized;
}

export function mirroredImage(image: ImagePin, mirror?: Mirror): ImagePin {
  return { ...image, repository: mirroredRepository(image.repository, mirror) };
}

/** The repository and chart name a Helm release installs from. */
export function chartSource(chart: HelmChartPin, mirror?: Mirror): { repository: string; chart: string } {
  const repository = mirror?.charts ? trimSlash(mirror.charts) : chart.repository;
  // The lab rules refuse such a lab first (management.local-path-without-chart-mirror).
  if (repository === undefined) throw new Error(`the ${chart.chart} chart has no upstream Helm repository: it is installed from management.mirror.charts only`);
  return { repository, chart: chart.chart };
}

/** The OCI artifact the CAPI operator fetches a provider's components from, when mirrored. */
export function providerComponentsArtifact(provider: CapiProvider, mirror?: Mirror): string | undefined {
  const base = mirror?.providers ?? (mirror?.images ? `${trimSlash(mirror.images)}/capi-providers` : undefined);
  if (!base) return undefined;
  return `${trimSlash(base.replace(/^oci:\/\//, ''))}/${provider.clusterctlType}-${provider.name}`;
}

function trimSlash(text: string): string {
  return text.replace(/\/+$/, '');
}
