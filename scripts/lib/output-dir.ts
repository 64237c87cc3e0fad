/**
 * The one way pvekaas writes an output directory (`synth --out`, `export-hcl --out`):
 *
 * - Every directory it makes carries a marker file, `.pvekaas-output`, naming the command.
 * - It replaces only a directory with its marker (of the same command) or an empty one, and refuses
 *   anything else — a file, the project, `/` — with the path and a fix, before any work is done.
 * - It never deletes what it did not write: files it does not generate (a stack's `.terraform/`,
 *   its lock file, a state file someone kept there) are moved into the new output, unchanged; nor
 *   any directory holding OpenTofu state (`*.tfstate`), even one it generates (a stack's `assets/`):
 *   that is moved into the new output too, or kept where it is and said.
 * - The new output is built in a scratch directory beside the old one and put in place with two
 *   renames. A run killed before them leaves the old output (and a scratch directory the next run
 *   removes); a run killed between them leaves the old output under `.<name>.pvekaas-old-<pid>`,
 *   which the next run puts back. Either way one complete output, old or new, and no scratch.
 *   Scratch names carry the run's process id and, where /proc has it, the process's start time
 *   (`-<pid>-<start>`): a killed run's process id taken again by another process does not make its
 *   leftovers look alive.
 */
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  rmdirSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { configErrorAt } from '../../modules/config/load';
import type { Problem } from '../../modules/config/problems';
import type { Lab } from '../../modules/config/schema';
import { MACHINE_DEPLOYMENTS_FILE } from '../../modules/tenants/replaced';
import { UserError } from './cli';
import { readRegularFile } from '../../modules/config/load';

export const MARKER = '.pvekaas-output';

/** What an entry of an output directory is, by its path relative to the directory (with `/`). */
export type EntryKind = 'generated' | 'container' | 'foreign';

export interface OutputKind {
  /** The command that owns the directory, written in its marker. */
  name: 'synth' | 'export-hcl';
  /** `generated`: pvekaas writes it and may delete it; `container`: a directory to look into; `foreign`: kept as is. */
  classify(relPath: string): EntryKind;
}

function markerText(kind: OutputKind): string {
  return `${JSON.stringify({ tool: 'pvekaas', command: kind.name, note: 'pvekaas replaces this directory on its next run; files it did not write are kept' })}\n`;
}

function readMarker(dir: string): { tool?: string; command?: string } | undefined {
  try {
    // A regular file of a few bytes: a FIFO or a link to /dev/zero put there is not waited on or read without end.
    return JSON.parse(readRegularFile(join(dir, MARKER), 64 * 1024));
  } catch {
    return undefined;
  }
}

/** Whether a process id is alive (a scratch directory of a live run is not stale). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Throws a UserError unless `out` may be written: absent, an empty directory, or a directory
 * this command made. `flag` names the option in the message (e.g. `--out`).
 */
export function checkOutputDir(out: string, kind: OutputKind, flag = '--out'): void {
  const dir = resolve(out);
  if (!existsSync(dir)) {
    const parent = dirname(dir);
    if (existsSync(parent) && !statSync(parent).isDirectory())
      throw new UserError(`${flag} ${out}: ${parent} is a file, not a directory\n  fix: choose an output path inside a directory`);
    return;
  }
  const stat = lstatSync(dir);
  if (stat.isSymbolicLink())
    throw new UserError(`${flag} ${out}: is a symbolic link; pvekaas replaces only directories it made\n  fix: give the real directory, or a new path`);
  if (!stat.isDirectory())
    throw new UserError(`${flag} ${out}: is a file, not a directory; pvekaas never overwrites a file it did not write\n  fix: choose a new directory path`);
  const entries = readdirSync(dir);
  if (entries.length === 0) return;
  const marker = readMarker(dir);
  if (marker?.tool !== 'pvekaas') {
    throw new UserError(
      `${flag} ${out}: refusing to replace ${dir}: it is not empty and pvekaas did not make it (no ${MARKER} marker; it holds ${entries.length} entr${entries.length === 1 ? 'y' : 'ies'}, e.g. ${entries.sort().slice(0, 3).join(', ')})\n` +
        `  fix: choose a new or empty directory for ${flag}, or move ${dir} away yourself`,
    );
  }
  if (marker.command !== kind.name) {
    throw new UserError(`${flag} ${out}: ${dir} is the output of \`${marker.command}\`, not of \`${kind.name}\`\n  fix: choose another directory for ${flag}`);
  }
}

/** When a process started (clock ticks since boot, field 22 of /proc/<pid>/stat), or undefined where there is no /proc entry. */
export function startTimeOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

let ownRun: string | undefined;

/** This run's id in scratch names: `<pid>-<start>`, or `<pid>` where the start time cannot be read. */
function runId(): string {
  if (ownRun === undefined) {
    const start = startTimeOf(process.pid);
    ownRun = start === undefined ? String(process.pid) : `${process.pid}-${start}`;
  }
  return ownRun;
}

function scratchName(dir: string, what: 'new' | 'old'): string {
  return join(dirname(dir), `.${basename(dir)}.pvekaas-${what}-${runId()}`);
}

/** Whether the run that named a scratch directory is still running: its process alive, and the same process (start time) where the name has it. */
function runAlive(pid: number, start: string | undefined): boolean {
  if (!alive(pid)) return false;
  return start === undefined || startTimeOf(pid) === start;
}

/** Scratch and old directories of earlier runs of this output that are no longer running. */
function leftovers(dir: string): { path: string; what: 'new' | 'old'; pid: number }[] {
  const parent = dirname(dir);
  if (!existsSync(parent)) return [];
  const prefix = `.${basename(dir)}.pvekaas-`;
  const found: { path: string; what: 'new' | 'old'; pid: number }[] = [];
  for (const entry of readdirSync(parent)) {
    if (!entry.startsWith(prefix)) continue;
    // `<pid>-<start>`, or `<pid>` alone (where /proc has no start time, and as earlier versions named them).
    const m = /^(new|old)-(\d+)(?:-(\d+))?$/.exec(entry.slice(prefix.length));
    if (!m) continue;
    const pid = Number(m[2]);
    if (pid !== process.pid && runAlive(pid, m[3])) continue;
    found.push({ path: join(parent, entry), what: m[1] as 'new' | 'old', pid });
  }
  return found;
}

/**
 * Moves every entry of `from` that pvekaas did not generate to the same place under `to`, then
 * removes what is left of `from` (generated files only). Returns paths it had to keep in `from`.
 */
function carryOver(from: string, to: string, kind: OutputKind): string[] {
  const kept: string[] = [];
  const walk = (rel: string) => {
    // Entries with their types (no lstat per entry): a symbolic link is not a directory here, as with lstat.
    for (const dirent of readdirSync(join(from, rel), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const entry = dirent.name;
      const path = rel ? `${rel}/${entry}` : entry;
      const what = kind.classify(path);
      const source = join(from, path);
      // A generated directory holding OpenTofu state (a stateDir put there) is carried over like a foreign file, never deleted.
      if (what === 'generated' && !(dirent.isDirectory() && holdsState(source))) continue;
      if (what === 'container' && dirent.isDirectory()) {
        walk(path);
        continue;
      }
      const target = join(to, path);
      if (existsSync(target)) {
        kept.push(source);
        continue;
      }
      mkdirSync(dirname(target), { recursive: true });
      renameSync(source, target);
    }
  };
  walk('');
  // What remains is generated files and the containers that held them.
  const remove = (rel: string): boolean => {
    let empty = true;
    for (const dirent of readdirSync(join(from, rel), { withFileTypes: true })) {
      const path = rel ? `${rel}/${dirent.name}` : dirent.name;
      // The marker goes last: a run killed while this removes still leaves a directory the next run knows as its own.
      if (path === MARKER) continue;
      const full = join(from, path);
      const what = kind.classify(path);
      if (what === 'container' && dirent.isDirectory()) {
        if (!remove(path)) empty = false;
      } else if (what === 'generated') {
        // A file (most of them): one unlink; a directory (assets): removed with what is in it, unless it holds state (kept, and said).
        if (dirent.isDirectory()) {
          if (holdsState(full)) {
            if (!kept.includes(full)) kept.push(full);
            empty = false;
          } else rmSync(full, { recursive: true, force: true });
        } else unlinkQuietly(full);
      } else {
        empty = false;
      }
    }
    if (empty) {
      if (rel === '') unlinkQuietly(join(from, MARKER));
      rmdirSync(join(from, rel));
    }
    return empty;
  };
  remove('');
  return kept;
}

/** A `*.tfstate` (or its backup) anywhere under a directory, links not followed: no directory holding state is ever deleted. */
export function holdsState(dir: string): boolean {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return false;
  }
  return entries.some((e) => (e.isDirectory() ? holdsState(join(dir, e.name)) : /\.tfstate(\.backup)?$/.test(e.name)));
}

/** A path with its longest existing prefix resolved to its real path (symbolic links followed), the rest appended. */
export function realPathOf(path: string): string {
  let existing = resolve(path);
  const rest: string[] = [];
  for (;;) {
    try {
      return join(realpathSync(existing), ...rest);
    } catch {
      const parent = dirname(existing);
      if (parent === existing) return resolve(path);
      rest.unshift(basename(existing));
      existing = parent;
    }
  }
}

/** unlink, with a file already gone taken as removed (as `rmSync(..., { force: true })` takes it). */
function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
}

/** Removes a directory pvekaas made, its marker last: cut short, it is still known as pvekaas's by the next run. */
function removeMarkedLast(dir: string): void {
  for (const entry of readdirSync(dir)) if (entry !== MARKER) rmSync(join(dir, entry), { recursive: true, force: true, maxRetries: 5 });
  rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
}

/** Finishes or undoes what killed runs left: puts an old output back, removes unused scratch. */
function recover(dir: string, kind: OutputKind): void {
  for (const left of leftovers(dir).sort((a, b) => (a.what === b.what ? a.pid - b.pid : a.what === 'old' ? -1 : 1))) {
    if (readMarker(left.path)?.tool !== 'pvekaas') {
      // No marker: a scratch directory killed before its marker was written, or one whose removal was cut
      // short after the marker (removed last) went. Empty, it is removed; anything else is kept as it is.
      try {
        rmdirSync(left.path);
      } catch {
        // not empty, or gone meanwhile
      }
      continue;
    }
    if (left.what === 'old') {
      // Killed between the two renames: the old output was moved aside and the new one not yet in place.
      if (!existsSync(dir)) renameSync(left.path, dir);
      else carryOver(left.path, dir, kind);
    } else if (holdsState(left.path)) {
      process.stderr.write(
        `warning: kept ${left.path}, the scratch directory of an earlier run: it holds OpenTofu state (*.tfstate), which pvekaas never deletes\n`,
      );
    } else {
      removeMarkedLast(left.path);
    }
  }
}

/**
 * Builds a new output with `build(scratch)` and puts it in place of `out` (see the module comment).
 * `build` writes into an empty directory; nothing is left behind when it throws.
 */
export function writeOutputDir<T>(out: string, kind: OutputKind, build: (scratch: string) => T, flag = '--out'): T {
  const dir = resolve(out);
  checkOutputDir(out, kind, flag);
  mkdirSync(dirname(dir), { recursive: true });
  recover(dir, kind);
  checkOutputDir(out, kind, flag);
  const scratch = scratchName(dir, 'new');
  rmSync(scratch, { recursive: true, force: true, maxRetries: 5 });
  mkdirSync(scratch);
  let result: T;
  // While the output is built, Ctrl-C or SIGTERM stops the command at once (the default action):
  // the old output is untouched and the scratch directory is removed by the next run.
  try {
    writeFileSync(join(scratch, MARKER), markerText(kind));
    result = build(scratch);
  } catch (e) {
    removeMarkedLast(scratch);
    throw e;
  }
  return finishingBeforeSignals(() => {
    if (!existsSync(dir)) {
      renameSync(scratch, dir);
      return result;
    }
    const old = scratchName(dir, 'old');
    renameSync(dir, old);
    renameSync(scratch, dir);
    const kept = carryOver(old, dir, kind);
    const state = kept.filter((k) => holdsState(k));
    if (state.length > 0)
      process.stderr.write(
        `warning: kept ${state.join(', ')}: ${state.length === 1 ? 'it holds' : 'they hold'} OpenTofu state (*.tfstate), which pvekaas never deletes; move the state out of ${out} (delivery.local.stateDir)\n`,
      );
    if (kept.length > state.length)
      process.stderr.write(`warning: kept ${kept.length - state.length} file(s) of the previous output that clash with new ones, in ${old}\n`);
    return result;
  });
}

/**
 * Putting the new output in place (two renames, then the old output's foreign files carried over)
 * is not cut in half by Ctrl-C, SIGTERM or SIGHUP: a signal that comes meanwhile is handled once it
 * is done, and the command then exits 130, 143 or 129. The handlers stay until the event loop has
 * delivered what came in meanwhile (Node's signal handles do not keep the loop alive, so without
 * the pending `setImmediate` a command could end first and drop the signal: exit 0), and are then
 * removed, so a later interrupt is the command's own again (deploy's, while tofu runs).
 */
function finishingBeforeSignals<T>(section: () => T): T {
  // One set of handlers however many sections run before the loop turns (a process that writes
  // several outputs in a row, synchronously): installed by the first, removed after the last.
  if (signalGuard.pending === 0 && signalGuard.handlers.length === 0) {
    signalGuard.handlers = (
      [
        ['SIGINT', 130],
        ['SIGTERM', 143],
        ['SIGHUP', 129],
      ] as const
    ).map(([signal, code]) => {
      const handler = () => {
        process.stderr.write(`${signal}: stopped after the output was complete\n`);
        process.exit(code);
      };
      process.on(signal, handler);
      return [signal, handler] as const;
    });
  }
  signalGuard.pending++;
  try {
    return section();
  } finally {
    setImmediate(() => {
      signalGuard.pending--;
      if (signalGuard.pending > 0) return;
      for (const [signal, handler] of signalGuard.handlers) process.removeListener(signal, handler);
      signalGuard.handlers = [];
    });
  }
}

const signalGuard: { pending: number; handlers: (readonly [NodeJS.Signals, () => void])[] } = { pending: 0, handlers: [] };

/** The reading side: whether `dir` is an output of `kind` (has its marker). */
export function isOutputDir(dir: string, kind: OutputKind['name']): boolean {
  const marker = readMarker(dir);
  return marker?.tool === 'pvekaas' && marker.command === kind;
}

/** The synth output: marker, manifest, placement plan, machine deployments, cache index, and each stack's synthesized files. */
export const synthOutput: OutputKind = {
  name: 'synth',
  classify(rel) {
    if ([MARKER, 'manifest.json', 'placement.json', MACHINE_DEPLOYMENTS_FILE, '.pvekaas-cache.json'].includes(rel)) return 'generated';
    const parts = rel.split('/');
    if (parts[0] !== 'stacks') return 'foreign';
    if (parts.length <= 2) return 'container';
    return parts.length >= 3 && ['cdk.tf.json', 'cdk.tf', 'metadata.json', 'assets'].includes(parts[2]) ? 'generated' : 'foreign';
  },
};

/** The export-hcl output: marker, placement plan, machine deployments, and per workspace its HCL, metadata and README. */
export const exportOutput: OutputKind = {
  name: 'export-hcl',
  classify(rel) {
    if ([MARKER, 'placement.json', MACHINE_DEPLOYMENTS_FILE].includes(rel)) return 'generated';
    const parts = rel.split('/');
    if (parts.length === 1) return 'container';
    return ['cdk.tf', 'metadata.json', 'README.md', 'assets'].includes(parts[1]) ? 'generated' : 'foreign';
  },
};

/**
 * A working directory a command keeps (`demo --keep`, `twin --keep`): it writes a lab file, stacks
 * and OpenTofu state there, so it takes only a new or empty directory, or one it kept before
 * (marker `.pvekaas-output` naming `work`), and refuses anything else — the project, a directory
 * holding real state — with the path and a fix, before anything starts. Returns the absolute path;
 * `markKeptDir` then makes it (with its marker) once the command starts.
 */
export function checkKeptDir(keep: string, flag = '--keep'): string {
  const dir = resolve(keep);
  if (existsSync(dir)) {
    const stat = lstatSync(dir);
    if (!stat.isDirectory())
      throw new UserError(`${flag} ${keep}: is not a directory; pvekaas never overwrites a file it did not write\n  fix: choose a new directory path`);
    const entries = readdirSync(dir);
    const marker = readMarker(dir);
    if (entries.length > 0 && !(marker?.tool === 'pvekaas' && marker.command === 'work')) {
      throw new UserError(
        `${flag} ${keep}: refusing to work in ${dir}: it is not empty and pvekaas did not make it (no ${MARKER} marker of a kept run; it holds ${entries.length} entr${entries.length === 1 ? 'y' : 'ies'}, e.g. ${entries.sort().slice(0, 3).join(', ')})\n` +
          `  fix: choose a new or empty directory for ${flag}; a run writes lab.yaml, out/ and OpenTofu state there`,
      );
    }
  }
  return dir;
}

/** Makes a directory `checkKeptDir` accepted, with the marker of a kept run. */
export function markKeptDir(dir: string): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, MARKER),
    `${JSON.stringify({ tool: 'pvekaas', command: 'work', note: 'a directory kept by demo or twin --keep; they may write here again' })}\n`,
  );
  return dir;
}

/**
 * Refuses a lab whose configured paths lie inside the output directory a command is about to
 * replace (`synth --out`, `export-hcl --out`, deploy's `--out`): the state directory (resolved
 * against `stateBase`, where the stacks' state paths lead) and a relative kubeconfig path (against
 * the working directory). Either would be carried over, replaced or deleted with the output — and a
 * kubeconfig there is copied wherever the output goes. A ProblemError at the lines of the lab.
 */
export function refuseConfiguredPathsInside(config: string, lab: Lab, out: string, flag = '--out', stateBase = process.cwd()): void {
  const dir = resolve(out);
  // By real paths (the longest existing prefix of each, symbolic links resolved): `lnk/state` with
  // lnk → the output is inside it, though no lexical comparison says so.
  const realDir = realPathOf(dir);
  const within = (base: string, path: string) => {
    const r = relative(base, path);
    return r === '' || (r !== '..' && !r.startsWith(`..${sep}`) && !isAbsolute(r));
  };
  const inside = (path: string) => within(dir, path) || within(realDir, realPathOf(path));
  const through = (path: string) => (within(dir, path) ? '' : `, reached through a symbolic link: ${realDir}`);
  const problems: Problem[] = [];
  const stateDir = lab.delivery.local.stateDir;
  if (inside(resolve(stateBase, stateDir))) {
    problems.push({
      path: ['delivery', 'local', 'stateDir'],
      message: `stateDir is inside ${flag} ${out} (${dir}${through(resolve(stateBase, stateDir))}), the directory this command replaces: state kept there can be deleted or replaced with it`,
      value: stateDir,
      fix: `keep state outside every generated directory (e.g. stateDir: state), or choose another ${flag}`,
      rule: 'output.state-inside',
    });
  }
  const kubernetes = lab.management.kubernetes;
  if ('configPath' in kubernetes && !kubernetes.configPath.startsWith('~') && inside(resolve(kubernetes.configPath))) {
    problems.push({
      path: ['management', 'kubernetes', 'configPath'],
      message: `configPath is inside ${flag} ${out} (${dir}${through(resolve(kubernetes.configPath))}), the directory this command replaces: a kubeconfig there is copied, uploaded or deleted with it`,
      value: kubernetes.configPath,
      fix: `keep the kubeconfig outside every generated directory (e.g. ~/.kube/lab-mgmt.yaml), or choose another ${flag}`,
      rule: 'output.kubeconfig-inside',
    });
  }
  if (problems.length > 0)
    throw configErrorAt(config, problems, `${config}: ${problems.length} configured path${problems.length === 1 ? '' : 's'} inside ${flag} ${out}`);
}
