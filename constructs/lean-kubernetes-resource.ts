/**
 * `kubernetes_job_v1` and `kubernetes_cron_job_v1` written from plain data, without the typed
 * bindings of @cdktf/provider-kubernetes: `lib/job-v1` and `lib/cron-job-v1` are ~5 MB of class
 * definitions each, 150–190 ms to load, the largest single cost of a small lab's synth
 * (docs/development.md, "Synth without cdktf's runtime (issue 41 item 5, 2026-12-07): the lean writer").
 * The Terraform JSON is what the binding writes, byte for byte (test/constructs/lean-kubernetes-resource.test.ts compares the two on every Job and CronJob
 * pvekaas renders):
 *
 * - the binding's struct converters (`jobV1SpecToTerraform` …) write a struct's attributes in the
 *   provider schema's order, then its nested blocks in theirs; both orders are by name, so a struct
 *   is its attributes sorted by their snake_case name, then its blocks sorted the same way;
 * - a nested block of at most one item is an object, a repeated one a list of objects; a map
 *   attribute (`labels`, `annotations`) keeps its keys as written;
 * - undefined values are left out (cdktf drops them when it writes the JSON).
 *
 * HCL (`synth --hcl`) is the binding's own: `synthesizeHclAttributes` loads the struct converters
 * only then, so the HCL is the binding's too, and a JSON synth never loads them.
 */
import { TerraformResource, type ITerraformDependable, type TerraformProvider } from 'cdktf';
import type { Construct } from 'constructs';

/** The nested blocks of job_v1 and cron_job_v1 (provider schema) that pvekaas's Jobs and CronJobs use. */
const BLOCKS = new Set([
  'capabilities',
  'config_map_key_ref',
  'container',
  'empty_dir',
  'env',
  'host_path',
  'init_container',
  'job_template',
  'metadata',
  'resources',
  'seccomp_profile',
  'secret',
  'secret_key_ref',
  'security_context',
  'spec',
  'template',
  'timeouts',
  'value_from',
  'volume',
  'volume_mount',
]);

/** Map attributes: their keys are the user's, written as they are. */
const MAPS = new Set(['annotations', 'labels', 'limits', 'requests']);

const snake = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * A struct of the binding's props (camelCase) as the binding's converters write it. Throws on a
 * key that is neither a known block nor a scalar or list-of-scalars attribute, so a new field is
 * added to BLOCKS or MAPS (and the byte-identity test) before it renders.
 */
export function terraformStruct(struct: Record<string, unknown>, where = 'resource'): Record<string, unknown> {
  const attributes: [string, unknown][] = [];
  const blocks: [string, unknown][] = [];
  for (const [key, value] of Object.entries(struct)) {
    if (value === undefined) continue;
    const name = snake(key);
    const path = `${where}.${name}`;
    if (BLOCKS.has(name)) {
      blocks.push([
        name,
        Array.isArray(value)
          ? value.map((v, i) => terraformStruct(v as Record<string, unknown>, `${path}[${i}]`))
          : terraformStruct(value as Record<string, unknown>, path),
      ]);
    } else if (MAPS.has(name)) {
      attributes.push([name, value]);
    } else if (value !== null && typeof value === 'object' && !(Array.isArray(value) && value.every((v) => typeof v !== 'object'))) {
      throw new Error(
        `${path}: a nested value the lean writer does not know as a block or a map (add it to BLOCKS or MAPS in constructs/lean-kubernetes-resource.ts)`,
      );
    } else {
      attributes.push([name, value]);
    }
  }
  const byName = (a: [string, unknown], b: [string, unknown]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
  return Object.fromEntries([...attributes.sort(byName), ...blocks.sort(byName)]);
}

/** The binding's config without what the resource itself takes (the constructs check theirs with `satisfies LeanConfig<JobV1Config>`). */
export type LeanConfig<C> = Omit<C, 'provider' | 'dependsOn' | 'count' | 'forEach' | 'lifecycle' | 'provisioners' | 'connection'>;

export interface LeanKubernetesResourceConfig {
  readonly provider: TerraformProvider;
  readonly dependsOn?: ITerraformDependable[];
  /** The binding's config without provider and dependsOn: `metadata`, `spec`, `waitForCompletion`, `timeouts`, as the binding takes them. */
  readonly config: Record<string, unknown>;
}

type Kind = 'kubernetes_job_v1' | 'kubernetes_cron_job_v1';

/** The binding's top-level HCL attributes (its `synthesizeHclAttributes`), from its own struct converters. */
function hclAttributes(kind: Kind, config: Record<string, unknown>): Record<string, unknown> {
  const job = kind === 'kubernetes_job_v1';
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only for HCL output: the binding's converters are the reference
  const structs = require(`@cdktf/provider-kubernetes/lib/${job ? 'job-v1' : 'cron-job-v1'}/index-structs`) as Record<string, (s: unknown) => unknown>;
  const prefix = job ? 'jobV1' : 'cronJobV1';
  const type = job ? 'JobV1' : 'CronJobV1';
  const attrs: Record<string, { value: unknown; isBlock: boolean; type: string; storageClassType: string }> = {
    id: { value: config.id, isBlock: false, type: 'simple', storageClassType: 'string' },
    ...(job ? { wait_for_completion: { value: config.waitForCompletion, isBlock: false, type: 'simple', storageClassType: 'boolean' } } : {}),
    metadata: { value: structs[`${prefix}MetadataToHclTerraform`](config.metadata), isBlock: true, type: 'list', storageClassType: `${type}MetadataList` },
    spec: { value: structs[`${prefix}SpecToHclTerraform`](config.spec), isBlock: true, type: 'list', storageClassType: `${type}SpecList` },
    timeouts: { value: structs[`${prefix}TimeoutsToHclTerraform`](config.timeouts), isBlock: true, type: 'struct', storageClassType: `${type}Timeouts` },
  };
  return Object.fromEntries(Object.entries(attrs).filter(([, v]) => v.value !== undefined));
}

/** A `kubernetes_job_v1` or `kubernetes_cron_job_v1` resource from plain data (see the file's comment). */
export class LeanKubernetesResource extends TerraformResource {
  /** The binding's config it was given (test/constructs/lean-kubernetes-resource.test.ts gives the binding the same). */
  readonly config: Record<string, unknown>;
  readonly kind: Kind;
  readonly leanDependsOn?: ITerraformDependable[];

  constructor(scope: Construct, id: string, kind: Kind, props: LeanKubernetesResourceConfig) {
    super(scope, id, {
      terraformResourceType: kind,
      terraformGeneratorMetadata: { providerName: 'kubernetes', providerVersion: '2.38.0', providerVersionConstraint: '~> 2.0' },
      provider: props.provider,
      dependsOn: props.dependsOn,
    });
    this.kind = kind;
    this.config = props.config;
    this.leanDependsOn = props.dependsOn;
  }

  protected synthesizeAttributes(): Record<string, unknown> {
    const { metadata, spec, timeouts, waitForCompletion, id } = this.config;
    return terraformStruct({ id, waitForCompletion, metadata, spec, timeouts } as Record<string, unknown>);
  }

  protected synthesizeHclAttributes(): Record<string, unknown> {
    return hclAttributes(this.kind, this.config);
  }
}
