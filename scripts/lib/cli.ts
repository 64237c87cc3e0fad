/**
 * Shared command-line plumbing: flag parsing with clear errors, and one place that turns
 * user errors (bad description, plan that does not fit, refused rendering) into a message on
 * stderr and exit code 1 — never a stack trace.
 */
import { ProblemError } from '../../modules/config/problems';

export class UsageError extends Error {}

/** An error a user can act on: printed as is, no stack trace. */
export class UserError extends Error {}

export interface FlagSpec {
  [flag: string]: 'string' | 'boolean';
}

export function parseFlags(argv: string[], spec: FlagSpec, usage: string): Record<string, string | boolean> {
  const out: Record<string, string | boolean> = {};
  const problems: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [name, inline] = arg.startsWith('--') ? arg.slice(2).split(/=(.*)/s, 2) : [undefined, undefined];
    if (name === undefined || !(name in spec)) {
      problems.push(`unknown argument "${arg}"`);
      continue;
    }
    if (spec[name] === 'boolean') {
      out[name] = true;
    } else {
      const value = inline ?? argv[++i];
      if (value === undefined || value.startsWith('--')) problems.push(`--${name} needs a value`);
      else out[name] = value;
    }
  }
  if (problems.length > 0) throw new UsageError(`${problems.join('\n')}\n\nusage: ${usage}`);
  return out;
}

/**
 * Runs a command's body. Whatever happens, the command ends with a message on stderr and exit
 * code 1, never a stack trace: user errors are printed as they are, failed file operations as
 * what could not be done to which path, anything else as an internal error with its message only
 * (`PVEKAAS_DEBUG=1` prints the stack). A reader that closes the pipe early (`validate | head`)
 * ends the command quietly with exit code 1 instead of an EPIPE trace.
 */
export function runCommand(body: () => Promise<void> | void): void {
  guardStreams();
  Promise.resolve()
    .then(body)
    .catch((e: unknown) => fail(e));
}

let guarded = false;

function guardStreams(): void {
  if (guarded) return;
  guarded = true;
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EPIPE') {
        // The reader is gone: nothing more can be said on this stream.
        if (stream === process.stdout) writeError('stopped: the output pipe was closed by its reader (broken pipe)');
        process.exit(1);
      }
      fail(e);
    });
  }
  const fatal = (e: unknown) => {
    fail(e);
    process.exit(1);
  };
  process.on('uncaughtException', fatal);
  process.on('unhandledRejection', fatal);
}

function writeError(text: string): void {
  try {
    process.stderr.write(`${text}\n`);
  } catch {
    // stderr is gone too: the exit code says it.
  }
}

/** The one-line (or, for problem lists, several-line) message for any error, and exit code 1. */
export function errorMessage(e: unknown): string {
  if (e instanceof ProblemError || e instanceof UsageError || e instanceof UserError) return e.message;
  const sys = e as NodeJS.ErrnoException & { dest?: string };
  if (e instanceof Error && typeof sys.code === 'string' && typeof sys.syscall === 'string') {
    const what = systemCodes[sys.code] ?? sys.code;
    return `cannot ${sys.syscall}${sys.path ? ` ${sys.path}` : ''}${sys.dest ? ` -> ${sys.dest}` : ''}: ${what}`;
  }
  const message = e instanceof Error ? e.message : String(e);
  return `internal error (please report, with the command that caused it): ${message.split('\n')[0].slice(0, 500)}\n(set PVEKAAS_DEBUG=1 for the stack trace)`;
}

const systemCodes: Record<string, string> = {
  ENOENT: 'no such file or directory',
  ENOTDIR: 'a part of the path is a file, not a directory',
  EISDIR: 'it is a directory',
  EEXIST: 'it already exists',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOSPC: 'no space left on the device',
  EROFS: 'read-only file system',
  ENOTEMPTY: 'the directory is not empty',
  EMFILE: 'too many open files',
};

function fail(e: unknown): void {
  writeError(errorMessage(e));
  if (process.env.PVEKAAS_DEBUG === '1' && e instanceof Error && e.stack) writeError(e.stack);
  process.exitCode = 1;
}
