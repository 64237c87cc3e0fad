/**
 * What the end-to-end suite of the instance stacks (instances.test.ts) expects, written out from the
 * lab (not from the code under test): the third instance, each instance's pools, storages, users,
 * tokens and ACLs, and what a pristine or comparable simulator state is.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PveClient } from '../../sim/client';
import { parseLab } from '../../modules/config/load';
import type { InstanceSnapshot } from '../../sim/simulator';
import { projectRoot } from '../../sim/toolchain';

const root = projectRoot();

export const v131Url = 'https://images.lab.example/ubuntu-2404-kube-v1.36.1.raw';
export const v131Sha256 = 'd2a4f1c0b9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2';

/** A third instance unlike the example's two: other names for pools, storages and bridge, two versions on different nodes. */
export const third = {
  name: 'pmox-ber',
  endpoint: 'https://pmox-ber.lab.example:8006/',
  nodes: [
    { name: 'ber-a', cpu: 16, memoryMiB: 65536 },
    { name: 'ber-b', cpu: 16, memoryMiB: 65536 },
  ],
  template: { templateSelector: { matchTags: ['capi', 'v1.36.1'] } },
  images: [
    { kubernetesVersion: 'v1.35.4', url: 'https://images.lab.example/ubuntu-2404-kube-v1.35.4.qcow2', nodes: ['ber-a'] },
    { kubernetesVersion: 'v1.36.1', url: v131Url, checksum: v131Sha256, nodes: ['ber-b'] },
  ],
  vmIdRange: { start: 7000, end: 7099 },
  storage: { disks: 'fast-thin', images: 'images-dir', cloudInit: 'ci-dir' },
  bridge: 'vmbr1',
  pools: { vms: 'k8s-machines', templates: 'k8s-templates' },
};

export const instances = ['pmox-txl', 'pmox-fra', 'pmox-ber'];

/** The example lab's own storage names (its disks may be local or shared). */
export const exampleLab = parseLab(readFileSync(join(root, 'examples/lab.yaml'), 'utf8'));
export const disksOf = (name: string) => exampleLab.proxmox.instances.find((i) => i.name === name)!.storage.disks;
/** The nodes the example builds its pmox-fra template on: as listed, or the first by name. */
export const fraImageNodes = [...(exampleLab.proxmox.instances.find((i) => i.name === 'pmox-fra')!.images[0].nodes ?? ['pmox-fra-1'])].sort();

/**
 * What each instance must end up with, written out from the lab (not from the code under test).
 * The example's placement: tenant-a (Default) and tenant-b (SingleInstance) on pmox-txl, tenant-c
 * (MultiInstance over pmox-txl and pmox-fra) on both; no tenant on pmox-ber, so no token there.
 */
export const expected: Record<
  string,
  {
    tenants: string[];
    vmPoolPrefix: string;
    templatePool: string;
    templateGrant: [string, boolean];
    bridge: string;
    disks: string;
    cloudInit: string;
    templates: Record<string, Record<string, number>>;
  }
> = {
  'pmox-txl': {
    tenants: ['tenant-a', 'tenant-b', 'tenant-c'],
    vmPoolPrefix: 'capi',
    templatePool: 'templates',
    templateGrant: ['/vms/1000', false],
    bridge: 'vmbr0',
    disks: disksOf('pmox-txl'),
    cloudInit: 'capmox-cloudinit',
    templates: {},
  },
  'pmox-fra': {
    tenants: ['tenant-c'],
    vmPoolPrefix: 'capi',
    templatePool: 'templates',
    templateGrant: ['/pool/templates', true],
    bridge: 'vmbr0',
    disks: disksOf('pmox-fra'),
    cloudInit: 'capmox-cloudinit',
    // 9000–9049 over 3 nodes: 16 slots of 4 minors × 4 patches; v1.35.4 → slot (35 mod 4)·4 + (4 mod 4) = 12 → 9036
    // on pmox-fra-1, 9037 and 9038 on the next nodes by name; built on the image's nodes (default the first by name).
    templates: { 'v1.35.4': Object.fromEntries(fraImageNodes.map((n) => [n, 9036 + ['pmox-fra-1', 'pmox-fra-2', 'pmox-fra-3'].indexOf(n)])) },
  },
  'pmox-ber': {
    tenants: [],
    vmPoolPrefix: 'k8s-machines',
    templatePool: 'k8s-templates',
    templateGrant: ['/pool/k8s-templates', true],
    bridge: 'vmbr1',
    disks: 'fast-thin',
    cloudInit: 'ci-dir',
    // 7000–7099 over 2 nodes: 50 slots of 4 minors × 12 patches; v1.35.4 → 3·12+4 = 40 → 7080; v1.36.1 → 0·12+1 = 1 → 7002 (+1: ber-b is the second node).
    templates: { 'v1.35.4': { 'ber-a': 7080 }, 'v1.36.1': { 'ber-b': 7003 } },
  },
};

/** The grants every token of the instance holds (and the user). */
export function sharedAcl(instance: string): [string, string, boolean][] {
  const e = expected[instance];
  return [
    ['/', 'CapmoxSysAudit', false],
    ['/nodes', 'CapmoxSysAudit', true],
    [e.templateGrant[0], 'PVETemplateUser', e.templateGrant[1]],
    [`/storage/${e.disks}`, 'CapmoxDatastoreAllocateSpace', true],
  ];
}

export const poolOf = (instance: string, tenant: string) => `${expected[instance].vmPoolPrefix}-${tenant}`;
/** The tenant's own cloud-init storage on the instance. */
export const cloudInitOf = (instance: string, tenant: string) => `${expected[instance].cloudInit}-${tenant}`;

/** A tenant's own grants: its pool, its cloud-init storage, the bridge untagged only (the example's tenants have no VLAN), none propagating but the pool. */
export function ownAcl(instance: string, tenant: string): [string, string, boolean][] {
  return [
    [`/pool/${poolOf(instance, tenant)}`, 'PVEVMAdmin', true],
    [`/storage/${cloudInitOf(instance, tenant)}`, 'CapmoxCloudInit', false],
    [`/sdn/zones/localnetwork/${expected[instance].bridge}`, 'PVESDNUser', false],
  ];
}

/** The user's ACL: the shared grants and every tenant's own (the bridge's once). */
export function userAcl(instance: string): [string, string, boolean][] {
  const rows = [...sharedAcl(instance), ...expected[instance].tenants.flatMap((t) => ownAcl(instance, t))];
  return [...new Map(rows.map((r) => [`${r[0]} ${r[1]}`, r])).values()];
}

/** A tenant's token: the shared grants and its own, nothing of another tenant. */
export function tokenAcl(instance: string, tenant: string): [string, string, boolean][] {
  return [...sharedAcl(instance), ...ownAcl(instance, tenant)];
}

export const sortAcl = (rows: [string, string, boolean][]) => rows.slice().sort((a, b) => a[0].localeCompare(b[0]) || a[1].localeCompare(b[1]));

export interface Credentials {
  url: string;
  tenants: Record<string, { token: string; secret: string }>;
}

/** A client with one tenant's CAPMOX token. */
export const tenantClient = (creds: Credentials, tenant: string) =>
  new PveClient(`${creds.url}/`, `${creds.tenants[tenant].token}=${creds.tenants[tenant].secret}`);

/** Only what existed before any apply: root and its token, and the template the lab names by id. */
export function expectPristine(s: InstanceSnapshot): void {
  expect({
    instance: s.name,
    users: s.users.map((u) => u.userid),
    tokens: s.tokens.map((t) => t.tokenid),
    roles: s.roles,
    acl: s.acl,
    pools: s.pools,
    madeStorages: s.storages.filter((st) => st.path !== undefined),
  }).toEqual({
    instance: s.name,
    users: ['root@pam'],
    tokens: ['root@pam!pvekaas'],
    roles: {},
    acl: [],
    pools: [],
    madeStorages: [],
  });
  const preexisting = s.name === 'pmox-txl' ? [1000] : [];
  expect({
    instance: s.name,
    vms: s.vms.map((vm) => vm.vmid),
    volumes: s.volumes.filter((v) => v.vmid === undefined || !preexisting.includes(v.vmid)).map((v) => v.volid),
  }).toEqual({
    instance: s.name,
    vms: preexisting,
    volumes: [],
  });
}

/** A snapshot without what legitimately differs between two runs (tasks, creation times). */
export function comparable(s: InstanceSnapshot) {
  return {
    ...s,
    tasks: undefined,
    // PVE gives every VM a random SMBIOS UUID and VM generation id.
    vms: s.vms.map((vm) => ({ ...vm, config: { ...vm.config, meta: undefined, smbios1: undefined, vmgenid: undefined } })),
  };
}
