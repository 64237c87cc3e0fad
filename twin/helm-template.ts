/**
 * `helm template` of one management release with the REAL chart that scripts/toolchain laid out
 * (`.toolchain/charts/<chart>/<version>`) and the release's values documents, in order, at the
 * management cluster's Kubernetes version: what the twin's players install or read instead of a
 * chart repository (MetalLB's controller, the cluster-api-operator's provider resources).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A helm_release of a synthesized stack, as far as rendering it goes. */
export interface ChartRelease {
  name: string;
  namespace: string;
  version: string;
  /** The release's values documents (YAML), in order. */
  values: string[];
}

/** The rendered manifest (YAML documents); helm's own error when the chart or its schema refuses the values. */
export function helmTemplate(root: string, chart: string, release: ChartRelease, kubeVersion: string): string {
  const dir = join(root, '.toolchain/charts', chart, release.version);
  if (!existsSync(join(dir, 'Chart.yaml'))) throw new Error(`the ${chart} chart ${release.version} is not laid out in ${dir}: run scripts/toolchain install`);
  const scratch = mkdtempSync(join(tmpdir(), `pvekaas-${chart}-`));
  try {
    const files = release.values.flatMap((doc, i) => {
      const file = join(scratch, `values-${i}.yaml`);
      writeFileSync(file, doc);
      return ['--values', file];
    });
    return execFileSync(
      join(root, '.toolchain/bin/helm'),
      ['template', release.name, dir, '--namespace', release.namespace, '--kube-version', kubeVersion, ...files],
      {
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { PATH: process.env.PATH, HOME: scratch, HELM_CACHE_HOME: scratch, HELM_CONFIG_HOME: scratch, HELM_DATA_HOME: scratch },
      },
    );
  } catch (e) {
    throw new Error(`helm template of the ${chart} release: ${(e as { stderr?: string }).stderr || (e as Error).message}`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
