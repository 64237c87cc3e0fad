/**
 * The datastore memory of a synth output (modules/management/datastore.ts, "Memory"): the CSI and
 * StorageClass the last synth into `out` gave kamaji-etcd, read from its management stack. No
 * output, or no management stack pvekaas wrote: no memory.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { datastoreMemoryOfStack, type DatastoreMemory } from '../../modules/management/datastore';

export function datastoreMemoryOfOutput(out: string): DatastoreMemory | undefined {
  const file = join(resolve(out), 'stacks', 'management', 'cdk.tf.json');
  if (!existsSync(file)) return undefined;
  try {
    return datastoreMemoryOfStack(JSON.parse(readFileSync(file, 'utf8')));
  } catch {
    // Not a stack pvekaas wrote: nothing to remember.
    return undefined;
  }
}
