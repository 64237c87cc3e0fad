/**
 * bench/bring-up.ts: a tenant's bring-up split by who waits, from the times the controllers write
 * (creationTimestamp, condition lastTransitionTime), on objects shaped as CAPI v1beta2, CAPMOX and
 * in-cluster IPAM write them.
 */
import { BRING_UP_PHASES, bringUpSplit, type BringUpObjects } from '../../bench/bring-up';

const T0 = Date.parse('2026-12-07T10:00:00Z');
const t = (s: number) => new Date(T0 + s * 1000).toISOString().replace('.000Z', 'Z');
const cond = (type: string, s: number, status = 'True') => ({ type, status, lastTransitionTime: t(s) });

function objects(): BringUpObjects {
  const machine = (name: string, created: number, infra: number, node: number, labels: Record<string, string> = {}) => ({
    metadata: { name, creationTimestamp: t(created), labels: { 'cluster.x-k8s.io/cluster-name': 'tenant-a', ...labels } },
    spec: { infrastructureRef: { name: `${name}-pm` } },
    status: { conditions: [cond('InfrastructureReady', infra), cond('NodeReady', node)] },
  });
  const claim = (pm: string, name: string, created: number, address: string) => ({
    metadata: { name, creationTimestamp: t(created), ownerReferences: [{ kind: 'ProxmoxMachine', name: pm }] },
    status: { addressRef: { name: address } },
  });
  return {
    cluster: { metadata: { name: 'tenant-a', creationTimestamp: t(4) }, status: { conditions: [cond('ControlPlaneInitialized', 40)] } },
    machines: [
      machine('tenant-a-workers-b', 47, 80, 120),
      // The first Node Ready: this one, not the one made first.
      machine('tenant-a-workers-a', 45, 70, 95),
      machine('tenant-a-workers-c', 46, 75, 99, { 'cluster.x-k8s.io/control-plane': '' }),
    ],
    ipAddressClaims: [
      claim('tenant-a-workers-a-pm', 'tenant-a-workers-a-pm-net0-inet', 48, 'addr-1'),
      claim('tenant-a-workers-a-pm', 'tenant-a-workers-a-pm-net1-inet', 49, 'addr-2'),
      claim('tenant-a-workers-b-pm', 'tenant-a-workers-b-pm-net0-inet', 50, 'addr-3'),
    ],
    ipAddresses: [
      { metadata: { name: 'addr-1', creationTimestamp: t(50) } },
      { metadata: { name: 'addr-2', creationTimestamp: t(52) } },
      { metadata: { name: 'addr-3', creationTimestamp: t(53) } },
    ],
  };
}

describe('bring-up split by who waits', () => {
  it("splits the first Ready Node's seconds from the apply start, phase by phase, summing to the whole", () => {
    const split = bringUpSplit(T0 + 1000, objects());
    expect(split).toEqual({
      machine: 'tenant-a-workers-a',
      seconds: { OpenTofu: 3, Kamaji: 36, CAPI: 5, 'bootstrap and CAPMOX': 3, IPAM: 4, 'CAPMOX clone and start': 18, 'kubelet join': 25 },
      total: 94,
    });
    if (typeof split === 'string') throw new Error(split);
    expect(BRING_UP_PHASES.reduce((n, p) => n + split.seconds[p], 0)).toBe(split.total);
  });

  it('counts two events of one second as 0, never below', () => {
    const o = objects();
    o.cluster!.metadata.creationTimestamp = t(0);
    expect(bringUpSplit(T0 + 1000, o)).toMatchObject({ seconds: { OpenTofu: 0, Kamaji: 39 } });
  });

  it('says why a tenant is not split: no Cluster, no Ready Node, an address not allocated', () => {
    expect(bringUpSplit(T0, { ...objects(), cluster: undefined })).toBe('no Cluster');
    const none = objects();
    none.machines.forEach((m) => (m.status!.conditions = m.status!.conditions!.filter((c) => c.type !== 'NodeReady')));
    expect(bringUpSplit(T0, none)).toBe('no worker Machine with a Ready Node');
    const unbound = objects();
    unbound.ipAddresses = unbound.ipAddresses.filter((a) => a.metadata.name !== 'addr-2');
    expect(bringUpSplit(T0, unbound)).toBe('tenant-a-workers-a: no time for the end of IPAM');
  });
});
