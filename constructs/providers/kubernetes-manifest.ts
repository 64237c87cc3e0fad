/**
 * `kubernetes_manifest`, rendered right in HCL too.
 *
 * cdktf 0.21 renders a manifest (a dynamic value) in HCL through its map renderer, which turns
 * every list into a map of indices with unquoted values (`0 = proxmox://'...'`, `2 = [object Object]`)
 * — not valid HCL. This class writes the manifest as an exact HCL expression instead: objects with
 * quoted keys, lists as lists, strings quoted exactly as in the JSON output (so `${...}`
 * references stay references and everything else stays a literal), numbers, booleans and null as
 * they are. Use it instead of `Manifest`.
 *
 * Data never becomes an expression: every literal string of the manifest (values and keys) is
 * escaped for Terraform (`${` → `$${`, `%{` → `%%{`) before cdktf sees it, so tofu hands the
 * provider exactly the text that was given, in JSON and in HCL output alike. Only cdktf tokens
 * (references to other resources, variables, functions) stay expressions.
 */
import { Manifest, type ManifestConfig } from '@cdktf/provider-kubernetes/lib/manifest';
import type { Construct } from 'constructs';
import { literalManifest } from '../../modules/config/terraform-literal';

export { literalManifest };

/** JSON's string escapes, less the two HCL lacks (\b and \f become \u escapes). */
function hclString(text: string): string {
  return JSON.stringify(text).replace(/\\b/g, '\\u0008').replace(/\\f/g, '\\u000c');
}

/** A JSON value as the HCL expression with the same value, indented by depth. */
export function hclExpression(value: unknown, depth = 0): string {
  const pad = '  '.repeat(depth + 1);
  const end = '  '.repeat(depth);
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return hclString(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[\n${value.map((v) => `${pad}${hclExpression(v, depth + 1)},`).join('\n')}\n${end}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  if (entries.length === 0) return '{}';
  return `{\n${entries.map(([k, v]) => `${pad}${hclString(k)} = ${hclExpression(v, depth + 1)}`).join('\n')}\n${end}}`;
}

export class KubernetesManifest extends Manifest {
  constructor(scope: Construct, id: string, config: ManifestConfig) {
    super(scope, id, { ...config, manifest: literalManifest(config.manifest) as ManifestConfig['manifest'] });
  }

  protected synthesizeHclAttributes(): Record<string, unknown> {
    const attributes = super.synthesizeHclAttributes();
    const manifest = super.synthesizeAttributes().manifest;
    if (manifest === undefined) return attributes;
    // "reference": cdktf writes the value as it is; tokens inside the text are resolved afterwards.
    return { ...attributes, manifest: { value: hclExpression(manifest), isBlock: false, type: 'reference', storageClassType: 'anyMap' } };
  }
}
