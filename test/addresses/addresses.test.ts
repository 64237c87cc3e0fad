/**
 * The Terraform addresses of the example lab, pinned. An address is what state is keyed by: when a
 * refactor renames a construct, Terraform plans to destroy the resource at the old address and
 * create one at the new — real VMs, pools, tokens and Helm releases replaced. So every resource and
 * data source address of every stack is listed in example-lab.addresses.txt, and this test fails
 * when the synthesized stacks differ from the list, saying which addresses came and went and
 * whether a `moved` block carries each one that went.
 *
 * Update the list (after checking that the change is meant): UPDATE_ADDRESSES=1 npx jest test/addresses
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { synthesizeLab } from '../../scripts/lib/synthesize';

const projectRoot = join(__dirname, '../..');
const listFile = join(__dirname, 'example-lab.addresses.txt');
const updateCommand = 'UPDATE_ADDRESSES=1 npx jest test/addresses';

interface StackJson {
  resource?: Record<string, Record<string, unknown>>;
  data?: Record<string, Record<string, unknown>>;
  moved?: { from: string; to: string }[];
}

/** `<stack> <address>` for every resource and data source of a stack's cdk.tf.json. */
export function stackAddresses(stack: string, json: StackJson): string[] {
  const lines: string[] = [];
  for (const [type, byName] of Object.entries(json.resource ?? {})) for (const name of Object.keys(byName)) lines.push(`${stack} ${type}.${name}`);
  for (const [type, byName] of Object.entries(json.data ?? {})) for (const name of Object.keys(byName)) lines.push(`${stack} data.${type}.${name}`);
  return lines;
}

/** What differs between the pinned list and the synthesized one, as a message a person can act on (undefined when equal). */
export function addressDrift(pinned: string[], actual: string[], moved: Set<string>): string | undefined {
  const was = new Set(pinned);
  const is = new Set(actual);
  const gone = pinned.filter((a) => !is.has(a));
  const added = actual.filter((a) => !was.has(a));
  if (gone.length === 0 && added.length === 0) return undefined;
  const unmoved = gone.filter((a) => !moved.has(a));
  return [
    `the example lab's Terraform addresses differ from ${relative(projectRoot, listFile)}:`,
    ...gone.map((a) => `  - ${a}${moved.has(a) ? ' (a moved block carries it)' : ''}`),
    ...added.map((a) => `  + ${a}`),
    unmoved.length > 0
      ? `${unmoved.length} address(es) went without a moved block: on apply, Terraform destroys what is at the old address and creates it anew — a rename replaces real infrastructure. ` +
        'If the rename is meant, add `moved` blocks from the old to the new addresses (cdktf: `resource.moveFromId("<old address>")`); if not, keep the construct ids.'
      : 'Every address that went is carried by a moved block.',
    `When the change is meant, update the list: ${updateCommand}`,
  ].join('\n');
}

describe('Terraform addresses of the example lab', () => {
  let work: string;
  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'pvekaas-addresses-'));
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('are the pinned ones, or the change says how it moves state', () => {
    const out = join(work, 'out');
    const result = synthesizeLab({ config: join(projectRoot, 'examples/lab.yaml'), out, cache: false, stateDirFromStack: '../../state' });
    const stacksDir = join(out, 'stacks');
    expect(readdirSync(stacksDir).sort()).toEqual(result.stacks);
    const actual: string[] = [];
    const moved = new Set<string>();
    for (const stack of result.stacks) {
      const json = JSON.parse(readFileSync(join(stacksDir, stack, 'cdk.tf.json'), 'utf8')) as StackJson;
      actual.push(...stackAddresses(stack, json));
      for (const m of json.moved ?? []) moved.add(`${stack} ${m.from}`);
    }
    actual.sort();
    // Every stack renders something: an empty list would pin nothing.
    for (const stack of result.stacks) expect(actual.some((a) => a.startsWith(`${stack} `))).toBe(true);
    if (process.env.UPDATE_ADDRESSES === '1') {
      writeFileSync(listFile, `${actual.join('\n')}\n`);
      return;
    }
    const pinned = readFileSync(listFile, 'utf8')
      .split('\n')
      .filter((l) => l !== '');
    const drift = addressDrift(pinned, actual, moved);
    if (drift !== undefined) throw new Error(drift);
  });

  it('drift names what went and came, the moved blocks and the command that updates the list', () => {
    const message = addressDrift(['s a.x', 's a.y'], ['s a.x', 's a.z'], new Set())!;
    expect(message).toContain('  - s a.y');
    expect(message).toContain('  + s a.z');
    expect(message).toContain('replaces real infrastructure');
    expect(message).toContain(updateCommand);
    expect(addressDrift(['s a.x', 's a.y'], ['s a.x', 's a.z'], new Set(['s a.y']))).toContain('carried by a moved block');
    expect(addressDrift(['s a.x'], ['s a.x'], new Set())).toBeUndefined();
  });

  it('lists data sources with their data. prefix', () => {
    expect(stackAddresses('st', { resource: { t: { a: {} } }, data: { d: { b: {} } } })).toEqual(['st t.a', 'st data.d.b']);
  });
});
