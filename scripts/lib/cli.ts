/**
 * Shared command-line plumbing: flag parsing with clear errors, and one place that turns
 * user errors (bad description, plan that does not fit, refused rendering) into a message on
 * stderr and exit code 1 — never a stack trace.
 */
import { ConfigError } from '../../modules/config/problems';

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

/** Runs a command's body; user errors go to stderr with exit code 1. */
export function runCommand(body: () => Promise<void> | void): void {
  Promise.resolve()
    .then(body)
    .catch((e: unknown) => {
      if (e instanceof ConfigError || e instanceof UsageError || e instanceof UserError || isUserFacing(e)) {
        process.stderr.write(`${(e as Error).message}\n`);
        process.exitCode = 1;
        return;
      }
      process.stderr.write(`internal error (please report): ${(e as Error)?.stack ?? String(e)}\n`);
      process.exitCode = 2;
    });
}

/** Errors from the pure modules that carry a list of problems for the user (placement, rendering). */
function isUserFacing(e: unknown): boolean {
  return e instanceof Error && Array.isArray((e as { problems?: unknown }).problems);
}
