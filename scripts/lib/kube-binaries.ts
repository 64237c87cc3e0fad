/**
 * The Kubernetes binaries of the toolchain (the management's pinned patch, and each tenant minor's)
 * and the pinned upstream CRDs from the CRD tree (.toolchain/crds), as the test tier and the lab twin
 * run and install them (scripts/lib/kube-apiserver.ts).
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { crdsDir } from './crd-tree';
import { pinnedCrdDirs, resolveToolchain } from '../../modules/versions';
import { projectRoot as findProjectRoot } from '../../sim/toolchain';
import { type KubeObject } from './kube-client';

const projectRoot = findProjectRoot();

export const toolchainBin = join(projectRoot, '.toolchain/bin');
export const kubeBinaries = ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler'] as const;

/** Where a Kubernetes command the test servers and the twin's tenant control planes run comes from. */
export function kubeBinary(command: (typeof kubeBinaries)[number]): string {
  return join(toolchainBin, command);
}

/** The commands of a Kubernetes control plane the toolchain builds per minor (Kamaji's TenantControlPlane pod runs the three). */
export type KubeCommand = 'kube-apiserver' | 'kube-controller-manager' | 'kube-scheduler';

/**
 * The pinned patch of `version`'s minor (toolchain.json `kubernetes.version` for the management
 * minor, `kubernetes.tenantMinors` for the others): what a tenant of that version runs in the lab
 * twin. Throws naming the pinned minors when its minor has none.
 */
export function pinnedKubernetesFor(version: string): string {
  const minor = (v: string) => /^v?(\d+)\.(\d+)\./.exec(v)?.slice(1, 3).join('.');
  const pinned = Object.keys(resolveToolchain().kubernetes.minors);
  const found = pinned.find((p) => minor(p) === minor(version));
  if (!found)
    throw new Error(
      `the lab twin runs no Kubernetes ${minor(version) ?? version} (${version}): it builds the minors pinned in modules/versions/toolchain.json ` +
        `(kubernetes.version and kubernetes.tenantMinors: ${pinned.join(', ')}); pin that minor's patch there, or declare one of those`,
    );
  return found;
}

/**
 * The binary of `command` a control plane of Kubernetes `version` runs: k8s.io/kubernetes at the
 * pinned patch of its minor (pinnedKubernetesFor), linked by `scripts/toolchain install` as
 * `.toolchain/kube/<patch>/<command>` (part `kube-<patch>`, or the management's own commands for
 * its minor). Throws with the install command when it is not built.
 */
export function tenantBinary(command: KubeCommand, version: string): string {
  const patch = pinnedKubernetesFor(version);
  const path = join(projectRoot, '.toolchain/kube', patch, command);
  if (!existsSync(path)) {
    const part = patch === resolveToolchain().kubernetes.version ? command : `kube-${patch}`;
    throw new Error(`${command} ${patch} (for Kubernetes ${version}) is not built (missing ${path}): run \`scripts/toolchain install ${part}\``);
  }
  return path;
}

/**
 * The toolchain parts the tenant control planes of these Kubernetes versions need beyond the
 * management's (`scripts/toolchain install <part>`): `kube-<patch>` for each other pinned minor,
 * once. Throws (pinnedKubernetesFor) for a minor the toolchain does not pin.
 */
export function tenantKubeParts(versions: readonly string[]): string[] {
  const management = resolveToolchain().kubernetes.version;
  return [...new Set(versions.map(pinnedKubernetesFor))]
    .filter((p) => p !== management)
    .sort()
    .map((p) => `kube-${p}`);
}

/** Throws with the fix when the server binaries are not built: the kube tier is part of the test command. */
export function requireKubeBinaries(): void {
  const missing = kubeBinaries.filter((b) => !existsSync(join(toolchainBin, b)));
  if (missing.length > 0) {
    throw new Error(
      `the Kubernetes test server is not built (missing in .toolchain/bin: ${missing.join(', ')}): run \`scripts/toolchain install\` ` +
        '(the README test command does this; a cold build takes several minutes, see docs/kube-tier.md)',
    );
  }
}

/** The CRD sets installed: those of the pinned management plane (modules/versions), from the CRD tree. */
export const pinnedCrdSets = pinnedCrdDirs();

export const crdRoot = crdsDir(projectRoot, process.env);

/** Reads the pinned CRDs (or those of `sets`, directories of the CRD tree), with webhook conversion turned off (see below). */
export function loadPinnedCrds(sets: readonly string[] = pinnedCrdSets): KubeObject[] {
  const crds: KubeObject[] = [];
  for (const set of sets) {
    const dir = join(crdRoot, set);
    if (!existsSync(dir)) throw new Error(`pinned CRDs not found: ${dir} (run scripts/toolchain install crds)`);
    for (const file of readdirSync(dir)
      .filter((f) => f.endsWith('.yaml'))
      .sort()) {
      for (const doc of parseAllDocuments(readFileSync(join(dir, file), 'utf8'))) {
        const object = doc.toJS() as KubeObject | null;
        if (object?.kind !== 'CustomResourceDefinition') continue;
        crds.push(withoutConversionWebhook(object));
      }
    }
  }
  return crds;
}

/**
 * No provider webhook runs here. pvekaas writes every object at its CRD's storage version, so the
 * server never needs to convert; a conversion webhook left in place would only turn a wrong
 * apiVersion into an opaque "service not found" error instead of a clear one.
 */
export function withoutConversionWebhook(crd: KubeObject): KubeObject {
  const spec = crd.spec as { conversion?: { strategy?: string } };
  if (spec.conversion?.strategy !== 'Webhook') return crd;
  return { ...crd, spec: { ...spec, conversion: { strategy: 'None' } } };
}
