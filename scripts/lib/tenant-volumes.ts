/**
 * The step before a tenant's destroy when it has volumes (docs/storage.md, "Deleting a tenant"):
 * `tofu destroy` of the tenant stack removes the Proxmox CSI controller with the rest, so what is
 * still bound at that moment would stay on the tenant's storage. Before it, while the controller
 * still runs, this deletes the tenant cluster's claims whose PersistentVolume's reclaim policy is
 * `Delete` and waits until those PVs are gone (the controller deleted the disks); PVs of `Retain`
 * are left alone and listed (volume id, storage, Proxmox node) so an administrator can find them.
 *
 * What makes the PVs go, in the tenant cluster (Kubernetes' own rules): a claim in use by a Pod
 * keeps its `kubernetes.io/pvc-protection` finalizer until no Pod uses it (pkg/controller/volume/
 * pvcprotection), so the Pods mounting those claims are deleted too (with no grace period: the
 * tenant's VMs go next; the attach-detach controller still detaches only once the kubelet reports
 * the volume unmounted, `volumesInUse`). A StatefulSet that owns such a Pod is deleted first
 * (orphaning its Pods, which are deleted next): its controller would otherwise recreate the Pod and,
 * once the claim is gone, the claim from its volumeClaimTemplates (pkg/controller/statefulset
 * stateful_pod_control.go createMissingPersistentVolumeClaims) — a new volume the destroy leaves. The claim gone, the PV controller marks the PV Released and
 * csi-provisioner calls DeleteVolume for a `Delete` PV, then deletes the PV.
 */
import type { KubeClient } from './kube-apiserver';

/** The Proxmox CSI plugin's driver name (its CSIDriver, modules/tenants/storage.ts). */
export const PROXMOX_CSI_DRIVER = 'csi.proxmox.sinextra.dev';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kubernetes objects read by path
type Obj = any;

export interface RetainedVolume {
  pv: string;
  /** The claim it was bound to (`namespace/name`), if any. */
  claim?: string;
  /** The Proxmox volume id (`<storage>:<disk>`), its storage, node and instance, from the volume handle. */
  volid: string;
  storage: string;
  node: string;
  instance: string;
}

export interface VolumeRelease {
  /** Claims to delete (`namespace/name`), each bound to a `Delete` PV of the driver. */
  claims: { namespace: string; name: string; pv: string }[];
  /** Pods that use those claims (`namespace/name`). */
  pods: { namespace: string; name: string }[];
  /** The StatefulSets that own those Pods (they would recreate the Pods and the claims). */
  statefulSets: { namespace: string; name: string }[];
  retained: RetainedVolume[];
}

/**
 * What to do, from the tenant cluster's PVs, claims and Pods: only PVs of the Proxmox CSI driver
 * count; the policy is the PV's own (`persistentVolumeReclaimPolicy`, what csi-provisioner acts on),
 * not the lab's class. Sorted by name.
 */
export function planVolumeRelease(pvs: readonly Obj[], pvcs: readonly Obj[], pods: readonly Obj[]): VolumeRelease {
  const claims: VolumeRelease['claims'] = [];
  const retained: RetainedVolume[] = [];
  const claimKeys = new Set(pvcs.map((c) => `${c.metadata.namespace}/${c.metadata.name}`));
  for (const pv of pvs) {
    if (pv.spec?.csi?.driver !== PROXMOX_CSI_DRIVER) continue;
    const ref = pv.spec.claimRef;
    const claim = ref ? `${ref.namespace}/${ref.name}` : undefined;
    if ((pv.spec.persistentVolumeReclaimPolicy ?? 'Delete') === 'Delete') {
      if (ref && claimKeys.has(claim!)) claims.push({ namespace: ref.namespace, name: ref.name, pv: pv.metadata.name });
      continue;
    }
    // pkg/utils/volume/volume.go VolumeID: `region/zone/storage/disk`.
    const [instance, node, storage, ...disk] = String(pv.spec.csi.volumeHandle).split('/');
    retained.push({ pv: pv.metadata.name, claim, volid: `${storage}:${disk.join('/')}`, storage, node, instance });
  }
  const deleting = new Set(claims.map((c) => `${c.namespace}/${c.name}`));
  const users = pods
    .filter((p) => !['Succeeded', 'Failed'].includes(p.status?.phase))
    .filter((p) =>
      (p.spec?.volumes ?? []).some((v: Obj) => v.persistentVolumeClaim && deleting.has(`${p.metadata.namespace}/${v.persistentVolumeClaim.claimName}`)),
    );
  const sets = new Map<string, { namespace: string; name: string }>();
  for (const p of users) {
    const owner = ((p.metadata.ownerReferences ?? []) as Obj[]).find(
      (o) => o.controller && o.kind === 'StatefulSet' && String(o.apiVersion).startsWith('apps/'),
    );
    if (owner) sets.set(`${p.metadata.namespace}/${owner.name}`, { namespace: p.metadata.namespace, name: owner.name });
  }
  const byKey = <T extends { namespace?: string; name?: string; pv?: string }>(a: T, b: T) =>
    `${a.namespace ?? ''}/${a.name ?? a.pv}`.localeCompare(`${b.namespace ?? ''}/${b.name ?? b.pv}`);
  return {
    claims: claims.sort(byKey),
    pods: users.map((p) => ({ namespace: p.metadata.namespace as string, name: p.metadata.name as string })).sort(byKey),
    statefulSets: [...sets.values()].sort(byKey),
    retained: retained.sort((a, b) => a.pv.localeCompare(b.pv)),
  };
}

/** The listing of the kept volumes, one line each (what the step prints). */
export function retainedLines(tenant: string, retained: readonly RetainedVolume[]): string[] {
  if (retained.length === 0) return [`tenant ${tenant}: no Retain volumes: nothing stays on its storages`];
  return [
    `tenant ${tenant}: ${retained.length} Retain volume(s) stay on Proxmox (delete them there when no longer needed):`,
    ...retained.map((r) => `  ${r.volid} on storage ${r.storage}, node ${r.node} (${r.instance}); PV ${r.pv}${r.claim ? `, claim ${r.claim}` : ''}`),
  ];
}

async function list(client: KubeClient, path: string): Promise<Obj[]> {
  const r = await client.get(path);
  if (r.status !== 200) throw new Error(`GET ${path}: HTTP ${r.status} (${r.body?.message ?? r.text})`);
  return r.body.items as Obj[];
}

/**
 * Runs the step against the tenant API server: deletes the `Delete` claims and the Pods using
 * them, then waits (up to `timeoutMs`) until their PVs are gone. Fails naming what is left (the
 * destroy must not run then: its disks would stay). Returns what it did and what stays.
 */
export async function releaseTenantVolumes(
  client: KubeClient,
  tenant: string,
  options: { timeoutMs?: number; pollMs?: number; log?: (line: string) => void } = {},
): Promise<VolumeRelease> {
  const log = options.log ?? (() => {});
  const plan = planVolumeRelease(
    await list(client, '/api/v1/persistentvolumes'),
    await list(client, '/api/v1/persistentvolumeclaims'),
    await list(client, '/api/v1/pods'),
  );
  for (const set of plan.statefulSets) {
    const r = await client.request('DELETE', `/apis/apps/v1/namespaces/${encodeURIComponent(set.namespace)}/statefulsets/${encodeURIComponent(set.name)}`, {
      apiVersion: 'v1',
      kind: 'DeleteOptions',
      propagationPolicy: 'Orphan',
    });
    if (r.status !== 200 && r.status !== 202 && r.status !== 404)
      throw new Error(`deleting statefulset ${set.namespace}/${set.name}: HTTP ${r.status} (${r.body?.message ?? r.text})`);
    log(`tenant ${tenant}: deleted statefulset ${set.namespace}/${set.name} (its Pods use claims being deleted; it would recreate them)`);
  }
  for (const c of plan.claims) {
    const r = await client.request('DELETE', `/api/v1/namespaces/${encodeURIComponent(c.namespace)}/persistentvolumeclaims/${encodeURIComponent(c.name)}`);
    if (r.status !== 200 && r.status !== 202 && r.status !== 404)
      throw new Error(`deleting claim ${c.namespace}/${c.name}: HTTP ${r.status} (${r.body?.message ?? r.text})`);
    log(`tenant ${tenant}: deleted claim ${c.namespace}/${c.name} (PV ${c.pv}, reclaim policy Delete)`);
  }
  for (const p of plan.pods) {
    const r = await client.request('DELETE', `/api/v1/namespaces/${encodeURIComponent(p.namespace)}/pods/${encodeURIComponent(p.name)}?gracePeriodSeconds=0`);
    if (r.status !== 200 && r.status !== 202 && r.status !== 404)
      throw new Error(`deleting pod ${p.namespace}/${p.name}: HTTP ${r.status} (${r.body?.message ?? r.text})`);
    log(`tenant ${tenant}: deleted pod ${p.namespace}/${p.name} (it used a claim being deleted)`);
  }
  const waiting = new Set(plan.claims.map((c) => c.pv));
  const end = Date.now() + (options.timeoutMs ?? 10 * 60 * 1000);
  while (waiting.size > 0) {
    const names = new Set((await list(client, '/api/v1/persistentvolumes')).map((pv) => pv.metadata.name as string));
    for (const pv of [...waiting]) if (!names.has(pv)) waiting.delete(pv);
    if (waiting.size === 0) break;
    if (Date.now() > end)
      throw new Error(
        `tenant ${tenant}: PVs still there after deleting their claims: ${[...waiting].sort().join(', ')}; ` +
          'the CSI controller in the management cluster deletes their disks: check its logs, and do not destroy the tenant before they are gone',
      );
    await new Promise((r) => setTimeout(r, options.pollMs ?? 1000));
  }
  if (plan.claims.length > 0) log(`tenant ${tenant}: ${plan.claims.length} Delete volume(s) deleted with their claims`);
  for (const line of retainedLines(tenant, plan.retained)) log(line);
  return plan;
}
