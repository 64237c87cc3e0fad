/**
 * SIMULATED in the lab twin: Kamaji 26.8.2-edge and its Cluster API control-plane provider v0.20.0
 * (no container runtime for Kamaji's control-plane pods; the provider's module needs a Kamaji
 * pseudo-version the Go module proxy refuses). Their rules are played from their source
 * (kamaji-rules.ts and kamaji/*-rules.ts name each file), in the order the two reconcile:
 *
 * - the kamaji-etcd release (chart 0.17.0, the management stack's values): its DataStore and the
 *   CA and client certificate Secrets cert-manager would issue for it (played: no cert-manager);
 * - Kamaji's DataStore controller: `kamaji.clastix.io/DataStoreValidation` and `status.ready` from
 *   the referenced Secrets (driver, TLS, basic auth);
 * - the provider: the TenantControlPlane from each KamajiControlPlane and its Cluster, written only
 *   when Kamaji's admission webhooks admit it (defaulting on create, then validation: DataStore
 *   exists, Kubernetes version within KubeadmVersion, no downgrade or skipped minor, DNS service IPs,
 *   cert SANs, name); a refusal is the provider's `TenantControlPlaneCreated` condition, False, with
 *   the webhook's message, and nothing else happens;
 * - Kamaji's TenantControlPlane controller: nothing until the DataStore exists and is ready; then a
 *   REAL tenant kube-apiserver (kube-apiserver from the toolchain) stands in for the
 *   control-plane pods, its objects in the REAL shared datastore (datastore.ts: one etcd for every
 *   tenant, each under Kamaji's prefix `/<schema>`, the schema defaulting to the TCP's UID) when the
 *   TCP uses the kamaji-etcd release's DataStore (else an etcd of its own), and Kamaji's Secrets with Kamaji's layout (`<tcp>-ca`: `ca.crt`, `ca.key`,
 *   `tls.crt`, `tls.key`; `<tcp>-admin-kubeconfig`: `admin.conf`, `admin.svc`, `super-admin.conf`,
 *   `super-admin.svc`; labels kamaji.clastix.io/{project,name,component}, owned by the
 *   TenantControlPlane) and its status (storage, certificates, kubeconfig, endpoint once the
 *   LoadBalancer Service has its address, version Ready);
 * - the provider again: the endpoints (KamajiControlPlane, ProxmoxCluster), `initialized` once the
 *   Cluster's infrastructure is provisioned and the TenantControlPlane's version is Ready, the
 *   `<cluster>-kubeconfig` and `<cluster>-ca` Secrets of the CAPI contract (the CA copy is skipped
 *   when `<cluster>-ca` is Kamaji's own, as upstream), and the contract's status fields.
 *
 * CAPI, CABPK, CAPMOX and IPAM objects are only ever written by those controllers. Deviations,
 * stated: the admin kubeconfigs point at the tenant server on loopback (the VIP does not exist
 * here; MetalLB's real controller gives the LoadBalancer Service its address, metallb.ts); the
 * DataStore's finalizer is not added; the tenant's kube-apiserver, kube-scheduler and
 * kube-controller-manager are k8s.io/kubernetes at the pinned patch of the tenant version's minor
 * (toolchain.json `kubernetes`), so a tenant declaring another patch of that minor runs the pinned
 * one (twin --json's `controlPlaneVersion` is what its /version answers). The user's additions to the kube-apiserver container (issue 39): its
 * extra args after Kamaji's (less the flags Kamaji manages), its ConfigMap and Secret volumes as
 * files in a directory of the twin's (the kubelet's part; paths in the args pointed there), the
 * Deployment with them dry-run on the management API server; other volume sources, subPath and
 * additional containers are refused, and changed args after start are reported, not rolled.
 */
import type { KubeObject } from '../../scripts/lib/kube-apiserver';
import { rmSync } from 'node:fs';
import { kamajiEtcdDataStore, validateDataStore } from './datastore-rules';
import { KCP_API, TCP_API } from '../kamaji-rules';
import { selfSignedPair } from '../pki';
import { TwinDatastore } from '../datastore';
import { etcdRequest, prefixEnd } from '../../scripts/lib/etcd';
import { now, type KamajiReleases } from './base';
import { KamajiProvider } from './provider';

export type { KamajiReleases, TenantControlPlaneView } from './base';

export class KamajiPlayer extends KamajiProvider {
  /** What the control plane of a tenant namespace waits for, if anything. */
  waitingIn(namespace: string): string | undefined {
    return [...this.waiting].find(([key]) => key.startsWith(`${namespace}/`))?.[1];
  }

  /** One reconcile pass: the played kamaji-etcd release, the DataStores, every KamajiControlPlane. */
  async tick(): Promise<void> {
    const releases = this.releases();
    this.memo.clear();
    await this.installKamajiEtcd(releases);
    await this.reconcileDataStores();
    const kcps = await this.memo.list(`/apis/${KCP_API}/kamajicontrolplanes`);
    const seen = new Set<string>();
    for (const kcp of kcps) {
      const key = `${kcp.metadata.namespace}/${kcp.metadata.name}`;
      seen.add(key);
      try {
        const reason = await this.reconcile(key, kcp, releases);
        if (reason) this.waiting.set(key, reason);
        else this.waiting.delete(key);
      } catch (e) {
        this.waiting.set(key, (e as Error).message);
        this.log(`kamaji ${key}: ${(e as Error).message}`);
      }
      const view = this.planes.get(key);
      if (view) view.waiting = this.waiting.get(key);
    }
    for (const key of [...this.waiting.keys()]) if (!seen.has(key)) this.waiting.delete(key);
    for (const [key, view] of this.planes) {
      if (seen.has(key)) continue;
      // The KamajiControlPlane is gone: its control plane goes with it (Kamaji deletes the TCP's pods).
      await view.controllerManager?.stop();
      const rolling = this.rolling.get(key);
      if (rolling) this.discard(rolling);
      this.rolling.delete(key);
      this.pods.delete(key);
      await view.server.stop();
      if (view.volumesDir) rmSync(view.volumesDir, { recursive: true, force: true });
      // Kamaji's DataStore cleanup (internal/datastore/etcd.go DeleteDB): the tenant's keys go.
      if (view.schema && this.datastore) {
        const prefix = `/${view.schema}/`;
        const b64 = (t: string) => Buffer.from(t, 'latin1').toString('base64');
        await etcdRequest(this.datastore.url, this.datastore.tlsMaterial(), '/v3/kv/deleterange', { key: b64(prefix), range_end: b64(prefixEnd(prefix)) });
      }
      this.planes.delete(key);
      this.log(`kamaji ${key}: control plane stopped`);
    }
  }

  /**
   * The kamaji-etcd release as helm would install it, once: its DataStore (the chart's template)
   * and the two Secrets the DataStore names, as cert-manager would issue them from the chart's
   * Certificates (an ECDSA P-256 CA `<etcd>-ca`; a client certificate `<etcd>-client-certs`, CN
   * root, O system:masters, signed by it).
   */
  private async installKamajiEtcd(releases: KamajiReleases): Promise<void> {
    if (this.etcdInstalled) return;
    const { name, namespace, values } = releases.kamajiEtcd;
    const ds = kamajiEtcdDataStore(values, name, namespace);
    if (ds) {
      const tls = ds.spec.tlsConfig;
      const ca = selfSignedPair(tls.certificateAuthority.certificate.secretReference.name, true);
      const client = selfSignedPair('root', false, ca);
      for (const [secretName, pair] of [
        [tls.certificateAuthority.certificate.secretReference.name, ca],
        [tls.clientCertificate.certificate.secretReference.name, client],
      ] as const) {
        const data: Record<string, Buffer> = { 'tls.crt': Buffer.from(pair.cert), 'tls.key': Buffer.from(pair.key), 'ca.crt': Buffer.from(ca.cert) };
        await this.secret(
          { name: secretName, namespace, labels: { 'kamaji-etcd.clastix.io/etcd': values.fullnameOverride ?? name } },
          data,
          'kubernetes.io/tls',
          'cert-manager',
        );
      }
      // The release's StatefulSet: one real etcd serving the DataStore's endpoints.
      const fullname = (values.fullnameOverride as string | undefined) ?? name;
      const hosts = [...(ds.spec.endpoints as string[]).map((e) => e.replace(/:\d+$/, '')), `${fullname}-client.${namespace}.svc`];
      this.datastore = await TwinDatastore.start(ca, client, hosts);
      this.datastoreName = ds.metadata.name;
      this.log(`kamaji-etcd: datastore etcd at ${this.datastore.url}`);
      await this.mgmt.applyOrThrow(
        {
          ...ds,
          metadata: { ...ds.metadata, labels: { 'app.kubernetes.io/instance': name, 'app.kubernetes.io/managed-by': 'Helm' } },
        } as unknown as KubeObject,
        { fieldManager: 'helm', force: true },
      );
      this.log(`kamaji-etcd: DataStore ${ds.metadata.name} (${ds.spec.endpoints.length} endpoints)`);
    }
    this.etcdInstalled = true;
  }

  /** Kamaji's DataStore controller: validation condition, ready, usedBy. */
  private async reconcileDataStores(): Promise<void> {
    const dataStores = await this.memo.list(`/apis/${TCP_API}/datastores`);
    const tcps = await this.memo.list(`/apis/${TCP_API}/tenantcontrolplanes`);
    const secrets = new Map<string, Record<string, string> | undefined>();
    for (const ds of dataStores) {
      const refs = JSON.stringify(ds.spec ?? {}).match(/"name":"[^"]+","namespace":"[^"]+"/g) ?? [];
      for (const ref of refs) {
        const { name, namespace } = JSON.parse(`{${ref}}`) as { name: string; namespace: string };
        if (secrets.has(`${namespace}/${name}`)) continue;
        const s = await this.memo.get(`/api/v1/namespaces/${namespace}/secrets/${name}`);
        secrets.set(`${namespace}/${name}`, s ? ((s.data ?? {}) as Record<string, string>) : undefined);
      }
      const invalid = validateDataStore(ds, (namespace, name) => secrets.get(`${namespace}/${name}`));
      const usedBy = tcps
        .filter((t) => t.status?.storage?.dataStoreName === ds.metadata.name)
        .map((t) => `${t.metadata.namespace}/${t.metadata.name}`)
        .sort();
      const previous = ((ds.status?.conditions ?? []) as { type: string; status: string; lastTransitionTime: string }[]).find(
        (c) => c.type === 'kamaji.clastix.io/DataStoreValidation',
      );
      const status = invalid ? 'False' : 'True';
      const condition = {
        type: 'kamaji.clastix.io/DataStoreValidation',
        status,
        observedGeneration: ds.metadata.generation as number,
        reason: invalid ? invalid.reason : 'DataStoreIsValid',
        message: invalid ? invalid.message : '',
        lastTransitionTime: previous?.status === status ? previous.lastTransitionTime : now(),
      };
      const ready = !invalid;
      if (ds.status?.ready === ready && previous?.status === status && JSON.stringify(ds.status?.usedBy ?? []) === JSON.stringify(usedBy)) continue;
      await this.status(`/apis/${TCP_API}/datastores/${ds.metadata.name}`, {
        apiVersion: TCP_API,
        kind: 'DataStore',
        metadata: { name: ds.metadata.name },
        status: { observedGeneration: ds.metadata.generation, ...(usedBy.length ? { usedBy } : {}), conditions: [condition], ready },
      });
      if (invalid) this.log(`kamaji: DataStore ${ds.metadata.name} not valid: ${invalid.message}`);
    }
  }

  async stop(): Promise<void> {
    const pending = [...this.starting.values()];
    this.starting.clear();
    for (const p of pending)
      await p.then(
        (s) => s.stop(),
        () => undefined,
      );
    await Promise.all(
      [...this.rolling.values()].map((r) =>
        r.started.then(
          (s) => s.stop(),
          () => undefined,
        ),
      ),
    );
    this.rolling.clear();
    for (const view of this.planes.values()) {
      await view.controllerManager?.stop();
      await view.server.stop();
      if (view.volumesDir) rmSync(view.volumesDir, { recursive: true, force: true });
    }
    this.planes.clear();
    for (const dir of this.startingVolumes.values()) rmSync(dir, { recursive: true, force: true });
    await this.datastore?.destroy();
  }
}
