/**
 * The `pvekaas` launcher (bin/pvekaas): it lists every command, the npm scripts go through it, and
 * it compiles only when a source is newer than the build — shown on a small project of its own
 * (the launcher copied beside a `scripts/validate.ts`), so the real tsc runs in seconds.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');
// eslint-disable-next-line @typescript-eslint/no-require-imports -- plain JavaScript, not compiled
const { COMMANDS } = require('../../bin/pvekaas') as { COMMANDS: Record<string, { script: string; about: string; toolchain?: boolean }> };

/** scripts/*.ts that are not commands a user runs: why each is left out of `pvekaas --help`. */
const NOT_COMMANDS: Record<string, string> = {
  'cdktf-app': 'the app of cdktf.json, run by `npx cdktf` through scripts/cdktf-launch.js',
  'static-control-plane-crd': 'a module (the StaticControlPlane CRD), not a command',
};

/** npm scripts named like a command that still build with tsc themselves, and why. */
const NPM_SCRIPTS_THAT_BUILD: Record<string, string> = {
  demo: 'the first-run command of the README (`npm ci && npm run --silent demo`): toolchain install, tsc, then the demo',
  twin: 'like demo: toolchain install, tsc, then the twin',
};

describe('pvekaas --help and the commands', () => {
  test('lists every command, each with the compiled script it runs (whose source exists)', () => {
    const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'pvekaas'), '--help'], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    for (const [name, c] of Object.entries(COMMANDS)) {
      expect(r.stdout).toMatch(
        new RegExp(`^  ${name.replace(/[.*+?^${}()|[\]\\:]/g, '\\$&')} +${c.about.slice(0, 20).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'm'),
      );
      expect(readdirSync(join(ROOT, c.script.split('/')[0]))).toContain(c.script.split('/')[1].replace(/\.js$/, '.ts'));
    }
  });

  test('every command of scripts/ (a runCommand body) is listed; a new one fails here until it is added to bin/pvekaas', () => {
    const commands = readdirSync(join(ROOT, 'scripts'))
      .filter((f) => f.endsWith('.ts'))
      .map((f) => f.replace(/\.ts$/, ''))
      .filter((name) => /\brunCommand\(/.test(readFileSync(join(ROOT, 'scripts', `${name}.ts`), 'utf8')));
    const listed = new Set(Object.values(COMMANDS).map((c) => c.script.replace(/\.js$/, '')));
    const missing = commands.filter((name) => !listed.has(`scripts/${name}`) && !(name in NOT_COMMANDS));
    expect(missing).toEqual([]);
  });

  test('the npm script of each command runs it through the launcher (no tsc on every run)', () => {
    const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    for (const name of Object.keys(COMMANDS)) {
      if (!(name in scripts) || name in NPM_SCRIPTS_THAT_BUILD) continue;
      expect([name, scripts[name]]).toEqual([name, `node bin/pvekaas ${name}`]);
    }
  });

  test('an unknown command is refused with the list, exit 1', () => {
    const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'pvekaas'), 'valdiate'], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/no command "valdiate"; the commands: validate, placement/);
  });
});

describe('compiles only when a source is newer than the build', () => {
  // Each compile is a real tsc of a one-file project: seconds, more on a loaded machine.
  jest.setTimeout(180_000);
  let dir: string;
  const source = () => join(dir, 'scripts', 'validate.ts');
  const run = (...args: string[]) => spawnSync(process.execPath, [join(dir, 'bin', 'pvekaas'), 'validate', ...args], { cwd: dir, encoding: 'utf8' });

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'pvekaas-bin-'));
    mkdirSync(join(dir, 'bin'));
    mkdirSync(join(dir, 'scripts'));
    copyFileSync(join(ROOT, 'bin', 'pvekaas'), join(dir, 'bin', 'pvekaas'));
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'commonjs',
          target: 'ES2022',
          outDir: 'dist',
          rootDir: '.',
          incremental: true,
          tsBuildInfoFile: 'dist/.tsbuildinfo',
          types: ['node'],
        },
        include: ['scripts/**/*.ts'],
      }),
    );
    writeFileSync(source(), "process.stdout.write(`one ${process.argv.slice(2).join(' ')}\\n`);\n");
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('the first run compiles; the next ones do not, and pass their arguments', () => {
    const first = run('--config', 'x.yaml');
    expect(first.stderr).toMatch(/compiling \(tsc\)/);
    expect([first.status, first.stdout]).toEqual([0, 'one --config x.yaml\n']);
    const again = run('a');
    expect([again.status, again.stdout, again.stderr]).toEqual([0, 'one a\n', '']);
  });

  test('an edited source compiles again, once', () => {
    writeFileSync(source(), "process.stdout.write('two\\n');\n");
    const edited = run();
    expect(edited.stderr).toMatch(/compiling \(tsc\)/);
    expect(edited.stdout).toBe('two\n');
    expect(run().stderr).toBe('');
  });

  test('a build by hand (tsc -p tsconfig.json) counts: no compile after it', () => {
    writeFileSync(source(), "process.stdout.write('three\\n');\n");
    const tsc = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], { cwd: dir, encoding: 'utf8' });
    expect(tsc.status).toBe(0);
    const after = run();
    expect([after.stdout, after.stderr]).toEqual(['three\n', '']);
  });

  test('a source deleted changes its directory: compiles again', () => {
    writeFileSync(join(dir, 'scripts', 'extra.ts'), 'export const x = 1;\n');
    run();
    expect(run().stderr).toBe('');
    rmSync(join(dir, 'scripts', 'extra.ts'));
    expect(run().stderr).toMatch(/compiling \(tsc\)/);
  });

  test('a source that does not compile: tsc says why, the launcher says what to do, exit 1; what tsc emitted anyway never runs', () => {
    writeFileSync(source(), 'const n: number = "no";\nprocess.stdout.write(`broken ${n}\\n`);\n');
    for (let i = 0; i < 2; i++) {
      const broken = run();
      expect(broken.status).toBe(1);
      expect(broken.stdout).toMatch(/TS2322/);
      expect(broken.stdout).not.toMatch(/broken/);
      expect(broken.stderr).toMatch(/the TypeScript sources do not compile \(see above\); fix them and run again/);
    }
    // Nor after a failed tsc by hand, whose build info is the newest file.
    spawnSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], { cwd: dir });
    expect(run().stdout).not.toMatch(/broken/);
  });
});
