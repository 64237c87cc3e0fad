/**
 * Drift audit: compares what each Proxmox instance reports (`GET /cluster/resources`) with the
 * plan. Pure: the lab, its plan and the observed resources in, the findings out.
 *
 * What it keys on. pvekaas renders no per-VM tag (clones inherit their template's tags, `capi` and
 * the version, which say nothing about the tenant), but CAPMOX names each VM after its Machine,
 * and CAPI names a topology Machine `<cluster>-<machine deployment topology name>-<random>-<random>`;
 * pvekaas names the Cluster after the tenant and each machine deployment after its pool and node
 * (`<pool>-<node>`, or `<pool>-<instance>-<node>`, then `-<template hash>` where the class renders
 * one). So a VM whose name starts with `<tenant>-<machine deployment>-` is that machine
 * deployment's; the longest such prefix wins. Its planned place is the machine deployment's
 * instance and allowed nodes. VMs that are not templates and sit in the instance's CAPMOX pool
 * (`pools.vms`) or carry the tags of a template pvekaas builds (`capi` and one of the instance's
 * image versions), or in any tenant pool of that instance (`<pools.vms>-<tenant>`, the pool each
 * tenant's CAPMOX token creates its VMs in — also the pool of a tenant since deleted), but belong
 * to no planned machine deployment, are reported as orphans; so is a VM named for one tenant's
 * machine deployment that sits in another tenant's pool.
 */
import type { Lab } from '../config/schema';
import { compareNames } from '../placement/plan';
import type { PlacementPlan } from '../placement/types';
import { machineDeployments } from '../tenants/machine-deployments';
import { renderTenants } from '../tenants';
import { clusterName } from '../tenants/names';
import { tenantMachineDeployments } from './machine-deployments';
import { tenantProxmoxPool } from '../config/proxmox-access';

const MiB = 1024 * 1024;

/** One `type: qemu` entry of `GET /cluster/resources?type=vm`. */
export interface ResourceVm {
  vmid: number;
  node: string;
  name?: string;
  template?: number | boolean;
  tags?: string;
  pool?: string;
  status?: string;
}

/** One `type: node` entry of `GET /cluster/resources?type=node`. */
export interface ResourceNode {
  node: string;
  status?: string;
  maxcpu?: number;
  /** Bytes. */
  maxmem?: number;
}

export interface ObservedInstance {
  instance: string;
  vms: ResourceVm[];
  nodes: ResourceNode[];
}

export type Finding =
  | {
      kind: 'moved';
      instance: string;
      vmid: number;
      vm: string;
      tenant: string;
      pool: string;
      machineDeployment: string;
      planned: { instance: string; nodes: string[] };
      found: { instance: string; node: string };
    }
  | { kind: 'orphan'; instance: string; vmid: number; vm: string; node: string; why: string }
  | { kind: 'capacity'; instance: string; node: string; message: string };

export interface AuditReport {
  /** Per instance: VMs seen (templates left out), nodes seen. */
  read: { instance: string; vms: number; nodes: number }[];
  /** VMs matched to a planned machine deployment and where the plan wants them. */
  matched: number;
  findings: Finding[];
}

interface Owner {
  prefix: string;
  tenant: string;
  pool: string;
  machineDeployment: string;
  instance: string;
  nodes: string[];
}

const isTemplate = (vm: ResourceVm) => vm.template === 1 || vm.template === true;
const tagsOf = (vm: ResourceVm) =>
  (vm.tags ?? '')
    .split(/[;, ]/)
    .map((t) => t.trim().toLowerCase())
    .filter(Boolean);

/**
 * The CAPI Clusters of each tenant, as the tenant rendering names them: the tenant's own, plus
 * any per-instance secondary Clusters a multi-instance mode renders.
 */
function clustersOf(lab: Lab, plan: PlacementPlan): Map<string, string[]> {
  const names = new Map(plan.tenants.map((t) => [t.name, [clusterName(t)]]));
  try {
    for (const [tenant, rendering] of renderTenants(lab, plan)) {
      const clusters = (rendering as { clusters?: { cluster: string }[] }).clusters;
      if (clusters?.length) names.set(tenant, [...new Set([clusterName({ name: tenant }), ...clusters.map((c) => c.cluster)])]);
    }
  } catch {
    // A description the tenant rendering refuses still has its tenants' own Clusters.
  }
  return names;
}

/** Every planned machine deployment with the VM-name prefixes its machines get (one per Cluster of the tenant). */
export function owners(lab: Lab, plan: PlacementPlan): Owner[] {
  const list: Owner[] = [];
  const clusters = clustersOf(lab, plan);
  // Names as rendered (with the template hash) for the report; the base name for matching, so VMs
  // of an older template (before an upgrade finished, say) still match.
  const rendered = tenantMachineDeployments(lab, plan);
  for (const tenant of plan.tenants) {
    for (const md of machineDeployments(tenant)) {
      const shown =
        rendered.get(tenant.name)?.find((r) => r.pool === md.pool && r.instance === md.instance && r.nodes.join() === md.nodes.join())?.name ?? md.name;
      for (const cluster of clusters.get(tenant.name) ?? [clusterName(tenant)]) {
        list.push({
          prefix: `${cluster}-${md.name}-`,
          tenant: tenant.name,
          pool: md.pool,
          machineDeployment: shown,
          instance: md.instance,
          nodes: [...md.nodes],
        });
      }
    }
  }
  // Longest prefix first, so `workers-pmox-txl-10-` is tried before `workers-pmox-txl-1-`.
  return list.sort((a, b) => b.prefix.length - a.prefix.length || compareNames(a.prefix, b.prefix));
}

export function auditLab(lab: Lab, plan: PlacementPlan, observed: readonly ObservedInstance[]): AuditReport {
  const all = owners(lab, plan);
  const findings: Finding[] = [];
  let matched = 0;
  const read: AuditReport['read'] = [];
  for (const seen of observed) {
    const instance = lab.proxmox.instances.find((i) => i.name === seen.instance);
    if (!instance) continue;
    const vmPool = instance.pools.vms;
    const versions = new Set(instance.images.map((i) => i.kubernetesVersion.toLowerCase()));
    const vms = seen.vms.filter((vm) => !isTemplate(vm)).sort((a, b) => a.vmid - b.vmid);
    read.push({ instance: seen.instance, vms: vms.length, nodes: seen.nodes.length });
    for (const vm of vms) {
      const name = vm.name ?? '';
      const owner = all.find((o) => name.startsWith(o.prefix) && name.length > o.prefix.length);
      // A tenant pool of this instance: `<pools.vms>-<tenant>`, planned or not (a deleted tenant's pool outlives it).
      const tenantPool = vm.pool !== undefined && vm.pool.startsWith(`${vmPool}-`) && vm.pool.length > vmPool.length + 1;
      if (owner && tenantPool && vm.pool !== tenantProxmoxPool(instance, owner.tenant)) {
        findings.push({
          kind: 'orphan',
          instance: seen.instance,
          vmid: vm.vmid,
          vm: name,
          node: vm.node,
          why: `named for tenant ${owner.tenant}'s machine deployment ${owner.machineDeployment} but in pool ${vm.pool}, not in ${tenantProxmoxPool(instance, owner.tenant)}`,
        });
        continue;
      }
      if (owner) {
        if (owner.instance === seen.instance && owner.nodes.includes(vm.node)) {
          matched++;
          continue;
        }
        findings.push({
          kind: 'moved',
          instance: seen.instance,
          vmid: vm.vmid,
          vm: name,
          tenant: owner.tenant,
          pool: owner.pool,
          machineDeployment: owner.machineDeployment,
          planned: { instance: owner.instance, nodes: owner.nodes },
          found: { instance: seen.instance, node: vm.node },
        });
        continue;
      }
      const tags = tagsOf(vm);
      const inPool = vm.pool === vmPool || tenantPool;
      const tagged = tags.includes('capi') && tags.some((t) => versions.has(t));
      if (!inPool && !tagged) continue;
      const why = [inPool ? `in pool ${vm.pool}` : '', tagged ? `tagged ${tags.join(';')}` : ''].filter(Boolean).join(' and ');
      findings.push({ kind: 'orphan', instance: seen.instance, vmid: vm.vmid, vm: name || `(unnamed ${vm.vmid})`, node: vm.node, why });
    }
    // Capacity: the plan's reserve plus what it places on each node must still be there.
    const { reserve } = lab.proxmox;
    for (const usage of plan.nodes.filter((n) => n.instance === seen.instance)) {
      const node = seen.nodes.find((n) => n.node === usage.node);
      const planned = `the plan places ${usage.cpu.planned} cpu and ${usage.memoryMiB.planned} MiB there (after a reserve of ${reserve.cpu} cpu and ${reserve.memoryMiB} MiB)`;
      if (!node) {
        if (usage.cpu.planned > 0 || usage.memoryMiB.planned > 0)
          findings.push({
            kind: 'capacity',
            instance: seen.instance,
            node: usage.node,
            message: `node ${usage.node} is not in the cluster any more; ${planned}`,
          });
        continue;
      }
      if (node.status !== undefined && node.status !== 'online' && (usage.cpu.planned > 0 || usage.memoryMiB.planned > 0)) {
        findings.push({ kind: 'capacity', instance: seen.instance, node: usage.node, message: `node ${usage.node} is ${node.status}; ${planned}` });
        continue;
      }
      const cpu = node.maxcpu;
      const memoryMiB = node.maxmem !== undefined ? Math.floor(node.maxmem / MiB) : undefined;
      const short: string[] = [];
      if (cpu !== undefined && cpu - reserve.cpu < usage.cpu.planned) short.push(`${cpu} cpu`);
      if (memoryMiB !== undefined && memoryMiB - reserve.memoryMiB < usage.memoryMiB.planned) short.push(`${memoryMiB} MiB`);
      if (short.length > 0)
        findings.push({ kind: 'capacity', instance: seen.instance, node: usage.node, message: `node ${usage.node} has ${short.join(' and ')}; ${planned}` });
    }
  }
  return { read, matched, findings };
}

/** The audit as markdown: what was read, what it keys on, and every finding. */
export function renderAuditMarkdown(report: AuditReport, label: string): string {
  const lines = [`# Drift audit: ${label}`, ''];
  lines.push(
    `Read ${report.read.map((r) => `${r.instance} (${r.vms} VM${r.vms === 1 ? '' : 's'}, ${r.nodes} node${r.nodes === 1 ? '' : 's'})`).join(', ')}; ` +
      `${report.matched} VM${report.matched === 1 ? '' : 's'} of pvekaas's tenants where the plan puts them.`,
    '',
  );
  if (report.findings.length === 0) {
    lines.push('No drift.');
    return `${lines.join('\n')}\n`;
  }
  lines.push(`## Drift: ${report.findings.length} finding${report.findings.length === 1 ? '' : 's'}`, '');
  for (const f of report.findings) {
    if (f.kind === 'moved') {
      const where = f.found.instance === f.planned.instance ? `node ${f.found.node}` : `instance ${f.found.instance}, node ${f.found.node}`;
      lines.push(
        `- moved: VM ${f.vmid} ${f.vm} (tenant ${f.tenant}, pool ${f.pool}, machine deployment ${f.machineDeployment}) runs on ${where}; ` +
          `the plan puts it on ${f.planned.instance}/${f.planned.nodes.join(', ')} (Proxmox HA or a manual migration moved it; migrate it back, or the capacity the plan reserved is not where it thinks)`,
      );
    } else if (f.kind === 'orphan') {
      lines.push(
        `- orphan: VM ${f.vmid} ${f.vm} on ${f.instance}/${f.node}, ${f.why}, belongs to no planned machine deployment (a leftover of a deleted tenant or pool, or made by hand)`,
      );
    } else {
      lines.push(`- capacity: ${f.instance}/${f.node}: ${f.message}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
