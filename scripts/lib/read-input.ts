/**
 * Every input file a command reads besides the lab description (`--tokens`, `--faults`, plan files),
 * read like the lab: a regular file only, bounded, and refused with a `UserError` naming the flag,
 * the file and a fix — never waited on (a FIFO), never read without end (/dev/zero).
 */
import { FileReadError, readRegularFile } from '../../modules/config/load';
import { UserError } from './cli';

/** The largest input file besides the lab: a `tofu show -json` plan of a big stack is a few MiB. */
export const MAX_INPUT_BYTES = 64 * 1024 * 1024;

/** The text of `file`; `what` names it in a refusal (e.g. `--tokens tokens.json`), `fix` says what it should be. */
export function readInputFile(file: string, what: string, fix: string, limit = MAX_INPUT_BYTES): string {
  try {
    return readRegularFile(file, limit);
  } catch (e) {
    if (e instanceof FileReadError) throw new UserError(`${what}: cannot read ${file}: ${e.reason}\n  fix: ${fix}`);
    throw e;
  }
}
