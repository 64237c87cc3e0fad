/**
 * The version guard: refuses a combination Cluster API would not run. `checkVersions` refuses
 * providers whose contract differs from the core's, naming both sides, and warns when a provider is
 * built against another CAPI minor than the core. Overrides come from `management.versions` in the
 * lab description (`resolveVersions`); they go through the same guard. No pin is ever `latest` —
 * with one documented exception: the Kamaji chart, whose only published version says so.
 */
import {
  KAMAJI_CHART_LATEST,
  KAMAJI_DIGEST_NOTE,
  capiPreviousLane,
  crdDirOf,
  pinnedVersions,
  versionKeys,
  type ComponentKey,
  type ManagementVersions,
  type VersionKey,
} from './pins';
import { capiMinorOf, capiProviders, contractOf, type CapiProvider } from './providers';

/** The pins with a lab's `management.versions` applied. */
export function resolveVersions(overrides: Partial<Record<VersionKey, string>> = {}): ManagementVersions {
  const merged: Record<string, string | undefined> = { ...pinnedVersions };
  for (const key of versionKeys) {
    const value = overrides[key];
    if (value !== undefined) merged[key] = value;
  }
  // A recorded digest belongs to the pinned tag; a different tag without its own digest has none.
  if (overrides.kamajiImage !== undefined && overrides.kamajiImage !== pinnedVersions.kamajiImage && overrides.kamajiImageDigest === undefined) {
    merged.kamajiImageDigest = undefined;
  }
  return merged as unknown as ManagementVersions;
}

/** A finding of the version guard, against one `management.versions` key. */
export interface VersionFinding {
  readonly severity: 'error' | 'warning';
  readonly key: VersionKey;
  readonly message: string;
  readonly fix?: string;
  /** Other keys whose override also makes this finding (a build skew is the provider's and the core's). */
  readonly related?: readonly VersionKey[];
}

const SEMVER_V = /^v\d+\.\d+\.\d+$/;
const SEMVER = /^\d+\.\d+\.\d+$/;
const formats: Record<VersionKey, { pattern: RegExp; example: string }> = {
  clusterApi: { pattern: SEMVER_V, example: pinnedVersions.clusterApi },
  kamajiProvider: { pattern: SEMVER_V, example: pinnedVersions.kamajiProvider },
  proxmoxProvider: { pattern: SEMVER_V, example: pinnedVersions.proxmoxProvider },
  inClusterIpam: { pattern: SEMVER_V, example: pinnedVersions.inClusterIpam },
  helmAddon: { pattern: SEMVER_V, example: pinnedVersions.helmAddon },
  clusterApiOperator: { pattern: SEMVER, example: pinnedVersions.clusterApiOperator },
  certManager: { pattern: SEMVER_V, example: pinnedVersions.certManager },
  kamajiChart: { pattern: /^\d+\.\d+\.\d+(\+[0-9A-Za-z.-]+)?$/, example: pinnedVersions.kamajiChart },
  kamajiImage: { pattern: /^(\d{2}\.\d{1,2}\.\d+-edge|edge-\d{2}\.\d{1,2}\.\d+)$/, example: pinnedVersions.kamajiImage },
  kamajiImageDigest: { pattern: /^sha256:[a-f0-9]{64}$/, example: 'sha256:<64 hex digits>' },
  kamajiEtcd: { pattern: SEMVER, example: pinnedVersions.kamajiEtcd },
  etcd: { pattern: /^v3\.\d+\.\d+$/, example: pinnedVersions.etcd },
  metallb: { pattern: SEMVER, example: pinnedVersions.metallb },
  localpvProvisioner: { pattern: SEMVER, example: pinnedVersions.localpvProvisioner },
  localPathProvisioner: { pattern: SEMVER, example: pinnedVersions.localPathProvisioner },
  kubectl: { pattern: SEMVER_V, example: pinnedVersions.kubectl },
  rclone: { pattern: SEMVER, example: pinnedVersions.rclone },
};

/** How the guard names the components whose CRDs the rendered manifests are validated against. */
const crdTitles: [ComponentKey, string][] = [
  ['clusterApi', 'cluster-api'],
  ['kamajiProvider', 'the Kamaji provider'],
  ['proxmoxProvider', 'CAPMOX'],
  ['inClusterIpam', 'in-cluster IPAM'],
  ['helmAddon', 'CAAPH'],
  ['clusterApiOperator', 'cluster-api-operator'],
  ['kamajiImage', 'Kamaji'],
  ['metallb', 'MetalLB'],
];

function knownSeries(provider: CapiProvider): string {
  return provider.releaseSeries.map((s) => `${s.major}.${s.minor}`).join(', ');
}

/**
 * The version guard. Errors: a pin that says `latest` (except the Kamaji chart's only version), a
 * malformed version, a provider release whose contract is unknown or differs from the core's.
 * Warnings: a provider built against another CAPI minor than the core, a missing Kamaji digest,
 * an override whose CRDs pvekaas has not validated against.
 */
/** A provider release whose series its metadata.yaml does not list: its contract is unknown. */
function unknownContract(provider: (typeof capiProviders)[number], version: string): VersionFinding {
  return {
    severity: 'error',
    key: provider.versionKey,
    message: `cannot tell which CAPI contract ${provider.name} ${version} implements: its release series is not in ${provider.metadataFile} (known: ${knownSeries(provider)})`,
    fix: `add the metadata.yaml of ${provider.name} ${version} to the CRD tree (modules/versions/toolchain.json, key crds) and its release series to modules/versions, or use ${pinnedVersions[provider.versionKey]}`,
  };
}

export function checkVersions(versions: ManagementVersions): VersionFinding[] {
  const findings: VersionFinding[] = [];
  for (const key of versionKeys) {
    const value = versions[key];
    if (value === undefined) continue;
    if (/latest/i.test(value) && !(key === 'kamajiChart' && value === KAMAJI_CHART_LATEST)) {
      findings.push({
        severity: 'error',
        key,
        message: `${key} is "${value}": pins are never "latest" (the same description must install the same software every time)`,
        fix: `pin an exact version such as ${formats[key].example}`,
      });
      continue;
    }
    if (!formats[key].pattern.test(value)) {
      findings.push({ severity: 'error', key, message: `${key} "${value}" is not a version pvekaas can pin`, fix: `write it like ${formats[key].example}` });
    }
  }

  const core = capiProviders[0];
  const coreVersion = versions[core.versionKey] as string;
  const coreContract = contractOf(core, coreVersion);
  const coreMinor = capiMinorOf(core, coreVersion);
  if (coreContract === undefined) findings.push(unknownContract(core, coreVersion));
  for (const provider of capiProviders.slice(1)) {
    const version = versions[provider.versionKey] as string;
    const contract = contractOf(provider, version);
    if (contract === undefined) {
      findings.push(unknownContract(provider, version));
    } else if (coreContract !== undefined && contract !== coreContract) {
      const matching = provider.releaseSeries.filter((s) => s.contract === coreContract).map((s) => `${s.major}.${s.minor}`);
      findings.push({
        severity: 'error',
        key: provider.versionKey,
        message: `${provider.title} ${provider.name} ${version} implements CAPI contract ${contract}, but core ${core.name} ${coreVersion} implements ${coreContract}`,
        fix:
          matching.length > 0
            ? `use a ${provider.name} release of series ${matching.join(', ')} (contract ${coreContract})`
            : `no known ${provider.name} release implements ${coreContract}; change the core version instead`,
      });
    }
    if (coreMinor === undefined || provider.kind === 'bootstrap') continue;
    const built = capiMinorOf(provider, version);
    if (built === undefined) {
      findings.push({
        severity: 'warning',
        key: provider.versionKey,
        related: [core.versionKey],
        message: `cannot tell which CAPI minor ${provider.name} ${version} is built against (not in modules/versions); the contract check passed, but check its go.mod against core ${coreMinor}`,
      });
    } else if (built !== coreMinor) {
      const known = provider.knownSkew?.[version]?.[coreMinor];
      findings.push({
        severity: 'warning',
        key: provider.versionKey,
        related: [core.versionKey],
        message:
          known ??
          `${provider.title} ${provider.name} ${version} is built against CAPI ${built} while core ${core.name} ${coreVersion} is ${coreMinor}; the contracts match, but this combination is not one pvekaas has checked`,
      });
    }
  }

  if (versions.kamajiImageDigest === undefined) {
    findings.push({
      severity: 'warning',
      key: 'kamajiImageDigest',
      related: ['kamajiImage'],
      message: KAMAJI_DIGEST_NOTE,
      fix: `read it with \`crane digest docker.io/clastix/kamaji:${versions.kamajiImage}\` (or \`docker buildx imagetools inspect\`) and set management.versions.kamajiImageDigest: sha256:<digest>`,
    });
  }
  // Each CRD directory of the tree is named <name>/<tag>: the tag is the version its CRDs are of.
  const validatedAgainst = crdTitles.map(([key, title]): [VersionKey, string] => [key, `${title} ${crdDirOf(key)!.split('/').pop()}`]);
  const lane = capiPreviousLane();
  for (const [key, crds] of validatedAgainst) {
    if (key === 'clusterApi' && lane && versions.clusterApi === lane.version) {
      // The previous CAPI lane: its CRDs are in the tree and the twin runs its controllers, to move a lab from it.
      findings.push({
        severity: 'warning',
        key,
        message: `clusterApi is ${versions.clusterApi}, the previous Cluster API lane (the default is ${pinnedVersions.clusterApi}): pvekaas keeps it only for a running lab to move from; the lab twin runs this release's CRDs, webhooks, core and kubeadm bootstrap with the pinned providers and moves a running lab from it to the default (test/twin/capi-upgrade.test.ts)`,
        fix: `move: remove management.versions.clusterApi and deploy the management stack first (docs/management.md, "Moving from Cluster API 1.12 to 1.13")`,
      });
      continue;
    }
    if (versions[key] !== pinnedVersions[key]) {
      findings.push({
        severity: 'warning',
        key,
        message: `${key} is overridden to ${versions[key]}; the manifests pvekaas renders are validated against the CRDs of ${crds} only`,
      });
    }
  }
  return findings;
}
