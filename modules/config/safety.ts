/**
 * What makes a lab description safe to read and to render, whatever its author wrote:
 *   - bounded reading: a size limit on the file, a limit on how far YAML aliases expand and how
 *     deep the data nests (an alias "bomb" of a few KiB would otherwise expand to gigabytes);
 *   - no Terraform template syntax in any string: `${…}` and `%{…}` would be evaluated by tofu
 *     wherever the string lands in a stack (JSON or HCL), e.g. to print a sensitive variable;
 *   - no backslash: cdktf's HCL output (`synth --hcl`, `export-hcl`) never escapes one and escapes
 *     a double quote only when no backslash precedes it, so `\\"` in a value would end the HCL string
 *     early and let the rest be read as an expression (it printed the admin token in `tofu plan`);
 *   - text in Unicode normal form C only: HCL normalizes every string literal to NFC, so another
 *     form would reach the provider changed from `export-hcl` and unchanged from JSON;
 *   - no control characters and no string longer than a lab field ever needs;
 *   - no credentials inside URLs (they would be copied in clear into stacks, HCL and READMEs);
 *   - warnings for what is allowed but weak: `http://` endpoints, `insecure: true`.
 * Pure: no I/O.
 */
import type { Problem } from './problems';
import type { Lab } from './schema';
import { templateVlanWarnings } from './security-rules';
import { layer2Warnings } from './layer2-rules';
import { checkWarnings } from './warning-rules';

/** The largest lab file read (bytes). A lab of 1000 tenants is about 0.7 MiB. */
export const MAX_LAB_BYTES = 8 * 1024 * 1024;

/** How many values YAML aliases may add beyond those written out in the file. */
export const MAX_ALIAS_EXPANSION = 100_000;

/** How deep mappings and lists may nest (a lab needs about 8 levels). */
export const MAX_DEPTH = 64;

/** The longest string any field takes (URLs included). */
export const MAX_STRING = 2048;

/** Terraform's template sequences: an interpolation and a directive. */
const TEMPLATE_SEQUENCE = /\$\{|%\{/;

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

export interface ShapeProblem {
  kind: 'cycle' | 'depth' | 'expansion';
  path: (string | number)[];
  message: string;
  fix: string;
}

/**
 * Checks the shape of parsed YAML data before anything walks it: no cycles (a YAML anchor used
 * inside itself), no nesting deeper than `MAX_DEPTH`, and aliases that add at most
 * `MAX_ALIAS_EXPANSION` values. Shared objects are counted once per use, memoized, so the check
 * itself takes time linear in the file, not in the expansion.
 */
export function checkShape(data: unknown): ShapeProblem | undefined {
  const size = new Map<object, number>();
  const inProgress = new Set<object>();
  let unique = 0;
  let problem: ShapeProblem | undefined;
  const visit = (value: unknown, path: (string | number)[]): number => {
    if (problem) return 0;
    if (value === null || typeof value !== 'object') return 1;
    const known = size.get(value);
    if (known !== undefined) return known;
    if (inProgress.has(value)) {
      problem = {
        kind: 'cycle',
        path,
        message: 'a YAML alias refers to the anchor it sits in, so the value would be infinite',
        fix: 'use the alias outside the anchored value, or write the value out',
      };
      return 0;
    }
    if (path.length > MAX_DEPTH) {
      problem = {
        kind: 'depth',
        path: path.slice(0, 8),
        message: `the data nests more than ${MAX_DEPTH} levels deep (a lab description needs about 8)`,
        fix: 'remove the nested lists or mappings',
      };
      return 0;
    }
    inProgress.add(value);
    unique++;
    let total = 1;
    const entries: [string | number, unknown][] = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
    for (const [key, child] of entries) {
      if (typeof child !== 'object' || child === null) unique++;
      total += visit(child, [...path, key]);
      if (problem) break;
    }
    inProgress.delete(value);
    size.set(value, total);
    return total;
  };
  const total = visit(data, []);
  if (problem) return problem;
  if (total - unique > MAX_ALIAS_EXPANSION) {
    return {
      kind: 'expansion',
      path: [],
      message: `YAML aliases expand the description from ${unique} to ${total} values (at most ${MAX_ALIAS_EXPANSION} more than written are allowed)`,
      fix: 'write the repeated values out, or use fewer nested aliases',
    };
  }
  return undefined;
}

/** Keys that name an object's prototype machinery: in a record keyed by names, one would change or hide the object instead of adding an entry. */
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Every string of the description (mapping keys too) that Terraform would not take literally, or
 * that no field needs: template sequences, control characters, and strings longer than
 * `MAX_STRING`. Runs on the raw data, so it covers every field, whatever road it takes into a stack.
 */
export function checkStrings(data: unknown): Problem[] {
  const problems: Problem[] = [];
  const visit = (value: unknown, path: (string | number)[]) => {
    if (typeof value === 'string') {
      const problem = stringProblem(value);
      // A URL with credentials is shown redacted here too: this problem takes the place of the schema's credentials problem at the path.
      if (problem) problems.push({ path, ...problem, ...(urlCredentialProblem(value) ? { value: redactUrl(value) } : {}) });
      return;
    }
    if (value === null || typeof value !== 'object' || path.length > MAX_DEPTH) return;
    if (Array.isArray(value)) {
      value.forEach((v, i) => visit(v, [...path, i]));
      return;
    }
    for (const [key, v] of Object.entries(value)) {
      if (PROTOTYPE_KEYS.has(key)) {
        // A record keyed by names (previous.instances, networks) would take it as the object's prototype and drop it without a word.
        problems.push({
          path: [...path, key],
          message: `"${key}" is a JavaScript object's own machinery, never a field or a name here: its entry would be silently dropped`,
          value: key,
          fix: 'remove the entry, or name what it is for (an instance, a field of this mapping)',
        });
        continue;
      }
      const problem = stringProblem(key);
      if (problem) problems.push({ path: [...path, key], ...problem, message: `the field name: ${problem.message}` });
      visit(v, [...path, key]);
    }
  };
  visit(data, []);
  return problems;
}

function stringProblem(text: string): Omit<Problem, 'path'> | undefined {
  if (text.length > MAX_STRING) {
    return { message: `${text.length} characters: no field of a lab description takes more than ${MAX_STRING}`, value: text, fix: 'shorten it' };
  }
  const template = TEMPLATE_SEQUENCE.exec(text);
  if (template) {
    return {
      message: `"${template[0]}" starts a Terraform template sequence, which tofu would evaluate wherever this value lands in a stack`,
      value: text,
      fix: 'remove it: no field of a lab description takes Terraform expressions (secrets come from sensitive variables, never from the description)',
    };
  }
  if (text.includes('\\')) {
    return {
      message:
        'a backslash: the HCL that synth --hcl and export-hcl write keeps it unescaped, so tofu would read another value, or (before a double quote) end the string there and evaluate the rest as an expression',
      value: text,
      fix: 'remove it; in a URL write it percent-encoded (%5C) or use "/"',
    };
  }
  if (CONTROL.test(text)) {
    return { message: 'contains a control or text-direction character', value: text, fix: 'remove the invisible character (retype the value)' };
  }
  if (text.normalize('NFC') !== text) {
    return {
      message: 'is not in Unicode normal form C: the HCL that export-hcl writes would reach tofu as another string than the JSON that synth writes',
      value: text,
      fix: 'retype the value, or normalize the file to NFC (e.g. `uconv -x any-nfc`)',
    };
  }
  return undefined;
}

/**
 * Names of URL parameters that carry a secret, matched on the name lowercased without `-` and `_`:
 * tokens, passwords and keys, and the signatures and credentials of signed URLs (AWS S3 v2 and v4
 * `AWSAccessKeyId`/`Signature`/`X-Amz-*`, Google Cloud Storage `X-Goog-Signature`/`X-Goog-Credential`,
 * Azure SAS `sig`, CloudFront `Signature`/`Key-Pair-Id`/`Policy`, OAuth `client_secret`/`code`).
 */
const SECRET_PARAMETER =
  /^(?:.*(?:signature|credential|token|secret|passw(?:or)?d|apikey|accesskey(?:id)?|privatekey|sessionkey|auth)|sig|key|pass|pwd|policy|keypairid|code|xamzsecuritytoken)$/;

/** Whether a URL parameter name carries a secret (`X-Amz-Signature`, `token`, `client_secret`, …). */
export function isSecretParameter(name: string): boolean {
  return SECRET_PARAMETER.test(decodeURIComponentSafe(name).toLowerCase().replace(/[-_.]/g, ''));
}

/** Every `name=value` parameter of a URL wherever it is written: query (`?`, `&`), fragment (`#`), path parameters (`;`). */
const PARAMETER = /[?&;#]([^=&;#?/]+)=([^&;#]*)/g;

/**
 * Why a URL must not be in the description, or undefined when it may be: a user or password before
 * an `@` in the authority (`https://user:pw@host/`, also written `https:/user:pw@host`, which URL
 * parsers read the same way), or a parameter that carries a secret anywhere in it — the query, the
 * fragment (`#token=…`) or a path parameter (`;token=…`).
 */
export function urlCredentialProblem(text: string): string | undefined {
  const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(text)?.[0];
  // Scheme-less forms (mirror.images: registry/prefix): a "@" before the first "/" is a user.
  if (!scheme || /^[^/]*@/.test(text)) {
    if (/^[^/]*@/.test(text)) return 'it holds a user or password before "@"';
  } else {
    // The authority as a URL parser finds it: after the scheme and any slashes or backslashes,
    // up to the path, query or fragment (WHATWG URL reads `https:/u:p@h` and `https:\\u:p@h` as `https://u:p@h`).
    const authority = text
      .slice(scheme.length)
      .replace(/^[/\\]*/, '')
      .split(/[/\\?#]/)[0];
    if (authority.includes('@')) return 'it holds a user or password ("user:password@host")';
  }
  try {
    const url = new URL(text);
    if (url.username !== '' || url.password !== '') return 'it holds a user or password ("user:password@host")';
  } catch {
    // not a URL: the field's own pattern says so
  }
  for (const m of text.matchAll(PARAMETER)) {
    if (isSecretParameter(m[1])) {
      const where = m[0][0] === '#' ? ' in its fragment' : m[0][0] === ';' ? ' as a path parameter' : '';
      return `its ${m[0][0] === '?' || m[0][0] === '&' ? 'query ' : ''}parameter "${m[1]}"${where} carries a secret`;
    }
  }
  return undefined;
}

/** The fix for a URL with credentials. */
export const URL_CREDENTIAL_FIX =
  'remove the credentials from the URL: the description is not secret (it lands in stacks, HCL and workspace READMEs); pass them as sensitive variables (proxmox_api_token for an instance, the others are listed in docs/management.md)';

/** A URL as it may be shown: user, password and secret query values replaced by "***". */
export function redactUrl(text: string): string {
  return text
    .replace(/^([a-z][a-z0-9+.-]*:[/\\]+)?[^/\\?#]*@/i, (_m, scheme: string | undefined) => `${scheme ?? ''}***@`)
    .replace(PARAMETER, (m, key: string) => (isSecretParameter(key) ? `${m[0]}${key}=***` : m));
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * Allowed, but worth a word: plaintext API traffic and skipped TLS verification. Problems of
 * severity `warning`, with their path in the description; the commands print them and go on.
 */
export function labWarnings(lab: Lab): Problem[] {
  const warnings: Problem[] = [...templateVlanWarnings(lab), ...layer2Warnings(lab), ...checkWarnings(lab)];
  const warn = (path: (string | number)[], message: string, value: unknown, fix: string) => warnings.push({ path, message, value, fix, severity: 'warning' });
  lab.proxmox.instances.forEach((instance, i) => {
    if (instance.endpoint.toLowerCase().startsWith('http://')) {
      warn(
        ['proxmox', 'instances', i, 'endpoint'],
        `proxmox instance ${instance.name}: plain http: the administrator and CAPMOX tokens would cross the network unencrypted`,
        instance.endpoint,
        'use https',
      );
    }
    if (instance.insecure) {
      warn(
        ['proxmox', 'instances', i, 'insecure'],
        `proxmox instance ${instance.name}: insecure: true skips TLS verification, so anyone between you and ${instance.endpoint} can read the API tokens`,
        true,
        'install a trusted certificate on the instance and drop insecure',
      );
    }
  });
  const s3 = lab.management.datastore.backup?.s3;
  if (s3 && s3.endpoint.toLowerCase().startsWith('http://')) {
    warn(
      ['management', 'datastore', 'backup', 's3', 'endpoint'],
      "plain http: the S3 keys and the etcd snapshots (every tenant's secrets) would cross the network unencrypted",
      s3.endpoint,
      'use https',
    );
  }
  const charts = lab.management.mirror?.charts;
  if (charts && charts.toLowerCase().startsWith('http://')) {
    warn(['management', 'mirror', 'charts'], 'plain http: charts could be replaced in transit', charts, 'use https or oci://');
  }
  return warnings;
}

/**
 * A literal string as Terraform must be given it so that it stays that string: every `${` becomes
 * `$${` and every `%{` becomes `%%{` (Terraform's escapes, the same in JSON and HCL syntax).
 * Applied to text that is data, never to references.
 */
export function escapeTerraformTemplate(text: string): string {
  return text.replace(/\$\{/g, () => '$${').replace(/%\{/g, () => '%%{');
}

/** A word for a POSIX shell: as it is when it holds only safe characters, else single-quoted. */
export function shellQuote(word: string): string {
  if (/^[A-Za-z0-9._/+@=:,-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** A path for a POSIX shell, keeping a leading `~/` outside the quotes so the shell still expands it. */
export function shellQuotePath(path: string): string {
  return path.startsWith('~/') ? `~/${shellQuote(path.slice(2))}` : shellQuote(path);
}
