/**
 * What the tenant rendering (index.ts) adds for `capmox.multiInstance: secondary-clusters`: the
 * network checks of each instance's node network, and the secondary Clusters with their secret
 * mirror as the tenant stack applies them.
 */
import type { ConfigProblem } from '../config/problems';
import type { Instance, Lab, Tenant } from '../config/schema';
import { managementImages, resolveVersions, imageRef, type VersionKey } from '../versions';
import { mirroredImage } from '../versions/mirror';
import { networkOn } from './cluster';
import { maxMachines, type MachineDeploymentPlan } from './machine-deployments';
import { checkTenantNetwork } from './network';
import type { SecondaryCluster } from './secondary';
import { secretMirror, type SecretMirror } from './secondary-mirror';

export interface SecondaryRendering {
  clusters: SecondaryCluster[];
  mirror: SecretMirror;
}

/**
 * Each instance's node network checked as the tenant's is (subnet, gateway, CIDRs, size), against
 * the machines of that instance only: every instance's ProxmoxCluster has an IPAM pool of its own.
 */
export function secondaryNetworkProblems(input: {
  tenant: Tenant;
  index: number;
  vip: string;
  instances: Instance[];
  machineDeployments: MachineDeploymentPlan[];
  /** Surge, then retire: the previous machine deployments kept until the retire step. */
  retiring?: MachineDeploymentPlan[];
}): ConfigProblem[] {
  const { tenant, index } = input;
  return input.instances.flatMap((instance) => {
    const mds = input.machineDeployments.filter((md) => md.instance === instance.name);
    const old = (input.retiring ?? []).filter((md) => md.instance === instance.name);
    const own = tenant.networks?.[instance.name] !== undefined;
    return checkTenantNetwork({
      tenant,
      index,
      vip: input.vip,
      machinesAtMost: maxMachines(mds) + mds.length + maxMachines(old),
      surge: old.length > 0,
      network: networkOn(tenant, instance.name),
      networkPath: own ? ['tenants', index, 'networks', instance.name] : ['tenants', index, 'network'],
    });
  });
}

/** The mirror's image: the pinned kubectl image with a shell (kamaji-etcd's setup image), mirrored like every image. */
function mirrorImage(lab: Lab): string {
  const versions = resolveVersions(lab.management.versions as Partial<Record<VersionKey, string>>);
  return imageRef(mirroredImage(managementImages(versions).kamajiEtcd.setupKubectl, lab.management.mirror));
}

export function secondaryRendering(lab: Lab, tenant: Tenant, clusters: SecondaryCluster[]): SecondaryRendering {
  return {
    clusters,
    mirror: secretMirror(
      tenant,
      clusters.map((c) => c.name),
      mirrorImage(lab),
    ),
  };
}
