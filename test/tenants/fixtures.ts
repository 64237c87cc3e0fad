/** Labs, plans and CRDs shared by the tenant tests. */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse, stringify } from 'yaml';
import { loadPinnedCrds, type CrdSet } from '../support/crds';
import { parseLab } from '../../modules/config/load';
import type { Lab } from '../../modules/config/schema';
import { planPlacement } from '../../modules/placement';
import { ProblemError } from '../../modules/config/problems';
import { renderTenant } from '../../modules/tenants';
import type { PlacementPlan } from '../../modules/placement/types';

export const projectRoot = resolve(__dirname, '../..');

/**
 * CAPMOX's CRDs write a case-insensitive pattern the Go way, `^(?i)[a-z0-9_]...`, which
 * JavaScript regular expressions reject. Until test/support/crds.ts translates RE2's inline flags, the
 * tests spell such patterns out (`[a-z]` becomes `[a-zA-Z]`), which accepts the same strings.
 */
function withoutInlineFlags(value: any): any {
  if (Array.isArray(value)) return value.map(withoutInlineFlags);
  if (value === null || typeof value !== 'object') return value;
  const out: any = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = k === 'pattern' && typeof v === 'string' && v.includes('(?i)') ? v.replace('(?i)', '').replace(/a-z/g, 'a-zA-Z') : withoutInlineFlags(v);
  }
  return out;
}

let crds: CrdSet | undefined;
export function pinnedCrds(): CrdSet {
  if (!crds) {
    const loaded = loadPinnedCrds(projectRoot, process.env);
    const fixed = new Map(
      [...loaded.crds].map(([key, crd]) => [key, { ...crd, versions: crd.versions.map((v) => ({ ...v, schema: withoutInlineFlags(v.schema) })) }]),
    );
    crds = { crds: fixed, validators: new Map(), ajv: loaded.ajv };
  }
  return crds;
}

export const exampleText = readFileSync(resolve(projectRoot, 'examples/lab.yaml'), 'utf8');

/** The example lab in the proposal mode the tenant tests were written for (see labWith). */
export function exampleLab(): Lab {
  const doc = parse(exampleText);
  doc.capmox.multiInstance = 'proposal';
  delete doc.tenants[2].networks;
  return parseLab(stringify(doc), 'examples/lab.yaml');
}

/**
 * The example lab with changes applied to its parsed YAML (before validation). The tenant tests
 * start from the example as it renders tenant-c for the proposal's CAPMOX (the mode they were
 * written for): the example itself runs on released CAPMOX (secondary-clusters, proven by the twin).
 */
export function labWith(change: (doc: any) => void): Lab {
  const doc = parse(exampleText);
  doc.capmox.multiInstance = 'proposal';
  delete doc.tenants[2].networks;
  change(doc);
  return parseLab(stringify(doc), 'test.yaml');
}

export function planOf(lab: Lab): PlacementPlan {
  return planPlacement(lab);
}

/** The "dozen lines" tenant of the docs, added to the example lab. */
export const smallTenant = {
  name: 'tenant-d',
  kubernetesVersion: 'v1.35.4',
  pools: [{ name: 'workers', autoscaling: { min: 0, max: 4 }, size: { cpu: 2, memoryMiB: 4096, diskGiB: 30 } }],
  network: { addresses: ['10.10.4.10-10.10.4.40'], prefix: 24, gateway: '10.10.4.1', dnsServers: ['10.10.4.1'] },
  groups: ['team-d'],
};

/** The problems a call throws as a ProblemError (path joined with dots), or none; any other error is rethrown. */
export function thrownProblems(fn: () => unknown): { path: string; message: string; fix?: string }[] {
  try {
    fn();
  } catch (e) {
    if (e instanceof ProblemError) return e.problems.map((p) => ({ path: p.path.join('.'), message: p.message, fix: p.fix }));
    throw e;
  }
  return [];
}

/** One tenant's rendering, placed as the lab says. */
export const renderPlaced = (l: Lab, tenant: string) => renderTenant(l, planPlacement(l), tenant);

/** The topology machine deployments of a tenant rendering's Cluster. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the rendered Cluster is a plain object read by path
export const topologyMds = (r: ReturnType<typeof renderPlaced>) => (r.cluster as any).spec.topology.workers.machineDeployments as any[];
