/** Lab edits a platform team makes, and output trees to compare: shared by the synth cache and parallel synthesis tests. */
import fc from 'fast-check';
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

export function tree(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) walk(path);
      else files[relative(dir, path)] = readFileSync(path, 'utf8');
    }
  };
  walk(dir);
  return files;
}

export type LabDoc = any;
/** Edits a platform team makes, in lab terms; each may make the lab invalid (then both synths must refuse it). */
export const edit = fc.oneof(
  fc.record({ kind: fc.constant('replicas'), tenant: fc.nat(2), value: fc.integer({ min: 1, max: 4 }) }),
  fc.record({ kind: fc.constant('groups'), tenant: fc.nat(2), value: fc.constantFrom(['team-x'], ['team-a', 'ops'], []) }),
  fc.record({ kind: fc.constant('controlPlane'), tenant: fc.nat(2), value: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ kind: fc.constant('cni'), tenant: fc.nat(2), value: fc.constantFrom('cilium', 'calico') }),
  fc.record({ kind: fc.constant('dropTenant'), tenant: fc.nat(2), value: fc.constant(0) }),
  fc.record({ kind: fc.constant('addTenant'), tenant: fc.nat(2), value: fc.integer({ min: 4, max: 9 }) }),
  fc.record({ kind: fc.constant('datastore'), tenant: fc.constant(0), value: fc.constantFrom(1, 3, 5) }),
  fc.record({ kind: fc.constant('bridge'), tenant: fc.constant(0), value: fc.constantFrom('vmbr0', 'vmbr1') }),
  fc.record({ kind: fc.constant('stateDir'), tenant: fc.constant(0), value: fc.constantFrom('state', 'state-b') }),
  fc.record({ kind: fc.constant('kubeconfig'), tenant: fc.constant(0), value: fc.constantFrom('~/.kube/lab-mgmt.yaml', '~/.kube/other.yaml') }),
);

export function apply(lab: LabDoc, e: { kind: string; tenant: number; value: any }): void {
  const tenant = lab.tenants[e.tenant % Math.max(1, lab.tenants.length)];
  switch (e.kind) {
    case 'replicas':
      if (tenant?.pools[0].replicas !== undefined) tenant.pools[0].replicas = e.value;
      else if (tenant) tenant.pools[0].autoscaling.max = e.value + 2;
      break;
    case 'groups':
      if (tenant) tenant.groups = e.value;
      break;
    case 'controlPlane':
      if (tenant) tenant.controlPlane = { replicas: e.value };
      break;
    case 'cni':
      if (tenant) tenant.cni = e.value;
      break;
    case 'dropTenant':
      if (lab.tenants.length > 1) lab.tenants.splice(e.tenant % lab.tenants.length, 1);
      break;
    case 'addTenant':
      if (!lab.tenants.some((t: LabDoc) => t.name === `tenant-${e.value}`)) {
        lab.tenants.push({
          name: `tenant-${e.value}`,
          kubernetesVersion: 'v1.35.4',
          pools: [{ name: 'workers', replicas: 1, size: { cpu: 2, memoryMiB: 4096, diskGiB: 20 } }],
          vip: `10.4.0.${120 + e.value}`,
          network: {
            addresses: [`10.10.${e.value + 10}.10-10.10.${e.value + 10}.20`],
            prefix: 24,
            gateway: `10.10.${e.value + 10}.1`,
            dnsServers: [`10.10.${e.value + 10}.1`],
          },
        });
      }
      break;
    case 'datastore':
      lab.management.datastore = { ...lab.management.datastore, replicas: e.value };
      break;
    case 'bridge':
      lab.proxmox.instances[0].bridge = e.value;
      break;
    case 'stateDir':
      lab.delivery = { backend: 'local', local: { stateDir: e.value } };
      break;
    case 'kubeconfig':
      lab.management.kubernetes = { configPath: e.value, context: 'lab-mgmt' };
      break;
  }
}

export function attempt(f: () => unknown): { ok: true } | { ok: false; message: string } {
  try {
    f();
    return { ok: true };
  } catch (e) {
    return { ok: false, message: (e as Error).message };
  }
}
