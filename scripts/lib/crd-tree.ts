/** Where the pinned CRD tree is (`scripts/toolchain install crds` lays it out from the pinned Go modules). */
import { resolve } from 'node:path';

/** The CRD tree: `$PVEKAAS_CRDS_DIR` (relative to the project root) if set, else `<project>/.toolchain/crds`. */
export function crdsDir(projectRoot: string, env: Readonly<Record<string, string | undefined>> = {}): string {
  const override = env.PVEKAAS_CRDS_DIR;
  return override ? resolve(projectRoot, override) : resolve(projectRoot, '.toolchain', 'crds');
}
