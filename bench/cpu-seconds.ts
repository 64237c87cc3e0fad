import { readFileSync } from 'node:fs';

/** CPU seconds (user + system) of this process's waited-for children so far (Linux /proc; 0 elsewhere). */
export function childrenCpuSeconds(): number {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 16 and 17 of stat(5) (cutime, cstime), counted from the state field (3): clock ticks, 100 per second on Linux.
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return 0;
  }
}
