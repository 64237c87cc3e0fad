/**
 * Plain data as pvekaas writes it into Terraform: a manifest's literal strings escaped for
 * Terraform (cdktf tokens kept), and a Helm release's values as one sorted YAML document. Pure, so
 * the constructs (constructs/providers/) and the lean writer (scripts/lib/lean-writer.ts) share them.
 */
import { dump } from 'js-yaml';
import { escapeTerraformTemplate } from './safety';

/** cdktf's encoded tokens inside strings: `${TfToken[TOKEN.n]}` (strings) and `#{TfToken[TOKEN.n]}` (lists). */
const CDKTF_TOKEN = /([$#]\{TfToken\[[^\]]*\]\})/;

/** A string with its literal parts escaped for Terraform and its cdktf tokens kept. */
export function literalText(text: string): string {
  // Nothing to escape and no token without a brace (most manifest text): as it is.
  if (!text.includes('{')) return text;
  return text
    .split(CDKTF_TOKEN)
    .map((part, i) => (i % 2 === 1 ? part : escapeTerraformTemplate(part)))
    .join('');
}

/** A manifest value with every literal string (keys too) escaped for Terraform. */
export function literalManifest(value: unknown): unknown {
  if (typeof value === 'string') return literalText(value);
  if (Array.isArray(value)) return value.map(literalManifest);
  if (value === null || typeof value !== 'object') return value;
  // Only plain data objects: cdktf tokens and resolvables keep their identity.
  if (Object.getPrototypeOf(value) !== Object.prototype) return value;
  return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [literalText(k), literalManifest(v)]));
}

/**
 * A release's values as one YAML document with sorted keys, so plans show stable, readable diffs.
 * js-yaml: the `yaml` package's stringify costs a fifth of a 1000-tenant synth.
 */
export function helmValues(values: unknown): string {
  return dump(values, { sortKeys: true, lineWidth: -1, noRefs: true });
}

/** The Terraform variable names a host-based connection to the management cluster asks for (constructs/management-cluster-providers.ts). */
export const MANAGEMENT_CA_VARIABLE = 'management_cluster_ca_certificate';
export const MANAGEMENT_TOKEN_VARIABLE = 'management_cluster_token';

/** computed_fields of an autoscaled secondary MachineDeployment: the replicas, and the provider's defaults again (constructs/tenant-secondaries.ts). */
export const SECONDARY_AUTOSCALED_COMPUTED_FIELDS = ['spec.replicas', 'metadata.labels', 'metadata.annotations'] as const;
