/**
 * The version guard of a lab: `management.versions` checked against the version table (./guard)
 * and against `capmox.multiInstance`. It lives here, at the bottom of modules/ (arrows run one way:
 * config, management and the rendering read versions, never back), so it takes the two parts of a
 * lab it reads by shape and returns problems in the shape of modules/config/problems.ts `Problem`.
 */
import { capiPreviousLane, pinnedVersions, type ManagementVersions, type VersionKey } from './pins';
import { checkVersions, resolveVersions, type VersionFinding } from './guard';

/** What the guard reads of a lab (`Lab['management']['versions']`, `Lab['capmox']['multiInstance']`). */
export interface VersionGuardInput {
  readonly management: { readonly versions?: object };
  readonly capmox: { readonly multiInstance: string };
}

/**
 * A problem of the guard, at the override that caused it or at `management.versions`: the part of
 * modules/config/problems.ts `Problem` that pure code fills in (the `Problem` extends it; it is
 * defined here, below config, because the guard returns it).
 */
export interface VersionProblem {
  /** Path inside the description, as segments: ['tenants', 2, 'pools', 0, 'instance']. */
  path: (string | number)[];
  /** What is wrong, in a sentence. */
  message: string;
  /** The offending value, when there is one. */
  value?: unknown;
  /** How to fix it. */
  fix?: string;
  /** `error` (the default when absent) refuses the lab; `warning` is reported and the run goes on. */
  severity?: 'error' | 'warning';
  /**
   * `pvekaas`: a warning about pvekaas's own pins, not about anything the description says (issue 43):
   * printed as pvekaas's (`pvekaas: …`), never at a line of the user's file, and its fix never asks
   * for anything in the description unless it can help (no override of the lab makes the guard's).
   */
  origin?: 'pvekaas';
  /** `versions.guard` (modules/config/management-rules.ts) for the errors, wherever they are raised. */
  rule?: string;
}

export interface VersionGuard {
  /** The effective versions: the pins with the lab's overrides. */
  readonly versions: ManagementVersions;
  /** What refuses the lab, each at the override that caused it (or at `management.versions`). */
  readonly problems: VersionProblem[];
  /** What is allowed but worth knowing (build skew, a missing digest, a re-check in the twin): problems of severity `warning`. */
  readonly warnings: VersionProblem[];
}

/**
 * The version guard, the one place it runs for a lab: `management.versions` checked against the
 * version table (contracts, formats, `latest`) and against `capmox.multiInstance`. Validation
 * reports its problems; the management rendering refuses them and carries the warnings.
 */
export function versionGuard(lab: VersionGuardInput): VersionGuard {
  const overrides = lab.management.versions as Partial<Record<VersionKey, string>>;
  const versions = resolveVersions(overrides);
  const findings: VersionFinding[] = [...checkVersions(versions), ...secondaryClustersFindings(lab.capmox.multiInstance, versions)];
  const problems: VersionProblem[] = findings
    .filter((f) => f.severity === 'error')
    .map((f) => {
      const overridden = overrides[f.key] !== undefined;
      return {
        path: overridden ? ['management', 'versions', f.key] : ['management', 'versions'],
        message: f.message,
        ...(overridden ? { value: overrides[f.key] } : {}),
        ...(f.fix ? { fix: f.fix } : {}),
        rule: 'versions.guard',
      };
    });
  // A warning no override of the lab makes is about pvekaas's own pins: said as pvekaas's, with
  // nothing for the user to change (issue 43: four such warnings pointed at the user's management: line).
  const own = (f: VersionFinding) => [f.key, ...(f.related ?? [])].every((k) => overrides[k] === undefined);
  const warnings: VersionProblem[] = findings
    .filter((f) => f.severity === 'warning')
    .map((f) =>
      own(f)
        ? {
            path: ['management', 'versions', f.key],
            message: `${f.message} (in pvekaas's own pins; nothing in the lab description causes it)`,
            ...(f.fix ? { fix: `to act on it anyway: ${f.fix}` } : {}),
            severity: 'warning' as const,
            origin: 'pvekaas' as const,
          }
        : {
            // At the override that makes it: the key's own, else the related one (a skew the core's override makes).
            path: ['management', 'versions', [f.key, ...(f.related ?? [])].find((k) => overrides[k] !== undefined) ?? f.key],
            message: f.message,
            ...(f.fix ? { fix: f.fix } : {}),
            severity: 'warning' as const,
          },
    );
  return { versions, problems, warnings };
}

/**
 * What the version guard says about `capmox.multiInstance: secondary-clusters`: the route was read
 * from the source of exactly these releases (global credentials override credentialsRef; CABPK does
 * not read the control-plane object; MachineSet preflight skips a control plane without a version),
 * so an override of one of them is a warning to re-check it in the lab twin.
 */
export function secondaryClustersFindings(multiInstance: string, versions: ManagementVersions): VersionFinding[] {
  if (multiInstance !== 'secondary-clusters') return [];
  const keys: VersionKey[] = ['clusterApi', 'proxmoxProvider', 'kamajiProvider'];
  // The previous CAPI lane was checked too: the lab twin runs a secondary-clusters tenant on it, moves it to the default and
  // grows it there (test/twin/capi-upgrade.test.ts).
  const lane = capiPreviousLane();
  return keys
    .filter((key) => versions[key] !== pinnedVersions[key] && !(key === 'clusterApi' && lane && versions.clusterApi === lane.version))
    .map((key) => ({
      severity: 'warning' as const,
      key,
      message:
        `capmox.multiInstance secondary-clusters was checked against CAPI ${pinnedVersions.clusterApi}${lane ? ` (and ${lane.version}, the previous CAPI lane)` : ''}, CAPMOX ${pinnedVersions.proxmoxProvider} and the Kamaji provider ${pinnedVersions.kamajiProvider} ` +
        `(CAPMOX must run without global credentials, which override every credentialsRef; CABPK must not need to read the static control plane; MachineSet preflight must skip a control plane without spec.version); ` +
        `${key} is ${versions[key]}: re-check the route in the lab twin before applying`,
    }));
}
