/**
 * The kamaji-etcd datastore's storage: which StorageClass its volumes use, and the day-two rule
 * that keeps it (docs/management.md, "Datastore storage").
 *
 * **Class.** `datastore.storageClass` when set; unset, `pvekaas-local-path` with `csi: local-path`
 * (not the chart's `local-path`, which k3s already creates with `reclaimPolicy: Delete` as the
 * default class: the chart would fail to take it over) and `openebs-hostpath` otherwise (as before
 * local-path existed, so a lab deployed then renders the same bytes).
 *
 * **Memory.** kamaji-etcd's StatefulSet carries the class in its volumeClaimTemplates, a field
 * Kubernetes refuses to change (k8s.io/kubernetes v1.36.3 pkg/apis/apps/validation/validation.go,
 * `ValidateStatefulSetUpdate`: "updates to statefulset spec for fields other than 'replicas',
 * 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit',
 * 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"), so the next `helm upgrade` of a deployed datastore with another
 * class fails half-way; and another CSI would replace the provisioner the bound volumes belong to.
 * The last synth into the output (its management stack) remembers both; synth refuses a change.
 * Pure: no cdktf, no I/O (scripts/lib/datastore-memory.ts reads the output).
 */
import { parse } from 'yaml';
import type { Problem } from '../config/problems';
import type { Management } from '../config/schema';
import { releaseNames } from '../versions/layout';

/** The class pvekaas's local-path-provisioner release creates when `datastore.storageClass` is unset. */
export const LOCAL_PATH_STORAGE_CLASS = 'pvekaas-local-path';
/** The class OpenEBS LocalPV (and `existing`) defaults to. */
export const OPENEBS_STORAGE_CLASS = 'openebs-hostpath';
/** Where local-path-provisioner keeps the volumes on every management node (its chart's `nodePathMap`). */
export const LOCAL_PATH_NODE_PATH = '/var/lib/pvekaas/local-path';

type Datastore = Pick<Management['datastore'], 'csi' | 'storageClass'>;

/** The StorageClass of the datastore's volumes. */
export function datastoreStorageClass(datastore: Datastore): string {
  return datastore.storageClass ?? (datastore.csi === 'local-path' ? LOCAL_PATH_STORAGE_CLASS : OPENEBS_STORAGE_CLASS);
}

/** What the last synth deployed the datastore with. */
export interface DatastoreMemory {
  readonly csi: Management['datastore']['csi'];
  readonly storageClass: string;
}

/**
 * The memory a management stack (its cdk.tf.json, parsed) leaves: kamaji-etcd's
 * `persistentVolumeClaim.storageClassName` and which CSI release it holds (none: `existing`).
 * Undefined for a stack without a kamaji-etcd release pvekaas wrote.
 */
export function datastoreMemoryOfStack(stack: unknown): DatastoreMemory | undefined {
  const releases = (stack as { resource?: { helm_release?: Record<string, { name?: unknown; values?: unknown }> } } | null)?.resource?.helm_release;
  if (typeof releases !== 'object' || releases === null) return undefined;
  const byName = new Map(Object.values(releases).map((r) => [r?.name, r]));
  const etcd = byName.get(releaseNames.kamajiEtcd);
  const text = Array.isArray(etcd?.values) ? etcd.values[0] : undefined;
  if (typeof text !== 'string') return undefined;
  let storageClass: unknown;
  try {
    storageClass = (parse(text) as { persistentVolumeClaim?: { storageClassName?: unknown } } | null)?.persistentVolumeClaim?.storageClassName;
  } catch {
    return undefined;
  }
  if (typeof storageClass !== 'string') return undefined;
  const csi = byName.has(releaseNames.localPathProvisioner) ? 'local-path' : byName.has(releaseNames.localpvProvisioner) ? 'openebs-localpv' : 'existing';
  return { csi, storageClass };
}

/** The datastore's storage changed from what the last synth deployed: refused (`datastore.memory-changed`). */
export function datastoreMemoryProblems(management: Pick<Management, 'datastore'>, memory: DatastoreMemory | undefined): Problem[] {
  if (memory === undefined) return [];
  const d = management.datastore;
  const now: DatastoreMemory = { csi: d.csi, storageClass: datastoreStorageClass(d) };
  const problems: Problem[] = [];
  const keep = `csi: ${memory.csi}, storageClass: ${memory.storageClass}`;
  const why =
    "kamaji-etcd's StatefulSet keeps its volumeClaimTemplates for life (Kubernetes refuses the update) and its bound volumes belong to the provisioner that made them";
  if (now.csi !== memory.csi)
    problems.push({
      path: ['management', 'datastore', 'csi'],
      message: `the datastore was deployed with csi ${memory.csi} (the last synth into this output); ${now.csi} would replace its provisioner under the running etcd: ${why}`,
      value: d.csi,
      fix: `keep ${keep} in management.datastore; to move the datastore, back it up, deploy a new one and restore it (docs/management.md, "Datastore storage")`,
      rule: 'datastore.memory-changed',
    });
  if (now.storageClass !== memory.storageClass)
    problems.push({
      path: ['management', 'datastore', 'storageClass'],
      message: `the datastore's volumes use StorageClass ${memory.storageClass} (the last synth into this output); ${now.storageClass} would fail at helm upgrade: ${why}`,
      value: now.storageClass,
      fix: `set storageClass: ${memory.storageClass}${d.storageClass === undefined ? ' (the default changed with csi)' : ''}; to move the datastore, back it up, deploy a new one and restore it`,
      rule: 'datastore.memory-changed',
    });
  return problems;
}
