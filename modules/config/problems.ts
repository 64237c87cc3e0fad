import type { VersionProblem } from '../versions/lab-guard';

/**
 * The one problem model: everything pvekaas finds wrong with a lab description — its shape, its
 * rules, its placement, its rendering, an upgrade — is a `Problem` with the path inside the
 * description, a sentence, the value and a fix. Pure code returns problems (or throws them as one
 * `ProblemError`); the command line points them at their file and lines (`configErrorAt`) once.
 * Its path, message, value, fix, severity and origin are `VersionProblem`'s (modules/versions/lab-guard.ts,
 * the bottom of modules/, whose version guard returns them).
 */
export interface Problem extends VersionProblem {
  /** The id of the validation rule that found it (modules/config/rule-table.ts; docs/rules.md), when one did. */
  rule?: string;
  /** 1-based line and column in the file, once pointed at it (`configErrorAt`). */
  line?: number;
  column?: number;
}

/**
 * The former name of `Problem`, kept only for modules/tenants/secondary*.ts (changed by another
 * branch today); new code uses `Problem`.
 * @deprecated use Problem
 */
export type ConfigProblem = Problem;

/** Renders ['tenants', 2, 'pools', 0, 'instance'] as `tenants[2].pools[0].instance`. */
export function formatPath(path: readonly (string | number)[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += out === '' ? segment : `.${segment}`;
  }
  return out === '' ? '(top level)' : out;
}

export interface ProblemSource {
  /** The description the problems are in; with it the message names the file and each line. */
  file?: string;
  /**
   * The first line of the message, instead of `<file>: N problems in the lab description` (or, with
   * no file, `the lab description has problems: N problems`).
   */
  title?: string;
}

/** The one error pvekaas throws for a lab description it refuses; carries every problem. */
export class ProblemError extends Error {
  readonly file?: string;

  constructor(
    readonly problems: Problem[],
    source: ProblemSource = {},
  ) {
    super(formatProblems(problems, source));
    this.name = 'ProblemError';
    if (source.file !== undefined) this.file = source.file;
  }
}

/** Whether a problem only warns: reported, and the run goes on. */
export function isWarning(problem: Problem): boolean {
  return problem.severity === 'warning';
}

/** Throws one `ProblemError` with every error among `problems`; warnings never throw. */
export function throwProblems(problems: readonly Problem[], title?: string): void {
  const errors = problems.filter((p) => !isWarning(p));
  if (errors.length > 0) throw new ProblemError(errors, title !== undefined ? { title } : {});
}

/**
 * One warning on one line, the way every command prints it after `warning: `:
 * `[<file>:<line>:<column>  ]<path>: <message>[ (got <value>)][; fix: <fix>]`; one about pvekaas's
 * own pins (`origin: 'pvekaas'`) as `pvekaas: <message>[; <what you may do>]`, without file or path.
 */
export function formatWarning(problem: Problem, file?: string): string {
  if (problem.origin === 'pvekaas') return `pvekaas: ${bounded(problem.message)}${problem.fix ? `; ${bounded(problem.fix)}` : ''}`;
  const where = file === undefined ? '' : problem.line !== undefined ? `${file}:${problem.line}:${problem.column ?? 1}  ` : `${file}  `;
  const value = show(problem.value);
  return `${where}${bounded(formatPath(problem.path))}: ${bounded(problem.message)}${value ? ` (got ${value})` : ''}${problem.fix ? `; fix: ${bounded(problem.fix)}` : ''}`;
}

/** "3 problems", "1 problem". */
export function problemCount(n: number): string {
  return `${n} problem${n === 1 ? '' : 's'}`;
}

/** The longest value shown in a problem ("got ..."), and the longest message or fix. */
const SHOWN_VALUE = 80;
const SHOWN_TEXT = 400;
/** At most this many problems are printed (each stays in `ProblemError.problems`). */
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

/**
 * Every problem, one line each (with the fix on the next): `<file>:<line>:<column>  <path>: <message>
 * (got <value>)` when the file is known, `<path>: ...` otherwise.
 */
export function formatProblems(problems: readonly Problem[], source: ProblemSource = {}): string {
  const { file } = source;
  const title =
    source.title ??
    (file !== undefined
      ? `${file}: ${problemCount(problems.length)} in the lab description`
      : `the lab description has problems: ${problemCount(problems.length)}`);
  const lines = [title];
  for (const p of problems.slice(0, MAX_SHOWN_PROBLEMS)) {
    const where = file === undefined ? '' : p.line !== undefined ? `${file}:${p.line}:${p.column ?? 1}  ` : `${file}  `;
    const value = show(p.value);
    lines.push(`  ${where}${bounded(formatPath(p.path))}: ${bounded(p.message)}${value ? ` (got ${value})` : ''}`);
    if (p.fix) lines.push(`      fix: ${bounded(p.fix)}`);
  }
  if (problems.length > MAX_SHOWN_PROBLEMS) lines.push(`  ... and ${problems.length - MAX_SHOWN_PROBLEMS} more problems (fix these first)`);
  return lines.join('\n');
}
