/**
 * The VIP memory (issue 41, item 4; modules/tenants/vip.ts): synth records every tenant's VIP in
 * placement.json, and the next synth into the same output keeps them — a widened pool (which ranks
 * every address anew) moves no deployed VIP, a shrunk one that would is refused; `validate --out`
 * and `validate --against` keep them the same way.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { compileProject, projectRoot } from '../support/toolchain';

const work = mkdtempSync(join(projectRoot, '.test-vip-memory-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
beforeAll(() => compileProject());

const example = readFileSync(join(projectRoot, 'examples/lab.yaml'), 'utf8');
const POOL = '10.4.0.100-10.4.0.149';
expect(example).toContain(`addresses: [${POOL}]`);
function labWithPool(name: string, pool: string): string {
  const file = join(work, name);
  writeFileSync(file, example.replace(`addresses: [${POOL}]`, `addresses: [${pool}]`));
  return relative(projectRoot, file);
}
function run(script: string, ...args: string[]) {
  return spawnSync(process.execPath, [`dist/scripts/${script}.js`, ...args], { cwd: projectRoot, encoding: 'utf8' });
}
const vipsOf = (out: string): Record<string, { vip: string; why: string }> =>
  Object.fromEntries(
    (JSON.parse(readFileSync(join(projectRoot, out, 'placement.json'), 'utf8')).vips as { tenant: string; vip: string; why: string }[]).map((v) => [
      v.tenant,
      v,
    ]),
  );

describe('the VIP memory of a synth output', () => {
  const out = relative(projectRoot, join(work, 'out'));
  const fresh = relative(projectRoot, join(work, 'fresh'));
  // Widened: every tenant ranks 200 addresses instead of 50, so a synth without memory moves VIPs.
  const wide = '10.4.0.100-10.4.1.43';

  it('records every VIP and why, and the next synth into the output keeps them when the pool is widened', () => {
    expect(run('synth', '--config', 'examples/lab.yaml', '--out', out).status).toBe(0);
    const before = vipsOf(out);
    expect(Object.keys(before)).toEqual(['tenant-a', 'tenant-b', 'tenant-c']);
    for (const v of Object.values(before)) expect(v.why).toBe('first-choice');

    const widened = labWithPool('wide.yaml', wide);
    const r = run('synth', '--config', widened, '--out', out);
    expect(r.stderr).not.toContain('problem');
    expect(r.status).toBe(0);
    const after = vipsOf(out);
    for (const t of Object.keys(before)) expect(after[t].vip).toBe(before[t].vip);
    // Without the memory the widened pool moves at least one of them: the memory is what kept them.
    expect(run('synth', '--config', widened, '--out', fresh).status).toBe(0);
    const moved = Object.keys(before).filter((t) => vipsOf(fresh)[t].vip !== before[t].vip);
    expect(moved.length).toBeGreaterThan(0);
    for (const t of moved) expect(after[t].why).toBe('kept');
    // The tenant stack carries the kept VIP, not the fresh one.
    const stack = readFileSync(join(projectRoot, out, 'stacks', `tenant-${moved[0]}`, 'cdk.tf.json'), 'utf8');
    expect(stack).toContain(`"${before[moved[0]].vip}"`);
    expect(stack).not.toContain(`"${vipsOf(fresh)[moved[0]].vip}"`);
  });

  it('refuses a shrunk pool that would move a remembered VIP, naming the tenant, before writing anything', () => {
    const kept = vipsOf(out);
    const victim = Object.entries(kept).sort((a, b) => (a[1].vip < b[1].vip ? 1 : -1))[0];
    const shrunk = labWithPool('shrunk.yaml', '10.4.0.100-10.4.0.102');
    const r = run('synth', '--config', shrunk, '--out', out);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`no longer holds VIP ${victim[1].vip} of tenant ${victim[0]}`);
    expect(r.stderr).toMatch(/management\.loadBalancer\.addresses/);
    expect(vipsOf(out)).toEqual(kept);
    // validate says the same with --out, and nothing without a memory.
    const v = run('validate', '--config', shrunk, '--out', out);
    expect(v.status).toBe(1);
    expect(v.stderr).toContain(`no longer holds VIP ${victim[1].vip} of tenant ${victim[0]}`);
    expect(run('validate', '--config', shrunk).status).toBe(0);
  });

  it('validate --against keeps the old description’s VIPs: a widened pool passes, a shrunk one is refused', () => {
    const widened = labWithPool('wide2.yaml', wide);
    expect(run('validate', '--config', widened, '--against', 'examples/lab.yaml').status).toBe(0);
    const shrunk = labWithPool('shrunk2.yaml', '10.4.0.100-10.4.0.102');
    const r = run('validate', '--config', shrunk, '--against', 'examples/lab.yaml');
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/no longer holds VIP 10\.4\.0\.\d+ of tenant tenant-[abc]/);
  });
});
