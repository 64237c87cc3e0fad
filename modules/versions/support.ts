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
 * - Cluster API: 1.12's support ends with the release of 1.15, scheduled for 2026-12-08 (CAPI's
 *   release calendar, as quoted in pvekaas issue 22; the support table of the second CAPI lane's
 *   release, cluster-api docs/book/src/reference/versions.md: "v1.12.x … EOL when v1.15.0 will be
 *   released"); only the pinned minor is listed. 1.13, the second lane, is supported until 1.16 is
 *   released (the same table), which has no date yet: nothing to list.
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
export const componentSupport: Readonly<Record<'certManager' | 'clusterApi', Readonly<Record<string, SupportWindow>>>> = {
  certManager: {
    '1.18': { endOfLife: '2026-03-10' },
    '1.19': { endOfLife: '2026-07-10' },
  },
  clusterApi: {
    '1.12': { endOfLife: '2026-12-08', scheduled: true },
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
