/**
 * The command line's one layer: every command parses its flags here (node:util parseArgs, with
 * --help) and runs its body through `runCommand`, the one place that turns user errors (bad
 * flags, bad description, plan that does not fit, refused rendering) into a message on stderr and
 * exit code 1 — never a stack trace. Exit codes: 0 done, 1 refused or failed; a command that
 * reports a finding for CI (audit: drift) says its own code in --help.
 */
import { parseArgs } from 'node:util';
import { configErrorAt } from '../../modules/config/load';
import { ProblemError, formatWarning, type Problem } from '../../modules/config/problems';

/** A mistake in the command line: printed with the usage, exit code 1. */
export class UsageError extends Error {}

/** An error a user can act on: printed as is, no stack trace. */
export class UserError extends Error {}

/** `--help` was asked for and printed: the command ends there, exit code 0. */
class HelpShown extends Error {}

export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  /** May be given several times (the values in order); otherwise a second one is refused. */
  readonly multiple?: boolean;
  /** One line for --help. */
  readonly help?: string;
  /** The value's placeholder in --help. @default `<value>` */
  readonly value?: string;
}

/** The options of a command: a full spec, or just the type. */
export interface FlagSpec {
  [flag: string]: 'string' | 'boolean' | OptionSpec;
}

/** The parsed flags of a command: a string, `true`, or the values of a repeatable flag. */
export type Flags = Record<string, string | boolean | string[]>;

/** What --help prints besides the usage line and the options. */
export interface CommandHelp {
  /** What the command does, in a sentence or two. */
  readonly about?: string;
  /** Exit codes, when the command has more than 0 (done) and 1 (refused or failed). */
  readonly exitCodes?: string;
  /** The command's own checks of the parsed flags (required flags, allowed values), reported with the parser's. */
  readonly check?: (flags: Flags) => string[];
}

const EXIT_CODES = 'exit codes: 0 done; 1 refused or failed (every problem on stderr, nothing half-written)';

function specOf(spec: FlagSpec): Record<string, OptionSpec> {
  return Object.fromEntries(Object.entries(spec).map(([name, o]) => [name, typeof o === 'string' ? { type: o } : o]));
}

/** The --help text of a command: usage, what it does, each option, the exit codes. */
export function helpText(usage: string, spec: FlagSpec, help: CommandHelp = {}): string {
  const options = specOf(spec);
  const left = (name: string, o: OptionSpec) => `--${name}${o.type === 'string' ? ` ${o.value ?? '<value>'}` : ''}`;
  const rows: [string, string][] = [
    ...Object.entries(options).map(([name, o]): [string, string] => [left(name, o), `${o.help ?? ''}${o.multiple ? ' (repeatable)' : ''}`]),
    ['-h, --help', 'show this help'],
  ];
  const width = Math.max(...rows.map(([l]) => l.length));
  return [
    `usage: ${usage}`,
    ...(help.about ? ['', help.about] : []),
    '',
    'options:',
    ...rows.map(([l, r]) => `  ${l.padEnd(width)}  ${r}`.trimEnd()),
    '',
    help.exitCodes ?? EXIT_CODES,
  ].join('\n');
}

/**
 * The flags of a command, parsed with node:util `parseArgs` (`--name value` or `--name=value`).
 * Every mistake is reported at once, with the usage: an unknown argument, a missing value, a
 * value on a boolean flag, a flag given twice. `--help` (or `-h`) prints the command's help on
 * stdout and ends it with exit code 0.
 */
export function parseFlags(argv: string[], spec: FlagSpec, usage: string, help: CommandHelp = {}): Flags {
  const options = specOf(spec);
  const { tokens } = parseArgs({
    args: argv,
    options: {
      ...Object.fromEntries(Object.entries(options).map(([name, o]) => [name, { type: o.type, multiple: o.multiple ?? false }])),
      help: { type: 'boolean', short: 'h' },
    },
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  if (tokens.some((t) => t.kind === 'option' && t.name === 'help' && !('help' in options))) {
    process.stdout.write(`${helpText(usage, spec, help)}\n`);
    throw new HelpShown();
  }
  const out: Flags = {};
  const problems: string[] = [];
  for (const token of tokens) {
    if (token.kind === 'positional') {
      problems.push(`unknown argument "${token.value}"`);
      continue;
    }
    if (token.kind !== 'option') {
      problems.push('unknown argument "--"');
      continue;
    }
    const o = options[token.name];
    if (o === undefined || !token.rawName.startsWith('--')) {
      problems.push(`unknown argument "${token.rawName}"`);
      continue;
    }
    if (o.type === 'boolean') {
      if (token.value !== undefined) problems.push(`--${token.name} takes no value (got "${token.value}")`);
      else out[token.name] = true;
      continue;
    }
    // A separate value that looks like a flag is a missing value (`--config --out x`), as before.
    if (token.value === undefined || (!token.inlineValue && token.value.startsWith('--'))) {
      problems.push(`--${token.name} needs a value`);
      continue;
    }
    if (o.multiple) out[token.name] = [...((out[token.name] as string[] | undefined) ?? []), token.value];
    else if (out[token.name] !== undefined) problems.push(`--${token.name} is given twice`);
    else out[token.name] = token.value;
  }
  problems.push(...(help.check?.(out) ?? []));
  if (problems.length > 0) throw new UsageError(`${problems.join('\n')}\n\nusage: ${usage}\n(--help for more)`);
  return out;
}

/** A command's command line: its usage line, its flags and what --help says besides. */
export interface CommandLine extends CommandHelp {
  readonly usage: string;
  readonly flags: FlagSpec;
}

/**
 * Runs a command's body. Whatever happens, the command ends with a message on stderr and exit
 * code 1, never a stack trace: user errors are printed as they are, failed file operations as
 * what could not be done to which path, anything else as an internal error with its message only
 * (`PVEKAAS_DEBUG=1` prints the stack). A reader that closes the pipe early (`validate | head`)
 * ends the command quietly with exit code 1 instead of an EPIPE trace. Given its command line,
 * the body gets the flags of `process.argv`, parsed (`parseFlags`) within the same guard.
 */
export function runCommand(body: () => Promise<void> | void): void;
export function runCommand(line: CommandLine, body: (flags: Flags) => Promise<void> | void): void;
export function runCommand(first: CommandLine | (() => Promise<void> | void), second?: (flags: Flags) => Promise<void> | void): void {
  guardStreams();
  const body =
    typeof first === 'function'
      ? first
      : () => (second as (flags: Flags) => Promise<void> | void)(parseFlags(process.argv.slice(2), first.flags, first.usage, first));
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
  if (e instanceof HelpShown) return;
  writeError(errorMessage(e));
  if (process.env.PVEKAAS_DEBUG === '1' && e instanceof Error && e.stack) writeError(e.stack);
  process.exitCode = 1;
}

/**
 * Today's date (UTC, `YYYY-MM-DD`) for the end-of-life warnings; `PVEKAAS_TODAY` sets another day
 * (reproducible runs, and to see which warnings a lab will get on a later day).
 */
export function todayUtc(): string {
  const set = process.env.PVEKAAS_TODAY;
  if (set !== undefined && set !== '') {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(set) || Number.isNaN(Date.parse(`${set}T00:00:00Z`)))
      throw new UserError(`PVEKAAS_TODAY is "${set}": write a date like 2026-12-03`);
    return set;
  }
  return new Date().toISOString().slice(0, 10);
}

/** The warnings about pvekaas's own pins printed so far in this process (each is printed once). */
const printedOwn = new Set<string>();

/**
 * Every command's warnings, one `warning: ` line each, and the run goes on: problems of severity
 * `warning` pointed at their lines in `file` (`<file>:<line>:<column>  <path>: <message> (got
 * <value>); fix: <fix>`), then those about pvekaas's own pins (`pvekaas: <message>`, no file or
 * line, each once per process), then `notes`, warnings that have no path in the description (placement's).
 */
export function printWarnings(stream: NodeJS.WritableStream, file: string, warnings: readonly Problem[], notes: readonly string[] = []): void {
  // pvekaas's own (its pins): not at a line of the user's file, and once per run, however many times it is found.
  const own = warnings.filter((w) => w.origin === 'pvekaas');
  const theirs = warnings.filter((w) => w.origin !== 'pvekaas');
  const located = theirs.length > 0 ? configErrorAt(file, [...theirs]).problems : [];
  for (const warning of located) stream.write(`warning: ${formatWarning(warning, file)}\n`);
  for (const warning of own) {
    const line = formatWarning(warning);
    if (printedOwn.has(line)) continue;
    printedOwn.add(line);
    stream.write(`warning: ${line}\n`);
  }
  for (const note of notes) stream.write(`warning: ${note}\n`);
}
