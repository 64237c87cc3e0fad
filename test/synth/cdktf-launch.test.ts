/**
 * cdktf.json's app command compiles only when a source changed: an unchanged tree runs the compiled
 * app straight away (no tsc), and a newer source compiles first.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileProject, projectRoot } from '../support/toolchain';

const work = mkdtempSync(join(tmpdir(), 'pvekaas-launch-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
beforeAll(() => compileProject());
const stamp = join(projectRoot, 'dist/.cdktf-launch-stamp');

function launch(out: string) {
  return spawnSync(process.execPath, ['scripts/cdktf-launch.js'], {
    cwd: projectRoot,
    encoding: 'utf8',
    env: { ...process.env, CDKTF_OUTDIR: out, PVEKAAS_CONFIG: 'examples/lab.yaml' },
  });
}

describe('the cdktf app command', () => {
  it('is cdktf-launch.js, not a compile on every call', () => {
    expect(JSON.parse(readFileSync(join(projectRoot, 'cdktf.json'), 'utf8')).app).toBe('node scripts/cdktf-launch.js');
  });

  it('compiles when a source is newer than its last compile, and not again while nothing changes', () => {
    // A source saved now: the next call compiles and stamps.
    const source = join(projectRoot, 'scripts/changed.ts');
    const now = new Date();
    utimesSync(source, now, now);
    const first = launch(join(work, 'a'));
    expect(first.status).toBe(0);
    expect(existsSync(join(work, 'a/stacks/proxmox-pmox-txl/cdk.tf.json'))).toBe(true);
    const compiled = statSync(stamp).mtimeMs;
    expect(compiled).toBeGreaterThanOrEqual(now.getTime() - 1000);
    // Nothing changed since: no compile (the stamp stays), same stacks.
    const second = launch(join(work, 'b'));
    expect(second.status).toBe(0);
    expect(statSync(stamp).mtimeMs).toBe(compiled);
    expect(readFileSync(join(work, 'b/stacks/proxmox-pmox-txl/cdk.tf.json'), 'utf8')).toBe(
      readFileSync(join(work, 'a/stacks/proxmox-pmox-txl/cdk.tf.json'), 'utf8'),
    );
  }, 180_000);
});
