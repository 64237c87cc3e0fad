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

function show(value: unknown): string {
  if (value === undefined) return '';
  const text = JSON.stringify(value);
  if (text === undefined) return '';
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

export function formatProblems(file: string, problems: ProblemAt[]): string {
  const lines = [`${file}: ${problems.length} problem${problems.length === 1 ? '' : 's'} in the lab description`];
  for (const p of problems) {
    const where = p.line !== undefined ? `${file}:${p.line}:${p.column ?? 1}` : file;
    const value = show(p.value);
    lines.push(`  ${where}  ${formatPath(p.path)}: ${p.message}${value ? ` (got ${value})` : ''}`);
    if (p.fix) lines.push(`      fix: ${p.fix}`);
  }
  return lines.join('\n');
}
