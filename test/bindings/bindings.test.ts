/**
 * The committed bpg/proxmox bindings (.gen/) match the pinned provider: the committed schema is
 * what the pinned plugin reports (needs the toolchain), and the committed TypeScript is exactly
 * what the generator makes from that schema.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BINDINGS_DIR,
  BINDING_SELECTION,
  SCHEMA_FILE,
  canonicalSchemaText,
  dumpProviderSchema,
  generateBindings,
  readTree,
  type SchemaDump,
} from '../../scripts/gen-bindings';
import { toolchainEnv } from '../../scripts/lib/tofu';
import { testPluginCache } from '../support/toolchain';
import { missingToolchain, projectRoot, readPins } from '../../sim/toolchain';

const root = projectRoot();
const pins = readPins(root);
const committedText = readFileSync(join(root, SCHEMA_FILE), 'utf8');
const committed = JSON.parse(committedText) as SchemaDump;
const missing = missingToolchain(root);

const regenerate = 'run `npm run --silent gen:bindings` and commit .gen/';

describe('bpg/proxmox bindings in .gen/', () => {
  it('commit the schema in canonical form (sorted keys)', () => {
    expect(canonicalSchemaText(committed) === committedText).toBe(true);
  });

  it('cover every resource and data source pvekaas uses', () => {
    const provider = Object.values(committed.provider_schemas)[0];
    for (const name of BINDING_SELECTION.resources) expect({ name, present: name in (provider.resource_schemas ?? {}) }).toEqual({ name, present: true });
    for (const name of BINDING_SELECTION.dataSources) expect({ name, present: name in (provider.data_source_schemas ?? {}) }).toEqual({ name, present: true });
  });

  it('are exactly what the generator makes from the committed schema and the pinned version', async () => {
    const out = mkdtempSync(join(tmpdir(), 'pvekaas-bindings-'));
    try {
      await generateBindings(committed, pins, out);
      const fresh = readTree(join(out, 'providers', 'proxmox'));
      const inRepo = readTree(join(root, BINDINGS_DIR));
      expect([...inRepo.keys()]).toEqual([...fresh.keys()]);
      const differing = [...fresh.keys()].filter((file) => fresh.get(file) !== inRepo.get(file));
      if (differing.length > 0) throw new Error(`stale bindings (${differing.join(', ')}): ${regenerate}`);
      // The version the stacks will ask for is the pinned one.
      expect(inRepo.get('provider/index.ts')).toContain(`providerVersion: '${pins.proxmox.version}'`);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  const withToolchain = missing && !process.env.CI ? it.skip : it;
  if (missing && !process.env.CI) {
    process.stderr.write(`test/bindings: skipping the schema comparison with the real plugin: ${missing}\n`);
  }
  withToolchain(`commit the schema that bpg/proxmox ${pins.proxmox.version} from scripts/toolchain reports`, async () => {
    if (missing) throw new Error(missing);
    Object.assign(process.env, toolchainEnv(root), { TF_PLUGIN_CACHE_DIR: testPluginCache() });
    const fresh = canonicalSchemaText(await dumpProviderSchema(root));
    if (fresh !== committedText) throw new Error(`${SCHEMA_FILE} differs from the schema of the pinned plugin: ${regenerate}`);
  });
});
