/**
 * SIMULATED in the lab twin: each tenant's cluster-autoscaler release (chart `cluster-autoscaler`
 * of kubernetes/autoscaler at the pinned version, tag `cluster-autoscaler-chart-<autoscalerChart.version>`), its clusterapi cloud
 * provider at the image the tenant stack pins for the tenant's minor: v1.36.1 for Kubernetes 1.36
 * (tag `cluster-autoscaler-1.36.1`), v1.35.2 for 1.35 (tag `cluster-autoscaler-1.35.2`) and v1.34.5
 * for 1.34 (tag `cluster-autoscaler-1.34.5`), paths under `cluster-autoscaler/`. Only those images are
 * played (a release pinning another tag, 1.33 and older, is
 * reported, not played: the provider changed between minors, e.g. 1.30.3 updates the scale
 * subresource and cannot read a v1beta2 `infrastructureRef`). The rules below are those of both
 * unless marked; what 1.35.2 changed in `cloudprovider/clusterapi/` (git diff of the two tags) and
 * the player follows: the infrastructure template's version found by kind
 * (getKindPreferredVersion), the template node's arch/os labels from the template's
 * `status.nodeInfo` (InstanceSystemInfo), and no scale-down of a Node whose MachineDeployment is
 * rolling out (ScaleDownNodeUpgradeProcessor). Not followed, stated: the CSI driver capacity
 * annotation `capacity.cluster-autoscaler.kubernetes.io/csi-driver` (InstanceCSINode, the
 * template's CSINode for volume limits: the fit check models no volumes) and the per-group
 * `maxnodestartuptime` option (no node start-up timeouts are modelled). What 1.36.1 changed in
 * `cloudprovider/clusterapi/` (git diff cluster-autoscaler-1.35.2 cluster-autoscaler-1.36.1) and the
 * player follows: a MachineDeployment/MachinePool/MachineSet annotated `cluster.x-k8s.io/paused` is
 * no node group and its Nodes are in none (isScalableResourceAndPaused), and the template node's
 * taints are `spec.template.spec.taints` with the taints annotation over them (Taints); the rest of
 * that diff is renames (apiv1 → corev1), messages and the provider's builder registration. In the
 * core paths cited below, 1.36.1's changes are behind flags off by default and not passed by the
 * chart (`--salvo-scale-up`, `--fastpath-binpacking-enabled`, `--capacity-quotas-enabled`,
 * `config/flags/flags.go`), the scale-down minimum-limits check rewritten onto a quota tracker
 * (`unneeded/nodes.go`; no resource limits are set, so nothing is skipped either way), and a
 * drainability rule for pods annotated safe-to-evict on completion (`rules/oncompletion`; not
 * modelled, the pods of the tests carry no such annotation); `core/scaleup/orchestrator` is
 * restructured onto that quota tracker and its skipped-group simulation is behind
 * `--scaleup-simulation-for-skipped-node-groups-enabled` (off). The module `k8s.io/autoscaler/cluster-autoscaler` is not served by
 * the Go module proxy and there is no container runtime, so it is played from its source, each
 * rule cited below; what it reads and writes goes through the API servers for real:
 *
 * - the release as Helm would install it, from the values the tenant stack renders: the chart's
 *   ServiceAccount, namespaced Role (with `rbac.additionalRules`) and RoleBinding
 *   (`templates/serviceaccount.yaml`, `role.yaml`, `rolebinding.yaml`, names from `_helpers.tpl`),
 *   applied once per values change with the admin's credentials (Helm's); the container's flags as
 *   `templates/deployment.yaml` renders them (`--node-group-auto-discovery=clusterapi:…` from
 *   `autoDiscovery` through `cluster-autoscaler.capiAutodiscoveryConfig`, `--kubeconfig` for
 *   `clusterAPIMode: kubeconfig-incluster`, `extraArgs` as `--key=value`);
 * - the management cluster with a TokenRequest token of that ServiceAccount only, so the rendered
 *   Role decides: the informers of `clusterapi_controller.go` newMachineController (machinesets,
 *   machinedeployments, machinepools, machines, filtered to `namespaceToWatch`), the infrastructure
 *   template informer of `getInfrastructureResource`, the scale subresource of
 *   `clusterapi_unstructured.go` SetSize (a merge PATCH of `spec.replicas`), the Machine GET and UPDATE of
 *   MarkMachineForDeletion. A list the Role forbids never syncs its informer: upstream waits
 *   forever (WaitForCacheSync), the player does nothing and reports why (`failures`);
 * - the workload cluster through the kubeconfig in the Secret `clusterAPIKubeconfigSecret` (key
 *   `value`, mounted at `/etc/kubernetes/value` by the chart), as the pod would.
 *
 * Node groups (`clusterapi_nodegroup.go` newNodeGroupFromScalableResource, `clusterapi_utils.go`
 * parseScalingBounds, `clusterapi_autodiscovery.go`; `readInfrastructureReferenceResource` reads a
 * v1beta2 `infrastructureRef` by its `apiGroup`, at the group's preferred version in 1.34.5 and at the
 * first version serving its kind in 1.35.2 and 1.36.1): a MachineDeployment (or a MachineSet without
 * one) allowed by a discovery spec (namespace, cluster name from `spec.clusterName`, labels); a
 * missing min annotation is 0, a missing max is 0 and such a group is skipped; at 0 replicas a group
 * counts only if it can scale from zero: its capacity (annotations `capacity.cluster-autoscaler.
 * kubernetes.io/{cpu,memory,ephemeral-disk,maxPods,labels,taints}`, over the infrastructure
 * template's `status.capacity`) has cpu and memory (InstanceCapacity, CanScaleFromZero). Its
 * template node (TemplateNodeInfo, buildTemplateLabels): that capacity (pods 110 when unset),
 * generic labels (`kubernetes.io/os=linux`, `kubernetes.io/arch=amd64`, hostname), in 1.35.2 and 1.36.1 over
 * them the template's `status.nodeInfo` architecture and operatingSystem, then the labels
 * annotation; a group with a registered Node uses that Node instead (core/utils GetNodeInfosForGroups).
 *
 * Scale-up (core/static_autoscaler.go RunOnce, core/scaleup/orchestrator): Pods the REAL
 * kube-scheduler marked `PodScheduled=False`/`Unschedulable`; those that fit on upcoming nodes
 * (replicas not yet registered as Nodes) are taken off first; then per node group the binpacking
 * estimator (`estimator/binpacking_estimator.go` Estimate, tryToScheduleOnNewNodes; pods in
 * decreasing order of `decreasing_pod_orderer.go`'s score): try the last new node, else add a
 * template node while the group has room below its max, and stop at a pod that does not fit on an
 * empty one; the option is the count of new nodes holding pods; expander `random` (main.go's
 * default; the chart passes none); IncreaseSize → SetSize(replicas + n), refused above max.
 *
 * Scale-down (core/scaledown), in every loop, the one of a scale-up too (RunOnce goes on to it): a
 * Ready Node of a group is unneeded when its utilization (the larger of the cpu and memory requests
 * of the snapshot's pods on it — bound ones and pending ones filter_out_schedulable placed there —
 * over allocatable; DaemonSet and mirror pods count unless `--ignore-daemonsets-utilization` /
 * `--ignore-mirror-pods-utilization`, `simulator/utilization/info.go`) is below
 * `--scale-down-utilization-threshold` (0.5) and each of its pods is replicated (a pod no
 * controller owns blocks, drainability rule NotReplicated) and fits on another Node; it stays
 * unneeded from the loop's currentTime it was first found so (`unneeded/nodes.go`). Deletion waits
 * out the cooldown (isScaleDownInCooldown: `--scale-down-delay-after-add`, default 10m, after a
 * scale-up; `--scale-down-delay-after-delete`, default 0, after a deletion) while the tracking goes
 * on; unneeded for `--scale-down-unneeded-time` (default 10m) a Node is deleted (in 1.35.2 and 1.36.1 not while its
 * MachineDeployment rolls out: an older MachineSet still has replicas) (DeleteNodes: the node tainted
 * `ToBeDeletedByClusterAutoscaler`, MarkMachineForDeletion, SetSize(replicas - 1)), never below min.
 *
 * Deviations, stated: the fit check of the simulation is the resource, nodeSelector and taint
 * predicates only (upstream runs the scheduler framework's plugins; affinity and topology spread are
 * not modelled — the pods of the tests use neither); leader election and the status ConfigMap are
 * not written; loops run every `--scan-interval` (default 10s) from the twin's tick.
 *
 * One part a file: chart.ts (the chart, played), provider.ts (the clusterapi provider's rules),
 * simulation.ts (the estimator, utilization, scale-down timing), player.ts (the loop, through the API servers).
 */
export { tenantAutoscalerReleases, chartFullname, chartServiceAccountName, chartRbacObjects, chartArgs, type AutoscalerRelease } from './chart';
export {
  parseAutoDiscoverySpec,
  goDuration,
  PLAYED_PROVIDERS,
  since135,
  isScalableResourceAndPaused,
  templateTaints,
  isMachineDeploymentAndRollingOut,
  type PlayedProvider,
} from './provider';
export { quantity, estimate, nodeUtilization, updateUnneeded, scaleDownInCooldown } from './simulation';
export { AutoscalerPlayer, clientFromKubeconfig, readCa, type AutoscalerEvent } from './player';
