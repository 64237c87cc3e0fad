/**
 * The one command-line layer (scripts/lib/cli.ts): every command answers --help on stdout with
 * exit code 0 and does nothing else, and refuses a mistake in its flags with the usage and exit
 * code 1, every mistake at once.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');

/** Each command with an option its help must list. */
const commands: [string, string[]][] = [
  ['synth', ['--config <lab.yaml>', '--out <dir>', '--hcl', '--full']],
  ['validate', ['--config <lab.yaml>', '--against <old lab.yaml>']],
  ['placement', ['--config <file>', '--format <format>', '--against <file>', '--what-if <loss>', '(repeatable)']],
  ['audit', ['--tokens <tokens.json>', '--format markdown|json', 'exit codes: 0 no drift; 2 drift']],
  ['status', ['--config <lab.yaml>', '--tenant <name>', '--kubeconfig <file>', '--json', 'exit codes: 0 every tenant shown runs as planned; 2']],
  ['changed', ['--against-out <dir>', '--json']],
  ['deploy', ['--stacks <glob,…>', '--parallel <n>', '--plan', '--yes', '--auto-approve', '--plan-only', '--detailed-exitcode', '2 with --plan-only']],
  ['export-hcl', ['--config <lab.yaml>', '--out <dir>']],
  ['review', ['--plans <dir>', '--out <comment.md>']],
  ['upgrade-plan', ['--against <old lab.yaml>', '--format markdown|json']],
  ['pve-sim', ['--instances <a,b>', '--faults <faults.json>', '--quiet']],
  ['demo', ['--keep <dir>', '--timeout <seconds>']],
  ['twin', ['--config <value>', '--json']],
  ['json-schema', []],
  ['restore', ['--snapshot <file>', '--schema <schema>', '--data-dir <dir>', '--overwrite']],
];

const run = (command: string, args: string[]) =>
  spawnSync(process.execPath, [join('dist', 'scripts', `${command}.js`), ...args], {
    cwd: root,
    encoding: 'utf8',
    timeout: 30_000,
    env: { ...process.env, CHECKPOINT_DISABLE: '1' },
  });

describe('every command', () => {
  it.each(commands)('%s --help prints its usage and options, exit 0, and does nothing else', (command, options) => {
    const schemaBefore = command === 'json-schema' ? existsSync(join(root, 'schema', 'lab.schema.json')) : undefined;
    for (const flag of ['--help', '-h']) {
      const r = run(command, [flag]);
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^usage: (npm run --silent ${command}|node dist/scripts/${command}\\.js)`));
      expect(r.stdout).toContain('  -h, --help');
      expect(r.stdout).toMatch(/\nexit codes: 0 /);
      for (const option of options) expect(r.stdout).toContain(option);
    }
    if (schemaBefore !== undefined) expect(existsSync(join(root, 'schema', 'lab.schema.json'))).toBe(schemaBefore);
  });

  it.each(commands.map(([c]) => c))('%s refuses unknown arguments at once, with the usage, exit 1', (command) => {
    const r = run(command, ['--no-such-flag', 'stray', '--help-me']);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('unknown argument "--no-such-flag"');
    expect(r.stderr).toContain('unknown argument "stray"');
    expect(r.stderr).toContain('unknown argument "--help-me"');
    expect(r.stderr).toContain('\nusage: ');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('refuses a flag given twice, a value on a switch and a missing value', () => {
    const r = run('synth', ['--config', 'a.yaml', '--config=b.yaml', '--hcl=yes', '--out']);
    expect(r.status).toBe(1);
    expect(r.stderr.split('\n').slice(0, 3)).toEqual(['--config is given twice', '--hcl takes no value (got "yes")', '--out needs a value']);
  });
});
