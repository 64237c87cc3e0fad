/**
 * The building blocks of the lab schema (./schema.ts, ./management-schema.ts): the safe alphabets
 * for names that land in stacks and Kubernetes objects, the number, version and address formats,
 * and the generated directories nothing configured may live in.
 */
import { z } from 'zod';
import { URL_CREDENTIAL_FIX, redactUrl, urlCredentialProblem } from './safety';

export const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
// Bounded components: minor and patch of at most 3 and 4 digits. Unbounded, v1.99999999999999999999.0
// validated, then the upgrade planner walked every minor up to it and synth ran out of memory.
export const K8S_VERSION = /^v1\.(\d{1,3})\.(\d{1,4})$/;
export const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
export const IPV4_RANGE_OR_CIDR =
  /^((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3})(-((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3})|\/(3[0-2]|[12]?\d))?$/;
export const CIDR = /^((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3})\/(3[0-2]|[12]?\d)$/;
export const PROXMOX_TAG = /^[a-z0-9_][a-z0-9_\-+.]*$/i;

// Safe alphabets for the names that land in stacks, Proxmox ACL paths and Kubernetes objects: no
// '/', no '..' path segment, nothing Terraform or a shell would interpret (see safety.ts).
/** A Proxmox storage id (PVE's own pattern). */
export const PVE_STORAGE = /^[a-z][a-z0-9._-]*[a-z0-9]$/;
/** A Proxmox resource pool id: PVE allows letters, digits, '.', '-', '_'; pvekaas asks for a letter or digit first. */
export const PVE_POOL = /^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$/;
/** A Linux network interface (bridge) name: at most 15 characters. */
export const INTERFACE = /^[A-Za-z][A-Za-z0-9_.-]{0,14}$/;
/** A Kubernetes group or kubeconfig context name: no spaces, quotes, '$', '{', '%' or '\\'. */
export const IDENTITY = /^[A-Za-z0-9][A-Za-z0-9._@:\/+=-]{0,252}$/;
/** A file path: letters, digits and . _ ~ / + @ = : , - and spaces (it is shell-quoted where it is printed). */
export const FILE_PATH = /^[A-Za-z0-9._~\/+@=:,-][A-Za-z0-9._~\/+@=:, -]{0,1023}$/;
/** A version, tag or digest pin. */
export const VERSION_PIN = /^[A-Za-z0-9][A-Za-z0-9._+:@-]{0,127}$/;
export const DNS_NAME_PORT = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*(:\d{1,5})?$/;
export const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

/** The largest 32-bit signed integer: CAPMOX and Kubernetes keep sizes and counts as int32. */
export const INT32_MAX = 2147483647;

export const storageId = (what: string) =>
  z.string().regex(PVE_STORAGE, {
    error: `${what} must be a Proxmox storage id: a lowercase letter first, then lowercase letters, digits, '.', '-' or '_' (no '/')`,
  });
export const poolId = (what: string) =>
  z
    .string()
    .regex(PVE_POOL, { error: `${what} must be a Proxmox pool id: letters, digits, '.', '-' or '_', a letter or digit first, at most 40 characters (no '/')` });

/** A check that refuses a URL with credentials in it (users, passwords, secret query parameters). */
export const credentialCheck =
  (abort: boolean) =>
  (value: string, ctx: z.RefinementCtx): void => {
    const problem = urlCredentialProblem(value);
    if (problem) {
      ctx.addIssue({
        code: 'custom',
        message: `this URL must not carry credentials: ${problem}`,
        // Shown redacted: a problem message must not print the secret it is about.
        params: { fix: URL_CREDENTIAL_FIX, shown: redactUrl(value) },
        continue: !abort,
      });
    }
  };
/** Before a pattern: the credentials problem alone, not also the pattern's. */
export const noCredentials = credentialCheck(true);

/** An http(s) URL without credentials in it. */
export const urlWithoutCredentials = (base: z.ZodType<string>) => base.superRefine(credentialCheck(false));

export const dnsLabel = (what: string) =>
  z.string().regex(DNS_LABEL, {
    error: `${what} must be a lowercase DNS label: a-z, 0-9 and '-', starting and ending with a letter or digit, at most 63 characters`,
  });

export const positiveInt = (what: string) => z.int({ error: `${what} must be a whole number` }).positive({ error: `${what} must be greater than 0` });

/** A positive whole number that CAPMOX or Kubernetes stores as a 32-bit integer. */
export const positiveInt32 = (what: string, where: string) =>
  positiveInt(what).max(INT32_MAX, { error: `${what} is at most ${INT32_MAX}: ${where} is a 32-bit number` });

export const nonNegativeInt = (what: string) => z.int({ error: `${what} must be a whole number` }).nonnegative({ error: `${what} must be 0 or more` });

export const kubernetesVersion = z.string().regex(K8S_VERSION, {
  error: 'a Kubernetes version is written like v1.35.4 (with the leading v and a patch number; minor and patch of at most 3 and 4 digits)',
});

export const ipv4 = z.string().regex(IPV4, { error: 'expected an IPv4 address such as 10.0.0.1' });
export const ipv4Range = z.string().regex(IPV4_RANGE_OR_CIDR, { error: 'expected an IPv4 address, a range "10.0.0.10-10.0.0.50" or a CIDR "10.0.0.0/24"' });
export const cidr = z.string().regex(CIDR, { error: 'expected an IPv4 CIDR such as 10.244.0.0/16' });

/**
 * Directories pvekaas generates by default, relative to the project: synth's and cdktf's `cdktf.out`,
 * deploy's `out`, export-hcl's `hcl`. Each is replaced whole on the next run, so nothing configured
 * may live inside one (a state directory under out/stacks/<stack>/assets was deleted by the next
 * synth). The commands refuse the same for the `--out` they are given (scripts/lib/output-dir.ts).
 */
export const GENERATED_DIRECTORIES = ['cdktf.out', 'out', 'hcl'] as const;

/** The generated directory a relative path lies in (its first segment, `.` segments skipped), if any. */
export function generatedDirectoryOf(path: string): string | undefined {
  if (path.startsWith('/') || path.startsWith('~')) return undefined;
  const first = path.split(/[\\/]/).find((segment) => segment !== '' && segment !== '.');
  return GENERATED_DIRECTORIES.find((d) => d === first);
}
