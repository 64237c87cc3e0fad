/**
 * Kamaji's DataStore rules, played from source (pure functions; the player, twin/kamaji/index.ts,
 * does the I/O): the DataStore controller's validation of the referenced Secrets, and the DataStore
 * the pinned kamaji-etcd chart renders (charts/kamaji-etcd, at the revision twin/kamaji-rules.ts records).
 * Sources: the pinned Kamaji, at the commit twin/kamaji-rules.ts records; every rule below names its file.
 */
import { TCP_API, type Obj } from '../kamaji-rules';

/** What the DataStore controller reads: Secrets by namespace and name, with their data keys. */
export type SecretLookup = (namespace: string, name: string) => Record<string, string> | undefined;

/**
 * Kamaji's DataStore controller (controllers/datastore_controller.go validateBasicAuth,
 * validateTLSConfig, validateContentReference): the condition `kamaji.clastix.io/DataStoreValidation`
 * and `status.ready`. Returns the reason it is not valid, or undefined when it is. Note Kamaji
 * checks that each referenced Secret exists (not its keys); the key is read when connecting
 * (internal/datastore/connection.go), which the twin checks too (`keyPath` present).
 */
export function validateDataStore(ds: Obj, secret: SecretLookup): { reason: string; message: string } | undefined {
  const spec = ds.spec ?? {};
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- an unstructured Kubernetes object read by path, as the controller reads it
  const ref = (r: any): string | undefined => {
    if (r?.content) return undefined;
    if (!r?.secretReference) return 'the Secret reference is mandatory when bare content is not specified';
    if (!r.secretReference.name) return 'the Secret reference name is mandatory';
    if (!r.secretReference.namespace) return 'the Secret reference namespace is mandatory';
    const data = secret(r.secretReference.namespace, r.secretReference.name);
    if (!data) return `secret ${r.secretReference.namespace}/${r.secretReference.name} is not found`;
    // internal/datastore/connection.go: the content under keyPath is what the connection uses.
    if (!data[r.secretReference.keyPath]) return `secret ${r.secretReference.namespace}/${r.secretReference.name} has no key ${r.secretReference.keyPath}`;
    return undefined;
  };
  if (!['etcd', 'MySQL', 'PostgreSQL', 'NATS'].includes(spec.driver)) return { reason: 'InvalidDriver', message: `unsupported driver ${spec.driver}` };
  if (!spec.endpoints?.length) return { reason: 'InvalidEndpoints', message: 'no endpoints' };
  if (spec.basicAuth) {
    const p = ref(spec.basicAuth.password);
    if (p) return { reason: 'BasicAuthValidationFailed', message: `basic-auth password is not valid, ${p}` };
    const u = ref(spec.basicAuth.username);
    if (u) return { reason: 'BasicAuthValidationFailed', message: `basic-auth username is not valid, ${u}` };
  }
  const tls = spec.tlsConfig;
  if (!tls && spec.driver !== 'etcd') return undefined;
  const fail = (message: string) => ({ reason: 'TLSConfigurationValidationFailed', message });
  // A nil TLSConfig with the etcd driver: upstream dereferences it and the reconcile panics; no status is written.
  if (!tls) return fail('the etcd driver needs spec.tlsConfig (Kamaji would fail this reconcile)');
  const ca = ref(tls.certificateAuthority?.certificate);
  if (ca) return fail(`CA certificate is not valid, ${ca}`);
  if (spec.driver === 'etcd') {
    if (!tls.certificateAuthority?.privateKey) return fail('CA private key is required when using the etcd driver');
    if (!tls.clientCertificate) return fail('client certificate is required when using the etcd driver');
  }
  if (tls.certificateAuthority?.privateKey) {
    const k = ref(tls.certificateAuthority.privateKey);
    if (k) return fail(`CA private key is not valid, ${k}`);
  }
  if (tls.clientCertificate) {
    const c = ref(tls.clientCertificate.certificate);
    if (c) return fail(`client certificate is not valid, ${c}`);
    const k = ref(tls.clientCertificate.privateKey);
    if (k) return fail(`client private key is not valid, ${k}`);
  }
  return undefined;
}

/**
 * The DataStore the kamaji-etcd chart 0.17.0 renders (templates/etcd_datastore.yaml with
 * `certManager.enabled`; names from templates/_helpers.tpl), from the release's values and namespace.
 * Undefined when `datastore.enabled` is false.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Helm chart values: free-form YAML read by path, as the chart reads it
export function kamajiEtcdDataStore(values: any, releaseName: string, namespace: string): Obj | undefined {
  if (!values?.datastore?.enabled) return undefined;
  const fullname = values.fullnameOverride || (releaseName.includes('kamaji-etcd') ? releaseName : `${releaseName}-kamaji-etcd`);
  if (!values.certManager?.enabled) throw new Error('kamaji-etcd without certManager: the lab twin plays the cert-manager layout only');
  const caName = values.certManager.ca?.nameOverride || `${fullname}-ca`;
  const clientName = values.certManager.clientCert?.nameOverride || `${fullname}-client-certs`;
  const replicas = Number(values.replicas ?? 3);
  const domain = values.clusterDomain ?? 'cluster.local';
  const port = Number(values.clientPort ?? 2379);
  const headless = values.datastore.headless === undefined || values.datastore.headless;
  const endpoints = headless
    ? Array.from({ length: replicas }, (_, i) => `${fullname}-${i}.${fullname}.${namespace}.svc.${domain}:${port}`)
    : [`${fullname}-client.${namespace}.svc.${domain}:${port}`];
  const secretRef = (name: string, keyPath: string) => ({ secretReference: { keyPath, name, namespace } });
  return {
    apiVersion: TCP_API,
    kind: 'DataStore',
    metadata: {
      name: values.datastore.name || fullname,
      ...(values.datastore.annotations ? { annotations: values.datastore.annotations } : {}),
    },
    spec: {
      driver: 'etcd',
      endpoints,
      tlsConfig: {
        certificateAuthority: { certificate: secretRef(caName, 'tls.crt'), privateKey: secretRef(caName, 'tls.key') },
        clientCertificate: { certificate: secretRef(clientName, 'tls.crt'), privateKey: secretRef(clientName, 'tls.key') },
      },
    },
  };
}
