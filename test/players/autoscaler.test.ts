/**
 * The played cluster-autoscaler's pure rules (twin/autoscaler/) against pvekaas's
 * rendering: the chart's flags and Role for the values the tenant stack renders, the discovery spec
 * parser, the binpacking estimator, and the scale-down's utilization, unneeded times and cooldown. The twin suite test/twin/autoscaling.test.ts runs them
 * against the real API servers.
 */
import { autoscalerValues } from '../../modules/tenants/autoscaler';
import {
  chartArgs,
  chartRbacObjects,
  estimate,
  goDuration,
  isMachineDeploymentAndRollingOut,
  isScalableResourceAndPaused,
  nodeUtilization,
  parseAutoDiscoverySpec,
  PLAYED_PROVIDERS,
  scaleDownInCooldown,
  since135,
  templateTaints,
  updateUnneeded,
  type AutoscalerRelease,
} from '../../twin/autoscaler';
import type { Tenant } from '../../modules/config/schema';

const tenant = { name: 'elastic', kubernetesVersion: 'v1.35.4' } as unknown as Tenant;
const release = (values: Record<string, unknown>): AutoscalerRelease => ({ stack: 'tenant-elastic', name: 'cluster-autoscaler', namespace: 'elastic', values });

describe('the played chart over the rendered values', () => {
  it('renders the flags of deployment.yaml: discovery of this cluster, the workload kubeconfig, the idle time', () => {
    const args = chartArgs(release(autoscalerValues(tenant, { scaleDown: { scaleDownUnneededSeconds: 20, scaleDownDelayAfterAddSeconds: 30 } })))!;
    expect(args).toEqual(
      expect.arrayContaining([
        '--cloud-provider=clusterapi',
        '--namespace=kube-system',
        '--node-group-auto-discovery=clusterapi:clusterName=elastic,namespace=elastic',
        '--kubeconfig=/etc/kubernetes/value',
        '--clusterapi-cloud-config-authoritative',
        '--scale-down-unneeded-time=20s',
        '--scale-down-delay-after-add=30s',
      ]),
    );
    expect(chartArgs(release(autoscalerValues(tenant, { byNamespace: true })))).toContain('--node-group-auto-discovery=clusterapi:namespace=elastic');
  });

  it('renders the namespaced Role with the CAPI objects, their scale subresource and the additional rules', () => {
    const [sa, role, binding] = chartRbacObjects(release(autoscalerValues(tenant)));
    expect(sa).toMatchObject({ kind: 'ServiceAccount', metadata: { name: 'cluster-autoscaler', namespace: 'elastic' } });
    expect(role.rules).toEqual(
      expect.arrayContaining([
        { apiGroups: ['cluster.x-k8s.io'], resources: ['machinedeployments/scale', 'machinepools/scale'], verbs: ['get', 'patch', 'update'] },
        { apiGroups: ['infrastructure.cluster.x-k8s.io'], resources: ['proxmoxmachinetemplates'], verbs: ['get', 'list', 'watch'] },
      ]),
    );
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: 'cluster-autoscaler', namespace: 'elastic' }]);
  });

  it('refuses what upstream refuses: a discovery spec without its discoverer, a bad duration', () => {
    expect(() => parseAutoDiscoverySpec('clusterName=x')).toThrow('should be discoverer:key=value,key=value');
    expect(() => parseAutoDiscoverySpec('asg:tag=x')).toThrow('unsupported discoverer specified: asg');
    expect(parseAutoDiscoverySpec('clusterapi:clusterName=a,namespace=b,team=x')).toEqual({ clusterName: 'a', namespace: 'b', labels: { team: 'x' } });
    expect(goDuration('1m30s')).toBe(90000);
    expect(() => goDuration('20')).toThrow('invalid duration');
  });
});

describe('the binpacking estimator', () => {
  const template = () => ({
    name: 't',
    labels: { pool: 'edge' },
    taints: [],
    allocatable: { cpu: 2, memory: 4 * 1024 ** 3, pods: 110 },
    used: { cpu: 0, memory: 0, pods: 0 },
  });
  const pod = (name: string, cpu: string, selector: Record<string, string> = { pool: 'edge' }) => ({
    metadata: { name },
    spec: { nodeSelector: selector, containers: [{ resources: { requests: { cpu, memory: '1Gi' } } }] },
  });

  it('packs pods onto as few template nodes as fit them, within the room below max', () => {
    expect(estimate([pod('a', '1500m'), pod('b', '1500m')], template, 3).count).toBe(2);
    expect(estimate([pod('a', '900m'), pod('b', '900m')], template, 3).count).toBe(1);
    expect(estimate([pod('a', '1500m'), pod('b', '1500m'), pod('c', '1500m')], template, 2)).toEqual({ count: 2, pods: ['a', 'b'] });
  });

  it('adds no node for a pod that does not fit an empty one (too big, or another pool)', () => {
    expect(estimate([pod('a', '3')], template, 3).count).toBe(0);
    expect(estimate([pod('a', '1', { pool: 'burst' })], template, 3).count).toBe(0);
  });
});

describe('the provider played for the rendered image', () => {
  const played = (kubernetesVersion: string) =>
    PLAYED_PROVIDERS.get((autoscalerValues({ ...tenant, kubernetesVersion } as Tenant).image as { tag: string }).tag);

  it('plays 1.36.1 for the image a 1.36 tenant renders, 1.35.2 for 1.35, 1.34.5 for 1.34, nothing else', () => {
    expect(played('v1.36.3')).toBe('1.36.1');
    expect(played('v1.35.4')).toBe('1.35.2');
    expect(played('v1.34.2')).toBe('1.34.5');
    expect(played('v1.33.5')).toBeUndefined();
  });

  it('keeps the rules 1.35.2 brought in on 1.36.1, not on 1.34.5', () => {
    expect(since135('1.34.5')).toBe(false);
    expect(since135('1.35.2')).toBe(true);
    expect(since135('1.36.1')).toBe(true);
  });
});

describe('1.36.1: paused node groups, taints from the Machine template', () => {
  const md = (annotations: Record<string, string> = {}, taints?: unknown[]) => ({
    kind: 'MachineDeployment',
    metadata: { name: 'elastic-edge', namespace: 'elastic', annotations },
    spec: { template: { spec: taints === undefined ? {} : { taints } } },
  });
  const paused = { 'cluster.x-k8s.io/paused': '' };

  it('leaves a paused MachineDeployment, MachinePool or MachineSet out of the node groups on 1.36.1 only', () => {
    expect(isScalableResourceAndPaused('1.36.1', md(paused))).toBe(true);
    expect(isScalableResourceAndPaused('1.36.1', { ...md(paused), kind: 'MachineSet' })).toBe(true);
    expect(isScalableResourceAndPaused('1.36.1', { ...md(paused), kind: 'MachinePool' })).toBe(true);
    expect(isScalableResourceAndPaused('1.36.1', md())).toBe(false);
    expect(isScalableResourceAndPaused('1.36.1', { ...md(paused), kind: 'Machine' })).toBe(false);
    // 1.35.2 and 1.34.5 have no such check: a paused group is scaled like any other.
    expect(isScalableResourceAndPaused('1.35.2', md(paused))).toBe(false);
    expect(isScalableResourceAndPaused('1.34.5', md(paused))).toBe(false);
  });

  it("builds the template node's taints from spec.template.spec.taints under the annotation on 1.36.1, from the annotation alone before", () => {
    const r = md({ 'capacity.cluster-autoscaler.kubernetes.io/taints': 'dedicated=gpu:NoSchedule,extra=x:NoExecute' }, [
      { key: 'dedicated', value: 'edge', effect: 'NoSchedule' },
      { key: 'zone', effect: 'PreferNoSchedule' },
    ]);
    expect(templateTaints('1.36.1', r)).toEqual([
      { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' },
      { key: 'zone', effect: 'PreferNoSchedule' },
      { key: 'extra', value: 'x', effect: 'NoExecute' },
    ]);
    expect(templateTaints('1.35.2', r)).toEqual([
      { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' },
      { key: 'extra', value: 'x', effect: 'NoExecute' },
    ]);
    expect(templateTaints('1.34.5', md({}, [{ key: 'zone', effect: 'NoSchedule' }]))).toEqual([]);
    expect(templateTaints('1.36.1', md({}, [{ key: 'zone', effect: 'NoSchedule' }]))).toEqual([{ key: 'zone', effect: 'NoSchedule' }]);
  });

  // Mutation #54 (twin/mutation-corpus.ts): the 1.35 image rendered for a 1.36 tenant.
  it('catches a 1.36 tenant rendered with the 1.35 autoscaler image: its paused MachineDeployment would be scaled', () => {
    const rendered = autoscalerValues({ ...tenant, kubernetesVersion: 'v1.36.3' } as Tenant);
    const leftAlone = (values: Record<string, unknown>) => {
      const provider = PLAYED_PROVIDERS.get((values.image as { tag: string }).tag);
      return provider !== undefined && isScalableResourceAndPaused(provider, md(paused));
    };
    expect(leftAlone(rendered)).toBe(true);
    const mutated = { ...rendered, image: { ...(rendered.image as object), tag: 'v1.35.2' } };
    expect(leftAlone(mutated)).toBe(false);
  });
});

describe('1.35.2: no scale-down while a MachineDeployment rolls out', () => {
  const md = { kind: 'MachineDeployment', name: 'elastic-edge', namespace: 'elastic' };
  const ms = (name: string, revision: string | undefined, replicas: number, statusReplicas = replicas, deployment = md.name) => ({
    metadata: {
      name,
      namespace: 'elastic',
      labels: { 'cluster.x-k8s.io/deployment-name': deployment },
      annotations: revision === undefined ? {} : { 'machinedeployment.clusters.x-k8s.io/revision': revision },
    },
    spec: { replicas },
    status: { replicas: statusReplicas },
  });

  it('is rolling out while an older MachineSet has replicas (spec or status)', () => {
    expect(isMachineDeploymentAndRollingOut(md, [ms('new', '2', 1), ms('old', '1', 1)])).toBe(true);
    expect(isMachineDeploymentAndRollingOut(md, [ms('new', '2', 1), ms('old', '1', 0, 1)])).toBe(true);
    expect(isMachineDeploymentAndRollingOut(md, [ms('new', '2', 1), ms('old', 'x', 0)])).toBe(true);
  });

  it('is not when the older MachineSets are empty, belong to another deployment, or the group is no MachineDeployment', () => {
    expect(isMachineDeploymentAndRollingOut(md, [ms('new', '2', 1), ms('old', '1', 0)])).toBe(false);
    expect(isMachineDeploymentAndRollingOut(md, [ms('new', '2', 1), ms('other', '1', 3, 3, 'elastic-burst')])).toBe(false);
    expect(isMachineDeploymentAndRollingOut(md, [])).toBe(false);
    expect(isMachineDeploymentAndRollingOut({ ...md, kind: 'MachineSet' }, [ms('new', '2', 1), ms('old', '1', 1)])).toBe(false);
  });
});

describe('scale-down: utilization, unneeded times, cooldown', () => {
  const pod = (cpu: string, memory: string, extra: Record<string, unknown> = {}) => ({
    metadata: { name: 'p', namespace: 'default', ...extra },
    spec: { containers: [{ name: 'c', resources: { requests: { cpu, memory } } }] },
  });
  const node = { cpu: 2, memory: 4096 * 1024 * 1024 };
  const none = { daemonSets: false, mirror: false };

  it('is the larger of the cpu and memory requests over allocatable, DaemonSet and mirror pods counted by default', () => {
    expect(nodeUtilization([], node, none)).toBe(0);
    // The pod of the autoscaling suite: 1.5 of 2 cpu, 2 of 4 GiB → 0.75 (a pending one placed there counts the same).
    expect(nodeUtilization([pod('1500m', '2Gi')], node, none)).toBeCloseTo(0.75);
    const ds = pod('1', '1Gi', { ownerReferences: [{ kind: 'DaemonSet', name: 'cilium', controller: true }] });
    const mirror = pod('500m', '0', { annotations: { 'kubernetes.io/config.mirror': 'x' } });
    expect(nodeUtilization([ds], node, none)).toBeCloseTo(0.5);
    expect(nodeUtilization([mirror], node, none)).toBeCloseTo(0.25);
    // --ignore-daemonsets-utilization: the DaemonSet pod leaves the requests and allocatable (1 of 1 cpu left: 0.5/1).
    expect(nodeUtilization([ds, pod('500m', '0')], node, { daemonSets: true, mirror: false })).toBeCloseTo(0.5);
    expect(nodeUtilization([mirror], node, { daemonSets: false, mirror: true })).toBe(0);
  });

  it('keeps the first time a node was unneeded while it stays so, and forgets it once it is needed', () => {
    const t0 = updateUnneeded(new Map(), ['a', 'b'], 1000);
    expect([...t0]).toEqual([
      ['a', 1000],
      ['b', 1000],
    ]);
    const t1 = updateUnneeded(t0, ['a', 'c'], 11000);
    expect([...t1]).toEqual([
      ['a', 1000],
      ['c', 11000],
    ]);
    // b was needed at 11000 (a Pod bound there): unneeded again at 21000, its time starts over.
    expect(updateUnneeded(t1, ['a', 'b'], 21000).get('b')).toBe(21000);
  });

  it('is in cooldown within the delay after a scale-up or a deletion, and not at its end', () => {
    const delay = { afterAdd: 20000, afterDelete: 0 };
    expect(scaleDownInCooldown(30000, { lastScaleUp: 15000, lastScaleDown: 0 }, delay)).toBe(true);
    expect(scaleDownInCooldown(35000, { lastScaleUp: 15000, lastScaleDown: 0 }, delay)).toBe(false);
    // The default delay after a deletion (0): the next loop may delete again.
    expect(scaleDownInCooldown(35000, { lastScaleUp: 0, lastScaleDown: 35000 }, delay)).toBe(false);
    expect(scaleDownInCooldown(35000, { lastScaleUp: 0, lastScaleDown: 30000 }, { afterAdd: 0, afterDelete: 10000 })).toBe(true);
  });
});
