/** The `helm_release` of a stack the twin stands in for, and the error hashicorp/helm reports when it times out. */
import type { StackContents } from '../stack-objects';

/** A `helm_release` of a stack as hashicorp/helm 3.1.1 reads it (helm/resource_helm_release.go: `wait` default true, `timeout` default 300 s). */
export interface HelmReleaseView {
  address: string;
  name: string;
  chart: string;
  wait: boolean;
  timeoutSeconds: number;
}

export function helmRelease(stack: StackContents, chart: string): HelmReleaseView {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a synthesized cdk.tf.json block: untyped JSON read by path, as tofu reads it
  const found = Object.entries((stack.config.resource?.helm_release ?? {}) as Record<string, any>).find(([, r]) => r.chart === chart);
  if (!found) throw new Error(`${stack.stack} has no ${chart} release`);
  const [name, r] = found;
  return { address: `helm_release.${name}`, name: r.name ?? name, chart, wait: r.wait ?? true, timeoutSeconds: r.timeout ?? 300 };
}

/**
 * What hashicorp/helm 3.1.1 reports when the release's resources are not ready within `timeout`
 * (helm/resource_helm_release.go: the warning "Helm release created with warnings" and the error
 * "Helm release error" with helm's own message).
 */
export function helmTimeout(release: HelmReleaseView, tookSeconds: number): Error {
  return new Error(
    `${release.address}: Warning: Helm release created with warnings: Helm release "${release.name}" was created but has a failed status. Use the \`helm\` command to investigate the error, correct it, then run Terraform again.\n` +
      `${release.address}: Error: Helm release error: context deadline exceeded (the twin's stand-in, the controllers, took ${Math.round(tookSeconds)} s; the release waits ${release.timeoutSeconds} s)`,
  );
}
