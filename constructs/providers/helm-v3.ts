/**
 * The hashicorp/helm 3.x provider and release, rendered right in HCL too.
 *
 * Helm 3.0 moved to the plugin framework: the provider's `kubernetes`, `experiments` and
 * `registries`, and a release's `set`, `set_list`, `set_sensitive`, `set_wo` and `postrender`, are
 * nested *attributes* (`kubernetes = { ... }`, `set = [{ ... }]`). The @cdktf/provider-helm 12.x
 * bindings still mark them as blocks for HCL, so cdktf 0.21 writes `kubernetes { ... }`, which
 * helm 3.x rejects. These classes render them as attribute values; JSON output is unchanged.
 * Use them instead of `HelmProvider` and `Release`.
 */
import { HelmProvider } from '@cdktf/provider-helm/lib/provider';
import { Release } from '@cdktf/provider-helm/lib/release';
import { helmValues } from '../../modules/config/terraform-literal';

type HclAttributes = Record<string, { value: unknown; isBlock?: boolean; type?: string; storageClassType?: string } | undefined>;

/** Replaces the block rendering of `names` with the attribute's JSON value, rendered as an HCL expression. */
export function asNestedAttributes(hcl: HclAttributes, json: Record<string, unknown>, names: readonly string[]): HclAttributes {
  const out: HclAttributes = { ...hcl };
  for (const name of names) {
    const value = json[name];
    if (value === undefined || (Array.isArray(value) && value.length === 0)) delete out[name];
    else out[name] = { value, isBlock: false, type: 'any', storageClassType: hcl[name]?.storageClassType };
  }
  return out;
}

export const PROVIDER_NESTED_ATTRIBUTES = ['kubernetes', 'experiments', 'registries'] as const;
export const RELEASE_NESTED_ATTRIBUTES = ['set', 'set_list', 'set_sensitive', 'set_wo', 'postrender'] as const;

export class HelmV3Provider extends HelmProvider {
  protected synthesizeHclAttributes(): Record<string, unknown> {
    return asNestedAttributes(super.synthesizeHclAttributes(), this.synthesizeAttributes(), PROVIDER_NESTED_ATTRIBUTES);
  }
}

export class HelmV3Release extends Release {
  protected synthesizeHclAttributes(): Record<string, unknown> {
    return asNestedAttributes(super.synthesizeHclAttributes(), this.synthesizeAttributes(), RELEASE_NESTED_ATTRIBUTES);
  }
}

export { helmValues };
