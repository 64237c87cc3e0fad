/**
 * `npm run --silent gen:bindings`: regenerates the bpg/proxmox TypeScript bindings in .gen/ from
 * the real schema of the provider plugin that `scripts/toolchain install` built.
 *
 *   1. `tofu providers schema -json` in a scratch configuration that requires the pinned
 *      bpg/proxmox (modules/versions/toolchain.json) from the offline mirror;
 *   2. the schema, with object keys sorted, is committed as .gen/bpg-proxmox/schema.json;
 *   3. @cdktf/provider-generator turns the part pvekaas uses (BINDING_SELECTION) into
 *      .gen/providers/proxmox/<resource>/index.ts.
 *
 * test/bindings re-runs steps 1 and 3 and fails when the committed files differ.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { missingToolchain, projectRoot, readPins, type ToolchainPins } from '../sim/toolchain';
import { runTofu, toolchainEnv } from './lib/tofu';

/**
 * The resources and data sources pvekaas uses. Generating only these keeps .gen/ at ~400 kB instead
 * of the whole provider (115 resources, 91 data sources); add a type here, then regenerate.
 */
export const BINDING_SELECTION = {
  resources: [
    'proxmox_acl',
    'proxmox_download_file',
    'proxmox_storage_directory',
    'proxmox_user_token',
    'proxmox_virtual_environment_pool',
    'proxmox_virtual_environment_role',
    'proxmox_virtual_environment_user',
    'proxmox_virtual_environment_vm',
  ],
  dataSources: ['proxmox_virtual_environment_nodes'],
} as const;

export const SCHEMA_FILE = '.gen/bpg-proxmox/schema.json';
export const BINDINGS_DIR = '.gen/providers/proxmox';

interface ProviderSchema {
  provider?: unknown;
  resource_schemas?: Record<string, unknown>;
  data_source_schemas?: Record<string, unknown>;
}

export interface SchemaDump {
  format_version: string;
  provider_schemas: Record<string, ProviderSchema>;
}

/** Dumps the schema of the pinned bpg/proxmox plugin with the toolchain's tofu. */
export async function dumpProviderSchema(root: string): Promise<SchemaDump> {
  const missing = missingToolchain(root);
  if (missing) throw new Error(missing);
  const pins = readPins(root);
  const env = toolchainEnv(root);
  const work = mkdtempSync(join(tmpdir(), 'pvekaas-schema-'));
  try {
    const config = { terraform: { required_providers: { proxmox: { source: pins.proxmox.source, version: pins.proxmox.version } } } };
    writeFileSync(join(work, 'main.tf.json'), JSON.stringify(config));
    const init = await runTofu(['init', '-input=false', '-backend=false', '-no-color'], { cwd: work, env });
    if (init.code !== 0) throw new Error(`tofu init failed:\n${init.stderr || init.stdout}`);
    const dump = await runTofu(['providers', 'schema', '-json'], { cwd: work, env });
    if (dump.code !== 0) throw new Error(`tofu providers schema failed:\n${dump.stderr}`);
    return JSON.parse(dump.stdout) as SchemaDump;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** The committed form of a schema: object keys sorted at every level, two-space indent, final newline. */
export function canonicalSchemaText(schema: unknown): string {
  return `${JSON.stringify(sortKeys(schema), null, 2)}\n`;
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value as Record<string, unknown>)
        .sort()
        .map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

/**
 * The provider's entry in a dump. OpenTofu names it registry.opentofu.org/bpg/proxmox; the same
 * plugin answers to registry.terraform.io/bpg/proxmox in Terraform, so the host is not checked.
 */
function providerEntry(schema: SchemaDump, source: string): ProviderSchema {
  const key = Object.keys(schema.provider_schemas).find((k) => k.endsWith(`/${source}`));
  if (!key) throw new Error(`the schema has no provider ${source} (it has ${Object.keys(schema.provider_schemas).join(', ')})`);
  return schema.provider_schemas[key];
}

/** Generates the bindings for BINDING_SELECTION into `<outDir>/providers/proxmox`. */
export async function generateBindings(schema: SchemaDump, pins: ToolchainPins, outDir: string): Promise<void> {
  const provider = providerEntry(schema, pins.proxmox.source);
  const pick = (all: Record<string, unknown> | undefined, names: readonly string[], what: string) =>
    Object.fromEntries(
      names.map((name) => {
        if (!all?.[name]) throw new Error(`bpg/proxmox ${pins.proxmox.version} has no ${what} ${name}; update BINDING_SELECTION`);
        return [name, all[name]];
      }),
    );
  // The generator resolves the constraint's short source against registry.terraform.io.
  const fqpn = `registry.terraform.io/${pins.proxmox.source}`;
  const selected = {
    format_version: schema.format_version,
    provider_schemas: {
      [fqpn]: {
        provider: provider.provider,
        resource_schemas: pick(provider.resource_schemas, BINDING_SELECTION.resources, 'resource'),
        data_source_schemas: pick(provider.data_source_schemas, BINDING_SELECTION.dataSources, 'data source'),
      },
    },
    provider_versions: { [fqpn]: pins.proxmox.version },
  };
  const { TerraformProviderGenerator, CodeMaker, commons } = loadGenerator();
  const code = new CodeMaker();
  const generator = new TerraformProviderGenerator(code, selected as never);
  const constraint = new commons.TerraformProviderConstraint({ name: 'proxmox', source: pins.proxmox.source, version: pins.proxmox.version } as never);
  generator.generate(new commons.ConstructsMakerProviderTarget(constraint, commons.LANGUAGES[0]));
  await code.save(outDir);
}

/**
 * Loads the generator lazily: @cdktf/commons runs `terraform version` when it is first required
 * and rejects a promise nobody awaits if that fails; a handler keeps that from killing the process.
 */
function loadGenerator() {
  // That probe only matters to `cdktf get`; `true` answers it quietly (no ~/.terraformrc warnings).
  const previous = process.env.TERRAFORM_BINARY_NAME;
  process.env.TERRAFORM_BINARY_NAME = 'true';
  try {
    /* eslint-disable @typescript-eslint/no-require-imports */
    const generator = require('@cdktf/provider-generator') as typeof import('@cdktf/provider-generator');
    const commons = require('@cdktf/commons') as typeof import('@cdktf/commons') & { terraformVersion?: Promise<unknown> };
    commons.terraformVersion?.catch(() => undefined);
    return { TerraformProviderGenerator: generator.TerraformProviderGenerator, CodeMaker: generator.CodeMaker, commons };
  } finally {
    if (previous === undefined) delete process.env.TERRAFORM_BINARY_NAME;
    else process.env.TERRAFORM_BINARY_NAME = previous;
  }
}

/** Every file under `dir`, as relative paths with their contents (for comparing generations). */
export function readTree(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (at: string) => {
    for (const entry of readdirSync(at).sort()) {
      const path = join(at, entry);
      if (statSync(path).isDirectory()) walk(path);
      else files.set(relative(dir, path), readFileSync(path, 'utf8'));
    }
  };
  walk(dir);
  return files;
}

async function main(): Promise<void> {
  const root = projectRoot();
  const pins = readPins(root);
  Object.assign(process.env, toolchainEnv(root));
  const schema = await dumpProviderSchema(root);
  const schemaPath = join(root, SCHEMA_FILE);
  mkdirSync(dirname(schemaPath), { recursive: true });
  writeFileSync(schemaPath, canonicalSchemaText(schema));
  const scratch = mkdtempSync(join(root, '.gen', '.bindings-'));
  try {
    await generateBindings(schema, pins, scratch);
    const target = join(root, BINDINGS_DIR);
    rmSync(target, { recursive: true, force: true });
    mkdirSync(dirname(target), { recursive: true });
    renameSync(join(scratch, 'providers', 'proxmox'), target);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  const files = readTree(join(root, BINDINGS_DIR));
  process.stderr.write(`bpg/proxmox ${pins.proxmox.version}: ${SCHEMA_FILE} and ${files.size} files in ${BINDINGS_DIR}\n`);
}

if (require.main === module) {
  main().catch((e: unknown) => {
    process.stderr.write(`gen:bindings failed: ${(e as Error).message}\n`);
    process.exitCode = 1;
  });
}
