/**
 * The labels each provider's release puts on its CRDs, read from the kustomization beside its
 * `config/crd/bases` in its pinned module (copied into the CRD tree's `.kustomize/` by
 * `scripts/toolchain install crds`). Among them are the CAPI contract labels
 * (`cluster.x-k8s.io/v1beta2: v1alpha2`) through which Cluster API resolves the version of every
 * `apiGroup`/`kind` reference, so the twin's management server must carry them, as a management
 * cluster does after `clusterctl init` or the operator.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { crdsDir } from '../scripts/lib/crd-tree';
import { pinnedCrdDirs } from '../modules/versions';
import type { KubeObject } from '../scripts/lib/kube-apiserver';

/** CRD name → labels its release adds (of the pinned CRD directories, or of `dirs`). */
export function releaseCrdLabels(root: string, dirs: readonly string[] = pinnedCrdDirs()): Map<string, Record<string, string>> {
  const tree = crdsDir(root, process.env);
  const out = new Map<string, Record<string, string>>();
  for (const dir of dirs) {
    const kustomizeDir = join(tree, dir, '.kustomize');
    if (!existsSync(kustomizeDir)) continue;
    for (const file of readdirSync(kustomizeDir).sort()) {
      for (const doc of parseAllDocuments(readFileSync(join(kustomizeDir, file), 'utf8'))) {
        const k = doc.toJS() as { resources?: string[]; commonLabels?: Record<string, string>; labels?: { pairs?: Record<string, string> }[] } | null;
        if (!k?.resources) continue;
        const labels: Record<string, string> = { ...(k.commonLabels ?? {}) };
        for (const l of k.labels ?? []) Object.assign(labels, l.pairs ?? {});
        if (Object.keys(labels).length === 0) continue;
        for (const resource of k.resources) {
          const crdFile = join(tree, dir, basename(resource));
          if (!existsSync(crdFile)) continue;
          for (const crd of parseAllDocuments(readFileSync(crdFile, 'utf8'))) {
            const name = (crd.toJS() as KubeObject | null)?.metadata?.name;
            if (name) out.set(name, { ...(out.get(name) ?? {}), ...labels });
          }
        }
      }
    }
  }
  return out;
}

/** A transform for startKubeServer: each CRD with its release's labels. */
export function withReleaseLabels(root: string, dirs?: readonly string[]): (crd: KubeObject) => KubeObject {
  const labels = releaseCrdLabels(root, dirs);
  return (crd) => {
    const add = labels.get(crd.metadata.name);
    if (!add) return crd;
    return { ...crd, metadata: { ...crd.metadata, labels: { ...((crd.metadata.labels as Record<string, string>) ?? {}), ...add } } };
  };
}
