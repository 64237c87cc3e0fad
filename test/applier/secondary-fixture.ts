/**
 * The secondary MachineDeployments of the MultiInstance test lab as pvekaas synthesizes them
 * (manifest and resource configuration from the tenant stack's cdk.tf.json), with an autoscaled
 * pool on a secondary instance added (its `computed_fields`).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import { synthesizeLab } from '../../scripts/lib/synthesize';

const root = resolve(__dirname, '../..');

export interface RenderedResource {
  address: string;
  manifest: Record<string, any>;
  config: Record<string, any>;
}

/** The lab of test/twin/fixtures/three-instances.yaml plus pool `burst` autoscaled 1..2 on pve-b. */
export function autoscaledSecondaryLab(): string {
  const doc = parseDocument(readFileSync(join(root, 'test/twin/fixtures/three-instances.yaml'), 'utf8'));
  doc.addIn(['tenants', 0, 'pools'], { name: 'burst', instance: 'pve-b', autoscaling: { min: 1, max: 2 }, size: { cpu: 2, memoryMiB: 4096, diskGiB: 20 } });
  return doc.toString();
}

/** Every kubernetes_manifest of a synthesized tenant stack whose kind is `kind`. */
export function renderedManifests(labText: string, tenant: string, kind: string): RenderedResource[] {
  const dir = mkdtempSync(join(tmpdir(), 'pvekaas-applier-'));
  try {
    const config = join(dir, 'lab.yaml');
    writeFileSync(config, labText);
    process.env.CHECKPOINT_DISABLE = '1';
    synthesizeLab({ config, out: join(dir, 'out') });
    const stack = JSON.parse(readFileSync(join(dir, 'out/stacks', `tenant-${tenant}`, 'cdk.tf.json'), 'utf8'));
    return Object.entries((stack.resource?.kubernetes_manifest ?? {}) as Record<string, any>)
      .filter(([, r]) => r.manifest.kind === kind)
      .map(([name, r]) => {
        const { manifest, ...rest } = r;
        return { address: `kubernetes_manifest.${name}`, manifest, config: rest };
      });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
