/**
 * The lean writer (scripts/lib/lean-writer.ts) against cdktf, its reference: over random labs —
 * the example labs (plain, identity, storage, surge) with random lab edits, a kubeconfig or a
 * host-based management connection, a local or a Terraform Cloud backend — a synth that writes the
 * tenant stacks with the lean writer gives byte for byte the output of a synth that builds every
 * stack through cdktf (`cdktfOnly`), and the lean writer really wrote them (no silent fallback on
 * a local backend). Its JSON serializer equals json-stable-stringify, cdktf's, on random JSON.
 */
import fc from 'fast-check';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse, stringify } from 'yaml';
import { parseLab } from '../../modules/config/load';
import { planPlacement } from '../../modules/placement';
import { renderLab } from '../../modules/rendering';
import { REQUIRED_PROVIDERS, cdktfVersion, leanTenantStack, makeUniqueId, stableStringify } from '../../scripts/lib/lean-writer';
import { synthesizeLab } from '../../scripts/lib/synthesize';
import { projectRoot } from '../support/toolchain';
import { apply, attempt, edit, tree } from './lab-edits';

const work = mkdtempSync(join(projectRoot, '.test-lean-writer-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const bases = ['lab.yaml', 'lab-identity.yaml', 'lab-storage.yaml', 'lab-surge.yaml'].map((f) => readFileSync(join(projectRoot, 'examples', f), 'utf8'));

// eslint-disable-next-line @typescript-eslint/no-require-imports
const cdktfStringify = require(require.resolve('json-stable-stringify', { paths: [dirname(require.resolve('cdktf'))] })) as (
  v: unknown,
  o: { space: number },
) => string;

describe('the lean writer', () => {
  it("asks for the provider releases cdktf's bindings ask for (the toolchain's pins)", () => {
    // Read as text: the bindings' provider class records its release in terraformGeneratorMetadata.
    for (const [name, { version }] of Object.entries(REQUIRED_PROVIDERS)) {
      const binding = readFileSync(require.resolve(`@cdktf/provider-${name}/lib/provider/index.js`), 'utf8');
      expect([name, /providerVersion: '([^']+)'/.exec(binding)?.[1]]).toEqual([name, version]);
    }
  });

  it('writes the bytes cdktf writes, over random labs', () => {
    let run = 0;
    fc.assert(
      fc.property(
        fc.nat(bases.length - 1),
        fc.array(edit, { minLength: 0, maxLength: 2 }),
        fc.boolean(),
        fc.constantFrom('local', 'cloud', 'local-b'),
        (base, edits, host, backend) => {
          run++;
          const doc = parse(bases[base]);
          for (const e of edits) apply(doc, e);
          if (host) doc.management.kubernetes = { host: 'https://mgmt.lab.example:6443' };
          if (backend === 'cloud') doc.delivery = { backend: 'cloud', cloud: { organization: 'lab', workspacePrefix: 'lab', project: 'kaas' } };
          if (backend === 'local-b') doc.delivery = { backend: 'local', local: { stateDir: 'state-b' } };
          const file = join(work, `lab-${run}.yaml`);
          writeFileSync(file, stringify(doc));
          const leanOut = join(work, `lean-${run}`);
          const cdktfOut = join(work, `cdktf-${run}`);
          const lean = attempt(() => synthesizeLab({ config: file, out: leanOut, cache: false }));
          const reference = attempt(() => synthesizeLab({ config: file, out: cdktfOut, cache: false, cdktfOnly: true }));
          expect(lean).toEqual(reference);
          if (!lean.ok) return;
          const a = tree(leanOut);
          const b = tree(cdktfOut);
          expect(Object.keys(a).sort()).toEqual(Object.keys(b).sort());
          for (const f of Object.keys(b)) expect({ file: f, edits, host, backend, text: a[f] }).toEqual({ file: f, edits, host, backend, text: b[f] });

          // The lean writer wrote each tenant stack itself on a local backend, and left a cloud one to cdktf.
          const lab = parseLab(readFileSync(file, 'utf8'), file);
          const rendering = renderLab(lab, planPlacement(lab));
          for (const tenant of lab.tenants) {
            const written = leanTenantStack(`tenant-${tenant.name}`, rendering.tenants.get(tenant.name)!, {
              access: lab.management.kubernetes,
              delivery: lab.delivery,
              stateDirFromStack: 'x',
              version: cdktfVersion(),
            });
            expect(written === undefined).toBe(backend === 'cloud');
          }
          rmSync(leanOut, { recursive: true, force: true });
          rmSync(cdktfOut, { recursive: true, force: true });
        },
      ),
      { numRuns: 16, seed: 41 },
    );
  }, 600_000);

  it('leaves text cdktf would read as a token to cdktf', () => {
    const lab = parseLab(bases[0], 'lab.yaml');
    const rendering = renderLab(lab, planPlacement(lab));
    const tenant = rendering.tenants.get(lab.tenants[0].name)!;
    const options = { access: lab.management.kubernetes, delivery: lab.delivery, stateDirFromStack: 'state', version: cdktfVersion() };
    expect(leanTenantStack('tenant-x', tenant, options)).toBeDefined();
    const withToken = { ...tenant, kubeconfigCommand: 'echo ${TfToken[TOKEN.1]}' };
    expect(leanTenantStack('tenant-x', withToken, options)).toBeUndefined();
    // An encoded number token (cdktf's tag in its top bits) inside a string.
    const withNumberToken = { ...tenant, kubeconfigCommand: `echo ${String(-8.109562212591379e298)}` };
    expect(leanTenantStack('tenant-x', withNumberToken, options)).toBeUndefined();
    // Number-like text that is no token stays lean (image digests, 1e5).
    expect(leanTenantStack('tenant-x', { ...tenant, kubeconfigCommand: 'echo 1e5 a3e5' }, options)).toBeDefined();
  });

  it("gives cdktf's logical ids", () => {
    // Ids of cdktf 0.21 as written into the example lab's stacks.
    expect(makeUniqueId(['namespace'])).toBe('namespace');
    expect(makeUniqueId(['cluster', 'cluster'])).toBe('cluster_A4C38409');
    expect(makeUniqueId(['credentials-pmox-txl', 'copy'])).toBe('credentials-pmox-txl_copy_E2E29AF8');
    expect(makeUniqueId(['access', 'role-binding'])).toBe('access_role-binding_BF65719B');
  });
});

describe("the lean writer's JSON", () => {
  it('is json-stable-stringify with two spaces, on random JSON', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(stableStringify(value)).toBe(cdktfStringify(value, { space: 2 }));
      }),
      { numRuns: 500 },
    );
    for (const value of [{}, [], { a: [] }, { b: {}, a: [{}, []] }, { é: 1, Z: 2, a: 3, _: 4, '-': 5 }, [null, 'x'], 'text', 0]) {
      expect(stableStringify(value)).toBe(cdktfStringify(value, { space: 2 }));
    }
  });
});
