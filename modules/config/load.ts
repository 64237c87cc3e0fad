/**
 * Loading a lab description: YAML text → validated `Lab`, or a `ProblemError` carrying every
 * problem at once (syntax, schema and cross-field), each with its line, path, value and fix.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { CORE_SCHEMA, FAILSAFE_SCHEMA, Type, load as loadYaml, type YAMLException } from 'js-yaml';
import { LineCounter, parseDocument, isMap, isSeq, isPair, isScalar, visit, type Node as YamlNode } from 'yaml';
import type { z } from 'zod';
import { ProblemError, type Problem } from './problems';
import { lenientLab } from './lenient';
import { editDistance } from './rule-helpers';
import { RULE_TABLE, checkLab } from './rule-table';
import { MAX_LAB_BYTES, URL_CREDENTIAL_FIX, checkShape, checkStrings, redactUrl, urlCredentialProblem } from './safety';
import { labSchema, type Lab } from './schema';
import { syntaxProblems } from './yaml-syntax';

export function loadLabFile(file: string): Lab {
  return parseLab(readLabText(file), file);
}

/**
 * The text of a lab file, read safely: a regular file only (a FIFO or a device such as /dev/zero
 * is refused at once, never waited on or read without end), at most `MAX_LAB_BYTES`.
 */
export function readLabText(file: string): string {
  try {
    return readRegularFile(file, MAX_LAB_BYTES);
  } catch (e) {
    if (!(e instanceof FileReadError)) throw e;
    const tooLarge = e.size !== undefined;
    throw new ProblemError(
      [
        {
          path: [],
          message: tooLarge
            ? `the lab description ${e.reason.replace(/^it is /, 'is ')} (1000 tenants take about 0.7 MiB)`
            : `cannot read the lab description: ${e.reason}`,
          fix: tooLarge ? 'split the lab, or check that --config names the right file' : 'pass --config <path to a lab YAML file>',
        },
      ],
      { file },
    );
  }
}

/** Why a file was not read: `reason` completes "cannot read <file>: …"; `size` is set when it is too large. */
export class FileReadError extends Error {
  constructor(
    readonly reason: string,
    readonly size?: number,
  ) {
    super(reason);
  }
}

/**
 * The text of any input file, read safely: a regular file only (a FIFO, a socket or a device such
 * as /dev/zero is refused at once, never waited on or read without end) of at most `limit` bytes;
 * a file that grows while it is read is still read no further than one byte past the limit.
 * Throws a `FileReadError`.
 */
export function readRegularFile(file: string, limit: number): string {
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO without a writer returns at once instead of blocking.
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new FileReadError(
      code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'it is a directory' : (code ?? 'unreadable'),
    );
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) {
      const kind = stat.isDirectory()
        ? 'a directory'
        : stat.isFIFO()
          ? 'a named pipe (FIFO)'
          : stat.isCharacterDevice() || stat.isBlockDevice()
            ? 'a device'
            : stat.isSocket()
              ? 'a socket'
              : 'not a regular file';
      throw new FileReadError(`it is ${kind}, not a regular file`);
    }
    if (stat.size > limit) throw new FileReadError(`it is ${stat.size} bytes, more than the ${limit} it may have`, stat.size);
    const buffer = Buffer.alloc(Math.min(stat.size, limit) + 1);
    let length = 0;
    for (;;) {
      const n = readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) break;
      length += n;
      if (length === buffer.length) break;
    }
    if (length > limit) throw new FileReadError(`it is more than the ${limit} bytes it may have`, length);
    return buffer.subarray(0, length).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/**
 * The YAML 1.2 core schema with numbers in decimal only: js-yaml's core schema also reads `0x3`,
 * `0o7` and `1_000` (and YAML 1.1's forms) as numbers, so `replicas: 0x3` would silently be 3. Here
 * an integer is `[-+]?[0-9]+` and a float the core schema's decimal form (no `_`); anything else
 * stays a string, which every number field then refuses (with a fix that names the decimal form).
 */
const DECIMAL_INT = /^[-+]?[0-9]+$/;
const DECIMAL_FLOAT = /^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;
const decimalInt = new Type('tag:yaml.org,2002:int', {
  kind: 'scalar',
  resolve: (data: unknown) => typeof data === 'string' && DECIMAL_INT.test(data),
  construct: (data: string) => Number(data),
  predicate: (v: unknown) => typeof v === 'number' && Number.isInteger(v),
  represent: (v: unknown) => String(v),
});
const decimalFloat = new Type('tag:yaml.org,2002:float', {
  kind: 'scalar',
  resolve: (data: unknown) => typeof data === 'string' && DECIMAL_FLOAT.test(data) && !DECIMAL_INT.test(data),
  construct: (data: string) => (/inf/i.test(data) ? (data.startsWith('-') ? -Infinity : Infinity) : /nan/i.test(data) ? NaN : Number(data)),
  predicate: (v: unknown) => typeof v === 'number' && !Number.isInteger(v),
  represent: (v: unknown) => String(v),
});
// The core schema's null and bool types as they are (its `implicit` list, untyped in @types/js-yaml).
const coreImplicit = (CORE_SCHEMA as unknown as { implicit: (Type & { tag: string })[] }).implicit;
const LAB_YAML_SCHEMA = FAILSAFE_SCHEMA.extend({
  implicit: [...coreImplicit.filter((t) => t.tag === 'tag:yaml.org,2002:null' || t.tag === 'tag:yaml.org,2002:bool'), decimalInt, decimalFloat],
});

/**
 * Parses and validates a description. The data is read with js-yaml (YAML 1.2 core schema, an
 * order of magnitude faster on large labs); only when there is something to report is the text
 * parsed again with `yaml`, whose syntax tree gives each problem its line and column.
 */
export function parseLab(text: string, file = 'lab.yaml'): Lab {
  if (text.length > MAX_LAB_BYTES) {
    throw new ProblemError([{ path: [], message: `the lab description is more than ${MAX_LAB_BYTES} bytes`, fix: 'split the lab' }], { file });
  }
  let data: unknown;
  try {
    data = loadYaml(text, { schema: LAB_YAML_SCHEMA, filename: file }) ?? {};
  } catch (e) {
    if (!(e instanceof Error) || e.name !== 'YAMLException') {
      // js-yaml recurses per nesting level: only absurd nesting gets here (a RangeError).
      throw new ProblemError([{ path: [], message: 'YAML syntax: the data nests too deeply to be read', fix: 'remove the nested lists or mappings' }], {
        file,
      });
    }
    throw syntaxError(text, file, e as YAMLException);
  }
  // Before anything walks the data: no cycles, bounded depth and alias expansion.
  const shape = checkShape(data);
  if (shape) throw shapeError(text, file, shape);
  // Every string, whatever field it is in: no Terraform template sequences, control characters
  // or unbounded lengths. A schema problem at the same path would only repeat it.
  const stringProblems = checkStrings(data);
  const flagged = new Set(stringProblems.map((p) => JSON.stringify(p.path)));
  const parsed = labSchema.safeParse(data, { reportInput: true });
  if (!parsed.success || stringProblems.length > 0) {
    const seen = new Set<string>();
    const schemaProblems = [
      ...stringProblems,
      ...(parsed.success ? [] : parsed.error.issues.flatMap((issue) => fromIssue(issue, data))).filter((p) => !flagged.has(JSON.stringify(p.path))),
    ].filter((p) => {
      // One problem said once (a URL's credentials come from its format check and its credential check).
      const key = JSON.stringify([p.path, p.message]);
      return seen.has(key) ? false : (seen.add(key), true);
    });
    // Run the cross-field rules on what can be read, so every problem is reported at once; drop
    // those at or around a schema problem (they would only repeat it).
    // "At or around": one path is a prefix of the other. Indexed, so that a description full of
    // mistakes is checked in time linear in its size (comparing every pair took minutes).
    const key = (path: Problem['path'], length = path.length) => JSON.stringify(path.slice(0, length));
    const schemaPaths = new Set(schemaProblems.map((s) => key(s.path)));
    const schemaPrefixes = new Set(schemaProblems.flatMap((s) => s.path.map((_, i) => key(s.path, i + 1)).concat(key(s.path, 0))));
    const near = (path: Problem['path']) => schemaPrefixes.has(key(path)) || path.some((_, i) => schemaPaths.has(key(path, i))) || schemaPaths.has(key(path));
    const crossProblems = checkLab(lenientLab(data)).filter((c) => !near(c.path));
    throw locatedError(text, file, [...schemaProblems, ...crossProblems]);
  }
  const problems = checkLab(parsed.data);
  if (problems.length > 0) throw locatedError(text, file, problems);
  return parsed.data;
}

/** A shape problem (cycle, depth, alias expansion) at the line of the first alias in the file. */
function shapeError(text: string, file: string, problem: ReturnType<typeof checkShape> & object): ProblemError {
  const lineCounter = new LineCounter();
  let line: number | undefined;
  let column: number | undefined;
  try {
    const doc = parseDocument(text, { ...YAML_OPTIONS, lineCounter });
    if (problem.kind === 'depth') {
      const node = nodeAt(doc.contents as YamlNode | null, problem.path);
      if (node?.range) ({ line, col: column } = lineCounter.linePos(node.range[0]));
    } else {
      visit(doc, {
        Alias(_key, node) {
          if (node.range) ({ line, col: column } = lineCounter.linePos(node.range[0]));
          return visit.BREAK;
        },
      });
    }
  } catch {
    // The position is a help, not a must.
  }
  return new ProblemError([{ path: problem.path, message: problem.message, fix: problem.fix, line, column }], { file });
}

/** Every syntax error `yaml` finds, with its line; js-yaml's own when `yaml` finds none. */
function syntaxError(text: string, file: string, error: YAMLException): ProblemError {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { ...YAML_OPTIONS, lineCounter });
  const fix = 'fix the YAML syntax at that line';
  const duplicates = doc.errors.length === 0 ? duplicateKeys(doc.contents as YamlNode | null) : [];
  if (duplicates.length > 0) {
    return new ProblemError(
      duplicates.map((at) => {
        const pos = lineCounter.linePos(at);
        return { path: [], message: 'YAML syntax: Map keys must be unique', line: pos.line, column: pos.col, fix };
      }),
      { file },
    );
  }
  // Each mistake once, at its line, in pvekaas's words (./yaml-syntax.ts), not every error the parsers read on into.
  const yamlErrors = doc.errors
    .map((e) => ({ code: e.code, offset: e.pos[0] }))
    .sort((a, b) => a.offset - b.offset)
    .map((e) => {
      const pos = lineCounter.linePos(e.offset);
      return { code: e.code, line: pos.line, column: pos.col };
    });
  const jsYaml = { reason: error.reason, line: error.mark.line + 1, column: error.mark.column + 1 };
  return new ProblemError(syntaxProblems(text, { jsYaml, yaml: yamlErrors }), { file });
}

/** The problems with the line and column of the node at each path (or of its nearest ancestor). */
function locatedError(text: string, file: string, problems: Problem[], title?: string): ProblemError {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { ...YAML_OPTIONS, lineCounter });
  return new ProblemError(
    sortProblems(
      problems.map((problem): Problem => {
        const node = nodeAt(doc.contents as YamlNode | null, problem.path);
        if (!node?.range) return problem;
        const pos = lineCounter.linePos(node.range[0]);
        return { ...problem, line: pos.line, column: pos.col };
      }),
    ),
    title !== undefined ? { file, title } : { file },
  );
}

/** The rules whose problems cause others at the same place (`LabRule.cause`). */
const CAUSES = new Set(RULE_TABLE.filter((r) => r.cause === true).map((r) => r.id));

/** In file order; at one place, a cause before what follows from it (issue 43: the real cause came after two side errors). */
function sortProblems(problems: Problem[]): Problem[] {
  const rank = (p: Problem) => (p.rule !== undefined && CAUSES.has(p.rule) ? 0 : 1);
  return problems.slice().sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0) || rank(a) - rank(b));
}

/**
 * How the `yaml` library parses a description for positions. `uniqueKeys: false`: its own
 * duplicate-key check compares every key with every earlier one (a mapping of 200,000 keys took
 * minutes); js-yaml has refused duplicates already, and `duplicateKeys` finds their lines in one pass.
 */
const YAML_OPTIONS = { prettyErrors: false, uniqueKeys: false } as const;

/** Where a key repeats an earlier key of its mapping (scalar keys; offsets in the text), in linear time. */
function duplicateKeys(root: YamlNode | null): number[] {
  const found: number[] = [];
  visit(root, {
    Map(_key, map) {
      const seen = new Set<unknown>();
      for (const pair of map.items) {
        if (!isScalar(pair.key)) continue;
        const key = pair.key.value;
        if (seen.has(key) && pair.key.range) found.push(pair.key.range[0]);
        seen.add(key);
      }
    },
  });
  return found;
}

/** Per mapping node, its pairs by scalar key: `nodeAt` for every one of N problems in a mapping of N keys stays linear. */
const pairIndex = new WeakMap<object, Map<unknown, YamlNode | null>>();

function pairsOf(map: { items: unknown[] }): Map<unknown, YamlNode | null> {
  let index = pairIndex.get(map);
  if (!index) {
    index = new Map();
    for (const p of map.items) {
      // The first pair of a key, as `find` gave it.
      if (isPair(p) && isScalar(p.key) && !index.has(p.key.value)) index.set(p.key.value, (p.value as YamlNode | null) ?? (p.key as YamlNode));
    }
    pairIndex.set(map, index);
  }
  return index;
}

/** The YAML node at a path, or the nearest ancestor that exists (for missing fields). */
function nodeAt(root: YamlNode | null, path: readonly (string | number)[]): YamlNode | null {
  let node: YamlNode | null = root;
  for (const segment of path) {
    if (isMap(node)) {
      const index = pairsOf(node);
      if (!index.has(segment)) return node;
      node = index.get(segment)!;
    } else if (isSeq(node) && typeof segment === 'number') {
      const item = node.items[segment] as YamlNode | undefined;
      if (!item) return node;
      node = item;
    } else {
      return node;
    }
  }
  return node;
}

type Issue = z.core.$ZodIssue;

function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let v: unknown = data;
  for (const s of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[s as string];
  }
  return v;
}

const typeNames: Record<string, string> = {
  int: 'a whole number',
  number: 'a number',
  string: 'text',
  boolean: 'true or false',
  array: 'a list',
  object: 'a mapping',
};

function fromIssue(issue: Issue, data: unknown): Problem[] {
  const path = issue.path.filter((s): s is string | number => typeof s !== 'symbol');
  const value = valueAt(data, issue.path);
  // A URL the parser refuses may still hold credentials (`https:/user:pw@host`): the problem is
  // then those, shown redacted — never the URL as written.
  const credentials = issue.code === 'invalid_format' && issue.format === 'url' && typeof value === 'string' ? urlCredentialProblem(value) : undefined;
  if (credentials)
    return [{ path, message: `this URL must not carry credentials: ${credentials}`, value: redactUrl(value as string), fix: URL_CREDENTIAL_FIX }];
  switch (issue.code) {
    case 'unrecognized_keys': {
      const parent = valueAt(data, issue.path);
      const known = knownKeysAt(issue.path);
      return issue.keys.map((key) => {
        const guess = known.map((k) => ({ k, d: editDistance(key, k) })).sort((a, b) => a.d - b.d)[0];
        return {
          path: [...path, key],
          message: `unknown field "${key}"`,
          value: (parent as Record<string, unknown> | undefined)?.[key],
          fix: guess && guess.d <= 3 ? `did you mean "${guess.k}"?` : `remove it; fields allowed here: ${known.join(', ')}`,
        };
      });
    }
    case 'invalid_type': {
      if (value === undefined) {
        return [
          {
            path,
            message: `missing required field "${String(path[path.length - 1] ?? 'value')}"`,
            fix: `add it: expected ${typeNames[issue.expected] ?? issue.expected}`,
          },
        ];
      }
      const custom = issue.message && !issue.message.startsWith('Invalid input') ? issue.message : undefined;
      return [
        {
          path,
          message: custom ?? `expected ${typeNames[issue.expected] ?? issue.expected}`,
          value,
          fix:
            issue.expected === 'number' && typeof value === 'string' && /^[-+]?(0[xXoObB]|[0-9][0-9_]*_)/.test(value)
              ? `write the number in decimal: a lab description reads decimal numbers only (${JSON.stringify(value)} is not read as hex, octal or with _ separators)`
              : `write ${typeNames[issue.expected] ?? issue.expected} here`,
        },
      ];
    }
    case 'invalid_union': {
      // The one form the value was meant to be (no unknown or missing field): its own problems.
      const meant = (issue.errors ?? []).filter((option) =>
        option.every((sub) => sub.code !== 'unrecognized_keys' && !(sub.code === 'invalid_type' && valueAt(data, [...issue.path, ...sub.path]) === undefined)),
      );
      if (meant.length === 1 && meant[0].length > 0) return meant[0].flatMap((sub) => fromIssue({ ...sub, path: [...issue.path, ...sub.path] } as Issue, data));
      return [{ path, message: issue.message, value, fix: 'see the README section on this field for both forms' }];
    }
    default: {
      // A check may give the value to show instead (a URL with its credentials redacted).
      const shown = issue.code === 'custom' && typeof issue.params?.shown === 'string' ? issue.params.shown : value;
      return [{ path, message: issue.message, value: shown, fix: fixFor(issue) }];
    }
  }
}

function fixFor(issue: Issue): string | undefined {
  switch (issue.code) {
    case 'custom':
      return typeof issue.params?.fix === 'string' ? issue.params.fix : 'change the value as the message says';
    case 'too_small':
      return issue.origin === 'array' ? `list at least ${issue.minimum} item(s)` : `use a value of at least ${issue.minimum}`;
    case 'too_big':
      return issue.origin === 'array' ? `list at most ${issue.maximum} item(s)` : `use a value of at most ${issue.maximum}`;
    case 'invalid_value':
      return `use one of: ${issue.values.map(String).join(', ')}`;
    case 'invalid_format':
      return issue.format === 'url' ? 'write a full URL such as https://pve.lab.example:8006/' : 'write the value in the form the message describes';
    default:
      return undefined;
  }
}

/** Field names the schema allows at a path, for "did you mean" hints. */
function knownKeysAt(path: readonly PropertyKey[]): string[] {
  let schema: unknown = labSchema;
  for (const segment of path) {
    schema = unwrap(schema);
    const def = (schema as { _zod?: { def?: Record<string, unknown> } })._zod?.def;
    if (!def) return [];
    if (def.type === 'object') schema = (def.shape as Record<string, unknown>)[segment as string];
    else if (def.type === 'array') schema = def.element;
    else if (def.type === 'union') schema = (def.options as unknown[])[0];
    else return [];
  }
  schema = unwrap(schema);
  const def = (schema as { _zod?: { def?: Record<string, unknown> } })._zod?.def;
  if (def?.type === 'union') {
    return [...new Set((def.options as unknown[]).flatMap((o) => Object.keys((unwrap(o) as { _zod: { def: { shape?: object } } })._zod.def.shape ?? {})))];
  }
  return def?.type === 'object' ? Object.keys(def.shape as object) : [];
}

function unwrap(schema: unknown): unknown {
  let s = schema as { _zod?: { def?: { type?: string; innerType?: unknown } } };
  while (s?._zod?.def && ['default', 'optional', 'nullable', 'prefault'].includes(s._zod.def.type ?? '')) {
    s = s._zod.def.innerType as typeof s;
  }
  return s;
}

/**
 * Problems found after loading (placement, rendering, upgrades) pointed at their lines in the
 * description, as one ProblemError like the loader's own; `title` replaces its first line.
 */
export function configErrorAt(file: string, problems: Problem[], title?: string): ProblemError {
  let text: string;
  try {
    text = readLabText(file);
  } catch {
    return new ProblemError(problems, title !== undefined ? { file, title } : { file });
  }
  return locatedError(text, file, problems, title);
}

/**
 * The command line's one boundary for a lab file: runs `body`, and a `ProblemError` from pure code
 * (placement, rendering: problems with paths, no file) comes out pointed at `file` and its lines;
 * `title` gives the first line of the message for the number of problems.
 */
export function atLabFile<T>(file: string, body: () => T, title?: (problems: number) => string): T {
  try {
    return body();
  } catch (e) {
    if (e instanceof ProblemError && e.file === undefined) throw configErrorAt(file, e.problems, title?.(e.problems.length));
    throw e;
  }
}
