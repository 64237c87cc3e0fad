/**
 * The tenant Kubernetes range (modules/versions/tenant-range.ts) and the rule that refuses a tenant
 * outside it at validate (versions.tenant-kubernetes): the newest minor the pinned Kamaji accepts,
 * the workload range of the pinned CAPI core (with the patch a minor is supported from), an
 * override of either, and previous.kubernetesVersion.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { parseLab } from '../../modules/config/load';
import { ProblemError, type Problem } from '../../modules/config/problems';
import { capiPreviousLane, pinnedVersions } from '../../modules/versions';
import { capiWorkloadRanges, kamajiKubeadmVersions, outsideTenantRange, tenantKubernetesRange } from '../../modules/versions/tenant-range';
import { KAMAJI_KUBEADM_VERSION } from '../../twin/kamaji-rules';

const example = readFileSync(join(__dirname, '../../examples/lab.yaml'), 'utf8');

/** The problems of rule versions.tenant-kubernetes for the example with `edit` applied (none when it parses). */
function rangeProblems(edit: (doc: ReturnType<typeof parseDocument>) => void): Problem[] {
  const doc = parseDocument(example);
  edit(doc);
  try {
    parseLab(doc.toString(), 'lab.yaml');
    return [];
  } catch (e) {
    if (!(e instanceof ProblemError)) throw e;
    return e.problems.filter((p) => p.rule === 'versions.tenant-kubernetes');
  }
}

/** tenant-a on `version`, with a template for it on its instance (so only the version rules speak). */
const tenantAOn = (version: string, previous?: string) => (doc: ReturnType<typeof parseDocument>) => {
  const templates = [version, ...(previous ? [previous] : [])].map((v, i) => ({ kubernetesVersion: v, templateID: 1001 + i }));
  doc.setIn(['proxmox', 'instances', 0, 'template', 'versions'], doc.createNode(templates));
  doc.setIn(['tenants', 0, 'kubernetesVersion'], version);
  if (previous) doc.setIn(['tenants', 0, 'previous'], doc.createNode({ kubernetesVersion: previous }));
};

describe('the tenant range of the pinned management plane', () => {
  it('is 1.30 to 1.36: CAPI 1.13 from 1.30, the pinned Kamaji and CAPI core up to 1.36', () => {
    const range = tenantKubernetesRange(pinnedVersions);
    expect(range).toMatchObject({ oldest: { minor: '1.30' }, newest: { minor: '1.36' }, unknown: [] });
    expect(outsideTenantRange(range, 'v1.35.4')).toBeUndefined();
    expect(outsideTenantRange(range, 'v1.36.3')).toBeUndefined();
    expect(outsideTenantRange(range, 'v1.37.2')).toMatch(/^Kubernetes 1\.37 is newer than Kamaji .* \(at most 1\.36\)$/);
    expect(outsideTenantRange(range, 'v1.29.15')).toMatch(
      new RegExp(
        `^Kubernetes 1\\.29 is older than CAPI ${pinnedVersions.clusterApi.replace(/\./g, '\\.')} supports for a workload cluster \\(at least 1\\.30\\)$`,
      ),
    );
  });

  it("reads the Kamaji bound from the same table as the twin's Kamaji webhook", () => {
    expect(KAMAJI_KUBEADM_VERSION).toBe(kamajiKubeadmVersions[pinnedVersions.kamajiImage]);
  });

  it('follows the CAPI patch a minor is supported from, and the CAPI minor', () => {
    // CAPI's table: 1.36 "✓ >= v1.12.8", 1.35 "✓ >= v1.12.1".
    expect(tenantKubernetesRange({ ...pinnedVersions, clusterApi: 'v1.12.7' }).newest).toEqual({ minor: '1.35', by: 'CAPI v1.12.7 (1.36 only from v1.12.8)' });
    expect(tenantKubernetesRange({ ...pinnedVersions, clusterApi: 'v1.12.0' }).newest?.minor).toBe('1.34');
    expect(tenantKubernetesRange({ ...pinnedVersions, clusterApi: 'v1.12.8' }).newest?.minor).toBe('1.36');
    expect(tenantKubernetesRange({ ...pinnedVersions, clusterApi: capiPreviousLane()!.version }).oldest?.minor).toBe(capiWorkloadRanges['1.12'].oldest);
    expect(tenantKubernetesRange(pinnedVersions).oldest?.minor).toBe(capiWorkloadRanges['1.13'].oldest);
    expect(tenantKubernetesRange({ ...pinnedVersions, clusterApi: 'v1.13.0' }).newest?.minor).toBe('1.35');
  });

  it('sets no bound from a release the table does not know, and says which', () => {
    const range = tenantKubernetesRange({ clusterApi: 'v1.99.0', kamajiImage: '27.1.1-edge' });
    expect(range).toEqual({ oldest: undefined, newest: undefined, unknown: ['Kamaji 27.1.1-edge', 'CAPI v1.99.0'] });
    expect(outsideTenantRange(range, 'v1.40.0')).toBeUndefined();
  });
});

describe('rule versions.tenant-kubernetes', () => {
  it('accepts the example and tenants on 1.35 and 1.36', () => {
    expect(rangeProblems(() => {})).toEqual([]);
    expect(rangeProblems(tenantAOn('v1.36.3'))).toEqual([]);
  });

  it("refuses a tenant above Kamaji's KubeadmVersion at its kubernetesVersion, with the range and the fix", () => {
    expect(rangeProblems(tenantAOn('v1.37.2'))).toEqual([
      expect.objectContaining({
        path: ['tenants', 0, 'kubernetesVersion'],
        value: 'v1.37.2',
        message: expect.stringContaining('Kubernetes 1.37 is newer than Kamaji'),
        fix: expect.stringContaining('run a Kubernetes minor from 1.30 to 1.36'),
      }),
    ]);
  });

  it('refuses workers of previous.kubernetesVersion older than CAPI supports, at previous', () => {
    // 1.30 → 1.31 with previous 1.30 is inside; 1.29 workers under a 1.30 control plane are not.
    expect(rangeProblems(tenantAOn('v1.31.14', 'v1.30.14'))).toEqual([]);
    expect(rangeProblems(tenantAOn('v1.30.14', 'v1.29.15'))).toEqual([
      expect.objectContaining({
        path: ['tenants', 0, 'previous', 'kubernetesVersion'],
        message: expect.stringContaining('Kubernetes 1.29 is older than CAPI'),
      }),
    ]);
  });

  it('follows an override of the CAPI core in management.versions', () => {
    const withCapi = (capi: string) => (doc: ReturnType<typeof parseDocument>) => {
      tenantAOn('v1.36.3')(doc);
      doc.setIn(['management', 'versions'], doc.createNode({ clusterApi: capi }));
    };
    expect(rangeProblems(withCapi('v1.12.7'))).toEqual([
      expect.objectContaining({
        path: ['tenants', 0, 'kubernetesVersion'],
        message: expect.stringContaining('newer than CAPI v1.12.7 (1.36 only from v1.12.8) supports (at most 1.35)'),
      }),
    ]);
    expect(rangeProblems(withCapi('v1.12.8'))).toEqual([]);
  });
});
