/**
 * What synth and export-hcl write and delete: only directories pvekaas made (marker) or empty
 * ones, never a file it did not write, atomically (a killed run leaves the old output or the new
 * one, and the next run leaves no scratch), and export-hcl's state path the same from any directory.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { compileProject, deployArgv, projectRoot } from '../support/toolchain';
import { benchLab } from '../../bench/lab-generator';
import { synthOutput, writeOutputDir } from '../../scripts/lib/output-dir';

const work = mkdtempSync(join(tmpdir(), 'pvekaas-outdir-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
beforeAll(() => compileProject());
const example = join(projectRoot, 'examples/lab.yaml');

function cli(script: string, args: string[], cwd = projectRoot) {
  return spawnSync(process.execPath, [join(projectRoot, 'dist/scripts', script), ...args], { cwd, encoding: 'utf8' });
}
const synth = (out: string, config = example) => cli('synth.js', ['--config', config, '--out', out]);

function listing(dir: string): string[] {
  const files: string[] = [];
  const walk = (rel: string) => {
    for (const e of readdirSync(join(dir, rel), { withFileTypes: true })) {
      const path = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(path);
      else files.push(path);
    }
  };
  walk('');
  return files.sort();
}

/** A complete synth output: marker, manifest, plan, and every stack of the manifest with its file. */
function complete(out: string): boolean {
  if (!['.pvekaas-output', 'manifest.json', 'placement.json'].every((f) => existsSync(join(out, f)))) return false;
  const stacks = Object.keys(JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')).stacks);
  return stacks.length === 7 && stacks.every((s) => existsSync(join(out, 'stacks', s, 'cdk.tf.json')));
}

const scratch = (parent: string) => readdirSync(parent).filter((e) => e.includes('.pvekaas-'));

/** What a run named `run` leaves when killed between its two renames: `out` moved aside, and its (marked) scratch. */
function leaveKilledRun(parent: string, out: string, run: string): void {
  renameSync(out, join(parent, `.out.pvekaas-old-${run}`));
  mkdirSync(join(parent, `.out.pvekaas-new-${run}`));
  writeFileSync(join(parent, `.out.pvekaas-new-${run}/.pvekaas-output`), '{"tool":"pvekaas","command":"synth"}');
}

describe('output directories', () => {
  it('refuses a non-empty directory pvekaas did not make, and changes nothing in it', () => {
    const project = join(work, 'project');
    mkdirSync(join(project, 'stacks'), { recursive: true });
    writeFileSync(join(project, 'stacks/app.ts'), 'mine');
    writeFileSync(join(project, 'notes.txt'), 'mine');
    for (const [script, args] of [
      ['synth.js', ['--config', example, '--out', project]],
      ['export-hcl.js', ['--config', example, '--out', project]],
    ] as const) {
      const r = cli(script, [...args]);
      expect({ script, status: r.status }).toEqual({ script, status: 1 });
      expect(r.stderr).toContain(`refusing to replace ${project}`);
      expect(r.stderr).toContain('fix: choose a new or empty directory');
      expect(r.stderr).not.toMatch(/\n\s+at /);
      expect(listing(project)).toEqual(['notes.txt', 'stacks/app.ts']);
    }
    const root = cli('export-hcl.js', ['--config', example, '--out', '/']);
    expect(root.status).toBe(1);
    expect(root.stderr).toContain('refusing to replace /');
    const file = join(work, 'a-file');
    writeFileSync(file, 'mine');
    const r = synth(file);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('is a file, not a directory');
    expect(readFileSync(file, 'utf8')).toBe('mine');
  });

  it('writes a marker, replaces its own output, and keeps every file it did not write', () => {
    const out = join(work, 'own');
    expect(synth(out).status).toBe(0);
    expect(JSON.parse(readFileSync(join(out, '.pvekaas-output'), 'utf8'))).toMatchObject({ tool: 'pvekaas', command: 'synth' });
    // What tofu and a person leave in an output directory.
    mkdirSync(join(out, 'stacks/tenant-tenant-b/.terraform/providers'), { recursive: true });
    writeFileSync(join(out, 'stacks/tenant-tenant-b/.terraform/providers/p'), 'plugin');
    writeFileSync(join(out, 'stacks/tenant-tenant-b/terraform.tfstate'), '{"serial": 3}');
    writeFileSync(join(out, 'stacks/proxmox-pmox-txl/.terraform.lock.hcl'), 'lock');
    writeFileSync(join(out, 'README.local'), 'notes');
    // The next description drops tenant-b: its synthesized file goes, its state stays.
    const lab = parse(readFileSync(example, 'utf8'));
    lab.tenants = lab.tenants.filter((t: { name: string }) => t.name !== 'tenant-b');
    const next = join(work, 'no-b.yaml');
    writeFileSync(next, stringify(lab));
    expect(synth(out, next).status).toBe(0);
    expect(existsSync(join(out, 'stacks/tenant-tenant-b/cdk.tf.json'))).toBe(false);
    expect(readFileSync(join(out, 'stacks/tenant-tenant-b/terraform.tfstate'), 'utf8')).toBe('{"serial": 3}');
    expect(readFileSync(join(out, 'stacks/tenant-tenant-b/.terraform/providers/p'), 'utf8')).toBe('plugin');
    expect(readFileSync(join(out, 'stacks/proxmox-pmox-txl/.terraform.lock.hcl'), 'utf8')).toBe('lock');
    expect(readFileSync(join(out, 'README.local'), 'utf8')).toBe('notes');
    expect(Object.keys(JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')).stacks)).not.toContain('tenant-tenant-b');
    expect(scratch(work)).toEqual([]);
    // The output of one command is not the output of the other.
    const r = cli('export-hcl.js', ['--config', example, '--out', out]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('is the output of `synth`, not of `export-hcl`');
  });

  it('leaves the old output or the new one when killed at any moment, and the next run leaves no scratch', async () => {
    const parent = join(work, 'kill');
    mkdirSync(parent);
    const out = join(parent, 'out');
    const lab = parse(readFileSync(example, 'utf8'));
    const file = join(parent, 'lab.yaml');
    writeFileSync(file, stringify(lab));
    expect(synth(out, file).status).toBe(0);
    for (const [i, delay] of [150, 400, 700, 1000, 1300, 1700, 2200].entries()) {
      lab.tenants[0].pools[0].replicas = 2 + (i % 3);
      writeFileSync(file, stringify(lab));
      const child = spawn(process.execPath, [join(projectRoot, 'dist/scripts/synth.js'), '--config', file, '--out', out, '--full'], {
        cwd: projectRoot,
        stdio: 'ignore',
      });
      // Listen before waiting: a run faster than the delay has closed before the kill.
      const closed = new Promise((r) => child.on('close', r));
      await new Promise((r) => setTimeout(r, delay));
      child.kill('SIGKILL');
      await closed;
      // Killed between the two renames, the old output sits beside it until the next run.
      const aside = scratch(parent).filter((e) => e.includes('pvekaas-old-'));
      expect({ delay, complete: complete(out) || (aside.length === 1 && complete(join(parent, aside[0]))) }).toEqual({ delay, complete: true });
    }
    expect(synth(out, file).status).toBe(0);
    expect(complete(out)).toBe(true);
    expect(scratch(parent)).toEqual([]);
  }, 120_000);

  it('puts the old output back when a run was killed between its two renames', () => {
    const parent = join(work, 'between');
    mkdirSync(parent);
    const out = join(parent, 'out');
    expect(synth(out).status).toBe(0);
    writeFileSync(join(out, 'stacks/management/terraform.tfstate'), 'state');
    // A run with this (finished) process id moved the old output aside and died.
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
    leaveKilledRun(parent, out, dead);
    expect(synth(out).status).toBe(0);
    expect(complete(out)).toBe(true);
    expect(readFileSync(join(out, 'stacks/management/terraform.tfstate'), 'utf8')).toBe('state');
    expect(scratch(parent)).toEqual([]);
  });

  it('removes the empty directories a run leaves when killed around its marker, and keeps an unmarked one with files', () => {
    const parent = join(work, 'unmarked');
    mkdirSync(parent);
    const out = join(parent, 'out');
    expect(synth(out).status).toBe(0);
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
    // Killed after making its scratch and before writing the marker; and killed after removing the old output's marker (removed last) and before its rmdir.
    mkdirSync(join(parent, `.out.pvekaas-new-${dead}`));
    mkdirSync(join(parent, `.out.pvekaas-old-${dead}`));
    // Not pvekaas's to delete: no marker, and files in it.
    mkdirSync(join(parent, `.out.pvekaas-old-${dead}0`));
    writeFileSync(join(parent, `.out.pvekaas-old-${dead}0/notes`), 'mine');
    expect(synth(out).status).toBe(0);
    expect(complete(out)).toBe(true);
    expect(scratch(parent)).toEqual([`.out.pvekaas-old-${dead}0`]);
    expect(readFileSync(join(parent, `.out.pvekaas-old-${dead}0/notes`), 'utf8')).toBe('mine');
  });

  it("recovers a killed run's leftovers when its process id now belongs to another process, and keeps a live run's", () => {
    const parent = join(work, 'reused');
    mkdirSync(parent);
    const out = join(parent, 'out');
    expect(synth(out).status).toBe(0);
    writeFileSync(join(out, 'stacks/management/terraform.tfstate'), 'state');
    // Another process, alive, that holds the id the killed run had (pids are reused once they wrap).
    const other = spawn('sleep', ['120'], { stdio: 'ignore' });
    try {
      const leave = (run: string) => leaveKilledRun(parent, out, run);
      // The killed run started at another time than the process now under its id: its leftovers are stale.
      leave(`${other.pid}-1`);
      expect(synth(out).status).toBe(0);
      expect(readFileSync(join(out, 'stacks/management/terraform.tfstate'), 'utf8')).toBe('state');
      expect(scratch(parent)).toEqual([]);
      // The control: named with that process's own start time, the run is alive and its directories stay.
      const start = readFileSync(`/proc/${other.pid}/stat`, 'utf8').split(') ')[1].split(' ')[19];
      leave(`${other.pid}-${start}`);
      expect(synth(out).status).toBe(0);
      expect(scratch(parent).sort()).toEqual([`.out.pvekaas-new-${other.pid}-${start}`, `.out.pvekaas-old-${other.pid}-${start}`]);
    } finally {
      other.kill('SIGKILL');
    }
  });

  it('guards many outputs written in a row with one set of signal handlers, gone once the loop turns', async () => {
    const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
    const before = signals.map((s) => process.listenerCount(s));
    const during: number[][] = [];
    for (let i = 0; i < 12; i++) {
      writeOutputDir(join(work, `row-${i}`), synthOutput, (dir) => writeFileSync(join(dir, 'manifest.json'), '{}'));
      during.push(signals.map((s) => process.listenerCount(s)));
    }
    // Twelve outputs before the event loop turned: one handler per signal, not twelve.
    expect(during.every((counts) => counts.every((n, k) => n === before[k] + 1))).toBe(true);
    await new Promise((r) => setImmediate(r));
    expect(signals.map((s) => process.listenerCount(s))).toEqual(before);
    expect(existsSync(join(work, 'row-11', 'manifest.json'))).toBe(true);
  });

  it('finishes the output on SIGTERM, or leaves only its scratch, which the next run removes', async () => {
    const parent = join(work, 'term');
    mkdirSync(parent);
    const out = join(parent, 'out');
    const child = spawn(process.execPath, [join(projectRoot, 'dist/scripts/synth.js'), '--config', example, '--out', out], {
      cwd: projectRoot,
      stdio: 'ignore',
    });
    const closed = new Promise((r) => child.on('close', r));
    await new Promise((r) => setTimeout(r, 300));
    child.kill('SIGTERM');
    await closed;
    // SIGTERM while the output is being built stops at once and leaves that run's scratch (removed by
    // the next run); while it is put in place the swap finishes first. Never an old output set aside.
    expect(scratch(parent).filter((e) => !e.includes('.pvekaas-new-'))).toEqual([]);
    expect(existsSync(out) ? complete(out) : true).toBe(true);
    expect(synth(out).status).toBe(0);
    expect(scratch(parent)).toEqual([]);
  }, 60_000);
});

describe('interrupted synth (issue 26)', () => {
  /** Processes whose command line names `needle` (a worker's job file sits in the output's scratch). */
  const processesWith = (needle: string) =>
    readdirSync('/proc')
      .filter((p) => /^\d+$/.test(p) && Number(p) !== process.pid)
      .filter((p) => {
        try {
          return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(needle);
        } catch {
          return false;
        }
      });
  const waitFor = async (test: () => boolean, ms: number) => {
    const until = Date.now() + ms;
    while (!test() && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    return test();
  };
  /** A complete output of the big lab: its 155 stacks, each with its file. */
  const whole = (out: string) => {
    if (!existsSync(join(out, 'manifest.json')) || !existsSync(join(out, '.pvekaas-output'))) return false;
    const stacks = Object.keys(JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')).stacks);
    return stacks.length === 155 && stacks.every((st) => existsSync(join(out, 'stacks', st, 'cdk.tf.json')));
  };
  let big: string;
  beforeAll(() => {
    big = join(work, 'big.yaml');
    writeFileSync(big, benchLab(150));
  });

  it('stops at once on SIGINT during the build, keeps the old output, and the next synth completes (seeded moments)', async () => {
    const seed = Number(process.env.PVEKAAS_INTERRUPT_SEED ?? Date.now() % 1_000_000);
    let state = seed;
    const next = () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const out = join(work, 'sigint-out');
    expect(synth(out, big).status).toBe(0);
    const before = readFileSync(join(out, 'manifest.json'), 'utf8');
    const changed = join(work, 'big-changed.yaml');
    writeFileSync(changed, readFileSync(big, 'utf8').replace('replicas: 2', 'replicas: 3'));
    for (let round = 0; round < 3; round++) {
      const atMs = Math.round(300 + next() * 2500);
      process.stderr.write(`  synth SIGINT after ${atMs} ms (seed ${seed})\n`);
      const child = spawn(process.execPath, [join(projectRoot, 'dist/scripts/synth.js'), '--config', changed, '--out', out, '--full'], {
        cwd: projectRoot,
        stdio: 'ignore',
      });
      const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((r) =>
        child.on('close', (code, signal) => r({ code, signal, at: Date.now() })),
      );
      await new Promise((r) => setTimeout(r, atMs));
      const sent = Date.now();
      child.kill('SIGINT');
      const end = await ended;
      // Stopped at once (or it had finished, or it was putting the output in place and then stopped with 130).
      expect({ atMs, ok: ['SIGINT', 0, 130].includes((end.signal ?? end.code) as string | number) }).toEqual({ atMs, ok: true });
      if (end.signal === 'SIGINT') expect(end.at - sent).toBeLessThan(2000);
      expect(whole(out)).toBe(true);
      if (end.signal === 'SIGINT') expect(readFileSync(join(out, 'manifest.json'), 'utf8')).toBe(before);
    }
    expect(cli('synth.js', ['--config', changed, '--out', out]).status).toBe(0);
    expect(whole(out)).toBe(true);
    expect(scratch(work).filter((e) => e.startsWith('.sigint-out.'))).toEqual([]);
  }, 300_000);

  it('ends the workers of synth --jobs with their parent, even on SIGKILL, and the next synth completes', async () => {
    const out = join(work, 'jobs-out');
    // A lab large enough that its workers live long enough to be seen: the lean writer makes a
    // 150-tenant share a matter of a second, which a loaded machine's /proc scan can miss.
    const huge = join(work, 'huge.yaml');
    writeFileSync(huge, benchLab(600));
    const child = spawn(process.execPath, [join(projectRoot, 'dist/scripts/synth.js'), '--config', huge, '--out', out, '--jobs', '2', '--full'], {
      cwd: projectRoot,
      stdio: 'ignore',
    });
    const ended = new Promise((r) => child.on('close', r));
    // Each worker's command line names the job file in this run's scratch directory.
    const job = `.jobs-out.pvekaas-new-${child.pid}-`;
    expect(await waitFor(() => processesWith(job).length >= 2, 60_000)).toBe(true);
    child.kill('SIGKILL');
    await ended;
    expect(await waitFor(() => processesWith(job).length === 0, 3000)).toBe(true);
    const again = cli('synth.js', ['--config', huge, '--out', out, '--jobs', '2']);
    expect({ status: again.status, stderr: again.status === 0 ? '' : again.stderr }).toEqual({ status: 0, stderr: '' });
    expect(scratch(work).filter((e) => e.startsWith('.jobs-out.'))).toEqual([]);
    expect(Object.keys(JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')).stacks)).toHaveLength(605);
  }, 300_000);
});

describe('configured paths inside the output (issue 26)', () => {
  it('refuses a stateDir or a kubeconfig inside --out, before anything is written, with file, line, path and fix; state there is kept', () => {
    const dir = join(work, 'state-in-out');
    mkdirSync(dir, { recursive: true });
    const lab = parse(readFileSync(example, 'utf8'));
    lab.delivery = { local: { stateDir: 'build/stacks/management/assets' } };
    lab.management.kubernetes = { configPath: 'build/mgmt.kubeconfig' };
    writeFileSync(join(dir, 'lab.yaml'), stringify(lab));
    // An earlier synth (before the state directory was moved there) and state kept in it.
    const plain = parse(readFileSync(example, 'utf8'));
    writeFileSync(join(dir, 'plain.yaml'), stringify(plain));
    expect(cli('synth.js', ['--config', 'plain.yaml', '--out', 'build'], dir).status).toBe(0);
    mkdirSync(join(dir, 'build/stacks/management/assets'), { recursive: true });
    writeFileSync(join(dir, 'build/stacks/management/assets/management.tfstate'), '{"version": 4}');
    // deploy checks that tofu is there first: a stand-in that records being run (it must not be).
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'tofu'), `#!/bin/sh\ntouch ${join(dir, 'tofu-ran')}\n`, { mode: 0o755 });
    for (const [script, out] of [
      ['synth.js', 'build'],
      ['deploy.js', 'build'],
    ] as const) {
      // deploy as CI runs it (--yes: without a terminal it would refuse before reading the description).
      const [node, ...argv] =
        script === 'deploy.js'
          ? deployArgv(['--config', 'lab.yaml', '--out', out])
          : [process.execPath, join(projectRoot, 'dist/scripts', script), '--config', 'lab.yaml', '--out', out];
      const r = spawnSync(node, argv, {
        cwd: dir,
        encoding: 'utf8',
        env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
      });
      expect({ script, status: r.status }).toEqual({ script, status: 1 });
      expect(r.stderr).toMatch(/^ {2}lab\.yaml:\d+:\d+ {2}delivery\.local\.stateDir: stateDir is inside --out build \(/m);
      expect(r.stderr).toMatch(/^ {2}lab\.yaml:\d+:\d+ {2}management\.kubernetes\.configPath: configPath is inside --out build/m);
      expect(r.stderr).toContain('fix: keep state outside every generated directory');
    }
    expect(readFileSync(join(dir, 'build/stacks/management/assets/management.tfstate'), 'utf8')).toBe('{"version": 4}');
    expect(existsSync(join(dir, 'tofu-ran'))).toBe(false);
    // export-hcl: state is at <parent of --out>/<stateDir>, so a stateDir under the export's own name is inside it.
    lab.delivery = { local: { stateDir: 'exported/state' } };
    writeFileSync(join(dir, 'export.yaml'), stringify(lab));
    const exported = cli('export-hcl.js', ['--config', 'export.yaml', '--out', 'exported'], dir);
    expect(exported.status).toBe(1);
    expect(exported.stderr).toMatch(/^ {2}export\.yaml:\d+:\d+ {2}delivery\.local\.stateDir: stateDir is inside --out exported \(/m);
    expect(existsSync(join(dir, 'exported'))).toBe(false);
    // The same stateDir beside the output is fine.
    lab.delivery = { local: { stateDir: 'state' } };
    lab.management.kubernetes = { configPath: '~/.kube/lab-mgmt.yaml' };
    writeFileSync(join(dir, 'lab.yaml'), stringify(lab));
    expect(cli('synth.js', ['--config', 'lab.yaml', '--out', 'build'], dir).status).toBe(0);
  });
});

describe('state reached through a symbolic link (issue 42)', () => {
  it('refuses a stateDir that reaches --out through a symbolic link, by real paths, and the state there is kept', () => {
    const dir = join(work, 'state-through-link');
    mkdirSync(dir, { recursive: true });
    expect(cli('synth.js', ['--config', example, '--out', 'realout'], dir).status).toBe(0);
    symlinkSync('realout', join(dir, 'lnk'));
    mkdirSync(join(dir, 'realout/stacks/management/assets'), { recursive: true });
    writeFileSync(join(dir, 'realout/stacks/management/assets/management.tfstate'), '{"version": 4}');
    const lab = parse(readFileSync(example, 'utf8'));
    // Through the link, and through the link to a directory that does not exist yet (the longest existing prefix counts).
    for (const stateDir of ['lnk/stacks/management/assets', 'lnk/state-to-be']) {
      lab.delivery = { local: { stateDir } };
      writeFileSync(join(dir, 'lab.yaml'), stringify(lab));
      const r = cli('synth.js', ['--config', 'lab.yaml', '--out', 'realout', '--full'], dir);
      expect({ stateDir, status: r.status }).toEqual({ stateDir, status: 1 });
      expect(r.stderr).toMatch(/^ {2}lab\.yaml:\d+:\d+ {2}delivery\.local\.stateDir: stateDir is inside --out realout \(/m);
      expect(r.stderr).toContain(`reached through a symbolic link: ${realpathSync(join(dir, 'realout'))}`);
    }
    expect(readFileSync(join(dir, 'realout/stacks/management/assets/management.tfstate'), 'utf8')).toBe('{"version": 4}');
  });

  it('never deletes a directory holding a *.tfstate: it is carried into the new output, or kept and said', () => {
    const out = join(work, 'state-in-generated');
    const stack = (scratch: string, assets: boolean) => {
      mkdirSync(join(scratch, 'stacks/proxmox-a'), { recursive: true });
      writeFileSync(join(scratch, 'stacks/proxmox-a/cdk.tf.json'), '{}');
      if (assets) {
        mkdirSync(join(scratch, 'stacks/proxmox-a/assets'));
        writeFileSync(join(scratch, 'stacks/proxmox-a/assets/new-asset'), 'x');
      }
    };
    writeOutputDir(out, synthOutput, (scratch) => stack(scratch, true));
    // State someone's stateDir put inside a generated directory (as through a link the check could not see).
    writeFileSync(join(out, 'stacks/proxmox-a/assets/proxmox-a.tfstate'), '{"version": 4, "serial": 7}');
    // The new output has no assets directory: the one holding state moves over whole.
    writeOutputDir(out, synthOutput, (scratch) => stack(scratch, false));
    expect(readFileSync(join(out, 'stacks/proxmox-a/assets/proxmox-a.tfstate'), 'utf8')).toBe('{"version": 4, "serial": 7}');
    // The new output has one: the old one is kept beside the output, and a warning says where.
    const warnings: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string) => (warnings.push(String(chunk)), true)) as typeof process.stderr.write;
    try {
      writeOutputDir(out, synthOutput, (scratch) => stack(scratch, true));
    } finally {
      process.stderr.write = write;
    }
    const kept = readdirSync(work).filter((e) => e.startsWith('.state-in-generated.pvekaas-old-'));
    expect(kept).toHaveLength(1);
    expect(readFileSync(join(work, kept[0], 'stacks/proxmox-a/assets/proxmox-a.tfstate'), 'utf8')).toBe('{"version": 4, "serial": 7}');
    expect(warnings.join('')).toContain(join(work, kept[0], 'stacks/proxmox-a/assets'));
    expect(warnings.join('')).toContain('OpenTofu state');
    expect(readFileSync(join(out, 'stacks/proxmox-a/assets/new-asset'), 'utf8')).toBe('x');
  });
});

describe('export-hcl with the local backend', () => {
  it('writes the state path relative to the directory that holds the export, the same from any working directory', () => {
    const a = join(work, 'exp/hcl');
    const b = join(work, 'exp2/hcl');
    expect(cli('export-hcl.js', ['--config', example, '--out', a]).status).toBe(0);
    expect(cli('export-hcl.js', ['--config', example, '--out', b], tmpdir()).status).toBe(0);
    const text = readFileSync(join(a, 'management/cdk.tf'), 'utf8');
    expect(text).toContain('path = "../../state/management.tfstate"');
    expect(text).toContain('path = "../../state/proxmox-pmox-txl.tfstate"');
    for (const f of listing(a)) expect({ f, text: readFileSync(join(b, f), 'utf8') }).toEqual({ f, text: readFileSync(join(a, f), 'utf8') });
  });
});
