/**
 * Arrows run one way inside modules/: eslint.config.mjs (`moduleLayers`) lets each modules/<folder>
 * import only the folders below it. This runs the project's own lint (`npx eslint`, its config as
 * it is) on a file as it would sit in modules/: an import that runs back up fails, one that runs
 * down passes, so the rule is live and not a comment.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');

function lint(file: string, code: string): { status: number | null; output: string } {
  const r = spawnSync(process.execPath, [join(root, 'node_modules', 'eslint', 'bin', 'eslint.js'), '--stdin', '--stdin-filename', file], {
    cwd: root,
    input: code,
    encoding: 'utf8',
  });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

describe('modules/ layers (eslint.config.mjs moduleLayers)', () => {
  it.each([
    [
      'config → placement (the plan is above the lab rules)',
      'modules/config/back-import.ts',
      "import type { PlacementPlan } from '../placement/types';\nexport type X = PlacementPlan;\n",
      /modules\/config sits below placement/,
    ],
    [
      'tenants → review (the review reads tenants, never back)',
      'modules/tenants/back-import.ts',
      "import type { ReviewSection } from '../review';\nexport type X = ReviewSection;\n",
      /modules\/tenants sits below .*review/,
    ],
    [
      'config → rendering (renderLab is above config)',
      'modules/config/back-import.ts',
      "export { renderLab } from '../rendering';\n",
      /modules\/config sits below .*rendering/,
    ],
  ])('refuses an import that runs back up: %s', (_what, file, code, message) => {
    const r = lint(file, code);
    expect(r.output).toMatch(message);
    expect(r.status).toBe(1);
  });

  it('lets an import run down (rendering → tenants, config → versions)', () => {
    const r = lint(
      'modules/rendering/down-import.ts',
      "import type { TenantRendering } from '../tenants';\nimport { pinnedVersions } from '../versions/pins';\nexport type X = TenantRendering;\nexport const y = pinnedVersions;\n",
    );
    expect({ status: r.status, output: r.output }).toEqual({ status: 0, output: '' });
  });
});
