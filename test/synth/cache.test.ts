/**
 * The synth cache: after any sequence of lab edits, a synth that reuses the previous output gives
 * exactly the bytes of a cold full synth, and a one-tenant edit synthesizes that tenant's stack only.
 */
import fc from 'fast-check';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { synthesizeLab } from '../../scripts/lib/synthesize';
import { vipMemoryOfOutput } from '../../scripts/lib/vip-memory';
import { projectRoot } from '../support/toolchain';
import { apply, attempt, edit, tree } from './lab-edits';

const work = mkdtempSync(join(projectRoot, '.test-cache-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const exampleText = readFileSync(join(projectRoot, 'examples/lab.yaml'), 'utf8');

describe('the synth cache', () => {
  it('gives the bytes of a cold full synth after any sequence of lab edits', () => {
    let run = 0;
    fc.assert(
      fc.property(fc.array(edit, { minLength: 1, maxLength: 3 }), (edits) => {
        run++;
        const lab = parse(exampleText);
        const file = join(work, `lab-${run}.yaml`);
        const warm = join(work, `warm-${run}`);
        writeFileSync(file, stringify(lab));
        synthesizeLab({ config: file, out: warm });
        for (const [i, e] of edits.entries()) {
          apply(lab, e);
          writeFileSync(file, stringify(lab));
          const cold = join(work, `cold-${run}-${i}`);
          // The same input for both: the lab and the VIPs the warm output remembers (modules/tenants/vip.ts).
          const vipMemory = vipMemoryOfOutput(warm);
          const incremental = attempt(() => synthesizeLab({ config: file, out: warm }));
          const full = attempt(() => synthesizeLab({ config: file, out: cold, cache: false, vipMemory }));
          expect(incremental.ok).toBe(full.ok);
          if (!incremental.ok || !full.ok) continue;
          const a = tree(warm);
          const b = tree(cold);
          expect(Object.keys(a).sort()).toEqual(Object.keys(b).sort());
          for (const f of Object.keys(b)) expect({ file: f, edits, text: a[f] }).toEqual({ file: f, edits, text: b[f] });
          rmSync(cold, { recursive: true, force: true });
        }
        rmSync(warm, { recursive: true, force: true });
      }),
      { numRuns: 12, seed: 17 },
    );
  }, 600_000);

  it('synthesizes only the edited tenant for a one-tenant edit, and nothing for no edit', () => {
    const lab = parse(exampleText);
    const file = join(work, 'one.yaml');
    const out = join(work, 'one');
    writeFileSync(file, stringify(lab));
    expect(synthesizeLab({ config: file, out }).rebuilt).toHaveLength(7);
    expect(synthesizeLab({ config: file, out }).rebuilt).toEqual([]);
    lab.tenants[0].pools[0].replicas = 4;
    writeFileSync(file, stringify(lab));
    const r = synthesizeLab({ config: file, out });
    expect(r.rebuilt).toEqual(['tenant-tenant-a']);
    expect(r.reused).toHaveLength(6);
  }, 120_000);

  it('does not reuse a stack file someone edited by hand', () => {
    const file = join(work, 'one.yaml');
    const out = join(work, 'one');
    const stack = join(out, 'stacks/tenant-tenant-b/cdk.tf.json');
    const original = readFileSync(stack, 'utf8');
    writeFileSync(stack, original.replace('"tenant-b"', '"tampered"'));
    const r = synthesizeLab({ config: file, out });
    expect(r.rebuilt).toEqual(['tenant-tenant-b']);
    expect(readFileSync(stack, 'utf8')).toBe(original);
  }, 120_000);

  it("rebuilds the instance stacks when previous comes or goes: the retiring machines' grants are theirs (surge, then retire)", () => {
    const step = (vlan: number, previous?: number) => {
      const lab = parse(exampleText);
      for (const n of lab.proxmox.instances[0].nodes) Object.assign(n, { memoryMiB: 524288, cpu: 128 });
      lab.tenants[0].network.vlan = vlan;
      if (previous !== undefined) lab.tenants[0].previous = { network: { ...lab.tenants[0].network, vlan: previous } };
      return stringify(lab);
    };
    const file = join(work, 'surge.yaml');
    const warm = join(work, 'surge-warm');
    const stack = 'stacks/proxmox-pmox-txl/cdk.tf.json';
    for (const [i, text] of [step(10), step(20, 10), step(20)].entries()) {
      writeFileSync(file, text);
      const r = synthesizeLab({ config: file, out: warm });
      if (i > 0) expect(r.rebuilt).toContain('proxmox-pmox-txl');
      const cold = join(work, `surge-cold-${i}`);
      synthesizeLab({ config: file, out: cold, cache: false });
      expect(readFileSync(join(warm, stack), 'utf8')).toBe(readFileSync(join(cold, stack), 'utf8'));
    }
    // The retire step's stack holds the new VLAN's grant only.
    expect(readFileSync(join(warm, stack), 'utf8')).not.toContain('vmbr0/10');
  }, 300_000);
});
