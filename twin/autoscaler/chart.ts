/**
 * The cluster-autoscaler chart at the pinned version, played (twin/autoscaler/index.ts says what and
 * why): each tenant stack's release, and the chart's names, RBAC objects and container flags for its
 * values, each from the template it names.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { load as loadYaml } from 'js-yaml';
import { readStack } from '../stack-objects';

/** A tenant's cluster-autoscaler release as its stack renders it. */
export interface AutoscalerRelease {
  stack: string;
  name: string;
  namespace: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- Helm chart values: free-form YAML read by path, as the chart reads it
  values: Record<string, any>;
}

/** Every `cluster-autoscaler` helm_release of the tenant stacks in `out`. */
export function tenantAutoscalerReleases(out: string): AutoscalerRelease[] {
  const dir = join(out, 'stacks');
  const found: AutoscalerRelease[] = [];
  for (const stack of readdirSync(dir)
    .filter((s) => s.startsWith('tenant-'))
    .sort()) {
    const config = readStack(out, stack).config;
    for (const r of Object.values(
      (config.resource?.helm_release ?? {}) as Record<string, { name: string; namespace: string; chart: string; values?: string[] }>,
    )) {
      if (r.chart !== 'cluster-autoscaler') continue;
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- Helm chart values: free-form YAML read by path, as the chart reads it
      const values = Object.assign({}, ...(r.values ?? []).map((v) => (loadYaml(v) ?? {}) as Record<string, any>));
      found.push({ stack, name: r.name, namespace: r.namespace, values });
    }
  }
  return found;
}

// ---- the chart (pinned version), played -------------------------------------------------------------

/** `_helpers.tpl` cluster-autoscaler.fullname. */
export function chartFullname(release: AutoscalerRelease): string {
  const v = release.values;
  if (v.fullnameOverride) return String(v.fullnameOverride).slice(0, 63).replace(/-+$/, '');
  const name = v.nameOverride ?? `${v.cloudProvider ?? 'aws'}-cluster-autoscaler`;
  return (name === release.name ? name : `${release.name}-${name}`).slice(0, 63).replace(/-+$/, '');
}

export function rbacValues(release: AutoscalerRelease) {
  const rbac = release.values.rbac ?? {};
  const sa = rbac.serviceAccount ?? {};
  return {
    create: rbac.create ?? true,
    clusterScoped: rbac.clusterScoped ?? true,
    additionalRules: (rbac.additionalRules ?? []) as Record<string, unknown>[],
    saCreate: sa.create ?? true,
    saName: sa.name as string | undefined,
    automount: sa.automountServiceAccountToken ?? true,
  };
}

/** `_helpers.tpl` cluster-autoscaler.serviceAccountName. */
export function chartServiceAccountName(release: AutoscalerRelease): string {
  const r = rbacValues(release);
  return r.saCreate ? r.saName || chartFullname(release) : r.saName || 'default';
}

/** The objects of `serviceaccount.yaml`, `role.yaml`, `rolebinding.yaml` for these values (namespaced mode). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an unstructured Kubernetes object read by path, as the controller reads it
export function chartRbacObjects(release: AutoscalerRelease): Record<string, any>[] {
  const v = release.values;
  const r = rbacValues(release);
  if (!r.create) return [];
  const name = chartFullname(release);
  const ns = release.namespace;
  const extraArgs = (v.extraArgs ?? {}) as Record<string, unknown>;
  const priority = String(extraArgs.expander ?? '')
    .split(',')
    .includes('priority');
  const rules: Record<string, unknown>[] = [
    { apiGroups: [''], resources: ['configmaps'], verbs: ['create', ...(priority ? ['list', 'watch'] : [])] },
    {
      apiGroups: [''],
      resources: ['configmaps'],
      resourceNames: ['cluster-autoscaler-status', ...(priority ? ['cluster-autoscaler-priority-expander'] : [])],
      verbs: ['delete', 'get', 'update', ...(priority ? ['watch'] : [])],
    },
  ];
  if (extraArgs['leader-elect-resource-lock'] === 'configmaps')
    rules.push({ apiGroups: [''], resources: ['configmaps'], resourceNames: ['cluster-autoscaler'], verbs: ['get', 'update'] });
  const mode = v.clusterAPIMode ?? 'incluster-incluster';
  if (v.cloudProvider === 'clusterapi' && !r.clusterScoped && (mode === 'incluster-incluster' || mode === 'kubeconfig-incluster')) {
    rules.push({
      apiGroups: ['cluster.x-k8s.io'],
      resources: ['machinedeployments', 'machinepools', 'machines', 'machinesets'],
      verbs: ['get', 'list', 'update', 'watch'],
    });
    rules.push({ apiGroups: ['cluster.x-k8s.io'], resources: ['machinedeployments/scale', 'machinepools/scale'], verbs: ['get', 'patch', 'update'] });
  }
  if (!r.clusterScoped) {
    rules.push({ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] });
    rules.push({ apiGroups: ['coordination.k8s.io'], resourceNames: ['cluster-autoscaler'], resources: ['leases'], verbs: ['get', 'update'] });
  }
  rules.push(...r.additionalRules);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- an unstructured Kubernetes object read by path, as the controller reads it
  const objects: Record<string, any>[] = [];
  if (r.saCreate)
    objects.push({
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: chartServiceAccountName(release), namespace: ns },
      automountServiceAccountToken: r.automount,
    });
  // The ClusterRole and ClusterRoleBinding of clusterScoped mode are not played: pvekaas renders namespaced mode.
  if (r.clusterScoped) throw new Error(`${release.stack}: the twin plays the chart's namespaced RBAC only (rbac.clusterScoped: false)`);
  objects.push({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name, namespace: ns }, rules });
  objects.push({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name, namespace: ns },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
    subjects: [{ kind: 'ServiceAccount', name: chartServiceAccountName(release), namespace: ns }],
  });
  return objects;
}

/** The container command of `deployment.yaml` for the clusterapi provider, or undefined when the chart renders no Deployment. */
export function chartArgs(release: AutoscalerRelease): string[] | undefined {
  const v = release.values;
  const ad = (v.autoDiscovery ?? {}) as { clusterName?: string; namespace?: string; labels?: Record<string, string>[] };
  if (!(ad.clusterName || ad.namespace || (ad.labels && ad.labels.length) || v.autoscalingGroups)) return undefined;
  const mode = v.clusterAPIMode ?? 'incluster-incluster';
  const args = [`--cloud-provider=${v.cloudProvider}`];
  args.push(
    v.cloudProvider === 'clusterapi' && mode === 'kubeconfig-incluster'
      ? `--namespace=${v.clusterAPIConfigMapsNamespace || 'kube-system'}`
      : `--namespace=${release.namespace}`,
  );
  if (v.cloudProvider === 'clusterapi') {
    // _helpers.tpl capiAutodiscoveryConfig: clusterName=…[,namespace=…][,labels…]
    const labels = (ad.labels ?? [])
      .map((l) =>
        Object.entries(l)
          .map(([k, x]) => `${k}=${x}`)
          .join(','),
      )
      .join(',');
    const parts = [ad.clusterName ? `clusterName=${ad.clusterName}` : '', ad.namespace ? `namespace=${ad.namespace}` : '', labels].filter(Boolean);
    if (ad.clusterName || ad.namespace || labels) args.push(`--node-group-auto-discovery=clusterapi:${parts.join(',')}`);
    if (mode === 'incluster-kubeconfig') args.push(`--cloud-config=${v.clusterAPICloudConfigPath ?? '/etc/kubernetes/mgmt-kubeconfig'}`);
    else if (mode === 'kubeconfig-incluster')
      args.push(`--kubeconfig=${v.clusterAPIWorkloadKubeconfigPath ?? '/etc/kubernetes/value'}`, '--clusterapi-cloud-config-authoritative');
    else if (mode !== 'incluster-incluster') throw new Error(`${release.stack}: clusterAPIMode ${mode} is not played by the twin`);
  }
  const extraArgs = { logtostderr: true, stderrthreshold: 'info', v: 4, ...(v.extraArgs ?? {}) } as Record<string, unknown>;
  for (const [k, x] of Object.entries(extraArgs)) args.push(`--${k}=${x}`);
  return args;
}
