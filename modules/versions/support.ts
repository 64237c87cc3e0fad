/**
 * Support windows: when each release series that a lab can run stops getting fixes upstream. The
 * version guard warns, with the date, for a tenant's Kubernetes version or a management-plane
 * component past its end of life, and for one that reaches it within `SOON_DAYS` of the day the
 * command runs. Pure: the day comes in as an argument (the commands pass today's date), so the same
 * lab on the same day gives the same warnings.
 *
 * Sources (read 2026-12-03):
 * - Kubernetes: the release pages of kubernetes.io (`/releases/<minor>`), "End Of Life Date". 1.30's
 *   end was extended to 2025-07-15 (its page); the others are the 28th of the month the schedule names.
 * - cert-manager: its supported-releases table (cert-manager/website `content/docs/releases/README.md`):
 *   each release is supported until the release after next; 1.18 ended with 1.20 (2026-03-10), 1.19
 *   with 1.21, at the latest 2026-07-10 (cert-manager/testing#1218, merged that day, removed 1.19 "since
 *   the release of 1.21"); that upper bound is the date written here.
 * - Cluster API: not a window per minor but its release calendar (`capiReleaseCalendar` below), from
 *   which each minor's maintenance mode and end of life follow by the upstream rule.
 */

/** One release series and the day its support ends (`YYYY-MM-DD`); `scheduled` when it is a plan, not a fact. */
export interface SupportWindow {
  readonly endOfLife: string;
  readonly scheduled?: boolean;
}

/** Kubernetes minors a tenant may run (`1.<minor>`), by end of life. Older minors than the first are past it. */
export const kubernetesSupport: Readonly<Record<string, SupportWindow>> = {
  '1.30': { endOfLife: '2025-07-15' },
  '1.31': { endOfLife: '2025-10-28' },
  '1.32': { endOfLife: '2026-02-28' },
  '1.33': { endOfLife: '2026-06-28' },
  '1.34': { endOfLife: '2026-10-27' },
  '1.35': { endOfLife: '2027-02-28' },
  '1.36': { endOfLife: '2027-06-28' },
  '1.37': { endOfLife: '2027-10-28' },
};

/** Management-plane components with a published support window, by series (`<major>.<minor>`). */
export const componentSupport: Readonly<Record<'certManager', Readonly<Record<string, SupportWindow>>>> = {
  certManager: {
    '1.18': { endOfLife: '2026-03-10' },
    '1.19': { endOfLife: '2026-07-10' },
  },
};

/** How many days ahead an end of life is announced. */
export const SOON_DAYS = 30;

/** The series of a version such as `v1.30.5` or `1.18.3`: `1.30`, `1.18`. */
export function seriesOf(version: string): string | undefined {
  const m = /^v?(\d{1,4})\.(\d{1,4})\./.exec(version);
  return m ? `${Number(m[1])}.${Number(m[2])}` : undefined;
}

function days(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

/** What the guard says of one version on one day, or nothing while it is supported for longer than SOON_DAYS. */
export interface SupportFinding {
  readonly series: string;
  readonly endOfLife?: string;
  /** `past`: its end of life is before `today` (or it is older than every known series); `soon`: within SOON_DAYS. */
  readonly state: 'past' | 'soon';
  readonly scheduled: boolean;
}

/**
 * The support state of `version` in `table` on `today` (`YYYY-MM-DD`). A series newer than every
 * listed one is taken as supported (nothing to say); one older than every listed one is past its end.
 */
export function supportOf(table: Readonly<Record<string, SupportWindow>>, version: string, today: string): SupportFinding | undefined {
  const series = seriesOf(version);
  if (series === undefined) return undefined;
  const window = table[series];
  if (window === undefined) {
    const [major, minor] = series.split('.').map(Number);
    const older = Object.keys(table).every((s) => {
      const [a, b] = s.split('.').map(Number);
      return major < a || (major === a && minor < b);
    });
    return older ? { series, state: 'past', scheduled: false } : undefined;
  }
  const left = days(today, window.endOfLife);
  if (left < 0) return { series, endOfLife: window.endOfLife, state: 'past', scheduled: window.scheduled === true };
  if (left <= SOON_DAYS) return { series, endOfLife: window.endOfLife, state: 'soon', scheduled: window.scheduled === true };
  return undefined;
}

/** The supported Kubernetes minors on `today`, oldest first (for a fix text). */
export function supportedKubernetesMinors(today: string): string[] {
  return Object.entries(kubernetesSupport)
    .filter(([, w]) => days(today, w.endOfLife) >= 0)
    .map(([s]) => s);
}

/** The sentence for a finding: `Kubernetes 1.30 is past its end of life (2025-07-15)`. */
export function describeSupport(what: string, f: SupportFinding): string {
  if (f.endOfLife === undefined) return `${what} ${f.series} is past its end of life (older than every series pvekaas knows the support window of)`;
  const when = f.scheduled ? `${f.endOfLife}, as scheduled` : f.endOfLife;
  return f.state === 'past'
    ? `${what} ${f.series} is past its end of life (${when}): it gets no security fixes`
    : `${what} ${f.series} reaches its end of life on ${when}`;
}

/**
 * The Cluster API release calendar: the day each minor's `.0` was released (`YYYY-MM-DD`), or is
 * scheduled to be (`scheduled`: the release team's plan, not yet a fact). Read 2026-12-07 in
 * kubernetes-sigs/cluster-api (main at ae7ff047db49, 2026-08-21):
 * - released: `docs/book/src/reference/versions.md`, "Cluster API release support" table, the
 *   "<date> - v1.N.0 release date" of each row (v1.8.0 2024-08-12, v1.9.0 2024-12-10, v1.10.0
 *   2025-04-22, v1.11.0 2025-08-12, v1.12.0 2025-12-18, v1.13.0 2026-04-21, v1.14.0 2026-08-18);
 * - scheduled: `docs/release/releases/release-1.15.md`, "v1.15.0 released": Tuesday 8th December 2026.
 *   No release-1.16.md exists yet: v1.16.0 has no date, so 1.13's end of life has none.
 */
export const capiReleaseCalendar: Readonly<Record<string, { readonly released: string; readonly scheduled?: boolean }>> = {
  '1.8': { released: '2024-08-12' },
  '1.9': { released: '2024-12-10' },
  '1.10': { released: '2025-04-22' },
  '1.11': { released: '2025-08-12' },
  '1.12': { released: '2025-12-18' },
  '1.13': { released: '2026-04-21' },
  '1.14': { released: '2026-08-18' },
  '1.15': { released: '2026-12-08', scheduled: true },
};

/** A step of a CAPI minor's support: the release that makes it, and its day when the calendar has one. */
export interface CapiMilestone {
  /** `v1.15.0`. */
  readonly release: string;
  readonly date?: string;
  readonly scheduled: boolean;
}

/**
 * What a CAPI minor is on one day. The rule (versions.md, "Cluster API release support"): the two
 * newest minors (N, N-1) are supported; N-2 is in maintenance mode (no change back-ported
 * proactively, an emergency patch case by case); each minor "is supported for a period of roughly 12
 * months", eight standard, four in maintenance, then EOL — in the table, a minor 1.M enters
 * maintenance "when v1.(M+2).0 will be released" and is "EOL when v1.(M+3).0 will be released".
 */
export interface CapiSupport {
  readonly series: string;
  /** `standard`: supported; `maintenance`: since `maintenance.date`; `end-of-life`: since `endOfLife.date`. */
  readonly phase: 'standard' | 'maintenance' | 'end-of-life';
  readonly maintenance: CapiMilestone;
  readonly endOfLife: CapiMilestone;
}

/** The support phase of CAPI `version` (`v1.12.3`) on `today` (`YYYY-MM-DD`, passed in: never the clock). */
export function capiSupportOn(version: string, today: string, calendar = capiReleaseCalendar): CapiSupport | undefined {
  const series = seriesOf(version);
  if (series === undefined) return undefined;
  const [major, minor] = series.split('.').map(Number);
  const milestone = (later: number): CapiMilestone => {
    const at = calendar[`${major}.${minor + later}`];
    return { release: `v${major}.${minor + later}.0`, ...(at ? { date: at.released } : {}), scheduled: at?.scheduled === true };
  };
  const maintenance = milestone(2);
  const endOfLife = milestone(3);
  const reached = (m: CapiMilestone) => m.date !== undefined && days(m.date, today) >= 0;
  const phase = reached(endOfLife) ? 'end-of-life' : reached(maintenance) ? 'maintenance' : 'standard';
  return { series, phase, maintenance, endOfLife };
}

/** `2026-12-08 (the release of v1.15.0, as scheduled)`, or `with the release of v1.16.0, which has no date yet`. */
export function describeMilestone(m: CapiMilestone): string {
  if (m.date === undefined) return `with the release of ${m.release}, which has no date yet`;
  return `${m.date} (the release of ${m.release}${m.scheduled ? ', as scheduled' : ''})`;
}

/**
 * What the version guard says of CAPI `version` on `today`: past its end of life; in maintenance
 * mode (`soon` when its end of life is within SOON_DAYS); or nothing while in standard support. A warning, not a refusal: an end-of-life
 * release still runs and the lab must stay deployable (day two, the move itself); what the
 * project refuses at synth are combinations that do not run (./guard.ts).
 */
export function capiSupportFinding(
  version: string,
  today: string,
  calendar = capiReleaseCalendar,
): { phase: CapiSupport['phase'] | 'soon'; message: string } | undefined {
  const s = capiSupportOn(version, today, calendar);
  if (s === undefined) return undefined;
  const what = `Cluster API ${s.series}`;
  if (s.phase === 'end-of-life')
    return {
      phase: 'end-of-life',
      message: `${what} is past its end of life since ${describeMilestone(s.endOfLife)}: upstream fixes nothing in it, not even security issues`,
    };
  const eol = s.endOfLife.date;
  const soon = eol !== undefined && days(today, eol) <= SOON_DAYS;
  if (s.phase === 'maintenance')
    return {
      phase: soon ? 'soon' : 'maintenance',
      message: soon
        ? `${what} reaches its end of life on ${describeMilestone(s.endOfLife)}; it is in maintenance mode since ${describeMilestone(s.maintenance)}`
        : `${what} is in maintenance mode since ${describeMilestone(s.maintenance)}: upstream back-ports no fix proactively (an emergency patch case by case); its end of life: ${describeMilestone(s.endOfLife)}`,
    };
  // Standard support: by the rule its maintenance comes before its end of life, so nothing is due.
  return undefined;
}
