#!/usr/bin/env node
/**
 * `pvekaas <command> [args]`: runs the compiled command `dist/<dir>/<script>.js` in this process,
 * compiling the project (tsc) first only when a source is newer than the last build. The check is
 * a walk over the modification times of the sources tsc compiles (tsconfig.json "include", and the
 * directories themselves, so a deleted file counts): a few milliseconds, against the 6–9 s a `tsc`
 * costs on every `npm run` (docs/development.md, "Benchmark figures": `npm run bench:cli`).
 *
 * `pvekaas --help` lists every command; `pvekaas <command> --help` is the command's own help.
 * The `npm run <command>` scripts of package.json go through it, so they pay tsc only after an edit.
 *
 * Plain JavaScript on purpose: it must run before anything is compiled.
 */
'use strict';
const { execFileSync } = require('node:child_process');
const { existsSync, mkdirSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync, readFileSync } = require('node:fs');
const { join, resolve } = require('node:path');

const root = resolve(__dirname, '..');
const dist = join(root, 'dist');
const stamp = join(dist, '.pvekaas-build-stamp');
const lock = join(dist, '.pvekaas-build-lock');

/**
 * Every command: its compiled script (under dist/), one line for `--help`, and whether it needs the
 * toolchain linked first (`scripts/toolchain install`). A command added under scripts/ is added here
 * (test/cli/pvekaas-bin.test.ts fails for a scripts/<name>.ts with a runCommand that is not listed).
 */
const COMMANDS = {
  validate: { script: 'scripts/validate.js', about: 'check a lab description without synthesizing: every problem at once, with file, line and fix' },
  placement: { script: 'scripts/placement.js', about: 'where every machine goes: report, JSON, SVG; --against an older lab, --what-if a lost node' },
  synth: { script: 'scripts/synth.js', about: 'write every stack (Terraform JSON, or HCL with --hcl)' },
  'upgrade-plan': { script: 'scripts/upgrade-plan.js', about: 'the steps, templates and surge of every Kubernetes upgrade' },
  changed: { script: 'scripts/changed.js', about: 'the stacks that change between two labs, each with the reason in lab terms' },
  review: { script: 'scripts/review.js', about: 'a pull-request comment: what changes and why, placement diff, plan summaries' },
  deploy: { script: 'scripts/deploy.js', about: 'synthesize, then OpenTofu on the changed stacks in dependency order' },
  audit: { script: 'scripts/audit.js', about: 'drift between the Proxmox instances and the plan (exit 2 on drift)' },
  'export-hcl': { script: 'scripts/export-hcl.js', about: 'one HCL directory per Terraform workspace, with its backend and variables' },
  restore: { script: 'scripts/restore.js', about: 'restore the shared datastore (or one tenant) from a backup snapshot' },
  demo: { script: 'scripts/demo.js', about: 'the main job on a lab, through the lab twin', toolchain: true },
  twin: { script: 'scripts/twin.js', about: 'bring a lab up in the lab twin and print each machine beside the plan', toolchain: true },
  'pve-sim': { script: 'scripts/pve-sim.js', about: 'run the Proxmox VE API simulator for a lab' },
  'json-schema': { script: 'scripts/json-schema.js', about: '(development) regenerate schema/lab.schema.json and docs/lab-reference.md' },
  'docs:rules': { script: 'scripts/rules-doc.js', about: '(development) regenerate docs/rules.md from the rule table' },
  'gen:bindings': { script: 'scripts/gen-bindings.js', about: '(development) regenerate the provider bindings under .gen/' },
  bench: { script: 'bench/synth.js', about: '(benchmark) synth time and memory for 10, 100 and 1000 tenants' },
  'bench:placement': { script: 'bench/placement.js', about: '(benchmark) placement time for 10k and 100k machines' },
  'bench:cli': { script: 'bench/cli.js', about: "(benchmark) this command's own start: the no-rebuild path against node and npm run" },
  'bench:twin': { script: 'bench/twin.js', about: '(benchmark) the lab twin, phase by phase', toolchain: true },
  'bench:api-restart': { script: 'bench/api-restart.js', about: '(benchmark) the ways to restart the test kube-apiserver', toolchain: true },
};

/** The directories and files tsc compiles (tsconfig.json "include") and the build's other inputs. */
const SOURCE_DIRS = ['stacks', 'constructs', 'modules', 'scripts', 'sim', '.gen', 'bench'];
const SOURCE_FILES = ['tsconfig.json', 'package-lock.json', 'main.ts'];

/** The newest modification time among the sources (and their directories: a deleted file changes its directory's). */
function newestSource() {
  let newest = 0;
  const walk = (dir) => {
    let entries;
    try {
      newest = Math.max(newest, statSync(dir).mtimeMs);
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules') walk(join(dir, entry.name));
      } else if (/\.(ts|json)$/.test(entry.name) && !entry.name.endsWith('.test.ts')) {
        newest = Math.max(newest, statSync(join(dir, entry.name)).mtimeMs);
      }
    }
  };
  for (const dir of SOURCE_DIRS) walk(join(root, dir));
  for (const file of SOURCE_FILES) if (existsSync(join(root, file))) newest = Math.max(newest, statSync(join(root, file)).mtimeMs);
  return newest;
}

/** When the build was last known to match the sources: this launcher's stamp, or the end of a `tsc` run by hand (its build info). */
function builtAt() {
  let at = -1;
  for (const file of [stamp, join(dist, '.tsbuildinfo')]) if (existsSync(file)) at = Math.max(at, statSync(file).mtimeMs);
  return at;
}

function fresh() {
  return existsSync(join(dist, 'scripts')) && builtAt() >= newestSource();
}

const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** One build at a time: a second launcher waits for the first one's build instead of running tsc into the same dist/. */
function withLock(body) {
  mkdirSync(dist, { recursive: true });
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, 'pid'), `${process.pid}\n`);
      break;
    } catch {
      let holder = NaN;
      try {
        holder = Number(readFileSync(join(lock, 'pid'), 'utf8'));
      } catch {
        // being written or removed: look again
      }
      let alive = true;
      if (Number.isInteger(holder) && holder > 0) {
        try {
          process.kill(holder, 0);
        } catch {
          alive = false;
        }
      }
      if (!alive) rmSync(lock, { recursive: true, force: true });
      else sleep(200);
    }
  }
  try {
    return body();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** Compiles the project when a source is newer than the build; exits 1 when it does not compile. */
function ensureBuilt() {
  if (fresh()) return;
  withLock(() => {
    if (fresh()) return; // another launcher built it while this one waited
    const started = Date.now();
    process.stderr.write('pvekaas: a source changed since the last build; compiling (tsc) …\n');
    try {
      execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.json')], {
        cwd: root,
        stdio: ['ignore', 'inherit', 'inherit'],
      });
    } catch {
      process.stderr.write('pvekaas: the TypeScript sources do not compile (see above); fix them and run again\n');
      process.exit(1);
    }
    // The stamp carries the time the compile started: a source saved during it counts as newer.
    writeFileSync(stamp, `${new Date(started).toISOString()}\n`);
    utimesSync(stamp, started / 1000, started / 1000);
    process.stderr.write(`pvekaas: compiled in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  });
}

function helpText() {
  const width = Math.max(...Object.keys(COMMANDS).map((n) => n.length));
  return [
    'usage: pvekaas <command> [options]       (from the project: npx pvekaas …, or node bin/pvekaas.js …)',
    '',
    'Runs the compiled command; compiles the project first only when a source changed since the last build.',
    '',
    'commands:',
    ...Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.about}`),
    '',
    '`pvekaas <command> --help`: the options and exit codes of one command.',
    'exit codes: those of the command; 1 for an unknown command or sources that do not compile',
    '',
  ].join('\n');
}

function main(argv) {
  const [name, ...args] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(helpText());
    process.exitCode = name === undefined ? 1 : 0;
    return;
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) {
    process.stderr.write(`pvekaas: no command "${name}"; the commands: ${Object.keys(COMMANDS).join(', ')} (pvekaas --help)\n`);
    process.exitCode = 1;
    return;
  }
  if (command.toolchain) {
    try {
      execFileSync(join(root, 'scripts', 'toolchain'), ['install'], { stdio: ['ignore', 'inherit', 'inherit'] });
    } catch (e) {
      process.exit(typeof e.status === 'number' && e.status !== 0 ? e.status : 1);
    }
  }
  ensureBuilt();
  const script = join(dist, command.script);
  // The command runs as the main module of this process, as `node dist/<script>.js args` would run it.
  process.argv = [process.argv[0], script, ...args];
  require('node:module').runMain(script);
}

module.exports = { COMMANDS, ensureBuilt, newestSource, builtAt };

if (require.main === module) main(process.argv.slice(2));
