/**
 * The twin's import restrictions (eslint.config.mjs `twinPatterns`; Cluster API's
 * `.import-restrictions` are the model): twin/ acts on the synthesized output as the real parts
 * would, so it imports nothing of constructs/, stacks/ or modules/rendering; sim/ is the simulator
 * alone and imports nothing of twin/; nothing in modules/, constructs/ or stacks/ imports twin/.
 * Each violation is planted in a file as it would sit in the tree and linted with the project's own
 * config; imports the layout allows pass, and the real tree's twin/ passes as it is.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');
const RULE = 'no-restricted-imports';

/** The messages of `no-restricted-imports` for each [file, source] (one node process: jest cannot load eslint.config.mjs). */
function restricted(cases: [string, string][]): string[][] {
  const script = `const { ESLint } = require('eslint');
    (async () => {
      const eslint = new ESLint({ cwd: process.cwd() });
      const out = [];
      for (const [path, source] of JSON.parse(process.argv[1]))
        out.push((await eslint.lintText(source, { filePath: path }))[0].messages.filter((m) => m.ruleId === ${JSON.stringify(RULE)}).map((m) => m.message));
      process.stdout.write(JSON.stringify(out));
    })();`;
  const r = spawnSync(process.execPath, ['-e', script, JSON.stringify(cases.map(([f, src]) => [join(root, f), src]))], { cwd: root, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`eslint failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as string[][];
}

const refused: [string, string, string, RegExp][] = [
  [
    'twin → constructs',
    'twin/probe.ts',
    "export { TenantCluster } from '../constructs/tenant-cluster';\n",
    /twin\/ never imports constructs, stacks or modules\/rendering/,
  ],
  ['twin → stacks', 'twin/probe.ts', "export { buildLab } from '../stacks/app';\n", /twin\/ never imports/],
  ['twin → modules/rendering', 'twin/probe.ts', "export { renderLab } from '../modules/rendering';\n", /twin\/ never imports/],
  ['twin/<folder> → modules/rendering/<file>', 'twin/kamaji/probe.ts', "export * from '../../modules/rendering/lab';\n", /twin\/ never imports/],
  [
    'sim → twin',
    'sim/probe.ts',
    "export { LabTwin } from '../twin/index';\n",
    /sim\/ is the simulator alone: it never imports scripts, stacks, constructs or the twin/,
  ],
  ['modules → twin', 'modules/versions/probe.ts', "export { KamajiPlayer } from '../../twin/kamaji';\n", /modules\/ is pure: .*the twin/],
  ['constructs → twin', 'constructs/probe.ts', "export { LabTwin } from '../twin/index';\n", /constructs\/ never imports .*the twin/],
  ['stacks → twin', 'stacks/probe.ts', "export { LabTwin } from '../twin/index';\n", /stacks\/ never imports .*the twin/],
];

const allowed: [string, string, string][] = [
  [
    'twin → modules outside the rendering, the simulator and the harness',
    'twin/probe.ts',
    "export * from '../modules/placement/types';\nexport * from '../sim/simulator';\nexport * from '../scripts/lib/kube-apiserver';\n",
  ],
  ['the CLI and the benchmarks → twin', 'scripts/probe.ts', "export { LabTwin } from '../twin/index';\n"],
  ['a twin/ file named like a top-level folder inside twin/ (a relative ./)', 'twin/probe.ts', "export * from './stack-objects';\n"],
];

describe('twin/ import restrictions (eslint.config.mjs twinPatterns)', () => {
  let messages: string[][];
  beforeAll(() => {
    messages = restricted([...refused.map(([, f, src]): [string, string] => [f, src]), ...allowed.map(([, f, src]): [string, string] => [f, src])]);
  });

  it.each(refused.map(([what, , , message], i) => [what, message, i] as const))('refuses %s', (_what, message, i) => {
    expect(messages[i]).toHaveLength(1);
    expect(messages[i][0]).toMatch(message);
  });

  it.each(allowed.map(([what], i) => [what, refused.length + i] as const))('allows %s', (_what, i) => {
    expect(messages[i]).toEqual([]);
  });

  it("the tree's twin/ and sim/ pass the rule as they are", () => {
    const r = spawnSync(
      process.execPath,
      [join(root, 'node_modules', 'eslint', 'bin', 'eslint.js'), '--no-warn-ignored', '--rule', '{"max-len": "off"}', 'twin', 'sim'],
      { cwd: root, encoding: 'utf8' },
    );
    expect({ status: r.status, output: `${r.stdout}${r.stderr}` }).toEqual({ status: 0, output: '' });
  });
});
