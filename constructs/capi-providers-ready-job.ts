/**
 * Waits, inside the management cluster, until the CAPI operator has installed every provider at
 * its pinned version. The operator installs providers asynchronously after its Helm release
 * completes, but the next stack (management-config) plans custom resources — the ClusterClass and
 * its templates — whose CRDs only exist once the providers are installed. This Job makes the
 * management stack's apply finish only then.
 *
 * One `kubectl wait --for=jsonpath={.status.installedVersion}=<version>` container per provider;
 * the Job's name carries a hash of the pinned versions, so a version change replaces it and the
 * wait runs again for the upgrade.
 */
import { createHash } from 'node:crypto';
import type { ITerraformDependable } from 'cdktf';
import { Construct } from 'constructs';
import { ClusterRoleBindingV1 } from '@cdktf/provider-kubernetes/lib/cluster-role-binding-v1';
import { ClusterRoleV1 } from '@cdktf/provider-kubernetes/lib/cluster-role-v1';
import type { KubernetesProvider } from '@cdktf/provider-kubernetes/lib/provider';
import { ServiceAccountV1 } from '@cdktf/provider-kubernetes/lib/service-account-v1';
// Types only (erased at compile): the binding checks the config, its 5 MB of classes never load.
import type { JobV1Config } from '@cdktf/provider-kubernetes/lib/job-v1';
import { LeanKubernetesResource, type LeanConfig } from './lean-kubernetes-resource';

/** One provider to wait for. */
export interface AwaitedProvider {
  /** Plural resource of the operator CRD, e.g. `coreproviders`. */
  readonly resource: string;
  readonly name: string;
  readonly namespace: string;
  readonly version: string;
}

export interface CapiProvidersReadyJobProps {
  readonly provider: KubernetesProvider;
  /** Where the Job and its ServiceAccount run. */
  readonly namespace: string;
  readonly providers: readonly AwaitedProvider[];
  /** kubectl image reference (mirrored when the lab has an image mirror). */
  readonly kubectlImage: string;
  /**
   * How long to wait for all providers.
   * @default 20 minutes
   */
  readonly timeoutMinutes?: number;
  /** @default none */
  readonly dependsOn?: ITerraformDependable[];
}

const NAME = 'pvekaas-capi-providers-ready';

export class CapiProvidersReadyJob extends Construct {
  readonly jobName: string;

  constructor(scope: Construct, id: string, props: CapiProvidersReadyJobProps) {
    super(scope, id);
    const minutes = props.timeoutMinutes ?? 20;
    const providers = [...props.providers].sort((a, b) => a.resource.localeCompare(b.resource) || a.name.localeCompare(b.name));
    const fingerprint = createHash('sha256')
      .update(JSON.stringify({ providers, image: props.kubectlImage }))
      .digest('hex')
      .slice(0, 8);
    this.jobName = `${NAME}-${fingerprint}`;

    const labels = { 'app.kubernetes.io/name': NAME, 'app.kubernetes.io/managed-by': 'pvekaas' };
    const account = new ServiceAccountV1(this, 'service-account', {
      provider: props.provider,
      metadata: { name: NAME, namespace: props.namespace, labels },
      dependsOn: props.dependsOn,
    });
    const role = new ClusterRoleV1(this, 'cluster-role', {
      provider: props.provider,
      metadata: { name: NAME, labels },
      rule: [
        {
          apiGroups: ['operator.cluster.x-k8s.io'],
          resources: [...new Set(providers.map((p) => p.resource))].sort(),
          verbs: ['get', 'list', 'watch'],
        },
      ],
    });
    const binding = new ClusterRoleBindingV1(this, 'cluster-role-binding', {
      provider: props.provider,
      metadata: { name: NAME, labels },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role.metadata.name },
      subject: [{ kind: 'ServiceAccount', name: account.metadata.name, namespace: props.namespace }],
    });
    // kubernetes_job_v1 without its 5 MB binding, the same JSON (lean-kubernetes-resource.ts).
    new LeanKubernetesResource(this, 'job', 'kubernetes_job_v1', {
      provider: props.provider,
      dependsOn: [binding, ...(props.dependsOn ?? [])],
      config: {
        metadata: { name: this.jobName, namespace: props.namespace, labels },
        spec: {
          backoffLimit: 2,
          activeDeadlineSeconds: minutes * 60,
          template: {
            metadata: { labels },
            spec: {
              serviceAccountName: account.metadata.name,
              restartPolicy: 'Never',
              securityContext: { runAsNonRoot: true, runAsUser: '65532', seccompProfile: { type: 'RuntimeDefault' } },
              container: providers.map((p) => ({
                name: `${p.resource.replace(/providers$/, '')}-${p.name}`.slice(0, 63),
                image: props.kubectlImage,
                imagePullPolicy: 'IfNotPresent',
                command: ['/bin/kubectl'],
                args: [
                  'wait',
                  `--for=jsonpath={.status.installedVersion}=${p.version}`,
                  `--timeout=${minutes * 60}s`,
                  '--namespace',
                  p.namespace,
                  `${p.resource}/${p.name}`,
                ],
                // kubectl keeps a discovery cache under $HOME; the root filesystem is read-only.
                env: [{ name: 'HOME', value: '/tmp' }],
                volumeMount: [{ name: 'tmp', mountPath: '/tmp' }],
                securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
              })),
              volume: [{ name: 'tmp', emptyDir: {} }],
            },
          },
        },
        waitForCompletion: true,
        timeouts: { create: `${minutes}m`, update: `${minutes}m` },
      } satisfies LeanConfig<JobV1Config>,
    });
  }
}
