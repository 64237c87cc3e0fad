/**
 * Files named by a command's flags, read safely: only a regular file (a FIFO could block forever,
 * a device like /dev/zero never ends), of at most a size the flag's content can have, so that a
 * wrong path is refused with its flag instead of hanging the command or exhausting its memory.
 */
import { closeSync, constants, fstatSync, openSync, readSync, statSync, type Stats } from 'node:fs';
import { UserError } from './cli';

function kind(st: Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

const notRegular = (flag: string, path: string, st: Stats) =>
  new UserError(
    `${flag} ${path} is ${kind(st)}, not a regular file: give the file itself (a pipe, device or socket could block or never end, so it is never read)`,
  );

function statOf(flag: string, path: string, stat: () => Stats): Stats {
  try {
    return stat();
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new UserError(`${flag} ${path}: no such file`);
    if (code === 'EACCES' || code === 'EPERM') throw new UserError(`${flag} ${path}: not readable by this user (permission denied)`);
    throw new UserError(`${flag} ${path}: cannot read it (${code ?? (e as Error).message})`);
  }
}

/** Refuses anything but an existing regular file; returns its size. */
export function checkRegularFile(path: string, flag: string): number {
  const st = statOf(flag, path, () => statSync(path));
  if (!st.isFile()) throw notRegular(flag, path, st);
  return st.size;
}

/**
 * The text of a regular file of at most `maxBytes`. Opened without blocking (a FIFO put in its
 * place after a check cannot hang the read) and checked on the open descriptor itself.
 */
export function readRegularFile(path: string, flag: string, maxBytes: number): string {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (e) {
    statOf(flag, path, () => {
      throw e;
    });
    throw e;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw notRegular(flag, path, st);
    if (st.size > maxBytes) throw new UserError(`${flag} ${path} is ${st.size} bytes: more than the ${maxBytes} such a file can hold; is it the right file?`);
    const buffer = Buffer.alloc(maxBytes + 1);
    let length = 0;
    for (;;) {
      const n = readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) break;
      length += n;
      if (length > maxBytes) throw new UserError(`${flag} ${path} grew past ${maxBytes} bytes while it was read; is it the right file?`);
    }
    return buffer.subarray(0, length).toString('utf8');
  } finally {
    closeSync(fd);
  }
}
