/**
 * The VIP memory of a synth output (modules/tenants/vip.ts, "Memory"): what the last synth into
 * `out` gave each tenant. Its `placement.json` records it (`vips`, written by synth since issue 41);
 * for an output written before that, the `controlPlaneVIP` variable of each tenant stack's Cluster
 * (the address its control plane was deployed with). No output: an empty memory.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { topologyClustersOfStack } from '../../modules/tenants/replaced';
import { vipMemoryOfPlacementJson } from '../../modules/tenants/vip';

export function vipMemoryOfOutput(out: string): Map<string, string> {
  const dir = resolve(out);
  const placement = join(dir, 'placement.json');
  if (existsSync(placement)) {
    try {
      const memory = vipMemoryOfPlacementJson(JSON.parse(readFileSync(placement, 'utf8')));
      if (memory) return memory;
    } catch {
      // Not a plan pvekaas wrote: the stacks below are what is left to read.
    }
  }
  const memory = new Map<string, string>();
  const stacks = join(dir, 'stacks');
  if (!existsSync(stacks)) return memory;
  for (const stack of readdirSync(stacks).sort()) {
    if (!stack.startsWith('tenant-')) continue;
    const file = join(stacks, stack, 'cdk.tf.json');
    if (!existsSync(file)) continue;
    try {
      for (const cluster of topologyClustersOfStack(JSON.parse(readFileSync(file, 'utf8')))) {
        const variables = (cluster as { spec: { topology: { variables?: { name: string; value: unknown }[] } } }).spec.topology.variables ?? [];
        const vip = variables.find((v) => v.name === 'controlPlaneVIP')?.value;
        if (typeof vip === 'string' && !memory.has(stack.slice('tenant-'.length))) memory.set(stack.slice('tenant-'.length), vip);
      }
    } catch {
      // Not a stack pvekaas wrote: nothing to remember.
    }
  }
  return memory;
}
