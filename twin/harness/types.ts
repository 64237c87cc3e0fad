/** What the lab twin is started with, and what it reports of each tenant and machine (twin/index.ts LabTwin). */
import type { ControllerName } from '../controllers';

export interface TwinOptions {
  root: string;
  labText: string;
  labFile: string;
  /** Scratch directory (removed by stop unless keep). */
  work: string;
  log?: (line: string) => void;
  /**
   * Play each tenant's cluster-autoscaler release (twin/autoscaler/). Off by default:
   * the other suites scale autoscaled pools by hand, which a running autoscaler would undo.
   */
  autoscaler?: boolean;
  /**
   * Run each tenant control plane's kube-controller-manager, as Kamaji's pod does
   * (twin/tenant-controller-manager.ts): the aggregated ClusterRoles filled, ServiceAccounts,
   * Deployments' ReplicaSets and Pods... Off by default: the other suites' played kubelets and
   * autoscaler were written against tenants without it (docs/twin.md).
   */
  tenantControllerManager?: boolean;
  /** Play the Proxmox CSI plugin's controller and sidecars and the kubelets' volume part (csi-sidecars.ts; test/twin/storage.test.ts). */
  csi?: boolean;
  /** Extra environment per controller: negative controls only. */
  controllerEnv?: Partial<Record<ControllerName, Record<string, string>>>;
  /** Values of the stacks' input variables (`-var`/TF_VAR_ of `tofu apply`), e.g. the backup S3 keys. */
  variables?: Record<string, string>;
}

export interface TwinMachine {
  name: string;
  pool: string;
  cluster: string;
  machineDeployment: string;
  phase?: string;
  instance?: string;
  node?: string;
  vmid?: number;
  cpu?: number;
  memoryMiB?: number;
  diskGiB?: number;
  tags: string[];
  proxmoxPool?: string;
  ipAddresses: string[];
  createdBy?: string;
  nodeName?: string;
  providerID?: string;
  /** The Machine's Kubernetes version (`spec.version`). */
  version?: string;
  /** The Machine's `Ready` condition is True (CAPI's summary: bootstrap, infrastructure, NodeHealthy, health check). */
  ready: boolean;
  /** The template VM the VM was cloned from. */
  template?: { vmid: number; node: string; tags: string[] };
}

export interface TwinTenant {
  name: string;
  converged: boolean;
  controlPlaneInitialized: boolean;
  /** The version the tenant API server answers on `/version` (its gitVersion), when it answers. */
  controlPlaneVersion?: string;
  /** Its CNI release as the played CAAPH has it; `notRendered` says why a chart was not rendered (Calico). */
  cni?: { chart: string; status: string; notRendered?: string };
  /**
   * Why it is not converged: what it waits for (control plane, machines not Running/Ready) and every
   * difference from the placement plan (notAsPlanned).
   */
  waiting: string[];
  /** Differences from the plan: machines per pool and node, IP ranges, templates, creating token. */
  notAsPlanned: string[];
  machines: TwinMachine[];
}
