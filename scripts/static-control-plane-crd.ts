/**
 * Writes crds/pvekaas/v1alpha1/static-control-plane.yaml: the static control-plane CRD and its
 * ClusterRole (modules/tenants/static-control-plane.ts), for people and tools that read YAML.
 * Run: `npm run build && node dist/scripts/static-control-plane-crd.js`; a test keeps the file current.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { staticControlPlaneFile, STATIC_CONTROL_PLANE_FILE } from '../modules/tenants/static-control-plane';

const file = join(__dirname, '../..', STATIC_CONTROL_PLANE_FILE);
mkdirSync(dirname(file), { recursive: true });
writeFileSync(file, staticControlPlaneFile());
process.stderr.write(`wrote ${file}\n`);
