/**
 * What `status` reads of one tenant from the management cluster (modules/foresight/status.ts): the
 * fields it uses of each object, in the shapes of the pinned CRDs.
 */
/** A condition as CAPI v1beta2, the Kamaji provider and Kubernetes write it (metav1.Condition). */
export interface LiveCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

interface Meta {
  name: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  deletionTimestamp?: string;
  generation?: number;
}

/** cluster.x-k8s.io/v1beta2 Cluster (the fields status reads). */
export interface LiveCluster {
  metadata: Meta;
  spec?: {
    controlPlaneEndpoint?: { host?: string; port?: number };
    controlPlaneRef?: { kind?: string; name?: string };
    infrastructureRef?: { kind?: string; name?: string };
    topology?: { version?: string };
  };
  status?: { phase?: string; conditions?: LiveCondition[]; initialization?: { controlPlaneInitialized?: boolean; infrastructureProvisioned?: boolean } };
}

/** controlplane.cluster.x-k8s.io/v1alpha2 KamajiControlPlane. */
export interface LiveKamajiControlPlane {
  metadata: Meta;
  spec?: { version?: string; replicas?: number };
  status?: {
    ready?: boolean;
    version?: string;
    initialization?: { controlPlaneInitialized?: boolean };
    replicas?: number;
    readyReplicas?: number;
    conditions?: LiveCondition[];
  };
}

/** kamaji.clastix.io/v1alpha1 TenantControlPlane. */
export interface LiveTenantControlPlane {
  metadata: Meta;
  status?: { controlPlaneEndpoint?: string; kubernetesResources?: { version?: { version?: string; status?: string } } };
}

/** v1 Service (the control plane's: label `kamaji.clastix.io/component: service`). */
export interface LiveService {
  metadata: Meta;
  spec?: { type?: string; loadBalancerIP?: string };
  status?: { loadBalancer?: { ingress?: { ip?: string; hostname?: string }[] } };
}

/** cluster.x-k8s.io/v1beta2 MachineDeployment. */
export interface LiveMachineDeployment {
  metadata: Meta;
  spec?: { clusterName?: string; replicas?: number; template?: { spec?: { version?: string } } };
  status?: { replicas?: number; readyReplicas?: number; availableReplicas?: number; upToDateReplicas?: number; observedGeneration?: number };
}

/** cluster.x-k8s.io/v1beta2 Machine. */
export interface LiveMachine {
  metadata: Meta;
  spec?: { clusterName?: string; version?: string; failureDomain?: string; infrastructureRef?: { kind?: string; name?: string }; providerID?: string };
  status?: { phase?: string; nodeRef?: { name?: string }; conditions?: LiveCondition[]; addresses?: { type: string; address: string }[] };
}

/** infrastructure.cluster.x-k8s.io/v1alpha2 ProxmoxMachine. */
export interface LiveProxmoxMachine {
  metadata: Meta;
  spec?: { virtualMachineID?: number };
  status?: { proxmoxNode?: string; addresses?: { type: string; address: string }[] };
}

/** Everything status reads of one tenant, from its namespace in the management cluster. */
export interface LiveTenant {
  clusters: LiveCluster[];
  kamajiControlPlanes: LiveKamajiControlPlane[];
  tenantControlPlanes: LiveTenantControlPlane[];
  services: LiveService[];
  machineDeployments: LiveMachineDeployment[];
  machines: LiveMachine[];
  proxmoxMachines: LiveProxmoxMachine[];
}
