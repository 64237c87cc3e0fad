/** A problem found in a lab description: where it is, what is wrong, and how to fix it. */
export interface ConfigProblem {
  /** Path inside the description, as segments: ['tenants', 2, 'pools', 0, 'instance']. */
  path: (string | number)[];
  /** What is wrong, in a sentence. */
  message: string;
  /** The offending value, when there is one. */
  value?: unknown;
  /** How to fix it. */
  fix?: string;
}

/** Renders ['tenants', 2, 'pools', 0, 'instance'] as `tenants[2].pools[0].instance`. */
export function formatPath(path: readonly (string | number)[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += out === '' ? segment : `.${segment}`;
  }
  return out === '' ? '(top level)' : out;
}

/** Thrown when a description has problems; carries every one of them. */
export class ConfigError extends Error {
  constructor(
    readonly file: string,
    readonly problems: ProblemAt[],
  ) {
    super(formatProblems(file, problems));
    this.name = 'ConfigError';
  }
}

export interface ProblemAt extends ConfigProblem {
  /** 1-based line and column in the file, when the path exists in it. */
  line?: number;
  column?: number;
}

/** The longest value shown in a problem ("got ..."), and the longest message or fix. */
const SHOWN_VALUE = 80;
const SHOWN_TEXT = 400;
/** At most this many problems are printed (each stays in `ConfigError.problems`). */
const MAX_SHOWN_PROBLEMS = 200;

/**
 * A value as JSON, at most `SHOWN_VALUE` characters: built piece by piece and stopped at the
 * limit, so a huge (or shared many times over) value costs no more than a short one.
 */
export function show(value: unknown): string {
  if (value === undefined) return '';
  let out = '';
  let budget = SHOWN_VALUE + 1;
  const emit = (text: string) => {
    if (budget <= 0) return;
    out += text.slice(0, budget);
    budget -= text.length;
  };
  const walk = (v: unknown, depth: number) => {
    if (budget <= 0) return;
    if (v === null || typeof v === 'boolean' || typeof v === 'number') emit(String(v));
    else if (typeof v === 'string') emit(JSON.stringify(v.length > SHOWN_VALUE ? v.slice(0, SHOWN_VALUE + 1) : v));
    else if (typeof v !== 'object') emit('null');
    else if (depth > 8) emit('...');
    else if (Array.isArray(v)) {
      emit('[');
      for (let i = 0; i < v.length && budget > 0; i++) {
        if (i > 0) emit(',');
        walk(v[i], depth + 1);
      }
      emit(']');
    } else {
      emit('{');
      let first = true;
      for (const key in v as Record<string, unknown>) {
        if (budget <= 0) break;
        if (!first) emit(',');
        first = false;
        emit(`${JSON.stringify(key.length > SHOWN_VALUE ? key.slice(0, SHOWN_VALUE + 1) : key)}:`);
        walk((v as Record<string, unknown>)[key], depth + 1);
      }
      emit('}');
    }
  };
  walk(value, 0);
  return out.length > SHOWN_VALUE ? `${out.slice(0, SHOWN_VALUE - 3)}...` : out;
}

/** A message or fix, bounded (messages may quote names from the description). */
function bounded(text: string): string {
  return text.length > SHOWN_TEXT ? `${text.slice(0, SHOWN_TEXT - 3)}...` : text;
}

export function formatProblems(file: string, problems: ProblemAt[]): string {
  const lines = [`${file}: ${problems.length} problem${problems.length === 1 ? '' : 's'} in the lab description`];
  for (const p of problems.slice(0, MAX_SHOWN_PROBLEMS)) {
    const where = p.line !== undefined ? `${file}:${p.line}:${p.column ?? 1}` : file;
    const value = show(p.value);
    lines.push(`  ${where}  ${bounded(formatPath(p.path))}: ${bounded(p.message)}${value ? ` (got ${value})` : ''}`);
    if (p.fix) lines.push(`      fix: ${bounded(p.fix)}`);
  }
  if (problems.length > MAX_SHOWN_PROBLEMS) lines.push(`  ... and ${problems.length - MAX_SHOWN_PROBLEMS} more problems (fix these first)`);
  return lines.join('\n');
}
