/**
 * YAML syntax errors in pvekaas's words (issue 43, finding 5): one problem per syntax mistake, at
 * the line where it is, with a fix — not the parser's text, one line off, followed by the errors that
 * only follow from it (a tab gave six). A parser reads on past a mistake and reports what it then
 * misreads, so only what can be told for sure is reported: every line indented with a tab (each is
 * its own mistake), else a bracket or quote left open (at where it opens, not at the end of the file
 * where the parser notices), else the first error of the parser, at the line the mistake is on.
 */
import type { Problem } from './problems';

/** What the parsers said: js-yaml's first error (reason, 1-based position) and `yaml`'s errors (code, 1-based position), in text order. */
export interface ParserErrors {
  readonly jsYaml: { reason: string; line: number; column: number };
  readonly yaml: readonly { code: string; line: number; column: number }[];
}

const problem = (line: number, column: number, message: string, fix: string): Problem => ({ path: [], message: `YAML syntax: ${message}`, line, column, fix });

/** Every line whose indentation holds a tab: YAML indents with spaces only. */
function tabProblems(lines: readonly string[]): Problem[] {
  const found: Problem[] = [];
  lines.forEach((text, i) => {
    const indent = /^[ \t]*/.exec(text)![0];
    const tab = indent.indexOf('\t');
    if (tab < 0 || indent.length === text.length) return;
    found.push(
      problem(
        i + 1,
        tab + 1,
        `line ${i + 1} is indented with a tab; YAML indents with spaces only`,
        `replace the tab at the start of line ${i + 1} with spaces`,
      ),
    );
  });
  return found;
}

interface Opener {
  readonly char: string;
  readonly line: number;
  readonly column: number;
  /** The indentation of the line it opens on. */
  readonly indent: number;
}

const CLOSING: Record<string, string> = { '[': ']', '{': '}' };

/**
 * The first bracket or quote left open: one still open when a line that cannot continue it begins
 * (as indented as the line it opened on, or a block list item inside brackets), or at the end.
 */
function unclosed(lines: readonly string[]): Problem | undefined {
  const stack: Opener[] = [];
  let quote: Opener | undefined;
  const report = (o: Opener, next: number | undefined) => {
    const what = o.char === '"' || o.char === "'" ? `the ${o.char === '"' ? 'double' : 'single'} quote` : `the ${o.char}`;
    const close = CLOSING[o.char] ?? o.char;
    return problem(
      o.line,
      o.column,
      `${what} opened at line ${o.line}, column ${o.column} is never closed${next === undefined ? '' : ` (line ${next} starts something new)`}`,
      `close it with ${close} on line ${o.line}${o.char === '[' || o.char === '{' ? ', or remove it' : ''}`,
    );
  };
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i];
    const content = text.trimStart();
    const indent = text.length - content.length;
    if (content !== '' && !content.startsWith('#')) {
      const open = quote ?? stack[0];
      const blockItem = stack.length > 0 && !quote && /^- /.test(content);
      if (open && ((indent <= open.indent && !/^[\]}]/.test(content) && !(quote && content.startsWith(quote.char))) || blockItem)) {
        return report(quote ?? stack[stack.length - 1], i + 1);
      }
    }
    for (let c = 0; c < text.length; c++) {
      const ch = text[c];
      if (quote) {
        if (quote.char === '"' && ch === '\\') c++;
        else if (ch === quote.char) {
          if (quote.char === "'" && text[c + 1] === "'") c++;
          else quote = undefined;
        }
        continue;
      }
      const before = c === 0 ? ' ' : text[c - 1];
      if (ch === '#' && /\s/.test(before)) break;
      if ((ch === '"' || ch === "'") && /[\s[{,:]/.test(before)) quote = { char: ch, line: i + 1, column: c + 1, indent };
      else if (ch === '[' || ch === '{') stack.push({ char: ch, line: i + 1, column: c + 1, indent });
      else if ((ch === ']' || ch === '}') && stack.length > 0) stack.pop();
    }
  }
  const open = quote ?? stack[stack.length - 1];
  return open ? report(open, undefined) : undefined;
}

/** `replicas 3` → `replicas: 3`, for a key written without its colon. */
function withColon(text: string): string | undefined {
  const m = /^(\s*(?:- )?)([A-Za-z0-9_.-]+) +(\S.*)$/.exec(text);
  return m ? `${m[2]}: ${m[3]}` : undefined;
}

/** The first syntax error, in pvekaas's words, at the line the mistake is on. */
function firstError(lines: readonly string[], errors: ParserErrors): Problem {
  const js = errors.jsYaml;
  if (/multiline key may not be an implicit key/.test(js.reason)) {
    // js-yaml notices on the line after; the key without its colon starts where `yaml` says.
    const start = errors.yaml.find((e) => e.code === 'MULTILINE_IMPLICIT_KEY') ?? { line: js.line, column: js.column };
    const suggestion = withColon(lines[start.line - 1] ?? '');
    return problem(
      start.line,
      start.column,
      `line ${start.line} has no ":" after its key, so YAML reads it and the next line as one key`,
      suggestion ? `write ${suggestion}` : `put ": " between the key and its value on line ${start.line}`,
    );
  }
  if (/bad indentation of a mapping entry/.test(js.reason)) {
    return problem(
      js.line,
      js.column,
      `line ${js.line} is indented differently from the fields around it`,
      `indent line ${js.line} with as many spaces as the other fields of its mapping`,
    );
  }
  if (/bad indentation of a sequence entry/.test(js.reason)) {
    return problem(
      js.line,
      js.column,
      `the list item on line ${js.line} is indented differently from its list`,
      `line its "-" up with the other items of its list`,
    );
  }
  return problem(js.line, js.column, js.reason, `fix the YAML at line ${js.line}`);
}

/** The syntax problems of a text both parsers refused: each mistake once, at its line, with a fix. */
export function syntaxProblems(text: string, errors: ParserErrors): Problem[] {
  const lines = text.split(/\r?\n/);
  const tabs = tabProblems(lines);
  if (tabs.length > 0) return tabs;
  const open = unclosed(lines);
  if (open) return [open];
  return [firstError(lines, errors)];
}
