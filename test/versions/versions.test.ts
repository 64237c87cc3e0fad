/**
 * The version table matches the upstream metadata.yaml files of the pinned modules (the CRD tree), and the guard
 * refuses combinations whose contracts differ while accepting the pinned one.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { crdsDir } from '../support/crds';
import {
  capiMinorOf,
  capiPreviousLane,
  capiProviders,
  checkVersions,
  crdDirsFor,
  contractOf,
  crdDirOf,
  imageInventory,
  KAMAJI_CHART_LATEST,
  imageRef,
  pinnedCrdDirs,
  pinnedVersions,
  resolveVersions,
  type CapiProvider,
  type ManagementVersions,
} from '../../modules/versions';

const root = crdsDir(resolve(__dirname, '../..'), process.env);

function upstreamSeries(provider: CapiProvider): { major: number; minor: number; contract: string }[] {
  const doc = parse(readFileSync(join(root, provider.metadataFile), 'utf8'));
  return (doc.releaseSeries as { major: number; minor: number; contract: string }[])
    .map(({ major, minor, contract }) => ({ major, minor, contract }))
    .sort((a, b) => a.major - b.major || a.minor - b.minor);
}

const errors = (v: ManagementVersions) => checkVersions(v).filter((f) => f.severity === 'error');
const warnings = (v: ManagementVersions) => checkVersions(v).filter((f) => f.severity === 'warning');

describe('the version table', () => {
  it.each(capiProviders.map((p) => [p.name, p] as const))('%s: release series and contracts are exactly those of its metadata.yaml', (_name, provider) => {
    const ours = [...provider.releaseSeries].sort((a, b) => a.major - b.major || a.minor - b.minor);
    expect(ours).toEqual(upstreamSeries(provider));
  });

  it.each(capiProviders.map((p) => [p.name, p] as const))('%s: the pinned release is covered by its metadata.yaml', (_name, provider) => {
    const version = pinnedVersions[provider.versionKey] as string;
    const [major, minor] = version.replace(/^v/, '').split('.').map(Number);
    expect(upstreamSeries(provider)).toContainEqual(expect.objectContaining({ major, minor }));
    expect(contractOf(provider, version)).toBe('v1beta2');
  });

  it("knows the older Kamaji provider v0.19.0 implements v1beta1 (from the pinned release's metadata.yaml: v0.19.0's own file stops at 0.18)", () => {
    const next = parse(readFileSync(join(root, `${crdDirOf('kamajiProvider')}/metadata.yaml`), 'utf8'));
    const v019 = next.releaseSeries.find((s: { minor: number }) => s.minor === 19);
    const kamaji = capiProviders.find((p) => p.name === 'kamaji')!;
    expect(v019.contract).toBe('v1beta1');
    expect(contractOf(kamaji, 'v0.19.0')).toBe(v019.contract);
  });

  it('points at CRD directories that exist, one per pinned release', () => {
    for (const dir of pinnedCrdDirs()) expect(existsSync(join(root, dir))).toBe(true);
    expect(pinnedCrdDirs()).toContain(`cluster-api/${pinnedVersions.clusterApi}`);
    expect(pinnedCrdDirs()).toContain(`cluster-api-control-plane-provider-kamaji/${pinnedVersions.kamajiProvider}`);
    expect(pinnedCrdDirs()).toContain(`cluster-api-provider-proxmox/${pinnedVersions.proxmoxProvider}`);
    expect(pinnedCrdDirs()).toContain(`cluster-api-ipam-provider-in-cluster/${pinnedVersions.inClusterIpam}`);
    expect(pinnedCrdDirs()).toContain(`cluster-api-addon-provider-helm/${pinnedVersions.helmAddon}`);
    expect(pinnedCrdDirs()).toContain(`kamaji/${pinnedVersions.kamajiImage}`);
    expect(pinnedCrdDirs()).toContain(`metallb/v${pinnedVersions.metallb}`);
    expect(pinnedCrdDirs()).toContain(`cluster-api-operator/v${pinnedVersions.clusterApiOperator}`);
  });

  it('pins the release series the issue asks for', () => {
    expect(pinnedVersions.clusterApi).toMatch(/^v1\.13\.\d+$/);
    expect(capiPreviousLane()!.version).toMatch(/^v1\.12\.\d+$/);
    expect(pinnedVersions.kamajiProvider).toMatch(/^v0\.20\.\d+$/);
    expect(pinnedVersions.proxmoxProvider).toMatch(/^v0\.9\.\d+$/);
    expect(pinnedVersions.inClusterIpam).toMatch(/^v1\.1\.\d+$/);
    expect(pinnedVersions.helmAddon).toMatch(/^v0\.6\.\d+$/);
    expect(pinnedVersions.kamajiChart).toBe(KAMAJI_CHART_LATEST);
    expect(pinnedVersions.kamajiImage).toMatch(/-edge$/);
    expect(pinnedVersions.clusterApiOperator).toMatch(/^0\.28\.\d+$/);
  });

  it('lists no image by a moving tag', () => {
    for (const image of imageInventory(pinnedVersions)) {
      expect(image.tag).not.toMatch(/latest|^dev$|^main$|^master$/);
      expect(image.repository).toMatch(/^[a-z0-9.-]+\.[a-z]+\//); // registry host spelled out
    }
  });
});

describe('the version guard', () => {
  it('accepts the pinned combination', () => {
    expect(errors(pinnedVersions)).toEqual([]);
  });

  it('warns about the known CAPMOX build skew (CAPI 1.12 vs core 1.13) and says it is contract-compatible; the Kamaji provider, built on 1.13, has none', () => {
    const capmox = warnings(pinnedVersions).find((f) => f.key === 'proxmoxProvider');
    expect(capmox?.message).toMatch(/CAPMOX v0\.9\.0 is built on CAPI 1\.12 .* while the core is 1\.13; both implement contract v1beta2/);
    expect(capmox?.message).toMatch(/contract-compatible/);
    expect(warnings(pinnedVersions).find((f) => f.key === 'inClusterIpam')?.message).toMatch(/built on CAPI 1\.11\.2 while the core is 1\.13/);
    expect(warnings(pinnedVersions).find((f) => f.key === 'helmAddon')?.message).toMatch(/CAAPH v0\.6\.2 is built on CAPI 1\.12 while the core is 1\.13/);
    expect(warnings(pinnedVersions).filter((f) => f.key === 'kamajiProvider')).toEqual([]);
  });

  it('warns that the Kamaji image has no digest while none is recorded, and stops when one is given', () => {
    expect(warnings(pinnedVersions).map((f) => f.key)).toContain('kamajiImageDigest');
    const withDigest = resolveVersions({ kamajiImageDigest: `sha256:${'a'.repeat(64)}` });
    expect(warnings(withDigest).map((f) => f.key)).not.toContain('kamajiImageDigest');
    expect(imageRef(imageInventory(withDigest).find((i) => i.repository.endsWith('clastix/kamaji'))!)).toBe(
      `docker.io/clastix/kamaji:${pinnedVersions.kamajiImage}@sha256:${'a'.repeat(64)}`,
    );
  });

  it('refuses a Kamaji provider of the v1beta1 contract with a v1beta2 core, naming both sides', () => {
    const found = errors(resolveVersions({ kamajiProvider: 'v0.19.0' }));
    expect(found).toHaveLength(1);
    expect(found[0].key).toBe('kamajiProvider');
    expect(found[0].message).toContain('kamaji v0.19.0 implements CAPI contract v1beta1');
    expect(found[0].message).toContain(`core cluster-api ${pinnedVersions.clusterApi} implements v1beta2`);
    expect(found[0].fix).toContain('0.20');
  });

  it('refuses a v1beta1-contract core with v1beta2 providers, naming each provider and the core', () => {
    const found = errors(resolveVersions({ clusterApi: 'v1.10.4' }));
    expect(found.map((f) => f.key).sort()).toEqual(['helmAddon', 'inClusterIpam', 'kamajiProvider', 'proxmoxProvider']);
    for (const f of found) expect(f.message).toContain('core cluster-api v1.10.4 implements v1beta1');
  });

  it('refuses a release whose contract it cannot know', () => {
    const found = errors(resolveVersions({ proxmoxProvider: 'v0.10.0' }));
    expect(found[0].message).toMatch(/cannot tell which CAPI contract proxmox v0\.10\.0 implements/);
  });

  it('refuses "latest" everywhere except the Kamaji chart\'s only published version', () => {
    expect(errors(resolveVersions({ metallb: 'latest' })).map((f) => f.key)).toEqual(['metallb']);
    expect(errors(resolveVersions({ kamajiImage: 'latest' })).map((f) => f.key)).toEqual(['kamajiImage']);
    expect(errors(resolveVersions({ kamajiChart: KAMAJI_CHART_LATEST }))).toEqual([]);
    expect(errors(resolveVersions({ kamajiChart: '1.0.0-latest' })).map((f) => f.key)).toEqual(['kamajiChart']);
  });

  it('refuses malformed pins', () => {
    expect(errors(resolveVersions({ certManager: pinnedVersions.certManager.replace(/^v/, '') })).map((f) => f.key)).toEqual(['certManager']);
    expect(errors(resolveVersions({ kamajiImageDigest: 'sha256:abc' })).map((f) => f.key)).toEqual(['kamajiImageDigest']);
  });

  it('warns when a compatible provider is built on another CAPI minor, and names both minors', () => {
    const onPrevious = { clusterApi: capiPreviousLane()!.version };
    const caaph = warnings(resolveVersions({ ...onPrevious, helmAddon: 'v0.6.4' })).find((f) => f.key === 'helmAddon' && /built against/.test(f.message));
    expect(caaph?.message).toContain('CAPI 1.13');
    expect(caaph?.message).toContain('1.12');
    expect(errors(resolveVersions({ helmAddon: 'v0.6.4' }))).toEqual([]);
    // On the default core (1.13) the same CAAPH release has no skew to warn about.
    expect(warnings(resolveVersions({ helmAddon: 'v0.6.4' })).filter((f) => f.key === 'helmAddon' && /built against/.test(f.message))).toEqual([]);
  });

  describe('the previous CAPI lane (toolchain.json capiPrevious)', () => {
    const lane = capiPreviousLane()!;
    const onLane = resolveVersions({ clusterApi: lane.version });

    it('is the minor before the pinned core, with the same module, and its CRD tree holds its CRDs and metadata.yaml', () => {
      expect(lane.module).toBe(capiProviders[0].repository.replace('https://github.com/kubernetes-sigs/', 'sigs.k8s.io/'));
      const minor = (v: string) => Number(capiMinorOf(capiProviders[0], v)!.split('.')[1]);
      expect(minor(lane.version)).toBe(minor(pinnedVersions.clusterApi) - 1);
      expect(existsSync(join(root, lane.crdDir, 'metadata.yaml'))).toBe(true);
      expect(existsSync(join(root, lane.crdDir, 'cluster.x-k8s.io_machines.yaml'))).toBe(true);
      // The core's release series are read from the newest metadata.yaml there is: the pinned one's.
      expect(capiProviders[0].metadataFile).toBe(`${crdDirOf('clusterApi')}/metadata.yaml`);
    });

    it("is covered by the pinned core's metadata.yaml (series and contract from that file), and the lane's own file is a subset of it", () => {
      const [major, minor] = lane.version.replace(/^v/, '').split('.').map(Number);
      const own = upstreamSeries(capiProviders[0]);
      expect(own).toContainEqual({ major, minor, contract: 'v1beta2' });
      expect(contractOf(capiProviders[0], lane.version)).toBe('v1beta2');
      expect(
        contractOf(
          capiProviders.find((p) => p.kind === 'bootstrap')!,
          lane.version,
        ),
      ).toBe('v1beta2');
      const previous = parse(readFileSync(join(root, `${lane.crdDir}/metadata.yaml`), 'utf8')).releaseSeries as {
        major: number;
        minor: number;
        contract: string;
      }[];
      for (const s of previous) expect(own).toContainEqual({ major: s.major, minor: s.minor, contract: s.contract });
    });

    it('accepts the lane with the pinned providers, warning what is true: the Kamaji provider built on 1.13, IPAM on 1.11, the lane and the move named', () => {
      expect(errors(onLane)).toEqual([]);
      const byKey = new Map(warnings(onLane).map((f) => [f.key, f]));
      expect(byKey.get('kamajiProvider')?.message).toMatch(/Kamaji provider v0\.20\.0 is built on CAPI 1\.13\.2 while the core is 1\.12/);
      expect(byKey.get('inClusterIpam')?.message).toMatch(/built on CAPI 1\.11\.2 while the core is 1\.12/);
      // CAPMOX and CAAPH are built on 1.12: no skew with a 1.12 core.
      expect(warnings(onLane).filter((f) => f.key === 'proxmoxProvider' || f.key === 'helmAddon')).toEqual([]);
      expect(byKey.get('clusterApi')?.message).toContain('the previous Cluster API lane');
      expect(byKey.get('clusterApi')?.message).not.toContain('validated against the CRDs of');
      expect(byKey.get('clusterApi')?.fix).toMatch(/remove management\.versions\.clusterApi .*"Moving from Cluster API 1\.12 to 1\.13"/);
    });

    it('still refuses a 1.12 patch with a provider of another contract, and a CAPI minor it knows nothing of', () => {
      expect(errors(resolveVersions({ clusterApi: lane.version, kamajiProvider: 'v0.19.0' })).map((f) => f.key)).toEqual(['kamajiProvider']);
      expect(errors(resolveVersions({ clusterApi: 'v1.14.0' }))[0].message).toMatch(/cannot tell which CAPI contract cluster-api v1\.14\.0 implements/);
    });

    it("installs the lane's CRDs instead of the pinned CAPI ones for a lab on it, and only then", () => {
      expect(crdDirsFor(pinnedVersions)).toEqual(pinnedCrdDirs());
      expect(crdDirsFor(onLane)).toContain(lane.crdDir);
      expect(crdDirsFor(onLane)).not.toContain(crdDirOf('clusterApi'));
      expect(crdDirsFor(onLane)).toHaveLength(pinnedCrdDirs().length);
    });
  });

  it('drops the pinned digest when the Kamaji tag is overridden without a new digest', () => {
    const v = resolveVersions({ kamajiImage: '26.7.5-edge' });
    expect(v.kamajiImageDigest).toBeUndefined();
  });
});

describe('cluster-autoscaler pins', () => {
  const { autoscalerImageTags, autoscalerTagEvidence } = require('../../modules/versions/cni');
  const patch = (tag: string) => Number(/^v\d+\.\d+\.(\d+)$/.exec(tag)![1]);

  it('pins one tag per minor, of that minor, each with how it is known', () => {
    expect(Object.keys(autoscalerTagEvidence).sort()).toEqual(Object.keys(autoscalerImageTags).sort());
    for (const [minor, tag] of Object.entries(autoscalerImageTags) as [string, string][]) {
      expect(tag.startsWith(`v${minor}.`)).toBe(true);
      expect(autoscalerTagEvidence[minor].source.length).toBeGreaterThan(20);
    }
  });

  it('pins 1.33 at or after 1.33.1, the first that scales a CAPI node group to 0 (kubernetes/autoscaler#8412)', () => {
    expect(patch(autoscalerImageTags['1.33'])).toBeGreaterThanOrEqual(1);
  });

  it('names the release of every tag it calls verified', () => {
    for (const [minor, e] of Object.entries(autoscalerTagEvidence) as [string, { verified: boolean; source: string }][]) {
      if (e.verified) expect(e.source).toContain(`cluster-autoscaler-${autoscalerImageTags[minor].slice(1)}`);
    }
  });
});
