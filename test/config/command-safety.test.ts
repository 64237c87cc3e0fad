/**
 * Safe under bad input (issue 13), the commands: the kubeconfig command's quoting, every command
 * ending with a message and exit code 1 (never a stack trace, broken pipes included), every file a
 * command reads bounded, and the kept directories of demo and twin (the description itself:
 * safety.test.ts).
 *
 * The CLI cases run `dist/` (built by `npm test`'s tsc step, as every CLI suite does).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync, ftruncateSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { parseLab } from '../../modules/config/load';
import { shellQuotePath } from '../../modules/config/safety';
import { planPlacement } from '../../modules/placement';
import { renderTenants } from '../../modules/tenants';
import { cli, exampleWith, noStackTrace, root } from './safety-helpers';

const work = mkdtempSync(join(tmpdir(), 'pvekaas-safety-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the kubeconfig command', () => {
  it('quotes configPath and context for the shell, keeping ~ expandable (property, through bash)', () => {
    const pathChar = fc.constantFrom(...'abcXYZ019._~/+@=:, -');
    fc.assert(
      fc.property(
        fc.string({ unit: pathChar, minLength: 1, maxLength: 20 }).filter((p) => /^[A-Za-z0-9._~/+@=:,-]/.test(p)),
        fc.boolean(),
        (rest, tilde) => {
          const configPath = tilde ? `~/${rest}` : rest;
          // Quoted: a plain `0_.` is a number to the loader's YAML core schema (underscores in floats).
          const lab = parseLab(
            exampleWith((l) => (l.management.kubernetes = { configPath, context: 'arn:aws:eks:eu-1:1:cluster/mgmt' }), {
              defaultStringType: 'QUOTE_DOUBLE',
              defaultKeyType: 'PLAIN',
            }),
          );
          const command = renderTenants(lab, planPlacement(lab)).get('tenant-a')!.kubeconfigCommand;
          const quoted = / --kubeconfig (.*) --context /.exec(command)![1];
          expect(quoted).toBe(shellQuotePath(configPath));
          const seen = execFileSync('bash', ['-c', `printf '%s' ${quoted}`], { encoding: 'utf8', env: { ...process.env, HOME: homedir() } });
          // A path written as `~/...` is the user's home whichever way it was generated (`rest` may itself start with `~/`).
          expect(seen).toBe(configPath.startsWith('~/') ? `${homedir()}/${configPath.slice(2)}` : configPath);
        },
      ),
      { numRuns: 25, examples: [['~/', false]] },
    );
  });
});

describe('every command ends with a message and exit code 1, never a stack trace', () => {
  const node = (code: string) =>
    spawnSync('bash', ['-o', 'pipefail', '-c', `"${process.execPath}" -e "${code}" | head -c 1 >/dev/null`], { cwd: root, encoding: 'utf8', timeout: 60_000 });

  it('on a reader that closes the pipe early (validate | head)', () => {
    const r = node("require('./dist/scripts/lib/cli').runCommand(() => { for (let i = 0; i < 3000; i++) process.stdout.write('x'.repeat(10000) + '\\\\n'); })");
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/broken pipe/);
    noStackTrace(r.stderr);
  });

  it('on an internal error', () => {
    const r = spawnSync(process.execPath, ['-e', "require('./dist/scripts/lib/cli').runCommand(() => { null.x; })"], { cwd: root, encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^internal error \(please report, with the command that caused it\): Cannot read properties of null/);
    noStackTrace(r.stderr);
  });

  it('on synth --out <a file>', () => {
    const file = join(work, 'a-file');
    writeFileSync(file, 'mine\n');
    const r = cli('synth.js', ['--config', 'examples/lab.yaml', '--out', file]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(file);
    noStackTrace(r.stderr);
    expect(readFileSync(file, 'utf8')).toBe('mine\n');
  });

  it('on placement errors, with the file and the line of the pool', () => {
    const file = join(work, 'too-big.yaml');
    writeFileSync(
      file,
      exampleWith((l) => (l.tenants[0].pools[0].replicas = 500)),
    );
    for (const script of ['validate.js', 'placement.js']) {
      const r = cli(script, ['--config', file]);
      expect({ script, status: r.status }).toEqual({ script, status: 1 });
      expect(r.stderr).toMatch(new RegExp(`${file.replace(/[.]/g, '\\.')}:\\d+:\\d+  tenants\\[0\\]\\.pools\\[0\\]: tenant tenant-a, pool workers`));
      expect(r.stderr).toMatch(/fix: /);
      noStackTrace(r.stderr);
    }
  });
});

describe('every other file a command reads is bounded too (a FIFO, /dev/zero, a huge file)', () => {
  const fifo = join(work, 'input.fifo');
  const huge = join(work, 'huge.json');
  const plans = (target: string) => {
    const dir = mkdtempSync(join(work, 'plans-'));
    symlinkSync(target, join(dir, 'management.json'));
    return dir;
  };
  beforeAll(() => {
    execFileSync('mkfifo', [fifo]);
    const fd = openSync(huge, 'w');
    ftruncateSync(fd, 300 * 1024 * 1024);
    closeSync(fd);
  });

  const cases: [string, string, (input: string) => string[], RegExp][] = [
    ['audit --tokens', 'audit.js', (input) => ['--config', 'examples/lab.yaml', '--tokens', input], /^--tokens /m],
    ['pve-sim --faults', 'pve-sim.js', (input) => ['--faults', input, '--quiet'], /^--faults /m],
    [
      'review --plans',
      'review.js',
      (input) => ['--config', 'examples/lab.yaml', '--against', 'examples/lab.yaml', '--plans', plans(input)],
      /management\.json/,
    ],
    ['twin --config', 'twin.js', (input) => ['--config', input], /not a regular file|bytes, more than/],
  ];

  it.each(cases)('%s: refused at once with exit 1, never waited on or read without end', (_name, script, args, names) => {
    for (const [input, why] of [
      [fifo, /named pipe \(FIFO\), not a regular file/],
      ['/dev/zero', /a device, not a regular file/],
      [huge, /314572800 bytes, more than the \d+/],
    ] as const) {
      const r = cli(script, args(input));
      expect({ input, status: r.status, stdout: r.stdout }).toEqual({ input, status: 1, stdout: '' });
      expect(r.stderr).toMatch(why);
      expect(r.stderr).toMatch(names);
      expect(r.stderr).toContain('fix: ');
      expect(r.cpuMs).toBeLessThan(20_000);
      noStackTrace(r.stderr);
    }
  });
});

describe('demo and twin --keep <dir>: only a new, empty or earlier kept directory', () => {
  it.each(['demo.js', 'twin.js'])('%s refuses a directory it did not make, and changes nothing in it', (script) => {
    const dir = mkdtempSync(join(work, 'keep-'));
    mkdirSync(join(dir, 'state'));
    writeFileSync(join(dir, 'lab.yaml'), 'mine\n');
    writeFileSync(join(dir, 'state', 'proxmox-pmox-txl.tfstate'), '{"serial": 7}');
    const r = cli(script, ['--config', 'examples/lab.yaml', '--keep', dir]);
    expect({ status: r.status, stdout: r.stdout }).toEqual({ status: 1, stdout: '' });
    expect(r.stderr).toContain(`--keep ${dir}: refusing to work in ${dir}: it is not empty and pvekaas did not make it`);
    expect(r.stderr).toContain('fix: ');
    noStackTrace(r.stderr);
    expect(readdirSync(dir).sort()).toEqual(['lab.yaml', 'state']);
    expect(readFileSync(join(dir, 'lab.yaml'), 'utf8')).toBe('mine\n');
    expect(readFileSync(join(dir, 'state', 'proxmox-pmox-txl.tfstate'), 'utf8')).toBe('{"serial": 7}');
  });
});
