/**
 * SIMULATED in the lab twin: the secondary-clusters Secret mirror (a CronJob in each tenant
 * namespace, modules/tenants/secondary-mirror.ts). The twin has no container runtime, so this
 * player does what one run of the mirror's script does: for each secondary Cluster (a Cluster whose
 * control plane is pvekaas's StaticControlPlane), it writes `<secondary>-ca` (the primary's CA
 * certificate and key) and `<secondary>-kubeconfig` (the primary's kubeconfig), as the exact objects
 * `mirroredSecret` renders — the same objects the script prints — and only where the tenant stack
 * put the mirror's CronJob; and, like the script's last lines, it copies the primary
 * KamajiControlPlane's status.version onto each secondary's StaticControlPlane.
 */
import { MIRROR_NAME, controlPlaneStatusPatch, mirroredSecret } from '../../modules/tenants/secondary-mirror';
import type { KubeClient, KubeObject } from '../lib/kube-apiserver';

export class MirrorPlayer {
  constructor(private readonly mgmt: KubeClient) {}

  async tick(): Promise<void> {
    const jobs = await this.mgmt.get('/apis/batch/v1/cronjobs');
    if (jobs.status !== 200) return;
    for (const job of jobs.body.items as KubeObject[]) {
      if (job.metadata.name !== MIRROR_NAME) continue;
      const ns = job.metadata.namespace as string;
      const clusters = (await this.mgmt.get(`/apis/cluster.x-k8s.io/v1beta2/namespaces/${ns}/clusters`)).body.items as any[];
      const primary = clusters.find((c) => c.spec?.controlPlaneRef?.kind === 'KamajiControlPlane');
      if (!primary) continue;
      const ca = await this.mgmt.get(`/api/v1/namespaces/${ns}/secrets/${primary.metadata.name}-ca`);
      const kc = await this.mgmt.get(`/api/v1/namespaces/${ns}/secrets/${primary.metadata.name}-kubeconfig`);
      if (ca.status !== 200 || kc.status !== 200 || !ca.body.data?.['tls.crt'] || !ca.body.data?.['tls.key'] || !kc.body.data?.value) continue;
      for (const secondary of clusters.filter((c) => c.spec?.controlPlaneRef?.kind === 'StaticControlPlane' && !c.metadata.deletionTimestamp)) {
        const name = secondary.metadata.name as string;
        const tenant = { name: (primary.metadata.labels?.['pvekaas.lab/tenant'] as string | undefined) ?? ns };
        for (const [secretName, data] of [
          [`${name}-ca`, { 'tls.crt': ca.body.data['tls.crt'], 'tls.key': ca.body.data['tls.key'] }],
          [`${name}-kubeconfig`, { value: kc.body.data.value }],
        ] as const) {
          const object = mirroredSecret({ tenant, secondary: name, name: secretName, data, clusterUid: secondary.metadata.uid }) as KubeObject;
          await this.mgmt.applyOrThrow(object, { fieldManager: MIRROR_NAME, force: true });
        }
      }
      // The script's last lines: the primary KamajiControlPlane's status.version onto each StaticControlPlane.
      const kcpName = primary.spec?.controlPlaneRef?.name;
      const kcp = kcpName ? await this.mgmt.get(`/apis/controlplane.cluster.x-k8s.io/v1alpha2/namespaces/${ns}/kamajicontrolplanes/${kcpName}`) : undefined;
      const version = kcp?.status === 200 ? (kcp.body.status?.version as string | undefined) : undefined;
      if (!version) continue;
      for (const secondary of clusters.filter((c) => c.spec?.controlPlaneRef?.kind === 'StaticControlPlane' && !c.metadata.deletionTimestamp)) {
        const path = `/apis/controlplane.pvekaas.lab/v1alpha1/namespaces/${ns}/staticcontrolplanes/${secondary.spec.controlPlaneRef.name}`;
        const current = await this.mgmt.get(path);
        if (current.status !== 200 || current.body.status?.version === version) continue;
        const r = await this.mgmt.request('PATCH', `${path}?fieldManager=${MIRROR_NAME}`, controlPlaneStatusPatch(version), 'application/merge-patch+json');
        if (r.status !== 200) throw new Error(`mirror: StaticControlPlane ${ns}/${secondary.spec.controlPlaneRef.name} status.version: HTTP ${r.status}`);
      }
    }
  }
}
